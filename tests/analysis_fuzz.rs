//! 100,000 random and mutated lines through the analysis engine (seeded): no panic, no
//! hang, every reply one well-formed JSON object, and every line that kept its id
//! answered under it (an analysis, `noResults`, an error, or the action's echo).

use std::collections::HashSet;
use std::time::Duration;

use parmcts::analysis::{AnalysisConfig, Engine, Replies};
use parmcts::{GameKind, SearchConfig};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;

const LINES: usize = 100_000;

/// Valid queries and actions of every kind (`{ID}` is each line's id).
const CORPUS: &[&str] = &[
    r#"{"id":"{ID}","game":"tictactoe","moves":["5","1"],"analyzeTurns":[0,2]}"#,
    r#"{"id":"{ID}","game":"connect4","moves":[["B","4"],["W","4"]],"maxVisits":30,"priority":3}"#,
    r#"{"id":"{ID}","game":"othello","moves":[["B","d3"],["W","c5"]],"includePolicy":true,"maxVisits":20}"#,
    r#"{"id":"{ID}","game":"othello","initialPosition":"---------------------------OX------XO--------------------------- X"}"#,
    r#"{"id":"{ID}","moves":[["B","E5"],["W","C3"]],"komi":6.5,"rules":"tromp-taylor","boardXSize":9,"boardYSize":9,"includeOwnership":true,"maxVisits":10}"#,
    r#"{"id":"{ID}","initialStones":[["B","D4"],["W","F6"]],"initialPlayer":"W","moves":[],"boardXSize":9,"boardYSize":9,"maxVisits":10}"#,
    r#"{"id":"{ID}","game":"hex9","moves":[["B","e5"]],"maxVisits":20,"reportDuringSearchEvery":0.01}"#,
    r#"{"id":"{ID}","game":"connect4x","initialPosition":"5x5:","maxVisits":20}"#,
    r#"{"id":"{ID}","game":"einstein","maxVisits":20,"overrideSettings":{"c":0.9,"maxTime":0.01}}"#,
    r#"{"id":"{ID}","game":"tictactoe","moves":["5"],"analyzeTurns":[0,1],"priorities":[1,2],"overrideSettings":{"final":"value"}}"#,
    r#"{"id":"{ID}","action":"query_version"}"#,
    r#"{"id":"{ID}","action":"clear_cache"}"#,
    r#"{"id":"{ID}","action":"terminate","terminateId":"L7","turnNumbers":[0]}"#,
];

/// Stops everything queued: one line in a thousand of the last tenth (earlier, each
/// would empty a queue that the reader fills faster than the searches drain it).
const TERMINATE_ALL: &str = r#"{"id":"{ID}","action":"terminate_all"}"#;

/// Values a mutation puts in place of a JSON value.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1e400",
    "18446744073709551616",
    "0.5",
    "true",
    "null",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "[[\"B\"]]",
    "[\"B\",\"Q4\"]",
    "\"pass\"",
    "1.25",
    "999999999",
    "\"tromp-taylor\"",
    "[0,1,2,3,4,5]",
    "\"go19\"",
    "\"W\"",
];

fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// One line: random bytes, a valid line, or a valid line mutated once or twice.
fn fuzz_line(rng: &mut Xoshiro256PlusPlus, n: usize) -> String {
    let id = format!("L{n}");
    let source =
        if n > LINES / 10 * 9 && below(rng, 1000) == 0 { TERMINATE_ALL } else { CORPUS[below(rng, CORPUS.len())] };
    let mut line = source.replace("{ID}", &id);
    match below(rng, 10) {
        0 => return (0..below(rng, 60)).map(|_| char::from(32 + below(rng, 95) as u8)).collect(),
        1 | 2 => return line,
        _ => {}
    }
    for _ in 0..1 + below(rng, 2) {
        let bytes = line.len();
        if bytes == 0 {
            break;
        }
        match below(rng, 6) {
            // A character deleted, inserted or changed.
            0 => {
                line.remove(below(rng, bytes));
            }
            1 => {
                const CHARS: &[u8] = b"{}[],:\"0aB-.";
                line.insert(below(rng, bytes + 1), CHARS[below(rng, CHARS.len())] as char);
            }
            // The text cut short.
            2 => line.truncate(below(rng, bytes)),
            // A value replaced (the text after a colon, up to the next comma or brace).
            3 | 4 => {
                let colons: Vec<usize> = line.match_indices(':').map(|(i, _)| i).collect();
                if let Some(&at) = colons.get(below(rng, colons.len().max(1))) {
                    let end = line[at + 1..].find([',', '}']).map_or(line.len(), |e| at + 1 + e);
                    line.replace_range(at + 1..end, VALUES[below(rng, VALUES.len())]);
                }
            }
            // A field given twice (the last one wins in JSON as serde reads it).
            _ => {
                if let Some(close) = line.rfind('}') {
                    line.insert_str(close, &format!(",\"maxVisits\":{}", VALUES[below(rng, VALUES.len())]));
                }
            }
        }
    }
    line
}

#[test]
fn fuzzed_lines_each_get_well_formed_replies() {
    let search = SearchConfig::builder().playouts(20).seed(3).build().unwrap();
    let mut config = AnalysisConfig::new(GameKind::Go, search, 2);
    config.max_visits = Some(50);
    config.max_time = Some(Duration::from_millis(50));
    let replies = Replies::default();
    let engine = Engine::new(config, Box::new(replies.clone())).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let mut kept_id = HashSet::new();
    let mut seen: Vec<String> = Vec::new();
    for n in 0..LINES {
        let id = format!("L{n}");
        let line = fuzz_line(&mut rng, n);
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(&line) {
            if o.get("id").and_then(Value::as_str) == Some(id.as_str()) {
                kept_id.insert(id);
            }
        }
        engine.handle(&line);
        // Paced as a client would: the searches keep up with the reader.
        while engine.queued() > 64 {
            std::thread::sleep(Duration::from_micros(200));
        }
        if n % 1000 == 0 {
            seen.extend(replies.take_lines());
        }
    }
    engine.finish();
    seen.extend(replies.take_lines());
    let mut answered = HashSet::new();
    let (mut analyses, mut errors) = (0, 0);
    for text in &seen {
        let reply: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let Value::Object(reply) = reply else { panic!("{text}: not an object") };
        let kinds = ["error", "warning", "moveInfos", "noResults", "action"];
        let kind: Vec<&str> = kinds.iter().copied().filter(|k| reply.contains_key(*k)).collect();
        assert_eq!(kind.len(), 1, "{text}: one kind of reply");
        analyses += usize::from(kind[0] == "moveInfos");
        errors += usize::from(kind[0] == "error");
        if kind[0] == "moveInfos" {
            assert!(reply["rootInfo"]["visits"].as_u64().unwrap() <= 50, "{text}");
        }
        if kind[0] != "warning" {
            if let Some(id) = reply.get("id").and_then(Value::as_str) {
                answered.insert(id.to_string());
            }
        }
    }
    let unanswered: Vec<&String> = kept_id.iter().filter(|id| !answered.contains(*id)).take(5).collect();
    assert!(unanswered.is_empty(), "lines with no reply: {unanswered:?}");
    // The corpus reaches past the reader: many searches ran, many lines were refused.
    assert!(analyses > LINES / 10 && errors > LINES / 10, "{analyses} analyses, {errors} errors");
}
