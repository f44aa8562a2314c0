//! Game records in SGF (Smart Game Format, `FF[4]`, <https://www.red-bean.com/sgf/>), the
//! format every Go viewer and GUI opens (Sabaki, GoGui, q5Go, CGoban): one game per
//! record, with the board size, komi, rules, players, result and moves.
//!
//! A record is written by replaying the game's moves on the game's own rules, so a record
//! holds only legal moves and its result by the rules is the score of the position
//! reached. Games that GTP plays ([`GtpGame`]) name their SGF game number and points.
//! Records are read ([`read_record`], for GTP's `loadsgf`) with the `sgf-parse` crate:
//! the main line's moves, the root's setup stones, the size and the komi.

use std::fmt::{self, Write as _};

use sgf_parse::{go, unknown_game, GameTree, SgfNode};

use crate::games::{GameError, GameKind, Player};

pub use super::game::point;
use super::game::{with_gtp_game, GtpGame};

/// How a recorded game was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision<'a> {
    /// By the rules: the score of the final position (SGF `RE[B+3.5]`, `RE[0]` for a draw).
    Rules,
    /// The loser resigned (`RE[W+R]`).
    Resignation {
        /// The side that won.
        winner: Player,
    },
    /// The loser forfeited (`RE[B+F]`); `reason` becomes the last move's comment.
    Forfeit {
        /// The side that won.
        winner: Player,
        /// What the loser did wrong.
        reason: &'a str,
    },
}

/// One finished game to write.
#[derive(Clone, Copy, Debug)]
pub struct GameToRecord<'a> {
    /// The players' names: Black's (the first player's), then White's.
    pub players: [&'a str; 2],
    /// Every move from the start position, in the game's notation (a final `resign` is
    /// not a move and is left out).
    pub moves: &'a [String],
    /// How the game was decided.
    pub decision: Decision<'a>,
    /// A comment for the root node (the match and game index, say), if any.
    pub comment: Option<&'a str>,
}

/// SGF's escaping of a text value: `\` and `]` are escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// SGF's letter of a colour: `B` for the first player, `W` for the second.
fn colour_letter(player: Player) -> char {
    match player {
        Player::One => 'B',
        Player::Two => 'W',
    }
}

/// The SGF record of `game`, played from `start`.
///
/// # Errors
/// [`GameError`] when a move does not parse or is illegal (the record would be wrong).
pub fn write_record<G: GtpGame>(start: &G, game: &GameToRecord<'_>) -> Result<String, GameError> {
    let mut position = start.clone();
    let mut moves = Vec::with_capacity(game.moves.len());
    for text in game.moves.iter().filter(|m| !m.eq_ignore_ascii_case("resign")) {
        let mv = position.parse_move(text)?;
        moves.push((position.side_to_move(), mv));
        position.try_play(mv)?;
    }
    let (result, last_comment) = match game.decision {
        Decision::Rules => (position.final_score(), None),
        Decision::Resignation { winner } => (format!("{}+R", colour_letter(winner)), None),
        Decision::Forfeit { winner, reason } => {
            (format!("{}+F", colour_letter(winner)), Some(format!("forfeit: {reason}")))
        }
    };
    let header = RecordHeader { players: game.players, result: Some(&result), comment: game.comment, to_play: None };
    Ok(write_moves(start, &moves, &header, last_comment.as_deref()))
}

/// The root's properties besides the game, size, komi and rules.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecordHeader<'a> {
    /// Black's and White's names (an empty one is left out).
    pub players: [&'a str; 2],
    /// `RE`, if the game is decided.
    pub result: Option<&'a str>,
    /// The root's comment.
    pub comment: Option<&'a str>,
    /// `PL` after the last move: the player to move when it is not the one the moves
    /// imply (a GTP session whose turn was given, a record loaded with `PL`).
    pub to_play: Option<Player>,
}

