//! Expectimax baselines for games with chance turns (dice), and any other [`Evaluate`]
//! game: plain [`expectimax`] (the reference) and [`Expectimax`], the same values with
//! Star1 pruning and iterative deepening.
//!
//! # Values
//! Values are `f64` in `[-1, 1]` for the side to move ([`LOSS`] and [`WIN`] are the
//! bounds `L` and `U` that Star1 prunes with).
//! * A finished game scores `±(1 − PLY_DISCOUNT · plies)` for a win or a loss and `0`
//!   for a draw ([`terminal_value`]), `plies` counting the *player* moves from the
//!   search root, so a quicker win and a slower loss are preferred.
//! * At the depth cut-off a position scores `CUTOFF_LIMIT · tanh(evaluate / SCALE)`
//!   ([`cutoff_value`]), strictly inside the smallest discounted win, so a proven result
//!   outranks any heuristic.
//! * A chance position is worth the weighted mean of its outcomes' values, the weights
//!   [`Game::chance_weight`] normalised by their sum.
//!
//! Depth counts player plies only: chance layers are expanded without using depth, and a
//! position at the cut-off (chance or not) is scored by its evaluation. Values are
//! negamax values: a child whose side to move differs from its parent's is negated (a
//! chance position's side to move is the player who moves after the roll, so a roll
//! never negates).
//!
//! # Star1
//! [`Expectimax`] searches player positions with fail-soft alpha-beta and chance
//! positions with Star1 (Ballard 1983, "The *-minimax search procedure for trees
//! containing chance nodes"; the formulation of Hauk, Buro & Schaeffer 2004, "Rediscovering
//! *-minimax search"). With outcome probabilities `p_i`, the weighted sum `S` of the
//! outcomes searched so far and `R` the probability of those after outcome `i`, the
//! chance value `V` lies in `[S + p_i·v_i + R·L, S + p_i·v_i + R·U]`; so outcome `i` is
//! searched with the window
//!
//! ```text
//! α_i = (α − S − R·U) / p_i,   β_i = (β − S − R·L) / p_i   (clamped to [L, U])
//! ```
//!
//! and the node is cut as soon as `v_i ≤ α_i` (then `V ≤ α`) or `v_i ≥ β_i` (then
//! `V ≥ β`), returning the bound. It returns the same value as [`expectimax`] at the same
//! depth (`tests/expectimax.rs` checks it on hundreds of positions per game).
//!
//! # Examples
//! ```
//! use parmcts::alphabeta::Limits;
//! use parmcts::expectimax::{expectimax, Expectimax};
//! use parmcts::{Einstein, Game};
//!
//! let mut game = Einstein::new();
//! game.play_sequence("d3")?; // the die shows 3: Red moves piece 3
//! let result = Expectimax::new().search(&game, Limits::depth(2))?;
//! assert!((result.value - expectimax(&game, 2).0).abs() < 1e-9);
//! assert!(game.legal_moves().as_ref().contains(&result.best_move.unwrap()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::time::{Duration, Instant};

use crate::alphabeta::Limits;
use crate::games::evaluate::Evaluate;
use crate::games::{Game, Move, Outcome, Player, Turn};

/// The value of a win at the root, and the upper bound `U` of every value.
pub const WIN: f64 = 1.0;

/// The value of a loss at the root, and the lower bound `L` of every value.
pub const LOSS: f64 = -1.0;

/// What a win loses per player ply from the root: a win `plies` plies away is worth
/// `1 − PLY_DISCOUNT · plies` (the plies counted up to [`MAX_DEPTH`], so every win is
/// worth at least 0.936, above [`CUTOFF_LIMIT`]).
pub const PLY_DISCOUNT: f64 = 0.001;

/// The largest magnitude of a cut-off value: `0.9 · tanh(…)` stays below every
/// discounted win.
pub const CUTOFF_LIMIT: f64 = 0.9;

/// Evaluation units per unit of `tanh`'s argument at the cut-off
/// (`CUTOFF_LIMIT · tanh(evaluate / SCALE)`).
///
/// Chosen from the spread of EinStein's evaluations (the game this searcher is for),
/// measured on 2026-11-25 over the 42,631 player-turn positions of 2,000 uniformly
/// random games (seed 7): `|evaluate|` has median 700, 75th percentile 1,700, 90th
/// 3,100, 99th 6,300, maximum 11,800 and root mean square 1,841. A scale near that rms
/// keeps the typical evaluation in `tanh`'s nearly linear part (700 → 0.30 after the
/// 0.9 factor) and a large lead short of saturation (3,100 → 0.82, 6,300 → 0.90), so
/// averages over die rolls still weigh leads by their size.
pub const SCALE: f64 = 2000.0;

