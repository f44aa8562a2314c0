//! The GTP engine under fuzzing: 100,000 random and mutated lines of Othello, and 10,000
//! (`PARMCTS_FUZZ_INPUTS`) of each of Go and Hex (every command, every board size through `boardsize`, records
//! through `loadsgf`), each answered by one well-formed response (an analysis's `=` and
//! its empty line included: its stream ends at the next line), each error on one line.

mod common;

use std::io::BufReader;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use common::gtp::engine_with;
use parmcts::gtp::engine::COMMANDS;
use parmcts::gtp::protocol::MAX_LINE;
use parmcts::gtp::{Engine, EngineConfig};
use parmcts::{GameKind, SearchConfig};

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
    let line = match rng.next_u32() % 20 {
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
        // The analysis commands, streaming until the next line.
        15 => format!("lz-analyze {c} {}", n % 3),
        16 => format!("kata-analyze interval {} ownership {} maxmoves {}", n % 3, n.is_multiple_of(2), n % 5),
        17 => format!("{} {c} 1", if n.is_multiple_of(2) { "lz-genmove_analyze" } else { "kata-genmove_analyze" }),
        18 => {
            ["gogui-analyze_commands", "parmcts-visits", "parmcts-pv", "parmcts-ownership"][n as usize % 4].to_string()
        }
        _ => format!("{} protocol_version", rng.next_u32() % 100),
    };
    line.into_bytes()
}

/// One random line (never containing a newline): random bytes, an over-long line, a
/// `valid` line or a line of the vocabulary, perhaps mutated.
fn fuzz_line(rng: &mut Xoshiro256PlusPlus, valid: &mut dyn FnMut(&mut Xoshiro256PlusPlus) -> Vec<u8>) -> Vec<u8> {
    let mut line = match rng.next_u32() % 100 {
        // Random bytes.
        0..=19 => (0..rng.next_u32() % 80).map(|_| rng.next_u32() as u8).collect(),
        // Over-long.
        20 if rng.next_u32().is_multiple_of(40) => {
            vec![b'a' + (rng.next_u32() % 26) as u8; MAX_LINE + 1 + (rng.next_u32() % 3000) as usize]
        }
        // Commands, some mutated below.
        21..=69 => valid(rng),
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

/// `lines` lines of `valid` (seeded with `seed`) and of the vocabulary, then
/// `99 protocol_version`, with the number of lines that get a response.
fn fuzz_input(seed: u64, lines: usize, valid: &mut dyn FnMut(&mut Xoshiro256PlusPlus) -> Vec<u8>) -> (Vec<u8>, usize) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut input = Vec::new();
    let mut expected = 0;
    for _ in 0..lines {
        let line = fuzz_line(&mut rng, valid);
        expected += usize::from(!ignored(&line));
        input.extend_from_slice(&line);
        input.push(b'\n');
    }
    input.extend_from_slice(b"99 protocol_version\n");
    (input, expected)
}

/// The responses of `output`, asserted well formed: one per line that is not blank (and
/// the last line's), each `=` or `?` and ended by one blank line, each error on one line;
/// both kinds in numbers (the corpus reaches past the parser).
fn responses(output: Vec<u8>, expected: usize, lines: usize) -> Vec<String> {
    let text = String::from_utf8(output).expect("responses are UTF-8");
    assert!(text.ends_with("=99 2\n\n"), "{:?}", &text[text.len().saturating_sub(200)..]);
    let responses: Vec<String> = text.split_terminator("\n\n").map(str::to_string).collect();
    assert_eq!(responses.len(), expected + 1, "one response per line that is not blank");
    for r in &responses {
        assert!(r.starts_with('=') || r.starts_with('?'), "{r:?}");
        assert!(!r.contains("\n\n"));
        assert!(r.starts_with('=') || !r.contains('\n'), "an error on more than one line: {r:?}");
    }
    let errors = responses.iter().filter(|r| r.starts_with('?')).count();
    let successes = responses.len() - errors;
    assert!(errors > lines / 10 && successes > lines / 10, "{successes} successes, {errors} errors");
    println!("gtp: {lines} lines, {successes} successes, {errors} errors");
    responses
}

#[test]
fn fuzzed_lines_each_get_one_well_formed_response() {
    const LINES: usize = 100_000;
    let (input, expected) = fuzz_input(2024, LINES, &mut valid_line);
    let mut e = engine_with(&[("playouts", "8"), ("nodes", "20000"), ("seed", "1")], 0.05);
    let mut output = Vec::new();
    // A small buffer: lines cross the reader's refills.
    e.run(BufReader::with_capacity(61, &input[..]), &mut output).unwrap();
    assert!(!e.has_quit());
    let responses = responses(output, expected, LINES);
    // Searches ran: many answers are squares (genmove's).
    let is_square =
        |m: &str| m.len() == 2 && (b'a'..=b'h').contains(&m.as_bytes()[0]) && (b'1'..=b'8').contains(&m.as_bytes()[1]);
    let squares = responses.iter().filter(|r| r.starts_with('=') && r.split(' ').nth(1).is_some_and(is_square)).count();
    assert!(squares > 1_000, "{squares} moves generated");
}

/// Records and paths for `loadsgf` in `dir`: a Go and a Hex game, a bad record, a
/// folder, a file that does not exist.
fn sgf_files(dir: &Path) -> Vec<String> {
    let files = [
        ("go9.sgf", "(;GM[1]SZ[9]KM[5.5]AB[cc]AW[gg];B[ee];W[ec];B[];W[dd]PL[B])"),
        ("go19.sgf", "(;GM[1]SZ[19];B[pd];W[dp];B[tt])"),
        ("go13.sgf", "(;GM[1]SZ[13];B[aa];W[aa])"),
        ("hex11.sgf", "(;GM[11]SZ[11];B[f6];W[swap-pieces];B[c3])"),
        ("hex9.sgf", "(;GM[11]SZ[9];B[a1];W[b2])"),
        ("othello.sgf", "(;GM[2]SZ[8];B[d3])"),
        ("bad.sgf", "(;GM[1]SZ[9:7];B[aa]"),
        ("setup.sgf", "(;GM[1]SZ[9];B[aa];AB[bb])"),
    ];
    let mut paths: Vec<String> = files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write a record");
            path.display().to_string()
        })
        .collect();
    paths.push(dir.display().to_string());
    paths.push(dir.join("missing.sgf").display().to_string());
    paths
}

