//! The exact Othello endgame solver against an external oracle and a brute-force minimax.
//!
//! Oracle: `tests/data/othello/fforum-1-19.obf`, FFO endgame problems #1-#19 (FForum, the
//! magazine of the Fédération Française d'Othello; 14-16 empties) in Edax's OBF format,
//! copied byte for byte from abulmo/edax-reversi `problem/` at commit
//! 14f048c05ddfa385b6bf954a9c2905bbe677e9d3 (GPL-3.0 data, Richard Delorme; provenance
//! and format in that folder's README). Each line lists every legal move with its exact
//! final disc difference (empties to the winner), best first; it is read at test time.
//!
//! Differential: a plain minimax over `Othello::legal_moves` / `play_unchecked`, written
//! here, on positions with 1-8 empties reached from the FFO boards by pseudo-random play.

use std::collections::BTreeSet;

use parmcts::evaluator::NTupleNetwork;
use parmcts::games::othello::PASS;
use parmcts::solver::othello::MAX_EMPTIES;
use parmcts::solver::{EndgameError, EndgameSolver};
use parmcts::{Game, Move, Othello, Player};

const FFO_1_19: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/othello/fforum-1-19.obf");
const FFO_40_59: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/othello/fforum-40-59.obf");

/// Table size for the tests: 2^18 entries (6 MiB).
const TT_ENTRIES: usize = 1 << 18;

/// One FFO problem: its number, position, and every legal move with its exact score.
struct Problem {
    number: usize,
    game: Othello,
    scores: Vec<(Move, i32)>,
}

fn problems() -> Vec<Problem> {
    let problems = read_problems(FFO_1_19, 1);
    assert_eq!(problems.len(), 19);
    problems
}

/// The problems of an OBF file, numbered from `first`.
fn read_problems(path: &str, first: usize) -> Vec<Problem> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let game = Othello::parse_position(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let scores = line
                .split(';')
                .skip(1)
                .map(str::trim)
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (mv, score) = pair.split_once(':').unwrap_or_else(|| panic!("bad pair '{pair}'"));
                    (game.parse_move(mv).unwrap(), score.parse().unwrap_or_else(|e| panic!("{pair}: {e}")))
                })
                .collect();
            Problem { number: first + i, game, scores }
        })
        .collect()
}

/// The final score for the side to move of a finished game, empties to the winner.
fn final_score(game: &Othello) -> i32 {
    let (black, white) = game.disc_counts();
    let (me, opp) = match game.side_to_move() {
        Player::One => (black as i32, white as i32),
        Player::Two => (white as i32, black as i32),
    };
    let empties = 64 - me - opp;
    match me.cmp(&opp) {
        std::cmp::Ordering::Greater => me - opp + empties,
        std::cmp::Ordering::Less => me - opp - empties,
        std::cmp::Ordering::Equal => 0,
    }
}

/// Plain minimax over the game's own rules (a forced pass is a move).
fn brute_force(game: &Othello) -> i32 {
    let moves = game.legal_moves();
    if moves.is_empty() {
        return final_score(game);
    }
    moves
        .iter()
        .map(|&mv| {
            let mut child = *game;
            child.play_unchecked(mv);
            -brute_force(&child)
        })
        .max()
        .unwrap()
}

fn empties(game: &Othello) -> u32 {
    let (black, white) = game.disc_counts();
    64 - black - white
}