/// Deepest iteration (player plies) of [`Expectimax::search`], and the most plies a
/// depth limit may ask for.
pub const MAX_DEPTH: u32 = 64;

/// Player positions with at least this many plies left order their moves by static
/// value.
const ORDER_MIN_DEPTH: u32 = 2;

/// How often (in nodes, a power of two) the search looks at the clock.
const CLOCK_INTERVAL: u64 = 1024;

/// The exact value of a finished game for its side to move, `plies` player plies from
/// the root: `±(1 − PLY_DISCOUNT · plies)` for a win or a loss, `0` for a draw.
#[inline]
pub fn terminal_value<G: Game>(game: &G, outcome: Outcome, plies: u32) -> f64 {
    let win = WIN - PLY_DISCOUNT * f64::from(plies.min(MAX_DEPTH));
    match outcome {
        Outcome::Draw => 0.0,
        Outcome::Win(p) if p == game.side_to_move() => win,
        Outcome::Win(_) => -win,
    }
}

/// The value of an unfinished position at the depth cut-off, for its side to move:
/// `CUTOFF_LIMIT · tanh(evaluate / SCALE)`, within `±CUTOFF_LIMIT` (equal to it only
/// where `tanh` rounds to 1) and so below every discounted win.
#[inline]
pub fn cutoff_value<G: Evaluate>(game: &G) -> f64 {
    CUTOFF_LIMIT * (f64::from(game.evaluate()) / SCALE).tanh()
}

/// The outcomes of a chance position with their probabilities: the weights normalised
/// by their sum, outcomes of weight zero left out (uniform if no weight is positive).
fn outcomes<G: Game>(game: &G) -> Vec<(Move, f64)> {
    let moves = game.legal_moves();
    let mut out: Vec<(Move, f64)> =
        moves.as_ref().iter().map(|&mv| (mv, f64::from(game.chance_weight(mv)))).filter(|&(_, w)| w > 0.0).collect();
    if out.is_empty() {
        out = moves.as_ref().iter().map(|&mv| (mv, 1.0)).collect();
    }
    let total: f64 = out.iter().map(|&(_, w)| w).sum();
    out.iter_mut().for_each(|(_, w)| *w /= total);
    out
}

/// `value` (for `child`'s side to move) as seen by `me`.
#[inline]
fn signed<G: Game>(child: &G, me: Player, value: f64) -> f64 {
    if child.side_to_move() == me {
        value
    } else {
        -value
    }
}

/// Plain expectimax to `depth` player plies, no pruning: the reference for
/// [`Expectimax`]. Returns the value for the side to move (see the module docs) and,
/// at a player's turn, the first best move in [`Game::legal_moves`] order (`None` at a
/// chance turn, at depth 0 or in a finished game).
pub fn expectimax<G: Evaluate>(game: &G, depth: u32) -> (f64, Option<Move>) {
    let (value, best, _) = expectimax_counted(game, depth);
    (value, best)
}

/// [`expectimax`], also returning the number of positions it visited (the root, the
/// chance positions and the leaves included), to compare with [`ExpectimaxResult::nodes`].
pub fn expectimax_counted<G: Evaluate>(game: &G, depth: u32) -> (f64, Option<Move>, u64) {
    let mut nodes = 0;
    let (value, best) = plain(game, depth, 0, &mut nodes);
    (value, best, nodes)
}

/// The value of each legal move at a player's turn as [`expectimax`] sees it from
/// `game` to `depth` plies (each move's position searched `depth − 1` plies deeper, its
/// wins discounted from `game`): the largest is [`expectimax`]'s value. Empty at a chance
/// turn, at depth 0 or in a finished game.
pub fn move_values<G: Evaluate>(game: &G, depth: u32) -> Vec<(Move, f64)> {
    if depth == 0 || game.outcome().is_some() || game.turn() == Turn::Chance {
        return Vec::new();
    }
    let mut nodes = 0;
    let me = game.side_to_move();
    game.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = game.clone();
            child.play_unchecked(mv);
            (mv, signed(&child, me, plain(&child, depth - 1, 1, &mut nodes).0))
        })
        .collect()
}

