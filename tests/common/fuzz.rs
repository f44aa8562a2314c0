//! Seeded fuzzing of the parsers: a generator of random and mutated inputs ([`Fuzz`]) and
//! a runner ([`fuzz`]) that calls a parser's check on each input on a worker thread timed
//! by a watchdog, so that a panic names its input, a call slower than [`TIME_BOUND`]
//! fails the test, and a call that never returns fails it too instead of hanging it.
//!
//! Each parser gets [`DEFAULT_INPUTS`] inputs, or as many as the environment variable
//! [`INPUTS_VAR`] says (`PARMCTS_FUZZ_INPUTS=1000000` for a long run); the runner prints
//! one line per parser (inputs, accepted, wall time), shown with `--no-capture`.

use std::fmt::{Debug, Display};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The longest one input may take (a parse takes microseconds; a hang takes for ever).
pub const TIME_BOUND: Duration = Duration::from_secs(1);

/// Inputs per parser in a plain test run.
pub const DEFAULT_INPUTS: usize = 10_000;

/// The environment variable that sets the inputs per parser.
pub const INPUTS_VAR: &str = "PARMCTS_FUZZ_INPUTS";

/// Inputs per parser: [`INPUTS_VAR`] if set (underscores allowed), else [`DEFAULT_INPUTS`].
pub fn inputs() -> usize {
    match std::env::var(INPUTS_VAR) {
        Ok(text) => text
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{INPUTS_VAR}={text:?}: expected a whole number of inputs")),
        Err(_) => DEFAULT_INPUTS,
    }
}

/// Characters of junk text: letters, digits, the parsers' separators, control
/// characters (the newline among them), and multi-byte characters.
const CHARS: &[char] = &[
    'a',
    'b',
    'c',
    'd',
    'e',
    'h',
    'i',
    'j',
    'p',
    's',
    't',
    'x',
    'o',
    'z',
    'A',
    'B',
    'O',
    'W',
    'X',
    'T',
    '0',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '7',
    '8',
    '9',
    ' ',
    ' ',
    ',',
    ',',
    ':',
    '=',
    '@',
    ';',
    '/',
    '-',
    '+',
    '.',
    '*',
    '[',
    ']',
    '(',
    ')',
    '{',
    '}',
    '"',
    '\\',
    '#',
    '_',
    '\t',
    '\n',
    '\r',
    '\0',
    '\u{1b}',
    '\u{7f}',
    '\u{a0}',
    '\u{e9}',
    '\u{3bb}',
    '\u{200b}',
    '\u{2028}',
    '\u{fffd}',
    '\u{65e5}',
    '\u{1f3b2}',
];

/// Numbers a parser may choke on: signs, zeros, bounds and past them, floats, words.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "+1",
    "00",
    "007",
    "2",
    "7",
    "12",
    "13",
    "64",
    "255",
    "256",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "-0",
    "0.5",
    "1e9",
    "1e400",
    "-1e-400",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0x10",
    "1_000",
    " 3",
    "",
];

/// A seeded generator of fuzz inputs.
pub struct Fuzz {
    rng: Xoshiro256PlusPlus,
}

impl Fuzz {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Fuzz {
        Fuzz { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }
    }

    /// A uniform integer in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A length in `0..=max`, short ones more likely (uniform below a uniform bound).
    pub fn length(&mut self, max: usize) -> usize {
        let bound = self.below(max + 1);
        self.below(bound + 1)
    }

    /// A uniform item of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A uniform 32-bit word.
    pub fn word(&mut self) -> u32 {
        self.rng.next_u32()
    }

    /// A number as text: an edge case, or a random one of random size and sign.
    pub fn number(&mut self) -> String {
        match self.below(4) {
            0 => self.pick(NUMBERS).to_string(),
            1 => (self.rng.next_u64() >> self.below(64)).to_string(),
            2 => format!("-{}", self.below(100)),
            _ => self.below(20).to_string(),
        }
    }

    /// A float as text, finite or not.
    pub fn float(&mut self) -> String {
        match self.below(4) {
            0 => self.pick(NUMBERS).to_string(),
            1 => format!("{}", f64::from_bits(self.rng.next_u64())),
            _ => format!("{:.3}", self.below(4000) as f64 / 1000.0),
        }
    }

    /// Up to `max` random characters.
    pub fn junk(&mut self, max: usize) -> String {
        let len = self.length(max);
        (0..len).map(|_| self.junk_char()).collect()
    }

    /// One random character: mostly from [`CHARS`], sometimes any scalar value.
    pub fn junk_char(&mut self) -> char {
        if self.one_in(16) {
            char::from_u32(self.word() % 0x11_0000).unwrap_or('\u{fffd}')
        } else {
            *self.pick(CHARS)
        }
    }

