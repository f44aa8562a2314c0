//! Classic baselines for any [`Game`] with an [`Evaluate`] heuristic: plain negamax
//! ([`minimax`], the reference) and [`AlphaBeta`], a negamax alpha-beta search with
//! iterative deepening, a transposition table, killer moves and the history heuristic.
//!
//! # Scores
//! Negamax scores are for the side to move. A finished game scores `WIN - ply` (won),
//! `-WIN + ply` (lost) or `0` (drawn), with `ply` counted from the search root, so a
//! quicker win and a slower loss are preferred; at the depth cut-off the position's
//! [`Evaluate::evaluate`] is used (always within `±EVAL_LIMIT`, far from the win scores),
//! or, for a searcher given a learned evaluator ([`AlphaBeta::with_evaluator`],
//! [`AlphaBeta::with_network`]), that evaluator's logit scaled by [`NETWORK_SCALE`].
//!
//! # Exactness
//! [`AlphaBeta`] returns exactly the value [`minimax`] returns at the same depth: the
//! transposition table only cuts off with an entry of the *same* remaining depth, and
//! stores win and loss scores relative to the node, so a transposition at another ply
//! reads back the right value. Deeper entries still give their best move for ordering.
//! (The usual "depth at least" rule would mix depths and break that equality;
//! `tests/alphabeta.rs` checks it on hundreds of positions per game.)
//!
//! # Examples
//! ```
//! use parmcts::alphabeta::{minimax, AlphaBeta, Limits};
//! use parmcts::{Game, TicTacToe};
//!
//! let game = TicTacToe::new();
//! let mut search = AlphaBeta::new(1 << 16)?;
//! let result = search.search(&game, Limits::depth(9))?;
//! assert_eq!(result.score, 0); // tic-tac-toe is a draw
//! assert_eq!(result.score, minimax(&game, 9).0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::evaluator::{Evaluator, NTupleBoard, NTupleNetwork};
use crate::games::{Game, Move, Outcome};

pub use crate::games::evaluate::{Evaluate, EVAL_LIMIT, WIN};

/// Deepest iteration [`AlphaBeta::search`] runs when only a time limit is given.
pub const MAX_DEPTH: u32 = 64;

/// Score units per unit of a learned evaluator's logit at the depth cut-off: a win
/// probability `p` scores `round(NETWORK_SCALE · ln(p / (1 − p)))`, clamped to
/// `±EVAL_LIMIT`. Any positive scale orders positions alike; 1000 keeps differences of
/// a thousandth of a logit apart.
pub const NETWORK_SCALE: f32 = 1000.0;

/// The cut-off score of a learned evaluator's logit (see [`NETWORK_SCALE`]).
#[inline]
fn network_score(logit: f32) -> i32 {
    let limit = EVAL_LIMIT as f32;
    (logit * NETWORK_SCALE).round().clamp(-limit, limit) as i32
}

/// How often (in nodes, a power of two) the search looks at the clock.
const CLOCK_INTERVAL: u64 = 1024;

/// The exact score of a finished game for the side to move, `ply` plies from the root.
#[inline]
fn terminal_score<G: Game>(game: &G, outcome: Outcome, ply: u32) -> i32 {
    match outcome {
        Outcome::Draw => 0,
        Outcome::Win(p) if p == game.side_to_move() => WIN - ply as i32,
        Outcome::Win(_) => -WIN + ply as i32,
    }
}

/// Plain negamax to `depth` plies: the reference for [`AlphaBeta`]. Returns the score
/// for the side to move and the first best move in [`Game::legal_moves`] order (`None`
/// at depth 0 or in a finished game, where the score is the evaluation or the exact
/// result).
pub fn minimax<G: Evaluate>(game: &G, depth: u32) -> (i32, Option<Move>) {
    fn negamax<G: Evaluate>(game: &G, depth: u32, ply: u32) -> (i32, Option<Move>) {
        if let Some(outcome) = game.outcome() {
            return (terminal_score(game, outcome, ply), None);
        }
        if depth == 0 {
            return (game.evaluate(), None);
        }
        let mut best = (i32::MIN, None);
        for mv in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(mv);
            let score = -negamax(&child, depth - 1, ply + 1).0;
            if score > best.0 {
                best = (score, Some(mv));
            }
        }
        best
    }
    negamax(game, depth, 0)
}

/// Search limits: a maximum depth, a time budget, or both (whichever comes first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration (plies), at least 1.
    pub max_depth: Option<u32>,
    /// Wall-clock budget, above zero. Depth 1 always completes; later iterations stop
    /// when the time is up and the last completed one is reported.
    pub time: Option<Duration>,
}