/// Plain expectimax of `game`, `plies` player plies below the root, counting `nodes`.
fn plain<G: Evaluate>(game: &G, depth: u32, plies: u32, nodes: &mut u64) -> (f64, Option<Move>) {
    *nodes += 1;
    if let Some(outcome) = game.outcome() {
        return (terminal_value(game, outcome, plies), None);
    }
    if depth == 0 {
        return (cutoff_value(game), None);
    }
    let me = game.side_to_move();
    match game.turn() {
        Turn::Chance => {
            let mut sum = 0.0;
            for (mv, p) in outcomes(game) {
                let mut child = game.clone();
                child.play_unchecked(mv);
                sum += p * signed(&child, me, plain(&child, depth, plies, nodes).0);
            }
            (sum, None)
        }
        Turn::Player(_) => {
            let mut best = (f64::NEG_INFINITY, None);
            for mv in game.legal_moves() {
                let mut child = game.clone();
                child.play_unchecked(mv);
                let value = signed(&child, me, plain(&child, depth - 1, plies + 1, nodes).0);
                if value > best.0 {
                    best = (value, Some(mv));
                }
            }
            best
        }
    }
}

/// Errors from [`Expectimax::search`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExpectimaxError {
    /// Neither a depth nor a time limit was given.
    NoLimit,
    /// A depth limit of 0.
    ZeroDepth,
    /// A depth limit above [`MAX_DEPTH`].
    TooDeep(u32),
    /// A time limit of 0.
    ZeroTime,
    /// The position is already finished.
    GameOver,
}

impl fmt::Display for ExpectimaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpectimaxError::NoLimit => write!(f, "expectimax needs a depth or a time limit"),
            ExpectimaxError::ZeroDepth => write!(f, "bad depth limit 0 (must be 1 or more)"),
            ExpectimaxError::TooDeep(d) => write!(f, "bad depth limit {d} (must be at most {MAX_DEPTH})"),
            ExpectimaxError::ZeroTime => write!(f, "bad time limit 0 (must be above zero)"),
            ExpectimaxError::GameOver => write!(f, "the game is already over: nothing to search"),
        }
    }
}

impl std::error::Error for ExpectimaxError {}

/// Checks `limits` for [`Expectimax::search`].
fn validate(limits: &Limits) -> Result<(), ExpectimaxError> {
    match (limits.max_depth, limits.time) {
        (None, None) => Err(ExpectimaxError::NoLimit),
        (Some(0), _) => Err(ExpectimaxError::ZeroDepth),
        (Some(d), _) if d > MAX_DEPTH => Err(ExpectimaxError::TooDeep(d)),
        (_, Some(t)) if t.is_zero() => Err(ExpectimaxError::ZeroTime),
        _ => Ok(()),
    }
}

/// The result of [`Expectimax::search`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpectimaxResult {
    /// The best move of the last completed iteration; `None` when the root is a chance
    /// turn (the die moves, not a player).
    pub best_move: Option<Move>,
    /// Its value for the side to move (see the module docs).
    pub value: f64,
    /// The depth of the last completed iteration (player plies).
    pub depth_reached: u32,
    /// Positions visited over all iterations.
    pub nodes: u64,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
}

/// Expectimax with Star1 pruning and iterative deepening for any [`Evaluate`] game
/// (see the module docs). Without chance turns it is fail-soft alpha-beta on the
/// squashed value scale.
///
/// * **Move ordering**: the best root move of the previous iteration first; at a
///   player's turn with 2 or more plies left, the moves by the static value of their
///   position (a win at once first, then [`cutoff_value`]); with 1 ply left, in
///   [`Game::legal_moves`] order (ordering there would cost as many evaluations as it
///   saves). Rolls are searched in [`Game::legal_moves`] order.
/// * **Time**: checked every 1024 nodes; an interrupted iteration is discarded. Depth 1
///   always completes.
/// * **Early stop**: an iteration that met no depth cut-off searched every line to its
///   end, so deeper ones would return the same value; the deepening stops there.
#[derive(Debug, Default)]
pub struct Expectimax {
    nodes: u64,
    /// The best move of the root in the latest iteration.
    root_best: Option<Move>,
    deadline: Option<Instant>,
    aborted: bool,
    /// Whether the current iteration scored some position by its evaluation.
    met_cutoff: bool,
}

