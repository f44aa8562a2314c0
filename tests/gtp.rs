//! The GTP engine over in-memory input: every command with its errors, ids echoed, whole
//! Othello games through `genmove` and `play` scored against the board, resigning and the
//! clock (the fuzz test is in `gtp_fuzz.rs`; Go, Hex and game records in `gtp_games.rs`).

mod common;

use std::time::{Duration, Instant};

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use common::gtp::{ask, engine, engine_with, fails, ok};
use parmcts::games::othello::PASS;
use parmcts::gtp::engine::COMMANDS;
use parmcts::gtp::protocol::{RawLine, MAX_LINE};
use parmcts::gtp::{Engine, EngineConfig, GtpGame};
use parmcts::{Endgame, Game, GameKind, Move, Othello, Outcome, Player, SearchConfig};

#[test]
fn administrative_commands_and_ids() {
    let mut e = engine("10");
    assert_eq!(ask(&mut e, "protocol_version"), "= 2\n\n");
    assert_eq!(ask(&mut e, "12 protocol_version"), "=12 2\n\n");
    assert_eq!(ask(&mut e, "name"), "= parmcts\n\n");
    assert_eq!(ok(&mut e, "version"), env!("CARGO_PKG_VERSION"));
    assert_eq!(ok(&mut e, "known_command genmove"), "true");
    assert_eq!(ok(&mut e, "known_command kgs-time_settings"), "true");
    assert_eq!(ok(&mut e, "known_command dance"), "false");
    let list = ask(&mut e, "4 list_commands");
    assert!(list.starts_with("=4 protocol_version\n"), "{list:?}");
    let listed: Vec<&str> = list[3..].trim_end().lines().collect();
    assert_eq!(listed, COMMANDS);
    // Errors echo the id too.
    assert_eq!(ask(&mut e, "7 dance"), "?7 unknown command 'dance'\n\n");
    fails(&mut e, "8", "no command");
    fails(&mut e, "name extra", "syntax error");
    // Comments, blank lines, tabs and carriage returns (section 3.1).
    assert_eq!(e.respond(&RawLine::Line(b"# just a comment".to_vec())), None);
    assert_eq!(e.respond(&RawLine::Line(b" \t \r".to_vec())), None);
    assert_eq!(ask(&mut e, "3\tname # who?\r"), "=3 parmcts\n\n");
    fails(&mut e, "pro\u{fffd}tocol_version", "unknown command");
    assert_eq!(e.respond(&RawLine::TooLong).unwrap(), format!("? line too long (over {MAX_LINE} bytes)\n\n"));
    assert_eq!(ask(&mut e, "quit"), "= \n\n");
    assert!(e.has_quit());
}

#[test]
fn setup_commands_and_their_errors() {
    let mut e = engine("10");
    ok(&mut e, "boardsize 8");
    assert_eq!(ask(&mut e, "boardsize 19"), "? unacceptable size 19\n\n");
    fails(&mut e, "boardsize eight", "syntax error");
    fails(&mut e, "boardsize", "syntax error");
    ok(&mut e, "clear_board");
    ok(&mut e, "komi 6.5");
    ok(&mut e, "komi 0");
    fails(&mut e, "komi lots", "syntax error");
    fails(&mut e, "komi nan", "syntax error");
    ok(&mut e, "time_settings 0 0 0");
    ok(&mut e, "time_settings 300 30 10");
    fails(&mut e, "time_settings -1 0 0", "syntax error");
    fails(&mut e, "time_settings 300 30", "syntax error");
    ok(&mut e, "time_left b 120 0");
    ok(&mut e, "time_left WHITE 25 3");
    fails(&mut e, "time_left red 25 3", "invalid color");
    fails(&mut e, "time_left b 25 -3", "syntax error");
    for settings in ["none", "absolute 600", "byoyomi 600 30 5", "canadian 600 60 20", "ByoYomi 0 10 1"] {
        ok(&mut e, &format!("kgs-time_settings {settings}"));
    }
    for bad in ["", "absolute", "byoyomi 600 30", "fischer 600 10", "none 5"] {
        fails(&mut e, &format!("kgs-time_settings {bad}"), "syntax error");
    }
    assert_eq!(ok(&mut e, "final_status_list dead"), "");
    assert_eq!(ok(&mut e, "final_status_list ALIVE"), "");
    fails(&mut e, "final_status_list sleeping", "syntax error");
}

