//! Embedding parmcts in your own game — the example for library users: implement
//! `Game` (only the required methods), add the two empty impls `Playouts` and `Tuning`
//! (every playout hook and tuning constant has a neutral default), then search it in any
//! mode.
//!
//! The game here is Nim with one heap: players take 1 to 3 stones in turn, and whoever
//! takes the last stone wins. From a multiple of 4 the side to move loses, so the search
//! must always leave a multiple of 4.

use parmcts::{Game, GameError, Mode, Move, MoveList, Outcome, Player, Playouts, Proof, Search, SearchConfig, Tuning};

/// A Nim position: stones left and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Nim {
    stones: u8,
    to_move: Player,
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    // At most three moves: a fixed-capacity list, no allocation.
    type Moves = MoveList<3>;

    fn new() -> Self {
        Nim { stones: 21, to_move: Player::One }
    }

    fn side_to_move(&self) -> Player {
        self.to_move
    }

    fn outcome(&self) -> Option<Outcome> {
        // The player who just moved took the last stone.
        (self.stones == 0).then(|| Outcome::Win(self.to_move.other()))
    }

    fn legal_moves(&self) -> MoveList<3> {
        (1..=self.stones.min(3)).map(|take| Move(take as u16)).collect()
    }

    fn play_unchecked(&mut self, mv: Move) {
        self.stones -= mv.0 as u8;
        self.to_move = self.to_move.other();
    }

    fn hash(&self) -> u64 {
        (self.stones as u64) << 1 | self.to_move.index() as u64
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.parse::<u16>() {
            Ok(take @ 1..=3) => Ok(Move(take)),
            _ => Err(GameError::BadMove(format!("{text} (take 1, 2 or 3)"))),
        }
    }

    fn format_move(&self, mv: Move) -> String {
        format!("take {}", mv.0)
    }
}

// The default playouts (uniform random) and tuning (C = sqrt(2), one playout in flight).
impl Playouts for Nim {}
impl Tuning for Nim {}

/// Nim with `stones` left, the first player to move.
fn heap(stones: u8) -> Nim {
    Nim { stones, to_move: Player::One }
}

/// In every mode, from every winning heap of up to 11 stones, the search takes the stones
/// that leave a multiple of 4, and it wins the whole game from 11. (Larger heaps need
/// more than uniform playouts: from 17 stones 20,000 of them pick a losing move; the
/// solver test below proves them instead.)
#[test]
fn the_search_leaves_a_multiple_of_four_in_every_mode() {
    for (mode, threads) in [(Mode::Sequential, 1), (Mode::TreeParallel, 2), (Mode::RootParallel, 2)] {
        let config = SearchConfig::builder().playouts(20_000).mode(mode).threads(threads).seed(3).build().unwrap();
        let mut search = Search::new(config).unwrap();
        for stones in (1..=11).filter(|s| s % 4 != 0) {
            let result = search.run(&heap(stones)).unwrap();
            let mv = result.best_move.expect("a heap that is not empty has moves");
            assert_eq!((stones - mv.0 as u8) % 4, 0, "{mode} x{threads}: took {} of {stones}", mv.0);
        }
        let mut game = heap(11);
        while game.outcome().is_none() {
            let mv = search.run(&game).unwrap().best_move.unwrap();
            game.try_play(mv).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Win(Player::One)), "{mode} x{threads}");
    }
}

/// MCTS-Solver proves every heap up to the start's 21 stones exactly: won unless a multiple
/// of 4.
#[test]
fn the_solver_proves_every_heap() {
    let config = SearchConfig::builder().playouts(200_000).solver(true).seed(5).build().unwrap();
    let mut search = Search::new(config).unwrap();
    for stones in 1..=21 {
        let result = search.run(&heap(stones)).unwrap();
        let expected = if stones % 4 == 0 { Proof::Loss } else { Proof::Win };
        assert_eq!(result.proof, expected, "{stones} stones");
    }
}
