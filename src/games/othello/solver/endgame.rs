//! The glue that makes [`EndgameSolver`] [`Othello`]'s [`Endgame`]: one solver per thread.

use std::cell::RefCell;

use super::{EndgameSolver, MAX_EMPTIES};
use crate::games::{Endgame, Solved};
use crate::games::{Game, Othello};

/// Table entries of the solver each thread keeps for [`Endgame::solve_endgame`]: 2^18
/// (6 MiB), allocated at a thread's first call.
const ENDGAME_TT_ENTRIES: usize = 1 << 18;

thread_local! {
    /// The solver of this thread's [`Endgame::solve_endgame`] calls: search workers call
    /// it from their own threads, and its table carries over between calls.
    static THREAD_SOLVER: RefCell<Option<EndgameSolver>> = const { RefCell::new(None) };
}

/// Othello's endgame: a weak solve (win, draw or loss) by [`EndgameSolver::solve_within`]
/// when the position has at most [`MAX_EMPTIES`] empties.
impl Endgame for Othello {
    fn solve_endgame(&self, max_nodes: u64) -> Option<Solved> {
        let (me, opp) = self.sides();
        if (!(me | opp)).count_ones() > MAX_EMPTIES {
            return None;
        }
        THREAD_SOLVER.with_borrow_mut(|slot| {
            if slot.is_none() {
                *slot = EndgameSolver::new(ENDGAME_TT_ENTRIES).ok();
            }
            let solution = slot.as_mut()?.solve_within(self, max_nodes).ok()??;
            Some(Solved::from_score(solution.score, self.side_to_move(), solution.best_move, solution.nodes))
        })
    }
}