impl Limits {
    /// Search to exactly `depth` plies.
    pub fn depth(depth: u32) -> Limits {
        Limits { max_depth: Some(depth), time: None }
    }

    /// Deepen until `time` is up (or [`MAX_DEPTH`]).
    pub fn time(time: Duration) -> Limits {
        Limits { max_depth: None, time: Some(time) }
    }

    fn validate(&self) -> Result<(), AbError> {
        match (self.max_depth, self.time) {
            (None, None) => Err(AbError::NoLimit),
            (Some(0), _) => Err(AbError::ZeroDepth),
            (_, Some(t)) if t.is_zero() => Err(AbError::ZeroTime),
            _ => Ok(()),
        }
    }
}

/// Errors from [`AlphaBeta`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AbError {
    /// Neither a depth nor a time limit was given.
    NoLimit,
    /// A depth limit of 0.
    ZeroDepth,
    /// A time limit of 0.
    ZeroTime,
    /// The position is already finished.
    GameOver,
    /// The transposition table size is zero or could not be allocated.
    BadTableSize(usize),
}

impl fmt::Display for AbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbError::NoLimit => write!(f, "alpha-beta needs a depth or a time limit"),
            AbError::ZeroDepth => write!(f, "bad depth limit 0 (must be 1 or more)"),
            AbError::ZeroTime => write!(f, "bad time limit 0 (must be above zero)"),
            AbError::GameOver => write!(f, "the game is already over: nothing to search"),
            AbError::BadTableSize(n) => {
                write!(f, "bad transposition table size {n} (must be 1 or more and fit in memory)")
            }
        }
    }
}

impl std::error::Error for AbError {}

/// The result of [`AlphaBeta::search`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbResult {
    /// The best move of the last completed iteration.
    pub best_move: Move,
    /// Its negamax score for the side to move (see the module docs).
    pub score: i32,
    /// The depth of the last completed iteration.
    pub depth_reached: u32,
    /// Positions visited over all iterations.
    pub nodes: u64,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
}

/// What a transposition-table score is relative to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact = 1,
    /// The value is at least the score (a fail high).
    Lower = 2,
    /// The value is at most the score (a fail low).
    Upper = 3,
}

/// One table entry: 16 bytes.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The full [`Game::hash`].
    key: u64,
    /// Score with win/loss scores made relative to this node.
    score: i32,
    best: Move,
    depth: u8,
    /// `Bound` in the low 2 bits (0: empty slot), the search generation above.
    meta: u8,
}

const EMPTY: Entry = Entry { key: 0, score: 0, best: Move(0), depth: 0, meta: 0 };

impl Entry {
    fn is_empty(&self) -> bool {
        self.meta & 3 == 0
    }

    fn bound(&self) -> Bound {
        match self.meta & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        }
    }

    fn generation(&self) -> u8 {
        self.meta >> 2
    }
}

/// Win/loss scores are stored as distances from the node, not from the root.
#[inline]
fn to_table(score: i32, ply: u32) -> i32 {
    if score > EVAL_LIMIT {
        score + ply as i32
    } else if score < -EVAL_LIMIT {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn from_table(score: i32, ply: u32) -> i32 {
    if score > EVAL_LIMIT {
        score - ply as i32
    } else if score < -EVAL_LIMIT {
        score + ply as i32
    } else {
        score
    }
}

/// Negamax alpha-beta with iterative deepening for any [`Evaluate`] game.
///
/// * **Transposition table**: a preallocated `Vec` of 16-byte entries indexed by
///   [`Game::hash`] modulo its length (a power of two), holding the full hash, the score
///   and its bound, the remaining depth and the best move. Replacement is
///   *depth-preferred with aging*: a slot is overwritten by a search of at least the
///   stored depth, or whenever the stored entry is from an earlier [`AlphaBeta::search`]
///   call. Cut-offs need the same remaining depth (see the module docs).
/// * **Move ordering**: the table's move first, then the two killer moves of the ply
///   (quiet moves that caused the latest beta cut-offs there), then the rest by the
///   history heuristic (Schaeffer 1989: `depth²` added per cut-off, per side and move;
///   divided by 8 at the start of each search so old games fade).
/// * **Time**: checked every 1024 nodes; an interrupted iteration is discarded.
///
/// Reuse one searcher: its buffers and table are allocated once.
pub struct AlphaBeta<G: Evaluate> {
    table: Vec<Entry>,
    generation: u8,
    killers: Vec<[Option<Move>; 2]>,
    /// `history[side][move index]`, grown on demand.
    history: [Vec<u32>; 2],
    /// One reusable move buffer per ply: (move, ordering key).
    buffers: Vec<Vec<(Move, i64)>>,
    nodes: u64,
    /// The best move of the root in the latest iteration.
    root_best: Move,
    deadline: Option<Instant>,
    aborted: bool,
    /// The learned evaluator used at the depth cut-off instead of [`Evaluate`], if any.
    evaluator: Option<Arc<dyn Evaluator<G>>>,
    _game: std::marker::PhantomData<fn(&G)>,
}

impl<G: Evaluate> fmt::Debug for AlphaBeta<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlphaBeta")
            .field("game", &G::NAME)
            .field("tt_entries", &self.table.len())
            .field("learned_evaluator", &self.evaluator.is_some())
            .finish()
    }
}

