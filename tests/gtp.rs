//! The GTP engine over in-memory input: every command with its errors, ids echoed, whole
//! Othello games through `genmove` and `play` scored against the board, resigning, the
//! clock, and a fuzz test of 100,000 random and mutated lines.

use std::io::BufReader;
use std::time::{Duration, Instant};

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use parmcts::games::othello::PASS;
use parmcts::gtp::engine::COMMANDS;
use parmcts::gtp::protocol::{RawLine, MAX_LINE};
use parmcts::gtp::{Engine, EngineConfig, GtpGame};
use parmcts::{Endgame, Game, GameKind, Move, Othello, Outcome, Player, SearchConfig};

/// An Othello engine with a small playout budget and arena.
fn engine_with(settings: &[(&str, &str)], resign_below: f64) -> Engine {
    let search = SearchConfig::builder().apply_settings(settings.iter().copied()).unwrap().build().unwrap();
    Engine::new(GameKind::Othello, EngineConfig { search, resign_below }).unwrap()
}

fn engine(playouts: &str) -> Engine {
    engine_with(&[("playouts", playouts), ("nodes", "200000"), ("seed", "1")], 0.0)
}

/// The response to one command line.
fn ask(engine: &mut Engine, line: &str) -> String {
    engine.respond(&RawLine::Line(line.as_bytes().to_vec())).unwrap_or_else(|| panic!("no response to {line:?}"))
}

/// The result of a successful command (asserting success).
fn ok(engine: &mut Engine, line: &str) -> String {
    let response = ask(engine, line);
    assert!(response.starts_with('=') && response.ends_with("\n\n"), "{line:?}: {response:?}");
    response[1..].trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string()
}

/// Asserts that a command fails with `message` in its error.
fn fails(engine: &mut Engine, line: &str, message: &str) {
    let response = ask(engine, line);
    assert!(response.starts_with('?') && response.ends_with("\n\n"), "{line:?}: {response:?}");
    assert!(response.contains(message), "{line:?}: expected '{message}' in {response:?}");
    assert_eq!(response.matches("\n\n").count(), 1, "{response:?}");
}

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

/// A lost endgame: the engine resigns with a threshold, and plays on without one.
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
        let genmove = format!("genmove {}", colour(board.side_to_move()));
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

/// The fuzz corpus's words: commands (not `quit`), a few strangers, and arguments.
const NAMES: &[&str] = &["dance", "play_", "GENMOVE", "list", "boardsize8", "=", "?", "-1"];
const ARGS: &[&str] = &[
    "b",
    "w",
    "B",
    "White",
    "black",
    "x",
    "",
    "pass",
    "PASS",
    "pa",
    "d3",
    "C4",
    "f5",
    "e6",
    "a1",
    "h8",
    "i9",
    "z0",
    "resign",
    "0",
    "1",
    "-1",
    "5",
    "8",
    "19",
    "8.5",
    "1e9",
    "1e10",
    "99999999999999999999",
    "nan",
    "inf",
    "-0",
    "0.05",
    "alive",
    "dead",
    "seki",
    "none",
    "absolute",
    "byoyomi",
    "canadian",
    "\u{e9}",
    "\u{fffd}",
];

fn pick<'a>(rng: &mut Xoshiro256PlusPlus, words: &[&'a str]) -> &'a str {
    words[(rng.next_u32() as usize) % words.len()]
}

/// A command line from the vocabulary: an optional id, a name, 0-4 arguments, spaces or tabs.
fn token_line(rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
    let mut tokens = Vec::new();
    if rng.next_u32().is_multiple_of(4) {
        tokens.push((rng.next_u32() % 1000).to_string());
    }
    let commands: Vec<&str> = COMMANDS.iter().copied().filter(|&c| c != "quit").collect();
    let name = if rng.next_u32().is_multiple_of(8) { pick(rng, NAMES) } else { pick(rng, &commands) };
    tokens.push(name.to_string());
    for _ in 0..rng.next_u32() % 5 {
        tokens.push(pick(rng, ARGS).to_string());
    }
    let sep = if rng.next_u32().is_multiple_of(4) { "\t" } else { " " };
    tokens.join(sep).into_bytes()
}

