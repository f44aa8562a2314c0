//! An exact Connect Four 7x6 solver after Pascal Pons, "Solving Connect 4: how to build a
//! perfect AI" (blog.gamesolver.org, parts 3-12; reference code
//! <https://github.com/PascalPons/connect4>, AGPL-3.0, not copied here).
//!
//! # Algorithm
//! * **Bitboard negamax with alpha-beta** on the 7-bits-per-column layout of
//!   [`ConnectFour`] (part 6). A node is a copy of two `u64`s and a ply count.
//! * **Anticipation of losing moves** (part 9): the search only expands moves that do not
//!   hand the opponent an immediate win; with two forced blocks the node is lost at once.
//!   Every node therefore satisfies the precondition "the side to move cannot win at
//!   once" (the root is checked before the search).
//! * **Move ordering** (part 10): moves by decreasing number of *threat cells* they create
//!   (empty cells that would complete four for the mover); ties in centre-first column
//!   order `4 5 3 6 2 7 1` (Pons's order).
//! * **Transposition table** (parts 7, 11, 12): a preallocated table indexed by the key
//!   `current + mask` (unique per position, 49 bits), scrambled and range-reduced by a
//!   multiplication (Pons uses `key mod prime`; a run-time 64-bit division is slower).
//!   The full key is stored, so there are no false hits.
//!   An entry stores either an upper bound (after a fail low) or a lower bound (after a
//!   fail high) of the score; always-replace. Entries also carry a 7-bit generation so
//!   that [`Solver::reset`] is O(1).
//! * **Null-window search on the score** (part 8): the exact score is found by a binary
//!   search of null-window (`[med, med + 1]`) searches between the score bounds, with the
//!   first probes pulled towards 0 ("iterative deepening" on the score). The weak mode
//!   runs the same search in `[-1, 1]` and only reports the sign.
//! * **Node budget** ([`Solver::solve_within`]): the same search compiled a second time
//!   (a const generic, so the unbudgeted search is unchanged) gives up once it has
//!   explored the budget. An aborted node stores nothing in the table and neither do its
//!   ancestors, so the table keeps only bounds of searches that finished.
//!
//! # Score convention
//! The convention of Pons's benchmark files (`tests/data/connect4/README.md`): from
//! the point of view of the side to move, `22 - k` for a win with the winner's `k`-th
//! disc, `-(22 - k)` for a loss to the opponent's `k`-th disc, `0` for a draw. A win on the
//! next move with `n` discs on the board is worth `(43 - n) / 2`.
//!
//! # Examples
//! ```
//! use parmcts::games::{ConnectFour, Game};
//! use parmcts::solver::Solver;
//!
//! let mut solver = Solver::new(1 << 16)?;
//! let position = ConnectFour::parse_position("4455")?; // the side to move wins with its 4th disc
//! let result = solver.solve(&position, false)?;
//! assert_eq!(result.score, 18);
//! assert!(result.best_move.is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod board;
mod budget;
mod endgame;
mod ordering;
mod table;

use std::fmt;

pub(crate) use crate::games::connect4::winning_cells;
use crate::games::connect4::{column_mask, HEIGHT, WIDTH};
use crate::games::{ConnectFour, Game, Move};
use board::Board;
use budget::{Limited, NodeBudget, Unlimited};
use ordering::MoveSorter;
use table::Table;

const CELLS: i32 = (WIDTH * HEIGHT) as i32;
/// The lowest possible score (a loss to the opponent's 4th disc).
pub const MIN_SCORE: i32 = -CELLS / 2 + 3;
/// The highest possible score (a win with one's 4th disc).
pub const MAX_SCORE: i32 = (CELLS + 1) / 2 - 3;
/// The default table size: 2^20 entries (8 MiB). Pons uses 2^23 + 9 entries (40 MB);
/// on the benchmark sets, whose positions need at most tens of thousands of nodes, that
/// size is 2x slower here (a 2-core EPYC, 32 MiB L3, 4 KiB pages: every probe misses
/// the cache and the TLB), while 2^20 entries give the same node counts. Deep positions
/// (the empty board) want more.
pub const DEFAULT_TT_ENTRIES: usize = 1 << 20;

/// Columns from the centre outwards.
const COLUMN_ORDER: [u32; WIDTH as usize] = [3, 4, 2, 5, 1, 6, 0];

