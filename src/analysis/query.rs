//! Reading one line of the analysis protocol: a query (a game and the turns of it to
//! analyse) or an action (`terminate`, `terminate_all`, `query_version`,
//! `clear_cache`), each field checked, every error naming its field (docs/ANALYSIS.md).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::games::{GameKind, Player};
use crate::gtp::game::sized;
use crate::search::{Setting, SETTINGS};

/// What is wrong with a line: the query's id where it had a readable one, the field,
/// and why. Written back as `{"id", "error", "field"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The query's id (`None` when the line has no readable id).
    pub id: Option<String>,
    /// The field at fault (`None`: the line as a whole).
    pub field: Option<String>,
    /// Why.
    pub message: String,
}

impl FieldError {
    fn new(field: &str, message: impl Into<String>) -> FieldError {
        FieldError { id: None, field: Some(field.to_string()), message: message.into() }
    }
}

/// A move of `moves` or a stone of `initialStones`: the player who plays it (`None`:
/// whoever is to move, the die at a chance turn) and its text in the game's notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The player named (`"B"`/`"W"`, `"1"`/`"2"`), if any.
    pub player: Option<Player>,
    /// The move in the game's notation.
    pub text: String,
}

/// A query, read and checked field by field (the position itself is built per game:
/// `position.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// The query's id, echoed in every response.
    pub id: String,
    /// The game (`game`, sized by `boardXSize`/`boardYSize` in Go and Hex).
    pub game: GameKind,
    /// A start position in the game's notation (`initialPosition`: Othello's board and
    /// side to move, a run-time Connect Four board).
    pub initial_position: Option<String>,
    /// Stones on the board before the first move (`initialStones`).
    pub initial_stones: Vec<Placed>,
    /// The player to move at turn 0 (`initialPlayer`).
    pub initial_player: Option<Player>,
    /// The moves of the game (`moves`).
    pub moves: Vec<Placed>,
    /// The rules' name (`rules`).
    pub rules: Option<String>,
    /// The komi (`komi`).
    pub komi: Option<f32>,
    /// The turns to analyse (`analyzeTurns`; default the last).
    pub turns: Vec<usize>,
    /// Each turn's priority (`priority`, or `priorities` one per turn).
    pub priorities: Vec<i64>,
    /// The playout budget (`maxVisits`, or `overrideSettings.maxVisits`).
    pub max_visits: Option<u64>,
    /// The time budget (`overrideSettings.maxTime`, seconds).
    pub max_time: Option<Duration>,
    /// How often to report while searching (`reportDuringSearchEvery`).
    pub report_every: Option<Duration>,
    /// Whether to report ownership (`includeOwnership`).
    pub ownership: bool,
    /// Whether to report every root move's prior (`includePolicy`).
    pub policy: bool,
    /// Search settings for this query (`overrideSettings`, by their `key=value` keys).
    pub overrides: Vec<(String, String)>,
    /// Fields not in the protocol: answered with a warning, the query served.
    pub unknown: Vec<String>,
}

/// One line of input, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Analyse turns of a game.
    Analyse(Box<Query>),
    /// `terminate`: stop the queries with `terminateId` (only `turnNumbers`, if given);
    /// `terminate_all`: every query (`terminate_id` `None`).
    Terminate {
        /// The query's own fields, echoed back.
        echo: Map<String, Value>,
        /// The id of the queries to stop (`None`: all).
        terminate_id: Option<String>,
        /// Their turns (`None`: all).
        turns: Option<Vec<usize>>,
    },
    /// `query_version`: echoed with the engine's version and the schema's.
    Version(Map<String, Value>),
    /// `clear_cache`: echoed (the engine keeps no cache between queries).
    ClearCache(Map<String, Value>),
}

/// The shortest `reportDuringSearchEvery`: a hundredth of a second.
pub const MIN_REPORT_EVERY: Duration = Duration::from_millis(10);

