//! Ctrl-C (SIGINT) during the long commands: the real binary is started, left to
//! finish its first unit of work where it shows one (a game on disk, a table, a rung),
//! sent SIGINT, and must print what it finished and exit with 130; a second SIGINT
//! quits at once. Each test reads the binary's output on threads of its own, so that a
//! command that never stops fails the test instead of hanging it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest wait for a first unit of work, or for the end after SIGINT (a debug
/// build on a loaded machine).
const PATIENCE: Duration = Duration::from_secs(60);

/// `parmcts` running, with its stdout and stderr gathered as they come.
struct Running {
    child: Child,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

/// What a run left: its exit code, stdout and stderr.
struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_parmcts"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run parmcts");
        let gather = |mut pipe: Box<dyn Read + Send>| {
            let text = Arc::new(Mutex::new(String::new()));
            let sink = Arc::clone(&text);
            thread::spawn(move || {
                let mut buffer = [0u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut buffer) {
                    sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..n]));
                }
            });
            text
        };
        let stdout = gather(Box::new(child.stdout.take().unwrap()));
        let stderr = gather(Box::new(child.stderr.take().unwrap()));
        Running { child, stdout, stderr }
    }

    /// Waits until `ready` holds of the stdout so far (failing after [`PATIENCE`], or when
    /// the command ends first).
    fn wait_for(&mut self, what: &str, ready: impl Fn(&str) -> bool) {
        let start = Instant::now();
        while !ready(&self.stdout.lock().unwrap()) {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("ended ({status}) before {what}: {}", self.stderr.lock().unwrap());
            }
            assert!(start.elapsed() < PATIENCE, "no {what} within {PATIENCE:?}");
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits `time`, failing if the command ends first (it had more to do).
    fn run_for(&mut self, time: Duration) {
        thread::sleep(time);
        if let Some(status) = self.child.try_wait().unwrap() {
            panic!("ended ({status}) before SIGINT: {}", self.stdout.lock().unwrap());
        }
    }

    fn sigint(&self) {
        let status = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success(), "kill -INT failed");
    }

    /// Sends SIGINT and waits for the end.
    fn interrupt(mut self) -> Ended {
        self.sigint();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > PATIENCE {
                let _ = self.child.kill();
                panic!("still running {PATIENCE:?} after SIGINT: {}", self.stderr.lock().unwrap());
            }
            thread::sleep(Duration::from_millis(20));
        };
        // The pipes close with the process: let the readers take the last bytes.
        thread::sleep(Duration::from_millis(100));
        let text = |t: &Arc<Mutex<String>>| t.lock().unwrap().clone();
        Ended { code: status.code(), stdout: text(&self.stdout), stderr: text(&self.stderr) }
    }
}

impl Ended {
    /// Asserts exit code 130 and the one line Ctrl-C prints on stderr.
    fn assert_interrupted(&self) {
        assert_eq!(self.code, Some(130), "stdout {}\nstderr {}", self.stdout, self.stderr);
        assert!(self.stderr.contains("interrupted: finishing what is running"), "{}", self.stderr);
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
    }

    /// The one JSON object on stdout, marked as interrupted.
    fn json(&self) -> Value {
        assert_eq!(self.stdout.trim().lines().count(), 1, "one JSON object: {}", self.stdout);
        let report: Value = serde_json::from_str(&self.stdout).unwrap();
        assert_eq!(report["interrupted"], true, "{report}");
        report
    }
}

/// A file in the temporary folder, for this test and process, removed first.
fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("parmcts-interrupt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// A match: the summary counts exactly the games the records file holds, one complete
/// JSON line each, fewer than asked.
#[test]
fn an_interrupted_match_reports_and_keeps_every_finished_game() {
    let records = temp("match.jsonl");
    let path = records.to_str().unwrap();
    let args = ["match", "--game", "connect4", "--p1", "mcts:playouts=2000", "--p2", "mcts:playouts=1000"];
    let mut run = Running::start(&[&args[..], &["--games", "1000", "--records", path, "--json"]].concat());
    run.wait_for("a game on disk", |_| lines(&records) >= 1);
    let ended = run.interrupt();
    ended.assert_interrupted();
    let report = ended.json();
    let games = report["games"].as_u64().unwrap();
    assert!((1..1000).contains(&games), "{report}");
    let text = std::fs::read_to_string(&records).unwrap();
    assert_eq!(text.lines().count() as u64, games, "{text}");
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        assert!(record["result"].is_string(), "{line}");
    }
    let _ = std::fs::remove_file(&records);
}

/// Text output: the summary and the line that says how far the match got.
#[test]
fn an_interrupted_match_says_how_far_it_got() {
    let records = temp("match-text.jsonl");
    let path = records.to_str().unwrap();
    let args = ["match", "--game", "tictactoe", "--p1", "mcts:playouts=20000", "--p2", "random", "--games", "100000"];
    let mut run = Running::start(&[&args[..], &["--parallel-games", "2", "--records", path]].concat());
    run.wait_for("a game on disk", |_| lines(&records) >= 1);
    let ended = run.interrupt();
    ended.assert_interrupted();
    let last = ended.stdout.lines().last().unwrap_or("");
    let games = last.strip_prefix("interrupted after ").and_then(|t| t.strip_suffix(" of 100000 games"));
    let games: usize = games.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{}", ended.stdout));
    assert_eq!(games, lines(&records), "{}", ended.stdout);
    assert!(ended.stdout.contains(&format!("({games} games)")), "{}", ended.stdout);
    let _ = std::fs::remove_file(&records);
}