impl Expectimax {
    /// A searcher (it holds no table: reuse is free but gains nothing).
    pub fn new() -> Expectimax {
        Expectimax::default()
    }

    /// Searches `game` by iterative deepening within `limits` (depth in player plies).
    ///
    /// # Errors
    /// [`ExpectimaxError::NoLimit`], [`ExpectimaxError::ZeroDepth`],
    /// [`ExpectimaxError::TooDeep`] or [`ExpectimaxError::ZeroTime`] for bad limits;
    /// [`ExpectimaxError::GameOver`] for a finished position.
    pub fn search<G: Evaluate>(&mut self, game: &G, limits: Limits) -> Result<ExpectimaxResult, ExpectimaxError> {
        validate(&limits)?;
        if game.outcome().is_some() {
            return Err(ExpectimaxError::GameOver);
        }
        let start = Instant::now();
        self.nodes = 0;
        self.aborted = false;
        self.deadline = None;
        self.root_best = None;
        let max_depth = limits.max_depth.unwrap_or(MAX_DEPTH);
        let mut best = None;
        let mut depth_reached = 0;
        for depth in 1..=max_depth {
            // Depth 1 always completes, so there is always a result to report.
            self.deadline = if depth > 1 { limits.time.map(|t| start + t) } else { None };
            self.met_cutoff = false;
            let value = self.node(game, depth, 0, LOSS, WIN, true);
            if self.aborted {
                break;
            }
            best = Some((self.root_best, value));
            depth_reached = depth;
            if !self.met_cutoff || limits.time.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
        }
        let (best_move, value) = best.ok_or(ExpectimaxError::GameOver)?;
        Ok(ExpectimaxResult { best_move, value, depth_reached, nodes: self.nodes, elapsed: start.elapsed() })
    }

    /// The fail-soft value of `game` for its side to move within `(alpha, beta)`: exact
    /// inside the window, an upper bound at or below `alpha`, a lower bound at or above
    /// `beta`. Always within `[LOSS, WIN]`.
    fn node<G: Evaluate>(&mut self, game: &G, depth: u32, plies: u32, alpha: f64, beta: f64, root: bool) -> f64 {
        self.nodes += 1;
        if self.nodes & (CLOCK_INTERVAL - 1) == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        if self.aborted {
            return 0.0;
        }
        if let Some(outcome) = game.outcome() {
            return terminal_value(game, outcome, plies);
        }
        if depth == 0 {
            self.met_cutoff = true;
            return cutoff_value(game);
        }
        match game.turn() {
            Turn::Chance => self.chance(game, depth, plies, alpha, beta),
            Turn::Player(_) => self.player(game, depth, plies, alpha, beta, root),
        }
    }

    /// [`Expectimax::node`] of `child`, as seen by `me` (negated, window and all, when
    /// the child's side to move is the other player).
    #[inline]
    fn child_value<G: Evaluate>(
        &mut self,
        child: &G,
        me: Player,
        depth: u32,
        plies: u32,
        alpha: f64,
        beta: f64,
    ) -> f64 {
        if child.side_to_move() == me {
            self.node(child, depth, plies, alpha, beta, false)
        } else {
            -self.node(child, depth, plies, -beta, -alpha, false)
        }
    }

