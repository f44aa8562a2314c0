//! Learning an [`NTupleNetwork`] by TD(0) self-play (Sutton 1988, "Learning to predict by
//! the methods of temporal differences"; for n-tuple networks: Lucas 2008, Szubert &
//! Jaśkowski 2014), and the duels that measure it.
//!
//! # The update
//! Both sides play the same network, ε-greedy over one ply: with probability ε a
//! uniformly random move, else the move whose afterstate is best for the mover
//! ([`afterstate_value`]: the exact result of a finished game, `V(s')` when the mover
//! moves again, `1 - V(s')` otherwise). The target of `V(s_t)` is that value of the
//! position actually reached, `s_{t+1}`, so a game's last target is its result (win 1,
//! draw 0.5, loss 0). With `V = σ(Σ w)` and the cross-entropy loss, the gradient step on
//! each of the `n` weights that `s_t` reads is
//! `w ← w + (α / n) (target − V(s_t))` (logistic regression's gradient, no `V(1−V)`
//! factor), so `α` is the step of the logit whatever the network's size.
//!
//! # Exact targets from the game's solver
//! With [`TdConfig::solver_nodes`] set, each game is played out first and then labelled
//! backwards from its end: every position the game's exact solver
//! ([`Endgame::solve_value`]) settles within that many nodes takes its exact value for
//! the mover as its target in place of the TD target, and the labelling stops at the
//! first position it gives up on (earlier ones are harder still; the solver's table,
//! warm from the later ones, makes each step back cheap). The updates then run in the
//! game's order. So the solver's knowledge reaches the late and middle game directly and
//! the opening through TD (regression on solver labels, bootstrapped).
//!
//! # Schedules
//! `α` falls linearly from [`TdConfig::alpha`] to [`TdConfig::alpha_end`] over the games;
//! ε is constant.

use std::ops::ControlFlow;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use serde::Serialize;

use super::ntuple::{sigmoid, CellBuffer};
use super::{afterstate_value, best_afterstate, result_for, NTupleBoard, NTupleNetwork};
use crate::games::evaluate::{Evaluate, WIN};
use crate::games::Endgame;
use crate::games::{random_below, Move};

/// The settings of a TD(0) self-play run.
#[derive(Clone, Debug, PartialEq)]
pub struct TdConfig {
    /// Self-play games.
    pub games: u64,
    /// Learning rate at the start (the step of the logit; see the module docs).
    pub alpha: f32,
    /// Learning rate at the end (linear in between).
    pub alpha_end: f32,
    /// Probability of a random move.
    pub epsilon: f32,
    /// Seed of the random moves.
    pub seed: u64,
    /// Node budget of the exact solver labelling each position (0: no labels, plain
    /// TD(0); see the module docs).
    pub solver_nodes: u64,
}

/// A bad training setting, naming the value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TdError {
    /// No games to play.
    NoGames,
    /// A learning rate that is not positive and finite.
    BadAlpha(f32),
    /// An exploration probability outside `[0, 1]`.
    BadEpsilon(f32),
}

impl std::fmt::Display for TdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TdError::NoGames => write!(f, "bad game count 0 (must be 1 or more)"),
            TdError::BadAlpha(a) => write!(f, "bad learning rate {a} (must be positive and finite)"),
            TdError::BadEpsilon(e) => write!(f, "bad exploration probability {e} (must be 0 to 1)"),
        }
    }
}

impl std::error::Error for TdError {}

impl TdConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`TdError`] naming the first bad value.
    pub fn validate(&self) -> Result<(), TdError> {
        if self.games == 0 {
            return Err(TdError::NoGames);
        }
        for alpha in [self.alpha, self.alpha_end] {
            if !(alpha.is_finite() && alpha > 0.0) {
                return Err(TdError::BadAlpha(alpha));
            }
        }
        if !(0.0..=1.0).contains(&self.epsilon) {
            return Err(TdError::BadEpsilon(self.epsilon));
        }
        Ok(())
    }
}

/// Where a training run stands, passed to its hook after every game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TdProgress {
    /// Games finished.
    pub games: u64,
    /// Positions updated so far.
    pub positions: u64,
    /// Sum of `|target − V(s)|` over those updates.
    pub abs_error_sum: f64,
    /// Positions whose target was the solver's exact value.
    pub solved: u64,
}

