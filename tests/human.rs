//! A person at the board (`--p1 human`), through the real binary with piped stdin: a
//! whole game typed move by move against MCTS, mistyped and illegal moves, `undo`,
//! `hint`, `quit`, the end of the input, `--json`, and a short match. Every board the
//! binary draws is checked against the game replayed here.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use parmcts::{ConnectFour, Einstein, Game, Outcome, Player, TicTacToe};
use serde_json::Value;

/// What ends a prompt: `p1 (X) to move> `.
const PROMPT_END: &str = " to move> ";

/// The binary, run with `args`, talked to line by line.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<Vec<u8>>,
    stderr: Option<JoinHandle<String>>,
    /// Everything written to stdout so far.
    text: String,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_parmcts"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run parmcts");
        let mut stdout = child.stdout.take().unwrap();
        let (sender, receiver) = mpsc::channel();
        thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut buffer) {
                if sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Session { stdin: child.stdin.take(), child, stdout: receiver, stderr: Some(stderr), text: String::new() }
    }

    /// The output up to the next prompt (`true`) or to the end of the output (`false`).
    fn next(&mut self) -> (String, bool) {
        let start = self.text.len();
        loop {
            if self.text.len() > start && self.text.ends_with(PROMPT_END) {
                return (self.text[start..].to_string(), true);
            }
            match self.stdout.recv_timeout(Duration::from_secs(120)) {
                Ok(chunk) => self.text.push_str(&String::from_utf8_lossy(&chunk)),
                Err(RecvTimeoutError::Disconnected) => return (self.text[start..].to_string(), false),
                Err(RecvTimeoutError::Timeout) => panic!("no prompt within 120 s after: {}", &self.text[start..]),
            }
        }
    }

    /// Types `line`, and returns the output up to the next prompt, which must come.
    fn answer(&mut self, line: &str) -> String {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let (text, prompted) = self.next();
        assert!(prompted, "after '{line}' the program ended: {text}");
        text
    }

    /// Closes the input and waits: the exit status and stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        while self.next().1 {}
        let status = self.child.wait().unwrap();
        (status, self.stderr.take().unwrap().join().unwrap())
    }
}

/// Runs the binary with `args` and all of `input` on stdin: exit status, stdout, stderr.
fn run_piped(args: &[&str], input: &str) -> (ExitStatus, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run parmcts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // The program may end before it has read everything: a broken pipe is fine.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (out.status, text(&out.stdout), text(&out.stderr))
}

/// Replays the plies that `transcript` narrates (`p1 plays 5`, `the die shows d3`,
/// `p2 takes back 2 plies`) from `start`, asserting that the board drawn after each is
/// the game's; returns the position reached and the number of boards checked.
fn check_boards<G: Game>(start: G, transcript: &str) -> (G, usize) {
    let lines: Vec<&str> = transcript.lines().collect();
    let mut history = vec![start];
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        // A prompt and the narration share a line when the input is not echoed.
        let line = line.rsplit(PROMPT_END).next().unwrap_or(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        let position = match words.as_slice() {
            [_, "plays", mv] | ["the", "die", "shows", mv] => {
                let mut game = history.last().unwrap().clone();
                let parsed = game.parse_move(mv).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
                game.try_play(parsed).unwrap_or_else(|e| panic!("line {}: {line}: {e}", i + 1));
                history.push(game);
                history.last().unwrap()
            }
            [_, "takes", "back", n, _] => {
                let n: usize = n.parse().unwrap();
                assert!(n >= 1 && n < history.len(), "line {}: {line}", i + 1);
                history.truncate(history.len() - n);
                history.last().unwrap()
            }
            _ => continue,
        };
        let board = position.render();
        let drawn = lines[i + 1..].iter().take(board.lines().count()).copied().collect::<Vec<_>>();
        assert_eq!(drawn, board.lines().collect::<Vec<_>>(), "the board after line {}: {line}", i + 1);
        checked += 1;
    }
    (history.pop().unwrap(), checked)
}

/// The last line of `text`, after the prompt it may follow (the input is not echoed).
fn last_line(text: &str) -> &str {
    let line = text.lines().last().unwrap_or("");
    line.rsplit(PROMPT_END).next().unwrap_or(line)
}

/// `p1`, `p2` or `draw` for a finished game.
fn result_of<G: Game>(game: &G) -> &'static str {
    match game.outcome() {
        Some(Outcome::Win(Player::One)) => "p1",
        Some(Outcome::Win(Player::Two)) => "p2",
        Some(Outcome::Draw) => "draw",
        None => panic!("the game is not over: {game:?}"),
    }
}

