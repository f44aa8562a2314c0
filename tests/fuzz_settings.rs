//! The settings' text under fuzzing (seeded; `PARMCTS_FUZZ_INPUTS` inputs per parser,
//! 10,000 by default): player specs, search settings (`key=value` through
//! `SearchConfigBuilder::apply_settings`, then `build`), SPRT settings, openings, bench
//! modes and game names. Inputs come from the settings' own table (every key, its
//! alternatives, numbers at and past their bounds), mutated, and junk. No call may panic
//! or take longer than a second; a rejection is a one-line error; an accepted text,
//! written back (values as Rust prints their numbers, options in another order), reads
//! as the same value.

mod common;

use common::fuzz::{assert_one_line, fuzz, Fuzz};
use parmcts::harness::benchmark::BenchMode;
use parmcts::harness::matches::{Openings, Sprt};
use parmcts::harness::players::PlayerSpec;
use parmcts::search::{Setting, SETTINGS};
use parmcts::{GameKind, SearchConfig};

/// The keys of the baseline players (`minimax:`, `alphabeta:`, `expectimax:`).
const BASELINE_KEYS: &[&str] = &["depth", "time-ms", "tt-mb", "eval", "endgame"];

/// Player kinds, and a few strangers.
const KINDS: &[&str] =
    &["mcts", "mcts", "mcts", "random", "human", "minimax", "alphabeta", "expectimax", "gtp", "MCTS", ""];

/// A search setting's key (an alias at times), or a stranger.
fn search_key(f: &mut Fuzz) -> String {
    match f.below(12) {
        0 => f.pick(BASELINE_KEYS).to_string(),
        1 => f.junk(6),
        2 => "leaves".to_string(),
        _ => f.pick(SETTINGS).key.to_string(),
    }
}

/// A value for `key`: one of its alternatives (`on|off`), a number, or junk. A file
/// name never holds a `/` (nothing outside the crate's folder is opened).
fn value_for(f: &mut Fuzz, key: &str) -> String {
    let names = Setting::find(key).map(|s| s.value_name).unwrap_or("N");
    let roll = f.below(8);
    let value = if roll < 4 && names.contains('|') {
        let choices: Vec<&str> = names.split('|').collect();
        let choice = *f.pick(&choices);
        if choice == "FILE" { "no-such-file.pmnt" } else { choice }.to_string()
    } else {
        match roll {
            0..=2 | 6 => f.number(),
            3..=5 => f.float(),
            _ => f.junk(6),
        }
    };
    if matches!(key, "eval" | "weights") {
        value.replace('/', "_")
    } else {
        value
    }
}

/// 0-4 `key=value` options of a player of `kind`.
fn options(f: &mut Fuzz, kind: &str) -> Vec<(String, String)> {
    (0..f.length(4))
        .map(|_| {
            let key = match kind {
                "minimax" | "alphabeta" | "expectimax" if !f.one_in(8) => f.pick(BASELINE_KEYS).to_string(),
                _ => search_key(f),
            };
            let value = value_for(f, &key);
            (key, value)
        })
        .collect()
}

/// Options written `key=value,...`.
fn joined(options: &[(String, String)]) -> String {
    options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

/// A player spec: half well formed, else mutated or junk.
fn spec_text(f: &mut Fuzz) -> String {
    let kind = *f.pick(KINDS);
    let text = match kind {
        "gtp" => format!("gtp:{}", (0..f.length(3)).map(|_| f.junk(5)).collect::<Vec<_>>().join(" ")),
        _ => {
            let options = options(f, kind);
            if options.is_empty() && f.one_in(2) {
                kind.to_string()
            } else {
                format!("{kind}:{}", joined(&options))
            }
        }
    };
    match f.below(10) {
        0..=5 => text,
        6..=8 => f.mutate(&text),
        _ => f.junk(30),
    }
}

/// `key`'s value as Rust prints it when it reads as a number (`+5` is `5`, `1e3` is
/// `1000`), else as given (a file name as given).
fn canonical(key: &str, value: &str) -> String {
    if matches!(key, "eval" | "weights") {
        return value.to_string();
    }
    if let Ok(n) = value.parse::<u64>() {
        return n.to_string();
    }
    match value.parse::<f64>() {
        Ok(x) => x.to_string(),
        Err(_) => value.to_string(),
    }
}

/// The options of a spec text (after `kind:`), each value canonical, in reverse order.
fn rewritten_options(options: &str) -> String {
    let mut pairs: Vec<(String, String)> = options
        .split(',')
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), canonical(k, v)))
        .collect();
    pairs.reverse();
    joined(&pairs)
}

