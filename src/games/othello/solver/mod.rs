//! An exact Othello endgame solver: the final disc difference with perfect play.
//!
//! # Algorithm
//! * **Negamax with alpha-beta** on the bitboards of [`Othello`], through the game's own
//!   legal-square and flip kernels. A node is two `u64`s, the discs of the side to move
//!   and of its opponent; the empty squares are the rest. Searches are fail-soft, and
//!   from the root down every node after the first child is searched with a null window
//!   first (principal variation search), re-searched when it lands inside the window.
//! * **Passing**: a side with no square to play whose opponent has one passes (the node
//!   is searched again from the opponent's side); when neither can play the game is over.
//! * **Move ordering**. With many empties, fastest-first: children sorted by the
//!   opponent's mobility after the move (corners counted twice), the fewest first, after
//!   the transposition table's move; ties broken by the mover's stable discs around the
//!   corners, then the opponent's potential mobility (`order_key`, after Edax). With
//!   `EVAL_ORDER_EMPTIES` or more empties an evaluation is added to that key: the
//!   shipped n-tuple network's value of the child ([`crate::evaluator`]), one ply deeper
//!   from `EVAL_SEARCH_EMPTIES` (Edax orders these nodes by shallow searches on its
//!   evaluation too); it cut FFO #45's nodes from 928 M to 476 M. Within
//!   [`SHALLOW_EMPTIES`] of the end, no move list: empty squares are tried region by
//!   region, first those in a quadrant with an odd number of empties (parity: the side to
//!   move there can expect the last move of the region), corners first and the X-squares
//!   (diagonal neighbours of the corners) last.
//! * **Stability cutoff** (Edax): a node whose `alpha` is at least `64 - 2 *` the
//!   opponent's stable discs (`stability`) fails low without a search; tried only when
//!   `alpha` is high enough for the count to matter (`STABILITY_THRESHOLD`).
//! * **Enhanced transposition cutoff**: deep nodes with `ETC_EMPTIES` or more empties
//!   look their children up in the table first and fail high at once when one child's
//!   stored upper bound already refutes the opponent.
//! * **Last empty square**: solved directly by counting the discs one flip would turn
//!   (for the side to move, else for the opponent, else the game is over).
//! * **Transposition table**: a fixed-size `Vec` of two-entry buckets allocated once,
//!   indexed by a hash of the two bitboards; an entry holds them in full (no false
//!   hits), a lower and an upper bound on the position's value and its best square.
//!   Endgame values do not depend on a search depth, so a bound stays true forever,
//!   across solves. Only nodes with more than [`SHALLOW_EMPTIES`] empties are stored; a
//!   bucket's first entry keeps the position with the most empties that met there, the
//!   second is always replaced.
//!
//! # Score convention
//! The final disc difference (the mover's discs minus the opponent's) from the point of
//! view of the side to move, with empty squares left at the end of the game given to the
//! winner (the Edax / WOF convention; a wipeout is ±64). Scores are even, in `-64..=64`.
//!
//! # Examples
//! ```
//! use parmcts::games::{Game, Othello};
//! use parmcts::solver::EndgameSolver;
//!
//! // FFO #1 (14 empties, Black to move): G8 wins by 18 discs.
//! let game = Othello::parse_position(
//!     "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
//! )?;
//! let mut solver = EndgameSolver::new(1 << 16)?;
//! let solution = solver.solve(&game)?;
//! assert_eq!(solution.score, 18);
//! assert_eq!(solution.best_move.map(|mv| game.format_move(mv)), Some("g8".to_string()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::sync::Arc;

use crate::evaluator::NTupleNetwork;
use crate::games::othello::PASS;
use crate::games::{Move, Othello};

mod endgame;
mod ordering;
mod stability;
mod table;

use ordering::MoveOrder;
use table::{Entry, Table};

/// The most empty squares a position may have to be solved: beyond it an exact solve
/// could run for hours, so [`EndgameSolver::solve`] refuses it.
pub const MAX_EMPTIES: u32 = 36;