/// The solver's value of every FFO #1-#19 position is the file's first score, its best
/// move is one the file scores that high, and the weak solve gives the value's sign.
#[test]
fn ffo_1_to_19_values_and_best_moves() {
    let mut solver = EndgameSolver::new(TT_ENTRIES).unwrap();
    for problem in problems() {
        let game = &problem.game;
        let listed: BTreeSet<Move> = problem.scores.iter().map(|&(mv, _)| mv).collect();
        let legal: BTreeSet<Move> = game.legal_moves().into_iter().collect();
        assert_eq!(listed, legal, "FFO #{}: the listed moves are the legal moves", problem.number);
        solver.reset();
        let solution = solver.solve(game).unwrap();
        let value = problem.scores[0].1;
        assert_eq!(solution.score, value, "FFO #{} value", problem.number);
        let best = solution.best_move.expect("a best move");
        let best_listed = problem.scores.iter().find(|&&(mv, _)| mv == best).map(|&(_, s)| s);
        assert_eq!(best_listed, Some(value), "FFO #{}: best move {}", problem.number, game.format_move(best));
        assert!(solution.nodes > 0);
        let weak = solver.solve_weak(game).unwrap();
        assert_eq!(weak.score, value.signum(), "FFO #{} weak", problem.number);
    }
}

/// Every listed move of every FFO #1-#19 position gets its listed score: play it, solve
/// the opponent's position (which may be a forced pass), negate.
#[test]
fn ffo_1_to_19_every_move() {
    let mut solver = EndgameSolver::new(TT_ENTRIES).unwrap();
    for problem in problems() {
        let number = problem.number;
        for &(mv, score) in &problem.scores {
            let mut child = problem.game;
            child.try_play(mv).unwrap();
            let solution = solver.solve(&child).unwrap();
            assert_eq!(-solution.score, score, "FFO #{number}, move {}", problem.game.format_move(mv));
        }
    }
}

/// The network's move ordering (the default) changes the nodes a solve visits, never its
/// score: FFO #1-#19 solved with it and with mobility alone give the published values,
/// and the network visits fewer nodes in all (it orders the nodes of 14 or more
/// empties).
#[test]
fn the_network_ordering_keeps_the_scores_and_visits_fewer_nodes() {
    let mut solver = EndgameSolver::new(TT_ENTRIES).unwrap();
    let mut nodes = [0u64; 2];
    for problem in problems() {
        for (with_network, nodes) in nodes.iter_mut().enumerate() {
            let network = (with_network == 1).then(|| NTupleNetwork::shipped::<Othello>().unwrap().unwrap());
            solver.set_network(network);
            solver.reset();
            let solution = solver.solve(&problem.game).unwrap();
            assert_eq!(solution.score, problem.scores[0].1, "FFO #{} (network: {with_network})", problem.number);
            *nodes += solution.nodes;
        }
    }
    assert!(nodes[1] < nodes[0], "nodes with the network {} against {} by mobility", nodes[1], nodes[0]);
}

/// Solves FFO problems to their published values (`fforum-40-59.obf`, the same
/// provenance as #1-#19): #40 in full (its value and a best move the file scores that
/// high), the others proved exact by a search in the window `(v - 1, v + 1)` around the
/// published value `v` (scores are even, so only the exact value lands inside it).
fn check_ffo_40_59(numbers: std::ops::RangeInclusive<usize>) {
    let problems = read_problems(FFO_40_59, 40);
    assert_eq!(problems.len(), 20);
    let mut solver = EndgameSolver::new(1 << 20).unwrap();
    for problem in problems.iter().filter(|p| numbers.contains(&p.number)) {
        let value = problem.scores[0].1;
        solver.reset();
        if problem.number == 40 {
            let solution = solver.solve(&problem.game).unwrap();
            assert_eq!(solution.score, value, "FFO #40 value");
            let best = solution.best_move.expect("a best move");
            let listed = problem.scores.iter().find(|&&(mv, _)| mv == best).map(|&(_, s)| s);
            assert_eq!(listed, Some(value), "FFO #40 best move {}", problem.game.format_move(best));
        } else {
            let solution = solver.solve_window(&problem.game, value - 1, value + 1).unwrap();
            assert_eq!(solution.score, value, "FFO #{} value", problem.number);
        }
    }
}

/// FFO #40-#41 (20 and 22 empties), the first of the standard benchmark: about 16 M and
/// 23 M nodes.
#[test]
fn ffo_40_41_published_values() {
    check_ffo_40_59(40..=41);
}

