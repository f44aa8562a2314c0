//! Hex's rules against oracles that share nothing with `src/games/hex/`:
//! * a plain array board written here (cells as `u8`, neighbours listed by hand, wins by
//!   breadth-first search), which decides every filled board of random playouts and every
//!   position of random games (proptest), and counts perft on 2x2 to 5x5; its counts
//!   are kept in `tests/data/perft/hex.csv` (source: this implementation), and both it and
//!   parmcts's `Hex` must reproduce them;
//! * the first player wins every n×n board (Nash's strategy-stealing argument), checked
//!   by an exact search on 1x1 to 4x4, together with the published facts about winning
//!   and losing opening moves on those boards (cited at the test).

use std::collections::HashMap;

use proptest::prelude::*;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use parmcts::games::hex::Hex;
use parmcts::games::perft::perft;
use parmcts::{Game, Move, Outcome, Player, Playouts};

/// The naive rules: `board[row * n + col]` is 0 empty, 1 Black (top-bottom), 2 White
/// (left-right); Black moves first.
#[derive(Clone)]
struct Naive {
    n: usize,
    board: Vec<u8>,
    to_move: u8,
    winner: u8,
}

impl Naive {
    fn new(n: usize) -> Naive {
        Naive { n, board: vec![0; n * n], to_move: 1, winner: 0 }
    }

    /// The six neighbours of a hexagon in the rhombus, each row drawn half a cell right
    /// of the one above: left, right, up, down, up-right, down-left.
    fn neighbours(&self, p: usize) -> Vec<usize> {
        let (r, c, n) = ((p / self.n) as i64, (p % self.n) as i64, self.n as i64);
        [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, 1), (1, -1)]
            .into_iter()
            .map(|(dr, dc)| (r + dr, c + dc))
            .filter(|&(r, c)| r >= 0 && r < n && c >= 0 && c < n)
            .map(|(r, c)| (r * n + c) as usize)
            .collect()
    }

    /// Whether `colour`'s cells join its edges: breadth-first search from its first edge.
    fn connected(&self, colour: u8) -> bool {
        let n = self.n;
        let on_first = |p: usize| if colour == 1 { p / n == 0 } else { p.is_multiple_of(n) };
        let on_second = |p: usize| if colour == 1 { p / n == n - 1 } else { p % n == n - 1 };
        let mut seen = vec![false; n * n];
        let mut queue: Vec<usize> = (0..n * n).filter(|&p| self.board[p] == colour && on_first(p)).collect();
        for &p in &queue {
            seen[p] = true;
        }
        while let Some(p) = queue.pop() {
            if on_second(p) {
                return true;
            }
            for q in self.neighbours(p) {
                if self.board[q] == colour && !seen[q] {
                    seen[q] = true;
                    queue.push(q);
                }
            }
        }
        false
    }

    fn play(&mut self, p: usize) {
        self.board[p] = self.to_move;
        if self.connected(self.to_move) {
            self.winner = self.to_move;
        }
        self.to_move = 3 - self.to_move;
    }

    /// Move sequences of exactly `depth` plies; a won game contributes nothing deeper.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.winner != 0 {
            return 0;
        }
        (0..self.n * self.n)
            .filter(|&p| self.board[p] == 0)
            .map(|p| {
                let mut child = self.clone();
                child.play(p);
                child.perft(depth - 1)
            })
            .sum()
    }
}

/// The naive board of a parmcts position.
fn naive_of<const N: usize>(game: &Hex<N>) -> Naive {
    let mut naive = Naive::new(N);
    for p in 0..N * N {
        naive.board[p] = match game.stone_at(Move(p as u16)) {
            Some(Player::One) => 1,
            Some(Player::Two) => 2,
            None => 0,
        };
    }
    naive.to_move = if game.side_to_move() == Player::One { 1 } else { 2 };
    naive
}