/// The default table size: 2^20 entries (24 MiB).
pub const DEFAULT_TT_ENTRIES: usize = 1 << 20;

/// Nodes with at most this many empty squares are searched without the move list and
/// the transposition table (parity ordering).
pub const SHALLOW_EMPTIES: u32 = 6;

/// The least `alpha` at which a node with `n` empties tries the stability cutoff (Edax's
/// `NWS_STABILITY_THRESHOLD`): below it the opponent could not hold enough stable discs
/// for the bound `64 - 2 * stable` to reach `alpha`, and counting them would be wasted.
const STABILITY_THRESHOLD: [i32; 37] = [
    99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50, 52,
    52, 54, 54, 56, 56, 58, 58, 60,
];

/// Nodes with at least this many empties order their moves by the network's value of
/// each child (with a network, [`EndgameSolver::set_network`]) added to the mobility
/// key; with fewer, by the mobility key alone (an evaluation costs as much as some ten
/// small nodes). Measured on FFO #40-#48.
const EVAL_ORDER_EMPTIES: u32 = 14;

/// Nodes with at least this many empties value each child by a one-ply search on the
/// network instead of the network's value of the child itself.
const EVAL_SEARCH_EMPTIES: u32 = 18;

/// The ordering key of one unit of the network's logit: as much as two of the
/// opponent's replies in [`order_key`](ordering::order_key) (one reply counts `2 << 12`).
const EVAL_ORDER_WEIGHT: f32 = 16384.0;

/// Deep nodes with at least this many empties probe their children in the table before
/// searching any (enhanced transposition cutoff).
const ETC_EMPTIES: u32 = 10;

/// Above every score: the initial "best so far".
const INFINITY: i32 = 100;

/// The four corners.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The X-squares b2, g2, b7, g7 (diagonally next to a corner).
const X_SQUARES: u64 = 0x0042_0000_0000_4200;
/// The four quadrants (a1-d4, e1-h4, a5-d8, e5-h8).
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0F0F_0F0F, 0x0000_0000_F0F0_F0F0, 0x0F0F_0F0F_0000_0000, 0xF0F0_F0F0_0000_0000];
/// Square classes in the order the shallow search tries them within a parity region.
const SHALLOW_CLASSES: [u64; 3] = [CORNERS, !(CORNERS | X_SQUARES), X_SQUARES];

/// Errors from the endgame solver.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndgameError {
    /// The position has more empty squares than [`MAX_EMPTIES`].
    TooManyEmpties {
        /// The position's empty squares.
        empties: u32,
        /// The most the solver accepts.
        max: u32,
    },
    /// The transposition table size is zero or could not be allocated.
    BadTableSize(usize),
    /// A search window whose lower end is not below its upper end.
    BadWindow {
        /// The window's lower end.
        alpha: i32,
        /// The window's upper end.
        beta: i32,
    },
}

impl fmt::Display for EndgameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndgameError::TooManyEmpties { empties, max } => {
                write!(f, "the position has {empties} empty squares; the endgame solver takes at most {max}")
            }
            EndgameError::BadTableSize(n) => {
                write!(f, "bad transposition table size {n} (must be 1 or more and fit in memory)")
            }
            EndgameError::BadWindow { alpha, beta } => {
                write!(f, "bad search window ({alpha}, {beta}): alpha must be below beta")
            }
        }
    }
}

impl std::error::Error for EndgameError {}

/// The result of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameSolution {
    /// The value for the side to move: the exact final disc difference
    /// ([`EndgameSolver::solve`]), its sign ([`EndgameSolver::solve_weak`]), or a bound
    /// ([`EndgameSolver::solve_window`], fail-soft: at most `alpha` or at least `beta`
    /// when outside the window).
    pub score: i32,
    /// A move that reaches `score` (on a fail high, one that reaches at least `score`;
    /// on a fail low, the move with the highest upper bound, as every move is then at
    /// most `alpha`);
    /// [`PASS`] for a forced pass; `None` when the game is over.
    pub best_move: Option<Move>,
    /// Positions visited (passes included).
    pub nodes: u64,
}

