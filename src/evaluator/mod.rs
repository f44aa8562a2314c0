//! Learned position evaluators: the [`Evaluator`] trait (a win probability for the side
//! to move, optionally move priors) and its n-tuple network implementation
//! ([`NTupleNetwork`]), trained by TD(0) self-play in `train` (built with the `harness` feature).
//!
//! An n-tuple network (Lucas 2008, "Learning to play Othello with n-tuple systems") reads
//! a board as cells (empty / the side to move's disc / the opponent's disc, see
//! [`NTupleBoard::cells`]). Each *tuple* is a list of cells; the contents of its cells,
//! read as a base-3 number, index a table of weights. Every tuple is applied once per
//! symmetry of the board ([`NTupleBoard::symmetries`]), all images sharing one table, so
//! the value is invariant under the symmetries (Buro's Logistello shares its pattern
//! tables the same way). The value is the logistic function of the summed weights.
//!
//! A game opts in with `impl NTupleBoard for MyGame {}` (all defaults: no cells, so no
//! network can be built for it); Othello, Connect Four and tic-tac-toe describe their
//! boards and tuple sets, and Othello and Connect Four ship a trained network
//! ([`NTupleBoard::SHIPPED_NETWORK`], loaded by [`NTupleNetwork::shipped`]).
//!
//! # The shipped networks (measured 2026-11-23 on a 2-vCPU machine shared with other jobs)
//! * **Othello** (`src/games/othello/network.pmnt`, Buro's patterns, 167,265 weights, 671 kB):
//!   `parmcts train-network --game othello --games 200000 --alpha 0.5 --alpha-end 0.1
//!   --epsilon 0.1 --seed 1 --stages 1`: 39 s with its strength checks (the file is
//!   reproduced bit for bit). Its greedy one-ply player scores 98 % against the one-ply
//!   [`Evaluate`](crate::games::Evaluate) player (100 random openings, both colours).
//!   Stages: 3 stages (2 MB) trained alongside under the same command scored 86.5 %
//!   against 93.5 % for 1 stage after 20,000 games and 97.5 % against 98 % after
//!   200,000: no gain at this budget, so 1 ships. Learning rate: at 20,000 games
//!   α = 0.1, 0.5 and 2 scored 68.5 %, 93.5 % and 52.5 %.
//!   As the cut-off of [`AlphaBeta`](crate::alphabeta::AlphaBeta):
//!   `parmcts match --game othello --p1 alphabeta:depth=4,eval=network --p2
//!   alphabeta:depth=4 --games 100 --openings random:4 --parallel-games 1` scores
//!   0.950 [0.888, 0.978] (95 of 100); depth 6, 40 games: 0.988; at equal time
//!   (`time-ms=20` both, 40 games) 0.925 [0.801, 0.974], a move to depth 4 taking
//!   about 3 times longer (median 0.158 ms against 0.055 ms).
//!
//! Cost of [`NTupleNetwork::value`] (release, one core): 317 ns for Othello (88 tuple
//! images), 157 ns for Connect Four (38 images), on 1,000 positions from random play.
//! * **Connect Four** (`src/games/connect4/network.pmnt`, 19 rectangles, 3 stages, 373,977
//!   weights, 1.5 MB): `parmcts train-network --game connect4 --games 2000000 --alpha 2
//!   --alpha-end 0.2 --epsilon 0.2 --seed 1 --stages 3`: 62 s with its strength checks
//!   (reproduced bit for bit).
//!   Greedy one-ply: 100 % against random, 52–84 % (76 % at the end) against the
//!   one-ply heuristic, which knows threats. As alpha-beta's cut-off against the
//!   heuristic (100 games, `--openings random:2`): depth 2 0.645 [0.557, 0.722],
//!   depth 4 0.615 [0.519, 0.702], depth 6 0.425 [0.336, 0.520] (not better there).
//!   A 1-stage network of 1,000,000 games (same rates) was level with the heuristic at
//!   depths 2, 4 and 6 (0.520, 0.475, 0.490). Sweeps of 300,000 games, against the
//!   one-ply heuristic: α 0.5→0.1 with 1 or 3 stages 44.5 % / 54.8 %, ε = 0.3 71.5 %,
//!   α 2→0.2 76 %.

mod batch;
mod ntuple;
#[cfg(feature = "onnx")]
pub mod onnx;
pub(crate) mod queue;
#[cfg(feature = "harness")]
pub mod train;

use std::sync::Arc;

use crate::games::{Game, Move, Outcome, Player};

pub use crate::games::{square_symmetries, NTupleBoard};
pub use batch::{Batch, EvalError};
pub use ntuple::{NTupleNetwork, NetworkError, FORMAT_VERSION, MAGIC, MAX_CELLS};

