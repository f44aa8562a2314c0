//! The grammar of the live-analysis lines a GTP engine streams (`lz-analyze`,
//! `kata-analyze` and their `genmove_analyze` forms), after KataGo's GTP extensions
//! document and Sabaki's engine-analysis guide. Any line that does not parse is an error.
//!
//! ```text
//! response  := "=" [id] "\n" { line "\n" } "\n"
//! line      := entry { " " entry } [ " ownership" { " " float } ]
//! entry     := "info move " vertex " visits " int " winrate " number " prior " number
//!              " lcb " number " order " int " pv " vertex { " " vertex }
//! number    := int in 0..=10000 (lz-analyze) | float in [0, 1] (kata-analyze)
//! ```

use parmcts::Game;

/// One `info move` entry: its move, visits, order and principal variation (the move
/// first).
#[derive(Debug)]
pub struct Entry {
    pub mv: String,
    pub visits: u64,
    pub order: usize,
    pub pv: Vec<String>,
}

/// What one parsed line holds: its entries, and the ownership values.
#[derive(Debug)]
pub struct Line {
    pub entries: Vec<Entry>,
    pub ownership: Vec<f64>,
}

/// Parses one analysis line (`kata`: `kata-analyze`'s numbers, else `lz-analyze`'s)
/// whose moves are written in `root`'s notation, or says why not.
pub fn parse_line<G: Game>(text: &str, kata: bool, root: &G) -> Result<Line, String> {
    let mut words = text.split(' ').peekable();
    let mut entries = Vec::new();
    let number = |word: Option<&str>| -> Result<f64, String> {
        let word = word.ok_or("a number is missing")?;
        if kata {
            let x: f64 = word.parse().map_err(|_| format!("'{word}' is not a float"))?;
            (0.0..=1.0).contains(&x).then_some(x).ok_or(format!("{x} outside [0, 1]"))
        } else {
            let x: u32 = word.parse().map_err(|_| format!("'{word}' is not an integer"))?;
            (x <= 10_000).then_some(f64::from(x) / 1e4).ok_or(format!("{x} above 10000"))
        }
    };
    let expect = |word: Option<&str>, key: &str| -> Result<(), String> {
        (word == Some(key)).then_some(()).ok_or(format!("expected '{key}', got {word:?}"))
    };
    while words.peek() == Some(&"info") {
        words.next();
        expect(words.next(), "move")?;
        let mv = words.next().ok_or("no move")?.to_string();
        root.parse_move(&mv).map_err(|e| format!("move {mv}: {e}"))?;
        expect(words.next(), "visits")?;
        let visits: u64 = words.next().and_then(|w| w.parse().ok()).ok_or("bad visits")?;
        for key in ["winrate", "prior", "lcb"] {
            expect(words.next(), key)?;
            number(words.next())?;
        }
        expect(words.next(), "order")?;
        let order: usize = words.next().and_then(|w| w.parse().ok()).ok_or("bad order")?;
        expect(words.next(), "pv")?;
        let mut pv = Vec::new();
        while let Some(word) = words.next_if(|w| *w != "info" && *w != "ownership") {
            root.parse_move(word).map_err(|e| format!("pv move {word}: {e}"))?;
            pv.push(word.to_string());
        }
        match pv.first() {
            None => return Err("an empty pv".to_string()),
            Some(first) if *first != mv => return Err(format!("the pv of {mv} starts with {first}")),
            Some(_) => {}
        }
        entries.push(Entry { mv, visits, order, pv });
    }
    let mut ownership = Vec::new();
    if words.peek() == Some(&"ownership") {
        words.next();
        for word in words.by_ref() {
            let x: f64 = word.parse().map_err(|_| format!("ownership '{word}'"))?;
            if !(-1.0..=1.0).contains(&x) {
                return Err(format!("ownership {x} outside [-1, 1]"));
            }
            ownership.push(x);
        }
    }
    if let Some(rest) = words.next() {
        return Err(format!("unexpected '{rest}'"));
    }
    if entries.is_empty() {
        return Err("no entry".to_string());
    }
    for (i, entry) in entries.iter().enumerate() {
        if entry.order != i || (i > 0 && entry.visits > entries[i - 1].visits) {
            return Err(format!("entry {i} out of order: {entries:?}"));
        }
    }
    Ok(Line { entries, ownership })
}
