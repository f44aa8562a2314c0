//! Live analysis for GUIs: the arguments of `lz-analyze` and `kata-analyze` (Leela Zero's
//! and KataGo's GTP extensions, which Sabaki, Lizzie and KaTrain read) and the `info`
//! lines the engine streams while it searches.
//!
//! The command is `lz-analyze [player] [interval] [key value ...]` (`kata-analyze` alike):
//! an optional colour, an optional interval in centiseconds, then `interval N`,
//! `minmoves N`, `maxmoves N` and, for `kata-analyze`, `ownership true|false`. The
//! response is `=` alone on a line, then one line every interval until the next command
//! arrives, then the empty line that ends every GTP response. Each line holds, for each
//! visited move, most visited first:
//!
//! * `lz-analyze`: `info move M visits V winrate W prior P lcb L order O pv M ...`, `W`,
//!   `P` and `L` in ten-thousandths (integers);
//! * `kata-analyze`: `info move M visits V winrate W prior P lcb L order O pv M ...`, the
//!   numbers as fractions of one; with `ownership true` in Go, the line ends with
//!   `ownership` and one value in [-1, 1] per point, from the top-left point row by row,
//!   positive for the side to move.
//!
//! `lz-genmove_analyze [player] [interval] ...` (and `kata-genmove_analyze`) streams the
//! same lines while the engine searches its move within the move's budget (the clock's,
//! or the command line's), then writes `play MOVE` (or `play resign`) and the empty line;
//! the move is played, and a pondering engine ponders after it as after `genmove`.
//!
//! `W` is the move's mean result for the side to move (a draw counting one half), `P`
//! its prior, `L` a lower confidence bound of `W` (the normal approximation, 1.96
//! standard errors of a binary mean).

use std::fmt::Write as _;
use std::time::Duration;

use super::error::GtpError;
use super::protocol::parse_colour;
use crate::games::{Move, Player};
use crate::search::SnapshotChild;

/// What a GoGui analysis command draws on the board (`gogui-analyze_commands`), from
/// the engine's search of the position (`reg_genmove`'s, at the move's budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// A heat map of the root moves' visits (`parmcts-visits`).
    Visits,
    /// The principal variation (`parmcts-pv`).
    Line,
    /// Go's Monte-Carlo ownership (`parmcts-ownership`).
    Ownership,
}

impl Board {
    /// The board of a command name, if it is one.
    pub fn of(command: &str) -> Option<Board> {
        match command {
            "parmcts-visits" => Some(Board::Visits),
            "parmcts-pv" => Some(Board::Line),
            "parmcts-ownership" => Some(Board::Ownership),
            _ => None,
        }
    }
}

/// `gogui-analyze_commands`' answer: the graphics commands (GoGui's `gfx` type), the
/// ownership map where the game has one.
pub fn gogui_commands(ownership: bool) -> String {
    let mut commands = "gfx/Visits/parmcts-visits\ngfx/Principal variation/parmcts-pv".to_string();
    if ownership {
        commands.push_str("\ngfx/Ownership/parmcts-ownership");
    }
    commands
}

/// GoGui's graphics commands (`INFLUENCE`, `LABEL`, `VAR`), one per line.
pub mod gfx {
    use std::fmt::Write as _;

    use crate::games::{Move, Player};
    use crate::gtp::GtpGame;
    use crate::search::ChildResult;

    /// The root moves' visits as a heat map: `INFLUENCE` of each visited move, its share
    /// of the most visits (in (0, 1]), and a `LABEL` with its visits.
    pub fn visits(children: &[ChildResult], name: impl Fn(Move) -> String) -> String {
        let most = children.iter().map(|c| c.visits).max().unwrap_or(0).max(1);
        let (mut influence, mut labels) = ("INFLUENCE".to_string(), "LABEL".to_string());
        for child in children.iter().filter(|c| c.visits > 0) {
            let _ = write!(influence, " {} {:.3}", name(child.mv), child.visits as f64 / most as f64);
            let _ = write!(labels, " {} {}", name(child.mv), child.visits);
        }
        format!("{influence}\n{labels}")
    }