    /// `text` after one to three random edits: characters deleted, inserted, repeated,
    /// replaced, swapped or re-cased, a number put in, the tail cut off.
    pub fn mutate(&mut self, text: &str) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..1 + self.below(3) {
            let at = self.below(chars.len() + 1);
            let end = (at + 1 + self.below(4)).min(chars.len());
            let insert: Vec<char> = match self.below(10) {
                0 => {
                    chars.drain(at..end);
                    Vec::new()
                }
                1 => vec![self.junk_char()],
                2 => self.number().chars().collect(),
                3 => chars[at..end].to_vec(),
                4 if at < chars.len() => {
                    chars[at] = self.junk_char();
                    Vec::new()
                }
                5 if at + 1 < chars.len() => {
                    chars.swap(at, at + 1);
                    Vec::new()
                }
                6 if at < chars.len() => {
                    let c = chars[at];
                    chars[at] = if c.is_ascii_lowercase() { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() };
                    Vec::new()
                }
                7 => {
                    chars.truncate(at);
                    Vec::new()
                }
                8 => vec![*self.pick(&['\n', '\r', '\0', '\t', ' ', ','])],
                _ if chars.len() < 2048 => chars.clone(),
                _ => Vec::new(),
            };
            if !insert.is_empty() {
                chars = [&chars[..at], &insert[..], &chars[at..]].concat();
            }
        }
        chars.into_iter().collect()
    }
}

/// Asserts that a rejection's message is one non-empty line: no `\n` or `\r` in it.
pub fn assert_one_line(parser: &str, input: &dyn Debug, error: &dyn Display) {
    let message = error.to_string();
    assert!(!message.trim().is_empty(), "{parser}: empty error for {input:?}");
    assert!(!message.contains(['\n', '\r']), "{parser}: a multi-line error for {input:?}: {message:?}");
}

/// What one run of a parser's fuzzing saw.
#[derive(Clone, Debug)]
pub struct Tally {
    /// Inputs tried.
    pub inputs: usize,
    /// Inputs the parser accepted.
    pub accepted: usize,
    /// The run's wall time.
    pub wall: Duration,
}

impl Tally {
    /// Asserts that between `min` and `max` of the inputs (fractions) were accepted: the
    /// generator reaches both sides of the parser.
    pub fn assert_accepted(&self, parser: &str, min: f64, max: f64) {
        let share = self.accepted as f64 / self.inputs.max(1) as f64;
        assert!(
            (min..=max).contains(&share),
            "{parser}: {} of {} inputs accepted, expected a share in {min}..={max}",
            self.accepted,
            self.inputs
        );
    }
}

/// The input being checked and when its check started.
struct Current<I> {
    index: usize,
    input: Option<Arc<I>>,
    started: Instant,
}

/// Runs [`inputs`] inputs of `generate` (seeded with `seed`) through `check`, which
/// returns whether the parser accepted the input and asserts its properties. The checks
/// run on a worker thread; a check that panics, takes longer than [`TIME_BOUND`] or never
/// returns fails the test, naming the parser and the input.
pub fn fuzz<I, G, C>(parser: &str, seed: u64, mut generate: G, mut check: C) -> Tally
where
    I: Debug + Send + Sync + 'static,
    G: FnMut(&mut Fuzz) -> I + Send + 'static,
    C: FnMut(&I) -> bool + Send + 'static,
{
    let count = inputs();
    let current = Arc::new(Mutex::new(Current::<I> { index: 0, input: None, started: Instant::now() }));
    let slot = Arc::clone(&current);
    let name = parser.to_string();
    let start = Instant::now();
    let worker = std::thread::spawn(move || {
        let mut fuzz = Fuzz::new(seed);
        let mut accepted = 0;
        for index in 0..count {
            let input = Arc::new(generate(&mut fuzz));
            let started = Instant::now();
            *slot.lock().unwrap_or_else(|e| e.into_inner()) =
                Current { index, input: Some(Arc::clone(&input)), started };
            accepted += usize::from(check(&input));
            let took = started.elapsed();
            slot.lock().unwrap_or_else(|e| e.into_inner()).input = None;
            assert!(took <= TIME_BOUND, "{name}: input {index} took {took:?}: {input:?}");
        }
        accepted
    });
    while !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(20));
        let now = current.lock().unwrap_or_else(|e| e.into_inner());
        let took = now.started.elapsed();
        if now.input.is_some() && took > TIME_BOUND && !worker.is_finished() {
            panic!("{parser}: input {} has not returned after {took:?}: {:?}", now.index, now.input);
        }
    }
    let accepted = worker.join().unwrap_or_else(|_| {
        let now = current.lock().unwrap_or_else(|e| e.into_inner());
        panic!("{parser}: input {} panicked (message above): {:?}", now.index, now.input)
    });
    let tally = Tally { inputs: count, accepted, wall: start.elapsed() };
    println!("fuzz {parser}: {count} inputs, {accepted} accepted, {:.2} s", tally.wall.as_secs_f64());
    tally
}
