//! Expectimax with Star1 pruning against its reference (plain expectimax), a hand-checked
//! EinStein expectation, and the `expectimax:` player on the command line.
//!
//! * Differential: on hundreds of random positions per game (random play of random
//!   length from the start, the die rolled uniformly at chance turns, fixed seed),
//!   `Expectimax` at depth `d` returns `expectimax(d)`'s value within 1e-9, and its move
//!   is worth that value ([`move_values`]).
//! * Oracle: an EinStein position whose expectation is worked out by hand.
//! * Pruning: Star1 visits fewer positions than plain expectimax.

mod common;

use std::process::Command;
use std::time::Duration;

use common::random_positions;
use parmcts::alphabeta::Limits;
use parmcts::expectimax::{
    expectimax, expectimax_counted, move_values, Expectimax, ExpectimaxError, PLY_DISCOUNT, WIN,
};
use parmcts::{ConnectFour, Einstein, Game, Player, TicTacToe, Turn};

/// Tolerance of the differential: Star1 and the reference add the same terms in the
/// same order, so they agree far closer than this.
const TOLERANCE: f64 = 1e-9;

/// Star1 (one searcher reused over every position) equals plain expectimax at each
/// depth, and its move is worth that value; returns (Star1 nodes, plain nodes) at
/// `max_depth`, summed over the positions.
fn check_against_expectimax<G: parmcts::alphabeta::Evaluate>(
    seed: u64,
    count: usize,
    max_len: u32,
    max_depth: u32,
) -> (u64, u64) {
    let mut search = Expectimax::new();
    let (mut star1_nodes, mut plain_nodes) = (0, 0);
    let mut chance_roots = 0;
    for (i, game) in random_positions::<G>(seed, count, max_len).iter().enumerate() {
        chance_roots += usize::from(game.turn() == Turn::Chance);
        for depth in 1..=max_depth {
            let (expected, expected_move, nodes) = expectimax_counted(game, depth);
            let result = search.search(game, Limits::depth(depth)).unwrap();
            let context = || format!("{} position {i} depth {depth}:\n{}", G::NAME, game.render());
            assert!((result.value - expected).abs() < TOLERANCE, "{} vs {expected}: {}", result.value, context());
            assert_eq!(result.best_move.is_some(), expected_move.is_some(), "{}", context());
            if let Some(best) = result.best_move {
                let values = move_values(game, depth);
                let value = values.iter().find(|&&(mv, _)| mv == best).map(|&(_, v)| v);
                let value = value.unwrap_or_else(|| panic!("illegal move: {}", context()));
                assert!((value - expected).abs() < TOLERANCE, "the move is worth {value}: {}", context());
            }
            assert!(result.depth_reached <= depth && result.nodes > 0);
            if depth == max_depth {
                star1_nodes += result.nodes;
                plain_nodes += nodes;
            }
        }
    }
    if G::HAS_CHANCE {
        assert!(chance_roots > count / 4 && chance_roots < count * 3 / 4, "{chance_roots} chance roots");
    }
    (star1_nodes, plain_nodes)
}

#[test]
fn einstein_star1_equals_expectimax() {
    check_against_expectimax::<Einstein>(1, 300, 40, 3);
}

#[test]
fn tictactoe_star1_equals_expectimax() {
    check_against_expectimax::<TicTacToe>(2, 300, 7, 4);
}

#[test]
fn connect4_star1_equals_expectimax() {
    check_against_expectimax::<ConnectFour>(3, 200, 36, 4);
}

/// Star1 visits fewer positions than plain expectimax at depth 3 on EinStein, its
/// iterations 1 and 2 included. Measured on 2026-11-25 on these 100 positions: 420,270
/// positions against 598,806, a ratio of 0.70 (0.83 before the static move ordering at
/// depth 2 and above). Star1's bounds `L = −1`, `U = +1` are loose against typical values
/// near ±0.3, so a chance node is rarely cut before most of its rolls are searched.
#[test]
fn einstein_star1_prunes() {
    let (star1, plain) = check_against_expectimax::<Einstein>(4, 100, 40, 3);
    assert!(star1 * 10 < plain * 8, "Star1 {star1} nodes, plain {plain}");
}