#[test]
fn player_specs_parse_or_name_their_fault() {
    let check = |text: &String| {
        let spec = match PlayerSpec::parse(text) {
            Ok(spec) => spec,
            Err(e) => {
                assert_one_line("player spec", text, &e);
                return false;
            }
        };
        let again = match text.split_once(':') {
            Some(("gtp", _)) => match &spec {
                PlayerSpec::Gtp(words) => format!("gtp:{}", words.join(" ")),
                other => panic!("{text:?} read as {other:?}"),
            },
            Some((kind, options)) => format!("{kind}:{}", rewritten_options(options)),
            None => text.clone(),
        };
        let reread = PlayerSpec::parse(&again).unwrap_or_else(|e| panic!("{text:?} written back as {again:?}: {e}"));
        assert_eq!(format!("{reread:?}"), format!("{spec:?}"), "{text:?} written back as {again:?}");
        true
    };
    fuzz("player spec", 11, spec_text, check).assert_accepted("player spec", 0.1, 0.8);
}

/// A list of 0-4 search settings, at times mutated.
fn settings(f: &mut Fuzz) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = (0..f.length(4))
        .map(|_| {
            let key = search_key(f);
            let value = value_for(f, &key);
            (key, value)
        })
        .collect();
    if !pairs.is_empty() && f.one_in(3) {
        let i = f.below(pairs.len());
        pairs[i].1 = f.mutate(&pairs[i].1);
    }
    pairs
}

