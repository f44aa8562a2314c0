//! Embedding parmcts in your own game — the example for library users: implement
//! `Game` (only the required methods), add the empty impls `Playouts`, `Tuning` and `NTupleBoard`
//! (every playout hook and tuning constant has a neutral default; the implementation is
//! `tests/common/nim.rs`), then search it in any mode.
//!
//! The game here is Nim with one heap: players take 1 to 3 stones in turn, and whoever
//! takes the last stone wins. From a multiple of 4 the side to move loses, so the search
//! must always leave a multiple of 4.

mod common;

use common::nim::heap;
use parmcts::{Game, Mode, Outcome, Player, Proof, Search, SearchConfig};

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

/// A game with no heuristic evaluation still gets random and MCTS players from specs; a
/// minimax or alpha-beta spec is refused with an error, not a compile-time demand.
#[test]
fn players_need_no_evaluation_for_mcts() {
    use parmcts::harness::players::{PlayerError, PlayerSpec};
    let spec = PlayerSpec::parse("mcts:playouts=5000,seed=2").unwrap();
    let mut player = spec.build::<common::nim::Nim>(1).unwrap();
    let mv = player.choose(&heap(7)).unwrap();
    assert_eq!(7 - mv.0 as u8, 4, "took {} of 7", mv.0);
    let mut random = PlayerSpec::Random.build::<common::nim::Nim>(1).unwrap();
    assert!((1..=3).contains(&random.choose(&heap(7)).unwrap().0));
    for text in ["alphabeta:depth=3", "minimax:depth=2"] {
        let refused = PlayerSpec::parse(text).unwrap().build::<common::nim::Nim>(1).err();
        assert!(matches!(refused, Some(PlayerError::NeedsEvaluation(_))), "{text}");
    }
}
