//! Running the `parmcts` binary in the command-line tests: its output, its JSON, and the
//! shape of its errors (exit code 2 and one `error:` line).

use std::process::{Command, Output};

use serde_json::Value;

/// Runs the `parmcts` binary of this build with `args`.
pub fn parmcts(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parmcts")).args(args).output().expect("run parmcts")
}

/// Runs `parmcts` with `args`, asserts success and one line of JSON on stdout, and parses it.
pub fn json(args: &[&str]) -> Value {
    let out = parmcts(args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "exactly one JSON object: {text}");
    serde_json::from_str(&text).unwrap()
}

/// Asserts exit code 2 and a single `error:` line that mentions `needle`.
pub fn rejects(args: &[&str], needle: &str) {
    let out = parmcts(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: stderr {stderr}");
    let first = stderr.lines().next().unwrap_or("");
    assert!(first.starts_with("error:"), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: expected '{needle}' in {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

/// Runs parmcts and returns (exit code, stdout, stderr).
pub fn run_text(args: &[&str]) -> (Option<i32>, String, String) {
    let out = parmcts(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts exit code 2 and exactly one line on stderr, starting with `error:` and
/// containing every needle.
pub fn rejects_in_one_line(args: &[&str], needles: &[&str]) {
    let (code, _, stderr) = run_text(args);
    assert_eq!(code, Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: one line expected, got {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{args:?}: expected '{needle}' in {stderr}");
    }
}
