//! Live analysis over GTP (`lz-analyze`, `kata-analyze`) in every game the GTP engine
//! serves: the engine reads its input on a thread of its own (`Engine::serve`) and
//! streams `info` lines until the next command. Every line printed is parsed with the
//! grammar of the extensions (`tests/common/analysis.rs`), and any line that does not
//! parse fails the test.

mod common;

use std::io::{BufReader, Write};
use std::time::{Duration, Instant};

use common::analysis::parse_line;
use parmcts::gtp::{Engine, EngineConfig};
use parmcts::{Game, GameKind, Go9, Hex11, Othello, SearchConfig};

/// Runs an engine of `kind` on `script` (each line sent after its pause), returns its
/// whole output.
fn converse(kind: GameKind, script: &[(&str, u64)]) -> String {
    converse_with(kind, 2_000, script)
}

/// [`converse`] with `playouts` a move.
fn converse_with(kind: GameKind, playouts: u64, script: &[(&str, u64)]) -> String {
    let search = SearchConfig::builder().playouts(playouts).arena_nodes(1 << 22).seed(1).build().unwrap();
    let mut engine = Engine::new(kind, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap();
    let (reader, mut writer) = std::io::pipe().unwrap();
    let server = std::thread::spawn(move || {
        let mut out = Vec::new();
        engine.serve(BufReader::new(reader), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    });
    for &(line, pause_ms) in script {
        writer.write_all(format!("{line}\n").as_bytes()).unwrap();
        writer.flush().unwrap();
        std::thread::sleep(Duration::from_millis(pause_ms));
    }
    drop(writer);
    server.join().unwrap()
}

/// The streamed lines of the `n`-th response (0-based) of `output`, checked: `=` alone
/// first, an empty line last.
fn streamed(output: &str, n: usize) -> Vec<String> {
    let responses: Vec<&str> = output.split("\n\n").collect();
    let response = responses[n];
    let mut lines = response.lines();
    assert_eq!(lines.next(), Some("="), "{output:?}");
    lines.map(str::to_string).collect()
}

#[test]
fn othello_streams_lz_analyze_until_the_next_command() {
    let output = converse(GameKind::Othello, &[("lz-analyze 10", 600), ("play b d3", 50), ("showboard", 50)]);
    let lines = streamed(&output, 0);
    assert!(lines.len() >= 3, "{output:?}");
    for line in &lines {
        let parsed = parse_line(line, false, &Othello::new()).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        assert!(parsed.ownership.is_empty());
    }
    // The search went on between lines: the best move's visits grow.
    let visits = |line: &String| parse_line(line, false, &Othello::new()).unwrap().entries[0].visits;
    assert!(visits(&lines[lines.len() - 1]) > visits(&lines[0]), "{lines:?}");
    // The command after the stream is answered on the engine's board.
    let rest: Vec<&str> = output.split("\n\n").collect();
    assert_eq!(rest[1], "= ", "{output:?}");
    assert!(rest[2].starts_with("= \n") || rest[2].starts_with("=\n"), "{output:?}");
}

#[test]
fn go_streams_kata_analyze_with_ownership_for_either_colour() {
    let output = converse(
        GameKind::Go,
        &[("play b e5", 10), ("kata-analyze b 10 ownership true", 500), ("kata-analyze w interval 10", 400)],
    );
    let mut root = Go9::new();
    root.play_sequence("E5").unwrap();
    // `kata-analyze b`: Black moves again (GTP lets either colour move).
    let lines = streamed(&output, 1);
    assert!(!lines.is_empty(), "{output:?}");
    for line in &lines {
        let parsed = parse_line(line, true, &root).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        assert_eq!(parsed.ownership.len(), 81, "{line:?}");
    }
    let lines = streamed(&output, 2);
    assert!(!lines.is_empty(), "{output:?}");
    for line in &lines {
        assert!(parse_line(line, true, &root).unwrap().ownership.is_empty());
    }
}

#[test]
fn hex_streams_and_bad_requests_are_errors() {
    let output = converse(
        GameKind::Hex,
        &[("lz-analyze interval", 50), ("kata-analyze ownership maybe", 50), ("1 lz-analyze 5", 300), ("quit", 0)],
    );
    let responses: Vec<&str> = output.split("\n\n").collect();
    assert!(responses[0].starts_with("? ") && responses[0].contains("interval"), "{output:?}");
    assert!(responses[1].starts_with("? ") && responses[1].contains("ownership"), "{output:?}");
    let mut lines = responses[2].lines();
    assert_eq!(lines.next(), Some("=1"), "{output:?}");
    let lines: Vec<&str> = lines.collect();
    assert!(!lines.is_empty(), "{output:?}");
    for line in lines {
        parse_line(line, false, &Hex11::new()).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    }
}

#[test]
fn the_first_line_comes_within_a_tenth_of_a_second_and_the_stream_stops_at_once() {
    let search = SearchConfig::builder().playouts(2_000).arena_nodes(1 << 20).seed(1).build().unwrap();
    let mut engine = Engine::new(GameKind::Othello, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap();
    let (reader, mut writer) = std::io::pipe().unwrap();
    let (out_reader, out_writer) = std::io::pipe().unwrap();
    let server = std::thread::spawn(move || engine.serve(BufReader::new(reader), out_writer).unwrap());
    let mut out = BufReader::new(out_reader);
    let mut line = String::new();
    let asked = Instant::now();
    writer.write_all(b"lz-analyze 100\n").unwrap();
    use std::io::BufRead;
    out.read_line(&mut line).unwrap();
    assert_eq!(line, "=\n");
    line.clear();
    out.read_line(&mut line).unwrap();
    let first = asked.elapsed();
    assert!(line.starts_with("info move "), "{line:?}");
    assert!(first < Duration::from_millis(250), "first line after {first:?}");
    let stopped = Instant::now();
    writer.write_all(b"name\n").unwrap();
    loop {
        line.clear();
        out.read_line(&mut line).unwrap();
        if line == "\n" {
            break;
        }
    }
    let stop = stopped.elapsed();
    assert!(stop < Duration::from_millis(250), "the stream stopped after {stop:?}");
    line.clear();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, "= parmcts\n");
    writer.write_all(b"quit\n").unwrap();
    server.join().unwrap();
}

#[test]
fn genmove_analyze_streams_the_moves_search_then_plays_it() {
    let output = converse_with(
        GameKind::Othello,
        400_000,
        &[("lz-genmove_analyze b 5", 0), ("kata-genmove_analyze w 5", 0), ("play b d3", 0), ("quit", 0)],
    );
    let responses: Vec<&str> = output.split("\n\n").collect();
    let mut position = Othello::new();
    for (n, kata) in [(0, false), (1, true)] {
        let mut lines = responses[n].lines();
        assert_eq!(lines.next(), Some("="), "{output:?}");
        let lines: Vec<&str> = lines.collect();
        let (play, infos) = lines.split_last().unwrap_or_else(|| panic!("{output:?}"));
        assert!(!infos.is_empty(), "the search streamed: {output:?}");
        for line in infos {
            parse_line(line, kata, &position).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        }
        let mv = play.strip_prefix("play ").unwrap_or_else(|| panic!("{play:?}"));
        // The move is one the last line lists (the search went on after it, and the
        // final-move rule chooses), and it is played.
        let last = parse_line(infos[infos.len() - 1], kata, &position).unwrap();
        assert!(last.entries.iter().any(|e| e.mv == mv), "{mv} not in {last:?}");
        position.play_sequence(mv).unwrap();
    }
    // Both moves were played on the engine's board: Black's d3 is accepted there exactly
    // when it is legal after them here.
    let d3 = position.parse_move("d3").unwrap();
    let legal = position.legal_moves().as_ref().contains(&d3);
    assert_eq!(responses[2].starts_with('='), legal, "{output:?}");
}

/// The response text of a successful command sent with `respond`.
fn answer(engine: &mut Engine, line: &str) -> String {
    let response = engine.respond(&parmcts::gtp::protocol::RawLine::Line(line.as_bytes().to_vec())).unwrap();
    assert!(response.starts_with("= ") && response.ends_with("\n\n"), "{line}: {response:?}");
    response[2..].trim_end().to_string()
}

/// GoGui's analysis commands, parsed: the visit heat map (`INFLUENCE` and `LABEL` of
/// legal moves), the principal variation (`VAR`, replayed legally with the colours to
/// move) and, in Go, the ownership of every point.
fn check_gogui<G: Game>(kind: GameKind, root: &G, ownership: bool) {
    let search = SearchConfig::builder().playouts(3_000).arena_nodes(1 << 20).seed(1).build().unwrap();
    let mut engine = Engine::new(kind, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap();
    let commands = answer(&mut engine, "gogui-analyze_commands");
    let listed: Vec<&str> = commands.lines().map(|l| l.rsplit('/').next().unwrap()).collect();
    let expected: &[&str] = if ownership {
        &["parmcts-visits", "parmcts-pv", "parmcts-ownership"]
    } else {
        &["parmcts-visits", "parmcts-pv"]
    };
    assert_eq!(listed, expected);
    assert!(commands.lines().all(|l| l.starts_with("gfx/")), "{commands}");
    let visits = answer(&mut engine, "parmcts-visits");
    let (influence, labels) = visits.split_once('\n').unwrap();
    let pairs = |text: &str, head: &str| -> Vec<(String, f64)> {
        let words: Vec<&str> = text.strip_prefix(head).unwrap().split_whitespace().collect();
        words.chunks(2).map(|p| (p[0].to_string(), p[1].parse().unwrap())).collect()
    };
    let shares = pairs(influence, "INFLUENCE");
    assert!(!shares.is_empty());
    for (mv, share) in &shares {
        root.parse_move(mv).unwrap();
        assert!(*share > 0.0 && *share <= 1.0, "{share}");
    }
    assert!(shares.iter().any(|(_, s)| *s == 1.0), "the most visited move is full: {shares:?}");
    let counts: f64 = pairs(labels, "LABEL").iter().map(|p| p.1).sum();
    assert!(counts > 0.0 && counts <= 3_000.0 + 1.0, "{counts}");
    let pv = answer(&mut engine, "parmcts-pv");
    let words: Vec<&str> = pv.strip_prefix("VAR").unwrap().split_whitespace().collect();
    assert!(!words.is_empty() && words.len().is_multiple_of(2), "{pv}");
    let mut game = root.clone();
    for pair in words.chunks(2) {
        let colour = if game.side_to_move() == parmcts::Player::One { "b" } else { "w" };
        assert_eq!(pair[0], colour, "{pv}");
        let mv = game.parse_move(pair[1]).unwrap();
        assert!(game.legal_moves().as_ref().contains(&mv), "{pv}");
        game.play_unchecked(mv);
    }
    if ownership {
        let owned = answer(&mut engine, "parmcts-ownership");
        let values = pairs(&owned, "INFLUENCE");
        assert_eq!(values.len(), root.legal_moves().as_ref().len() - 1, "every point (not the pass)");
        assert!(values.iter().all(|(mv, x)| root.parse_move(mv).is_ok() && (-1.0..=1.0).contains(x)));
    }
}

#[test]
fn gogui_analysis_commands_draw_visits_the_line_and_go_ownership() {
    check_gogui(GameKind::Othello, &Othello::new(), false);
    check_gogui(GameKind::Go, &Go9::new(), true);
    check_gogui(GameKind::Hex, &Hex11::new(), false);
}