/// Errors from the solver.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SolveError {
    /// The position is already won or the board is full.
    GameOver,
    /// The transposition table size is zero or could not be allocated.
    BadTableSize(usize),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::GameOver => write!(f, "the game is already over: nothing to solve"),
            SolveError::BadTableSize(n) => {
                write!(f, "bad transposition table size {n} (must be 1 or more and fit in memory)")
            }
        }
    }
}

impl std::error::Error for SolveError {}

/// Where a solve stands after a probe: the score lies in `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveProgress {
    /// Lower bound on the score.
    pub min: i32,
    /// Upper bound on the score.
    pub max: i32,
    /// Positions explored so far.
    pub nodes: u64,
}

/// The result of [`Solver::solve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveResult {
    /// The exact score (strong) or its sign (weak: `1`, `0`, `-1`), for the side to move.
    pub score: i32,
    /// A move that keeps `score`: after it the opponent's (strong) score is `-score`, or
    /// (weak) its sign is `-score`. Every legal move when the position is lost (weak).
    pub best_move: Option<Move>,
    /// Positions explored to find the score (Pons's "nb pos"; 0 when the side to move
    /// wins at once).
    pub nodes: u64,
    /// Positions explored to choose `best_move` (null-window tests of the children).
    pub move_nodes: u64,
}

/// A Connect Four solver owning its transposition table. Reuse one solver across
/// positions: the table stays valid between them (entries are exact bounds of positions,
/// not of a search), and [`Solver::reset`] forgets it in O(1).
pub struct Solver {
    table: Table,
    /// Positions explored in the current phase (score, then best move).
    nodes: u64,
    /// The budgeted search gives up once `nodes` exceeds this (read only by the
    /// `BUDGET = true` search).
    max_nodes: u64,
}

impl Solver {
    /// A solver whose table holds `tt_entries` entries (8 bytes each; any size works, see
    /// [`DEFAULT_TT_ENTRIES`]).
    ///
    /// # Errors
    /// [`SolveError::BadTableSize`] for 0 or a size that cannot be allocated.
    pub fn new(tt_entries: usize) -> Result<Solver, SolveError> {
        Ok(Solver { table: Table::new(tt_entries)?, nodes: 0, max_nodes: u64::MAX })
    }

    /// Table size in entries.
    pub fn tt_entries(&self) -> usize {
        self.table.slots.len()
    }

    /// Forgets the transposition table (O(1) except once every 127 resets).
    pub fn reset(&mut self) {
        self.table.reset();
    }

    /// The score of `pos` (strong, or only its sign when `weak`) and the positions explored.
    ///
    /// # Errors
    /// [`SolveError::GameOver`] when `pos` is already won or full.
    pub fn solve_score(&mut self, pos: &ConnectFour, weak: bool) -> Result<(i32, u64), SolveError> {
        self.solve_score_with_progress(pos, weak, &mut |_| {})
    }

    /// [`Solver::solve_score`], telling `progress` the bounds after each null-window probe.
    ///
    /// # Errors
    /// [`SolveError::GameOver`] when `pos` is already won or full.
    pub fn solve_score_with_progress(
        &mut self,
        pos: &ConnectFour,
        weak: bool,
        progress: &mut dyn FnMut(SolveProgress),
    ) -> Result<(i32, u64), SolveError> {
        if pos.outcome().is_some() {
            return Err(SolveError::GameOver);
        }
        self.nodes = 0;
        let board = Board::from_game(pos);
        let Ok(score) = self.score::<Unlimited>(&board, weak, progress);
        Ok((score, self.nodes))
    }

    /// The score of `pos` and a move that keeps it.
    ///
    /// # Errors
    /// [`SolveError::GameOver`] when `pos` is already won or full.
    pub fn solve(&mut self, pos: &ConnectFour, weak: bool) -> Result<SolveResult, SolveError> {
        self.solve_with_progress(pos, weak, &mut |_| {})
    }

    /// [`Solver::solve`], telling `progress` the bounds on the score after each
    /// null-window probe (for a progress display: the empty board takes minutes).
    ///
    /// # Errors
    /// [`SolveError::GameOver`] when `pos` is already won or full.
    pub fn solve_with_progress(
        &mut self,
        pos: &ConnectFour,
        weak: bool,
        progress: &mut dyn FnMut(SolveProgress),
    ) -> Result<SolveResult, SolveError> {
        let (score, nodes) = self.solve_score_with_progress(pos, weak, progress)?;
        self.nodes = 0;
        let board = Board::from_game(pos);
        let Ok(best_move) = self.best_move::<Unlimited>(&board, score, weak);
        Ok(SolveResult { score, best_move, nodes, move_nodes: self.nodes })
    }