/// The most turns one query may ask for.
pub const MAX_TURNS: usize = 10_000;

/// The largest komi (KataGo's bound).
const MAX_KOMI: f64 = 150.0;

/// The top-level fields a query may have.
const QUERY_FIELDS: &[&str] = &[
    "id",
    "game",
    "moves",
    "initialStones",
    "initialPlayer",
    "initialPosition",
    "rules",
    "komi",
    "boardXSize",
    "boardYSize",
    "analyzeTurns",
    "maxVisits",
    "reportDuringSearchEvery",
    "includeOwnership",
    "includePolicy",
    "priority",
    "priorities",
    "overrideSettings",
];

/// Settings a query may not override: the pool's resources (threads, mode, arena) are
/// the command line's, and the budget has its own fields.
const ENGINE_SETTINGS: &[&str] = &["threads", "mode", "nodes", "memory-mb", "playouts", "time-ms", "until-stopped"];

/// Reads one line; `default_game` serves a query without `game`.
///
/// # Errors
/// The first [`FieldError`] found (its `id` set where the line had one).
pub fn parse(line: &str, default_game: GameKind) -> Result<Request, FieldError> {
    let value: Value = serde_json::from_str(line).map_err(|e| FieldError {
        id: None,
        field: None,
        message: format!("could not parse JSON: {e}"),
    })?;
    let Value::Object(object) = value else {
        return Err(FieldError { id: None, field: None, message: "a query must be a JSON object".to_string() });
    };
    let id = match object.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) => return Err(FieldError::new("id", "must be a string")),
        None => return Err(FieldError::new("id", "missing (every query has a string id)")),
    };
    let with_id = |mut e: FieldError| {
        e.id = Some(id.clone());
        e
    };
    match object.get("action") {
        None => parse_query(&object, id.clone(), default_game).map(|q| Request::Analyse(Box::new(q))).map_err(with_id),
        Some(Value::String(action)) => parse_action(action, object.clone()).map_err(with_id),
        Some(_) => Err(with_id(FieldError::new("action", "must be a string"))),
    }
}

fn parse_action(action: &str, object: Map<String, Value>) -> Result<Request, FieldError> {
    match action {
        "query_version" => Ok(Request::Version(object)),
        "clear_cache" => Ok(Request::ClearCache(object)),
        "terminate_all" => {
            let turns = object.get("turnNumbers").map(|v| turn_list("turnNumbers", v)).transpose()?;
            Ok(Request::Terminate { echo: object, terminate_id: None, turns })
        }
        "terminate" => {
            let terminate_id = match object.get("terminateId") {
                Some(Value::String(id)) => id.clone(),
                Some(_) => return Err(FieldError::new("terminateId", "must be a string")),
                None => return Err(FieldError::new("terminateId", "missing (the id of the queries to stop)")),
            };
            let turns = object.get("turnNumbers").map(|v| turn_list("turnNumbers", v)).transpose()?;
            Ok(Request::Terminate { echo: object, terminate_id: Some(terminate_id), turns })
        }
        other => Err(FieldError::new(
            "action",
            format!("unknown action '{other}' (expected query_version, clear_cache, terminate or terminate_all)"),
        )),
    }
}