/// A well-formed command of Go (`go`) or Hex (`hex`) with its arguments: a point on a
/// board up to 19x19 (often off the board, taken or out of turn), a board size, a record.
fn board_line(rng: &mut Xoshiro256PlusPlus, family: &str, files: &[String]) -> Vec<u8> {
    let c = if rng.next_u32().is_multiple_of(2) { "b" } else { "w" };
    let n = rng.next_u32() % 400;
    let columns: &[u8] = if family == "go" { b"ABCDEFGHJKLMNOPQRSTI" } else { b"abcdefghijklmnopqrst" };
    let point = format!("{}{}", columns[(rng.next_u32() as usize) % columns.len()] as char, 1 + rng.next_u32() % 19);
    let size = ["9", "11", "13", "19", "7", "25", "0"][n as usize % 7];
    let other = if family == "go" { "pass" } else { "swap-pieces" };
    let line = match rng.next_u32() % 27 {
        0..=4 => format!("play {c} {point}"),
        5 => format!("play {c} {other}"),
        6 | 7 => format!("genmove {c}"),
        8 => "undo".to_string(),
        9 => "clear_board".to_string(),
        10 => format!("boardsize {size}"),
        11 => format!("komi {}", ["6.5", "0", "-3", "nan", "1e9", "7"][n as usize % 6]),
        12 => ["showboard", "final_score", "printsgf"][n as usize % 3].to_string(),
        13 => format!("final_status_list {}", ["dead", "alive", "seki", "Dead"][n as usize % 4]),
        14 => format!("time_settings {n} {} {}", n % 30, n % 7),
        15 => format!("time_left {c} {n} {}", n % 5),
        16 => format!("kgs-time_settings byoyomi {n} {} {}", n % 30, n % 4),
        17 => format!("loadsgf {} {}", files[n as usize % files.len()], ["", "1", "3", "0", "x"][n as usize % 5]),
        18 => format!("hex-swap-rule {}", ["on", "off", "maybe"][n as usize % 3]),
        19 => format!("reg_genmove {c}"),
        20 => format!("lz-analyze {c} {}", n % 3),
        21 => format!("kata-analyze interval {} ownership {} maxmoves {}", n % 3, n.is_multiple_of(2), n % 5),
        22 => format!("{} {c} 1", if n.is_multiple_of(2) { "lz-genmove_analyze" } else { "kata-genmove_analyze" }),
        23 => {
            ["gogui-analyze_commands", "parmcts-visits", "parmcts-pv", "parmcts-ownership"][n as usize % 4].to_string()
        }
        24 => format!("known_command {}", pick(rng, COMMANDS)),
        // Handicap stones: a count (often out of range), or a list with the point twice.
        25 => match n % 3 {
            0 => format!("fixed_handicap {}", n % 12),
            1 => format!("place_free_handicap {}", n % 90),
            _ => format!("set_free_handicap C3 {point} {}", if n.is_multiple_of(2) { point.as_str() } else { "G7" }),
        },
        _ => ["list_commands", "name", "version", "protocol_version"][n as usize % 4].to_string(),
    };
    line.into_bytes()
}

/// `PARMCTS_FUZZ_INPUTS` lines (10,000 by default) of Go (from 9x9) or Hex (from
/// 11x11), every board size reached by `boardsize`, on an engine of a few playouts a
/// move, within two minutes for each 10,000 lines.
fn fuzz_board_game(kind: GameKind, family: &'static str, seed: u64) {
    let lines = common::fuzz::inputs();
    let dir = std::env::temp_dir().join(format!("parmcts-gtp-fuzz-{family}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder for the records");
    let files = sgf_files(&dir);
    let start = Instant::now();
    let (input, expected) = fuzz_input(seed, lines, &mut |rng| board_line(rng, family, &files));
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let settings = [("playouts", "8"), ("nodes", "20000"), ("seed", "1")];
        let search = SearchConfig::builder().apply_settings(settings).expect("settings").build();
        let search = search.expect("a configuration");
        let config = EngineConfig { search, resign_below: 0.05, ponder: false };
        let mut e = Engine::new(kind, config).expect("an engine");
        let mut output = Vec::new();
        let run = e.run(BufReader::with_capacity(61, &input[..]), &mut output).map(|()| output);
        let _ = done.send((run, e.has_quit()));
    });
    let patience = Duration::from_secs(120 * (1 + lines as u64 / 10_000));
    let (run, quit) = finished.recv_timeout(patience).expect("the engine answers in time");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!quit);
    responses(run.expect("the run"), expected, lines);
    println!("gtp {family}: {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn fuzzed_go_lines_each_get_one_well_formed_response() {
    fuzz_board_game(GameKind::Go, "go", 2025);
}

#[test]
fn fuzzed_hex_lines_each_get_one_well_formed_response() {
    fuzz_board_game(GameKind::Hex, "hex", 2026);
}