#[test]
fn play_undo_showboard_and_score() {
    let mut e = engine("10");
    fails(&mut e, "undo", "cannot undo");
    assert_eq!(ok(&mut e, "final_score"), "0");
    let start = ask(&mut e, "showboard");
    assert!(start.starts_with("=\n  a b c d e f g h\n"), "{start:?}");
    assert!(start.contains("Black (X) to move"), "{start:?}");
    fails(&mut e, "play x d3", "invalid color");
    fails(&mut e, "play b z9", "invalid vertex");
    fails(&mut e, "play b", "syntax error");
    assert_eq!(ask(&mut e, "play b a1"), "? illegal move a1\n\n");
    // Black has moves: its pass is illegal, and White may not move.
    fails(&mut e, "play b pass", "illegal move");
    assert_eq!(ask(&mut e, "play w c3"), "? illegal move c3 (not white's turn)\n\n");
    ok(&mut e, "play B D3");
    fails(&mut e, "play w d3", "illegal move");
    assert_eq!(ok(&mut e, "final_score"), "B+3");
    ok(&mut e, "play white c3");
    assert_eq!(ok(&mut e, "final_score"), "0");
    ok(&mut e, "undo");
    ok(&mut e, "undo");
    assert_eq!(ask(&mut e, "showboard"), start);
    fails(&mut e, "undo", "cannot undo");
    // reg_genmove names a move without playing it.
    let mv = ok(&mut e, "reg_genmove b");
    assert!(["d3", "c4", "f5", "e6"].contains(&mv.as_str()), "{mv}");
    assert_eq!(ask(&mut e, "showboard"), start);
    assert_eq!(ask(&mut e, "genmove w"), "? illegal move (not white's turn)\n\n");
    let mv = ok(&mut e, "genmove black");
    assert!(["d3", "c4", "f5", "e6"].contains(&mv.as_str()), "{mv}");
    assert_ne!(ask(&mut e, "showboard"), start);
    ok(&mut e, "clear_board");
    assert_eq!(ask(&mut e, "showboard"), start);
    ok(&mut e, &format!("play b {mv}"));
    ok(&mut e, "boardsize 8");
    assert_eq!(ask(&mut e, "showboard"), start);
}

/// The score `final_score` must give: discs, the empties to the winner.
fn expected_score(game: &Othello) -> String {
    let (b, w) = game.disc_counts();
    let empties = 64 - i64::from(b + w);
    let margin = i64::from(b) - i64::from(w)
        + match game.outcome() {
            Some(Outcome::Win(Player::One)) => empties,
            Some(Outcome::Win(Player::Two)) => -empties,
            _ => 0,
        };
    match margin {
        0 => "0".to_string(),
        m if m > 0 => format!("B+{m}"),
        m => format!("W+{}", -m),
    }
}

fn colour(player: Player) -> &'static str {
    match player {
        Player::One => "b",
        Player::Two => "w",
    }
}

/// Whole games: the engine (Black) by `genmove`, random replies (White) by `play`, a
/// local board following both; every answer legal, the final score the board's.
#[test]
fn whole_games_through_genmove_and_play() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for game_index in 0..3 {
        let mut e = engine("50");
        let mut board = Othello::new();
        let mut plies = 0;
        while board.outcome().is_none() {
            let to_move = board.side_to_move();
            let mv = if to_move == Player::One {
                let answer = ok(&mut e, "genmove b");
                board.parse_move(&answer).unwrap_or_else(|_| panic!("game {game_index}: genmove answered {answer}"))
            } else {
                let moves = board.legal_moves();
                let mv = moves.as_ref()[(rng.next_u32() as usize) % moves.as_ref().len()];
                ok(&mut e, &format!("play w {}", board.format_move(mv)));
                mv
            };
            board.try_play(mv).unwrap_or_else(|err| panic!("game {game_index}: {err}"));
            plies += 1;
            assert!(plies < 130);
        }
        assert_eq!(ok(&mut e, "final_score"), expected_score(&board), "game {game_index}");
        // After the end: passes both ways, the score unchanged.
        assert_eq!(ok(&mut e, "genmove w"), "pass");
        ok(&mut e, "play b pass");
        assert_eq!(ok(&mut e, "final_score"), expected_score(&board));
    }
}

