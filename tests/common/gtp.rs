//! Talking to an in-memory GTP engine in the GTP tests: Othello engines, one command's
//! response, and its result or error asserted.

use parmcts::gtp::protocol::RawLine;
use parmcts::gtp::{Engine, EngineConfig};
use parmcts::{GameKind, SearchConfig};

/// An Othello engine with a small playout budget and arena.
pub fn engine_with(settings: &[(&str, &str)], resign_below: f64) -> Engine {
    let search = SearchConfig::builder().apply_settings(settings.iter().copied()).unwrap().build().unwrap();
    Engine::new(GameKind::Othello, EngineConfig { search, resign_below, ponder: false }).unwrap()
}

/// An Othello engine with `playouts` playouts a move, seed 1.
pub fn engine(playouts: &str) -> Engine {
    engine_with(&[("playouts", playouts), ("nodes", "200000"), ("seed", "1")], 0.0)
}

/// The response to one command line.
pub fn ask(engine: &mut Engine, line: &str) -> String {
    engine.respond(&RawLine::Line(line.as_bytes().to_vec())).unwrap_or_else(|| panic!("no response to {line:?}"))
}

/// The result of a successful command (asserting success).
pub fn ok(engine: &mut Engine, line: &str) -> String {
    let response = ask(engine, line);
    assert!(response.starts_with('=') && response.ends_with("\n\n"), "{line:?}: {response:?}");
    response[1..].trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string()
}

/// Asserts that a command fails with `message` in its error.
pub fn fails(engine: &mut Engine, line: &str, message: &str) {
    let response = ask(engine, line);
    assert!(response.starts_with('?') && response.ends_with("\n\n"), "{line:?}: {response:?}");
    assert!(response.contains(message), "{line:?}: expected '{message}' in {response:?}");
    assert_eq!(response.matches("\n\n").count(), 1, "{response:?}");
}
