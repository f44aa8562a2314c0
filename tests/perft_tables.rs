//! Tic-tac-toe and Connect Four rules proven against published perft tables.
//!
//! Oracles (read at test time from `tests/data/perft`, see its README):
//! * `tictactoe.csv`: perft from the RG compiler test suite (WoojtekP/RGcompiler
//!   `scripts/test.py`) plus an independent enumeration; games ending at each ply.
//! * `connect4.csv`: perft from the RG test suite up to ply 10 and third-party perft
//!   tests up to ply 13 (a winning move counts at its own ply; a finished game
//!   contributes nothing deeper).
//! * `connect4/Test_L*_R1`: Pascal Pons's benchmark positions ("Solving Connect 4",
//!   part 2, test protocol), every one legal and unfinished.

mod common;

use parmcts::games::perft::perft;
use parmcts::{ConnectFour, Game, Outcome, Player, TicTacToe};

#[test]
fn tictactoe_perft_matches_table() {
    let table = common::column("perft/tictactoe.csv", "perft");
    assert_eq!(table.len(), 10);
    for (ply, expected) in table {
        assert_eq!(perft(&TicTacToe::new(), ply), expected, "tic-tac-toe perft({ply})");
    }
}

/// Counts finished games by ply and winner.
fn count_games(game: TicTacToe, ply: usize, by_ply: &mut [u64; 10], wins: &mut [u64; 3]) {
    if let Some(outcome) = game.outcome() {
        by_ply[ply] += 1;
        wins[match outcome {
            Outcome::Win(Player::One) => 0,
            Outcome::Win(Player::Two) => 1,
            Outcome::Draw => 2,
        }] += 1;
        return;
    }
    for mv in game.legal_moves() {
        let mut child = game;
        child.play_unchecked(mv);
        count_games(child, ply + 1, by_ply, wins);
    }
}

#[test]
fn tictactoe_complete_games_match_table() {
    let mut by_ply = [0u64; 10];
    let mut wins = [0u64; 3];
    count_games(TicTacToe::new(), 0, &mut by_ply, &mut wins);
    for (ply, expected) in common::column("perft/tictactoe.csv", "games_ending_at_ply") {
        assert_eq!(by_ply[ply as usize], expected, "games ending at ply {ply}");
    }
    assert_eq!(by_ply.iter().sum::<u64>(), 255_168);
    assert_eq!(wins, [131_184, 77_904, 46_080], "X wins, O wins, draws");
}

#[test]
fn connect4_perft_matches_table_to_ply_10() {
    let table = common::column("perft/connect4.csv", "perft");
    let mut checked = 0;
    for (ply, expected) in table.into_iter().filter(|&(ply, _)| ply <= 10) {
        assert_eq!(perft(&ConnectFour::new(), ply), expected, "Connect Four perft({ply})");
        checked += 1;
    }
    assert_eq!(checked, 11, "plies 0..=10 are in the table");
}

#[test]
fn connect4_benchmark_positions_are_legal_and_unfinished() {
    for file in ["Test_L1_R1", "Test_L2_R1", "Test_L3_R1"] {
        let positions = common::connect4_positions(file);
        assert_eq!(positions.len(), 1000, "{file}");
        for (moves, _) in positions {
            let game = ConnectFour::parse_position(&moves).unwrap_or_else(|e| panic!("{file} {moves}: {e}"));
            assert!(game.outcome().is_none(), "{file} {moves} is finished");
            assert_eq!(game.plies() as usize, moves.len());
        }
    }
}

#[test]
fn connect4_rejects_bad_move_text() {
    use parmcts::GameError;
    assert!(matches!(ConnectFour::parse_position("448"), Err(GameError::BadMove(_))));
    assert!(matches!(ConnectFour::parse_position("4x"), Err(GameError::BadMove(_))));
    // Column 1 holds six stones; a seventh is illegal.
    assert!(matches!(ConnectFour::parse_position("1111111"), Err(GameError::IllegalMove(m)) if m.contains("move 7")));
    // After 1212121 the first player has won; nothing more may be played.
    let won = ConnectFour::parse_position("1212121").unwrap();
    assert_eq!(won.outcome(), Some(Outcome::Win(Player::One)));
    assert!(won.legal_moves().is_empty());
    assert!(ConnectFour::parse_position("12121212").is_err());
}

#[test]
fn tictactoe_rules() {
    let game = TicTacToe::parse_position("15293").unwrap(); // X: 1 2 3 → top row
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::One)));
    assert!(TicTacToe::parse_position("11").is_err(), "a cell cannot be taken twice");
    assert!(TicTacToe::parse_position("0").is_err());
    let draw = TicTacToe::parse_position("519328467").unwrap();
    assert_eq!(draw.outcome(), Some(Outcome::Draw));
}
