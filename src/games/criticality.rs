//! Criticality (Coulom 2009, "Criticality: a Monte-Carlo Heuristic for Go Programs"):
//! how much owning a point at the end of a playout goes with winning it. For a point
//! `x`, over the search's playouts,
//!
//! ```text
//! crit(x) = P(x's owner wins) − (P(Black owns x)·P(Black wins) + P(White owns x)·P(White wins))
//! ```
//!
//! the covariance of "owns x" and "wins" summed over the two players: about 0 for a
//! point whose owner is settled or does not matter, up to 0.5 for a point that decides
//! an even game. The search's priors give moves on critical points more weight
//! (`crit=K`: the move's strength times `1 + K·(crit − c̄)⁺`, `c̄` the mean over the
//! board: on an open board every point is somewhat critical, 0.1-0.2 in 9x9 openings).
//!
//! One table per search, shared by its threads; each worker counts its playouts in a
//! [`CriticalityTally`] of its own and adds them to the table every
//! [`CriticalityTally::FLUSH`] playouts, so a playout costs no shared write. Every access
//! is `Relaxed`: the counters are independent statistics, and a reader that sees some
//! of a flush and not the rest reads values off by at most one flush's playouts
//! (clamped to the counts it read).

use std::sync::atomic::{AtomicU32, Ordering};

use super::{Outcome, Player, Playouts};

/// The counters of one point.
const COUNTERS: usize = 3;
/// Counter: the point is Black's at the end.
const BLACK_OWNS: usize = 0;
/// Counter: the point is White's at the end.
const WHITE_OWNS: usize = 1;
/// Counter: the point's owner won.
const OWNER_WON: usize = 2;

/// The search's criticality table: per point, how often each player owned it at the end
/// and how often its owner won, and the playouts and each player's wins.
pub struct Criticality {
    /// `[point * COUNTERS + counter]`.
    counts: Box<[AtomicU32]>,
    playouts: AtomicU32,
    wins: [AtomicU32; 2],
}

impl std::fmt::Debug for Criticality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Criticality").field("playouts", &self.playouts()).finish_non_exhaustive()
    }
}

impl Criticality {
    /// Playouts a table must have counted before it tells a point's criticality (fewer:
    /// every point 0): with fewer, a point's estimate is noise of ±0.1 or more.
    pub const MIN_PLAYOUTS: u32 = 1024;

    /// An empty table for `points` points.
    pub fn new(points: usize) -> Criticality {
        Criticality {
            counts: (0..points * COUNTERS).map(|_| AtomicU32::new(0)).collect(),
            playouts: AtomicU32::new(0),
            wins: [AtomicU32::new(0), AtomicU32::new(0)],
        }
    }

    /// The points the table counts.
    pub fn points(&self) -> usize {
        self.counts.len() / COUNTERS
    }

    /// Halves every count: a new search's root, usually two moves on from the last one's,
    /// whose counts then weigh half as much as its own first ones.
    pub fn halve(&mut self) {
        for count in self.counts.iter_mut().chain([&mut self.playouts]).chain(self.wins.iter_mut()) {
            *count.get_mut() /= 2;
        }
    }

    /// The playouts counted.
    pub fn playouts(&self) -> u32 {
        // Relaxed: a statistic (module doc).
        self.playouts.load(Ordering::Relaxed)
    }

    /// The criticality of `point` (0 for a point the table does not count, and for every
    /// point before [`Criticality::MIN_PLAYOUTS`] playouts).
    #[inline]
    pub fn of(&self, point: usize) -> f32 {
        self.totals().map_or(0.0, |totals| self.of_in(point, totals))
    }