/// The move whose afterstate is best for the mover by `network`, and that afterstate and
/// its value (the first of equals). `None` in a finished game.
pub fn greedy_move<G: NTupleBoard>(network: &NTupleNetwork, game: &G) -> Option<(Move, G, f32)> {
    best_afterstate(game, |g| network.value(g))
}

/// The move best for the mover by the game's heuristic [`Evaluate`] one ply ahead (an
/// exact result first; the first of equals). `None` in a finished game.
pub fn heuristic_move<G: Evaluate>(game: &G) -> Option<Move> {
    let mover = game.side_to_move();
    let mut best: Option<(Move, i64)> = None;
    for mv in game.legal_moves() {
        let mut after = game.clone();
        after.play_unchecked(mv);
        let score = match after.outcome() {
            Some(outcome) => (i64::from(outcome.half_points(mover)) - 1) * i64::from(WIN),
            None if after.side_to_move() == mover => i64::from(after.evaluate()),
            None => -i64::from(after.evaluate()),
        };
        if best.is_none_or(|b| score > b.1) {
            best = Some((mv, score));
        }
    }
    best.map(|b| b.0)
}

/// Trains `network` for `G` by TD(0) self-play (see the module docs), calling `hook`
/// after every game; a `Break` from it ends the training there (an interrupted run
/// keeps the games learned so far).
///
/// # Errors
/// [`TdError`] for bad settings (checked before any game).
pub fn train_td<G: NTupleBoard + Endgame>(
    network: &mut NTupleNetwork,
    config: &TdConfig,
    mut hook: impl FnMut(&TdProgress, &NTupleNetwork) -> ControlFlow<()>,
) -> Result<TdProgress, TdError> {
    config.validate()?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
    let mut progress = TdProgress::default();
    let active = network.active_weights().max(1) as f32;
    // With labels: each position of a game, its cells and its TD target, updated after
    // the game (one buffer for the whole run).
    let mut steps: Vec<(G, CellBuffer, f32)> = Vec::new();
    for played in 0..config.games {
        let fraction = played as f32 / config.games as f32;
        let alpha = config.alpha + (config.alpha_end - config.alpha) * fraction;
        let step = alpha / active;
        let mut game = G::new();
        steps.clear();
        while game.outcome().is_none() {
            let mover = game.side_to_move();
            let (next, target) = if crate::games::random_unit(&mut rng) < config.epsilon {
                let moves = game.legal_moves();
                let moves = moves.as_ref();
                let mut next = game.clone();
                next.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
                let target = afterstate_value(&next, mover, |g| network.value(g));
                (next, target)
            } else {
                match greedy_move(network, &game) {
                    Some((_, next, target)) => (next, target),
                    None => break,
                }
            };
            let cells = network.read_cells(&game);
            if config.solver_nodes == 0 {
                update(network, &cells, target, step, &mut progress);
            } else {
                steps.push((game, cells, target));
            }
            game = next;
        }
        progress.solved += label_backwards(&mut steps, config.solver_nodes);
        for (_, cells, target) in &steps {
            update(network, cells, *target, step, &mut progress);
        }
        progress.games = played + 1;
        if hook(&progress, network).is_break() {
            break;
        }
    }
    Ok(progress)
}

/// Replaces the targets of a game's positions, from its end backwards, by their exact
/// values for the mover as the game's solver settles them within `solver_nodes` nodes
/// each, up to the first position it gives up on. Returns how many it replaced.
fn label_backwards<G: Endgame>(steps: &mut [(G, CellBuffer, f32)], solver_nodes: u64) -> u64 {
    let mut solved = 0;
    for (position, _, target) in steps.iter_mut().rev() {
        let Some(outcome) = position.solve_value(solver_nodes) else { break };
        *target = result_for(outcome, position.side_to_move());
        solved += 1;
    }
    solved
}

/// One TD step: moves the value of the position that reads `cells` towards `target`.
fn update(network: &mut NTupleNetwork, cells: &CellBuffer, target: f32, step: f32, progress: &mut TdProgress) {
    let error = target - sigmoid(network.sum_cells(cells));
    network.add_cells(cells, step * error);
    progress.positions += 1;
    progress.abs_error_sum += f64::from(error.abs());
}