/// The SGF record of `moves` (each with the colour that played it, so a GTP session's
/// moves out of turn are kept) from `start`; `last_comment` goes on the last move.
pub(crate) fn write_moves<G: GtpGame>(
    start: &G,
    moves: &[(Player, crate::games::Move)],
    header: &RecordHeader<'_>,
    last_comment: Option<&str>,
) -> String {
    let mut body = String::new();
    for &(player, mv) in moves {
        let colour = colour_letter(player);
        let point = if G::pass() == Some(mv) { String::new() } else { start.sgf_point(mv) };
        let _ = write!(body, ";{colour}[{point}]");
    }
    if let Some(comment) = last_comment {
        let _ = write!(body, "C[{}]", escape(comment));
    }
    let to_play = header.to_play.map(|p| format!("PL[{}]", colour_letter(p)));
    let mut root =
        format!("(;FF[4]CA[UTF-8]GM[{}]AP[parmcts:{}]SZ[{}]", G::SGF_GAME, env!("CARGO_PKG_VERSION"), G::BOARD_SIZE);
    if start.komi() != 0.0 {
        let _ = write!(root, "KM[{}]", start.komi());
    }
    if let Some(rules) = G::SGF_RULES {
        let _ = write!(root, "RU[{rules}]");
    }
    for (property, name) in [("PB", header.players[0]), ("PW", header.players[1])] {
        if !name.is_empty() {
            let _ = write!(root, "{property}[{}]", escape(name));
        }
    }
    if let Some(result) = header.result {
        let _ = write!(root, "RE[{result}]");
    }
    if let Some(comment) = header.comment {
        let _ = write!(root, "C[{}]", escape(comment));
    }
    match to_play {
        Some(pl) if moves.is_empty() => root.push_str(&pl),
        Some(pl) => body.push_str(&pl),
        None => {}
    }
    format!("{root}\n{body})\n")
}

/// A game read from SGF: what `loadsgf` replays.
#[derive(Clone, Debug, PartialEq)]
pub struct SgfGame {
    /// `GM` (1 when missing, as SGF says).
    pub game: u32,
    /// `SZ`, when given (a square board).
    pub size: Option<u32>,
    /// `KM`, when given.
    pub komi: Option<f32>,
    /// The root's setup stones (`AB`, `AW`) and then the main line's moves, in order,
    /// each with its colour; a point in SGF letters, or `None` for a pass.
    pub moves: Vec<(Player, Option<String>)>,
    /// How many of `moves` are setup stones (they come first).
    pub setup: usize,
    /// `PL`, the player to move after `moves`, when given.
    pub to_play: Option<Player>,
}

/// Why a record could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError(pub String);

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SgfError {}

/// Reads the first game of an SGF collection: its game number, size, komi, the root's
/// setup stones and the main line (the first variation at every branch).
///
/// # Errors
/// [`SgfError`] when the text is not SGF, the board is not square, or a node past the
/// root adds or removes stones (a position, not a game).
pub fn read_record(text: &str) -> Result<SgfGame, SgfError> {
    let trees = sgf_parse::parse(text).map_err(|e| SgfError(format!("not SGF: {e}")))?;
    // `parse` fails on a text with no game, so there is a first one.
    let Some(tree) = trees.into_iter().next() else { return Err(SgfError("not SGF: no game".to_string())) };
    match tree {
        GameTree::GoGame(root) => read_nodes(&root, go_value),
        GameTree::Unknown(root) => {
            let game = read_nodes(&root, unknown_value)?;
            // `sgf-parse` reads a tree as Go's only for the text `GM[1]`: Go's number
            // written another way (`GM[01]`) would lose Go's passes and point lists.
            if game.game == 1 {
                return Err(SgfError("a Go record's game number must be written GM[1]".to_string()));
            }
            Ok(game)
        }
    }
}

/// One property as the reader needs it.
enum Value {
    Game(u32),
    Size(u8, u8),
    Komi(f32),
    Move(Player, Option<String>),
    Setup(Player, Vec<String>),
    /// `AE`: stones taken off.
    Removal,
    /// `PL`: the player to move.
    ToPlay(Player),
    Other,
}

fn colour_of(black: bool) -> Player {
    if black {
        Player::One
    } else {
        Player::Two
    }
}

fn sorted_points(points: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut points: Vec<String> = points.into_iter().collect();
    points.sort();
    points
}