    /// A player's turn: fail-soft alpha-beta over the moves.
    fn player<G: Evaluate>(&mut self, game: &G, depth: u32, plies: u32, alpha: f64, beta: f64, root: bool) -> f64 {
        let me = game.side_to_move();
        let mut children: Vec<(Move, G, f64)> = game
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let mut child = game.clone();
                child.play_unchecked(mv);
                (mv, child, 0.0)
            })
            .collect();
        if depth >= ORDER_MIN_DEPTH {
            // Best static value first (a win at once before anything else); stable.
            for (_, child, key) in &mut children {
                *key = match child.outcome() {
                    Some(outcome) => signed(child, me, terminal_value(child, outcome, plies + 1)),
                    None => signed(child, me, cutoff_value(child)),
                };
            }
            children.sort_by(|a, b| b.2.total_cmp(&a.2));
        }
        if root {
            // The previous iteration's best move first.
            if let Some(i) = self.root_best.and_then(|b| children.iter().position(|c| c.0 == b)) {
                children[..=i].rotate_right(1);
            }
        }
        let (mut best, mut best_move, mut alpha) = (f64::NEG_INFINITY, None, alpha);
        for (mv, child, _) in &children {
            let value = self.child_value(child, me, depth - 1, plies + 1, alpha, beta);
            if self.aborted {
                return 0.0;
            }
            if value > best {
                best = value;
                best_move = Some(*mv);
                alpha = alpha.max(value);
                if best >= beta {
                    break;
                }
            }
        }
        if root {
            self.root_best = best_move;
        }
        best
    }

    /// A chance turn: Star1 (see the module docs), outcomes in [`Game::legal_moves`]
    /// order.
    fn chance<G: Evaluate>(&mut self, game: &G, depth: u32, plies: u32, alpha: f64, beta: f64) -> f64 {
        let me = game.side_to_move();
        let outcomes = outcomes(game);
        // after[i]: the probability of the outcomes after the i-th (exactly 0 for the last).
        let mut after = vec![0.0; outcomes.len()];
        for i in (1..outcomes.len()).rev() {
            after[i - 1] = after[i] + outcomes[i].1;
        }
        let mut sum = 0.0;
        for (&(mv, p), &rest) in outcomes.iter().zip(&after) {
            let low = (alpha - sum - rest * WIN) / p;
            let high = (beta - sum - rest * LOSS) / p;
            let mut child = game.clone();
            child.play_unchecked(mv);
            let value = self.child_value(&child, me, depth, plies, low.max(LOSS), high.min(WIN));
            if self.aborted {
                return 0.0;
            }
            sum += p * value;
            if value <= low {
                // value is an upper bound: V ≤ sum + rest·U ≤ alpha.
                return sum + rest * WIN;
            }
            if value >= high {
                // value is a lower bound: V ≥ sum + rest·L ≥ beta.
                return sum + rest * LOSS;
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, Einstein, TicTacToe};

    #[test]
    fn values_rank_quick_wins_above_every_heuristic() {
        let smallest_win = WIN - PLY_DISCOUNT * f64::from(MAX_DEPTH);
        assert!(smallest_win > CUTOFF_LIMIT);
        // Even a saturated evaluation stays at the cut-off limit.
        assert!(CUTOFF_LIMIT * (f64::from(crate::alphabeta::EVAL_LIMIT) / SCALE).tanh() <= CUTOFF_LIMIT);
        let game = TicTacToe::parse_position("14253").unwrap(); // X won; O to move
        assert_eq!(terminal_value(&game, game.outcome().unwrap(), 3), -(1.0 - 0.003));
        assert_eq!(terminal_value(&game, Outcome::Draw, 3), 0.0);
        assert_eq!(terminal_value(&game, game.outcome().unwrap(), 1000), -smallest_win);
    }

    #[test]
    fn star1_equals_expectimax_from_the_einstein_start() {
        for roll in ["", "d1", "d6"] {
            let mut game = Einstein::new();
            game.play_sequence(roll).unwrap();
            for depth in 1..=3 {
                let (expected, expected_move, plain_nodes) = expectimax_counted(&game, depth);
                let result = Expectimax::new().search(&game, Limits::depth(depth)).unwrap();
                assert!((result.value - expected).abs() < 1e-9, "{roll} depth {depth}");
                assert_eq!(result.best_move.is_some(), expected_move.is_some());
                assert!(result.nodes > 0 && plain_nodes > 0);
            }
        }
    }

    #[test]
    fn a_game_without_chance_is_alpha_beta_on_the_squashed_scale() {
        // The side to move completes four in the bottom row at once.
        let game = ConnectFour::parse_position("112233").unwrap();
        let result = Expectimax::new().search(&game, Limits::depth(4)).unwrap();
        assert_eq!(result.best_move, Some(game.parse_move("4").unwrap()));
        assert_eq!(result.value, WIN - PLY_DISCOUNT);
        // Tic-tac-toe searched to the end is a draw, and the deepening stops there.
        let result = Expectimax::new().search(&TicTacToe::new(), Limits::depth(MAX_DEPTH)).unwrap();
        assert_eq!(result.value, 0.0);
        assert_eq!(result.depth_reached, 9);
    }

    #[test]
    fn outcomes_are_normalised() {
        let probabilities: Vec<f64> = outcomes(&Einstein::new()).iter().map(|&(_, p)| p).collect();
        assert_eq!(probabilities, vec![1.0 / 6.0; 6]);
    }
}
