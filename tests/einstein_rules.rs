//! EinStein würfelt nicht!: the bitboard rules against a plain array implementation
//! written here from the rules (Althöfer), over thousands of random games, plus hand
//! positions.

use parmcts::{Einstein, Game, Outcome, Player, Turn};

/// The reference: a 5x5 array, `+k` a Red piece k, `-k` a Blue piece k, 0 empty.
#[derive(Clone)]
struct Reference {
    board: [[i8; 5]; 5],
    red_to_move: bool,
    die: Option<u8>,
}

impl Reference {
    fn new() -> Self {
        Self::with_setup([[1, 2, 3, 4, 5, 6]; 2])
    }

    /// `setup[side][i]`: the piece on the side's i-th start cell.
    fn with_setup(setup: [[u8; 6]; 2]) -> Self {
        let mut board = [[0i8; 5]; 5];
        // Red's start cells along the rows from a1: a1 b1 c1 a2 b2 a3 (x, y); Blue's mirrored.
        let red = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)];
        for (i, &(x, y)) in red.iter().enumerate() {
            board[y][x] = setup[0][i] as i8;
            board[4 - y][4 - x] = -(setup[1][i] as i8);
        }
        Reference { board, red_to_move: true, die: None }
    }

    fn find(&self, piece: i8) -> Option<(usize, usize)> {
        (0..25).map(|i| (i % 5, i / 5)).find(|&(x, y)| self.board[y][x] == piece)
    }

    fn winner(&self) -> Option<bool> {
        let red_alive = self.board.iter().flatten().any(|&v| v > 0);
        let blue_alive = self.board.iter().flatten().any(|&v| v < 0);
        if self.board[4][4] > 0 || !blue_alive {
            return Some(true);
        }
        if self.board[0][0] < 0 || !red_alive {
            return Some(false);
        }
        None
    }

    /// Moves as text: `d1`..`d6`, or piece and destination (`3c2`).
    fn moves(&self) -> Vec<String> {
        if self.winner().is_some() {
            return Vec::new();
        }
        let Some(face) = self.die else {
            return (1..=6).map(|f| format!("d{f}")).collect();
        };
        let sign: i8 = if self.red_to_move { 1 } else { -1 };
        let mut pieces = Vec::new();
        if self.find(sign * face as i8).is_some() {
            pieces.push(face as i8);
        } else {
            if let Some(up) = (face as i8 + 1..=6).find(|&k| self.find(sign * k).is_some()) {
                pieces.push(up);
            }
            if let Some(down) = (1..face as i8).rev().find(|&k| self.find(sign * k).is_some()) {
                pieces.push(down);
            }
        }
        let mut out = Vec::new();
        for k in pieces {
            let (x, y) = self.find(sign * k).unwrap();
            let steps: [(i32, i32); 3] = [(1, 0), (0, 1), (1, 1)];
            for (dx, dy) in steps {
                let (nx, ny) = (x as i32 + dx * sign as i32, y as i32 + dy * sign as i32);
                if (0..5).contains(&nx) && (0..5).contains(&ny) {
                    out.push(format!("{k}{}{}", (b'a' + nx as u8) as char, ny + 1));
                }
            }
        }
        out
    }

    fn play(&mut self, mv: &str) {
        let b = mv.as_bytes();
        if b[0] == b'd' {
            self.die = Some(b[1] - b'0');
            return;
        }
        let sign: i8 = if self.red_to_move { 1 } else { -1 };
        let piece = sign * (b[0] - b'0') as i8;
        let (x, y) = self.find(piece).unwrap();
        self.board[y][x] = 0;
        self.board[(b[2] - b'1') as usize][(b[1] - b'a') as usize] = piece;
        self.red_to_move = !self.red_to_move;
        self.die = None;
    }
}

/// xorshift64*: a dependency-free generator for the random games.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

fn sorted_moves(g: &Einstein) -> Vec<String> {
    let mut v: Vec<String> = g.legal_moves().as_ref().iter().map(|&m| g.format_move(m)).collect();
    v.sort();
    v
}

