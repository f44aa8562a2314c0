//! A query's game as positions: the start (`initialPosition`, the rules, the komi, the
//! `initialStones`, the `initialPlayer`), then the position after each move, for the
//! turns asked. What a game offers beyond [`Game`](crate::Game) (a colour put to move, komi, setup
//! stones, ownership) comes from its [`GtpGame`] impl where it has one ([`Extras::gtp`]).

use super::query::{FieldError, Placed, Query};
use crate::games::{GameError, Move, Player, SearchGame};
use crate::gtp::game::colour_name;
use crate::gtp::GtpGame;

/// A game's ownership of each point (positive for the first player, from the top-left
/// point row by row), where it has territory ([`GtpGame::ownership`]).
pub type Ownership<G> = fn(&G) -> Option<Vec<(Move, f32)>>;

/// What the analysis uses of a game beyond [`Game`](crate::Game): its [`GtpGame`] side where it has
/// one, else the plain rules.
pub struct Extras<G> {
    /// Makes a player the side to move where the rules allow it.
    give_turn: fn(&mut G, Player, &str) -> Result<(), GameError>,
    /// Sets the komi; whether the game has one.
    set_komi: fn(&mut G, f32) -> bool,
    /// The ownership of each point, positive for the first player.
    pub ownership: Ownership<G>,
    /// The rules' name (lower case), where the game has variants.
    rules: Option<&'static str>,
}

impl<G: SearchGame> Extras<G> {
    /// A game with its plain rules alone: a named player must be the one to move.
    pub fn plain() -> Extras<G> {
        Extras {
            give_turn: |game, player, text| {
                if game.side_to_move() == player {
                    Ok(())
                } else {
                    Err(GameError::IllegalMove(format!("{text} (not {}'s turn)", colour_name(player))))
                }
            },
            set_komi: |_, _| false,
            ownership: |_| None,
            rules: None,
        }
    }
}

impl<G: GtpGame> Extras<G> {
    /// A game GTP plays: its colours, komi, setup stones and ownership.
    pub fn gtp() -> Extras<G> {
        Extras {
            give_turn: |game, player, text| game.give_turn(player, text),
            set_komi: |game, komi| {
                game.set_komi(komi);
                game.komi() == komi
            },
            ownership: |game| game.ownership(),
            rules: G::SGF_RULES,
        }
    }
}

/// What the start of a query's game set aside: warnings to send with its analysis.
pub type Warnings = Vec<FieldError>;

/// The positions at each of `query.turns`, in order, and the warnings (fields read but
/// not used by this game).
///
/// # Errors
/// A [`FieldError`] naming the field whose content does not make a game.
pub fn turns<G: SearchGame>(query: &Query, extras: &Extras<G>) -> Result<(Vec<G>, Warnings), FieldError> {
    let mut warnings = Vec::new();
    let mut game = start(query, extras, &mut warnings)?;
    let last = query.turns.iter().copied().max().unwrap_or(0);
    let mut at_turn = vec![game.clone()];
    for (i, placed) in query.moves[..last].iter().enumerate() {
        play(&mut game, placed, extras).map_err(|e| failure("moves", format!("move {i} ({}): {e}", placed.text)))?;
        at_turn.push(game.clone());
    }
    Ok((query.turns.iter().map(|&t| at_turn[t].clone()).collect(), warnings))
}