fn parse_query(object: &Map<String, Value>, id: String, default_game: GameKind) -> Result<Query, FieldError> {
    let game = game_of(object, default_game)?;
    let moves = match object.get("moves") {
        Some(v) => placed_list("moves", v, true)?,
        None => Vec::new(),
    };
    let turns = match object.get("analyzeTurns") {
        Some(v) => turn_list("analyzeTurns", v)?,
        None => vec![moves.len()],
    };
    if let Some(&turn) = turns.iter().find(|&&t| t > moves.len()) {
        return Err(FieldError::new("analyzeTurns", format!("turn {turn} is past the last move ({})", moves.len())));
    }
    let priorities = priorities(object, turns.len())?;
    let (mut max_visits, mut max_time, overrides) = overrides(object)?;
    if let Some(v) = object.get("maxVisits") {
        max_visits = Some(visits("maxVisits", v)?);
    }
    Ok(Query {
        id,
        game,
        initial_position: optional_string(object, "initialPosition")?,
        initial_stones: match object.get("initialStones") {
            Some(v) => placed_list("initialStones", v, false)?,
            None => Vec::new(),
        },
        initial_player: object.get("initialPlayer").map(|v| player("initialPlayer", v)).transpose()?,
        moves,
        rules: optional_string(object, "rules")?,
        komi: object.get("komi").map(komi).transpose()?,
        turns,
        priorities,
        max_visits: max_visits.take(),
        max_time: max_time.take(),
        report_every: object.get("reportDuringSearchEvery").map(report_every).transpose()?,
        ownership: flag(object, "includeOwnership")?,
        policy: flag(object, "includePolicy")?,
        overrides,
        unknown: object.keys().filter(|k| !QUERY_FIELDS.contains(&k.as_str())).cloned().collect(),
    })
}

/// The game of `game` (default `default_game`), sized by `boardXSize`/`boardYSize`.
fn game_of(object: &Map<String, Value>, default_game: GameKind) -> Result<GameKind, FieldError> {
    let kind = match object.get("game") {
        Some(Value::String(name)) => name.parse().map_err(|e| FieldError::new("game", format!("{e}")))?,
        Some(_) => return Err(FieldError::new("game", "must be a string (a game's name)")),
        None => default_game,
    };
    let size = |field: &str| -> Result<Option<u64>, FieldError> {
        object
            .get(field)
            .map(|v| v.as_u64().ok_or_else(|| FieldError::new(field, "must be a whole number")))
            .transpose()
    };
    let (x, y) = (size("boardXSize")?, size("boardYSize")?);
    let size = match (x, y) {
        (None, None) => return Ok(kind),
        (Some(x), Some(y)) if x != y => {
            return Err(FieldError::new("boardYSize", format!("{y} is not boardXSize {x} (square boards only)")))
        }
        (Some(s), _) | (_, Some(s)) => s,
    };
    let field = if x.is_some() { "boardXSize" } else { "boardYSize" };
    let fixed = || format!("{kind} has one board size (initialPosition sets run-time boards where a game has them)");
    if !kind.serves_gtp() {
        return Err(FieldError::new(field, fixed()));
    }
    u32::try_from(size)
        .ok()
        .and_then(|s| sized(kind, s))
        .ok_or_else(|| FieldError::new(field, format!("{kind} is not played on a {size}x{size} board")))
}

fn optional_string(object: &Map<String, Value>, field: &str) -> Result<Option<String>, FieldError> {
    match object.get(field) {
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(FieldError::new(field, "must be a string")),
        None => Ok(None),
    }
}

fn flag(object: &Map<String, Value>, field: &str) -> Result<bool, FieldError> {
    match object.get(field) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(FieldError::new(field, "must be true or false")),
        None => Ok(false),
    }
}

/// A player: `B`/`W` (`black`/`white`) or `1`/`2`, any case.
fn player(field: &str, value: &Value) -> Result<Player, FieldError> {
    let text = value.as_str().ok_or_else(|| FieldError::new(field, "a player must be a string: B or W"))?;
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" | "1" => Ok(Player::One),
        "w" | "white" | "2" => Ok(Player::Two),
        _ => Err(FieldError::new(field, format!("player '{text}' (expected B or W)"))),
    }
}

