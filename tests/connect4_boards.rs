//! Connect Four on run-time boards (`connect4x`, `ConnectFourBoard`): a differential
//! against a plain array implementation written for this test on every size 4..=12 x
//! 4..=12 with and without a blocked cell; the 7x6 board against the `connect4` type
//! move for move; the solver against John Tromp's results by width and height
//! (`tests/data/connect4/board_results.md`); bad board specifications rejected.

mod common;

use std::process::Command;

use parmcts::games::connect4x::BoardError;
use parmcts::solver::connect4x::BoardSolver;
use parmcts::{ConnectFour, ConnectFourBoard, Game, Move, Outcome, Player, Playouts};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The plain reference: a grid of cells, gravity by scanning up the column, four in a
/// row by scanning every line of the whole board after each move.
#[derive(Clone)]
struct ArrayBoard {
    width: usize,
    height: usize,
    /// `grid[col][row]`: 0 empty, 1 first player, 2 second player, 3 blocked.
    grid: Vec<Vec<u8>>,
    to_move: u8,
    winner: Option<u8>,
}

impl ArrayBoard {
    fn new(width: usize, height: usize, blocked: Option<(usize, usize)>) -> Self {
        let mut grid = vec![vec![0; height]; width];
        if let Some((c, r)) = blocked {
            grid[c][r] = 3;
        }
        ArrayBoard { width, height, grid, to_move: 1, winner: None }
    }

    fn landing(&self, col: usize) -> Option<usize> {
        // The lowest empty cell above every filled (or blocked) one.
        let top = self.grid[col].iter().rposition(|&v| v != 0).map_or(0, |r| r + 1);
        (top < self.height).then_some(top)
    }

    fn full(&self) -> bool {
        (0..self.width).all(|c| self.landing(c).is_none())
    }

    fn legal(&self) -> Vec<usize> {
        if self.winner.is_some() {
            return Vec::new();
        }
        (0..self.width).filter(|&c| self.landing(c).is_some()).collect()
    }

    fn four(&self, p: u8) -> bool {
        let (w, h) = (self.width as i32, self.height as i32);
        let at = |c: i32, r: i32| c >= 0 && c < w && r >= 0 && r < h && self.grid[c as usize][r as usize] == p;
        for c in 0..w {
            for r in 0..h {
                for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..4).all(|k| at(c + k * dc, r + k * dr)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn play(&mut self, col: usize) {
        let row = self.landing(col).expect("legal move");
        self.grid[col][row] = self.to_move;
        if self.four(self.to_move) {
            self.winner = Some(self.to_move);
        }
        self.to_move = 3 - self.to_move;
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner {
            Some(1) => Some(Outcome::Win(Player::One)),
            Some(_) => Some(Outcome::Win(Player::Two)),
            None if self.full() => Some(Outcome::Draw),
            None => None,
        }
    }
}

fn columns<G: Game>(game: &G) -> Vec<usize> {
    game.legal_moves().as_ref().iter().map(|m| m.0 as usize).collect()
}

#[test]
fn random_games_agree_with_a_plain_array_board_on_every_size() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(20_261_125);
    let (mut games, mut wins, mut draws) = (0, 0, 0);
    for width in 4..=12usize {
        for height in 4..=12usize {
            for game_index in 0..12 {
                let blocked =
                    (game_index % 2 == 1).then(|| (rng.next_u32() as usize % width, rng.next_u32() as usize % height));
                let mut board =
                    ConnectFourBoard::try_new(width as u32, height as u32, blocked.map(|(c, r)| (c as u32, r as u32)))
                        .expect("valid board");
                let mut reference = ArrayBoard::new(width, height, blocked);
                loop {
                    assert_eq!(columns(&board), reference.legal(), "{width}x{height} {blocked:?}\n{}", board.render());
                    assert_eq!(
                        board.outcome(),
                        reference.outcome(),
                        "{width}x{height} {blocked:?}\n{}",
                        board.render()
                    );
                    let legal = reference.legal();
                    if legal.is_empty() {
                        break;
                    }
                    // Mostly random moves, sometimes a favourite column to end games by
                    // full columns and vertical lines too.
                    let col =
                        if rng.next_u32() % 4 == 0 { legal[0] } else { legal[rng.next_u32() as usize % legal.len()] };
                    let mut copy = board;
                    assert!(copy.try_play(Move(col as u16)).is_ok());
                    board.play_unchecked(Move(col as u16));
                    assert_eq!(copy, board);
                    reference.play(col);
                }
                games += 1;
                match board.outcome() {
                    Some(Outcome::Draw) => draws += 1,
                    Some(Outcome::Win(_)) => wins += 1,
                    None => unreachable!("the loop ends on a finished game"),
                }
            }
        }
    }
    assert_eq!(games, 81 * 12);
    // Both endings were exercised.
    assert!(wins > 0 && draws > 0, "wins {wins}, draws {draws}");
}

#[test]
fn the_7x6_board_plays_exactly_like_connect4() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..2000 {
        let mut old = ConnectFour::new();
        let mut new = ConnectFourBoard::new();
        loop {
            assert_eq!(old.legal_moves().as_ref(), new.legal_moves().as_ref());
            assert_eq!(old.outcome(), new.outcome());
            assert_eq!(old.side_to_move(), new.side_to_move());
            let moves = old.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.next_u32() as usize % moves.len()];
            // The same action values (less connect4's make-a-three class, 2 there) and
            // the same pruned set.
            let (a, b) = (old.action_value(mv), new.action_value(mv));
            assert!(a == b || (a == 2.0 && b == 1.0), "action value of {mv:?}: {a} vs {b}\n{}", new.render());
            let (mut pa, mut pb) = (old.legal_moves(), new.legal_moves());
            let (ka, kb) = (old.prune_moves(pa.as_mut()), new.prune_moves(pb.as_mut()));
            let (mut pa, mut pb) = (pa[..ka].to_vec(), pb[..kb].to_vec());
            pa.sort();
            pb.sort();
            if ka != 1 || kb != 1 {
                assert_eq!(pa, pb, "pruned moves\n{}", new.render());
            }
            old.play_unchecked(mv);
            new.play_unchecked(mv);
        }
    }
}

