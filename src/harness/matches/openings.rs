//! How games start: the openings setting, and the random or enumerated openings it gives.

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::MatchError;
use crate::games::{random_below, Game, Move};

/// How games start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Openings {
    /// From the game's start position.
    Start,
    /// Each pair of games starts from the same `plies` random moves, colours swapped.
    Random(u32),
    /// Every sequence of `plies` legal moves that leaves the game unfinished, in a fixed
    /// order, one per pair of games (colours swapped), the list repeated: with games a
    /// multiple of twice their number every opening is played equally, so the openings
    /// drawn add no variance (with few openings, as Connect Four's 49 of 2 plies, a
    /// random draw weighs some of them twice as much as others).
    All(u32),
}

/// The setting's text: `start`, `random:R` or `all:R`.
impl std::fmt::Display for Openings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Openings::Start => write!(f, "start"),
            Openings::Random(plies) => write!(f, "random:{plies}"),
            Openings::All(plies) => write!(f, "all:{plies}"),
        }
    }
}

/// The most openings [`Openings::All`] enumerates.
pub const MAX_ALL_OPENINGS: u64 = 100_000;

/// The most positions [`Openings::All`] walks to count its openings: sequences that
/// finish the game are no openings, so without it a walk deeper than the game would
/// never end (Othello's `all:99` would walk its whole game tree).
pub const MAX_OPENING_WALK: u64 = 2_000_000;

/// An openings setting that is not `start`, `random:R` or `all:R`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadOpenings(pub String);

impl std::fmt::Display for BadOpenings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = crate::games::one_line(&self.0);
        write!(f, "--openings '{text}': expected random:R or all:R (R plies), or start")
    }
}

impl std::error::Error for BadOpenings {}

impl std::str::FromStr for Openings {
    type Err = BadOpenings;
    fn from_str(s: &str) -> Result<Openings, BadOpenings> {
        if let Some(Ok(plies)) = s.strip_prefix("all:").map(str::parse::<u32>) {
            return Ok(Openings::All(plies));
        }
        match s.strip_prefix("random:").map(str::parse::<u32>) {
            _ if s == "start" || s == "none" => Ok(Openings::Start),
            Some(Ok(plies)) => Ok(Openings::Random(plies)),
            _ => Err(BadOpenings(s.to_string())),
        }
    }
}

/// A random opening of `plies` moves that leaves the game unfinished (redrawn otherwise).
pub(super) fn random_opening<G: Game>(start: &G, plies: u32, seed: u64) -> Result<(G, Vec<String>), MatchError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..1000 {
        let mut game = start.clone();
        let mut text = Vec::new();
        for _ in 0..plies {
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if moves.is_empty() {
                break;
            }
            let mv = moves[random_below(&mut rng, moves.len() as u32) as usize];
            text.push(game.format_move(mv));
            game.play_unchecked(mv);
        }
        if game.outcome().is_none() {
            return Ok((game, text));
        }
    }
    Err(MatchError::NoOpening { plies })
}

/// Opening `n` (counted modulo their number) of [`Openings::All`]: the sequences of
/// `plies` legal moves that leave the game unfinished, in the order of the moves' lists.
///
/// # Errors
/// [`MatchError::NoOpening`] where every sequence finishes the game, and
/// [`MatchError::TooManyOpenings`] past [`MAX_ALL_OPENINGS`] openings or
/// [`MAX_OPENING_WALK`] positions walked to count them (lines that finish the game count
/// as no opening, so a walk deeper than the game's length would never reach the first).
pub(super) fn nth_opening<G: Game>(start: &G, plies: u32, n: u64) -> Result<(G, Vec<String>), MatchError> {
    /// A walk over the sequences in order, counting them; it stops at the one numbered
    /// `want` (left in `line`), or once a cap is passed.
    struct Walk {
        want: u64,
        seen: u64,
        walked: u64,
        line: Vec<Move>,
    }
    impl Walk {
        fn over_cap(&self) -> bool {
            self.seen > MAX_ALL_OPENINGS || self.walked > MAX_OPENING_WALK
        }
        /// Whether the opening `want` is below `game` (`left` plies on).
        fn find<G: Game>(&mut self, game: &G, left: u32) -> bool {
            self.walked += 1;
            if game.outcome().is_some() {
                return false;
            }
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if left == 0 || moves.is_empty() {
                self.seen += 1;
                return self.seen - 1 == self.want;
            }
            for &mv in moves {
                let mut next = game.clone();
                next.play_unchecked(mv);
                self.line.push(mv);
                if self.find(&next, left - 1) {
                    return true;
                }
                self.line.pop();
                if self.over_cap() {
                    return false;
                }
            }
            false
        }
    }
    let mut count = Walk { want: u64::MAX, seen: 0, walked: 0, line: Vec::new() };
    count.find(start, plies);
    if count.over_cap() {
        return Err(MatchError::TooManyOpenings { plies });
    }
    if count.seen == 0 {
        return Err(MatchError::NoOpening { plies });
    }
    let mut walk = Walk { want: n % count.seen, seen: 0, walked: 0, line: Vec::new() };
    walk.find(start, plies);
    let mut game = start.clone();
    let mut text = Vec::with_capacity(walk.line.len());
    for mv in walk.line {
        text.push(game.format_move(mv));
        game.play_unchecked(mv);
    }
    Ok((game, text))
}