/// FFO #42-#44 (22-23 empties): 30-70 M nodes each, some seconds in the `test-release`
/// profile.
#[test]
fn ffo_42_to_44_published_values() {
    check_ffo_40_59(42..=44);
}

/// FFO #45-#59 (24-34 empties): from 0.1 G to some 25 G nodes each (#55), an hour in all
/// on one core of the 2-vCPU machine (3,631 s, docs/RESULTS.md): `cargo nextest run
/// --cargo-profile test-release --run-ignored only ffo_45`.
#[test]
#[ignore = "long: FFO #45-#59, about an hour"]
fn ffo_45_to_59_published_values() {
    check_ffo_40_59(45..=59);
}

/// A xorshift64 step: the pseudo-random play that reaches the small endgames.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// On positions with 1-8 empties (pseudo-random play from the FFO boards), the solver
/// agrees with brute force: the value, the value of its best move, the weak sign, and
/// fail-soft bounds from narrow windows. Root passes and finished games must occur.
#[test]
fn small_endgames_match_brute_force() {
    let mut solver = EndgameSolver::new(1 << 12).unwrap();
    let (mut checked, mut root_passes, mut finished) = (0, 0, 0);
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    for problem in problems() {
        for _ in 0..3 {
            let mut game = problem.game;
            let target = 1 + (next(&mut state) % 8) as u32;
            while empties(&game) > target && !game.legal_moves().is_empty() {
                let moves = game.legal_moves();
                game.play_unchecked(moves[(next(&mut state) % moves.len() as u64) as usize]);
            }
            let value = brute_force(&game);
            let solution = solver.solve(&game).unwrap();
            assert_eq!(solution.score, value, "{game:?}");
            match solution.best_move {
                None => {
                    assert!(game.legal_moves().is_empty(), "{game:?}: no move but not over");
                    finished += 1;
                }
                Some(mv) => {
                    assert!(game.legal_moves().contains(&mv), "{game:?}: illegal best move");
                    if mv == PASS {
                        root_passes += 1;
                    }
                    let mut child = game;
                    child.play_unchecked(mv);
                    assert_eq!(-brute_force(&child), value, "{game:?}: best move {}", game.format_move(mv));
                }
            }
            assert_eq!(solver.solve_weak(&game).unwrap().score, value.signum(), "{game:?} weak");
            for (alpha, beta) in
                [(value - 2, value + 2), (value, value + 1), (value - 1, value), (value + 2, value + 4)]
            {
                let score = solver.solve_window(&game, alpha, beta).unwrap().score;
                if value <= alpha {
                    assert!(value <= score && score <= alpha, "{game:?} ({alpha}, {beta}): {score}");
                } else if value >= beta {
                    assert!(beta <= score && score <= value, "{game:?} ({alpha}, {beta}): {score}");
                } else {
                    assert_eq!(score, value, "{game:?} ({alpha}, {beta})");
                }
            }
            checked += 1;
        }
    }
    // Hand-made: Black to move at b1 cannot flip, White can (a1 … h1): Black must pass.
    let white = 1 | 1 << 7;
    let game = Othello::from_bitboards(!(white | 0b10), white, Player::One).unwrap();
    assert_eq!(game.legal_moves().as_slice(), [PASS]);
    let solution = solver.solve(&game).unwrap();
    assert_eq!((solution.score, solution.best_move), (48, Some(PASS)));
    assert_eq!(brute_force(&game), 48);
    // Hand-made: b1 and c1 empty, nobody can play them: over, Black 61-1 plus 2 empties.
    for (to_move, score) in [(Player::One, 62), (Player::Two, -62)] {
        let game = Othello::from_bitboards(!0b111, 1, to_move).unwrap();
        let solution = solver.solve(&game).unwrap();
        assert_eq!((solution.score, solution.best_move), (score, None));
        assert_eq!(brute_force(&game), score);
    }
    println!("{checked} positions, {root_passes} root passes, {finished} finished games");
    assert_eq!(checked, 57);
    assert!(root_passes > 0 && finished > 0, "the random positions cover root passes and finished games");
}

