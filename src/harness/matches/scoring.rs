//! Results both sides accept, the way gogui-twogtp keeps them: after a game that ended
//! by the rules, each player that scores games itself (an external engine, through GTP's
//! `final_score`) is asked for the result. An answer naming another winner than the
//! rules' is a disagreement: reported with the game and, where the match has a referee
//! engine (`--referee gtp:COMMAND`), settled by the referee's own score of the game,
//! which then counts. Under Tromp-Taylor rules every dead stone must be captured before
//! the game ends; an engine that passes with dead stones on the board scores them off,
//! and its score is the one a Go player would accept.

use serde::Serialize;

use crate::games::{Game, Outcome, Player};
use crate::harness::players::{Agent, GtpAgent, PlayerError};

/// A game whose result a player (an engine's `final_score`) did not accept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// The rules' result as GTP writes a winner: `B+` (the first player's), `W+`, or `0`
    /// for a draw.
    pub rules: &'static str,
    /// What each spec (`p1`, `p2`) answered to `final_score`, for the specs that score
    /// games (an answer that is no score reads `no score: …`).
    pub said: [Option<String>; 2],
    /// The stones each of those specs scored as dead (`final_status_list dead`: points
    /// separated by spaces, empty for none).
    pub dead: [Option<String>; 2],
    /// The referee's answer, where the match has one; the result it names counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub referee: Option<String>,
}

/// GTP's `final_score` answer as a result: `B+…` (the first player wins), `W+…`, or `0`
/// (a draw); `None` for anything else.
pub fn read_score(answer: &str) -> Option<Outcome> {
    let answer = answer.trim();
    let winner = |c: u8| match c.to_ascii_uppercase() {
        b'B' => Some(Player::One),
        b'W' => Some(Player::Two),
        _ => None,
    };
    match answer.as_bytes() {
        [b'0'] => Some(Outcome::Draw),
        [colour, b'+', ..] => winner(*colour).map(Outcome::Win),
        _ => None,
    }
}

/// `outcome` as GTP writes a winner: `B+`, `W+` or `0`.
fn gtp_winner(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Player::One) => "B+",
        Outcome::Win(Player::Two) => "W+",
        Outcome::Draw => "0",
    }
}

/// The result that counts for a game that ended by the rules in `outcome`, and the
/// disagreement if a player scored it otherwise. `agents` are by colour (`[0]` moved
/// first), `p1_first` says which spec that was; `end` is the final position, reached
/// from `start` by `moves` (in the game's notation); `referee` is the referee engine's
/// command line.
pub(super) fn settle<G: Game>(
    (start, moves, end): (&G, &[String], &G),
    outcome: Outcome,
    agents: &mut [Box<dyn Agent<G>>; 2],
    p1_first: bool,
    referee: Option<&[String]>,
) -> (Outcome, Option<Disagreement>) {
    let said = by_spec(agents, p1_first, |agent| agent.final_score(end), "no score");
    let disputes = |answer: &Option<String>| answer.as_deref().and_then(read_score).is_some_and(|s| s != outcome);
    if !said.iter().any(disputes) {
        return (outcome, None);
    }
    let dead = by_spec(agents, p1_first, |agent| agent.dead_stones(end), "no list");
    let (counts, referee) = match referee {
        Some(command) => {
            let answer = referee_score(command, start, moves).unwrap_or_else(|e| format!("no score: {e}"));
            (read_score(&answer).unwrap_or(outcome), Some(answer))
        }
        None => (outcome, None),
    };
    (counts, Some(Disagreement { rules: gtp_winner(outcome), said, dead, referee }))
}

/// Each spec's answer to `ask` (`p1`'s, then `p2`'s; `agents` are by colour, and colour
/// 0 is `p1`'s when `p1_first`), a failure written as `failed: why`.
fn by_spec<G: Game>(
    agents: &mut [Box<dyn Agent<G>>; 2],
    p1_first: bool,
    ask: impl Fn(&mut Box<dyn Agent<G>>) -> Option<Result<String, PlayerError>>,
    failed: &str,
) -> [Option<String>; 2] {
    let mut answers = [None, None];
    for (colour, agent) in agents.iter_mut().enumerate() {
        answers[usize::from((colour == 0) != p1_first)] =
            ask(agent).map(|answer| answer.unwrap_or_else(|e| format!("{failed}: {e}")));
    }
    answers
}

/// The referee engine's `final_score` of the game of `moves` from `start`: a fresh
/// engine, shown every move.
fn referee_score<G: Game>(command: &[String], start: &G, moves: &[String]) -> Result<String, String> {
    let mut referee = GtpAgent::new(command.to_vec());
    let mut game = start.clone();
    for text in moves {
        let mv = game.parse_move(text).map_err(|e| e.to_string())?;
        referee.observe(&game, mv).map_err(|e| e.to_string())?;
        game.try_play(mv).map_err(|e| e.to_string())?;
    }
    match Agent::<G>::final_score(&mut referee, &game) {
        Some(answer) => answer.map_err(|e| e.to_string()),
        None => Err("the referee scores no games".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_as_gtp_writes_them() {
        assert_eq!(read_score("B+12.5"), Some(Outcome::Win(Player::One)));
        assert_eq!(read_score(" w+74 "), Some(Outcome::Win(Player::Two)));
        assert_eq!(read_score("W+R"), Some(Outcome::Win(Player::Two)));
        assert_eq!(read_score("0"), Some(Outcome::Draw));
        for junk in ["", "B", "+3", "X+1", "01", "unknown command"] {
            assert_eq!(read_score(junk), None, "{junk}");
        }
        for outcome in [Outcome::Win(Player::One), Outcome::Win(Player::Two), Outcome::Draw] {
            assert_eq!(read_score(gtp_winner(outcome)), Some(outcome));
        }
    }
}