/// Random games sent by `play` alone, forced passes sometimes sent and sometimes left
/// out (the engine then passes for the blocked side).
#[test]
fn forced_passes_are_sent_or_left_out() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut e = engine("10");
    let (mut sent, mut left_out) = (0, 0);
    for _ in 0..200 {
        ok(&mut e, "clear_board");
        let mut board = Othello::new();
        while board.outcome().is_none() {
            let moves = board.legal_moves();
            let moves = moves.as_ref();
            if moves == [PASS] {
                let blocked = board.side_to_move();
                if rng.next_u32().is_multiple_of(2) {
                    ok(&mut e, &format!("play {} pass", colour(blocked)));
                    sent += 1;
                } else {
                    // The other colour's move comes straight away.
                    fails(&mut e, &format!("play {} pass", colour(blocked.other())), "illegal move");
                    left_out += 1;
                }
                board.play_unchecked(PASS);
                continue;
            }
            let mv = moves[(rng.next_u32() as usize) % moves.len()];
            ok(&mut e, &format!("play {} {}", colour(board.side_to_move()), board.format_move(mv)));
            board.play_unchecked(mv);
        }
        assert_eq!(ok(&mut e, "final_score"), expected_score(&board));
    }
    assert!(sent > 0 && left_out > 0, "passes sent {sent}, left out {left_out}");
}

/// A lost endgame: the engine resigns with a threshold, after three searches in a row
/// below it, and plays on without one.
#[test]
fn resigns_a_lost_position_and_only_when_asked() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    // The resign rule reads the best move's mean result; implicit minimax steers the
    // visits to the move whose minimax value is best, whose mean stays above 0.1 here at
    // 4,000 playouts, so the mean is measured alone.
    let settings = [("playouts", "4000"), ("nodes", "400000"), ("seed", "3"), ("implicit", "0")];
    for attempt in 0..40 {
        // Random moves to 12 empties, then the exact solver says whether the side to move is lost.
        let mut board = Othello::new();
        let mut moves_sent = Vec::new();
        while board.outcome().is_none() && board.disc_counts().0 + board.disc_counts().1 < 52 {
            let moves = board.legal_moves();
            let mv: Move = moves.as_ref()[(rng.next_u32() as usize) % moves.as_ref().len()];
            moves_sent.push((board.side_to_move(), board.format_move(mv)));
            board.play_unchecked(mv);
        }
        if board.outcome().is_some() || board.legal_moves().as_ref() == [PASS] {
            continue;
        }
        let solved = board.solve_endgame(10_000_000).expect("12 empties solve");
        let (b, w) = board.disc_counts();
        let mover_margin = if board.side_to_move() == Player::One { b as i32 - w as i32 } else { w as i32 - b as i32 };
        if solved.outcome != Outcome::Win(board.side_to_move().other()) || mover_margin > -20 {
            continue;
        }
        let mut resigning = engine_with(&settings, 0.1);
        let mut playing_on = engine_with(&settings, 0.0);
        for (player, mv) in &moves_sent {
            ok(&mut resigning, &format!("play {} {mv}", colour(*player)));
            ok(&mut playing_on, &format!("play {} {mv}", colour(*player)));
        }
        // Resigning takes three low searches in a row (`reg_genmove` searches too), or a
        // loss the search proves.
        let side = colour(board.side_to_move());
        for _ in 1..=2 {
            ok(&mut resigning, &format!("reg_genmove {side}"));
        }
        let genmove = format!("genmove {side}");
        assert_eq!(ok(&mut resigning, &genmove), "resign", "attempt {attempt}: {}", board.render());
        let mv = ok(&mut playing_on, &genmove);
        assert!(board.parse_move(&mv).is_ok_and(|m| board.legal_moves().as_ref().contains(&m)), "{mv}");
        return;
    }
    panic!("no clearly lost position found");
}

/// Under a clock the clock sets the time: Canadian 1 s for 1 stone gives a move about
/// 0.9 s (the margin kept), and a clock nearly spent a move at once.
#[test]
fn genmove_follows_the_clock() {
    let mut e = engine_with(&[("time-ms", "5000"), ("nodes", "2000000")], 0.0);
    ok(&mut e, "kgs-time_settings canadian 0 1 1");
    let start = Instant::now();
    ok(&mut e, "genmove b");
    let took = start.elapsed();
    assert!(took > Duration::from_millis(500) && took < Duration::from_millis(1000), "{took:?}");
    ok(&mut e, "time_left w 0.05 1");
    let start = Instant::now();
    ok(&mut e, "genmove w");
    assert!(start.elapsed() < Duration::from_millis(300), "{:?}", start.elapsed());
}

/// A game that GTP cannot play, and a bad threshold, are refused.
#[test]
fn engine_configuration_is_checked() {
    let search = SearchConfig::builder().playouts(10).build().unwrap();
    let config = EngineConfig { search: search.clone(), resign_below: 0.0, ponder: false };
    assert!(Engine::new(GameKind::ConnectFour, config).is_err());
    assert!(Engine::new(GameKind::Othello, EngineConfig { search, resign_below: 1.5, ponder: false }).is_err());
    assert_eq!(Othello::BOARD_SIZE, 8);
}
