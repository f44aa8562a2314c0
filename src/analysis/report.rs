//! The lines the analysis engine writes: analyses (during and after a search), the
//! reply to a query terminated before it started, errors and warnings, each one JSON
//! object on one line (docs/ANALYSIS.md gives the schema).

use serde::Serialize;

use super::query::FieldError;
use crate::games::{Game, Move, Player};
use crate::search::{Snapshot, SnapshotChild};
use crate::tree::Proof;

/// The schema's version: a new field does not change it, a changed or removed one does.
pub const SCHEMA_VERSION: u32 = 1;

/// One analysis of one turn.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// The query's id.
    pub id: String,
    /// The turn analysed (0: the start position).
    pub turn_number: usize,
    /// Whether the search goes on (a report of `reportDuringSearchEvery`); each turn
    /// ends with exactly one analysis where it is `false`.
    pub is_during_search: bool,
    /// The visited root moves, best first.
    pub move_infos: Vec<MoveInfo>,
    /// The position's own figures.
    pub root_info: RootInfo,
    /// Each point's ownership in [-1, 1], positive for the side to move, from the
    /// top-left point row by row (`includeOwnership`, games with territory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ownership: Option<Vec<f32>>,
    /// Every root move's prior (`includePolicy`), in move order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<Vec<PolicyEntry>>,
}

/// One root move's figures.
#[derive(Clone, Debug, Serialize)]
pub struct MoveInfo {
    /// The move, in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Playouts through it.
    pub visits: u64,
    /// Its mean result for the side to move, in [0, 1] (a draw counts one half).
    pub winrate: f64,
    /// Its prior in [0, 1] (0 where the search keeps none).
    pub prior: f64,
    /// A lower confidence bound of the win rate (1.96 standard errors).
    pub lcb: f64,
    /// Its rank: 0 the most visited.
    pub order: usize,
    /// The principal variation from it, the move first.
    pub pv: Vec<String>,
    /// `win`, `loss` or `draw` for the side to move where the solver proved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proven: Option<&'static str>,
}

/// A position's own figures.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootInfo {
    /// Playouts through the root's moves.
    pub visits: u64,
    /// The root's mean result for the side to move (the moves' visit-weighted mean).
    pub winrate: f64,
    /// The side to move: `B` (the first player) or `W`.
    pub current_player: &'static str,
    /// The position's hash, 16 hex digits ([`Game::hash`]).
    pub this_hash: String,
    /// Playouts this search ran.
    pub playouts: u64,
    /// Seconds this search ran.
    pub seconds: f64,
}

/// One root move's prior.
#[derive(Clone, Debug, Serialize)]
pub struct PolicyEntry {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its prior in [0, 1].
    pub prior: f64,
}

/// The reply to a turn terminated before its search started.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NoResults<'a> {
    /// The query's id.
    pub id: &'a str,
    /// The turn.
    pub turn_number: usize,
    /// Always `false`: this is the turn's last reply.
    pub is_during_search: bool,
    /// Always `true`.
    pub no_results: bool,
}

/// An error (`error`) or a warning (`warning`): the query's id and the field where known.
#[derive(Clone, Debug, Serialize)]
pub struct Problem<'a> {
    /// The query's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    /// An error's message (the query is not served).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    /// A warning's message (the query is served).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<&'a str>,
    /// The field at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'a str>,
    /// The turn, for an error of one turn's search.
    #[serde(rename = "turnNumber", skip_serializing_if = "Option::is_none")]
    pub turn: Option<usize>,
}

impl FieldError {
    /// The error as its line.
    pub fn error_line(&self) -> String {
        line(&Problem {
            id: self.id.as_deref(),
            error: Some(&self.message),
            warning: None,
            field: self.field.as_deref(),
            turn: None,
        })
    }

    /// The problem as a warning's line for query `id`.
    pub fn warning_line(&self, id: &str) -> String {
        line(&Problem {
            id: Some(id),
            error: None,
            warning: Some(&self.message),
            field: self.field.as_deref(),
            turn: None,
        })
    }
}

/// `value` as one line of JSON (no newline).
pub fn line(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"cannot write a reply: {e}\"}}"))
}

/// The colour letter of `player`.
pub fn colour(player: Player) -> &'static str {
    match player {
        Player::One => "B",
        Player::Two => "W",
    }
}

/// What a turn's analysis adds to its snapshot: the position and what to include.
pub struct Turn<'a, G> {
    /// The query's id.
    pub id: &'a str,
    /// The turn.
    pub number: usize,
    /// Its position.
    pub position: &'a G,
    /// Include the priors of every root move.
    pub policy: bool,
}

impl<G: Game> Turn<'_, G> {
    /// The analysis of `snapshot`; `ownership` (positive for the first player, from the
    /// top-left point) turned to the side to move's view.
    pub fn analysis(&self, snapshot: &Snapshot, ownership: Option<Vec<(Move, f32)>>) -> Analysis {
        let name = |mv: Move| self.position.format_move(mv);
        let mut visited: Vec<&SnapshotChild> = snapshot.children.iter().filter(|c| c.visits > 0).collect();
        visited.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.value.total_cmp(&a.value)));
        let move_infos = visited
            .iter()
            .enumerate()
            .map(|(order, c)| MoveInfo {
                mv: name(c.mv),
                visits: c.visits,
                winrate: c.value,
                prior: c.prior,
                lcb: c.lower_bound(),
                order,
                pv: c.pv.iter().map(|&m| name(m)).collect(),
                proven: match c.proof {
                    Proof::Win => Some("win"),
                    Proof::Loss => Some("loss"),
                    Proof::Draw => Some("draw"),
                    Proof::Unknown => None,
                },
            })
            .collect();
        let to_move = self.position.side_to_move();
        let sign = if to_move == Player::One { 1.0 } else { -1.0 };
        Analysis {
            id: self.id.to_string(),
            turn_number: self.number,
            is_during_search: !snapshot.finished,
            move_infos,
            root_info: RootInfo {
                visits: snapshot.children.iter().map(|c| c.visits).sum(),
                winrate: snapshot.root_value().unwrap_or(0.5),
                current_player: colour(to_move),
                this_hash: format!("{:016X}", self.position.hash()),
                playouts: snapshot.playouts,
                seconds: snapshot.elapsed.as_secs_f64(),
            },
            ownership: ownership.map(|points| points.into_iter().map(|(_, v)| sign * v).collect()),
            policy: self
                .policy
                .then(|| snapshot.children.iter().map(|c| PolicyEntry { mv: name(c.mv), prior: c.prior }).collect()),
        }
    }
}