/// A well-formed command with its arguments (its move often illegal, its colour often
/// not to move).
fn valid_line(rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
    let c = if rng.next_u32().is_multiple_of(2) { "b" } else { "w" };
    let n = rng.next_u32() % 400;
    let square = format!("{}{}", (b'a' + (rng.next_u32() % 8) as u8) as char, 1 + rng.next_u32() % 8);
    let line = match rng.next_u32() % 16 {
        0..=3 => format!("play {c} {square}"),
        4 | 5 => format!("genmove {c}"),
        6 => "undo".to_string(),
        7 => "clear_board".to_string(),
        8 => "showboard".to_string(),
        9 => "final_score".to_string(),
        10 => format!("time_settings {n} {} {}", n % 30, n % 7),
        11 => format!("time_left {c} {n} {}", n % 5),
        12 => format!("kgs-time_settings byoyomi {n} {} {}", n % 30, n % 4),
        13 => format!("reg_genmove {c}"),
        14 => format!("known_command {}", pick(rng, COMMANDS)),
        _ => format!("{} protocol_version", rng.next_u32() % 100),
    };
    line.into_bytes()
}

/// One random line (never containing a newline).
fn fuzz_line(rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
    let mut line = match rng.next_u32() % 100 {
        // Random bytes.
        0..=19 => (0..rng.next_u32() % 80).map(|_| rng.next_u32() as u8).collect(),
        // Over-long.
        20 if rng.next_u32().is_multiple_of(40) => {
            vec![b'a' + (rng.next_u32() % 26) as u8; MAX_LINE + 1 + (rng.next_u32() % 3000) as usize]
        }
        // Commands, some mutated below.
        21..=69 => valid_line(rng),
        _ => token_line(rng),
    };
    match rng.next_u32() % 10 {
        // One byte flipped.
        0..=2 if !line.is_empty() => {
            let i = (rng.next_u32() as usize) % line.len();
            line[i] ^= 1 << (rng.next_u32() % 8);
        }
        // A NUL or another control character embedded.
        3 | 4 => {
            let i = (rng.next_u32() as usize) % (line.len() + 1);
            let control = [0u8, 1, 8, 9, 11, 12, 13, 27, 127][(rng.next_u32() % 9) as usize];
            line.insert(i, control);
        }
        _ => {}
    }
    line.retain(|&b| b != b'\n');
    line
}

/// Whether a line gets no response, by the spec's preprocessing (section 3.1) written
/// out afresh: control characters but HT dropped, a comment cut, blanks left.
fn ignored(line: &[u8]) -> bool {
    if line.len() > MAX_LINE {
        return false;
    }
    let end = line.iter().position(|&b| b == b'#').unwrap_or(line.len());
    line[..end].iter().all(|&b| b == b' ' || b == b'\t' || b < 0x20 || b == 0x7f)
}

