//! Go's light playouts: uniform among the moves that are legal under simple ko and do
//! not fill one of the mover's own one-point eyes; a pass when there is none.

use rand_core::RngCore;

use super::board::{Board, BLACK, EMPTY, MAX_SIDE, NO_POINT, WHITE};
use super::{patterns, Go, Move, Outcome};
use crate::games::{random_below, Game, LastGoodReplies, MovesPlayed, Player, PlayoutPolicy, Playouts};

impl<const N: usize> Go<N> {
    /// The light playout's move here: a point drawn uniformly among those that are legal
    /// under simple ko (superko is not checked) and are not a one-point eye of the side
    /// to move ([`Go::is_eye`]), or [`Go::PASS`] when there is none. The draw picks
    /// random empty points and moves each rejected one out of the range (exactly
    /// uniform, no move list). It takes `&mut self` for that reordering of the internal
    /// empty-point list only: the position is unchanged.
    pub fn playout_move<R: RngCore>(&mut self, rng: &mut R) -> Move {
        Self::move_of(self.playout_cell(rng))
    }

    /// [`Go::playout_move`] as a cell, [`NO_POINT`] for the pass: the playout loop
    /// places cells, so it skips the conversions to points and back.
    #[inline(always)]
    pub(super) fn playout_cell<R: RngCore>(&mut self, rng: &mut R) -> usize {
        let color = self.color();
        let mut left = self.board.empties as usize;
        while left > 0 {
            let i = random_below(rng, left as u32) as usize;
            let cell = self.board.empty[i] as usize;
            if self.board.is_playable(cell, color, self.ko) {
                return cell;
            }
            left -= 1;
            self.board.swap_empty(i, left);
        }
        NO_POINT as usize
    }

    /// The move of a playout's cell ([`NO_POINT`]: the pass).
    #[inline(always)]
    pub(super) fn move_of(cell: usize) -> Move {
        if cell == NO_POINT as usize {
            Self::PASS
        } else {
            Move(Board::<N>::point(cell) as u16)
        }
    }

    /// Whether point `mv` is an empty one-point eye of `player`: all its on-board
    /// neighbours are `player`'s stones, and the opponent holds fewer than two of its
    /// diagonal points (none when it is on the edge).
    pub fn is_eye(&self, mv: Move, player: crate::Player) -> bool {
        let color = match player {
            crate::Player::One => super::BLACK,
            crate::Player::Two => super::WHITE,
        };
        (mv.0 as usize) < N * N && {
            let cell = Board::<N>::cell(mv.0 as usize);
            self.board.color[cell] == super::EMPTY && self.board.is_eye(cell, color)
        }
    }
}

/// The most moves a playout records for its replies: two moves of context and
/// [`Go::MAX_PLIES`] on the largest board.
const RECORDED: usize = 3 * MAX_SIDE * MAX_SIDE + 2;

impl<const N: usize> Go<N> {
    /// The playout loop, light or (`HEAVY`) heavy ([`super::heavy`]), telling `on_move`
    /// every move played, as a cell ([`NO_POINT`]: the pass). With `replies`
    /// (`REPLIES`), each move is first the last good reply ([`Go::reply_cell`]), and the
    /// replies are learned from the outcome.
    #[inline(always)]
    fn run_playout<const HEAVY: bool, const REPLIES: bool, R: RngCore>(
        &mut self,
        rng: &mut R,
        replies: Option<&LastGoodReplies>,
        mut on_move: impl FnMut(crate::Player, usize),
    ) -> Outcome {
        let first = self.to_move;
        let mut moves = [NO_POINT; RECORDED];
        let mut recorded = 2;
        if REPLIES {
            moves[..2].copy_from_slice(&[self.recent[1], self.recent[0]]);
        }
        while self.passes < 2 && self.plies < Self::MAX_PLIES {
            let reply = if REPLIES { replies.and_then(|r| self.reply_cell(r)) } else { None };
            let cell = match reply {
                Some(cell) => cell,
                None if HEAVY => self.heavy_cell(rng, self.recent[0]),
                None => self.playout_cell(rng),
            };
            on_move(self.to_move, cell);
            if cell == NO_POINT as usize {
                self.passes += 1;
                self.ko = NO_POINT;
            } else {
                self.place(cell);
            }
            self.recent = [cell as u16, self.recent[0]];
            if REPLIES && recorded < RECORDED {
                moves[recorded] = cell as u16;
                recorded += 1;
            }
            self.plies += 1;
            self.to_move = self.to_move.other();
        }
        let outcome = self.outcome().unwrap_or(Outcome::Draw);
        if let (true, Some(replies)) = (REPLIES, replies) {
            replies.learn(&moves[..recorded], first, outcome);
        }
        outcome
    }