impl<G: Evaluate> AlphaBeta<G> {
    /// A searcher with a table of `tt_entries` entries rounded down to a power of two
    /// (16 bytes each).
    ///
    /// # Errors
    /// [`AbError::BadTableSize`] for 0 or a size that cannot be allocated.
    pub fn new(tt_entries: usize) -> Result<Self, AbError> {
        if tt_entries == 0 {
            return Err(AbError::BadTableSize(tt_entries));
        }
        let size = 1usize << (usize::BITS - 1 - tt_entries.leading_zeros());
        let mut table = Vec::new();
        table.try_reserve_exact(size).map_err(|_| AbError::BadTableSize(tt_entries))?;
        table.resize(size, EMPTY);
        Ok(AlphaBeta {
            table,
            generation: 0,
            killers: Vec::new(),
            history: [Vec::new(), Vec::new()],
            buffers: Vec::new(),
            nodes: 0,
            root_best: Move(0),
            deadline: None,
            aborted: false,
            evaluator: None,
            _game: std::marker::PhantomData,
        })
    }

    /// This searcher, scoring the depth cut-off by `evaluator`'s logit (see
    /// [`NETWORK_SCALE`]) instead of the game's [`Evaluate`]. Finished games are still
    /// scored exactly.
    pub fn with_evaluator(mut self, evaluator: Arc<dyn Evaluator<G>>) -> Self {
        self.evaluator = Some(evaluator);
        self.clear();
        self
    }

    /// The score of a non-terminal position at the depth cut-off, for the side to move.
    #[inline]
    fn leaf_score(&self, game: &G) -> i32 {
        match &self.evaluator {
            Some(evaluator) => network_score(evaluator.logit(game)),
            None => game.evaluate(),
        }
    }

    /// A searcher whose table takes about `mb` MiB.
    ///
    /// # Errors
    /// [`AbError::BadTableSize`] when that is less than one entry or cannot be allocated.
    pub fn with_memory_mb(mb: usize) -> Result<Self, AbError> {
        Self::new(mb.saturating_mul(1 << 20) / std::mem::size_of::<Entry>())
    }

    /// Table size in entries.
    pub fn tt_entries(&self) -> usize {
        self.table.len()
    }

    /// Forgets the table, killers and history.
    pub fn clear(&mut self) {
        self.table.fill(EMPTY);
        self.generation = 0;
        self.killers.clear();
        self.history.iter_mut().for_each(Vec::clear);
    }

    /// Searches `game` by iterative deepening within `limits`.
    ///
    /// # Errors
    /// [`AbError::NoLimit`], [`AbError::ZeroDepth`] or [`AbError::ZeroTime`] for bad
    /// limits; [`AbError::GameOver`] for a finished position.
    pub fn search(&mut self, game: &G, limits: Limits) -> Result<AbResult, AbError> {
        limits.validate()?;
        if game.outcome().is_some() {
            return Err(AbError::GameOver);
        }
        let start = Instant::now();
        self.generation = (self.generation + 1) & 0x3F;
        self.nodes = 0;
        self.aborted = false;
        self.deadline = None;
        self.killers.clear();
        self.history.iter_mut().for_each(|h| h.iter_mut().for_each(|v| *v /= 8));
        let max_depth = limits.max_depth.unwrap_or(MAX_DEPTH);
        let mut best = None;
        let mut depth_reached = 0;
        for depth in 1..=max_depth {
            // Depth 1 always completes, so there is always a move to report.
            self.deadline = if depth > 1 { limits.time.map(|t| start + t) } else { None };
            let score = self.negamax(game, depth, 0, -WIN - 1, WIN + 1);
            if self.aborted {
                break;
            }
            best = Some((self.root_best, score));
            depth_reached = depth;
            // A proven win or loss does not change with more depth.
            if score.abs() > EVAL_LIMIT {
                break;
            }
            if limits.time.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
        }
        let (best_move, score) = best.ok_or(AbError::GameOver)?;
        Ok(AbResult { best_move, score, depth_reached, nodes: self.nodes, elapsed: start.elapsed() })
    }