/// The position at turn 0.
fn start<G: SearchGame>(query: &Query, extras: &Extras<G>, warnings: &mut Warnings) -> Result<G, FieldError> {
    let mut game = match &query.initial_position {
        Some(text) => G::parse_position(text).map_err(|e| failure("initialPosition", e.to_string()))?,
        None => G::new(),
    };
    match (&query.rules, extras.rules) {
        (None, _) => {}
        (Some(asked), Some(rules)) if asked.eq_ignore_ascii_case(rules) => {}
        (Some(asked), rules) => {
            let expected = rules.map_or("leave rules out".to_string(), |r| format!("expected {}", r.to_lowercase()));
            return Err(failure("rules", format!("{} has no rules '{asked}' ({expected})", G::NAME)));
        }
    }
    if let Some(komi) = query.komi {
        if !(extras.set_komi)(&mut game, komi) {
            warnings.push(failure("komi", format!("{} has no komi: ignored", G::NAME)));
        }
    }
    for (i, stone) in query.initial_stones.iter().enumerate() {
        let player = stone.player.unwrap_or(Player::One);
        let placed = (extras.give_turn)(&mut game, player, &stone.text)
            .and_then(|()| game.parse_move(&stone.text))
            .and_then(|mv| game.try_play(mv));
        placed.map_err(|e| {
            failure("initialStones", format!("stone {i} ({} {}): {e}", colour_name(player), stone.text))
        })?;
    }
    let first = query.initial_player.or_else(|| query.moves.first().and_then(|m| m.player));
    let setup = !query.initial_stones.is_empty();
    if let Some(player) = first.or(setup.then_some(Player::One)) {
        let field = if query.initial_player.is_some() { "initialPlayer" } else { "moves" };
        (extras.give_turn)(&mut game, player, "turn 0")
            .map_err(|e| failure(field, format!("{} cannot be to move at turn 0: {e}", colour_name(player))))?;
    }
    Ok(game)
}

/// Plays `placed` (for its player, where it names one).
fn play<G: SearchGame>(game: &mut G, placed: &Placed, extras: &Extras<G>) -> Result<(), GameError> {
    if let Some(player) = placed.player {
        (extras.give_turn)(game, player, &placed.text)?;
    }
    let mv = game.parse_move(&placed.text)?;
    game.try_play(mv)
}

fn failure(field: &str, message: String) -> FieldError {
    FieldError { id: None, field: Some(field.to_string()), message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::query::{parse, Request};
    use crate::games::go::Go9;
    use crate::games::othello::Othello;
    use crate::games::{Game, GameKind};

    fn query(line: &str) -> Query {
        match parse(line, GameKind::Go).unwrap() {
            Request::Analyse(q) => *q,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn turns_are_the_positions_after_each_move() {
        let q = query(r#"{"id":"a","game":"othello","moves":[["B","d3"],["W","c5"]],"analyzeTurns":[2,0,1]}"#);
        let (positions, warnings) = turns::<Othello>(&q, &Extras::gtp()).unwrap();
        let mut expected = Othello::new();
        expected.play_sequence("d3").unwrap();
        let after_one = expected;
        expected.play_sequence("c5").unwrap();
        assert_eq!(positions, vec![expected, Othello::new(), after_one]);
        assert!(warnings.is_empty());
    }

    #[test]
    fn setup_stones_komi_and_the_first_player_make_the_start() {
        let q = query(
            r#"{"id":"a","game":"go","initialStones":[["B","E5"],["B","C3"]],"initialPlayer":"W","komi":0.5,"moves":[]}"#,
        );
        let (positions, _) = turns::<Go9>(&q, &Extras::gtp()).unwrap();
        let start = &positions[0];
        assert_eq!((start.side_to_move(), start.komi()), (Player::Two, 0.5));
        let e5 = start.parse_move("E5").unwrap();
        assert!(!start.legal_moves().as_ref().contains(&e5), "E5 holds a stone");
    }

    #[test]
    fn bad_games_name_their_field() {
        for (line, field) in [
            (r#"{"id":"a","game":"othello","moves":[["B","a1"]]}"#, "moves"),
            (r#"{"id":"a","game":"othello","moves":[["W","d3"]]}"#, "moves"),
            (r#"{"id":"a","game":"othello","rules":"japanese"}"#, "rules"),
            (r#"{"id":"a","game":"othello","initialPosition":"xyz"}"#, "initialPosition"),
            (r#"{"id":"a","game":"go","initialStones":[["B","Z9"]]}"#, "initialStones"),
            (r#"{"id":"a","game":"go","rules":"japanese"}"#, "rules"),
        ] {
            let q = query(line);
            let e = match q.game {
                GameKind::Othello => turns::<Othello>(&q, &Extras::gtp()).err(),
                _ => turns::<Go9>(&q, &Extras::gtp()).err(),
            };
            assert_eq!(e.and_then(|e| e.field).as_deref(), Some(field), "{line}");
        }
        let q = query(r#"{"id":"a","game":"othello","komi":6.5}"#);
        let (_, warnings) = turns::<Othello>(&q, &Extras::gtp()).unwrap();
        assert_eq!(warnings[0].field.as_deref(), Some("komi"));
    }
}