    /// The principal variation `pv` from `position`, each move with its mover's colour:
    /// `VAR b d3 w c5 ...`.
    pub fn line<G: GtpGame>(position: &G, pv: &[Move]) -> String {
        let mut text = "VAR".to_string();
        let mut game = position.clone();
        for &mv in pv {
            if game.outcome().is_some() {
                break;
            }
            let colour = if game.side_to_move() == Player::One { 'b' } else { 'w' };
            let _ = write!(text, " {colour} {}", game.format_move(mv));
            game.play_unchecked(mv);
        }
        text
    }

    /// The ownership of each point (positive: Black's) as `INFLUENCE`; empty where the
    /// game has none.
    pub fn ownership(values: Option<Vec<(Move, f32)>>, name: impl Fn(Move) -> String) -> String {
        let Some(values) = values else { return String::new() };
        let mut text = "INFLUENCE".to_string();
        for (mv, value) in values {
            let _ = write!(text, " {} {value:.3}", name(mv));
        }
        text
    }
}

/// Which engine's format the lines follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Leela Zero's `lz-analyze`: win rates and priors in ten-thousandths.
    Lz,
    /// KataGo's `kata-analyze`: fractions of one, and ownership on request.
    Kata,
}

/// What an analysis command asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// The line format.
    pub dialect: Dialect,
    /// The colour to analyse for (`None`: the side to move).
    pub player: Option<Player>,
    /// Time between two lines.
    pub interval: Duration,
    /// Moves listed at least (when visited) and at most (`usize::MAX`: all visited).
    pub min_moves: usize,
    /// The most moves listed.
    pub max_moves: usize,
    /// Whether each line ends with the ownership of the board (`kata-analyze` in Go).
    pub ownership: bool,
}

/// The interval when none is given: one second (Leela Zero's default).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// The shortest interval: a hundredth of a second (GTP's unit).
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);

impl Request {
    /// Reads the arguments of an analysis command in `dialect`.
    ///
    /// # Errors
    /// [`GtpError::Syntax`] naming the argument that does not parse.
    pub fn parse(dialect: Dialect, args: &[&str]) -> Result<Request, GtpError> {
        let mut request = Request {
            dialect,
            player: None,
            interval: DEFAULT_INTERVAL,
            min_moves: 0,
            max_moves: usize::MAX,
            ownership: false,
        };
        let mut rest = args;
        if let Some((first, tail)) = rest.split_first() {
            if let Some(player) = parse_colour(first) {
                request.player = Some(player);
                rest = tail;
            }
        }
        if let Some((first, tail)) = rest.split_first() {
            if first.bytes().all(|b| b.is_ascii_digit()) {
                request.interval = centiseconds(first)?;
                rest = tail;
            }
        }
        while let Some((key, tail)) = rest.split_first() {
            let Some((value, tail)) = tail.split_first() else {
                return Err(GtpError::Syntax(format!("{key} takes a value")));
            };
            match key.to_ascii_lowercase().as_str() {
                "interval" => request.interval = centiseconds(value)?,
                "minmoves" => request.min_moves = count(key, value)?,
                "maxmoves" => request.max_moves = count(key, value)?,
                "ownership" if dialect == Dialect::Kata => {
                    request.ownership = match value.to_ascii_lowercase().as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err(GtpError::Syntax(format!("ownership '{value}' (expected true or false)"))),
                    }
                }
                _ => return Err(GtpError::Syntax(format!("unknown analysis key '{key}'"))),
            }
            rest = tail;
        }
        Ok(request)
    }

    /// One `info` line of `children` (a snapshot's root moves), each move written by
    /// `name`; `ownership` (from the top-left point, positive for the side to move)
    /// appended when asked for and given. `None` while no move has a visit.
    pub fn line(
        &self,
        children: &[SnapshotChild],
        name: impl Fn(Move) -> String,
        ownership: Option<&[f32]>,
    ) -> Option<String> {
        let mut visited: Vec<&SnapshotChild> = children.iter().filter(|c| c.visits > 0).collect();
        if visited.is_empty() {
            return None;
        }
        visited.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.value.total_cmp(&a.value)));
        visited.truncate(self.max_moves.max(self.min_moves).max(1));
        let mut line = String::new();
        for (order, child) in visited.iter().enumerate() {
            if order > 0 {
                line.push(' ');
            }
            let (winrate, prior, lcb) = (child.value, child.prior, child.lower_bound());
            let _ = write!(line, "info move {} visits {} ", name(child.mv), child.visits);
            let _ = match self.dialect {
                Dialect::Lz => {
                    write!(line, "winrate {} prior {} lcb {}", per_10k(winrate), per_10k(prior), per_10k(lcb))
                }
                Dialect::Kata => write!(line, "winrate {winrate:.6} prior {prior:.6} lcb {lcb:.6}"),
            };
            let _ = write!(line, " order {order} pv");
            for &mv in &child.pv {
                let _ = write!(line, " {}", name(mv));
            }
        }
        if let (true, Some(values)) = (self.ownership, ownership) {
            line.push_str(" ownership");
            for value in values {
                let _ = write!(line, " {value:.4}");
            }
        }
        Some(line)
    }
}