    /// The last good reply of the side to move to the last two moves, or to the last
    /// one ([`LastGoodReplies::replies`]), if it is an empty point where a stone is playable
    /// ([`Board::is_playable`]) and no self-atari.
    #[inline]
    fn reply_cell(&self, replies: &LastGoodReplies) -> Option<usize> {
        let [last, before] = self.recent;
        let color = self.color();
        replies.replies(self.to_move, before, last).into_iter().flatten().map(usize::from).find(|&cell| {
            self.board.color.get(cell) == Some(&EMPTY)
                && self.board.is_playable(cell, color, self.ko)
                && !self.is_self_atari(cell)
        })
    }

    /// The light playout loop.
    #[inline(always)]
    fn light_playout<R: RngCore>(&mut self, rng: &mut R, on_move: impl FnMut(crate::Player, usize)) -> Outcome {
        self.run_playout::<false, false, R>(rng, None, on_move)
    }

    /// The heavy playout loop.
    fn heavy_playout<R: RngCore>(&mut self, rng: &mut R, on_move: impl FnMut(crate::Player, usize)) -> Outcome {
        self.run_playout::<true, false, R>(rng, None, on_move)
    }
}

impl<const N: usize> Go<N> {
    /// Monte-Carlo ownership, the dead-stone estimate of Fuego and Pachi: for each point
    /// (`A1` first, row by row), the share of `playouts` heavy playouts from here that end
    /// with the point Black's (a black stone, or an empty point whose neighbours are all
    /// black) minus the share that end with it White's: +1 always Black's, −1 always
    /// White's. The playouts start as if no one had passed (a finished game is played on).
    /// Heavy, not light: light playouts let a dead group live as often as not where the
    /// opponent's area is loose (on 32 positions GNU Go passed in with dead stones on the
    /// board, light playouts gave its dead stones 0.27-0.39 of the time to their owner in
    /// 6 positions, and one living stone -0.00; heavy playouts told every dead stone from
    /// every living one by the sign, `tests/go_closing.rs`).
    pub fn ownership<R: RngCore>(&self, playouts: u32, rng: &mut R) -> Vec<f32> {
        let mut owned = vec![0i32; N * N];
        for _ in 0..playouts {
            let mut game = self.clone();
            (game.passes, game.plies) = (0, 0);
            game.heavy_playout(rng, |_, _| {});
            for (point, owned) in owned.iter_mut().enumerate() {
                *owned += match game.board.final_owner(Board::<N>::cell(point)) {
                    BLACK => 1,
                    WHITE => -1,
                    _ => 0,
                };
            }
        }
        owned.into_iter().map(|o| o as f32 / playouts.max(1) as f32).collect()
    }

    /// The stones that [`Go::ownership`] gives to the other colour more often than to
    /// their own: the dead stones, to be removed before a territory or area count.
    pub fn dead_stones<R: RngCore>(&self, playouts: u32, rng: &mut R) -> Vec<Move> {
        let ownership = self.ownership(playouts, rng);
        (0..N * N)
            .filter(|&point| match self.stone_at(Move(point as u16)) {
                Some(crate::Player::One) => ownership[point] < 0.0,
                Some(crate::Player::Two) => ownership[point] > 0.0,
                None => false,
            })
            .map(|point| Move(point as u16))
            .collect()
    }
}