#[test]
fn fuzzed_lines_each_get_one_well_formed_response() {
    const LINES: usize = 100_000;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let mut input = Vec::new();
    let mut expected = 0;
    for _ in 0..LINES {
        let line = fuzz_line(&mut rng);
        expected += usize::from(!ignored(&line));
        input.extend_from_slice(&line);
        input.push(b'\n');
    }
    input.extend_from_slice(b"99 protocol_version\n");
    let mut e = engine_with(&[("playouts", "8"), ("nodes", "20000"), ("seed", "1")], 0.05);
    let mut output = Vec::new();
    // A small buffer: lines cross the reader's refills.
    e.run(BufReader::with_capacity(61, &input[..]), &mut output).unwrap();
    assert!(!e.has_quit());
    let text = String::from_utf8(output).expect("responses are UTF-8");
    assert!(text.ends_with("=99 2\n\n"), "{:?}", &text[text.len().saturating_sub(200)..]);
    let responses: Vec<&str> = text.split_terminator("\n\n").collect();
    assert_eq!(responses.len(), expected + 1, "one response per line that is not blank");
    for r in &responses {
        assert!(r.starts_with('=') || r.starts_with('?'), "{r:?}");
        assert!(!r.contains("\n\n"));
    }
    let errors = responses.iter().filter(|r| r.starts_with('?')).count();
    let successes = responses.len() - errors;
    // Searches ran: many answers are squares (genmove's).
    let is_square =
        |m: &str| m.len() == 2 && (b'a'..=b'h').contains(&m.as_bytes()[0]) && (b'1'..=b'8').contains(&m.as_bytes()[1]);
    let squares = responses.iter().filter(|r| r.starts_with('=') && r.split(' ').nth(1).is_some_and(is_square)).count();
    assert!(squares > 1_000, "{squares} moves generated");
    // Both kinds occur in numbers: the corpus reaches past the parser.
    assert!(errors > LINES / 10 && successes > LINES / 10, "{successes} successes, {errors} errors");
}

/// A game that GTP cannot play, and a bad threshold, are refused.
#[test]
fn engine_configuration_is_checked() {
    let search = SearchConfig::builder().playouts(10).build().unwrap();
    let config = EngineConfig { search: search.clone(), resign_below: 0.0 };
    assert!(Engine::new(GameKind::ConnectFour, config).is_err());
    assert!(Engine::new(GameKind::Othello, EngineConfig { search, resign_below: 1.5 }).is_err());
    assert_eq!(Othello::BOARD_SIZE, 8);
}

/// Go's end of game: a white stone left in atari inside Black's area is dead by
/// Monte-Carlo ownership (`final_status_list dead`), Tromp-Taylor's count takes it as it
/// stands, so when White passes early Black does not pass (passing would lose) but plays
/// on. (A lone white stone there, with no black stone beside it, is not dead by light
/// playouts: they give it to Black about as often as to White, ownership 0.0-0.3.)
#[test]
fn go_dead_stones_are_listed_and_cleaned_up() {
    let search = SearchConfig::builder()
        .apply_settings([("playouts", "3000"), ("nodes", "400000"), ("seed", "3")])
        .unwrap()
        .build()
        .unwrap();
    let mut e = Engine::new(GameKind::Go, EngineConfig { search, resign_below: 0.0 }).unwrap();
    // Black's wall on column F, White's on G, and a white stone at B5 in Black's area, in
    // atari from B4, B6 and C5 (ownership about +0.6, Black's, over eight seeds).
    for row in 1..=9 {
        ok(&mut e, &format!("play b F{row}"));
        ok(&mut e, &format!("play w G{row}"));
    }
    ok(&mut e, "play w B5");
    for point in ["B4", "B6", "C5"] {
        ok(&mut e, &format!("play b {point}"));
    }
    assert_eq!(ok(&mut e, "final_status_list dead"), "B5");
    let alive = ok(&mut e, "final_status_list alive");
    assert_eq!(alive.split_whitespace().count(), 21, "{alive}");
    assert!(!alive.contains("B5"), "{alive}");
    // As it stands, A-E's empty points are no one's: Black 12, White 10 + 18 + komi 7.
    assert_eq!(ok(&mut e, "final_score"), "W+23");
    ok(&mut e, "play w pass");
    let answer = ok(&mut e, "genmove b");
    assert_ne!(answer.to_ascii_lowercase(), "pass", "Black passed into a lost count");
}

/// A Hex engine (11x11 unless `boardsize` says otherwise) with a small budget.
fn hex_engine() -> Engine {
    let search = SearchConfig::builder()
        .apply_settings([("playouts", "300"), ("nodes", "200000"), ("seed", "3")])
        .unwrap()
        .build()
        .unwrap();
    Engine::new(GameKind::Hex, EngineConfig { search, resign_below: 0.0 }).unwrap()
}