#[test]
fn einstein_matches_the_array_reference_over_random_games() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut wins = [0u32; 2];
    for game_index in 0..3000 {
        // The first half from the fixed arrangement, the rest from random ones.
        let (mut g, mut r) = if game_index < 1500 {
            (Einstein::new(), Reference::new())
        } else {
            let mut setup = [[1, 2, 3, 4, 5, 6]; 2];
            for numbers in &mut setup {
                for i in (1..6).rev() {
                    numbers.swap(i, (next(&mut state) % (i as u64 + 1)) as usize);
                }
            }
            (Einstein::with_setup(setup).unwrap(), Reference::with_setup(setup))
        };
        for ply in 0..1000 {
            let mut expected = r.moves();
            expected.sort();
            assert_eq!(sorted_moves(&g), expected, "game {game_index} ply {ply}\n{}", g.render());
            let expected_turn = match r.die {
                None => Turn::Chance,
                Some(_) => Turn::Player(if r.red_to_move { Player::One } else { Player::Two }),
            };
            match r.winner() {
                Some(red) => {
                    let winner = if red { Player::One } else { Player::Two };
                    assert_eq!(g.outcome(), Some(Outcome::Win(winner)), "game {game_index}");
                    wins[winner.index()] += 1;
                    break;
                }
                None => {
                    assert_eq!(g.outcome(), None);
                    assert_eq!(g.turn(), expected_turn);
                }
            }
            let pick = &expected[(next(&mut state) % expected.len() as u64) as usize];
            g.try_play(g.parse_move(pick).unwrap()).unwrap();
            r.play(pick);
            assert!(ply < 999, "game {game_index} did not end");
        }
    }
    // Both sides win some random games: no draws, no one-sided bug.
    assert_eq!(wins[0] + wins[1], 3000);
    assert!(wins[0] > 300 && wins[1] > 300, "{wins:?}");
}

/// Leaf counts `depth` plies (rolls and moves) from the start, by both implementations.
fn perft(g: &Einstein, depth: u32) -> u64 {
    if depth == 0 || g.outcome().is_some() {
        return 1;
    }
    g.legal_moves()
        .as_ref()
        .iter()
        .map(|&m| {
            let mut c = *g;
            c.play_unchecked(m);
            perft(&c, depth - 1)
        })
        .sum()
}

fn perft_reference(r: &Reference, depth: u32) -> u64 {
    if depth == 0 || r.winner().is_some() {
        return 1;
    }
    r.moves()
        .iter()
        .map(|m| {
            let mut c = r.clone();
            c.play(m);
            perft_reference(&c, depth - 1)
        })
        .sum()
}

#[test]
fn einstein_perft_agrees_with_the_reference() {
    for depth in 0..=6 {
        assert_eq!(perft(&Einstein::new(), depth), perft_reference(&Reference::new(), depth), "depth {depth}");
    }
    // Every roll gives Red exactly three moves at the start (each piece has 3 steps).
    assert_eq!(perft(&Einstein::new(), 2), 18);
}

#[test]
fn einstein_win_by_reaching_the_corner() {
    // Red piece 5 (b2) runs the diagonal while Blue shuffles: c3, d4, e5 wins.
    let mut g = Einstein::new();
    g.play_sequence("d5 5c3 d6 6e2 d5 5d4 d6 6e1").unwrap();
    assert_eq!(g.outcome(), None);
    g.play_sequence("d5").unwrap();
    assert!(g.legal_moves().as_ref().iter().any(|&m| g.format_move(m) == "5e5"));
    g.play_sequence("5e5").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::Win(Player::One)));
    assert!(g.legal_moves().as_ref().is_empty());
    assert!(g.play_sequence("d1").is_err());
}

#[test]
fn einstein_bad_moves_name_the_text() {
    let g = Einstein::new();
    let err = g.parse_move("9z9").unwrap_err().to_string();
    assert!(err.contains("9z9"), "{err}");
    let mut g = Einstein::new();
    let err = g.play_sequence("d1 6a1").unwrap_err().to_string();
    assert!(err.contains("6a1"), "{err}");
}

