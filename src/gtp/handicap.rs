//! Handicap games: GTP's `fixed_handicap`, `place_free_handicap` and `set_free_handicap`
//! put Black's stones on the empty board, and White moves first. The stones are Black
//! moves in the session's history (as a controller that sends `play b` for each would
//! have them), so `undo`, `printsgf` and the search see an ordinary game.

use super::args::{count, expect_args};
use super::error::GtpError;
use super::session::Session;
use crate::games::Player;

/// The fewest handicap stones GTP places (one stone is an ordinary first move).
const FEWEST: u32 = 2;

/// Runs the handicap command `name` with `args` on `session`: the stones' vertices, or
/// nothing for `set_free_handicap`.
///
/// # Errors
/// [`GtpError::Handicap`] for a game without handicap stones, a board that is not empty,
/// a number of stones out of range or a bad vertex list (no stone is then placed);
/// [`GtpError::Syntax`] for a missing or malformed count.
pub(super) fn command(session: &mut dyn Session, name: &str, args: &[&str]) -> Result<String, GtpError> {
    let refuse = |why: String| Err(GtpError::Handicap(why));
    if session.handicap_layout(FEWEST).is_none() {
        return refuse("this game has no handicap stones (go has)".to_string());
    }
    if !session.at_start() {
        return refuse("board not empty".to_string());
    }
    let points = session.board_size() * session.board_size();
    if name == "set_free_handicap" {
        if !(FEWEST as usize..points as usize).contains(&args.len()) {
            return refuse(format!("bad vertex list: {} stones (2 to {} here)", args.len(), points - 1));
        }
        let vertices: Vec<String> = args.iter().map(|v| v.to_string()).collect();
        place(session, &vertices)?;
        return Ok(String::new());
    }
    expect_args(name, args, 1)?;
    let stones = count(args[0])?;
    // The largest fixed layout; `place_free_handicap` may ask for more, and gets the
    // largest (GTP lets an engine place fewer than asked).
    let most = (FEWEST..).take_while(|&n| session.handicap_layout(n).is_some()).last().unwrap_or(FEWEST);
    let allowed = if name == "fixed_handicap" { most } else { points - 1 };
    if !(FEWEST..=allowed).contains(&stones) {
        return refuse(format!("invalid number of stones {stones} (2 to {allowed} here)"));
    }
    let vertices = session.handicap_layout(stones.min(most)).unwrap_or_default();
    place(session, &vertices)?;
    Ok(vertices.join(" "))
}

/// Plays `vertices` as Black stones; on a pass, a repeated or illegal vertex, takes back
/// those already placed and fails naming it.
fn place(session: &mut dyn Session, vertices: &[String]) -> Result<(), GtpError> {
    for (i, vertex) in vertices.iter().enumerate() {
        let played = if vertex.eq_ignore_ascii_case("pass") {
            Err("a pass is not a stone".to_string())
        } else {
            session.play(Player::One, vertex).map_err(|e| e.to_string())
        };
        if let Err(why) = played {
            for _ in 0..i {
                // `i` moves were played from the start: each can be taken back.
                let _ = session.undo();
            }
            return Err(GtpError::Handicap(format!("bad vertex list: {vertex}: {why}")));
        }
    }
    Ok(())
}