/// Plays `seed`'s random playout from `moves` and checks the filled board against the
/// naive search: full, exactly one player connected, and that player the winner.
fn filled_board_has_one_winner<const N: usize>(moves: &[u16], seed: u64) {
    // An opening from `moves`, stopped before a move that would end the game.
    let mut game = Hex::<N>::new();
    for &m in moves {
        let legal = game.legal_moves();
        let mut next = game;
        next.play_unchecked(legal[m as usize % legal.len()]);
        if next.outcome().is_some() {
            break;
        }
        game = next;
    }
    let mut filled = game;
    let outcome = filled.random_playout(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
    let naive = naive_of(&filled);
    assert!(naive.board.iter().all(|&c| c != 0), "the playout fills the board");
    let (black, white) = (naive.connected(1), naive.connected(2));
    assert!(black != white, "{N}x{N}: black {black}, white {white}\n{}", filled.render());
    let winner = if black { Player::One } else { Player::Two };
    assert_eq!(outcome, Outcome::Win(winner), "{}", filled.render());
    assert_eq!(filled.outcome(), Some(Outcome::Win(winner)));
    assert!(filled.connects(winner) && !filled.connects(winner.other()));
}

/// Plays the moves chosen by `selectors` one at a time, comparing the incremental
/// outcome with the naive search after every move.
fn incremental_wins_match_a_search<const N: usize>(selectors: &[u16]) {
    let mut game = Hex::<N>::new();
    let mut naive = Naive::new(N);
    for &s in selectors.iter().cycle() {
        let legal = game.legal_moves();
        let expected = match naive.winner {
            0 => None,
            1 => Some(Outcome::Win(Player::One)),
            _ => Some(Outcome::Win(Player::Two)),
        };
        assert_eq!(game.outcome(), expected, "{}", game.render());
        if legal.is_empty() {
            return;
        }
        let mv = legal[s as usize % legal.len()];
        game.play_unchecked(mv);
        naive.play(mv.0 as usize);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_filled_board_has_exactly_one_winner(moves in prop::collection::vec(any::<u16>(), 0..30), seed in any::<u64>()) {
        filled_board_has_one_winner::<1>(&moves, seed);
        filled_board_has_one_winner::<2>(&moves, seed);
        filled_board_has_one_winner::<3>(&moves, seed);
        filled_board_has_one_winner::<5>(&moves, seed);
        filled_board_has_one_winner::<8>(&moves, seed);
        filled_board_has_one_winner::<11>(&moves, seed);
        filled_board_has_one_winner::<12>(&moves, seed);
        filled_board_has_one_winner::<19>(&moves, seed);
    }

    #[test]
    fn incremental_win_detection_matches_a_search(selectors in prop::collection::vec(any::<u16>(), 1..100)) {
        incremental_wins_match_a_search::<2>(&selectors);
        incremental_wins_match_a_search::<4>(&selectors);
        incremental_wins_match_a_search::<7>(&selectors);
        incremental_wins_match_a_search::<11>(&selectors);
        incremental_wins_match_a_search::<13>(&selectors);
    }
}

/// `tests/data/perft/hex.csv`: `(size, moves, depth, perft)`.
fn table() -> Vec<(usize, String, u32, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft/hex.csv");
    let text = std::fs::read_to_string(path).expect("tests/data/perft/hex.csv");
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            (f[0].parse().unwrap(), f[1].to_string(), f[2].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect()
}

/// parmcts's perft from the position after `moves` on a `size` board.
fn parmcts_perft(size: usize, moves: &str, depth: u32) -> u64 {
    fn from<const N: usize>(moves: &str, depth: u32) -> u64 {
        perft(&Hex::<N>::parse_position(moves).unwrap(), depth)
    }
    match size {
        2 => from::<2>(moves, depth),
        3 => from::<3>(moves, depth),
        4 => from::<4>(moves, depth),
        5 => from::<5>(moves, depth),
        _ => unreachable!("no such board in the table"),
    }
}

/// The naive perft from the position after `moves` (parsed here, by hand).
fn naive_perft(size: usize, moves: &str, depth: u32) -> u64 {
    let mut naive = Naive::new(size);
    for text in moves.split_whitespace() {
        let col = (text.as_bytes()[0] - b'a') as usize;
        let row: usize = text[1..].parse().unwrap();
        naive.play((row - 1) * size + col);
    }
    naive.perft(depth)
}

#[test]
fn perft_matches_the_independent_implementation() {
    let table = table();
    assert!(table.len() >= 20, "the table has {} rows", table.len());
    for (size, moves, depth, expected) in table {
        assert_eq!(naive_perft(size, &moves, depth), expected, "naive, {size}x{size} after '{moves}', depth {depth}");
        assert_eq!(
            parmcts_perft(size, &moves, depth),
            expected,
            "parmcts, {size}x{size} after '{moves}', depth {depth}"
        );
    }
}

/// Whether the side to move wins `game` with perfect play (negamax, memoised on the
/// stones; a win stops the search of the other moves).
fn wins<const N: usize>(game: &Hex<N>, memo: &mut HashMap<([u64; 6], [u64; 6]), bool>) -> bool {
    let key = (game.cells_of(Player::One).0, game.cells_of(Player::Two).0);
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let won = game.legal_moves().into_iter().any(|mv| {
        let mut child = *game;
        child.play_unchecked(mv);
        child.outcome().is_some() || !wins(&child, memo)
    });
    memo.insert(key, won);
    won
}

/// The winning opening moves for Black on the empty `N`x`N` board, as text.
fn winning_openings<const N: usize>() -> Vec<String> {
    let start = Hex::<N>::new();
    let mut memo = HashMap::new();
    let mut openings: Vec<String> = start
        .legal_moves()
        .into_iter()
        .filter(|&mv| {
            let mut child = start;
            child.play_unchecked(mv);
            child.outcome().is_some() || !wins(&child, &mut memo)
        })
        .map(|mv| start.format_move(mv))
        .collect();
    openings.sort();
    openings
}

/// The cells of the short diagonal (joining the obtuse corners `a{N}` and the top
/// right) and the two acute corners (`a1` and the bottom right), as text.
fn diagonal_and_acute_corners<const N: usize>() -> (Vec<String>, Vec<String>) {
    let game = Hex::<N>::new();
    let text = |row: usize, col: usize| game.format_move(Move((row * N + col) as u16));
    let mut diagonal: Vec<String> = (0..N).map(|row| text(row, N - 1 - row)).collect();
    diagonal.sort();
    (diagonal, vec![text(0, 0), text(N - 1, N - 1)])
}

/// Literature:
/// * The first player wins on every n×n board: Nash's strategy-stealing argument (no
///   draws, and an extra stone never hurts), as in Hayward & Toft, "Hex, Inside and
///   Out: The Full Story" (CRC Press, 2019).
/// * On 2x2 and 3x3 an opening anywhere on the short diagonal wins and an opening in
///   an acute corner loses; on 4x4 an inner cell of the short diagonal wins (the
///   "Hex: Basic Strategy II" page of mazeworks.com, Hex-7: "if White opens anywhere on
///   the main diagonal (hexes a1, b2, or c3) she can force a win [...] if White opens on
///   an acute corner (a3 or c1), Black can force a win", "the situation on the 3x3
///   board is identical to that of the 2x2 board", and the 4x4 win opening at b2; its
///   coordinates put an obtuse corner at a1, so its main diagonal is our short one).
/// * The acute corner `a1` is a losing opening (HexWiki, "Open problems": "Are there
///   cells other than a1 and b1 which are theoretically losing first moves?").
///
/// Beyond those, the complete sets computed here are kept as a regression check, not
/// as a published result: on 3x3 the short diagonal plus `a2` and `c2`, on 4x4 exactly
/// the short diagonal.
#[test]
fn the_first_player_wins_small_boards() {
    assert!(wins(&Hex::<1>::new(), &mut HashMap::new()));
    assert!(wins(&Hex::<2>::new(), &mut HashMap::new()));
    assert!(wins(&Hex::<3>::new(), &mut HashMap::new()));
    assert!(wins(&Hex::<4>::new(), &mut HashMap::new()));

    let (two, three, four) = (winning_openings::<2>(), winning_openings::<3>(), winning_openings::<4>());
    let (diagonal, acute) = diagonal_and_acute_corners::<2>();
    assert_eq!(two, diagonal, "2x2: the short diagonal wins, the acute corners lose");
    assert!(acute.iter().all(|c| !two.contains(c)));
    let (diagonal, acute) = diagonal_and_acute_corners::<3>();
    assert!(diagonal.iter().all(|c| three.contains(c)), "3x3: {three:?}");
    assert!(acute.iter().all(|c| !three.contains(c)), "3x3: {three:?}");
    let (diagonal, acute) = diagonal_and_acute_corners::<4>();
    assert!(["b3", "c2"].iter().all(|c| four.contains(&c.to_string())), "4x4: {four:?}");
    assert!(acute.iter().all(|c| !four.contains(c)), "4x4: {four:?}");

    // Computed here (regression, not literature).
    assert_eq!(three, ["a2", "a3", "b2", "c1", "c2"]);
    assert_eq!(four, diagonal);
}
