//! The glue that makes the solver [`ConnectFour`]'s [`Endgame`]: one solver per thread.

use super::{Solver, DEFAULT_TT_ENTRIES};
use crate::games::{ConnectFour, Game, Outcome};
use crate::games::{Endgame, Solved};

thread_local! {
    /// The solver of this thread's [`Endgame::solve_endgame`] calls: search workers call
    /// it from their own threads, and its table carries over between calls.
    static THREAD_SOLVER: std::cell::RefCell<Option<Solver>> = const { std::cell::RefCell::new(None) };
}

/// Connect Four's endgame: a weak solve within the budget ([`Solver::solve_within`]:
/// win, draw or loss, and a move that keeps it, which is all a player needs; from the
/// eighth to the fourteenth ply it took 0.6 of the strong solve's time, score and
/// move together, in `docs/RESULTS.md`), with a table of [`DEFAULT_TT_ENTRIES`] per
/// thread, allocated at its first call.
impl Endgame for ConnectFour {
    fn solve_endgame(&self, max_nodes: u64) -> Option<Solved> {
        with_thread_solver(|solver| {
            let result = solver.solve_within(self, true, max_nodes).ok()??;
            let nodes = result.nodes + result.move_nodes;
            Some(Solved::from_score(result.score, self.side_to_move(), result.best_move, nodes))
        })
    }

    /// A weak solve: the sign of the score, without a move, costs far fewer nodes.
    fn solve_value(&self, max_nodes: u64) -> Option<Outcome> {
        with_thread_solver(|solver| {
            let (score, nodes) = solver.score_within(self, true, max_nodes).ok()??;
            Some(Solved::from_score(score, self.side_to_move(), None, nodes).outcome)
        })
    }
}

/// `f` on this thread's solver, made at the first call.
fn with_thread_solver<T>(f: impl FnOnce(&mut Solver) -> Option<T>) -> Option<T> {
    THREAD_SOLVER.with_borrow_mut(|slot| {
        if slot.is_none() {
            *slot = Solver::new(DEFAULT_TT_ENTRIES).ok();
        }
        f(slot.as_mut()?)
    })
}