/// Go's move strengths are the heavy playout's knowledge ([`Go::move_strength`]), or
/// learned gammas of its move features ([`super::patterns`]: tactic and 3x3 pattern);
/// it has no pruning rule. `random` playouts are light, `biased` (and `learned`) ones
/// heavy ([`super::heavy`]). (The trait's generic loops would generate every legal move with
/// the superko test and grow the history at every ply: about 15 times slower.)
impl<const N: usize> Playouts for Go<N> {
    /// Light playouts ([`Go::playout_move`]) to two passes in a row or [`Go::MAX_PLIES`].
    /// They play on the board alone: simple ko, no superko and no history (the finished
    /// position's history stops where the playout began). Not uniform over
    /// [`Game::legal_moves`]: the eye rule is what makes random Go games end.
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.light_playout(rng, |_, _| {})
    }

    /// After the opponent's pass: capture its dead stones in one's own area, then pass
    /// ([`Go::closing_moves`]).
    fn closing_moves(&self) -> Option<Vec<Move>> {
        Go::closing_moves(self)
    }

    /// The heavy playout: MoGo's ataris and 3x3 patterns around the last move.
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.heavy_playout(rng, |_, _| {})
    }

    /// The heavy playout: its rules are MoGo's, whatever the gammas (they weigh the
    /// tree's priors, [`Playouts::learned_strength`]).
    fn learned_playout<R: RngCore>(&mut self, rng: &mut R, _gammas: &[f32]) -> Outcome {
        self.heavy_playout(rng, |_, _| {})
    }

    fn move_features() -> &'static [&'static str] {
        patterns::feature_names()
    }

    /// One set for every board size: the features (tactic, 3x3 shape, distances, line)
    /// do not depend on it.
    const FEATURES_OF: &'static str = "go";

    /// Tactic, 3x3 pattern, distances to the last two moves, line ([`super::patterns`]).
    const FEATURE_GROUPS: usize = patterns::GROUPS;

    /// Light and heavy playouts play and learn last good replies (`replies=on`; [`crate::games::LastGoodReplies`]).
    const LEARNS_REPLIES: bool = true;

    /// The komi moves: a target in points ([`crate::games::Playouts::move_target`]).
    const MOVABLE_TARGET: bool = true;

    /// The board's points, `A1` first, row by row (a move's id is its point).
    const OWNED_POINTS: usize = N * N;

    /// The Tromp-Taylor owner, as [`Go::ownership`] counts it.
    #[inline]
    fn final_owner(&self, point: usize) -> Option<Player> {
        match self.board.final_owner(Board::<N>::cell(point)) {
            BLACK => Some(Player::One),
            WHITE => Some(Player::Two),
            _ => None,
        }
    }

    /// A quarter of the empty points.
    fn target_room(&self) -> f32 {
        self.empty_points() as f32 / 4.0
    }

    /// Black needs `points` more when the komi rises by them, White when it falls.
    fn move_target(&mut self, player: Player, points: f32) {
        let komi = if player == Player::One { self.komi() + points } else { self.komi() - points };
        self.set_komi(komi);
    }

    /// The move's five features ([`super::patterns`]); none for the pass and for filling the
    /// mover's own eye (their learned strength stays the hand-set
    /// [`super::heavy::EYE_OR_PASS_STRENGTH`], their `action_value`).
    fn move_team(&self, mv: Move, team: &mut [usize]) -> bool {
        if mv == Self::PASS {
            return false;
        }
        let cell = Board::<N>::cell(usize::from(mv.0));
        !self.board.is_eye(cell, self.color()) && self.feature_team(cell, team)
    }

    /// The heavy playout's knowledge as a move's strength ([`Go::move_strength`]): the
    /// priors of progressive bias (`bias=`).
    fn action_value(&self, mv: Move) -> f32 {
        self.move_strength(mv)
    }

    /// No pruning: a Go move never wins at once.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        moves.len()
    }

    /// The policy's playout, recording every move (RAVE).
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        let record = |player, cell| played.insert(player, Self::move_of(cell));
        match (policy.biased, policy.replies) {
            (true, None) => self.heavy_playout(rng, record),
            (false, None) => self.light_playout(rng, record),
            (true, replies) => self.run_playout::<true, true, R>(rng, replies, record),
            (false, replies) => self.run_playout::<false, true, R>(rng, replies, record),
        }
    }
}