/// The greedy network player's opponent in a [`duel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Opponent {
    /// Uniformly random moves.
    Random,
    /// The game's heuristic [`Evaluate`], one ply ahead ([`heuristic_move`]).
    Heuristic,
}

/// The greedy network player's score in a [`duel`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DuelScore {
    /// Games won by the network player.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl DuelScore {
    /// Points per game (win 1, draw ½), in `[0, 1]`; 0.5 for no games.
    pub fn score(&self) -> f64 {
        let games = self.wins + self.draws + self.losses;
        if games == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(games)
    }

    fn add(self, other: DuelScore) -> DuelScore {
        DuelScore { wins: self.wins + other.wins, draws: self.draws + other.draws, losses: self.losses + other.losses }
    }
}

/// Plays `pairs` pairs of games between the greedy network player ([`greedy_move`]) and
/// `opponent`: each pair starts from one opening of `opening_plies` uniformly random
/// moves (drawn from `seed` and the pair's index) and gives each side each colour.
/// Pairs run on rayon's current pool; the result does not depend on the thread count.
pub fn duel<G: NTupleBoard + Evaluate>(
    network: &NTupleNetwork,
    opponent: Opponent,
    pairs: u32,
    opening_plies: u32,
    seed: u64,
) -> DuelScore {
    (0..pairs)
        .into_par_iter()
        .map(|pair| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ u64::from(pair).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut opening = G::new();
            for _ in 0..opening_plies {
                let moves = opening.legal_moves();
                let moves = moves.as_ref();
                if moves.is_empty() {
                    break;
                }
                opening.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
            }
            let mut score = DuelScore::default();
            for network_side in [opening.side_to_move(), opening.side_to_move().other()] {
                let mut game = opening.clone();
                let outcome = loop {
                    if let Some(outcome) = game.outcome() {
                        break outcome;
                    }
                    let mv = if game.side_to_move() == network_side {
                        greedy_move(network, &game).map(|m| m.0)
                    } else {
                        match opponent {
                            Opponent::Heuristic => heuristic_move(&game),
                            Opponent::Random => {
                                let moves = game.legal_moves();
                                let moves = moves.as_ref();
                                moves.get(random_below(&mut rng, moves.len() as u32) as usize).copied()
                            }
                        }
                    };
                    match mv {
                        Some(mv) => game.play_unchecked(mv),
                        None => break crate::games::Outcome::Draw,
                    }
                };
                match result_for(outcome, network_side) {
                    r if r > 0.75 => score.wins += 1,
                    r if r < 0.25 => score.losses += 1,
                    _ => score.draws += 1,
                }
            }
            score
        })
        .reduce(DuelScore::default, DuelScore::add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, Game};
    use crate::solver::Solver;

    /// The labels are a suffix of the game, each the exact value: the weak sign of a
    /// fresh solver's unlimited solve, as a result for the mover.
    #[test]
    fn labels_are_the_exact_values_of_a_suffix() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut fresh = Solver::new(1 << 20).unwrap();
        let mut labelled_in_all = 0;
        for _ in 0..20 {
            let mut steps = Vec::new();
            let mut game = ConnectFour::new();
            while game.outcome().is_none() {
                steps.push((game, [0u8; 256], -1.0f32));
                let moves = game.legal_moves();
                let moves = moves.as_ref();
                game.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
            }
            let solved = label_backwards(&mut steps, 20_000) as usize;
            assert!(solved >= 1, "the position before the last move is always settled");
            let first_labelled = steps.len() - solved;
            for (index, (position, _, target)) in steps.iter().enumerate() {
                if index < first_labelled {
                    assert_eq!(*target, -1.0, "ply {index} is before the first settled position");
                    continue;
                }
                let (sign, _) = fresh.solve_score(position, true).unwrap();
                let exact = (sign + 1) as f32 * 0.5;
                assert_eq!(*target, exact, "ply {index} of {}", steps.len());
            }
            labelled_in_all += solved;
        }
        assert!(labelled_in_all > 20, "only the last positions settled: {labelled_in_all}");
    }
}