#[test]
fn perft_on_7x6_matches_connect4() {
    for depth in 0..=7 {
        assert_eq!(
            parmcts::games::perft::perft(&ConnectFourBoard::new(), depth),
            parmcts::games::perft::perft(&ConnectFour::new(), depth)
        );
    }
}

/// Tromp's results (`board_results.md`): (width, height, result for the first player).
fn tromp_results() -> Vec<(u32, u32, Outcome)> {
    let text = std::fs::read_to_string(common::test_data("connect4/board_results.md")).expect("read the table");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let widths: Vec<u32> = header.split('|').skip(2).filter_map(|c| c.trim().parse().ok()).collect();
    let mut results = Vec::new();
    for line in lines.skip(1) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let height: u32 = cells[1].trim_matches('*').parse().expect("a height");
        for (cell, &width) in cells[2..].iter().zip(&widths) {
            let outcome = match *cell {
                "Draw" => Outcome::Draw,
                "1<sup>st</sup>" => Outcome::Win(Player::One),
                "2<sup>nd</sup>" => Outcome::Win(Player::Two),
                _ => continue,
            };
            results.push((width, height, outcome));
        }
    }
    results
}

#[test]
fn solver_agrees_with_tromps_results_on_small_boards() {
    let results = tromp_results();
    assert_eq!(results.len(), 9 + 8 + 7 + 6 + 5 + 5 + 4 + 3 + 3 + 2);
    let mut solved = 0;
    // The boards of at most 24 cells solve in about a second each in release.
    for &(width, height, expected) in results.iter().filter(|(w, h, _)| w * h <= 25 && *h <= 12) {
        let board = ConnectFourBoard::try_new(width, height, None).expect("valid board");
        let result = BoardSolver::new(50_000_000).solve(&board).expect("solved within the budget");
        assert_eq!(result.outcome, expected, "{width}x{height}");
        // The move it gives keeps the result.
        let mut after = board;
        after.play_unchecked(result.best_move.expect("a move"));
        let again = BoardSolver::new(50_000_000).solve(&after).expect("solved");
        assert_eq!(again.outcome, expected, "{width}x{height} after the best move");
        solved += 1;
    }
    // 4x4, 5x4, 6x4, 4x5, 5x5, 4x6.
    assert_eq!(solved, 6);
}

#[test]
fn bad_board_specifications_are_rejected_with_the_value() {
    assert_eq!(ConnectFourBoard::try_new(3, 6, None), Err(BoardError::Width(3)));
    assert_eq!(ConnectFourBoard::try_new(13, 6, None), Err(BoardError::Width(13)));
    assert_eq!(ConnectFourBoard::try_new(7, 13, None), Err(BoardError::Height(13)));
    assert_eq!(ConnectFourBoard::try_new(7, 6, Some((7, 0))), Err(BoardError::Blocked { col: 8, row: 1 }));
    assert_eq!(ConnectFourBoard::try_new(7, 6, Some((0, 6))), Err(BoardError::Blocked { col: 1, row: 7 }));
    for bad in ["13x6:", "7x6@0,1:", "7x6@8,1:", "7by6:", "9x9: 10", "4x4@1,2: 1 1 1"] {
        assert!(ConnectFourBoard::parse_position(bad).is_err(), "{bad}");
    }
    // A column blocked in its top row is full from the start.
    let full = ConnectFourBoard::parse_position("4x4@1,4:").expect("a valid board");
    assert!(!full.can_play(0));
}