/// A second Ctrl-C quits at once, without waiting for a long move.
#[test]
fn a_second_ctrl_c_quits_at_once() {
    // A first move that takes minutes.
    let mut run = Running::start(&[
        "match",
        "--game",
        "connect4",
        "--p1",
        "alphabeta:depth=40",
        "--p2",
        "random",
        "--games",
        "2",
    ]);
    run.run_for(Duration::from_millis(500));
    run.sigint();
    let start = Instant::now();
    while !run.stderr.lock().unwrap().contains("Ctrl-C again") {
        assert!(start.elapsed() < PATIENCE, "no message after the first SIGINT");
        thread::sleep(Duration::from_millis(20));
    }
    let ended = run.interrupt();
    ended.assert_interrupted();
    assert_eq!(ended.stdout, "", "nothing printed after quitting at once");
}

/// Bench: the tables of the games measured, then the line saying it was interrupted.
#[test]
fn an_interrupted_bench_prints_the_games_it_measured() {
    let mut run =
        Running::start(&["bench", "--modes", "seq", "--threads", "1", "--repeat", "2", "--playouts", "20000"]);
    run.wait_for("a game's table", |out| out.contains("x seq"));
    let ended = run.interrupt();
    ended.assert_interrupted();
    assert!(ended.stdout.contains("interrupted: the rows above are those measured"), "{}", ended.stdout);
    // Far from every game: bench measures 10 of them.
    let tables = ended.stdout.lines().filter(|l| l.starts_with("mode ")).count();
    assert!((1..5).contains(&tables), "{}", ended.stdout);
}

/// Ladder: the rungs played, the last one cut short, and how far it got.
#[test]
fn an_interrupted_ladder_prints_its_rungs() {
    let args = ["ladder", "--game", "connect4", "--from", "10", "--to", "1000000", "--games", "4"];
    let mut run = Running::start(&[&args[..], &["--openings", "start"]].concat());
    run.wait_for("a rung", |out| out.contains("total"));
    let ended = run.interrupt();
    ended.assert_interrupted();
    assert!(ended.stdout.lines().last().unwrap_or("").starts_with("interrupted after "), "{}", ended.stdout);
    assert!(ended.stdout.contains("of 16 rungs"), "{}", ended.stdout);
}

/// Scale: the JSON report of what was measured.
#[test]
fn an_interrupted_scale_reports_what_it_measured() {
    let mut run = Running::start(&["scale", "--game", "connect4", "--quick", "--threads", "1,2", "--json"]);
    run.run_for(Duration::from_millis(1500));
    let ended = run.interrupt();
    ended.assert_interrupted();
    let report = ended.json();
    assert!(report["throughput"].is_array() && report["strength"].is_array(), "{report}");
}

/// Solve: the bounds proven so far (Connect Four's solver narrows them as it goes).
#[test]
fn an_interrupted_solve_reports_its_bounds() {
    // About 20 s to solve on one core.
    let mut run = Running::start(&["solve", "--game", "connect4", "--moves", "4453", "--json"]);
    run.run_for(Duration::from_millis(1500));
    let ended = run.interrupt();
    ended.assert_interrupted();
    let report = ended.json();
    assert_eq!(report["game"], "connect4", "{report}");
    if let Some([min, max]) = report["score_bounds"].as_array().map(|b| [b[0].as_i64(), b[1].as_i64()]) {
        assert!(min <= max, "{report}");
    }
}

/// Train-weights: the fit of the decisions recorded, written.
#[test]
fn interrupted_training_writes_what_it_learned() {
    let out = temp("weights.json");
    let args = ["train-weights", "--game", "connect4", "--games", "1000000", "--teacher", "alphabeta:depth=2"];
    let mut run = Running::start(&[&args[..], &["--threads", "1", "--out", out.to_str().unwrap(), "--json"]].concat());
    run.run_for(Duration::from_millis(1500));
    let ended = run.interrupt();
    ended.assert_interrupted();
    let report = ended.json();
    assert!(report["decisions"].as_u64().unwrap() > 0, "{report}");
    assert!(report["games"].as_u64().unwrap() < 1_000_000, "{report}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("interrupted after"), "{written}");
    let _ = std::fs::remove_file(&out);
}

/// Train-network: the network of the games played, written.
#[test]
fn interrupted_network_training_writes_its_network() {
    let out = temp("network.pmnt");
    let args = ["train-network", "--game", "tictactoe", "--games", "100000000", "--checks", "0", "--json"];
    let mut run = Running::start(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
    run.run_for(Duration::from_millis(1000));
    let ended = run.interrupt();
    ended.assert_interrupted();
    let report = ended.json();
    let games = report["games"].as_u64().unwrap();
    assert!((1..100_000_000).contains(&games), "{report}");
    assert!(std::fs::metadata(&out).unwrap().len() > 0);
    let _ = std::fs::remove_file(&out);
}
