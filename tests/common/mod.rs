//! Helpers shared by the integration tests: reading the external oracles in
//! `tests/data` (byte-for-byte copies of published sources kept in the repository; see
//! `tests/data/README.md`), running the binary ([`cli`]), talking to a GTP engine ([`gtp`]),
//! the grammar of its analysis lines ([`analysis`]), GNU Go as an oracle ([`gnugo`]), a
//! user game ([`nim`]), and seeded fuzzing of the parsers ([`fuzz`]).
#![allow(dead_code)]

pub mod analysis;
pub mod cli;
pub mod fuzz;
pub mod gnugo;
pub mod gtp;
pub mod nim;

use std::path::PathBuf;

use parmcts::games::random_below;
use parmcts::Game;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Path of a file under `tests/data`.
pub fn test_data(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(relative)
}

/// Reads a CSV with a header row into (header, rows of cells).
pub fn read_csv(relative: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let path = test_data(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().expect("header row").split(',').map(str::to_string).collect();
    let rows = lines.map(|l| l.split(',').map(|c| c.trim().to_string()).collect()).collect();
    (header, rows)
}

/// The `(ply, value)` pairs of one numeric column, skipping empty cells.
pub fn column(relative: &str, name: &str) -> Vec<(u32, u64)> {
    let (header, rows) = read_csv(relative);
    let col = header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    rows.iter().filter(|r| !r[col].is_empty()).map(|r| (r[0].parse().unwrap(), r[col].parse().unwrap())).collect()
}

/// Reads a Connect Four test file: (moves, score) per line.
pub fn connect4_positions(file: &str) -> Vec<(String, i32)> {
    let path = test_data(&format!("connect4/{file}"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split_whitespace();
            let moves = parts.next().unwrap().to_string();
            let score = parts.next().unwrap().parse().unwrap();
            (moves, score)
        })
        .collect()
}

/// `count` non-terminal positions reached by random play of 0..=`max_len` plies from the
/// start (a die roll is a ply, drawn uniformly like any move), from `seed`.
pub fn random_positions<G: Game>(seed: u64, count: usize, max_len: u32) -> Vec<G> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut game = G::new();
        let len = random_below(&mut rng, max_len + 1);
        for _ in 0..len {
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if moves.is_empty() {
                break;
            }
            game.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
        }
        if game.outcome().is_none() {
            positions.push(game);
        }
    }
    positions
}