#[test]
fn move_lists_read_as_connect_fours_up_to_9_columns_and_need_separators_beyond() {
    let position = |text: &str| ConnectFourBoard::parse_position(text).map(|board| board.hash());
    // Up to 9 columns a move is one digit: Connect Four's `4453` means `4 4 5 3`.
    assert_eq!(position("4453"), position("4 4 5 3"));
    assert_eq!(position("4453"), position("7x6:4,4,5,3"));
    assert_eq!(position("9x6:4459"), position("9x6:4 4 5 9"));
    assert_ne!(position("4453").unwrap(), position("4454").unwrap());
    // Beyond, `1012` could be 10 1 2 or 1 0 1 2: separators are required, and the error
    // says so.
    assert_eq!(position("10x6:10,1,2"), position("10x6:10 1 2"));
    let err = ConnectFourBoard::parse_position("10x6:1012").unwrap_err().to_string();
    assert!(err.contains("1012") && err.contains("separated"), "{err}");
    // The 7x6 board and `connect4` read the same text as the same stones.
    let mut c4 = ConnectFour::new();
    c4.play_sequence("4453").unwrap();
    let board = ConnectFourBoard::parse_position("4453").unwrap();
    for (col, row) in (0..7).flat_map(|col| (0..6).map(move |row| (col, row))) {
        assert_eq!(c4.cell(col, row), board.cell(col, row), "column {col}, row {row}");
    }
    assert_eq!(board.cell(3, 1), Some(Player::Two));
}

#[test]
fn random_variant_boards_are_the_reports() {
    let mut sizes = std::collections::HashSet::new();
    for seed in 0..400 {
        let board = ConnectFourBoard::variant_from_seed(seed);
        assert_eq!(board, ConnectFourBoard::variant_from_seed(seed));
        assert!((9..=12).contains(&board.width()) && (9..=12).contains(&board.height()));
        let (c, r) = board.blocked().expect("a blocked cell");
        assert!(c < board.width() && r < board.height());
        sizes.insert((board.width(), board.height()));
    }
    assert_eq!(sizes.len(), 16);
}

fn parmcts(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_parmcts")).args(args).output().expect("run parmcts")
}

#[test]
fn cli_boards_reach_the_commands_and_bad_flags_exit_2() {
    let out = parmcts(&["perft", "--game", "connect4", "--width", "9", "--height", "4", "--depth", "2"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("perft(2) = 81"));
    let out =
        parmcts(&["perft", "--game", "connect4x", "--width", "4", "--height", "4", "--blocked", "1,4", "--depth", "1"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("perft(1) = 3"));
    let out = parmcts(&["solve", "--game", "connect4x", "--width", "4", "--height", "4", "--json"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"score\":0"));
    for (args, named) in [
        (&["perft", "--game", "connect4", "--width", "13", "--depth", "1"][..], "'13'"),
        (&["perft", "--game", "connect4x", "--height", "3", "--depth", "1"][..], "'3'"),
        (&["perft", "--game", "connect4x", "--blocked", "8,1", "--depth", "1"][..], "'8,1'"),
        (&["perft", "--game", "connect4x", "--blocked", "a", "--depth", "1"][..], "'a'"),
        (&["perft", "--game", "othello", "--width", "9", "--depth", "1"][..], "othello"),
        (&["match", "--game", "connect4", "--variant", "huge", "--p1", "random", "--p2", "random"][..], "'huge'"),
    ] {
        let out = parmcts(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error:") && err.contains(named), "{args:?}: {err}");
    }
    let out = parmcts(&[
        "match",
        "--game",
        "connect4",
        "--variant",
        "random",
        "--p1",
        "random",
        "--p2",
        "random",
        "--games",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `match --variant random` records name each game's board, the same for both games of a
/// pair, and a recorded game replays on it.
#[test]
fn variant_records_name_the_board() {
    let dir = std::env::temp_dir().join(format!("parmcts-c4-variant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("games.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["match", "--game", "connect4", "--variant", "random", "--p1", "random", "--p2", "random"])
        .args(["--games", "4", "--seed", "9", "--records"])
        .arg(&records)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut games: Vec<(u64, String, Vec<String>)> = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|line| {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let moves = r["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
            (r["game"].as_u64().unwrap(), r["board"].as_str().unwrap().to_string(), moves)
        })
        .collect();
    games.sort();
    assert_eq!(games.len(), 4);
    assert_eq!(games[0].1, games[1].1);
    assert_eq!(games[2].1, games[3].1);
    for (_, board, moves) in &games {
        let mut game = ConnectFourBoard::parse_board(board).unwrap();
        for mv in moves {
            let m = game.parse_move(mv).unwrap();
            game.try_play(m).unwrap();
        }
        assert!(game.outcome().is_some(), "{board}: {moves:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
