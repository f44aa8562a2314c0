//! Every command the documentation quotes parses with this CLI: each `parmcts …` and
//! `cargo run … -- …` in README.md and docs/**/*.md, in code blocks and in inline code,
//! goes through clap's parser (nothing runs), so a renamed or misspelt flag fails this
//! test rather than the reader. A synopsis line (one with `[`, `<`, `|` or `…` in it: the
//! CLI reference) is checked flag by flag against its subcommands instead. And the
//! README's library example is `examples/search.rs`, which CI builds and runs.

use std::fs;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use super::Cli;

/// One command quoted in a document: where, and its words.
#[derive(Debug)]
struct Quoted {
    file: String,
    line: usize,
    text: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, sorted.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    files.sort();
    files
}

/// The snippets of a Markdown text that may hold commands, with their first line: each
/// logical line of a fenced block (`\` continues it), and each inline code span of a
/// paragraph (a span may run over a line break).
fn snippets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    let mut pending: Option<(usize, String)> = None;
    let mut paragraph: Option<(usize, String)> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        if line.trim_start().starts_with("```") {
            if let Some(p) = paragraph.take() {
                out.extend(inline_spans(p));
            }
            fence = !fence;
            continue;
        }
        if fence {
            let (start, mut joined) = pending.take().unwrap_or((number, String::new()));
            let body = line.trim_end();
            if let Some(head) = body.strip_suffix('\\') {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
            } else {
                joined.push_str(body);
                out.push((start, joined));
            }
        } else if line.trim().is_empty() {
            if let Some(p) = paragraph.take() {
                out.extend(inline_spans(p));
            }
        } else {
            let p = paragraph.get_or_insert((number, String::new()));
            p.1.push_str(line.trim());
            p.1.push(' ');
        }
    }
    if let Some(p) = paragraph.take() {
        out.extend(inline_spans(p));
    }
    out
}

/// The `code` spans of one paragraph.
fn inline_spans((line, text): (usize, String)) -> Vec<(usize, String)> {
    text.split('`').skip(1).step_by(2).map(|span| (line, span.to_string())).collect()
}

/// The commands in a snippet, each from `parmcts` (after a space, a slash or the start)
/// or from the `--` of `cargo run … --`, to the end of the shell command.
fn commands(snippet: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = snippet;
    loop {
        let parmcts = find_word(rest, "parmcts ");
        let cargo = rest.find("cargo run ").and_then(|at| rest[at..].find(" -- ").map(|dash| at + dash));
        let (start, skip) = match (parmcts, cargo) {
            (Some(p), Some(c)) if c < p => (c, " -- ".len()),
            (Some(p), _) => (p, "parmcts ".len()),
            (None, Some(c)) => (c, " -- ".len()),
            (None, None) => return out,
        };
        // `cargo run --example NAME -- ARGS` runs an example, not the binary.
        let example = cargo == Some(start)
            && rest[..start].rfind("cargo run ").is_some_and(|c| rest[c..start].contains("--example"));
        let tail = &rest[start + skip..];
        let end = shell_end(tail);
        let words = tail[..end].trim();
        // A command's next word is a subcommand or a flag (`parmcts = {…}` is a Cargo.toml
        // line, `…/parmcts OUT=x` an environment for a script, `cargo add --path …/parmcts` a
        // dependency).
        let command = words.starts_with(|c: char| c.is_ascii_lowercase() || c == '-')
            && !words.contains(" = ")
            && !rest[..start].contains("cargo add");
        if command && !example {
            out.push(format!("parmcts {words}"));
        }
        rest = &tail[end..];
    }
}

/// Where `word` starts as a command name: at the start or after a space, `/` or `(`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(word).map(|a| a + from) {
        if at == 0 || text[..at].ends_with([' ', '/', '(']) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The length of the shell command at the start of `text`: up to a pipe, `&&`, `;`, a
