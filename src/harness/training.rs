//! Fitting move-feature gammas to a stronger player's choices: Coulom's
//! minorization-maximization (MM) algorithm for the generalized Bradley-Terry model
//! (Coulom 2007, "Computing 'Elo Ratings' of Move Patterns in the Game of Go", §3).
//!
//! Model: every move is a *team* of features, one from each of the game's feature groups
//! ([`Playouts::FEATURE_GROUPS`]; Othello has one group, its square classes, Go five, the
//! tactic, the 3x3 pattern, the distances to the last two moves and the line). Its
//! strength is the product of its features' gammas, and in a position with legal moves
//! `L` the player picks move `m` with probability `strength(m) / Σ_{m' in L}
//! strength(m')`. MM update for feature `i`, every feature of
//! the other groups fixed: `gamma_i ← W_i / Σ_j Σ_{m in L_j, i in m} (strength(m) /
//! gamma_i) / E_j`, with `W_i` the times a move with feature `i` was chosen and `E_j` the
//! summed strengths of position `j`'s legal moves. The features of one group never share
//! a team, so a whole group is updated at once from the same `E_j` (Coulom's §3.3); the
//! groups take turns. As Coulom does, a prior of one virtual win and one virtual loss
//! against an opponent of gamma 1 keeps every gamma finite.

use std::fmt;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::iter::{IntoParallelIterator, ParallelIterator};

use crate::alphabeta::Evaluate;
use crate::games::{random_below, Move, Playouts, SearchGame, MAX_FEATURE_GROUPS};
use crate::harness::interrupt::Interrupt;
use crate::harness::players::{Agent, PlayerError, PlayerSpec};
use crate::harness::pool::{worker_pool, PoolStartError};

use crate::weights::WeightsError;

/// One choice of the teacher: the legal moves as teams of features, identical teams
/// counted once with their number, and which of them was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Features per team (the game's [`Playouts::FEATURE_GROUPS`]).
    pub groups: usize,
    /// The distinct teams among the legal moves, `groups` features each, one after the
    /// other.
    pub teams: Vec<u32>,
    /// How many legal moves each team stands for.
    pub counts: Vec<u16>,
    /// The chosen move's team (an index into `counts`).
    pub chosen: usize,
}

impl Decision {
    /// The features of team `t`.
    pub fn team(&self, t: usize) -> &[u32] {
        &self.teams[t * self.groups..(t + 1) * self.groups]
    }

