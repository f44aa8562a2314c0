//! Fitting move-feature gammas to a stronger player's choices: Coulom's
//! minorization-maximization (MM) algorithm for the generalized Bradley-Terry model
//! (Coulom 2007, "Computing 'Elo Ratings' of Move Patterns in the Game of Go", §3).
//!
//! Model: in a position with legal moves `L`, the player picks move `m` with probability
//! `gamma(m) / Σ_{m' in L} gamma(m')`, where `gamma(m)` is the gamma of `m`'s feature.
//! MM update for feature `i`, all others fixed:
//! `gamma_i ← W_i / Σ_j (C_ij / E_j)`, with `W_i` the times a move of feature `i` was
//! chosen, `C_ij` the number of legal moves of feature `i` in position `j` and `E_j` the
//! summed gammas of position `j`'s legal moves. As Coulom does, a prior of one virtual win
//! and one virtual loss against an opponent of gamma 1 keeps every gamma finite.

use std::fmt;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::iter::{IntoParallelIterator, ParallelIterator};

use crate::alphabeta::Evaluate;
use crate::games::{random_below, Move, Playouts, SearchGame};
use crate::players::{Agent, PlayerError, PlayerSpec};

use crate::weights::WeightsError;

/// One choice of the teacher: how many legal moves of each feature there were, and the
/// feature of the move chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Legal moves per feature.
    pub counts: Vec<u16>,
    /// The chosen move's feature.
    pub chosen: usize,
}

/// How the training positions are made.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingGames {
    /// Self-play games of the teacher.
    pub games: usize,
    /// The teacher: any player (alpha-beta to some depth, or MCTS with many playouts).
    pub teacher: PlayerSpec,
    /// Uniformly random moves at the start of each game, so the games differ.
    pub random_plies: u32,
    /// Seed of the openings.
    pub seed: u64,
    /// Threads playing games.
    pub threads: usize,
}

/// Why the teacher's games could not be played.
#[derive(Debug)]
#[non_exhaustive]
pub enum TrainError {
    /// The teacher could not play (a configuration it cannot search with).
    Teacher(PlayerError),
    /// The pool of `threads` threads playing the games could not be started.
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// Why the pool failed (the operating system's reason).
        reason: String,
    },
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Teacher(e) => e.fmt(f),
            TrainError::ThreadPool { threads, reason } => {
                write!(f, "could not start {threads} threads for the teacher's games: {reason}")
            }
        }
    }
}

impl std::error::Error for TrainError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TrainError::Teacher(e) => Some(e),
            TrainError::ThreadPool { .. } => None,
        }
    }
}

impl From<PlayerError> for TrainError {
    fn from(e: PlayerError) -> Self {
        TrainError::Teacher(e)
    }
}

/// Plays the teacher's self-play games and records every choice it made among moves of
/// at least two features (the others carry no information).
///
/// The games run on a rayon pool of `plan.threads` threads, as that many jobs: job `t`
/// builds one teacher (seeded from `plan.seed` and `t`) and plays games `t`,
/// `t + threads`, `t + 2 threads`, ... with it, since a teacher may carry state from one
/// game to the next. The decisions come job by job, each in the order of its games, so
/// the result depends on the seed and the thread count, not on the scheduling.
///
/// # Errors
/// [`TrainError`]: the teacher's error (a configuration it cannot search with), or a
/// pool whose threads could not be started.
pub fn collect_decisions<G: Evaluate + SearchGame>(
    plan: &TrainingGames,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Decision>, TrainError> {
    let threads = plan.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TrainError::ThreadPool { threads, reason: e.to_string() })?;
    // Collected in job order; the first job's error (in that order) is the one returned.
    let per_job: Vec<Result<Vec<Decision>, PlayerError>> =
        pool.install(|| (0..threads).into_par_iter().map(|t| teacher_games::<G>(plan, t, threads, progress)).collect());
    let mut all = Vec::new();
    for part in per_job {
        all.extend(part?);
    }
    Ok(all)
}