    /// How much more critical than the board's mean each point is, the totals and the
    /// mean read once for all the points asked (`None` before
    /// [`Criticality::MIN_PLAYOUTS`] playouts).
    pub fn excesses(&self) -> Option<Excesses<'_>> {
        let totals = self.totals()?;
        let points = self.points();
        let mean = (0..points).map(|point| self.of_in(point, totals)).sum::<f32>() / points.max(1) as f32;
        Some(Excesses { table: self, totals, mean })
    }

    /// The playouts and each player's wins, once there are enough playouts.
    fn totals(&self) -> Option<Totals> {
        // Relaxed: statistics (module doc).
        let playouts = self.playouts.load(Ordering::Relaxed);
        (playouts >= Self::MIN_PLAYOUTS).then(|| {
            let n = playouts as f32;
            Totals { n, wins: self.wins.each_ref().map(|w| (w.load(Ordering::Relaxed) as f32 / n).min(1.0)) }
        })
    }

    /// The criticality of `point` against `totals`.
    #[inline]
    fn of_in(&self, point: usize, Totals { n, wins: [black_wins, white_wins] }: Totals) -> f32 {
        if point >= self.points() {
            return 0.0;
        }
        // Relaxed: statistics (module doc).
        let at = |counter: usize| (self.counts[point * COUNTERS + counter].load(Ordering::Relaxed) as f32 / n).min(1.0);
        at(OWNER_WON) - (at(BLACK_OWNS) * black_wins + at(WHITE_OWNS) * white_wins)
    }
}

/// A table's playouts and each player's share of wins, read once.
#[derive(Clone, Copy, Debug)]
struct Totals {
    n: f32,
    wins: [f32; 2],
}

/// Each point's criticality over the board's mean ([`Criticality::excesses`]).
#[derive(Clone, Copy, Debug)]
pub struct Excesses<'a> {
    table: &'a Criticality,
    totals: Totals,
    /// The mean criticality of the table's points.
    pub mean: f32,
}

impl Excesses<'_> {
    /// How much more than the mean `point` is critical (0 where less).
    #[inline]
    pub fn of(&self, point: usize) -> f32 {
        (self.table.of_in(point, self.totals) - self.mean).max(0.0)
    }
}

/// One worker's counts not yet added to a [`Criticality`] table.
#[derive(Debug, Default)]
pub struct CriticalityTally {
    /// As the table's `counts` (sized at the first playout).
    counts: Vec<u32>,
    playouts: u32,
    wins: [u32; 2],
}

impl CriticalityTally {
    /// Playouts a tally counts before it adds them to its table.
    pub const FLUSH: u32 = 64;

    /// Counts the finished playout `board` ended in with `outcome`, and adds the tally to
    /// `table` once it holds [`CriticalityTally::FLUSH`] playouts.
    #[inline]
    pub fn count<G: Playouts>(&mut self, board: &G, outcome: Outcome, table: &Criticality) {
        let points = G::OWNED_POINTS.min(table.points());
        if self.counts.len() != points * COUNTERS {
            self.counts = vec![0; points * COUNTERS];
        }
        let winner = match outcome {
            Outcome::Win(player) => Some(player),
            Outcome::Draw => None,
        };
        for (point, counts) in self.counts.chunks_exact_mut(COUNTERS).enumerate() {
            let Some(owner) = board.final_owner(point) else { continue };
            counts[if owner == Player::One { BLACK_OWNS } else { WHITE_OWNS }] += 1;
            counts[OWNER_WON] += u32::from(winner == Some(owner));
        }
        self.playouts += 1;
        if let Some(winner) = winner {
            self.wins[winner.index()] += 1;
        }
        if self.playouts >= Self::FLUSH {
            self.flush(table);
        }
    }