fn go_value(prop: &go::Prop) -> Value {
    let go_point = |p: &go::Point| point(usize::from(p.x), usize::from(p.y));
    let go_move = |m: &go::Move| match m {
        // `tt` is the pass of FF[3] records on boards up to 19x19.
        go::Move::Pass | go::Move::Move(go::Point { x: 19, y: 19 }) => None,
        go::Move::Move(p) => Some(go_point(p)),
    };
    match prop {
        go::Prop::GM(n) => Value::Game(u32::try_from(*n).unwrap_or(0)),
        go::Prop::SZ((w, h)) => Value::Size(*w, *h),
        go::Prop::KM(k) => Value::Komi(*k as f32),
        go::Prop::B(m) | go::Prop::W(m) => Value::Move(colour_of(matches!(prop, go::Prop::B(_))), go_move(m)),
        go::Prop::AB(ps) | go::Prop::AW(ps) => {
            Value::Setup(colour_of(matches!(prop, go::Prop::AB(_))), sorted_points(ps.iter().map(go_point)))
        }
        go::Prop::AE(_) => Value::Removal,
        go::Prop::PL(c) => Value::ToPlay(colour_of(*c == sgf_parse::Color::Black)),
        _ => Value::Other,
    }
}

fn unknown_value(prop: &unknown_game::Prop) -> Value {
    let mv = |m: &String| if m.is_empty() { None } else { Some(m.clone()) };
    match prop {
        unknown_game::Prop::GM(n) => Value::Game(u32::try_from(*n).unwrap_or(0)),
        unknown_game::Prop::SZ((w, h)) => Value::Size(*w, *h),
        unknown_game::Prop::B(m) | unknown_game::Prop::W(m) => {
            Value::Move(colour_of(matches!(prop, unknown_game::Prop::B(_))), mv(m))
        }
        unknown_game::Prop::AB(ps) | unknown_game::Prop::AW(ps) => {
            Value::Setup(colour_of(matches!(prop, unknown_game::Prop::AB(_))), sorted_points(ps.iter().cloned()))
        }
        unknown_game::Prop::AE(_) => Value::Removal,
        unknown_game::Prop::PL(c) => Value::ToPlay(colour_of(*c == sgf_parse::Color::Black)),
        unknown_game::Prop::Unknown(id, values) if id == "KM" => {
            values.first().and_then(|k| k.trim().parse::<f32>().ok()).map_or(Value::Other, Value::Komi)
        }
        _ => Value::Other,
    }
}

fn read_nodes<P: sgf_parse::SgfProp>(root: &SgfNode<P>, value: fn(&P) -> Value) -> Result<SgfGame, SgfError> {
    let mut game = SgfGame { game: 1, size: None, komi: None, moves: Vec::new(), setup: 0, to_play: None };
    for (depth, node) in root.main_variation().enumerate() {
        for prop in node.properties() {
            match value(prop) {
                // A root property: the tree's game is the root's.
                Value::Game(n) if depth == 0 => game.game = n,
                Value::Size(w, h) if w == h => game.size = Some(u32::from(w)),
                Value::Size(w, h) => return Err(SgfError(format!("the board is {w}x{h}: only square boards"))),
                Value::Komi(k) if k.is_finite() => game.komi = Some(k),
                Value::Move(player, point) => {
                    game.moves.push((player, point));
                    game.to_play = None;
                }
                Value::ToPlay(player) => game.to_play = Some(player),
                Value::Setup(player, points) if depth == 0 => {
                    game.moves.extend(points.into_iter().map(|p| (player, Some(p))));
                    game.setup = game.moves.len();
                }
                Value::Setup(..) | Value::Removal => {
                    return Err(SgfError(format!("node {depth} adds or removes stones: only games are read")))
                }
                Value::Game(_) | Value::Komi(_) | Value::Other => {}
            }
        }
    }
    Ok(game)
}