/// Job `t` of `threads`: games `t`, `t + threads`, ... with one teacher.
fn teacher_games<G: Evaluate + SearchGame>(
    plan: &TrainingGames,
    t: usize,
    threads: usize,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Decision>, PlayerError> {
    let mut teacher = plan.teacher.build_with_evaluation::<G>(plan.seed ^ t as u64)?;
    let mut decisions = Vec::new();
    for game_index in (t..plan.games).step_by(threads) {
        let seed = plan.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ game_index as u64;
        teacher_game(teacher.as_mut(), plan, seed, &mut decisions)?;
        progress();
    }
    Ok(decisions)
}

fn teacher_game<G: Playouts>(
    teacher: &mut dyn Agent<G>,
    plan: &TrainingGames,
    seed: u64,
    decisions: &mut Vec<Decision>,
) -> Result<(), PlayerError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut game = G::new();
    let mut ply = 0;
    while game.outcome().is_none() {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        let mv = if ply < plan.random_plies {
            moves[random_below(&mut rng, moves.len() as u32) as usize]
        } else {
            let mv = teacher.choose(&game)?;
            if let Some(decision) = decision_of(&game, moves, mv) {
                decisions.push(decision);
            }
            mv
        };
        game.play_unchecked(mv);
        ply += 1;
    }
    Ok(())
}

/// The decision "chose `mv` among `moves`", if the legal moves have two features or more.
pub fn decision_of<G: Playouts>(game: &G, moves: &[Move], mv: Move) -> Option<Decision> {
    let chosen = game.move_feature(mv)?;
    let mut counts = vec![0u16; G::MOVE_FEATURES.len()];
    for &m in moves {
        counts[game.move_feature(m)?] += 1;
    }
    (counts.iter().filter(|&&c| c > 0).count() >= 2).then_some(Decision { counts, chosen })
}

/// Splits decisions into (every `nth`, the rest): a held-out set and a training set.
pub fn hold_out(decisions: Vec<Decision>, nth: usize) -> (Vec<Decision>, Vec<Decision>) {
    let (mut held_out, mut training) = (Vec::new(), Vec::new());
    for (i, decision) in decisions.into_iter().enumerate() {
        if i % nth.max(1) == 0 {
            held_out.push(decision);
        } else {
            training.push(decision);
        }
    }
    (held_out, training)
}

/// Fits one gamma per feature with `iterations` MM sweeps (all features updated from the
/// same `E_j`, which Coulom notes also converges), starting from 1.
pub fn fit_mm(decisions: &[Decision], features: usize, iterations: usize) -> Vec<f64> {
    let mut gammas = vec![1.0f64; features];
    let mut wins = vec![1.0f64; features]; // the prior's virtual win
    for d in decisions {
        wins[d.chosen] += 1.0;
    }
    for _ in 0..iterations {
        let mut denominators: Vec<f64> = gammas.iter().map(|g| 2.0 / (g + 1.0)).collect(); // the prior's 2 games
        for d in decisions {
            let total: f64 = d.counts.iter().zip(&gammas).map(|(&c, g)| c as f64 * g).sum();
            for (i, &c) in d.counts.iter().enumerate() {
                if c > 0 {
                    denominators[i] += c as f64 / total;
                }
            }
        }
        for i in 0..features {
            gammas[i] = wins[i] / denominators[i];
        }
    }
    gammas
}

/// The gammas of the fitted policy at `temperature`: each raised to `1 / temperature`,
/// the move probabilities `gamma^(1/T) / Σ gamma'^(1/T)` of a softmax over log-gammas.
///
/// At `T = 1` this is the fit itself, the best predictor of the teacher. A playout
/// policy is not a predictor, though: what makes playouts informative is that their
/// outcomes follow the position's value (Silver & Tesauro 2009, "Monte-Carlo Simulation
/// Balancing"), and a sharper policy (`T < 1`) makes fewer of the blunders a fitted
/// policy still spreads probability over. `train-weights` writes `T = 0.5` by default,
/// the best measured in play (`docs/RESULTS.md`).
///
/// # Errors
/// [`WeightsError::BadTemperature`] if `temperature` is not a positive finite number.
pub fn with_temperature(gammas: &[f64], temperature: f64) -> Result<Vec<f64>, WeightsError> {
    let exponent = temperature_exponent(temperature)?;
    Ok(gammas.iter().map(|g| g.powf(exponent)).collect())
}

/// The exponent `1 / temperature` of [`with_temperature`].
///
/// # Errors
/// [`WeightsError::BadTemperature`] if `temperature` is not a positive finite number.
pub fn temperature_exponent(temperature: f64) -> Result<f64, WeightsError> {
    if !(temperature.is_finite() && temperature > 0.0) {
        return Err(WeightsError::BadTemperature(temperature));
    }
    Ok(1.0 / temperature)
}

/// How well gammas predict held-out decisions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Mean log-likelihood of the chosen move's feature (natural log, per decision).
    pub log_likelihood: f64,
    /// Share of decisions whose chosen feature has the highest gamma among the legal ones.
    pub top_feature: f64,
}