    /// [`Solver::solve`] within a budget of `max_nodes` positions explored in all (the
    /// score and then the move: `nodes + move_nodes <= max_nodes`). `Ok(None)` when the
    /// budget runs out first. The table stays valid either way: a search that gives up
    /// stores nothing on its way out, so a later solve of any position is exact (and
    /// starts from the bounds the aborted one proved). With a budget the solve does not
    /// exhaust, the result (nodes included) is the one [`Solver::solve`] gives from the
    /// same table.
    ///
    /// # Examples
    /// ```
    /// use parmcts::games::{ConnectFour, Game};
    /// use parmcts::solver::Solver;
    ///
    /// let mut solver = Solver::new(1 << 16)?;
    /// let position = ConnectFour::parse_position("32164625")?; // Pons: score 11
    /// assert_eq!(solver.solve_within(&position, false, 10)?, None);
    /// let result = solver.solve_within(&position, false, 1_000_000)?.expect("within budget");
    /// assert_eq!(result.score, 11);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`SolveError::GameOver`] when `pos` is already won or full.
    pub fn solve_within(
        &mut self,
        pos: &ConnectFour,
        weak: bool,
        max_nodes: u64,
    ) -> Result<Option<SolveResult>, SolveError> {
        let Some((score, nodes)) = self.score_within(pos, weak, max_nodes)? else { return Ok(None) };
        let board = Board::from_game(pos);
        self.nodes = 0;
        self.max_nodes = max_nodes - nodes;
        let Ok(best_move) = self.best_move::<Limited>(&board, score, weak) else { return Ok(None) };
        Ok(Some(SolveResult { score, best_move, nodes, move_nodes: self.nodes }))
    }

    /// The score of [`Solver::solve_within`] alone (no move) and the positions explored,
    /// within a budget of `max_nodes` positions. `Ok(None)` when the budget runs out
    /// first; the table stays valid either way.
    ///
    /// # Errors
    /// [`SolveError::GameOver`] when `pos` is already won or full.
    pub fn score_within(
        &mut self,
        pos: &ConnectFour,
        weak: bool,
        max_nodes: u64,
    ) -> Result<Option<(i32, u64)>, SolveError> {
        if pos.outcome().is_some() {
            return Err(SolveError::GameOver);
        }
        let board = Board::from_game(pos);
        self.nodes = 0;
        self.max_nodes = max_nodes;
        let Ok(score) = self.score::<Limited>(&board, weak, &mut |_| {}) else { return Ok(None) };
        let nodes = self.nodes;
        self.nodes = 0;
        Ok(Some((score, nodes)))
    }

    /// Pons's `solve`: binary search of null-window searches on the score.
    fn score<B: NodeBudget>(
        &mut self,
        board: &Board,
        weak: bool,
        progress: &mut dyn FnMut(SolveProgress),
    ) -> Result<i32, B::Stop> {
        if board.can_win_next() {
            return Ok(if weak { 1 } else { board.win_next_score() });
        }
        let (mut min, mut max) =
            if weak { (-1, 1) } else { (-(CELLS - board.moves) / 2, (CELLS + 1 - board.moves) / 2) };
        while min < max {
            let mut med = min + (max - min) / 2;
            // Probe near 0 first: most scores are small, and the sign is the cheap part.
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax::<B>(board, med, med + 1);
            B::check(self.nodes, self.max_nodes)?;
            if r <= med {
                max = r;
            } else {
                min = r;
            }
            progress(SolveProgress { min, max, nodes: self.nodes });
        }
        Ok(if weak { min.signum() } else { min })
    }

    /// Whether `child`'s score (for its side to move) is at most `bound`.
    fn child_at_most<B: NodeBudget>(&mut self, child: &Board, bound: i32) -> Result<bool, B::Stop> {
        if child.can_win_next() {
            return Ok(child.win_next_score() <= bound);
        }
        if child.moves == CELLS {
            return Ok(0 <= bound);
        }
        let r = self.negamax::<B>(child, bound, bound + 1);
        B::check(self.nodes, self.max_nodes)?;
        Ok(r <= bound)
    }

