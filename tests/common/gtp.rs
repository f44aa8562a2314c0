//! Talking to a GTP engine in the GTP tests: in memory (Othello engines, one command's
//! response, and its result or error asserted), or the `parmcts gtp` process over its
//! pipes ([`Pipes`]).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

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

/// The longest wait for a line of a response (a debug build on a loaded machine).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// `parmcts gtp` behind its pipes. Its output is read line by line on a thread of its
/// own, as a GUI reads it, so that a stream is read while it runs and an engine that
/// falls silent fails the test instead of hanging it. Its stderr is the test's.
pub struct Pipes {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Pipes {
    /// Starts `parmcts` with `args`.
    pub fn start(args: &[&str]) -> Pipes {
        let mut child = Command::new(env!("CARGO_BIN_EXE_parmcts"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("run parmcts gtp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Pipes { child, stdin, lines }
    }

    /// Sends one line.
    pub fn write(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).expect("the engine reads its input");
    }

    /// The lines of the next response, up to the empty line that ends it.
    pub fn response(&mut self) -> Result<Vec<String>, String> {
        let mut lines = Vec::new();
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(line) if line.is_empty() => return Ok(lines),
                Ok(line) => lines.push(line),
                Err(RecvTimeoutError::Timeout) => return Err(format!("no empty line within {PATIENCE:?}: {lines:?}")),
                Err(RecvTimeoutError::Disconnected) => return Err(format!("the engine closed its output: {lines:?}")),
            }
        }
    }

    /// Waits for the engine to exit (after `quit`).
    pub fn wait(&mut self) -> ExitStatus {
        self.child.wait().expect("the engine exits")
    }
}