/// `[["B","Q4"],["W","D4"]]`; with `bare`, a move may also be a string alone.
fn placed_list(field: &str, value: &Value, bare: bool) -> Result<Vec<Placed>, FieldError> {
    let items = value.as_array().ok_or_else(|| FieldError::new(field, "must be a list of [player, move] pairs"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(text) if bare => Ok(Placed { player: None, text: text.clone() }),
            Value::Array(pair) if pair.len() == 2 => {
                let who =
                    player(field, &pair[0]).map_err(|e| FieldError::new(field, format!("item {i}: {}", e.message)))?;
                let text = pair[1]
                    .as_str()
                    .ok_or_else(|| FieldError::new(field, format!("item {i}: the move must be a string")))?;
                Ok(Placed { player: Some(who), text: text.to_string() })
            }
            _ => Err(FieldError::new(field, format!("item {i} is not a [player, move] pair"))),
        })
        .collect()
}

fn turn_list(field: &str, value: &Value) -> Result<Vec<usize>, FieldError> {
    let items = value.as_array().ok_or_else(|| FieldError::new(field, "must be a list of turn numbers"))?;
    if items.len() > MAX_TURNS {
        return Err(FieldError::new(field, format!("{} turns (at most {MAX_TURNS})", items.len())));
    }
    items
        .iter()
        .map(|v| {
            v.as_u64()
                .and_then(|t| usize::try_from(t).ok())
                .ok_or_else(|| FieldError::new(field, format!("{v} is not a turn number")))
        })
        .collect()
}

fn priorities(object: &Map<String, Value>, turns: usize) -> Result<Vec<i64>, FieldError> {
    let one = |field: &str, v: &Value| v.as_i64().ok_or_else(|| FieldError::new(field, "must be a whole number"));
    match (object.get("priority"), object.get("priorities")) {
        (Some(_), Some(_)) => Err(FieldError::new("priorities", "give priority or priorities, not both")),
        (Some(p), None) => Ok(vec![one("priority", p)?; turns]),
        (None, Some(Value::Array(list))) if list.len() == turns => list.iter().map(|p| one("priorities", p)).collect(),
        (None, Some(_)) => {
            Err(FieldError::new("priorities", format!("must be a list of {turns} numbers, one per analyzeTurns")))
        }
        (None, None) => Ok(vec![0; turns]),
    }
}

fn visits(field: &str, value: &Value) -> Result<u64, FieldError> {
    value.as_u64().filter(|&v| v > 0).ok_or_else(|| FieldError::new(field, format!("{value} is not a positive count")))
}

fn seconds(field: &str, value: &Value) -> Result<Duration, FieldError> {
    value
        .as_f64()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0 * 365.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| FieldError::new(field, format!("{value} is not a positive number of seconds")))
}

fn report_every(value: &Value) -> Result<Duration, FieldError> {
    Ok(seconds("reportDuringSearchEvery", value)?.max(MIN_REPORT_EVERY))
}

fn komi(value: &Value) -> Result<f32, FieldError> {
    let k = value.as_f64().ok_or_else(|| FieldError::new("komi", "must be a number"))?;
    if !(-MAX_KOMI..=MAX_KOMI).contains(&k) || (k * 2.0).fract() != 0.0 {
        return Err(FieldError::new("komi", format!("{k} (a whole or half number in [-150, 150])")));
    }
    Ok(k as f32)
}

/// The budget and the search settings of `overrideSettings`: KataGo's `maxVisits`,
/// `maxPlayouts` and `maxTime`, and any search setting by its key (docs/SETTINGS.md)
/// but those of [`ENGINE_SETTINGS`].
type Overrides = (Option<u64>, Option<Duration>, Vec<(String, String)>);

