//! The `parmcts` GTP front end from the command line, and external GTP engines as `match`
//! players: answers over a pipe, bad configuration rejected with exit code 2, and an
//! engine that plays illegally or dies losing its game by forfeit.

mod common;

use std::process::Command;

use common::cli::{rejects, run_text};

/// `parmcts gtp` over a pipe: responses alone on stdout, in order, ids echoed, errors
/// answered and the session going on; nothing on stderr without `--log`.
#[test]
fn gtp_answers_a_script_on_stdin() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["gtp", "--game", "othello", "--playouts", "200", "--nodes", "100000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run parmcts gtp");
    let script =
        "1 protocol_version\n# a comment\n\n2 play b d3\nfoo\n3 genmove w\n4 boardsize 19\n5 undo\nquit\nname\n";
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let responses: Vec<&str> = stdout.split_terminator("\n\n").collect();
    assert_eq!(responses.len(), 7, "{stdout:?}");
    assert_eq!(responses[0], "=1 2");
    assert_eq!(responses[1], "=2 ");
    assert_eq!(responses[2], "? unknown command 'foo'");
    let reply = responses[3].strip_prefix("=3 ").unwrap();
    assert!(["c3", "e3", "c5"].contains(&reply), "{reply}");
    assert_eq!(responses[4], "?4 unacceptable size 19");
    assert_eq!(responses[5], "=5 ");
    // `quit` answers and ends the session: `name` after it gets nothing.
    assert_eq!(responses[6], "= ");
}

#[test]
fn gtp_rejects_bad_configuration() {
    rejects(&["gtp", "--game", "connect4"], "--game");
    rejects(&["gtp", "--game", "othello", "--resign-below", "1.5"], "--resign-below");
    rejects(&["gtp", "--game", "othello", "--playouts", "0"], "playouts");
}