#[test]
fn hex_over_gtp_with_sizes_the_swap_rule_and_a_whole_game() {
    let mut e = hex_engine();
    assert_eq!(ok(&mut e, "name"), "parmcts");
    assert!(ok(&mut e, "showboard").contains(" a b c d e f g h i j k"));
    fails(&mut e, "boardsize 12", "unacceptable size 12");
    // HexGui's form: width and height.
    fails(&mut e, "boardsize 11 9", "only square boards");
    fails(&mut e, "boardsize 12 12", "unacceptable size 12");
    ok(&mut e, "boardsize 9 9");
    assert!(ok(&mut e, "showboard").contains(" a b c d e f g h i\n"));
    ok(&mut e, "boardsize 9");
    assert!(ok(&mut e, "showboard").contains(" a b c d e f g h i\n"));
    fails(&mut e, "play b j1", "invalid vertex 'j1'");
    ok(&mut e, "play b i9");
    fails(&mut e, "play b a1", "not black's turn");
    fails(&mut e, "play w i9", "illegal move i9");
    fails(&mut e, "play w swap-pieces", "illegal move swap-pieces");
    fails(&mut e, "hex-swap-rule maybe", "syntax error");
    // The swap rule, on in the game under way and kept across boardsize.
    ok(&mut e, "hex-swap-rule on");
    ok(&mut e, "boardsize 11");
    ok(&mut e, "play b c2");
    ok(&mut e, "play w swap-pieces");
    let board = ok(&mut e, "showboard");
    assert!(board.contains("Black (X, top-bottom) to move"), "{board}");
    ok(&mut e, "undo");
    ok(&mut e, "hex-swap-rule off");
    fails(&mut e, "play w swap", "illegal move swap-pieces");
    assert_eq!(ok(&mut e, "final_score"), "0");

    // A whole 9x9 game: genmove and play alternate until one side connects, and the
    // score names the winner the board shows.
    ok(&mut e, "boardsize 9");
    let mut game = parmcts::Hex9::new();
    for ply in 0..81 {
        let colour = if ply % 2 == 0 { "b" } else { "w" };
        let mv = if ply % 4 == 1 {
            // White's every other move comes from outside, the first empty cell.
            let mv = game.legal_moves()[0];
            ok(&mut e, &format!("play {colour} {}", game.format_move(mv)));
            mv
        } else {
            let text = ok(&mut e, &format!("genmove {colour}"));
            game.parse_move(&text).unwrap()
        };
        game.try_play(mv).unwrap();
        if game.outcome().is_some() {
            break;
        }
    }
    let expected = match game.outcome() {
        Some(Outcome::Win(Player::One)) => "B+1",
        Some(Outcome::Win(Player::Two)) => "W+1",
        other => panic!("the game did not end: {other:?}"),
    };
    assert_eq!(ok(&mut e, "final_score"), expected);
    fails(&mut e, "genmove b", "the game is over");
    let over = Engine::new(
        GameKind::Othello,
        EngineConfig { search: SearchConfig::builder().playouts(10).build().unwrap(), resign_below: 0.0 },
    );
    fails(&mut over.unwrap(), "hex-swap-rule on", "no swap rule");
}

