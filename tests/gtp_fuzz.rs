//! The GTP engine under fuzzing: 100,000 random and mutated lines, each answered by one
//! well-formed response (an analysis's `=` and its empty line included: its stream ends
//! at the next line).

mod common;

use std::io::BufReader;

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use common::gtp::engine_with;
use parmcts::gtp::engine::COMMANDS;
use parmcts::gtp::protocol::MAX_LINE;

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