/// A fraction of one in ten-thousandths.
fn per_10k(x: f64) -> i64 {
    (x.clamp(0.0, 1.0) * 10_000.0).round() as i64
}

/// An interval in centiseconds (at least [`MIN_INTERVAL`], at most a day).
fn centiseconds(text: &str) -> Result<Duration, GtpError> {
    let cs: u64 = text.parse().map_err(|_| GtpError::Syntax(format!("interval '{text}' (centiseconds)")))?;
    Ok(Duration::from_millis(cs.min(8_640_000) * 10).max(MIN_INTERVAL))
}

fn count(key: &str, text: &str) -> Result<usize, GtpError> {
    text.parse().map_err(|_| GtpError::Syntax(format!("{key} '{text}' is not a count")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Proof;

    fn child(mv: u16, visits: u64, value: f64) -> SnapshotChild {
        SnapshotChild { mv: Move(mv), visits, value, prior: 0.25, proof: Proof::Unknown, pv: vec![Move(mv), Move(9)] }
    }

    #[test]
    fn arguments_are_read_as_the_extensions_give_them() {
        let r = Request::parse(Dialect::Lz, &["b", "50"]).unwrap();
        assert_eq!((r.player, r.interval), (Some(Player::One), Duration::from_millis(500)));
        let r = Request::parse(Dialect::Kata, &["interval", "10", "ownership", "true", "maxmoves", "3"]).unwrap();
        assert_eq!((r.player, r.interval, r.ownership, r.max_moves), (None, Duration::from_millis(100), true, 3));
        let r = Request::parse(Dialect::Lz, &["W", "0"]).unwrap();
        assert_eq!(r.interval, MIN_INTERVAL);
        for bad in [&["ownership", "true"][..], &["interval"], &["b", "x1"], &["frobnicate", "1"]] {
            assert!(Request::parse(Dialect::Lz, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn lines_list_visited_moves_most_visited_first() {
        let name = |m: Move| format!("m{}", m.0);
        let children = [child(1, 10, 0.6), child(2, 0, 0.5), child(3, 30, 0.4)];
        let lz = Request::parse(Dialect::Lz, &[]).unwrap();
        let line = lz.line(&children, name, None).unwrap();
        let lcb = per_10k(child(3, 30, 0.4).lower_bound());
        assert_eq!(
            line,
            format!(
                "info move m3 visits 30 winrate 4000 prior 2500 lcb {lcb} order 0 pv m3 m9 \
                 info move m1 visits 10 winrate 6000 prior 2500 lcb {} order 1 pv m1 m9",
                per_10k(child(1, 10, 0.6).lower_bound())
            )
        );
        let kata = Request::parse(Dialect::Kata, &["ownership", "true", "maxmoves", "1"]).unwrap();
        let line = kata.line(&children, name, Some(&[1.0, -0.5])).unwrap();
        assert!(line.starts_with("info move m3 visits 30 winrate 0.400000 prior 0.250000 lcb "), "{line}");
        assert!(line.ends_with(" order 0 pv m3 m9 ownership 1.0000 -0.5000"), "{line}");
        assert_eq!(lz.line(&[child(1, 0, 0.5)], name, None), None);
    }
}