fn overrides(object: &Map<String, Value>) -> Result<Overrides, FieldError> {
    const FIELD: &str = "overrideSettings";
    let Some(value) = object.get(FIELD) else { return Ok((None, None, Vec::new())) };
    let Value::Object(settings) = value else { return Err(FieldError::new(FIELD, "must be an object")) };
    let (mut visits_cap, mut time, mut pairs) = (None, None, Vec::new());
    for (key, value) in settings {
        match key.as_str() {
            "maxVisits" | "maxPlayouts" => visits_cap = Some(visits(FIELD, value)?),
            "maxTime" => time = Some(seconds(FIELD, value)?),
            key if ENGINE_SETTINGS.contains(&key) => {
                return Err(FieldError::new(
                    FIELD,
                    format!("{key} is the engine's (the command line's); a query sets maxVisits or maxTime"),
                ))
            }
            key => {
                let setting = Setting::find(key).ok_or_else(|| {
                    let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
                    FieldError::new(FIELD, format!("unknown setting '{key}' (expected one of {})", keys.join(", ")))
                })?;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => if *b { "on" } else { "off" }.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return Err(FieldError::new(FIELD, format!("{key}: a string, number or boolean"))),
                };
                pairs.push((setting.key.to_string(), text));
            }
        }
    }
    Ok((visits_cap, time, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(line: &str) -> Query {
        match parse(line, GameKind::Go).unwrap() {
            Request::Analyse(q) => *q,
            other => panic!("{other:?}"),
        }
    }

    fn error(line: &str) -> FieldError {
        parse(line, GameKind::Go).unwrap_err()
    }

    #[test]
    fn katago_queries_are_read() {
        let q = query(
            r#"{"id":"foo","initialStones":[["B","E5"]],"moves":[["W","C3"],["B","G7"]],"rules":"tromp-taylor",
               "komi":7.5,"boardXSize":13,"boardYSize":13,"analyzeTurns":[0,2],"priorities":[1,5],
               "overrideSettings":{"maxVisits":300,"c":0.8},"includeOwnership":true,"extra":1}"#,
        );
        assert_eq!((q.game, q.turns.clone(), q.priorities.clone()), (GameKind::Go13, vec![0, 2], vec![1, 5]));
        assert_eq!((q.komi, q.max_visits, q.ownership, q.policy), (Some(7.5), Some(300), true, false));
        assert_eq!(q.moves[1], Placed { player: Some(Player::One), text: "G7".to_string() });
        assert_eq!(q.overrides, vec![("c".to_string(), "0.8".to_string())]);
        assert_eq!(q.unknown, vec!["extra".to_string()]);
        let q = query(r#"{"id":"o","game":"othello","moves":["d3","c5"]}"#);
        assert_eq!((q.game, q.turns.clone(), q.moves[0].player), (GameKind::Othello, vec![2], None));
    }

    #[test]
    fn errors_name_the_field() {
        for (line, field) in [
            (r#"{"id":"a","moves":[["X","C3"]]}"#, "moves"),
            (r#"{"id":"a","moves":[],"analyzeTurns":[1]}"#, "analyzeTurns"),
            (r#"{"id":"a","boardXSize":10,"boardYSize":10}"#, "boardXSize"),
            (r#"{"id":"a","boardXSize":9,"boardYSize":13}"#, "boardYSize"),
            (r#"{"id":"a","game":"chess"}"#, "game"),
            (r#"{"id":"a","komi":7.25}"#, "komi"),
            (r#"{"id":"a","maxVisits":0}"#, "maxVisits"),
            (r#"{"id":"a","overrideSettings":{"threads":4}}"#, "overrideSettings"),
            (r#"{"id":"a","overrideSettings":{"frobnicate":4}}"#, "overrideSettings"),
            (r#"{"id":"a","priorities":[1,2]}"#, "priorities"),
            (r#"{"id":"a","game":"connect4","boardXSize":8,"boardYSize":8}"#, "boardXSize"),
            (r#"{"id":"a","action":"terminate"}"#, "terminateId"),
            (r#"{"id":"a","action":"fly"}"#, "action"),
            (r#"{"id":7}"#, "id"),
        ] {
            let e = error(line);
            assert_eq!(e.field.as_deref(), Some(field), "{line}: {e:?}");
            assert_eq!(e.id.is_some(), field != "id", "{line}");
        }
        assert_eq!(error("{nope").field, None);
        assert_eq!(error("[1]").field, None);
    }
}