    /// The strength of team `t` under `gammas`: the product of its features' gammas.
    fn strength(&self, t: usize, gammas: &[f64]) -> f64 {
        self.team(t).iter().map(|&f| gammas[f as usize]).product()
    }
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
    /// The pool of threads playing the games could not be started.
    ThreadPool(PoolStartError),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Teacher(e) => e.fmt(f),
            TrainError::ThreadPool(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TrainError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TrainError::Teacher(e) => Some(e),
            TrainError::ThreadPool(e) => Some(e),
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
/// Once `interrupt` is requested each job stops between two moves, keeping the
/// decisions recorded so far (a game cut short still shows the teacher's choices).
///
/// # Errors
/// [`TrainError`]: the teacher's error (a configuration it cannot search with), or a
/// pool whose threads could not be started.
pub fn collect_decisions<G: Evaluate + SearchGame>(
    plan: &TrainingGames,
    progress: &(dyn Fn() + Sync),
    interrupt: &Interrupt,
) -> Result<Vec<Decision>, TrainError> {
    let threads = plan.threads.max(1);
    let pool = worker_pool(threads).map_err(TrainError::ThreadPool)?;
    // Collected in job order; the first job's error (in that order) is the one returned.
    let per_job: Vec<Result<Vec<Decision>, PlayerError>> = pool.install(|| {
        (0..threads).into_par_iter().map(|t| teacher_games::<G>(plan, t, threads, progress, interrupt)).collect()
    });
    let mut all = Vec::new();
    for part in per_job {
        all.extend(part?);
    }
    Ok(all)
}

/// Job `t` of `threads`: games `t`, `t + threads`, ... with one teacher (an external
/// engine, which keeps one board, is started afresh for each game).
fn teacher_games<G: Evaluate + SearchGame>(
    plan: &TrainingGames,
    t: usize,
    threads: usize,
    progress: &(dyn Fn() + Sync),
    interrupt: &Interrupt,
) -> Result<Vec<Decision>, PlayerError> {
    let build = || plan.teacher.build_with_evaluation::<G>(plan.seed ^ t as u64);
    let mut teacher = build()?;
    let mut decisions = Vec::new();
    for (i, game_index) in (t..plan.games).step_by(threads).enumerate() {
        if interrupt.requested() {
            break;
        }
        if i > 0 && matches!(plan.teacher, PlayerSpec::Gtp(_)) {
            teacher = build()?;
        }
        let seed = plan.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ game_index as u64;
        if teacher_game(teacher.as_mut(), plan, seed, &mut decisions, interrupt)? {
            progress();
        }
    }
    Ok(decisions)
}

/// One self-play game of `teacher` after `plan.random_plies` random moves, its choices
/// added to `decisions`. Every move is shown to the teacher ([`Agent::observe`]), so an
/// external engine follows the game; a resignation, or a move illegal under this
/// crate's rules, ends the game. `false` when `interrupt` cut it short.
fn teacher_game<G: Playouts>(
    teacher: &mut dyn Agent<G>,
    plan: &TrainingGames,
    seed: u64,
    decisions: &mut Vec<Decision>,
    interrupt: &Interrupt,
) -> Result<bool, PlayerError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut game = G::new();
    let mut ply = 0;
    while game.outcome().is_none() {
        if interrupt.requested() {
            return Ok(false);
        }
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        let mv = if ply < plan.random_plies {
            moves[random_below(&mut rng, moves.len() as u32) as usize]
        } else {
            let mv = match teacher.choose(&game) {
                Ok(mv) => mv,
                Err(PlayerError::Resigned) => return Ok(true),
                Err(e) => return Err(e),
            };
            // An external engine under other rules (Go's superko) may choose a move
            // that is illegal here: the game ends there.
            if !moves.contains(&mv) {
                return Ok(true);
            }
            if let Some(decision) = decision_of(&game, moves, mv) {
                decisions.push(decision);
            }
            mv
        };
        teacher.observe(&game, mv)?;
        game.play_unchecked(mv);
        ply += 1;
    }
    Ok(true)
}

/// The decision "chose `mv` among `moves`", if the chosen move has features
/// ([`Playouts::move_team`]) and the legal moves with features form two teams or more
/// (moves without, such as Go's pass, are left out of the choice).
pub fn decision_of<G: Playouts>(game: &G, moves: &[Move], mv: Move) -> Option<Decision> {
    let groups = G::FEATURE_GROUPS.min(MAX_FEATURE_GROUPS);
    let team_of = |m: Move| {
        let mut team = [0usize; MAX_FEATURE_GROUPS];
        game.move_team(m, &mut team[..groups]).then(|| team.map(|f| f as u32))
    };
    let chosen = team_of(mv)?;
    let mut teams: Vec<[u32; MAX_FEATURE_GROUPS]> = moves.iter().filter_map(|&m| team_of(m)).collect();
    teams.sort_unstable();
    let mut decision = Decision { groups, teams: Vec::new(), counts: Vec::new(), chosen: 0 };
    for (i, team) in teams.iter().enumerate() {
        if i > 0 && teams[i - 1] == *team {
            *decision.counts.last_mut().expect("a team before") += 1;
            continue;
        }
        if *team == chosen {
            decision.chosen = decision.counts.len();
        }
        decision.teams.extend_from_slice(&team[..groups]);
        decision.counts.push(1);
    }
    (decision.counts.len() >= 2).then_some(decision)
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

/// Fits one gamma per feature with `iterations` MM sweeps, starting from 1. A sweep
/// updates the groups in turn, each from the same `E_j` (module docs).
pub fn fit_mm(decisions: &[Decision], features: usize, iterations: usize) -> Vec<f64> {
    let groups = decisions.first().map_or(1, |d| d.groups);
    let mut gammas = vec![1.0f64; features];
    // The prior's virtual win, then the teacher's choices.
    let mut wins = vec![1.0f64; features];
    // Which group each feature was seen in (a feature never seen keeps gamma 1).
    let mut group_of = vec![usize::MAX; features];
    for d in decisions {
        for &f in d.team(d.chosen) {
            wins[f as usize] += 1.0;
        }
        for (i, &f) in d.teams.iter().enumerate() {
            group_of[f as usize] = i % d.groups;
        }
    }
    let mut strengths = Vec::new();
    for _ in 0..iterations {
        for group in 0..groups {
            let mut denominators: Vec<f64> = gammas.iter().map(|g| 2.0 / (g + 1.0)).collect(); // the prior's 2 games
            for d in decisions {
                strengths.clear();
                strengths.extend((0..d.counts.len()).map(|t| d.counts[t] as f64 * d.strength(t, &gammas)));
                let total: f64 = strengths.iter().sum();
                for (t, strength) in strengths.iter().enumerate() {
                    let f = d.team(t)[group] as usize;
                    denominators[f] += strength / gammas[f] / total;
                }
            }
            for f in (0..features).filter(|&f| group_of[f] == group) {
                gammas[f] = wins[f] / denominators[f];
            }
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
    /// Mean log-likelihood of the chosen move (natural log, per decision): comparable
    /// between feature sets, since it does not depend on how many moves share a team.
    pub log_likelihood: f64,
    /// Share of decisions whose chosen team is the strongest among the legal moves'.
    pub top_feature: f64,
}

/// The model's fit on `decisions`: the probability that the chosen move itself is
/// picked, `strength_chosen / Σ_t C_t strength_t`, averaged in log. (The probability of
/// its team, `C_chosen` times that, would favour coarse features: a model that tells
/// fewer moves apart gives larger teams.)
pub fn evaluate_fit(decisions: &[Decision], gammas: &[f64]) -> Fit {
    let mut log_likelihood = 0.0;
    let mut top = 0usize;
    for d in decisions {
        let strengths: Vec<f64> = (0..d.counts.len()).map(|t| d.strength(t, gammas)).collect();
        let total: f64 = strengths.iter().zip(&d.counts).map(|(s, &c)| c as f64 * s).sum();
        log_likelihood += (strengths[d.chosen] / total).ln();
        let best = (0..strengths.len()).max_by(|&a, &b| strengths[a].total_cmp(&strengths[b]));
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
            decisions.push(Decision { groups: 1, teams: vec![0, 1, 2], counts, chosen });
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

    /// Two feature groups (teams of one feature each, strengths multiplied): decisions
    /// drawn from a known product model are fitted back to it, each group up to a common
    /// factor.
    #[test]
    fn mm_recovers_known_teams() {
        // Group 0: features 0-1; group 1: features 2-4.
        let truth = [1.0f64, 5.0, 1.0, 0.2, 3.0];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut decisions = Vec::new();
        for _ in 0..40_000 {
            // Four random moves: a feature of each group per move.
            let moves: Vec<[u32; 2]> =
                (0..4).map(|_| [random_below(&mut rng, 2), 2 + random_below(&mut rng, 3)]).collect();
            let strength = |m: &[u32; 2]| truth[m[0] as usize] * truth[m[1] as usize];
            let total: f64 = moves.iter().map(strength).sum();
            let mut x = rand_core::RngCore::next_u32(&mut rng) as f64 / 4_294_967_296.0 * total;
            let chosen = moves.iter().position(|m| {
                x -= strength(m);
                x < 0.0
            });
            let chosen = moves[chosen.unwrap_or(3)];
            // As `decision_of` builds them: distinct teams with their counts.
            let mut teams = moves.clone();
            teams.sort_unstable();
            teams.dedup();
            let counts = teams.iter().map(|t| moves.iter().filter(|m| *m == t).count() as u16).collect();
            let index = teams.iter().position(|t| *t == chosen).unwrap();
            if teams.len() >= 2 {
                decisions.push(Decision { groups: 2, teams: teams.concat(), counts, chosen: index });
            }
        }
        let gammas = fit_mm(&decisions, 5, 100);
        assert!((gammas[1] / gammas[0] - 5.0).abs() < 0.4, "{gammas:?}");
        assert!((gammas[3] / gammas[2] - 0.2).abs() < 0.03, "{gammas:?}");
        assert!((gammas[4] / gammas[2] - 3.0).abs() < 0.25, "{gammas:?}");
        let fitted = evaluate_fit(&decisions, &gammas).log_likelihood;
        assert!(fitted > evaluate_fit(&decisions, &[1.0; 5]).log_likelihood);
    }

    /// A Go decision: the pass is left out, the chosen move's team is among the teams,
    /// and the counts add up to the legal moves with features.
    #[test]
    fn go_decisions_are_teams_of_five_features() {
        use crate::games::go::{patterns, Go9};
        use crate::games::{Game, Playouts};
        let mut game = Go9::new();
        game.play_sequence("E5 D5 E4 D4 E3").unwrap();
        let moves = game.legal_moves();
        let mv = game.parse_move("D3").unwrap();
        let decision = decision_of(&game, moves.as_ref(), mv).unwrap();
        assert_eq!(decision.groups, patterns::GROUPS);
        let with_features = moves.as_ref().iter().filter(|&&m| m != Go9::PASS).count();
        assert_eq!(decision.counts.iter().map(|&c| c as usize).sum::<usize>(), with_features);
        let team = decision.team(decision.chosen);
        assert!((team[0] as usize) < patterns::TACTICS.len());
        assert!((team[1] as usize) >= patterns::TACTICS.len());
        let names: Vec<&str> = team.iter().map(|&f| Go9::move_features()[f as usize]).collect();
        // White's D3: beside Black's E3 and its own D4, on the third line.
        assert_eq!([names[0], names[2], names[3], names[4]], ["plain", "last:2", "before:2", "line:3"]);
        // The pass has no features: choosing it is no decision.
        assert!(decision_of(&game, moves.as_ref(), Go9::PASS).is_none());
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
            let count = || {
                played.fetch_add(1, Ordering::Relaxed);
            };
            let pooled = collect_decisions::<Othello>(&plan, &count, &Interrupt::default()).unwrap();
            assert_eq!(played.into_inner(), games);
            let mut sequential = Vec::new();
            for t in 0..threads {
                let mut teacher = plan.teacher.build_with_evaluation::<Othello>(plan.seed ^ t as u64).unwrap();
                for game_index in (t..games).step_by(threads) {
                    let seed = plan.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ game_index as u64;
                    assert!(
                        teacher_game(teacher.as_mut(), &plan, seed, &mut sequential, &Interrupt::default()).unwrap()
                    );
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