/// The final score of a finished game for the owner of `me`: the disc difference, with
/// the empty squares given to the winner.
#[inline]
fn final_score(me: u64, opp: u64) -> i32 {
    let (mine, theirs) = (me.count_ones() as i32, opp.count_ones() as i32);
    let empties = 64 - mine - theirs;
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Greater => mine - theirs + empties,
        std::cmp::Ordering::Less => mine - theirs - empties,
        std::cmp::Ordering::Equal => 0,
    }
}

/// The position after the owner of `me` plays `sq`, which flips `flipped`, from the
/// opponent's side: `(opp', me')`.
#[inline]
fn play(me: u64, opp: u64, sq: u32, flipped: u64) -> (u64, u64) {
    (opp & !flipped, me | flipped | 1 << sq)
}

/// The stability cutoff: an upper bound on the value of a node for the owner of `me`
/// (`64 - 2 *` the opponent's stable discs) when it is at most `alpha`, so that the node
/// fails low without a search.
#[inline]
fn stability_cutoff(me: u64, opp: u64, empties: u32, alpha: i32) -> Option<i32> {
    if alpha < STABILITY_THRESHOLD[empties as usize] {
        return None;
    }
    let bound = 64 - 2 * stability::stable_discs(opp, me) as i32;
    (bound <= alpha).then_some(bound)
}

/// The empty squares in quadrants holding an odd number of empties.
#[inline]
fn odd_regions(empty: u64) -> u64 {
    QUADRANTS.iter().filter(|&&q| (empty & q).count_ones() & 1 == 1).fold(0, |acc, &q| acc | q)
}

/// An exact Othello endgame solver owning its transposition table. Reuse one solver
/// across positions: table entries are bounds on positions' values, true in any search.
pub struct EndgameSolver {
    table: Table,
    /// The evaluation that orders the moves of nodes with many empties
    /// ([`EVAL_ORDER_EMPTIES`]): the shipped Othello n-tuple network.
    network: Option<Arc<NTupleNetwork>>,
    nodes: u64,
    /// Deep nodes a solve may visit before it gives up ([`EndgameSolver::solve_within`]).
    max_nodes: u64,
    /// The solve ran out of `max_nodes`: every value since is meaningless and nothing
    /// more is stored in the table.
    aborted: bool,
}

impl EndgameSolver {
    /// A solver whose table holds `tt_entries` entries (24 bytes each; see
    /// [`DEFAULT_TT_ENTRIES`]).
    ///
    /// # Errors
    /// [`EndgameError::BadTableSize`] for 0 or a size that cannot be allocated.
    pub fn new(tt_entries: usize) -> Result<EndgameSolver, EndgameError> {
        let network = NTupleNetwork::shipped::<Othello>().and_then(Result::ok);
        Ok(EndgameSolver { table: Table::new(tt_entries)?, network, nodes: 0, max_nodes: u64::MAX, aborted: false })
    }

    /// Sets the evaluation that orders the moves of nodes with many empties
    /// (logits for the side to move, as [`NTupleNetwork::logit`]); `None` orders by
    /// mobility alone. [`EndgameSolver::new`] sets the shipped Othello network. Scores
    /// are exact whatever the network: it changes only the nodes a solve visits.
    pub fn set_network(&mut self, network: Option<Arc<NTupleNetwork>>) {
        self.network = network;
    }

    /// Table size in entries.
    pub fn tt_entries(&self) -> usize {
        self.table.slots.len()
    }

    /// Forgets every table entry (so that node counts do not depend on earlier solves).
    pub fn reset(&mut self) {
        self.table.slots.fill(Entry::default());
    }