    /// A column keeping `score`: a child whose score is at most `-score` (every child
    /// scores at least `-score`). In weak mode the bound is `-1` for a win and `0` for a
    /// draw; a weakly lost position keeps its value with any move.
    fn best_move<B: NodeBudget>(&mut self, board: &Board, score: i32, weak: bool) -> Result<Option<Move>, B::Stop> {
        let possible = board.possible();
        let mut fallback = None;
        for col in COLUMN_ORDER {
            let cell = possible & column_mask(col);
            if cell == 0 {
                continue;
            }
            fallback.get_or_insert(Move(col as u16));
            if winning_cells(board.current, board.mask) & cell != 0 {
                if (weak && score == 1) || score == board.win_next_score() {
                    return Ok(Some(Move(col as u16)));
                }
                continue;
            }
            if weak && score < 0 {
                return Ok(Some(Move(col as u16)));
            }
            let mut child = *board;
            child.play(cell);
            if self.child_at_most::<B>(&child, -score)? {
                return Ok(Some(Move(col as u16)));
            }
        }
        Ok(fallback)
    }

    /// Negamax with alpha-beta over non-losing moves (Pons, part 12). Precondition: the
    /// side to move cannot win at once. Returns a fail-soft bound of the score, or, once
    /// the budget `B` is spent, a meaningless value without storing anything (the caller
    /// checks the budget before using it).
    fn negamax<B: NodeBudget>(&mut self, board: &Board, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!board.can_win_next());
        self.nodes += 1;
        if B::check(self.nodes, self.max_nodes).is_err() {
            return 0;
        }
        let next = board.non_losing_moves();
        if next == 0 {
            return -(CELLS - board.moves) / 2;
        }
        if board.moves >= CELLS - 2 {
            return 0;
        }
        let min = -(CELLS - 2 - board.moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let max = (CELLS - 1 - board.moves) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        let key = board.key();
        let stored = i32::from(self.table.get(key));
        if stored > MAX_SCORE - MIN_SCORE + 1 {
            let lower = stored + 2 * MIN_SCORE - MAX_SCORE - 2;
            if alpha < lower {
                alpha = lower;
                if alpha >= beta {
                    return alpha;
                }
            }
        } else if stored > 0 {
            let upper = stored + MIN_SCORE - 1;
            if beta > upper {
                beta = upper;
                if alpha >= beta {
                    return beta;
                }
            }
        }
        let mut moves = MoveSorter::new();
        for &col in COLUMN_ORDER.iter().rev() {
            let cell = next & column_mask(col);
            if cell != 0 {
                moves.add(cell, board.move_score(cell));
            }
        }
        while let Some(cell) = moves.pop() {
            let mut child = *board;
            child.play(cell);
            let score = -self.negamax::<B>(&child, -beta, -alpha);
            if B::check(self.nodes, self.max_nodes).is_err() {
                // The child gave up: its score is meaningless, store nothing.
                return 0;
            }
            if score >= beta {
                // A lower bound; clamped into the encodable range (a looser, still true bound).
                let value = score.min(MAX_SCORE) + MAX_SCORE - 2 * MIN_SCORE + 2;
                self.table.put(key, value as u8);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        // An upper bound; clamped the same way.
        let value = alpha.max(MIN_SCORE) - MIN_SCORE + 1;
        self.table.put(key, value as u8);
        alpha
    }
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver").field("tt_entries", &self.tt_entries()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::H1;

    #[test]
    fn score_bounds_match_pons() {
        assert_eq!((MIN_SCORE, MAX_SCORE), (-18, 18));
    }

    #[test]
    fn winning_cells_finds_all_directions() {
        let game = ConnectFour::parse_position("112233").unwrap(); // three in row 0
        let me = game.current_stones();
        let cells = winning_cells(me, game.all_stones());
        assert_eq!(cells, 1 << (3 * H1)); // column 4, bottom
        let col = ConnectFour::parse_position("121212").unwrap();
        assert_eq!(winning_cells(col.current_stones(), col.all_stones()), 1 << 3);
        // column 1, row 3
    }

    #[test]
    fn table_generations_forget() {
        let mut table = Table::new(11).unwrap();
        table.put(123, 7);
        assert_eq!(table.get(123), 7);
        assert_eq!(table.get(124), 0);
        for _ in 0..200 {
            table.reset();
            assert_eq!(table.get(123), 0);
        }
        table.put(123, 9);
        assert_eq!(table.get(123), 9);
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert_eq!(Solver::new(0).unwrap_err(), SolveError::BadTableSize(0));
        let mut solver = Solver::new(1000).unwrap();
        let won = ConnectFour::parse_position("1212121").unwrap();
        assert_eq!(solver.solve(&won, false), Err(SolveError::GameOver));
    }
}