    /// Adds the counts to `table` and empties the tally.
    pub fn flush(&mut self, table: &Criticality) {
        // Relaxed: statistics (module doc).
        let add = |to: &AtomicU32, count: &mut u32| {
            if *count > 0 {
                to.fetch_add(std::mem::take(count), Ordering::Relaxed);
            }
        };
        for (to, count) in table.counts.iter().zip(self.counts.iter_mut()) {
            add(to, count);
        }
        for (to, count) in table.wins.iter().zip(self.wins.iter_mut()) {
            add(to, count);
        }
        add(&table.playouts, &mut self.playouts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board of three points whose owners are given.
    #[derive(Clone, Debug)]
    struct Owners([Option<Player>; 3]);

    impl crate::games::Game for Owners {
        const NAME: &'static str = "owners";
        type Moves = crate::games::MoveList<1>;
        fn new() -> Self {
            Owners([None; 3])
        }
        fn side_to_move(&self) -> Player {
            Player::One
        }
        fn outcome(&self) -> Option<Outcome> {
            Some(Outcome::Draw)
        }
        fn legal_moves(&self) -> Self::Moves {
            Self::Moves::default()
        }
        fn play_unchecked(&mut self, _mv: crate::games::Move) {}
        fn hash(&self) -> u64 {
            0
        }
        fn parse_move(&self, _text: &str) -> Result<crate::games::Move, crate::games::GameError> {
            Err(crate::games::GameError::IllegalMove("none".into()))
        }
        fn format_move(&self, _mv: crate::games::Move) -> String {
            String::new()
        }
    }

    impl Playouts for Owners {
        const OWNED_POINTS: usize = 3;
        fn final_owner(&self, point: usize) -> Option<Player> {
            self.0[point]
        }
    }

    #[test]
    fn criticality_is_the_covariance_of_owning_and_winning() {
        use Player::{One as B, Two as W};
        let table = Criticality::new(3);
        let mut tally = CriticalityTally::default();
        // Point 0 decides the game; point 1 is always Black's; point 2 is Black's in half
        // the games, whoever wins. 2,048 playouts, Black wins half.
        for i in 0..2048 {
            let black_wins = i % 2 == 0;
            let winner = if black_wins { B } else { W };
            let third = if i % 4 < 2 { B } else { W };
            tally.count(&Owners([Some(winner), Some(B), Some(third)]), Outcome::Win(winner), &table);
            if i == 500 {
                // Below the minimum: nothing told yet.
                assert_eq!(table.of(0), 0.0);
                assert!(table.excesses().is_none());
            }
        }
        assert_eq!(table.playouts(), 2048);
        // P(owner wins) = 1, expected 0.5·0.5 + 0.5·0.5 = 0.5.
        assert!((table.of(0) - 0.5).abs() < 1e-6, "{}", table.of(0));
        // Always Black's: P(owner wins) = P(Black wins) = 0.5 = 1·0.5.
        assert!(table.of(1).abs() < 1e-6, "{}", table.of(1));
        // Independent of the winner: 0.
        assert!(table.of(2).abs() < 1e-6, "{}", table.of(2));
        // A point the table does not count.
        assert_eq!(table.of(3), 0.0);
        // The mean of 0.5, 0 and 0; only the first point exceeds it.
        let excesses = table.excesses().expect("enough playouts");
        assert!((excesses.mean - 0.5 / 3.0).abs() < 1e-6);
        assert!((excesses.of(0) - 1.0 / 3.0).abs() < 1e-6 && excesses.of(1) == 0.0);
        let mut table = table;
        table.halve();
        assert_eq!(table.playouts(), 1024);
        assert!((table.of(0) - 0.5).abs() < 1e-6, "{}", table.of(0));
        table.halve();
        assert_eq!((table.playouts(), table.of(0)), (512, 0.0));
    }

    #[test]
    fn a_tally_adds_its_playouts_at_each_flush() {
        let table = Criticality::new(3);
        let mut tally = CriticalityTally::default();
        let board = Owners([Some(Player::One), None, Some(Player::Two)]);
        for _ in 0..CriticalityTally::FLUSH - 1 {
            tally.count(&board, Outcome::Draw, &table);
        }
        assert_eq!(table.playouts(), 0);
        tally.count(&board, Outcome::Draw, &table);
        assert_eq!(table.playouts(), CriticalityTally::FLUSH);
        tally.count(&board, Outcome::Draw, &table);
        tally.flush(&table);
        assert_eq!(table.playouts(), CriticalityTally::FLUSH + 1);
    }
}