/// Red to roll with piece 1 on d4, next to Blue's corner e5, and piece 6 on e1; Blue's
/// only piece is on b1, next to Red's corner a1. Rolls 1-5 let Red move piece 1 (rolls
/// 2-5 name captured pieces, whose neighbours are 1 and 6) and win at once; roll 6 forces
/// 6e2, and then Blue, whatever it rolls, moves its one piece to a1 and wins. So the
/// value for Red is `5/6 · w(1) − 1/6 · w(2)` with `w(n) = 1 − PLY_DISCOUNT · n`, the win
/// discounted by the player plies from the root.
fn five_rolls_win() -> Einstein {
    Einstein::from_pieces(&["1d4", "6e1"], &["1b1"], Player::One).unwrap()
}

#[test]
fn einstein_expectation_by_hand() {
    let game = five_rolls_win();
    let w = |plies: f64| WIN - PLY_DISCOUNT * plies;
    let by_hand = 5.0 / 6.0 * w(1.0) - 1.0 / 6.0 * w(2.0);
    for depth in 2..=4 {
        let (value, best) = expectimax(&game, depth);
        assert!((value - by_hand).abs() < 1e-12, "depth {depth}: {value} vs {by_hand}");
        assert_eq!(best, None, "a chance root has no move");
        let result = Expectimax::new().search(&game, Limits::depth(depth)).unwrap();
        assert!((result.value - by_hand).abs() < 1e-12, "depth {depth}: {}", result.value);
        assert_eq!(result.best_move, None);
    }
    // At depth 1 the roll of 6 ends at the cut-off: a heuristic, not Blue's win.
    assert!(expectimax(&game, 1).0 > by_hand);
    // After the 6, Red's one move loses to Blue's next.
    let mut six = game;
    six.play_sequence("d6").unwrap();
    let result = Expectimax::new().search(&six, Limits::depth(2)).unwrap();
    assert_eq!(result.best_move, Some(six.parse_move("6e2").unwrap()));
    assert!((result.value + w(2.0)).abs() < 1e-12, "{}", result.value);
}

#[test]
fn finds_an_immediate_win() {
    for roll in ["d1", "d3", "d5"] {
        let mut game = five_rolls_win();
        game.play_sequence(roll).unwrap();
        let win = game.parse_move("1e5").unwrap();
        for limits in [Limits::depth(1), Limits::depth(4), Limits::time(Duration::from_millis(20))] {
            let result = Expectimax::new().search(&game, limits).unwrap();
            assert_eq!(result.best_move, Some(win), "{roll} {limits:?}");
            assert_eq!(result.value, WIN - PLY_DISCOUNT, "{roll} {limits:?}");
        }
    }
}

#[test]
fn time_limited_search_returns_a_legal_move() {
    let mut game = Einstein::new();
    game.play_sequence("d4").unwrap();
    let mut search = Expectimax::new();
    let result = search.search(&game, Limits::time(Duration::from_millis(50))).unwrap();
    assert!(game.legal_moves().as_ref().contains(&result.best_move.unwrap()));
    assert!(result.depth_reached >= 1);
    assert!(result.elapsed < Duration::from_secs(2), "took {:?}", result.elapsed);
    let both = Limits { max_depth: Some(2), time: Some(Duration::from_secs(10)) };
    assert_eq!(search.search(&game, both).unwrap().depth_reached, 2);
}

#[test]
fn bad_limits_and_finished_games_are_errors() {
    let mut search = Expectimax::new();
    let game = Einstein::new();
    assert_eq!(search.search(&game, Limits::default()), Err(ExpectimaxError::NoLimit));
    assert_eq!(search.search(&game, Limits::depth(0)), Err(ExpectimaxError::ZeroDepth));
    assert_eq!(search.search(&game, Limits::depth(65)), Err(ExpectimaxError::TooDeep(65)));
    assert_eq!(search.search(&game, Limits::time(Duration::ZERO)), Err(ExpectimaxError::ZeroTime));
    let won = Einstein::from_pieces(&["1e5"], &["1b1"], Player::Two).unwrap();
    assert_eq!(search.search(&won, Limits::depth(3)), Err(ExpectimaxError::GameOver));
    assert!(!ExpectimaxError::NoLimit.to_string().is_empty());
}