/// A handicap match: an external engine (parmcts's GTP engine) takes Black with four
/// stones in every game and is shown White's passes between them; the other side plays
/// with dynamic komi.
#[test]
fn a_handicap_match_gives_the_stones_to_p2_in_every_game() {
    let records = std::env::temp_dir().join(format!("parmcts-handicap-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&records);
    let engine = format!("gtp:{} gtp --game go --playouts 200", env!("CARGO_BIN_EXE_parmcts"));
    let (code, stdout, stderr) = run_text(&[
        "match",
        "--game",
        "go",
        "--p1",
        "mcts:playouts=200,dyn-komi=on",
        "--p2",
        &engine,
        "--games",
        "2",
        "--handicap",
        "4",
        "--komi",
        "0.5",
        "--openings",
        "random:1",
        "--records",
        records.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let text = std::fs::read_to_string(&records).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    for line in &lines {
        assert_eq!(line["p1_first"], false, "{line}");
        let opening: Vec<&str> = line["opening"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        // GTP's layout of four stones on 9x9, White passing between them, then White's
        // random ply.
        assert_eq!(opening[..7], ["C3", "pass", "G7", "pass", "C7", "pass", "G3"], "{line}");
        assert_eq!(opening.len(), 8, "{line}");
    }
    let _ = std::fs::remove_file(&records);
}

/// An external engine as a match player: parmcts's own GTP engine, over a pipe, refereed
/// by `match` (every move it answers is checked), through passes and to the end.
#[test]
fn match_plays_an_external_gtp_engine() {
    let engine = format!("gtp:{} gtp --game othello --playouts 300", env!("CARGO_BIN_EXE_parmcts"));
    let (code, stdout, stderr) = run_text(&[
        "match",
        "--game",
        "othello",
        "--p1",
        "mcts:playouts=300",
        "--p2",
        &engine,
        "--games",
        "4",
        "--openings",
        "random:2",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let games = ["p1_wins", "draws", "p2_wins"].iter().map(|k| summary[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(games, 4, "{stdout}");
    // A program that is not there is a clear error, not a hang.
    let (code, _, stderr) =
        run_text(&["match", "--game", "othello", "--p1", "random", "--p2", "gtp:/nonexistent/engine", "--games", "1"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot start '/nonexistent/engine'"), "{stderr}");
}

/// Writes an executable fake GTP engine (a shell script) that answers every command with
/// success and `genmove` with `genmove_action` (shell code), and returns its path.
fn fake_engine(name: &str, genmove_action: &str) -> std::path::PathBuf {
    fake_engine_with(name, &format!("genmove) {genmove_action} ;;"))
}

/// A fake GTP engine (as [`fake_engine`]) with `cases`, lines of a shell `case` on the
/// command's name, before its default answers.
fn fake_engine_with(name: &str, cases: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::temp_dir().join(format!("parmcts-fake-{name}-{}.sh", std::process::id()));
    let script = format!(
        "#!/bin/sh\nwhile read -r cmd rest; do\n  case \"$cmd\" in\n    {cases}\n    \
         quit) printf '=\\n\\n'; exit 0 ;;\n    *) printf '=\\n\\n' ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// An external engine that plays an illegal move, or dies at its first `genmove`, loses
/// that game by forfeit; the match goes on, counts it and reports why.
#[test]
fn match_forfeits_an_engine_that_plays_illegally_or_crashes() {
    let illegal = fake_engine("illegal", "printf '= a1\\n\\n'");
    let crash = fake_engine("crash", "exit 3");
    for (engine, why) in [(&illegal, "illegal move 'a1'"), (&crash, "gtp player")] {
        let records = std::env::temp_dir().join(format!("parmcts-forfeit-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&records);
        let spec = format!("gtp:{}", engine.display());
        let (code, stdout, stderr) = run_text(&[
            "match",
            "--game",
            "othello",
            "--p1",
            "random",
            "--p2",
            &spec,
            "--games",
            "2",
            "--records",
            records.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(summary["p1_wins"], 2, "{stdout}");
        let forfeits = summary["forfeits"].as_array().unwrap();
        assert_eq!(forfeits.len(), 2, "{stdout}");
        for f in forfeits {
            assert_eq!(f["by"], "p2", "{stdout}");
            assert!(f["reason"].as_str().unwrap().contains(why), "{stdout}");
        }
        let lines = std::fs::read_to_string(&records).unwrap();
        assert_eq!(lines.lines().filter(|l| l.contains("\"ending\":\"forfeit\"")).count(), 2, "{lines}");
        let _ = std::fs::remove_file(&records);
        let _ = std::fs::remove_file(engine);
    }
}

/// An external engine that exits in the middle of a game (after a few commands, at
/// whatever point of the game that falls) costs that game, forfeited with the reason,
/// not the match: each game starts a fresh engine, and every game is played and
/// recorded.
#[test]
fn match_forfeits_the_game_of_an_engine_that_exits_mid_game() {
    use std::os::unix::fs::PermissionsExt;
    let engine = std::env::temp_dir().join(format!("parmcts-fake-exits-{}.sh", std::process::id()));
    // Answers its first 8 commands (the set-up, then a move each, its own in turn
    // round the columns), then exits: before the seventh ply, so before any game ends.
    let script = r#"#!/bin/sh
n=0
while read -r cmd rest; do
  n=$((n + 1))
  [ "$n" -gt 8 ] && exit 1
  case "$cmd" in
    genmove) printf '= %s\n\n' $((n % 7 + 1)) ;;
    *) printf '=\n\n' ;;
  esac
done
"#;
    std::fs::write(&engine, script).unwrap();
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    let records = std::env::temp_dir().join(format!("parmcts-exits-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&records);
    let spec = format!("gtp:{}", engine.display());
    let args = ["match", "--game", "connect4", "--p1", "random", "--p2", &spec, "--games", "4", "--json"];
    let (code, stdout, stderr) = run_text(&[&args[..], &["--records", records.to_str().unwrap()]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["games"], 4, "{stdout}");
    let forfeits = summary["forfeits"].as_array().unwrap();
    assert_eq!(forfeits.len(), 4, "{stdout}");
    for f in forfeits {
        assert_eq!(f["by"], "p2", "{stdout}");
        assert!(f["reason"].as_str().unwrap().contains("exited"), "{stdout}");
    }
    let lines = std::fs::read_to_string(&records).unwrap();
    assert_eq!(lines.lines().filter(|l| l.contains("\"ending\":\"forfeit\"")).count(), 4, "{lines}");
    let _ = std::fs::remove_file(&records);
    let _ = std::fs::remove_file(&engine);
}

/// An engine that passes at once and scores every game W+74 (as GNU Go scores a board of
/// dead stones it never captured) disputes the game that Black won by the rules: the match
/// reports the disagreement with each side's answer; with a referee the referee's result
/// counts, and without one the rules' result stands.
#[test]
fn match_reports_a_disputed_score_and_the_referee_settles_it() {
    let passer =
        fake_engine_with("passer", "genmove) printf '= pass\\n\\n' ;;\n    final_score) printf '= W+74\\n\\n' ;;");
    let spec = format!("gtp:{}", passer.display());
    let go = |extra: &[&str]| {
        let mut args =
            vec!["match", "--game", "go", "--p1", "mcts:playouts=300", "--p2", &spec, "--games", "2", "--json"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run_text(&args);
        assert_eq!(code, Some(0), "{stderr}");
        serde_json::from_str::<serde_json::Value>(stdout.trim()).unwrap()
    };
    // Game 0: the search has Black, fills the board and passes back: B+ by the rules,
    // W+74 by the engine. Game 1: the search has White and passes back at once: W+ by
    // the rules (komi) and by the engine alike.
    let alone = go(&[]);
    assert_eq!((alone["p1_wins"].as_u64(), alone["p2_wins"].as_u64()), (Some(2), Some(0)), "{alone}");
    let disputes = alone["disagreements"].as_array().expect("reported");
    assert_eq!(disputes.len(), 1, "{alone}");
    assert_eq!(disputes[0]["game"], 0, "{alone}");
    assert_eq!(disputes[0]["rules"], "B+", "{alone}");
    assert_eq!(disputes[0]["said"], serde_json::json!([null, "W+74"]), "{alone}");
    assert_eq!(disputes[0]["dead"], serde_json::json!([null, ""]), "{alone}");
    let refereed = go(&["--referee", &spec]);
    assert_eq!((refereed["p1_wins"].as_u64(), refereed["p2_wins"].as_u64()), (Some(1), Some(1)), "{refereed}");
    assert_eq!(refereed["disagreements"][0]["referee"], "W+74", "{refereed}");
    let (code, _, stderr) =
        run_text(&["match", "--game", "go", "--p1", "random", "--p2", "random", "--referee", "random"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--referee"), "{stderr}");
    let _ = std::fs::remove_file(passer);
}