    /// The exact final disc difference of `game` for the side to move, with a best move.
    /// A finished game is solved too: its score, no move.
    ///
    /// # Errors
    /// [`EndgameError::TooManyEmpties`] beyond [`MAX_EMPTIES`] empty squares.
    pub fn solve(&mut self, game: &Othello) -> Result<EndgameSolution, EndgameError> {
        self.solve_window(game, -64, 64)
    }

    /// Win, draw or loss only: `score` is `1`, `0` or `-1` for the side to move (a search
    /// in the window `(-1, 1)`, usually much cheaper than the exact score). `best_move`
    /// wins when the position is won and draws when it is drawn.
    ///
    /// # Errors
    /// [`EndgameError::TooManyEmpties`] beyond [`MAX_EMPTIES`] empty squares.
    pub fn solve_weak(&mut self, game: &Othello) -> Result<EndgameSolution, EndgameError> {
        let solution = self.solve_window(game, -1, 1)?;
        Ok(EndgameSolution { score: solution.score.signum(), ..solution })
    }

    /// A fail-soft alpha-beta search in the window `(alpha, beta)`: the exact value when
    /// it lies strictly inside, else a bound (a score `<= alpha` is an upper bound, one
    /// `>= beta` a lower bound).
    ///
    /// # Errors
    /// [`EndgameError::BadWindow`] unless `alpha < beta`;
    /// [`EndgameError::TooManyEmpties`] beyond [`MAX_EMPTIES`] empty squares.
    pub fn solve_window(&mut self, game: &Othello, alpha: i32, beta: i32) -> Result<EndgameSolution, EndgameError> {
        if alpha >= beta {
            return Err(EndgameError::BadWindow { alpha, beta });
        }
        let (me, opp) = game.sides();
        let empties = (!(me | opp)).count_ones();
        if empties > MAX_EMPTIES {
            return Err(EndgameError::TooManyEmpties { empties, max: MAX_EMPTIES });
        }
        // Scores are in -64..=64: a wider window changes nothing.
        let (alpha, beta) = (alpha.clamp(-INFINITY, 64), beta.clamp(-64, INFINITY));
        self.nodes = 0;
        self.aborted = false;
        let (score, best_move) = self.root_by_narrow_windows(me, opp, alpha, beta);
        Ok(EndgameSolution { score, best_move, nodes: self.nodes })
    }

    /// [`EndgameSolver::solve_weak`] that gives up after about `max_nodes` nodes: `None`
    /// when it ran out. An abandoned solve stores nothing in the table, so later solves
    /// stay exact.
    ///
    /// # Errors
    /// [`EndgameError::TooManyEmpties`] beyond [`MAX_EMPTIES`] empty squares.
    pub fn solve_within(&mut self, game: &Othello, max_nodes: u64) -> Result<Option<EndgameSolution>, EndgameError> {
        self.max_nodes = max_nodes;
        let solution = self.solve_weak(game);
        self.max_nodes = u64::MAX;
        let aborted = std::mem::take(&mut self.aborted);
        Ok(solution?).map(|s| (!aborted).then_some(s))
    }

    /// The root's value in `(alpha, beta)` by searches in windows `(g - 1, g + 1)` that
    /// hold a single score (scores are even), as MTD(f) does (Plaat et al. 1996): each
    /// either proves `g` exact or, fail-soft, returns a bound beyond it, which becomes
    /// the next `g`; the table keeps what each search proved for the next. Such a
    /// search costs about as little as a null-window one, where a wide window costs
    /// many times more (FFO #50: 67 M nodes for its sign, 498 M for its score in one
    /// wide search). The first `g` is 0 (the weak solve's window).
    fn root_by_narrow_windows(&mut self, me: u64, opp: u64, alpha: i32, beta: i32) -> (i32, Option<Move>) {
        // The first guess: 0, or the window's end nearest to it, made even (scores are).
        let mut guess = if alpha >= 0 {
            alpha + 1
        } else if beta <= 0 {
            beta - 1
        } else {
            0
        };
        guess += guess & 1;
        loop {
            let (score, best_move) = self.root(me, opp, guess - 1, guess + 1);
            // Exact, beyond the window (a bound, as a wide search would answer), or
            // aborted: done. Otherwise the bound is the next guess.
            if score == guess || score <= alpha || score >= beta || self.aborted {
                return (score, best_move);
            }
            guess = score;
        }
    }

