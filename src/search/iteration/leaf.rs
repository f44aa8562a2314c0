//! A leaf's value with an evaluator: the evaluator's (after a shallow negamax), mixed
//! with a playout's result (AlphaGo's λ), whether found on the worker or by a batch.

use rand_core::RngCore;

use crate::evaluator::{best_afterstate, EvalError, Evaluator};
use crate::games::{MovesPlayed, Outcome, Player, SearchGame};

use super::playout_policy;
use crate::search::params::IterationParams;

/// The value of a leaf with the evaluator `evaluator` (`params.evaluator`), as an
/// outcome to back up: the result of a finished game, else the evaluator's value mixed
/// with a playout's result ([`valued_outcome`]). An evaluator's value outside `[0, 1]`
/// (NaN included) is an error: the walk is not backed up.
#[inline]
pub(super) fn evaluate_leaf<G: SearchGame, R: RngCore>(
    state: &mut G,
    evaluator: &dyn Evaluator<G>,
    params: IterationParams<'_, G>,
    rng: &mut R,
    played: &mut MovesPlayed,
) -> Result<Outcome, EvalError> {
    played.clear();
    if let Some(outcome) = state.outcome() {
        return Ok(outcome);
    }
    let value = negamax_value(state, evaluator, params.eval_depth);
    if !(0.0..=1.0).contains(&value) {
        return Err(EvalError::BadValue { index: 0, value });
    }
    Ok(valued_outcome(state, value, params, rng, played))
}

/// The outcome to back up for a leaf `state` (not over) whose side to move wins with
/// probability `value` by the evaluator: mixed with a playout's result by
/// `params.eval_weight` ([`mixed_outcome`]; no playout at λ = 1). `played` gets the
/// playout's moves for RAVE (none without a playout).
#[inline]
pub(super) fn valued_outcome<G: SearchGame, R: RngCore>(
    state: &mut G,
    value: f32,
    params: IterationParams<'_, G>,
    rng: &mut R,
    played: &mut MovesPlayed,
) -> Outcome {
    played.clear();
    let mover = state.side_to_move();
    let (policy, recorded) = playout_policy(params);
    let playout = (params.eval_weight < 1.0).then(|| {
        if recorded {
            state.recorded_playout(rng, policy, played)
        } else {
            policy.play_out(state, rng)
        }
    });
    mixed_outcome(value, playout, params.eval_weight, mover, rng)
}

/// The win probability of the side to move in `state` (not over) by a `depth`-ply
/// negamax on `evaluator`'s values ([`crate::evaluator::afterstate_value`] turns each
/// child's value into the mover's: kept when the opponent must pass, exact when the game
/// ends). Depth 0 is the evaluator's value.
fn negamax_value<G: SearchGame>(state: &G, evaluator: &dyn Evaluator<G>, depth: u32) -> f32 {
    if depth == 0 {
        return evaluator.value(state);
    }
    best_afterstate(state, |g| negamax_value(g, evaluator, depth - 1)).map_or(0.0, |(_, _, value)| value)
}

/// A leaf's value as an outcome to back up: `λ·value + (1 − λ)·playout` for `mover` (the
/// side to move at the leaf; `value` is its win probability), in half points rounded
/// stochastically (up with the probability of the fraction), so that the expected half
/// points are exact: the tree's statistics stay integers, and a mixed value adds at
/// most 1/4 half-point² of variance per visit, against up to 1 for a playout.
fn mixed_outcome<R: RngCore>(value: f32, playout: Option<Outcome>, lambda: f32, mover: Player, rng: &mut R) -> Outcome {
    let half_points = match playout {
        Some(outcome) => 2.0 * lambda * value + (1.0 - lambda) * outcome.half_points(mover) as f32,
        None => 2.0 * value,
    }
    .clamp(0.0, 2.0);
    let floor = half_points.floor();
    // 24 random bits against the fraction: exact to f32's precision.
    let up = ((rng.next_u32() >> 8) as f32) < (half_points - floor) * (1 << 24) as f32;
    match floor as u32 + u32::from(up) {
        0 => Outcome::Win(mover.other()),
        1 => Outcome::Draw,
        _ => Outcome::Win(mover),
    }
}

#[cfg(test)]
mod leaf_value_tests {
    use super::*;
    use crate::search::iteration::worker_rng;

    #[test]
    fn mixed_outcomes_are_exact_at_the_ends_and_unbiased_between() {
        let mut rng = worker_rng(7, 0);
        let me = Player::One;
        // Certain values, with or without a playout, never draw a random outcome.
        assert_eq!(mixed_outcome(1.0, None, 1.0, me, &mut rng), Outcome::Win(me));
        assert_eq!(mixed_outcome(0.0, None, 1.0, me, &mut rng), Outcome::Win(me.other()));
        assert_eq!(mixed_outcome(0.5, None, 1.0, me, &mut rng), Outcome::Draw);
        assert_eq!(mixed_outcome(0.9, Some(Outcome::Win(me)), 0.0, me, &mut rng), Outcome::Win(me));
        // In between: the mean of the half points is the mix, 2·(λ·v + (1 − λ)·z).
        for (value, playout, lambda) in
            [(0.7, None, 1.0), (0.3, Some(Outcome::Win(me)), 0.5), (0.8, Some(Outcome::Win(me.other())), 0.25)]
        {
            let target =
                2.0 * lambda * value + (1.0 - lambda) * playout.map_or(0.0, |o: Outcome| o.half_points(me) as f64);
            let target = if playout.is_none() { 2.0 * value } else { target };
            let n = 200_000;
            let sum: u64 = (0..n)
                .map(|_| mixed_outcome(value as f32, playout, lambda as f32, me, &mut rng).half_points(me) as u64)
                .sum();
            let mean = sum as f64 / n as f64;
            // Each sample is one of two neighbouring values: sd <= 0.5, so 5 sd is 0.0056.
            assert!((mean - target).abs() < 0.006, "v {value} λ {lambda}: mean {mean}, expected {target}");
        }
    }
}
