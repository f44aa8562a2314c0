//! The JSON-lines analysis engine (`parmcts analysis`, docs/ANALYSIS.md): every game
//! analysed, turns answered once each, priorities respected with one analysis thread,
//! `terminate` of running and queued turns, errors that name their field while the
//! other queries are served, and the command line's stdin and stdout.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use parmcts::analysis::{AnalysisConfig, Engine, Replies};
use parmcts::{with_game, Game, GameKind, SearchConfig};
use serde_json::Value;

fn engine(threads: usize, playouts: u64) -> (Engine, Replies) {
    let search = SearchConfig::builder().playouts(playouts).seed(7).build().unwrap();
    let replies = Replies::default();
    let engine = Engine::new(AnalysisConfig::new(GameKind::Go, search, threads), Box::new(replies.clone())).unwrap();
    (engine, replies)
}

fn parsed(lines: Vec<String>) -> Vec<Value> {
    lines.iter().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

/// Runs `queries` to the end of the input and returns the replies.
fn run(threads: usize, playouts: u64, queries: &[&str]) -> Vec<Value> {
    let (engine, replies) = engine(threads, playouts);
    for q in queries {
        engine.handle(q);
    }
    engine.finish();
    parsed(replies.take_lines())
}

/// The final analyses (not `isDuringSearch`) among `replies`.
fn finals(replies: &[Value]) -> Vec<&Value> {
    replies.iter().filter(|r| r["isDuringSearch"] == false && r.get("moveInfos").is_some()).collect()
}

/// Waits for a reply matching `wanted`, keeping every line read in `seen`.
fn wait_for(replies: &Replies, seen: &mut Vec<Value>, wanted: impl Fn(&Value) -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    while !seen.iter().any(&wanted) {
        assert!(Instant::now() < until, "no such reply in {seen:?}");
        std::thread::sleep(Duration::from_millis(2));
        seen.extend(parsed(replies.take_lines()));
    }
}

/// Every move of `reply` (and its principal variation) is legal from `position`.
fn check_moves<G: Game>(position: &G, reply: &Value) {
    let infos = reply["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty(), "{reply}");
    let mut visits = 0;
    for (order, info) in infos.iter().enumerate() {
        assert_eq!(info["order"], order);
        let pv = info["pv"].as_array().unwrap();
        assert_eq!(pv[0], info["move"]);
        let mut game = position.clone();
        for mv in pv {
            let mv = game.parse_move(mv.as_str().unwrap()).unwrap();
            game.try_play(mv).unwrap_or_else(|e| panic!("{reply}: {e}"));
        }
        let (w, lcb) = (info["winrate"].as_f64().unwrap(), info["lcb"].as_f64().unwrap());
        assert!((0.0..=1.0).contains(&w) && lcb <= w, "{info}");
        visits += info["visits"].as_u64().unwrap();
    }
    assert_eq!(reply["rootInfo"]["visits"], visits);
    let to_move = if position.side_to_move() == parmcts::Player::One { "B" } else { "W" };
    assert_eq!(reply["rootInfo"]["currentPlayer"], to_move);
}

#[test]
fn every_game_is_analysed() {
    for &kind in GameKind::ALL {
        let query = format!(r#"{{"id":"{kind}","game":"{kind}","maxVisits":300}}"#);
        let replies = run(1, 1_000, &[&query]);
        let finals = finals(&replies);
        assert_eq!(finals.len(), 1, "{kind}: {replies:?}");
        assert_eq!(finals[0]["id"], kind.name());
        with_game!(kind, G => check_moves(&G::new(), finals[0]));
        let visits = finals[0]["rootInfo"]["visits"].as_u64().unwrap();
        assert!(visits == 300 || finals[0]["moveInfos"][0].get("proven").is_some(), "{kind}: {visits}");
    }
}

#[test]
fn each_turn_ends_with_one_final_analysis() {
    let q = r#"{"id":"g","game":"othello","moves":[["B","d3"],["W","c5"],["B","f6"]],"analyzeTurns":[3,0,2,1],
               "maxVisits":2000,"reportDuringSearchEvery":0.01,"includePolicy":true}"#
        .replace('\n', "");
    let replies = run(2, 1_000, &[&q]);
    let mut turns: Vec<u64> = finals(&replies).iter().map(|r| r["turnNumber"].as_u64().unwrap()).collect();
    turns.sort_unstable();
    assert_eq!(turns, vec![0, 1, 2, 3]);
    let mut position = parmcts::games::othello::Othello::new();
    let moves = ["d3", "c5", "f6"];
    for turn in 0..=3 {
        let last = replies.iter().rposition(|r| r["turnNumber"] == turn).unwrap();
        assert_eq!(replies[last]["isDuringSearch"], false, "a turn's last reply is its final one");
        check_moves(&position, &replies[last]);
        let policy = replies[last]["policy"].as_array().unwrap();
        assert_eq!(policy.len(), position.legal_moves().as_ref().len());
        if turn < 3 {
            position.play_sequence(moves[turn as usize]).unwrap();
        }
    }
}

#[test]
fn the_same_query_gives_the_same_analysis() {
    let q = r#"{"id":"r","game":"connect4","moves":["4","4","3"],"maxVisits":3000}"#;
    let strip = |mut v: Value| {
        v["rootInfo"]["seconds"] = Value::Null;
        v
    };
    let a: Vec<Value> = run(1, 1_000, &[q]).into_iter().map(strip).collect();
    let b: Vec<Value> = run(1, 1_000, &[q]).into_iter().map(strip).collect();
    assert_eq!(a, b);
}

#[test]
fn higher_priorities_go_first() {
    let (engine, replies) = engine(1, 1_000);
    let mut seen = Vec::new();
    // The thread is busy with a long search before the others arrive.
    engine.handle(r#"{"id":"long","game":"connect4","maxVisits":400000,"reportDuringSearchEvery":0.01}"#);
    wait_for(&replies, &mut seen, |r| r["id"] == "long");
    for (id, priority) in [("low", -1), ("mid", 0), ("high", 5), ("mid2", 0)] {
        engine.handle(&format!(r#"{{"id":"{id}","game":"tictactoe","maxVisits":100,"priority":{priority}}}"#));
    }
    engine.finish();
    seen.extend(parsed(replies.take_lines()));
    let order: Vec<&str> = finals(&seen).iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(order, vec!["long", "high", "mid", "mid2", "low"]);
}

#[test]
fn terminate_stops_running_turns_and_drops_queued_ones() {
    let (engine, replies) = engine(1, 1_000);
    let mut seen = Vec::new();
    engine.handle(r#"{"id":"a","game":"connect4","maxVisits":100000000,"reportDuringSearchEvery":0.01}"#);
    wait_for(&replies, &mut seen, |r| r["id"] == "a" && r["rootInfo"]["visits"].as_u64() > Some(0));
    engine.handle(r#"{"id":"b","game":"tictactoe","moves":["5"],"analyzeTurns":[0,1],"maxVisits":100}"#);
    engine.handle(r#"{"id":"t1","action":"terminate","terminateId":"b","turnNumbers":[1]}"#);
    engine.handle(r#"{"id":"t2","action":"terminate","terminateId":"a"}"#);
    wait_for(&replies, &mut seen, |r| r["id"] == "a" && r["isDuringSearch"] == false);
    engine.finish();
    seen.extend(parsed(replies.take_lines()));
    let a = seen.iter().find(|r| r["id"] == "a" && r["isDuringSearch"] == false).unwrap();
    let visits = a["rootInfo"]["visits"].as_u64().unwrap();
    assert!(visits > 0 && visits < 100_000_000, "{visits}");
    let b: Vec<&Value> = seen.iter().filter(|r| r["id"] == "b").collect();
    assert_eq!(b.len(), 2, "{b:?}");
    assert!(b.iter().any(|r| r["turnNumber"] == 1 && r["noResults"] == true));
    assert!(b.iter().any(|r| r["turnNumber"] == 0 && r.get("moveInfos").is_some()));
    for ack in ["t1", "t2"] {
        let echoed = seen.iter().find(|r| r["id"] == ack).unwrap();
        assert_eq!(echoed["action"], "terminate");
    }
}

#[test]
fn bad_queries_are_answered_and_the_others_served() {
    let replies = run(
        2,
        500,
        &[
            r#"{"id":"ok1","game":"tictactoe"}"#,
            r#"{"id":"bad","game":"othello","moves":[["B","d3"],["B","c5"]]}"#,
            "{not json",
            r#"{"id":"over","game":"tictactoe","moves":["1","4","2","5","3"]}"#,
            r#"{"id":"warn","game":"othello","komi":6.5,"includeOwnership":true,"colour":"red"}"#,
            r#"{"id":"ok2","game":"go","boardXSize":13,"boardYSize":13,"includeOwnership":true,"maxVisits":200}"#,
            r#"{"id":"v","action":"query_version"}"#,
        ],
    );
    let of = |id: &str| replies.iter().filter(|r| r["id"] == id).collect::<Vec<_>>();
    assert_eq!(of("bad")[0]["field"], "moves");
    assert_eq!(of("over")[0]["field"], "analyzeTurns");
    assert!(replies.iter().any(|r| r.get("id").is_none() && r["error"].as_str().unwrap().contains("JSON")));
    let warned: Vec<&str> = of("warn").iter().filter_map(|r| r["field"].as_str()).collect();
    assert_eq!(warned, vec!["komi", "includeOwnership", "colour"]);
    assert_eq!(finals(&replies).len(), 3, "ok1, warn and ok2 are served");
    let go = of("ok2").into_iter().find(|r| r["isDuringSearch"] == false).unwrap();
    let ownership = go["ownership"].as_array().unwrap();
    assert_eq!(ownership.len(), 169);
    assert!(ownership.iter().all(|v| (-1.0..=1.0).contains(&v.as_f64().unwrap())));
    assert_eq!(of("v")[0]["schema"], parmcts::analysis::SCHEMA_VERSION);
}

#[test]
fn the_command_reads_stdin_and_refuses_bad_flags() {
    let bin = env!("CARGO_BIN_EXE_parmcts");
    let mut child = Command::new(bin)
        .args(["analysis", "--game", "connect4", "--analysis-threads", "2", "--max-visits", "5000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"id":"a","moves":["4"],"maxVisits":500}}"#).unwrap();
    writeln!(stdin, r#"{{"id":"b","maxVisits":6000}}"#).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let replies = parsed(String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect());
    assert_eq!(replies.len(), 2, "{replies:?}");
    let a = replies.iter().find(|r| r["id"] == "a").unwrap();
    assert_eq!(a["rootInfo"]["visits"], 500);
    let b = replies.iter().find(|r| r["id"] == "b").unwrap();
    assert_eq!(b["field"], "maxVisits");
    for bad in [&["--analysis-threads", "0"][..], &["--max-time", "-1"], &["--mode", "dist"], &["--playouts", "0"]] {
        let out = Command::new(bin).arg("analysis").args(bad).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "), "{bad:?}");
    }
}