/// A position evaluator, as a search uses it at a leaf: the value of a position for
/// its side to move and, optionally, priors over its legal moves.
///
/// A search calls it one of two ways ([`SearchConfig`](crate::search::SearchConfig)'s
/// `eval-batch`):
/// * **one position at a time** (`eval-batch=0`, the default): [`Evaluator::value`] and
///   [`Evaluator::priors`] on the worker that reached the leaf, with nothing between the
///   worker and the evaluator: the path of a cheap evaluator such as the n-tuple
///   networks ([`NTupleNetwork`]).
/// * **in batches** (`eval-batch=N`): the workers keep many walks in flight, their leaves
///   are gathered into batches of up to N positions, and [`Evaluator::evaluate`] runs on
///   the search's evaluator threads (`eval-threads`) or, with `eval-threads=0`, on the
///   workers themselves: the path of an evaluator that is efficient only in batches (a
///   neural network). Only here may the evaluator fail ([`EvalError`]).
///
/// A value outside `[0, 1]` (NaN included) stops the search with an error
/// ([`SearchError::Evaluator`](crate::search::SearchError::Evaluator)), its tree intact.
/// See `examples/evaluator.rs` for an evaluator of one's own.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The probability that the side to move wins a *non-terminal* `game` (a draw
    /// counting one half), in `[0, 1]`.
    fn value(&self, game: &G) -> f32;

    /// The same value as a logit, `ln(p / (1 - p))`: a scale without saturation for
    /// searches that compare near-certain positions. The default derives it from
    /// [`Evaluator::value`], clamped to ±16.
    fn logit(&self, game: &G) -> f32 {
        let p = self.value(game).clamp(1e-7, 1.0 - 1e-7);
        (p / (1.0 - p)).ln().clamp(-16.0, 16.0)
    }

    /// Prior probabilities of `moves` (legal in `game`) into `out[..moves.len()]`,
    /// summing to one. Returns `false` (and leaves `out` unspecified) when the
    /// evaluator has no priors; the default.
    fn priors(&self, game: &G, moves: &[Move], out: &mut [f32]) -> bool {
        let _ = (game, moves, out);
        false
    }

    /// Evaluates every position of `batch`: sets its value ([`Batch::set_value`]) and,
    /// where [`Batch::wants_priors`], the priors of its [`Batch::moves`]
    /// ([`Batch::priors_mut`]; left at zero: none). The default calls
    /// [`Evaluator::value`] and [`Evaluator::priors`] position by position; an evaluator
    /// that is efficient in batches implements this.
    ///
    /// # Errors
    /// An [`EvalError`] of the evaluator's own ([`EvalError::Failed`]): the search
    /// stops with it.
    fn evaluate(&self, batch: &mut Batch<G>) -> Result<(), EvalError> {
        for i in 0..batch.len() {
            let value = self.value(batch.position(i));
            batch.set_value(i, value);
            if batch.wants_priors(i) {
                let (game, moves, out) = batch.entry_mut(i);
                if !self.priors(game, moves, out) {
                    out.fill(0.0);
                }
            }
        }
        Ok(())
    }
}

/// The result of a finished game for `player`: 1 win, 0.5 draw, 0 loss.
#[inline]
pub fn result_for(outcome: Outcome, player: Player) -> f32 {
    outcome.half_points(player) as f32 * 0.5
}

/// The value for `mover` of the position `after` reached by its move, by `value` (the
/// win probability of `after`'s side to move): the exact result if `after` is over,
/// `value(after)` if `mover` moves again (a pass of the opponent), else
/// `1 - value(after)`.
#[inline]
pub fn afterstate_value<G: Game>(after: &G, mover: Player, value: impl FnOnce(&G) -> f32) -> f32 {
    match after.outcome() {
        Some(outcome) => result_for(outcome, mover),
        None if after.side_to_move() == mover => value(after),
        None => 1.0 - value(after),
    }
}

/// The legal move of `game` (not over) best for its mover, the position it leads to and
/// that position's value for the mover ([`afterstate_value`] by `value`); the first of
/// equals. `None` when the game has no legal move.
pub fn best_afterstate<G: Game>(game: &G, value: impl Fn(&G) -> f32) -> Option<(Move, G, f32)> {
    let mover = game.side_to_move();
    let mut best: Option<(Move, G, f32)> = None;
    for mv in game.legal_moves() {
        let mut after = game.clone();
        after.play_unchecked(mv);
        let v = afterstate_value(&after, mover, &value);
        if best.as_ref().is_none_or(|b| v > b.2) {
            // No value beats a certain win.
            let certain = v >= 1.0;
            best = Some((mv, after, v));
            if certain {
                break;
            }
        }
    }
    best
}

/// The temperature of [`NTupleNetwork`]'s priors: a softmax over the moves' afterstate
/// win probabilities divided by this (0.1: ten points of win probability make a move
/// e times likelier). Not tuned.
pub const PRIOR_TEMPERATURE: f32 = 0.1;

impl<G: NTupleBoard> Evaluator<G> for NTupleNetwork {
    #[inline]
    fn value(&self, game: &G) -> f32 {
        NTupleNetwork::value(self, game)
    }