    /// The root: like [`EndgameSolver::deep`], but it keeps the best move and never
    /// answers from the table.
    fn root(&mut self, me: u64, opp: u64, alpha: i32, beta: i32) -> (i32, Option<Move>) {
        self.nodes += 1;
        let moves = Othello::legal_squares_of(me, opp);
        if moves == 0 {
            if Othello::legal_squares_of(opp, me) == 0 {
                return (final_score(me, opp), None);
            }
            return (-self.search(opp, me, -beta, -alpha), Some(PASS));
        }
        let tt_best = self.table.get(me, opp).map_or(64, |e| u32::from(e.best));
        let (best, best_sq) = self.best_move(me, opp, moves, tt_best, alpha, beta);
        if (!(me | opp)).count_ones() > SHALLOW_EMPTIES && !self.aborted {
            self.table.put(me, opp, alpha, beta, best, best_sq);
        }
        (best, Some(Move(best_sq as u16)))
    }

    /// The best of `moves` (a non-empty mask) and its square, fail-soft in `(alpha,
    /// beta)`: fastest-first order (the table's move `tt_best` first), PVS over the
    /// children. The one move loop of the root and the deep nodes.
    #[inline]
    fn best_move(&mut self, me: u64, opp: u64, mut moves: u64, tt_best: u32, mut alpha: i32, beta: i32) -> (i32, u32) {
        let mut list = MoveOrder::new();
        let network = match &self.network {
            Some(network) if (!(me | opp)).count_ones() >= EVAL_ORDER_EMPTIES => Some(&**network),
            _ => None,
        };
        while moves != 0 {
            let sq = moves.trailing_zeros();
            moves &= moves - 1;
            list.push(me, opp, sq, tt_best, network);
        }
        let (mut best, mut best_sq, mut first) = (-INFINITY, 64, true);
        while let Some((sq, flipped)) = list.pop_best() {
            let (child_me, child_opp) = play(me, opp, sq, flipped);
            let score = self.pvs_child(child_me, child_opp, alpha, beta, first);
            if self.aborted {
                break;
            }
            first = false;
            if score > best {
                (best, best_sq) = (score, sq);
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_sq)
    }

    /// A child's score for the parent (negated): the first child with the full window,
    /// the others with a null window first and a re-search when that fails high inside
    /// the window.
    #[inline]
    fn pvs_child(&mut self, me: u64, opp: u64, alpha: i32, beta: i32, first: bool) -> i32 {
        if first || beta - alpha <= 1 {
            return -self.search(me, opp, -beta, -alpha);
        }
        let score = -self.search(me, opp, -alpha - 1, -alpha);
        if score > alpha && score < beta {
            -self.search(me, opp, -beta, -score)
        } else {
            score
        }
    }

    /// The fail-soft value of a node for the owner of `me`, in `(alpha, beta)`.
    #[inline]
    fn search(&mut self, me: u64, opp: u64, alpha: i32, beta: i32) -> i32 {
        if (!(me | opp)).count_ones() <= SHALLOW_EMPTIES {
            self.shallow(me, opp, alpha, beta, false)
        } else {
            self.deep(me, opp, alpha, beta)
        }
    }

    /// A node with more than [`SHALLOW_EMPTIES`] empties: table, fastest-first, PVS.
    fn deep(&mut self, me: u64, opp: u64, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        // Checked only here: a shallow subtree is small (at most SHALLOW_EMPTIES plies).
        if self.nodes > self.max_nodes {
            self.aborted = true;
            return 0;
        }
        let empties = (!(me | opp)).count_ones();
        if let Some(bound) = stability_cutoff(me, opp, empties, alpha) {
            return bound;
        }
        let moves = Othello::legal_squares_of(me, opp);
        if moves == 0 {
            if Othello::legal_squares_of(opp, me) == 0 {
                return final_score(me, opp);
            }
            return -self.search(opp, me, -beta, -alpha);
        }
        let mut tt_best = 64;
        if let Some(entry) = self.table.get(me, opp) {
            let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
            if lower >= beta || lower == upper {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            tt_best = u32::from(entry.best);
        }
        if empties >= ETC_EMPTIES {
            if let Some(bound) = self.etc_cutoff(me, opp, moves, beta) {
                return bound;
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let (best, best_sq) = self.best_move(me, opp, moves, tt_best, alpha, beta);
        if !self.aborted {
            self.table.put(me, opp, alpha0, beta0, best, best_sq);
        }
        best
    }

    /// Enhanced transposition cutoff: a lower bound of at least `beta` on the node's value
    /// when the table already bounds one child's value from above by `-beta` or less.
    fn etc_cutoff(&self, me: u64, opp: u64, mut moves: u64, beta: i32) -> Option<i32> {
        while moves != 0 {
            let sq = moves.trailing_zeros();
            moves &= moves - 1;
            let (child_me, child_opp) = play(me, opp, sq, Othello::flips_of(me, opp, sq));
            if let Some(entry) = self.table.get(child_me, child_opp) {
                let bound = -i32::from(entry.upper);
                if bound >= beta {
                    return Some(bound);
                }
            }
        }
        None
    }

    /// A node with at most [`SHALLOW_EMPTIES`] empties: squares by parity region and
    /// class, no table. `passed`: the opponent has just passed.
    fn shallow(&mut self, me: u64, opp: u64, mut alpha: i32, beta: i32, passed: bool) -> i32 {
        let empty = !(me | opp);
        if empty.count_ones() == 1 {
            return self.last_empty(me, opp, empty.trailing_zeros());
        }
        self.nodes += 1;
        if let Some(bound) = stability_cutoff(me, opp, empty.count_ones(), alpha) {
            return bound;
        }
        let odd = odd_regions(empty);
        let mut best = -INFINITY;
        for region in [empty & odd, empty & !odd] {
            for class in SHALLOW_CLASSES {
                let mut squares = region & class;
                while squares != 0 {
                    let sq = squares.trailing_zeros();
                    squares &= squares - 1;
                    let flipped = Othello::flips_of(me, opp, sq);
                    if flipped == 0 {
                        continue;
                    }
                    let (child_me, child_opp) = play(me, opp, sq, flipped);
                    let score = -self.shallow(child_me, child_opp, -beta, -alpha, false);
                    if score > best {
                        best = score;
                        if score > alpha {
                            alpha = score;
                            if score >= beta {
                                return score;
                            }
                        }
                    }
                }
            }
        }
        if best > -INFINITY {
            return best;
        }
        if passed {
            // Neither side can move: the game is over.
            return final_score(me, opp);
        }
        -self.shallow(opp, me, -beta, -alpha, true)
    }

    /// The exact value of a node whose only empty square is `sq`.
    #[inline]
    fn last_empty(&mut self, me: u64, opp: u64, sq: u32) -> i32 {
        self.nodes += 1;
        // Before the last disc: 63 discs, so `diff` is odd and never 0.
        let diff = me.count_ones() as i32 - opp.count_ones() as i32;
        let flipped = Othello::flips_of(me, opp, sq);
        if flipped != 0 {
            return diff + 1 + 2 * flipped.count_ones() as i32;
        }
        let flipped = Othello::flips_of(opp, me, sq);
        if flipped != 0 {
            return diff - 1 - 2 * flipped.count_ones() as i32;
        }
        // Nobody can play the last square: it goes to the winner.
        if diff > 0 {
            diff + 1
        } else {
            diff - 1
        }
    }
}

#[cfg(test)]
mod tests;