#[cfg(test)]
mod tests {
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::games::go::Go9;
    use crate::games::{Outcome, Player};

    fn cell(game: &Go9, vertex: &str) -> u16 {
        Board::<9>::cell(usize::from(game.parse_move(vertex).unwrap().0)) as u16
    }

    /// The first move of a heavy playout with `replies` from `game`.
    fn first_move(game: &Go9, replies: &LastGoodReplies, rng: &mut Xoshiro256PlusPlus) -> usize {
        let mut first = None;
        game.clone().run_playout::<true, true, _>(rng, Some(replies), |_, cell| {
            first.get_or_insert(cell);
        });
        first.unwrap()
    }

    #[test]
    fn a_remembered_reply_is_played_first_while_it_is_playable() {
        let mut game = Go9::new();
        game.play_sequence("E5 C3").unwrap();
        let (e5, c3, g7) = (cell(&game, "E5"), cell(&game, "C3"), cell(&game, "G7"));
        // Black's G7 won after E5, C3 (Black played E5). Each playout gets a table of
        // that one reply (a lost playout forgets it).
        let table = || {
            let replies = LastGoodReplies::new();
            replies.learn(&[e5, c3, g7], Player::One, Outcome::Win(Player::One));
            replies
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        assert!((0..20).all(|_| first_move(&game, &table(), &mut rng) == usize::from(g7)));
        // Once G7 is taken, the playout plays its own policy.
        let mut taken = Go9::new();
        taken.play_sequence("G7 A1 E5 C3").unwrap();
        let firsts: Vec<usize> = (0..20).map(|_| first_move(&taken, &table(), &mut rng)).collect();
        assert!(firsts.iter().all(|&c| c != usize::from(g7)) && firsts.iter().any(|&c| c != firsts[0]));
    }

    /// Every reply a learned table offers in random games is a legal move that fills no
    /// eye of the mover's; the tables learn as playouts end.
    #[test]
    fn replies_offered_are_legal_and_fill_no_own_eye() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let replies = LastGoodReplies::new();
        let mut offered = 0;
        crate::games::go::for_each_playout_position(12, 40, 150, |game| {
            let _ = game.clone().run_playout::<true, true, _>(&mut rng, Some(&replies), |_, _| {});
            if let Some(cell) = game.reply_cell(&replies) {
                offered += 1;
                let mv = Go9::move_of(cell);
                assert!(game.is_legal(mv), "{}\n{}", game.format_move(mv), game.render());
                assert!(!game.is_eye(mv, game.side_to_move()), "{}", game.format_move(mv));
            }
        });
        assert!(offered > 500, "{offered} replies offered");
    }

    /// In a position where Black's three stones have one liberty, E4 (Black saves them
    /// there, White captures them there), the stones and E4 are the four most critical
    /// points of the board by heavy playouts.
    #[test]
    fn the_points_that_decide_a_capture_are_the_most_critical() {
        let mut game = Go9::new();
        game.play_sequence("C3 C2 D3 D2 E3 E2 pass B3 pass F3 pass C4 pass D4").unwrap();
        let table = crate::games::Criticality::new(81);
        let mut tally = crate::games::CriticalityTally::default();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..4096 {
            let mut playout = game.clone();
            let outcome = playout.biased_playout(&mut rng);
            tally.count(&playout, outcome, &table);
        }
        let point = |vertex: &str| usize::from(game.parse_move(vertex).unwrap().0);
        let crit: Vec<f32> = (0..81).map(|p| table.of(p)).collect();
        let mut order: Vec<usize> = (0..81).collect();
        order.sort_by(|&a, &b| crit[b].total_cmp(&crit[a]));
        let mut top: Vec<String> = order[..4].iter().map(|&p| game.format_move(Move(p as u16))).collect();
        top.sort();
        assert_eq!(top, ["C3", "D3", "E3", "E4"], "{crit:?}");
        // An open board: every point matters some, the corner far from the fight less.
        assert!(crit[point("E4")] > 0.15 && crit[point("J9")] < crit[point("E4")] * 0.8, "{crit:?}");
    }
}