/// Too many empties, an empty table and an empty window are errors, not long runs or
/// panics.
#[test]
fn bad_inputs_are_errors() {
    let mut solver = EndgameSolver::new(16).unwrap();
    let start = Othello::new();
    assert_eq!(solver.solve(&start), Err(EndgameError::TooManyEmpties { empties: 60, max: MAX_EMPTIES }));
    assert!(matches!(EndgameSolver::new(0), Err(EndgameError::BadTableSize(0))));
    let problem = &problems()[0];
    assert_eq!(solver.solve_window(&problem.game, 4, 4), Err(EndgameError::BadWindow { alpha: 4, beta: 4 }));
}

#[test]
fn a_budgeted_solve_gives_up_cleanly_and_leaves_the_table_exact() {
    let problems = problems();
    let mut solver = EndgameSolver::new(TT_ENTRIES).unwrap();
    for p in &problems[..6] {
        let best = p.scores.iter().map(|&(_, s)| s).max().unwrap();
        // Far too few nodes for 14+ empties: it gives up.
        assert_eq!(solver.solve_within(&p.game, 50).unwrap(), None, "FFO #{}", p.number);
        // Enough nodes: the weak value, and a move that keeps it.
        let solved = solver.solve_within(&p.game, u64::MAX).unwrap().expect("solved");
        assert_eq!(solved.score, best.signum(), "FFO #{}", p.number);
        let mv = solved.best_move.unwrap();
        let kept = p.scores.iter().find(|&&(m, _)| m == mv).unwrap().1;
        assert_eq!(kept.signum(), best.signum(), "FFO #{}: {}", p.number, p.game.format_move(mv));
        // The abandoned solves stored nothing wrong: exact scores still come out.
        assert_eq!(solver.solve(&p.game).unwrap().score, best, "FFO #{}", p.number);
    }
}

#[test]
fn the_search_plays_the_endgame_solvers_move_and_its_proofs_reach_down_to_it() {
    use parmcts::{Endgame, Proof, Search, SearchConfig};
    for p in &problems()[..4] {
        let best = p.scores.iter().map(|&(_, s)| s).max().unwrap();
        let keeps = |mv: Move| p.scores.iter().find(|&&(m, _)| m == mv).unwrap().1.signum() == best.signum();
        let expected = match best.signum() {
            1 => Proof::Win,
            0 => Proof::Draw,
            _ => Proof::Loss,
        };
        // Before searching: the solver settles the root within its budget.
        assert!(p.game.solve_endgame(10_000_000).is_some());
        let config = SearchConfig::builder().playouts(1_000).endgame(10_000_000).build().unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&p.game).unwrap();
        if best >= 0 {
            assert_eq!((result.playouts, result.proof), (0, expected), "FFO #{}", p.number);
        }
        assert!(keeps(result.best_move.unwrap()), "FFO #{}", p.number);
        search.check_invariants().unwrap();
        // Inside the tree: with the MCTS-Solver, nodes the solver settles at expansion
        // are proven leaves, and the root is proven from them long before the budget.
        let config = SearchConfig::builder().playouts(1_000_000).solver(true).endgame_leaf(20_000).build().unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&p.game).unwrap();
        assert_eq!(result.proof, expected, "FFO #{}", p.number);
        assert!(result.playouts < 1_000_000, "FFO #{}: {} playouts", p.number, result.playouts);
        assert!(keeps(result.best_move.unwrap()), "FFO #{}", p.number);
        search.check_invariants().unwrap();
        // Every proof in the tree, the solver's leaves included, checked against the game.
        assert!(search.check_proofs(&p.game).unwrap() > 0);
    }
}