/// A writer of records from a game's start position ([`writer_for`]).
pub type RecordWriter = fn(&GameToRecord<'_>) -> Result<String, GameError>;

/// The record writer of the game `kind` names, or `None` for a game SGF has no form for.
pub fn writer_for(kind: GameKind) -> Option<RecordWriter> {
    fn from_start<G: GtpGame>(game: &GameToRecord<'_>) -> Result<String, GameError> {
        write_record(&G::new(), game)
    }
    with_gtp_game!(kind, G => from_start::<G> as RecordWriter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::{Go9, Hex11, Othello};

    fn moves(text: &[&str]) -> Vec<String> {
        text.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn go_records_name_points_from_the_top_left() {
        let played = moves(&["A1", "J9", "pass", "E5", "resign"]);
        let game = GameToRecord {
            players: ["parmcts", "gnu]go"],
            moves: &played,
            decision: Decision::Resignation { winner: Player::Two },
            comment: None,
        };
        let sgf = write_record(&Go9::new(), &game).unwrap();
        assert_eq!(
            sgf,
            format!(
                "(;FF[4]CA[UTF-8]GM[1]AP[parmcts:{}]SZ[9]KM[7]RU[Tromp-Taylor]PB[parmcts]PW[gnu\\]go]RE[W+R]\n\
                 ;B[ai];W[ia];B[];W[ee])\n",
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn results_by_the_rules_are_the_final_score() {
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["pass", "pass"]),
            decision: Decision::Rules,
            comment: Some("game 3"),
        };
        let sgf = write_record(&Go9::new(), &game).unwrap();
        assert!(sgf.contains("RE[W+7]C[game 3]"), "{sgf}");
        // Othello: GM 2, no komi, a1 at the top left; a forfeit's reason on the last move.
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["f5", "d6"]),
            decision: Decision::Forfeit { winner: Player::One, reason: "illegal move 'a1'" },
            comment: None,
        };
        let sgf = write_record(&Othello::new(), &game).unwrap();
        assert!(sgf.contains("GM[2]") && !sgf.contains("KM[") && sgf.contains("RE[B+F]"), "{sgf}");
        assert!(sgf.ends_with(";B[fe];W[df]C[forfeit: illegal move 'a1'])\n"), "{sgf}");
    }

    #[test]
    fn hex_records_count_rows_from_the_top() {
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["a1", "k11"]),
            decision: Decision::Rules,
            comment: None,
        };
        let sgf = write_record(&Hex11::new(), &game).unwrap();
        assert!(sgf.contains("GM[11]") && sgf.contains("SZ[11]") && sgf.ends_with(";B[aa];W[kk])\n"), "{sgf}");
        assert!(writer_for(GameKind::Hex).is_some() && writer_for(GameKind::ConnectFour).is_none());
    }

    #[test]
    fn records_are_read_along_the_main_line() {
        let game = read_record("(;GM[1]SZ[9]KM[6.5]AB[cc][aa]AW[gg];B[ee](;W[tt];B[]PL[B])(;W[dd]))").unwrap();
        assert_eq!((game.game, game.size, game.komi, game.setup), (1, Some(9), Some(6.5), 3));
        let moves: Vec<(Player, Option<&str>)> = game.moves.iter().map(|(p, m)| (*p, m.as_deref())).collect();
        let (b, w) = (Player::One, Player::Two);
        let expected = [(b, Some("aa")), (b, Some("cc")), (w, Some("gg")), (b, Some("ee")), (w, None), (b, None)];
        assert_eq!(moves, expected);
        assert_eq!(game.to_play, Some(b));
        // Othello (GM 2) reads through the generic properties; no GM means Go.
        let game = read_record("(;GM[2]SZ[8]KM[0];B[fe];W[df])").unwrap();
        assert_eq!((game.game, game.size, game.moves.len(), game.to_play), (2, Some(8), 2, None));
        assert_eq!(read_record("(;B[aa])").unwrap().game, 1);
        for (text, why) in [
            ("(;GM[1];B[aa];AB[bb])", "node 2 adds or removes stones"),
            ("(;GM[1];B[aa];AE[aa])", "node 2 adds or removes stones"),
            ("(;GM[1]SZ[9:13])", "only square boards"),
            ("(;GM[1]", "not SGF"),
            ("", "not SGF"),
        ] {
            let error = read_record(text).unwrap_err().to_string();
            assert!(error.contains(why), "{text}: {error}");
        }
    }

    #[test]
    fn illegal_moves_are_refused() {
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["E5", "E5"]),
            decision: Decision::Rules,
            comment: None,
        };
        assert!(write_record(&Go9::new(), &game).is_err());
    }
}