/// In `match` the referee rolls the die (players never choose it), and both colourings
/// of a pair see the same rolls; minimax and alpha-beta players, which have no chance
/// nodes, are refused with exit code 2.
#[test]
fn the_referee_rolls_the_same_dice_for_both_games_of_a_pair() {
    let dir = std::env::temp_dir().join(format!("parmcts-einstein-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("games.jsonl");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["match", "--game", "einstein", "--p1", "mcts:playouts=200", "--p2", "random", "--games", "6"])
        .args(["--seed", "5", "--records"])
        .arg(&records)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let games: Vec<Vec<String>> = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
        })
        .collect();
    assert_eq!(games.len(), 6);
    let rolls = |moves: &[String]| -> Vec<String> { moves.iter().step_by(2).cloned().collect() };
    for pair in games.chunks(2) {
        let (a, b) = (rolls(&pair[0]), rolls(&pair[1]));
        // Every other ply is a roll, and the pair's rolls agree as far as both go.
        assert!(a.iter().chain(&b).all(|r| r.len() == 2 && r.starts_with('d')), "{a:?} {b:?}");
        let common = a.len().min(b.len());
        assert!(common >= 3 && a[..common] == b[..common], "{a:?}\n{b:?}");
    }
    // Different pairs roll differently.
    assert_ne!(rolls(&games[0]), rolls(&games[2]));
    for p2 in ["alphabeta:depth=2", "minimax:depth=2"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_parmcts"))
            .args(["match", "--game", "einstein", "--p1", "random", "--p2", p2, "--games", "2"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{p2}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("do not search chance turns"), "{p2}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Free set-ups: random arrangements are permutations on the start cells, written and
/// read back as text; bad ones are errors; `match --variant random` gives both games of a
/// pair one arrangement, and its records name it.
#[test]
fn random_setups_are_arrangements_that_records_name() {
    assert_eq!(Einstein::new().setup().as_deref(), Some("123456/123456"));
    let mut seen = std::collections::HashSet::new();
    for seed in 0..300 {
        let g = Einstein::setup_from_seed(seed);
        let text = g.setup().expect("a start position");
        assert_eq!(Einstein::parse_setup(&text).unwrap(), g, "{text}");
        for player in [Player::One, Player::Two] {
            let cells: std::collections::HashSet<u8> = (1..=6).map(|n| g.piece_cell(player, n).unwrap()).collect();
            let start: std::collections::HashSet<u8> =
                (1..=6).map(|n| Einstein::new().piece_cell(player, n).unwrap()).collect();
            assert_eq!(cells, start, "{text}");
        }
        seen.insert(text);
    }
    assert!(seen.len() > 290, "only {} distinct set-ups", seen.len());
    for bad in ["123455/123456", "12345/123456", "123456-123456", "723456/123456"] {
        let err = Einstein::parse_setup(bad).unwrap_err().to_string();
        assert!(err.contains("set-up"), "{bad}: {err}");
    }
    let mut g = Einstein::new();
    g.play_sequence("d1 1b2").unwrap();
    assert_eq!(g.setup(), None, "a piece left its start cell");

    let dir = std::env::temp_dir().join(format!("parmcts-einstein-setup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("games.jsonl");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["match", "--game", "einstein", "--variant", "random", "--p1", "random", "--p2", "random"])
        .args(["--games", "6", "--seed", "3", "--records"])
        .arg(&records)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut boards: Vec<(u64, String)> = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            (record["game"].as_u64().unwrap(), record["board"].as_str().unwrap().to_string())
        })
        .collect();
    boards.sort();
    assert_eq!(boards.len(), 6);
    for pair in boards.chunks(2) {
        assert_eq!(pair[0].1, pair[1].1, "one arrangement per pair");
        Einstein::parse_setup(&pair[0].1).unwrap();
    }
    assert!(boards[0].1 != boards[2].1 || boards[2].1 != boards[4].1, "{boards:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