    #[inline]
    fn slot(&self, hash: u64) -> usize {
        (hash as usize) & (self.table.len() - 1)
    }

    fn negamax(&mut self, game: &G, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & (CLOCK_INTERVAL - 1) == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        if let Some(outcome) = game.outcome() {
            return terminal_score(game, outcome, ply);
        }
        if depth == 0 {
            return self.leaf_score(game);
        }
        let hash = game.hash();
        let slot = self.slot(hash);
        let entry = self.table[slot];
        let mut tt_move = None;
        if entry.key == hash && !entry.is_empty() {
            tt_move = Some(entry.best);
            // Never cut at the root: the search must pick (and report) its move.
            if u32::from(entry.depth) == depth && ply > 0 {
                let score = from_table(entry.score, ply);
                match entry.bound() {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => {}
                }
            }
        }
        let alpha_orig = alpha;
        let side = game.side_to_move().index();
        let mut moves = self.ordered_moves(game, ply, side, tt_move);
        let mut best = (-WIN - 1, Move(0));
        for i in 0..moves.len() {
            // Selection sort: the best remaining move first (cut-offs skip the rest).
            let pick = (i..moves.len()).max_by_key(|&j| (moves[j].1, std::cmp::Reverse(j))).unwrap_or(i);
            moves.swap(i, pick);
            let mv = moves[i].0;
            let mut child = game.clone();
            child.play_unchecked(mv);
            let score = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha);
            if self.aborted {
                self.buffers[ply as usize] = moves;
                return 0;
            }
            if score > best.0 {
                best = (score, mv);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        self.record_cutoff(ply, side, mv, depth, tt_move);
                        break;
                    }
                }
            }
        }
        self.buffers[ply as usize] = moves;
        let bound = if best.0 <= alpha_orig {
            Bound::Upper
        } else if best.0 >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let depth8 = depth.min(u32::from(u8::MAX)) as u8;
        if entry.is_empty() || entry.generation() != self.generation || depth8 >= entry.depth {
            let meta = (self.generation << 2) | bound as u8;
            self.table[slot] = Entry { key: hash, score: to_table(best.0, ply), best: best.1, depth: depth8, meta };
        }
        if ply == 0 {
            self.root_best = best.1;
        }
        best.0
    }

    /// The legal moves with ordering keys, in the ply's reusable buffer (taken out of
    /// `self.buffers`; the caller puts it back).
    fn ordered_moves(&mut self, game: &G, ply: u32, side: usize, tt_move: Option<Move>) -> Vec<(Move, i64)> {
        let ply = ply as usize;
        while self.buffers.len() <= ply {
            self.buffers.push(Vec::new());
        }
        while self.killers.len() <= ply {
            self.killers.push([None, None]);
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        moves.clear();
        let killers = self.killers[ply];
        let history = &self.history[side];
        for mv in game.legal_moves() {
            let key = if Some(mv) == tt_move {
                i64::MAX
            } else if Some(mv) == killers[0] {
                i64::MAX - 1
            } else if Some(mv) == killers[1] {
                i64::MAX - 2
            } else {
                i64::from(history.get(mv.0 as usize).copied().unwrap_or(0))
            };
            moves.push((mv, key));
        }
        moves
    }

    /// Updates killers and history after `mv` caused a beta cut-off.
    fn record_cutoff(&mut self, ply: u32, side: usize, mv: Move, depth: u32, tt_move: Option<Move>) {
        let killers = &mut self.killers[ply as usize];
        if Some(mv) != tt_move && killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let history = &mut self.history[side];
        let index = mv.0 as usize;
        if history.len() <= index {
            history.resize(index + 1, 0);
        }
        history[index] = history[index].saturating_add(depth * depth);
    }
}

impl<G: Evaluate + NTupleBoard> AlphaBeta<G> {
    /// This searcher, scoring the depth cut-off by `network` (see
    /// [`AlphaBeta::with_evaluator`]). The network should [`NTupleNetwork::check`] with `G`.
    pub fn with_network(self, network: Arc<NTupleNetwork>) -> Self {
        self.with_evaluator(network)
    }
}
