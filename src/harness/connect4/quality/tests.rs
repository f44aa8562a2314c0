//! Unit tests of the score classes, the positions parser and the solver's view of a move.

use super::*;

#[test]
fn classes_and_what_keeps_them() {
    assert_eq!((Class::of(3), Class::of(0), Class::of(-1)), (Class::Won, Class::Drawn, Class::Lost));
    assert!(Class::Won.kept_by(1) && !Class::Won.kept_by(0));
    assert!(Class::Drawn.kept_by(0) && Class::Drawn.kept_by(2) && !Class::Drawn.kept_by(-1));
}

#[test]
fn malformed_lines_name_source_and_line() {
    let cases = [
        ("4453 1\n\n12 x\n", 3, "bad score 'x'"),
        ("4453\n", 1, "expected"),
        ("4453 1 2\n", 1, "expected"),
        ("4458 1\n", 1, "8"),
        ("1212121 5\n", 1, "already over"),
        ("44 40\n", 1, "out of range"),
    ];
    for (text, line, needle) in cases {
        let e = parse_positions(text, "f.txt", None).unwrap_err();
        assert!(matches!(&e, QualityError::Malformed { line: l, .. } if *l == line), "{text}: {e:?}");
        let message = e.to_string();
        assert!(message.starts_with(&format!("f.txt, line {line}:")), "{message}");
        assert!(message.contains(needle), "{message}");
    }
    assert_eq!(parse_positions("\n\n", "f", None), Err(QualityError::NoPositions { source: "f".into() }));
    // The limit stops reading before a bad line.
    assert_eq!(parse_positions("4453 1\n12 x\n", "f", Some(1)).unwrap().len(), 1);
}

#[test]
fn a_winning_move_scores_as_a_win_on_the_next_move() {
    let mut solver = Solver::new(1 << 10).unwrap();
    let game = ConnectFour::parse_position("112233").unwrap();
    assert_eq!(score_after(&game, Move(3), &mut solver), Some(18));
    assert_eq!(score_after(&game, Move(9), &mut solver), None);
    // Not blocking the three in a row loses at once: the opponent's 4th disc.
    let reply = ConnectFour::parse_position("11223").unwrap();
    assert_eq!(score_after(&reply, Move(6), &mut solver), Some(-18));
}