/// `pairs` applied to a builder with a playout budget, then built: the builder's and the
/// configuration's text, or the error.
fn applied(pairs: &[(String, String)]) -> Result<(String, String), String> {
    let builder =
        SearchConfig::builder().apply_settings(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(|e| {
            assert_one_line("settings", &pairs, &e);
            e.to_string()
        })?;
    let shown = format!("{builder:?}");
    match builder.default_playouts(1_000).build() {
        Ok(config) => Ok((shown, format!("{config:?}"))),
        Err(e) => {
            assert_one_line("settings build", &pairs, &e);
            Ok((shown, format!("error: {e}")))
        }
    }
}

#[test]
fn search_settings_apply_or_name_their_fault() {
    let check = |pairs: &Vec<(String, String)>| {
        let Ok(first) = applied(pairs) else { return false };
        let again: Vec<(String, String)> = pairs.iter().rev().map(|(k, v)| (k.clone(), canonical(k, v))).collect();
        let second = applied(&again).unwrap_or_else(|e| panic!("{pairs:?} written back as {again:?}: {e}"));
        assert_eq!(second, first, "{pairs:?} written back as {again:?}");
        true
    };
    fuzz("search settings", 12, settings, check).assert_accepted("search settings", 0.1, 0.8);
}

/// A short text: one of `valid` (chosen by the caller), mutated, or junk.
fn text_from(f: &mut Fuzz, valid: String) -> String {
    match f.below(10) {
        0..=4 => valid,
        5..=8 => f.mutate(&valid),
        _ => f.junk(16),
    }
}

#[test]
fn sprt_settings_parse_or_name_their_fault() {
    let generate = |f: &mut Fuzz| {
        let mut parts = vec![f.float(), f.float()];
        if f.one_in(2) {
            parts.extend([f.float(), f.float()]);
        }
        if f.one_in(2) {
            parts = vec![format!("-{}", f.below(20)), f.below(20).to_string()];
        }
        text_from(f, parts.join(","))
    };
    let check = |text: &String| match Sprt::parse(text) {
        Ok(sprt) => {
            let written = format!("{},{},{},{}", sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta);
            assert_eq!(Sprt::parse(&written), Ok(sprt), "{text:?} written back as {written:?}");
            true
        }
        Err(e) => {
            assert_one_line("sprt", text, &e);
            false
        }
    };
    fuzz("sprt", 13, generate, check).assert_accepted("sprt", 0.05, 0.8);
}

#[test]
fn openings_parse_or_name_their_fault() {
    let generate = |f: &mut Fuzz| {
        let valid = match f.below(3) {
            0 => f.pick(&["start", "none"]).to_string(),
            1 => format!("random:{}", f.number()),
            _ => format!("all:{}", f.number()),
        };
        text_from(f, valid)
    };
    let check = |text: &String| match text.parse::<Openings>() {
        Ok(openings) => {
            let written = openings.to_string();
            assert_eq!(written.parse::<Openings>(), Ok(openings), "{text:?} written back as {written:?}");
            true
        }
        Err(e) => {
            assert_one_line("openings", text, &e);
            false
        }
    };
    fuzz("openings", 14, generate, check).assert_accepted("openings", 0.1, 0.8);
}

#[test]
fn bench_modes_and_game_names_parse_or_name_their_fault() {
    let generate = |f: &mut Fuzz| {
        let valid = match f.below(3) {
            0 => f.pick(&["pure", "seq", "tree", "root", "sync", "virtual", "dist", "auto"]).to_string(),
            _ => f.pick(GameKind::ALL).name().to_string(),
        };
        text_from(f, valid)
    };
    let check = |text: &String| {
        let mode = match text.parse::<BenchMode>() {
            Ok(mode) => {
                assert_eq!(mode.name().parse::<BenchMode>(), Ok(mode), "{text:?} written back as {}", mode.name());
                true
            }
            Err(e) => {
                assert_one_line("bench mode", text, &e);
                false
            }
        };
        let game = match text.parse::<GameKind>() {
            Ok(kind) => {
                assert_eq!(kind.name().parse::<GameKind>(), Ok(kind), "{text:?} written back as {kind}");
                true
            }
            Err(e) => {
                assert_one_line("game name", text, &e);
                false
            }
        };
        mode || game
    };
    fuzz("bench mode and game name", 15, generate, check).assert_accepted("bench mode and game name", 0.1, 0.8);
}

/// Inputs the fuzzing found whose errors quoted a line break or a carriage return and
/// so ran over two lines: the control characters are now written as escapes.
#[test]
fn errors_quote_control_characters_as_escapes() {
    let settings = SearchConfig::builder().apply_settings([("eval", "ne\rtwork-79"), ("time-ms", " 3")]);
    let messages = [
        ("player spec minima\\n\"", PlayerSpec::parse("minima\n\"").unwrap_err().to_string()),
        ("setting eval=ne\\rtwork-79", settings.unwrap_err().to_string()),
        ("sprt -\\n3,1", Sprt::parse("-\n3,1").unwrap_err().to_string()),
        ("openings", "all:77142338785619344193\r708".parse::<Openings>().unwrap_err().to_string()),
        ("bench mode", "ein\rs12in".parse::<BenchMode>().unwrap_err().to_string()),
        ("game name", "ein\rs12in".parse::<GameKind>().unwrap_err().to_string()),
    ];
    for (input, message) in messages {
        assert!(!message.contains(['\n', '\r']), "{input}: {message:?}");
        assert!(message.contains("\\n") || message.contains("\\r"), "{input}: {message:?}");
    }
    assert_eq!(Sprt::parse("-\n3,1").unwrap_err().to_string(), "--sprt '-\\n3,1': bad number '-\\n3'");
}

/// The runner fails a run whose check never returns (after `TIME_BOUND`), naming it.
#[test]
#[should_panic(expected = "input 2 has not returned")]
fn the_runner_fails_a_check_that_never_returns() {
    let mut next = 0;
    let count = move |_: &mut Fuzz| {
        next += 1;
        next
    };
    fuzz("a hang", 1, count, |&n: &usize| loop {
        if n < 3 {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_secs(60));
    });
}

/// The runner names the input whose check panicked.
#[test]
#[should_panic(expected = "input 2 panicked (message above): Some(3)")]
fn the_runner_names_the_input_a_check_panicked_on() {
    let mut next = 0;
    let count = move |_: &mut Fuzz| {
        next += 1;
        next
    };
    fuzz("a panic", 1, count, |&n: &usize| {
        assert!(n < 3, "three is too many");
        true
    });
}