/// `printsgf` writes the game so far; `loadsgf` reads it back to the same position (and
/// `loadsgf FILE N` to the position before move N), in Othello, Go (with moves out of
/// turn, a pass and a board size change) and Hex (with the swap).
#[test]
fn printsgf_and_loadsgf_round_trip() {
    let dir = std::env::temp_dir().join(format!("parmcts-gtp-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let go = |playouts: &str| {
        let settings = [("playouts", playouts), ("nodes", "200000"), ("seed", "5")];
        let search = SearchConfig::builder().apply_settings(settings).unwrap().build().unwrap();
        Engine::new(GameKind::Go, EngineConfig { search, resign_below: 0.0 }).unwrap()
    };
    // Each game: a few moves, then the record reloaded in a fresh engine.
    let lines: [(&str, Vec<&str>); 3] = [
        ("othello", vec!["genmove b", "genmove w", "genmove b", "genmove w", "genmove b"]),
        (
            "go",
            vec![
                "boardsize 13",
                "komi 5.5",
                "play b D4",
                "play b K10",
                "play w pass",
                "genmove w",
                "genmove b",
                "play w C3",
            ],
        ),
        ("hex", vec!["hex-swap-rule on", "play b c3", "play w swap-pieces", "genmove b", "genmove w"]),
    ];
    for (game, commands) in lines {
        let fresh = || match game {
            "othello" => engine("50"),
            "go" => go("50"),
            _ => hex_engine(),
        };
        let mut e = fresh();
        for command in &commands {
            ok(&mut e, command);
        }
        let record = ok(&mut e, "printsgf");
        assert!(record.starts_with("(;FF[4]") && record.ends_with(')'), "{game}: {record}");
        let path = save(&format!("{game}.sgf"), &record);
        let board = ok(&mut e, "showboard");
        let mut loaded = fresh();
        if game == "hex" {
            // The swap rule is the engine's setting (SGF has no property for it).
            fails(&mut loaded, &format!("loadsgf {path}"), "move 2 (swap-pieces by white) is not legal here");
            ok(&mut loaded, "hex-swap-rule on");
        }
        ok(&mut loaded, &format!("loadsgf {path}"));
        assert_eq!(ok(&mut loaded, "showboard"), board, "{game}: {record}");
        assert_eq!(ok(&mut loaded, "printsgf"), record, "{game}");
        // Before move 3: two moves played (setup stones, if any, count for none).
        ok(&mut loaded, &format!("loadsgf {path} 3"));
        let moves = commands.iter().filter(|c| c.starts_with("play") || c.starts_with("genmove")).count();
        for _ in 2..moves {
            ok(&mut e, "undo");
        }
        assert_eq!(ok(&mut loaded, "showboard"), ok(&mut e, "showboard"), "{game}: loadsgf 3");
    }
    // Errors name the file and what is wrong; the engine stays usable.
    let mut e = go("50");
    fails(&mut e, &format!("loadsgf {}", dir.join("missing.sgf").display()), "missing.sgf");
    fails(&mut e, &format!("loadsgf {}", save("bad.sgf", "(;GM[1]SZ[9];B[ee")), "not SGF");
    fails(&mut e, &format!("loadsgf {}", dir.join("othello.sgf").display()), "not GM[1]");
    fails(&mut e, &format!("loadsgf {}", save("twice.sgf", "(;GM[1]SZ[9];B[ee];W[ee])")), "move 2 (ee by white)");
    fails(&mut e, &format!("loadsgf {}", save("size.sgf", "(;GM[1]SZ[7];B[aa])")), "unacceptable size 7");
    fails(&mut e, &format!("loadsgf {}", save("rect.sgf", "(;GM[1]SZ[9:7])")), "only square boards");
    fails(&mut e, &format!("loadsgf {} 0", dir.join("go.sgf").display()), "move number");
    fails(&mut e, "loadsgf /", "not a regular file");
    ok(&mut e, "play b E5");
    // Handicap stones (AB) and a pass written the old way (tt).
    ok(&mut e, &format!("loadsgf {}", save("handicap.sgf", "(;GM[1]SZ[9]HA[2]AB[cc][gg];W[tt];B[ee])")));
    let board = ok(&mut e, "showboard");
    let rows = board.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    assert_eq!(rows.map(|row| row.matches('X').count()).sum::<usize>(), 3, "{board}");
    assert!(ok(&mut e, "printsgf").ends_with(";B[cc];B[gg];W[];B[ee])"));
    std::fs::remove_dir_all(&dir).unwrap();
}
