//! The `parmcts` command-line contract for bad input: one `error:` line naming the bad
//! value and exit code 2 (never a panic), and the help text.

mod common;

use std::process::Command;

use common::cli::{json, rejects, rejects_in_one_line, run_text};

#[test]
fn bad_input_is_rejected_with_exit_code_2() {
    rejects(&["solve", "--game", "tictactoe"], "tictactoe");
    rejects(&["solve", "--game", "othello"], "60 empty squares");
    rejects(&["solve", "--game", "connect4", "--moves", "44", "--no-network"], "--no-network");
    rejects(&["search", "--game", "connect4", "--playouts", "10", "--final", "best"], "best");
    rejects(&["play", "--game", "connect4", "--p1", "mcts:final=best"], "best");
    rejects(&["solve", "--game", "connect4", "--moves", "1212121"], "over");
    rejects(&["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--games", "0"], "games");
    rejects(
        &["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--openings", "random:x"],
        "random:x",
    );
    rejects(&["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--sprt", "10,0"], "10,0");
    rejects(&["match", "--game", "tictactoe", "--p1", "minimax:depth=0", "--p2", "random"], "depth");
    rejects(&["match", "--game", "tictactoe", "--p1", "alphabeta", "--p2", "random"], "alphabeta");
    rejects(&["match", "--game", "tictactoe", "--p1", "alphabeta:time-ms=0", "--p2", "random"], "time-ms");
    rejects(&["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--parallel-games", "0"], "parallel");
    rejects(&["perft", "--game", "chess", "--depth", "2"], "chess");
    rejects(&["search", "--game", "chess", "--playouts", "10"], "chess");
    rejects(&["search", "--game", "connect4", "--moves", "448", "--playouts", "10"], "448");
    rejects(&["search", "--game", "connect4", "--moves", "1111111", "--playouts", "10"], "1111111");
    rejects(&["search", "--game", "othello", "--moves", "a1", "--playouts", "10"], "a1");
    rejects(&["search", "--game", "tictactoe", "--playouts", "0"], "playouts");
    rejects(&["search", "--game", "tictactoe", "--time-ms", "0"], "time");
    rejects(&["search", "--game", "tictactoe", "--playouts", "x"], "x");
    rejects(&["search", "--game", "tictactoe", "--playouts", "10", "--c", "-1"], "-1");
    rejects(&["search", "--game", "tictactoe", "--playouts", "10", "--threads", "0"], "threads");
    rejects(&["search", "--game", "tictactoe", "--playouts", "10", "--mode", "fast"], "fast");
    rejects(&["search", "--game", "connect4", "--playouts", "10", "--nodes", "5"], "arena");
    rejects(&["search", "--game", "othello", "--playouts", "10", "--nodes", "1"], "1");
    rejects(&["search", "--game", "connect4", "--moves", "1212121", "--playouts", "10"], "over");
    rejects(&["play", "--game", "tictactoe", "--p1", "alien"], "alien");
    rejects(&["play", "--game", "tictactoe", "--p2", "mcts:speed=9"], "speed");
    rejects(&["play", "--game", "tictactoe", "--p2", "mcts:playouts=0"], "playouts");
    rejects(&["bench", "--threads", "1,0"], "0");
    rejects(&["bench", "--modes", "seq,warp"], "warp");
    rejects(&["bench", "--game", "havannah"], "havannah");
    rejects(&["search", "--game", "connect4", "--playouts", "100", "--in-flight", "wu"], "wu");
    rejects(&["search", "--game", "othello", "--playouts", "100", "--leaves", "0"], "lanes must be 1 to 4 (got 0)");
    rejects(&["play", "--game", "othello", "--p1", "mcts:playouts=10,leaves=9"], "got 9");
    rejects(&["bench", "--game", "othello", "--leaves", "5"], "--lanes");
    rejects(
        &["search", "--game", "connect4", "--playouts", "10", "--replies", "on"],
        "replies=on does not apply to connect4",
    );
    rejects(&["search", "--game", "othello", "--playouts", "10", "--crit", "4"], "crit does not apply to othello");
    rejects(&["search", "--game", "go", "--playouts", "10", "--crit", "-1"], "crit must be finite and >= 0 (got -1)");
    rejects(
        &["search", "--game", "go", "--playouts", "10", "--crit", "4", "--prior-visits", "0", "--bias", "0"],
        "crit=4 conflicts with prior-visits=0",
    );
    let go_match =
        |extra: &[&'static str]| [&["match", "--game", "go", "--p1", "random", "--p2", "random"], extra].concat();
    rejects(&go_match(&["--handicap", "1"]), "1 stones: 9x9 Go has no fixed layout");
    rejects(&go_match(&["--handicap", "10"]), "10 stones");
    rejects(&go_match(&["--komi", "inf"]), "--komi");
    rejects(&go_match(&["--komi", "200"]), "200");
    rejects(&["match", "--game", "othello", "--p1", "random", "--p2", "random", "--komi", "0.5"], "only Go");
    rejects(&["match", "--game", "connect4", "--p1", "random", "--p2", "random", "--handicap", "2"], "only Go");
    rejects(
        &["match", "--game", "connect4", "--p1", "mcts:playouts=10,dyn-komi=on", "--p2", "random"],
        "dyn-komi=on does not apply to connect4",
    );
}

#[test]
fn bounds_and_conflicts_are_rejected_naming_the_values() {
    let search = |extra: &[&'static str]| -> Vec<&'static str> {
        [&["search", "--game", "tictactoe", "--playouts", "1000"][..], extra].concat()
    };
    rejects_in_one_line(&search(&["--threads", "4294967296", "--mode", "tree"]), &["--threads", "at most 1024"]);
    rejects_in_one_line(&search(&["--threads", "100000", "--mode", "tree"]), &["100000"]);
    rejects_in_one_line(&["play", "--game", "tictactoe", "--p1", "mcts:mode=tree,threads=100000000000"], &["1024"]);
    rejects_in_one_line(&search(&["--memory-mb", "99999999"]), &["too large"]);
    rejects_in_one_line(&search(&["--nodes", "4294967296"]), &["4294967296", "too large"]);
    rejects_in_one_line(&search(&["--c", "1e100"]), &["--c", "32-bit"]);
    rejects_in_one_line(&search(&["--memory-mb", "10", "--nodes", "100"]), &["memory-mb=10", "nodes=100"]);
    rejects_in_one_line(&search(&["--mode", "seq", "--threads", "4"]), &["mode=seq", "threads=4"]);
    rejects_in_one_line(
        &["play", "--game", "tictactoe", "--p1", "mcts:playouts=10,playouts=20"],
        &["playouts given twice"],
    );
    rejects_in_one_line(&["play", "--game", "tictactoe", "--p1", "alphabeta:depth=2,depth=3"], &["depth given twice"]);
}

#[test]
fn argument_errors_are_one_line() {
    rejects_in_one_line(&["perft", "--game", "chess", "--depth", "2"], &["chess", "tictactoe, connect4, othello"]);
    rejects_in_one_line(&["search", "--game", "tictactoe", "--bogus"], &["--bogus"]);
    rejects_in_one_line(&["search", "--game", "tictactoe", "--virtual-loss", "-1"], &["--virtual-loss", "'-1'"]);
    rejects_in_one_line(&["bench", "--game", "havannah"], &["havannah"]);
    use std::os::unix::ffi::OsStrExt;
    let not_utf8 = std::ffi::OsStr::from_bytes(b"4\xff4");
    let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["search", "--game", "connect4", "--moves"])
        .arg(not_utf8)
        .output()
        .expect("run parmcts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn move_errors_quote_only_the_move() {
    let search = |moves: &str| run_text(&["search", "--game", "connect4", "--moves", moves, "--playouts", "10"]).2;
    assert!(search("8").contains("malformed move '8' (expected a column 1-7)"), "{}", search("8"));
    assert!(search("1111111").contains("illegal move '1' (move 7)"), "{}", search("1111111"));
}

#[test]
fn othello_boards_may_start_with_a_dash_and_carry_the_side() {
    let start = "---------------------------OX------XO---------------------------";
    for moves in [format!("{start} X"), format!("{start}X")] {
        let v = json(&["perft", "--game", "othello", "--depth", "3", "--moves", &moves, "--json"]);
        assert_eq!(v["nodes"], 56, "{moves}");
    }
    let v = json(&["search", "--game", "othello", "--moves", &format!("{start}O"), "--playouts", "100", "--json"]);
    assert_eq!(v["playouts"], 100);
}

#[test]
fn help_shows_defaults_and_the_spec_grammar() {
    let help = |args: &[&str]| {
        let (code, stdout, _) = run_text(args);
        assert_eq!(code, Some(0));
        stdout
    };
    let search = help(&["search", "--help"]);
    let per_game = "[default: per game: tictactoe 1.4142135, connect4 0.5, othello 0.3, go 0.1, go13 0.1,";
    for needle in [
        "[default: 100000",
        "--mode <auto|seq|tree|root|sync|virtual|dist>",
        "[default: auto: seq at 1 thread, else tree]",
        "[default: 384]",
        "[default: 8]",
        per_game,
        "[default: per game: tictactoe none, connect4 none, othello network, go none,",
        "[default: per game: tictactoe 0, connect4 0, othello 0.6, go 0,",
        "[default: per game: tictactoe biased, connect4 biased, othello biased, go biased,",
        "[default: per game: tictactoe 0, connect4 0, othello 0, go 1000,",
    ] {
        assert!(search.contains(needle), "search --help lacks {needle}: {search}");
    }
    for command in ["play", "match"] {
        assert!(help(&[command, "--help"]).contains("Player specs: `random`"), "{command} --help");
    }
    assert!(help(&["solve", "--help"]).contains("minutes"));
    assert!(help(&["bench", "--help"]).contains("x seq"));
}

/// Without the `mpi` feature the distributed mode is a clear error, not a silent
/// fallback.
#[cfg(not(feature = "mpi"))]
#[test]
fn dist_mode_without_the_mpi_feature_exits_2() {
    rejects(&["search", "--game", "connect4", "--mode", "dist", "--playouts", "100"], "mpi feature");
}