/// redirection or a comment outside quotes.
fn shell_end(text: &str) -> usize {
    let mut quote = None;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'|' | b';' | b'>' | b'#' | b'&') => {
                // `a|b` inside a word is a synopsis's alternatives, not a pipe.
                let spaced = i == 0 || bytes[i - 1] == b' ' || b == b'#' || b == b'>' || b == b';';
                if spaced && !(b == b'#' && i > 0 && bytes[i - 1] != b' ') {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// Splits a command into words as a shell would (double and single quotes).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quote, mut any) = (None, false);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => word.push(c),
            (None, '"' | '\'') => (quote, any) = (Some(c), true),
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// A synopsis shows the grammar rather than one command.
fn is_synopsis(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| w.starts_with(['[', '<']) || w.contains('…') || w == "..." || (w.contains('|') && !w.contains(':')))
}

/// A placeholder such as `G`, `S`, `FILE`, `DIR` or a shell variable (`$g`) stands for a
/// value: after a flag it gets one of the right kind for that flag; elsewhere (`FLAGS`,
/// `$extra`) it stands for more words, and goes.
fn fill_placeholders(words: &mut Vec<String>) {
    let placeholder = |w: &str| {
        w.starts_with('$') || (w.len() <= 5 && w.chars().all(|c| c.is_ascii_uppercase()) && !["X", "O"].contains(&w))
    };
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for w in words.drain(..) {
        if out.len() < 2 || !placeholder(&w) {
            out.push(w);
            continue;
        }
        let flag = out.last().filter(|f| f.starts_with("--") && !f.contains('=')).cloned();
        if let Some(flag) = flag {
            let value = match flag.as_str() {
                "--game" => "connect4",
                "--openings" => "random:2",
                "--moves" => "4453",
                _ => "1",
            };
            out.push(value.to_string());
        }
    }
    *words = out;
}

/// Whether clap accepts the command (a missing required flag is accepted: a quote may
/// name a subcommand with only the flags it discusses).
fn parses(words: &[String]) -> Result<(), String> {
    match Cli::try_parse_from(words) {
        Ok(_) => Ok(()),
        Err(e) => match e.kind() {
            ErrorKind::MissingRequiredArgument
            | ErrorKind::DisplayHelp
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            | ErrorKind::DisplayVersion => Ok(()),
            _ => Err(e.render().to_string().lines().next().unwrap_or("").to_string()),
        },
    }
}

/// A synopsis line: each subcommand it names (`<a|b>` for several) exists and has each
/// `--flag` it shows.
fn synopsis_flags_exist(words: &[String]) -> Result<(), String> {
    let cli = Cli::command();
    let Some(first) = words.get(1) else { return Ok(()) };
    let names: Vec<&str> = first.trim_matches(['<', '>']).split('|').collect();
    for name in names {
        let sub = cli.find_subcommand(name).ok_or_else(|| format!("no subcommand `{name}`"))?;
        for w in &words[2..] {
            for flag in w.split(['[', ']', '|', ' ']).filter(|f| f.starts_with("--")) {
                let flag = flag.trim_end_matches([',', ')', '.']);
                let long = flag.trim_start_matches('-').split('=').next().unwrap_or("");
                let known = long == "help"
                    || sub
                        .get_arguments()
                        .any(|a| a.get_long() == Some(long) || a.get_all_aliases().is_some_and(|v| v.contains(&long)));
                if !known {
                    return Err(format!("`parmcts {name}` has no flag `{flag}`"));
                }
            }
        }
    }
    Ok(())
}

/// Every command quoted in README.md and docs/.
fn quoted() -> Vec<Quoted> {
    let mut out = Vec::new();
    for path in documents() {
        let text = fs::read_to_string(&path).unwrap();
        let file = path.strip_prefix(root()).unwrap().display().to_string();
        for (line, snippet) in snippets(&text) {
            for command in commands(&snippet) {
                out.push(Quoted { file: file.clone(), line, text: command });
            }
        }
    }
    out
}

fn check(q: &Quoted) -> Result<(), String> {
    let mut words = shell_words(&q.text);
    if words.len() < 2 {
        return Ok(()); // the program's name alone
    }
    if is_synopsis(&words) {
        return synopsis_flags_exist(&words);
    }
    fill_placeholders(&mut words);
    parses(&words)
}

#[test]
fn every_quoted_command_parses() {
    let quoted = quoted();
    assert!(quoted.len() > 50, "found only {} commands: is the extraction broken?", quoted.len());
    let failures: Vec<String> = quoted
        .iter()
        .filter_map(|q| check(q).err().map(|e| format!("{}:{}: `{}`\n    {e}", q.file, q.line, q.text)))
        .collect();
    assert!(failures.is_empty(), "{} quoted commands do not parse:\n{}", failures.len(), failures.join("\n"));
}

/// The README's library example is the compiled `examples/search.rs`, line for line.
#[test]
fn the_readme_example_is_compiled() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let example = fs::read_to_string(root().join("examples/search.rs")).unwrap();
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README.md has a ```rust block");
    let code: String = example.lines().skip_while(|l| l.starts_with("//!")).map(|l| format!("{l}\n")).collect();
    assert_eq!(block, code, "README.md's example differs from examples/search.rs (its code after the //! lines)");
}

/// The extraction finds what the documents write: commands in blocks, continued lines,
/// inline spans over a line break, `cargo run … --`, pipes and quotes.
#[test]
fn extraction_finds_each_form() {
    let text = "x\n\n```sh\ncargo run --release -- bench --game connect4 \\\n  --threads 1,2 | tee a\n```\n\nsee `parmcts match\n--p1 \"gtp:gnugo --mode gtp\"` and `parmcts::Search`.\n";
    let found: Vec<String> = snippets(text).iter().flat_map(|(_, s)| commands(s)).collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(shell_words(&found[0]), ["parmcts", "bench", "--game", "connect4", "--threads", "1,2"]);
    assert_eq!(shell_words(&found[1]), ["parmcts", "match", "--p1", "gtp:gnugo --mode gtp"]);
    let bad = Quoted { file: String::new(), line: 1, text: "parmcts bench --gmae connect4".into() };
    assert!(check(&bad).is_err());
    let synopsis = Quoted { file: String::new(), line: 1, text: "parmcts perft --game G [--depht D]".into() };
    assert!(check(&synopsis).is_err());
}
