//! Go perft on small boards against an independent implementation: a plain array board
//! with flood-filled liberties and the whole-board history as a list of boards, written
//! for this test and sharing nothing with `src/games/go/`. Its counts are kept in
//! `tests/data/perft/go.csv` (source: this implementation), and both it and parmcts's
//! `Go` must reproduce them. Small boards reach captures, ko, suicide and positional
//! superko within a few plies.

use parmcts::games::perft::perft;
use parmcts::{Game, Go};

/// The naive rules: 0 empty, 1 Black, 2 White.
#[derive(Clone)]
struct Naive {
    n: usize,
    board: Vec<u8>,
    to_move: u8,
    passes: u32,
    plies: u32,
    history: Vec<Vec<u8>>,
}

impl Naive {
    fn new(n: usize) -> Naive {
        let board = vec![0; n * n];
        Naive { n, history: vec![board.clone()], board, to_move: 1, passes: 0, plies: 0 }
    }

    fn neighbours(&self, p: usize) -> Vec<usize> {
        let (r, c, n) = (p / self.n, p % self.n, self.n);
        let mut out = Vec::new();
        if r > 0 {
            out.push(p - n);
        }
        if r + 1 < n {
            out.push(p + n);
        }
        if c > 0 {
            out.push(p - 1);
        }
        if c + 1 < n {
            out.push(p + 1);
        }
        out
    }

    /// The group of `p` and whether it has a liberty.
    fn group(board: &[u8], naive: &Naive, p: usize) -> (Vec<usize>, bool) {
        let mut group = vec![p];
        let mut free = false;
        let mut i = 0;
        while i < group.len() {
            for q in naive.neighbours(group[i]) {
                if board[q] == 0 {
                    free = true;
                } else if board[q] == board[p] && !group.contains(&q) {
                    group.push(q);
                }
            }
            i += 1;
        }
        (group, free)
    }

    /// The board after the side to move plays `p`, if legal.
    fn after(&self, p: usize) -> Option<Vec<u8>> {
        if self.board[p] != 0 {
            return None;
        }
        let mut board = self.board.clone();
        board[p] = self.to_move;
        for q in self.neighbours(p) {
            if board[q] == 3 - self.to_move {
                let (group, free) = Naive::group(&board, self, q);
                if !free {
                    for s in group {
                        board[s] = 0;
                    }
                }
            }
        }
        if !Naive::group(&board, self, p).1 || self.history.contains(&board) {
            return None;
        }
        Some(board)
    }

    fn over(&self) -> bool {
        self.passes >= 2 || self.plies >= 3 * (self.n * self.n) as u32
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.over() {
            return 0;
        }
        let mut nodes = 0;
        for p in 0..=self.n * self.n {
            let mut child = self.clone();
            if p == self.n * self.n {
                child.passes += 1;
            } else if let Some(board) = self.after(p) {
                child.board = board.clone();
                child.history.push(board);
                child.passes = 0;
            } else {
                continue;
            }
            child.plies += 1;
            child.to_move = 3 - self.to_move;
            nodes += child.perft(depth - 1);
        }
        nodes
    }
}

fn table() -> Vec<(usize, u32, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft/go.csv");
    let text = std::fs::read_to_string(path).expect("tests/data/perft/go.csv");
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<u64> = line.split(',').map(|x| x.trim().parse().unwrap()).collect();
            (f[0] as usize, f[1] as u32, f[2])
        })
        .collect()
}

fn parmcts_perft(size: usize, depth: u32) -> u64 {
    match size {
        2 => perft(&Go::<2>::new(), depth),
        3 => perft(&Go::<3>::new(), depth),
        4 => perft(&Go::<4>::new(), depth),
        5 => perft(&Go::<5>::new(), depth),
        _ => unreachable!("no such board in the table"),
    }
}

#[test]
fn go_perft_matches_the_independent_table() {
    let rows = table();
    assert!(rows.len() >= 10);
    for (size, depth, nodes) in rows {
        assert_eq!(parmcts_perft(size, depth), nodes, "parmcts perft({depth}) on {size}x{size}");
        assert_eq!(Naive::new(size).perft(depth), nodes, "naive perft({depth}) on {size}x{size}");
    }
}

/// Prints the table (`cargo test --profile test-release --test go_perft -- --ignored --nocapture`).
#[test]
#[ignore]
fn print_the_table() {
    println!("size,depth,perft");
    for (size, max) in [(2, 12), (3, 7), (4, 5), (5, 4)] {
        for depth in 1..=max {
            println!("{size},{depth},{}", Naive::new(size).perft(depth));
        }
    }
    let _ = Go::<3>::new().legal_moves();
}