/// `cycles` times every cell 1-`n`, one a line: a person who tries the cells in order
/// until one is legal.
fn cells_in_order(n: u32, cycles: usize) -> String {
    (0..cycles).flat_map(|_| 1..=n).map(|c| format!("{c}\n")).collect()
}

#[test]
fn a_person_plays_a_whole_game_of_tictactoe_against_mcts() {
    let mut session = Session::start(&["play", "--game", "tictactoe", "--p1", "human", "--p2", "mcts:playouts=200"]);
    let (first, prompted) = session.next();
    assert!(prompted && first.starts_with("...\n...\n...\n") && first.ends_with("p1 (X) to move> "), "{first}");

    let text = session.answer("ten");
    assert!(text.starts_with("malformed move 'ten' (expected a cell 1-9)"), "one line naming the error: {text}");
    assert_eq!(text.lines().count(), 2, "{text}");
    let text = session.answer("undo");
    assert!(text.starts_with("nothing to undo"), "{text}");

    let text = session.answer("5");
    assert!(text.starts_with("p1 plays 5\n...\n.X.\n...\n\np2 plays "), "{text}");
    let text = session.answer("5");
    assert!(text.starts_with("illegal move '5': not legal in this position (legal: "), "{text}");

    let text = session.answer("hint");
    assert!(text.starts_with("hint from MCTS with the opponent's settings: 200 playouts"), "{text}");
    let (position, _) = check_boards(TicTacToe::new(), &session.text);
    let rows: Vec<Vec<&str>> =
        text.lines().skip(1).filter(|l| !l.ends_with(PROMPT_END)).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 3, "three moves: {text}");
    let mut visits = Vec::new();
    for row in &rows {
        // `3      visits      26  win rate  71.2 %`
        assert!(matches!(row[..], [_, "visits", _, "win", "rate", _, "%"]), "{row:?}");
        let mv = position.parse_move(row[0]).unwrap();
        assert!(position.legal_moves().contains(&mv), "{row:?} is legal");
        let rate: f64 = row[5].parse().unwrap();
        assert!((0.0..=100.0).contains(&rate), "{row:?}");
        visits.push(row[2].parse::<u64>().unwrap());
    }
    assert!(visits.windows(2).all(|w| w[0] >= w[1]) && visits.iter().sum::<u64>() <= 200, "{visits:?}");

    let text = session.answer("undo");
    assert!(text.starts_with("p1 takes back 2 plies\n...\n...\n...\n"), "{text}");

    // Play it out: the first legal cell each turn.
    let mut prompted = true;
    while prompted {
        let (position, _) = check_boards(TicTacToe::new(), &session.text);
        let mv = position.legal_moves()[0];
        let stdin = session.stdin.as_mut().unwrap();
        writeln!(stdin, "{}", position.format_move(mv)).unwrap();
        prompted = session.next().1;
    }
    let transcript = session.text.clone();
    let (status, stderr) = session.finish();
    assert!(status.success(), "{stderr}");
    let (end, boards) = check_boards(TicTacToe::new(), &transcript);
    assert!(boards >= 5 + 2, "a board after every ply: {boards}");
    let result = last_line(&transcript);
    let moves: String = result.split("moves: ").nth(1).unwrap().split_whitespace().collect();
    assert_eq!(TicTacToe::parse_position(&moves).unwrap(), end, "{result}");
    assert!(result.starts_with(&format!("result: {}  moves:", result_of(&end))), "{result}");
}

#[test]
fn a_typed_connect_four_game_with_json_keeps_stdout_for_the_report() {
    // The person tries the columns in order until one is legal: full columns are
    // refused with a message, never lost.
    let args = ["play", "--game", "connect4", "--p1", "mcts:playouts=200", "--p2", "human", "--json"];
    let (status, stdout, stderr) = run_piped(&args, &cells_in_order(7, 40));
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "one JSON object: {stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let moves: Vec<&str> = report["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let end = ConnectFour::parse_position(&moves.concat()).unwrap();
    assert_eq!(report["result"], result_of(&end), "{stdout}");
    assert_eq!(report["ending"], "rules");
    // The boards and the prompts went to stderr, and they are the game's.
    let (drawn, boards) = check_boards(ConnectFour::new(), &stderr);
    assert_eq!(drawn, end);
    assert_eq!(boards, moves.len());
    assert!(stderr.contains("p2 (O) to move> "), "{stderr}");
}

