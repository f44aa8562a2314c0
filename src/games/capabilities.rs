//! What a game can offer the search beyond its rules, declared with the games so that
//! every layer above may ask for it: a board that learned evaluators read
//! ([`NTupleBoard`], used by [`crate::evaluator`]) and an exact solver near the end
//! ([`Endgame`], implemented in [`crate::solver`]). Each has defaults meaning "none", so a
//! game without them writes an empty impl.

use super::{Game, Move, Outcome, Player};

/// A game whose board an n-tuple network can read.
///
/// Every item has a default meaning "no board": `impl NTupleBoard for MyGame {}` is
/// enough for a game that does not use networks.
pub trait NTupleBoard: Game {
    /// Cells of the board (at most [`MAX_CELLS`](crate::evaluator::MAX_CELLS)); 0 means the game has no board for
    /// n-tuples.
    const CELLS: usize = 0;

    /// The shipped trained network file (`include_bytes!`), if the game has one.
    const SHIPPED_NETWORK: Option<&'static [u8]> = None;

    /// Writes each cell's content into `out[..CELLS]`: 0 empty, 1 a disc of the side to
    /// move, 2 a disc of its opponent. The default writes nothing.
    fn cells(&self, out: &mut [u8]) {
        let _ = out;
    }

    /// The board's symmetries, identity included: symmetry `s` maps cell `i` to
    /// `symmetries()[s][i]`. Each must be a permutation of `0..CELLS`, and together
    /// they must form a group (closed under composition) for the value to be invariant.
    /// The default has none.
    fn symmetries() -> &'static [&'static [u8]] {
        &[]
    }

    /// The tuples (lists of cells) of a new network for this game. Default: none.
    fn default_tuples() -> Vec<Vec<u8>> {
        Vec::new()
    }
}

/// The 8 symmetries of an `N`×`N` board whose cell `row * N + col` is numbered row by
/// row (`NN = N * N`): identity, the three rotations, and the four reflections.
pub const fn square_symmetries<const N: usize, const NN: usize>() -> [[u8; NN]; 8] {
    let mut out = [[0u8; NN]; 8];
    let last = N - 1;
    let mut r = 0;
    while r < N {
        let mut c = 0;
        while c < N {
            let i = r * N + c;
            let images = [
                (r, c),
                (r, last - c),
                (last - r, c),
                (last - r, last - c),
                (c, r),
                (c, last - r),
                (last - c, r),
                (last - c, last - r),
            ];
            let mut s = 0;
            while s < 8 {
                out[s][i] = (images[s].0 * N + images[s].1) as u8;
                s += 1;
            }
            c += 1;
        }
        r += 1;
    }
    out
}

/// A position settled by a game's exact solver: the result with perfect play and a move
/// that keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The game's result with perfect play from the position.
    pub outcome: Outcome,
    /// A move that keeps `outcome` (the game's pass move for a forced pass); `None` when
    /// the game is over.
    pub best_move: Option<Move>,
    /// Nodes the solver visited.
    pub nodes: u64,
}

impl Solved {
    /// A solve's result from its score for `mover`, the side to move (positive: a win,
    /// 0: a draw, negative: a loss; any scale).
    pub fn from_score(score: i32, mover: Player, best_move: Option<Move>, nodes: u64) -> Solved {
        let outcome = match score {
            1.. => Outcome::Win(mover),
            0 => Outcome::Draw,
            _ => Outcome::Win(mover.other()),
        };
        Solved { outcome, best_move, nodes }
    }
}

/// A game whose exact solver the search may call near the end of the game: the MCTS
/// player before it searches (`endgame=NODES`), and the MCTS-Solver at each node it
/// expands (`endgame-leaf=NODES`), so that its proofs reach down to the solver's.
///
/// Every item has a default (no solver): an embedder writes `impl Endgame for MyGame {}`.
pub trait Endgame: Game {
    /// The win, draw or loss of this position with perfect play, and a move that keeps
    /// it, if the game's solver proves it within about `max_nodes` nodes; `None` when it
    /// gives up (or the game has no solver).
    fn solve_endgame(&self, _max_nodes: u64) -> Option<Solved> {
        None
    }

    /// The win, draw or loss of this position with perfect play, without a move, if the
    /// solver proves it within about `max_nodes` nodes (what `train-network
    /// --solver-nodes` labels positions with). By default [`Endgame::solve_endgame`]'s.
    fn solve_value(&self, max_nodes: u64) -> Option<Outcome> {
        self.solve_endgame(max_nodes).map(|solved| solved.outcome)
    }
}