/// The model's fit on `decisions`: the probability that a move of the chosen feature is
/// picked, `C_chosen gamma_chosen / Σ_i C_i gamma_i`, averaged in log.
pub fn evaluate_fit(decisions: &[Decision], gammas: &[f64]) -> Fit {
    let mut log_likelihood = 0.0;
    let mut top = 0usize;
    for d in decisions {
        let total: f64 = d.counts.iter().zip(gammas).map(|(&c, g)| c as f64 * g).sum();
        log_likelihood += (d.counts[d.chosen] as f64 * gammas[d.chosen] / total).ln();
        let best = (0..gammas.len()).filter(|&i| d.counts[i] > 0).max_by(|&a, &b| gammas[a].total_cmp(&gammas[b]));
        top += usize::from(best == Some(d.chosen));
    }
    let n = decisions.len().max(1) as f64;
    Fit { log_likelihood: log_likelihood / n, top_feature: top as f64 / n }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decisions drawn from a known model are fitted back to it (up to the prior's pull
    /// and sampling noise).
    #[test]
    fn mm_recovers_known_gammas() {
        let truth = [4.0f64, 1.0, 0.25];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut decisions = Vec::new();
        for _ in 0..40_000 {
            let counts: Vec<u16> = (0..3).map(|_| 1 + random_below(&mut rng, 4) as u16).collect();
            let total: f64 = counts.iter().zip(&truth).map(|(&c, g)| c as f64 * g).sum();
            let mut x = rand_core::RngCore::next_u32(&mut rng) as f64 / 4_294_967_296.0 * total;
            let mut chosen = 2;
            for i in 0..3 {
                x -= counts[i] as f64 * truth[i];
                if x < 0.0 {
                    chosen = i;
                    break;
                }
            }
            decisions.push(Decision { counts, chosen });
        }
        let gammas = fit_mm(&decisions, 3, 200);
        // Compare ratios to the middle feature (the model is scale-free but for the prior).
        let (r0, r2) = (gammas[0] / gammas[1], gammas[2] / gammas[1]);
        assert!((r0 - 4.0).abs() < 0.25, "{gammas:?}");
        assert!((r2 - 0.25).abs() < 0.03, "{gammas:?}");
        assert!(evaluate_fit(&decisions, &gammas).log_likelihood > evaluate_fit(&decisions, &[1.0; 3]).log_likelihood);
        // The fit predicts its own data better than a sharper or a flatter version of it.
        for t in [0.5, 2.0] {
            let tempered = with_temperature(&gammas, t).unwrap();
            assert!(
                evaluate_fit(&decisions, &tempered).log_likelihood < evaluate_fit(&decisions, &gammas).log_likelihood
            );
        }
    }

    /// The pool plays the same games as one thread playing job after job: teacher `t`
    /// seeded from (seed, t) plays games `t`, `t + threads`, ..., and the decisions come
    /// job by job. More threads than games leaves some jobs empty.
    #[test]
    fn decisions_do_not_depend_on_scheduling() {
        use crate::games::Othello;
        use std::sync::atomic::{AtomicUsize, Ordering};
        for (games, threads) in [(5, 2), (2, 3)] {
            let plan = TrainingGames {
                games,
                teacher: PlayerSpec::parse("mcts:playouts=40").unwrap(),
                random_plies: 4,
                seed: 9,
                threads,
            };
            let played = AtomicUsize::new(0);
            let pooled = collect_decisions::<Othello>(&plan, &|| {
                played.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            assert_eq!(played.into_inner(), games);
            let mut sequential = Vec::new();
            for t in 0..threads {
                let mut teacher = plan.teacher.build_with_evaluation::<Othello>(plan.seed ^ t as u64).unwrap();
                for game_index in (t..games).step_by(threads) {
                    let seed = plan.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ game_index as u64;
                    teacher_game(teacher.as_mut(), &plan, seed, &mut sequential).unwrap();
                }
            }
            assert!(!sequential.is_empty());
            assert_eq!(pooled, sequential, "{games} games on {threads} threads");
        }
    }

    #[test]
    fn temperature_sharpens_and_rejects_bad_values() {
        assert_eq!(with_temperature(&[4.0, 1.0, 0.25], 0.5).unwrap(), vec![16.0, 1.0, 0.0625]);
        assert_eq!(with_temperature(&[4.0, 1.0], 1.0).unwrap(), vec![4.0, 1.0]);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(with_temperature(&[1.0], bad).is_err(), "{bad}");
        }
    }
}
