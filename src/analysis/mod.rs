//! `parmcts analysis`: a JSON-lines analysis engine for services and scripts, after
//! KataGo's analysis engine, generalised to every registered game by a `game` field.
//!
//! Each line of input is a query (a game as `moves` from a start, the turns to analyse)
//! or an action (`terminate`, `terminate_all`, `query_version`, `clear_cache`). Each
//! turn of a query is a job of the [`pool`]: a fixed set of analysis threads, the
//! highest priority first, shares the cores; replies are written, one JSON object a
//! line, as the turns finish, in any order. A line that cannot be served gets an error
//! naming its field, and the engine goes on with the others. The schema is versioned
//! ([`SCHEMA_VERSION`]) and written down in docs/ANALYSIS.md.
//!
//! * [`query`]: reading a line, field by field;
//! * [`position`]: a query's turns as positions of its game;
//! * [`report`]: the replies;
//! * [`pool`]: the analysis threads and their queue.
//!
//! # Examples
//! ```
//! use parmcts::analysis::{serve, AnalysisConfig, Replies};
//! use parmcts::{GameKind, SearchConfig};
//!
//! let search = SearchConfig::builder().playouts(200).build().unwrap();
//! let config = AnalysisConfig::new(GameKind::TicTacToe, search, 1);
//! let input = &br#"{"id":"q","moves":["5","1"],"analyzeTurns":[2]}"#[..];
//! let replies = Replies::default();
//! serve(&config, input, replies.clone()).unwrap();
//! let lines = replies.take_lines();
//! let reply: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
//! assert_eq!(reply["id"], "q");
//! assert_eq!(reply["turnNumber"], 2);
//! assert_eq!(reply["rootInfo"]["visits"], 200);
//! ```

pub mod pool;
pub mod position;
pub mod query;
pub mod report;
mod turn;

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::games::GameKind;
use crate::gtp::protocol::{read_line_within, RawLine};
use crate::search::SearchConfig;
pub use pool::{Output, Pool};
pub use query::{FieldError, Query, Request};
pub use report::SCHEMA_VERSION;

/// The longest line read (bytes): a 19x19 game of a thousand moves is a twentieth of it.
pub const MAX_QUERY_LINE: usize = 1 << 20;

/// The engine's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisConfig {
    /// The game of a query without a `game` field.
    pub game: GameKind,
    /// The search settings of every query (a query overrides its budget and its search
    /// parameters); their budget is a query's without `maxVisits` or `maxTime`.
    pub search: SearchConfig,
    /// Analysis threads: turns searched at once (each search with `search`'s threads).
    pub threads: usize,
    /// The most playouts a query may ask for (`None`: no limit).
    pub max_visits: Option<u64>,
    /// The most time a query may ask for (`None`: no limit).
    pub max_time: Option<Duration>,
    /// At the end of the input, stop the searches running and drop the queued ones
    /// (each answered `noResults`) instead of finishing them.
    pub quit_without_waiting: bool,
}

impl AnalysisConfig {
    /// `threads` analysis threads for `game` with `search`'s settings, no limits.
    pub fn new(game: GameKind, search: SearchConfig, threads: usize) -> AnalysisConfig {
        AnalysisConfig { game, search, threads, max_visits: None, max_time: None, quit_without_waiting: false }
    }
}

/// The engine: reads lines, queues their turns on the pool, answers actions.
pub struct Engine {
    config: AnalysisConfig,
    pool: Pool,
    out: Arc<Output>,
}

impl Engine {
    /// Starts the analysis threads, replying on `output`.
    ///
    /// # Errors
    /// When a thread cannot start, or `config.threads` is 0.
    pub fn new(config: AnalysisConfig, output: Box<dyn Write + Send>) -> io::Result<Engine> {
        if config.threads == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "0 analysis threads"));
        }
        let out = Arc::new(Output::new(output));
        let pool = Pool::new(config.threads, Arc::clone(&out))?;
        Ok(Engine { config, pool, out })
    }

    /// Serves one line of input: its turns queued, or its action done, or its error written.
    pub fn handle(&self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        match query::parse(line, self.config.game) {
            Err(e) => self.out.send(&e.error_line()),
            Ok(Request::Analyse(query)) => match turn::jobs(&query, &self.config) {
                Err(mut e) => {
                    e.id = Some(query.id.clone());
                    self.out.send(&e.error_line());
                }
                Ok((jobs, warnings)) => {
                    for warning in &warnings {
                        self.out.send(&warning.warning_line(&query.id));
                    }
                    self.pool.submit(jobs);
                }
            },
            Ok(Request::Terminate { echo, terminate_id, turns }) => {
                // The acknowledgement first: the terminated turns' replies follow it.
                self.out.send(&report::line(&echo));
                self.pool.terminate(terminate_id.as_deref(), turns.as_deref());
            }
            Ok(Request::Version(mut echo)) => {
                echo.insert("version".to_string(), env!("CARGO_PKG_VERSION").into());
                echo.insert("schema".to_string(), SCHEMA_VERSION.into());
                echo.insert("git_hash".to_string(), "<omitted>".into());
                self.out.send(&report::line(&echo));
            }
            Ok(Request::ClearCache(echo)) => self.out.send(&report::line(&echo)),
        }
    }

    /// Turns queued, not yet started (for a caller that paces its queries).
    pub fn queued(&self) -> usize {
        self.pool.queued()
    }

    /// Whether writing a reply has failed (the reader gone).
    pub fn output_failed(&self) -> bool {
        self.out.failed()
    }

    /// Ends the session: finishes the queued turns (or, with
    /// [`AnalysisConfig::quit_without_waiting`], stops them) and joins the threads.
    pub fn finish(mut self) {
        if self.config.quit_without_waiting || self.out.failed() {
            self.pool.terminate(None, None);
        }
        self.pool.close();
    }
}

/// Runs the engine on `input` until its end, replying on `output`: the end of the input
/// waits for the queued turns (see [`AnalysisConfig::quit_without_waiting`]).
///
/// # Errors
/// A thread that cannot start; reading `input`. A failed write of a reply ends the
/// session quietly (the reader is gone).
pub fn serve<R: BufRead, W: Write + Send + 'static>(
    config: &AnalysisConfig,
    mut input: R,
    output: W,
) -> io::Result<()> {
    let engine = Engine::new(config.clone(), Box::new(output))?;
    let result = loop {
        if engine.output_failed() {
            break Ok(());
        }
        match read_line_within(&mut input, MAX_QUERY_LINE) {
            Ok(None) => break Ok(()),
            Ok(Some(RawLine::TooLong)) => {
                let message = format!("a line over {MAX_QUERY_LINE} bytes");
                engine.out.send(&FieldError { id: None, field: None, message }.error_line());
            }
            Ok(Some(RawLine::Line(bytes))) => engine.handle(&String::from_utf8_lossy(&bytes)),
            Err(e) => break Err(e),
        }
    };
    engine.finish();
    result
}

/// A writer that keeps what is written, for reading from another handle (clones share
/// it): the replies of an engine run in-process.
#[derive(Clone, Debug, Default)]
pub struct Replies(Arc<Mutex<Vec<u8>>>);

impl Replies {
    /// The complete lines written so far, taken out (a partial last line stays).
    pub fn take_lines(&self) -> Vec<String> {
        let mut bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let taken: Vec<u8> = bytes.drain(..end).collect();
        String::from_utf8_lossy(&taken).lines().map(str::to_string).collect()
    }
}

impl Write for Replies {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