fn parmcts(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_parmcts")).args(args).output().unwrap()
}

/// `expectimax:depth=2` beats the random player in EinStein. Measured on 2026-11-25:
/// 0.95 over these 20 games (seed 1), 0.95 or 1.0 over 20 games for each seed 1-8,
/// 0.955 [0.917, 0.976] over 200 games (seed 1), and 0.915-0.935 over 400 games (seed 2)
/// at each depth 1-4. A correct player stays above 0.8 with room to spare; one that
/// ignored its search would score about 0.5.
#[test]
fn expectimax_player_beats_random_at_einstein() {
    let args = ["match", "--game", "einstein", "--p1", "expectimax:depth=2", "--p2", "random"];
    let out = parmcts(&[&args[..], &["--games", "20", "--seed", "1", "--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["games"], 20);
    let score = report["score"].as_f64().unwrap();
    assert!(score >= 0.8, "score {score}");
}

#[test]
fn bad_expectimax_specs_exit_with_code_2() {
    for (spec, needle) in [
        ("expectimax:depth=0", "depth must be at least 1"),
        ("expectimax:time-ms=0", "time-ms must be at least 1"),
        ("expectimax", "expectimax needs depth=D or time-ms=T"),
        ("expectimax:depth=2,tt-mb=4", "unknown option 'tt-mb' for expectimax"),
        ("expectimax:depth=65", "depth must be at most 64"),
    ] {
        let out = parmcts(&["match", "--game", "einstein", "--p1", spec, "--p2", "random", "--games", "2"]);
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(needle) && stderr.contains("--p1"), "{spec}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{spec}: {stderr}");
    }
}

/// The node counts of plain expectimax and Star1 at depths 1-4 from the start position
/// after each roll, printed as a table (Star1's count covers its iterations 1 to `d`):
/// `cargo test --test expectimax -- --ignored --nocapture` (ignored: depth 4 takes a
/// while in a debug build).
#[test]
#[ignore]
fn einstein_nodes_from_the_start() {
    println!("roll depth plain star1 ratio");
    for depth in 1..=4 {
        let (mut plain_total, mut star1_total) = (0, 0);
        for face in 1..=6 {
            let mut game = Einstein::new();
            game.play_sequence(&format!("d{face}")).unwrap();
            let (value, _, plain) = expectimax_counted(&game, depth);
            let result = Expectimax::new().search(&game, Limits::depth(depth)).unwrap();
            assert!((result.value - value).abs() < TOLERANCE);
            assert!(result.nodes <= plain, "d{face} depth {depth}");
            println!("d{face} {depth} {plain} {} {:.3}", result.nodes, result.nodes as f64 / plain as f64);
            plain_total += plain;
            star1_total += result.nodes;
        }
        println!("all {depth} {plain_total} {star1_total} {:.3}", star1_total as f64 / plain_total as f64);
    }
}

/// The `expectimax:` spec: its limits, its time budget, and a player that moves legally
/// (built only with the game's evaluation).
#[test]
fn expectimax_specs_build_players() {
    use parmcts::harness::players::{PlayerError, PlayerSpec};
    let spec = PlayerSpec::parse("expectimax:depth=3,time-ms=150").unwrap();
    let limits = Limits { max_depth: Some(3), time: Some(Duration::from_millis(150)) };
    assert_eq!(spec, PlayerSpec::Expectimax { limits });
    assert_eq!(spec.time_budget(), Some(Duration::from_millis(150)));
    assert_eq!(PlayerSpec::parse("expectimax:depth=3").unwrap().time_budget(), None);
    assert!(matches!(spec.build::<Einstein>(0), Err(PlayerError::NeedsEvaluation("expectimax"))));
    let mut player = PlayerSpec::parse("expectimax:depth=2").unwrap().build_with_evaluation::<Einstein>(0).unwrap();
    let mut game = Einstein::new();
    assert!(matches!(player.choose(&game), Err(PlayerError::ChanceToMove)));
    game.play_sequence("d2").unwrap();
    let mv = player.choose(&game).unwrap();
    assert!(game.legal_moves().as_ref().contains(&mv));
}