    #[inline]
    fn logit(&self, game: &G) -> f32 {
        NTupleNetwork::logit(self, game)
    }

    /// A softmax over the moves' afterstate values for the mover ([`afterstate_value`]:
    /// exact for a finished game, not negated when the mover moves again) at
    /// [`PRIOR_TEMPERATURE`].
    fn priors(&self, game: &G, moves: &[Move], out: &mut [f32]) -> bool {
        if moves.is_empty() || out.len() < moves.len() {
            return false;
        }
        let mover = game.side_to_move();
        let mut best = f32::NEG_INFINITY;
        for (mv, slot) in moves.iter().zip(out.iter_mut()) {
            let mut after = game.clone();
            after.play_unchecked(*mv);
            *slot = afterstate_value(&after, mover, |g| NTupleNetwork::value(self, g)) / PRIOR_TEMPERATURE;
            best = best.max(*slot);
        }
        let mut total = 0.0;
        for slot in out[..moves.len()].iter_mut() {
            *slot = (*slot - best).exp();
            total += *slot;
        }
        out[..moves.len()].iter_mut().for_each(|p| *p /= total);
        true
    }
}

impl NTupleNetwork {
    /// The game's shipped network ([`NTupleBoard::SHIPPED_NETWORK`]), parsed from the
    /// bytes built into the crate (a millisecond or so: callers that load it often keep
    /// the `Arc`, as a [`Search`](crate::Search) does for its game); `None` if the game
    /// ships none.
    ///
    /// # Errors
    /// [`NetworkError`] if the shipped bytes do not parse or do not fit the game (a
    /// build that changed the game's board without retraining).
    pub fn shipped<G: NTupleBoard>() -> Option<Result<Arc<NTupleNetwork>, NetworkError>> {
        let bytes = G::SHIPPED_NETWORK?;
        Some(NTupleNetwork::from_bytes(bytes).and_then(|n| n.check::<G>().map(|()| Arc::new(n))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{GameError, MoveList};

    /// A game where move 1 keeps the turn (like an opponent's forced pass) and move 0
    /// hands it over; it ends, won by the side that moved last, after three moves.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    struct Again {
        moves: u8,
        to_move: Player,
    }

    impl Game for Again {
        const NAME: &'static str = "again";
        type Moves = MoveList<2>;
        fn new() -> Self {
            Again { moves: 0, to_move: Player::One }
        }
        fn side_to_move(&self) -> Player {
            self.to_move
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.moves == 3).then_some(Outcome::Win(self.to_move.other()))
        }
        fn legal_moves(&self) -> MoveList<2> {
            let mut moves = MoveList::new();
            if self.moves < 3 {
                moves.extend([Move(0), Move(1)]);
            }
            moves
        }
        fn play_unchecked(&mut self, mv: Move) {
            self.moves += 1;
            if mv == Move(0) || self.moves == 3 {
                self.to_move = self.to_move.other();
            }
        }
        fn hash(&self) -> u64 {
            u64::from(self.moves)
        }
        fn parse_move(&self, text: &str) -> Result<Move, GameError> {
            Err(GameError::BadMove(text.to_string()))
        }
        fn format_move(&self, mv: Move) -> String {
            mv.0.to_string()
        }
    }

    #[test]
    fn afterstate_values_negate_only_when_the_turn_passes() {
        let start = Again::new();
        let value = |_: &Again| 0.8; // the side to move of any position wins with 0.8
        let mut handed = start;
        handed.play_unchecked(Move(0));
        assert_eq!(afterstate_value(&handed, Player::One, value), 1.0 - 0.8);
        let mut kept = start;
        kept.play_unchecked(Move(1));
        assert_eq!(kept.side_to_move(), Player::One);
        assert_eq!(afterstate_value(&kept, Player::One, value), 0.8);
        let mut over = kept;
        over.play_unchecked(Move(1));
        over.play_unchecked(Move(1));
        assert_eq!(over.outcome(), Some(Outcome::Win(Player::One)));
        assert_eq!(afterstate_value(&over, Player::One, value), 1.0);
        assert_eq!(afterstate_value(&over, Player::Two, value), 0.0);
    }

    #[test]
    fn square_symmetries_are_permutations_forming_a_group() {
        let syms = square_symmetries::<3, 9>();
        assert_eq!(syms[0], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        // Mirror left-right of the top row.
        assert_eq!(&syms[1][..3], &[2, 1, 0]);
        for a in &syms {
            let mut seen = [false; 9];
            a.iter().for_each(|&c| seen[c as usize] = true);
            assert!(seen.iter().all(|&s| s));
            for b in &syms {
                let composed: Vec<u8> = (0..9).map(|i| b[a[i] as usize]).collect();
                assert!(syms.iter().any(|s| s[..] == composed[..]), "not closed under composition");
            }
        }
    }
}
