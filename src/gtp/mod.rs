//! The Go Text Protocol (GTP 2, Farnebäck's draft 2): the engine that GUIs (GoGui,
//! Sabaki) and referees talk to, generic over the game.
//!
//! * [`protocol`]: the framing: bounded lines, preprocessing, ids, responses;
//! * [`engine`]: the commands ([`Engine`]), over any reader and writer, with its
//!   settings ([`EngineConfig`]) and errors ([`GtpError`]);
//! * [`session`]: one game in progress behind an object-safe trait, so that `boardsize`
//!   can switch to another game type (Go's board sizes are different types);
//! * [`game`]: the seam a game implements ([`GtpGame`]: size, komi, moves by a named
//!   colour, the pass, the score), implemented beside each game GTP plays
//!   (`src/games/<game>/gtp.rs`);
//! * `handicap`: handicap stones (`fixed_handicap` and the free placements);
//! * `args`: the commands' arguments (colours, times, counts) and their errors;
//! * [`time`]: the time controls and the per-move budget;
//! * [`sgf`]: game records in SGF, the format Go viewers open;
//! * [`client`]: the other side: a GTP client that drives an external engine (GNU Go
//!   in the differential tests).
//!
//! # Examples
//! ```
//! use parmcts::gtp::{Engine, EngineConfig};
//! use parmcts::{GameKind, SearchConfig};
//!
//! let search = SearchConfig::builder().playouts(50).build().unwrap();
//! let mut engine = Engine::new(GameKind::Othello, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap();
//! let mut out = Vec::new();
//! engine.run(&b"1 play b d3\n2 genmove w\n3 undo\nquit\n"[..], &mut out).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.starts_with("=1 \n\n=2 "));
//! assert!(out.ends_with("=3 \n\n= \n\n"));
//! ```

pub mod analyze;
mod args;
mod config;
pub mod engine;
mod error;
pub mod game;
mod handicap;
pub mod protocol;
pub mod session;
pub mod sgf;
pub mod time;

pub use crate::harness::players::gtp_client as client;
pub use crate::harness::players::{ClientError, GtpClient};
pub use engine::{Engine, EngineConfig, GtpError};
pub use game::{FinalStatus, GtpGame};