#[test]
fn quit_abandons_the_game_with_exit_status_0() {
    let args = ["play", "--game", "tictactoe", "--p1", "human", "--p2", "mcts:playouts=200"];
    let (status, stdout, stderr) = run_piped(&args, "5\nquit\n9\n");
    assert!(status.success(), "{stderr}");
    let last = last_line(&stdout);
    assert!(last.starts_with("result: abandoned (p1 quit)  moves: 5 "), "{stdout}");
    assert_eq!(last.split("moves: ").nth(1).unwrap().split_whitespace().count(), 2, "the 9 was never read: {last}");
    let (status, stdout, _) = run_piped(&[&args[..], &["--json"]].concat(), "quit\n");
    assert!(status.success());
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["result"], "abandoned", "{stdout}");
    assert_eq!(report["ending"], "quit", "{stdout}");
    assert_eq!(report["detail"], "p1 quit", "{stdout}");
}

#[test]
fn the_end_of_the_input_quits() {
    let args = ["play", "--game", "connect4", "--p1", "mcts:playouts=200", "--p2", "human"];
    let (status, stdout, stderr) = run_piped(&args, "");
    assert!(status.success(), "{stderr}");
    assert!(stdout.contains("p2 (O) to move> \nend of input\n"), "{stdout}");
    let last = last_line(&stdout);
    assert!(last.starts_with("result: abandoned (p2 quit)  moves: "), "{stdout}");
    assert_eq!(check_boards(ConnectFour::new(), &stdout).1, 1, "the engine's one move");
}

#[test]
fn in_einstein_the_person_moves_after_the_referees_roll() {
    let args = ["play", "--game", "einstein", "--p1", "human", "--p2", "random", "--seed", "5"];
    let (status, stdout, stderr) = run_piped(&args, "help\nd3\n");
    assert!(status.success(), "{stderr}");
    let (position, boards) = check_boards(Einstein::new(), &stdout);
    assert_eq!(boards, 1, "the roll: {stdout}");
    let roll = stdout.lines().find(|l| l.starts_with("the die shows ")).unwrap();
    let prompt = stdout.find("p1 (R) to move> ").unwrap();
    assert!(stdout.find(roll).unwrap() < prompt, "{stdout}");
    let legal: Vec<String> = position.legal_moves().iter().map(|&m| position.format_move(m)).collect();
    assert!(stdout.contains(&format!("legal moves here: {}\n", legal.join(" "))), "{stdout}");
    assert!(stdout.contains("illegal move 'd3'"), "a roll is not the person's: {stdout}");
}

#[test]
fn a_short_match_alternates_the_person_s_colour() {
    let args = ["match", "--game", "tictactoe", "--p1", "human", "--p2", "mcts:playouts=100", "--games", "2"];
    let (status, stdout, stderr) = run_piped(&args, &cells_in_order(9, 20));
    assert!(status.success(), "{stderr}");
    let second = stdout.find("game 2 of 2: p2 is X and moves first, p1 is O\n").expect(&stdout);
    let (one, two) = stdout.split_at(second);
    assert!(one.starts_with("game 1 of 2: p1 is X and moves first, p2 is O\n"), "{stdout}");
    assert!(one.contains("p1 (X) to move> ") && two.contains("p1 (O) to move> "), "{stdout}");
    for (game, text) in [one, two].into_iter().enumerate() {
        let (end, _) = check_boards(TicTacToe::new(), text);
        assert!(end.outcome().is_some(), "game {} finished: {text}", game + 1);
        assert!(text.contains(&format!("game {}: ", game + 1)), "{text}");
    }
    assert!(stdout.contains("human vs mcts:playouts=100 in tictactoe (2 games)"), "{stdout}");
}

#[test]
fn a_match_with_a_person_refuses_games_at_the_same_time() {
    let args =
        ["match", "--game", "tictactoe", "--p1", "human", "--p2", "random", "--games", "2", "--parallel-games", "2"];
    let (status, _, stderr) = run_piped(&args, "");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: --parallel-games must be 1 with a human player"), "{stderr}");
    let (status, _, stderr) = run_piped(&["play", "--game", "tictactoe", "--p1", "human:x=1"], "");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown option 'x' for human"), "{stderr}");
}

#[test]
fn an_undo_takes_the_moves_back_from_an_external_engine_too() {
    // The engine is this binary over GTP: without GTP's `undo` it would refuse the
    // second d3 (its point taken) and forfeit.
    let engine = format!("gtp:{} gtp --game othello --playouts 50", env!("CARGO_BIN_EXE_parmcts"));
    let args = ["play", "--game", "othello", "--p1", "human", "--p2", &engine];
    let (status, stdout, stderr) = run_piped(&args, "d3\nundo\nd3\nquit\n");
    assert!(status.success(), "{stderr}");
    assert!(stdout.contains("p1 takes back 2 plies"), "{stdout}");
    let (_, boards) = check_boards(parmcts::Othello::new(), &stdout);
    assert_eq!(boards, 5, "d3, the reply, the take-back, d3, the reply: {stdout}");
    assert!(last_line(&stdout).starts_with("result: abandoned (p1 quit)  moves: d3 "), "{stdout}");
}
