//! The game review (`parmcts::harness::connect4::review`) on games whose every move is known: played out
//! from Pons's benchmark positions (`tests/data/connect4/`) by the exact solver, perfect
//! but for chosen moves that throw the mover's class away. The review must charge those
//! moves, and only those, to the spec that made them.

use parmcts::harness::connect4::review::{parse_records, review, ReviewConfig, ReviewError};
use parmcts::solver::Solver;
use parmcts::{ConnectFour, Game, Move, Outcome};

const MIDDLE_EASY: &str = include_str!("data/connect4/Test_L2_R1");

/// The mover's class (1, 0, -1) after `mv`, solved afresh.
fn class_after(solver: &mut Solver, game: &ConnectFour, mv: Move) -> i32 {
    let mut child = *game;
    child.play_unchecked(mv);
    match child.outcome() {
        Some(Outcome::Win(_)) => 1,
        Some(Outcome::Draw) => 0,
        None => -solver.solve_score(&child, true).unwrap().0.signum(),
    }
}

/// Plays `start` out: a move keeping the mover's class at every ply, except at the plies
/// in `blunders` (counted from `start`), where the mover takes a move that worsens its
/// class if one exists. Returns the record line (`p1` moving first when `p1_first`) and
/// the plies of the moves that did worsen it.
fn play_out(start: &str, blunders: &[usize], p1_first: bool, solver: &mut Solver) -> (String, Vec<usize>) {
    let mut game = ConnectFour::parse_position(start).unwrap();
    let mut moves = Vec::new();
    let mut thrown = Vec::new();
    while game.outcome().is_none() {
        let legal = game.legal_moves();
        let classes: Vec<(Move, i32)> = legal.as_ref().iter().map(|&m| (m, class_after(solver, &game, m))).collect();
        let best = classes.iter().map(|c| c.1).max().unwrap();
        let worse = classes.iter().find(|c| c.1 < best);
        let (mv, _) = match worse {
            Some(&w) if blunders.contains(&moves.len()) => {
                thrown.push(start.len() + moves.len());
                w
            }
            _ => *classes.iter().find(|c| c.1 == best).unwrap(),
        };
        moves.push(game.format_move(mv));
        game.play_unchecked(mv);
    }
    let first_result = match game.outcome().unwrap() {
        Outcome::Win(p) if p == ConnectFour::new().side_to_move() => 1,
        Outcome::Win(_) => -1,
        Outcome::Draw => 0,
    };
    let p1_result = if p1_first { first_result } else { -first_result };
    let result = ["p2", "draw", "p1"][(p1_result + 1) as usize];
    let opening: Vec<String> = start.chars().map(String::from).collect();
    let record = serde_json::json!({
        "opening": opening, "moves": moves, "result": result, "p1_first": p1_first,
        "players": ["mcts:playouts=2", "mcts:playouts=1"], "ending": "rules",
    });
    (record.to_string(), thrown)
}

#[test]
fn perfect_games_have_no_value_losing_move_and_end_as_solved() {
    let mut solver = Solver::new(1 << 20).unwrap();
    for (i, line) in MIDDLE_EASY.lines().take(6).enumerate() {
        let start = line.split_whitespace().next().unwrap();
        let (record, _) = play_out(start, &[], i % 2 == 0, &mut solver);
        let games = parse_records(&record, "perfect").unwrap();
        // Judged from the game's start, where perfect play begins.
        let config = ReviewConfig { from_ply: start.len(), parallel: 2, ..ReviewConfig::default() };
        let report = review(&games, &config, |_| {}).unwrap();
        assert_eq!(report.judged, 1);
        assert_eq!(report.errors, [0, 0], "{start}: {report:?}");
        assert_eq!(report.as_solved(), 1, "{start}: a perfect game ends as solved: {:?}", report.outcomes);
    }
}

#[test]
fn thrown_away_classes_are_charged_to_the_spec_that_threw_them() {
    let mut solver = Solver::new(1 << 20).unwrap();
    let mut expected = [0u64; 2];
    let mut lines = Vec::new();
    let mut starts = Vec::new();
    for (i, line) in MIDDLE_EASY.lines().skip(10).take(8).enumerate() {
        let start = line.split_whitespace().next().unwrap();
        let p1_first = i % 3 != 0;
        let (record, thrown) = play_out(start, &[0, 3], p1_first, &mut solver);
        for ply in thrown {
            // The first player moves at even plies.
            let spec = usize::from((ply.is_multiple_of(2)) != p1_first);
            expected[spec] += 1;
        }
        starts.push(start.len());
        lines.push(record);
    }
    assert!(expected[0] > 0 && expected[1] > 0 && expected[0] + expected[1] >= 8, "the blunders: {expected:?}");
    // Every game is judged from its own start: review them one at a time.
    let mut errors = [0u64; 2];
    for (line, from_ply) in lines.iter().zip(starts) {
        let games = parse_records(line, "blunders").unwrap();
        let report = review(&games, &ReviewConfig { from_ply, ..ReviewConfig::default() }, |_| {}).unwrap();
        errors[0] += report.errors[0];
        errors[1] += report.errors[1];
        let moves: u64 = report.moves.iter().sum();
        assert_eq!(moves as usize, games[0].sequence.len() - from_ply);
    }
    assert_eq!(errors, expected);
}

#[test]
fn bad_records_are_errors_naming_the_line() {
    let good =
        r#"{"opening":["1","2"],"moves":["1","2","1","2","1"],"result":"p1","p1_first":true,"players":["a","b"]}"#;
    let games = parse_records(good, "ok").unwrap();
    assert_eq!((games[0].sequence.as_str(), games[0].first_result), ("1212121", 1));
    let wrong_result = good.replace(r#""result":"p1""#, r#""result":"p2""#);
    let illegal = good.replace(r#"["1","2","1","2","1"]"#, r#"["1","2","1","2","1","1"]"#);
    let other_players = good.replace(r#"["a","b"]"#, r#"["a","c"]"#);
    for (text, want) in [
        ("not json".to_string(), "line 1: not a game record"),
        (wrong_result, "line 1: 1212121: the board's result is not the record's 'p2'"),
        (illegal, "line 1: 12121211"),
        (good.replace("\"p1\",", "\"p3\","), "line 1: result 'p3'"),
        (format!("{good}\n{other_players}"), "line 2: the game is between other players"),
        ("\n\n".to_string(), "no games"),
    ] {
        let error = parse_records(&text, "f").unwrap_err().to_string();
        assert!(error.contains(want), "{error} should contain {want}");
    }
    let zero = ReviewConfig { parallel: 0, ..ReviewConfig::default() };
    assert_eq!(review(&games, &zero, |_| {}).unwrap_err(), ReviewError::ZeroParallel);
    // A game shorter than the first ply judged is read but not judged.
    let report = review(&games, &ReviewConfig { from_ply: 7, ..ReviewConfig::default() }, |_| {}).unwrap();
    assert_eq!((report.games, report.judged), (1, 0));
}
