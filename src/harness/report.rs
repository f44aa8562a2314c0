//! Machine-readable reports: what `parmcts … --json` prints, as types. Each report is
//! built from the library's results and the game (which writes the moves as text), and
//! derives `Serialize`: a field's name is its JSON key.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::games::Game;
use crate::harness::benchmark::BenchRow;
use crate::harness::matches::{Disagreement, Ending, GameRecord, MatchSummary, MoveTimes};
use crate::search::{format_moves, SearchConfig, SearchResult};
use crate::tree::{Proof, NODE_BYTES};

/// A proven value's name (`None`: not proven).
pub fn proof_name(proof: Proof) -> Option<&'static str> {
    match proof {
        Proof::Unknown => None,
        Proof::Win => Some("win"),
        Proof::Loss => Some("loss"),
        Proof::Draw => Some("draw"),
    }
}

/// `parmcts perft`.
#[derive(Clone, Debug, Serialize)]
pub struct PerftReport {
    /// The game's name.
    pub game: &'static str,
    /// Plies counted.
    pub depth: u32,
    /// Leaf positions at that depth.
    pub nodes: u64,
    /// Wall time.
    pub seconds: f64,
    /// Leaves per second.
    pub nodes_per_sec: f64,
}

/// One root child of a [`SearchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct ChildReport {
    /// The move, in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Visits.
    pub visits: u64,
    /// Mean result for the side to move, 0 to 1.
    pub value: f64,
    /// Proven value for the side to move, if any.
    pub proof: Option<&'static str>,
}

/// `parmcts search`.
#[derive(Clone, Debug, Serialize)]
pub struct SearchReport {
    /// The game's name.
    pub game: &'static str,
    /// The move chosen.
    pub best_move: Option<String>,
    /// Playouts run.
    pub playouts: u64,
    /// Nodes in the arena(s).
    pub nodes: u64,
    /// Wall time of the search.
    pub elapsed_ms: f64,
    /// Playouts per second.
    pub playouts_per_sec: f64,
    /// Visits of the root(s).
    pub root_visits: u64,
    /// The root's children.
    pub children: Vec<ChildReport>,
    /// The principal variation.
    pub pv: Vec<String>,
    /// Deepest walk.
    pub max_depth: u32,
    /// Whether the arena filled up.
    pub arena_full: bool,
    /// `seq`, `tree` or `root`.
    pub mode: &'static str,
    /// Worker threads.
    pub threads: usize,
    /// Playouts in flight per worker.
    pub lanes: usize,
    /// Nodes kept from the previous search.
    pub reused_nodes: u64,
    /// The root's proven value for the side to move, if any.
    pub proof: Option<&'static str>,
    /// Bytes per node.
    pub node_bytes: usize,
    /// Arena capacity in nodes.
    pub arena_nodes: u64,
    /// `ok`, or the first violated invariant (only with `--check-invariants`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invariants: Option<String>,
    /// With `eval-batch`: the evaluator's batches by size (entry `i`: batches of `i + 1`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub batch_sizes: Vec<u64>,
}

impl SearchReport {
    /// The report of `result`, a search of `root` under `config`.
    pub fn new<G: Game>(root: &G, result: &SearchResult, config: &SearchConfig) -> SearchReport {
        SearchReport {
            game: G::NAME,
            best_move: result.best_move.map(|m| root.format_move(m)),
            playouts: result.playouts,
            nodes: result.nodes,
            elapsed_ms: result.elapsed.as_secs_f64() * 1e3,
            playouts_per_sec: result.playouts_per_sec(),
            root_visits: result.root_visits,
            children: result
                .children
                .iter()
                .map(|c| ChildReport {
                    mv: root.format_move(c.mv),
                    visits: c.visits,
                    value: c.value,
                    proof: proof_name(c.proof),
                })
                .collect(),
            pv: format_moves(root, &result.pv),
            max_depth: result.max_depth,
            arena_full: result.arena_full,
            mode: result.mode.name(),
            threads: result.threads,
            lanes: result.lanes,
            reused_nodes: result.reused_nodes,
            proof: proof_name(result.proof),
            node_bytes: NODE_BYTES,
            arena_nodes: config.arena_capacity(),
            invariants: None,
            batch_sizes: result.batch_sizes.clone(),
        }
    }
}

/// `parmcts play`.
#[derive(Clone, Debug, Serialize)]
pub struct PlayReport {
    /// The game's name.
    pub game: &'static str,
    /// `p1`, `p2`, `draw`, or `abandoned` (a person at the board quit: no result).
    pub result: &'static str,
    /// `rules`, `resignation`, `forfeit` or `quit`.
    pub ending: &'static str,
    /// Who resigned, forfeited (and why) or quit: `p1 quit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The moves played (die rolls included; the moves taken back left out).
    pub moves: Vec<String>,
}

/// `parmcts solve`.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The game's name.
    pub game: &'static str,
    /// The position's moves.
    pub moves: String,
    /// The score (Pons's convention; its sign when `weak`).
    pub score: i32,
    /// A move that keeps the score.
    pub best_move: Option<String>,
    /// Positions explored.
    pub nodes: u64,
    /// Wall time.
    pub seconds: f64,
    /// Whether only the sign was asked for.
    pub weak: bool,
}

/// `parmcts solve` stopped by Ctrl-C before the score was exact.
#[derive(Clone, Debug, Serialize)]
pub struct SolveBoundsReport {
    /// The game's name.
    pub game: &'static str,
    /// The position's moves.
    pub moves: String,
    /// The bounds on the score proven so far (Connect Four's solver narrows them as it
    /// goes; the others prove none before the end).
    pub score_bounds: Option<[i32; 2]>,
    /// Positions explored when the bounds were proven.
    pub nodes: Option<u64>,
    /// Wall time until Ctrl-C.
    pub seconds: f64,
    /// Whether only the sign was asked for.
    pub weak: bool,
    /// Always `true`: the solve did not finish.
    pub interrupted: bool,
}

/// A player's move times in a [`MatchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct MoveTimesReport {
    /// Moves timed.
    pub moves: usize,
    /// Median.
    pub median_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Slowest.
    pub max_ms: f64,
    /// The player's time budget per move, if it has one.
    pub budget_ms: Option<f64>,
    /// For a player that searches: the median of its searches' playouts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_playouts: Option<u64>,
    /// For a player that searches: the median of its searches' playouts a second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playouts_per_s: Option<f64>,
}

/// The SPRT verdict of a [`MatchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    /// `AcceptH0`, `AcceptH1` or `Continue`.
    pub verdict: String,
    /// The log-likelihood ratio.
    pub llr: f64,
}

/// `parmcts match`.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// The game's name.
    pub game: &'static str,
    /// First player's spec.
    pub p1: String,
    /// Second player's spec.
    pub p2: String,
    /// Games played.
    pub games: u64,
    /// Wins of the first player.
    pub p1_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Wins of the second player.
    pub p2_wins: u64,
    /// The first player's score, 0 to 1.
    pub score: f64,
    /// Its 95 % interval.
    pub score_ci95: [f64; 2],
    /// The Elo difference.
    pub elo: f64,
    /// Its 95 % interval.
    pub elo_ci95: [f64; 2],
    /// The SPRT's verdict, when one ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtReport>,
    /// Move times of the players that were timed, by `p1` / `p2`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub move_times: BTreeMap<&'static str, MoveTimesReport>,
    /// The games lost by forfeit (an illegal move, or an external engine that crashed,
    /// answered nonsense or timed out), in completion order.
    pub forfeits: Vec<ForfeitReport>,
    /// The game (0-based) a person at the board quit, which ended the match; it counts
    /// for nobody.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abandoned: Option<u64>,
    /// Whether the match was interrupted (Ctrl-C) before its last game: the figures
    /// count the games finished before.
    pub interrupted: bool,
    /// The games whose result a player disputed (its `final_score` named another winner
    /// than the rules), with what each spec and the referee answered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<DisagreementReport>,
}

/// A game whose result a player disputed, in a [`MatchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct DisagreementReport {
    /// The game's index in the match.
    pub game: u64,
    /// The scores.
    #[serde(flatten)]
    pub scores: Disagreement,
}

/// A game lost by forfeit, in a [`MatchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct ForfeitReport {
    /// The game's index in the match.
    pub game: u64,
    /// `p1` or `p2`: the spec that forfeited.
    pub by: &'static str,
    /// What went wrong.
    pub reason: String,
}

impl MatchReport {
    /// The report of a match of `G` between `p1` and `p2`; `budgets_ms` are the players'
    /// time budgets per move.
    pub fn new<G: Game>(p1: &str, p2: &str, summary: &MatchSummary, budgets_ms: [Option<f64>; 2]) -> MatchReport {
        let t = &summary.tally;
        let (slo, shi) = t.score_ci95();
        let (elo_lo, elo_hi) = t.elo_ci95();
        let move_times = ["p1", "p2"]
            .into_iter()
            .zip(&summary.move_times)
            .zip(budgets_ms)
            .filter_map(|((key, times), budget_ms)| {
                let MoveTimes { moves, median_ms, p99_ms, max_ms, playouts } = (*times)?;
                let (median_playouts, playouts_per_s) =
                    (playouts.map(|p| p.median), playouts.map(|p| p.median_per_second));
                Some((
                    key,
                    MoveTimesReport { moves, median_ms, p99_ms, max_ms, budget_ms, median_playouts, playouts_per_s },
                ))
            })
            .collect();
        MatchReport {
            game: G::NAME,
            p1: p1.to_string(),
            p2: p2.to_string(),
            games: t.games(),
            p1_wins: t.wins,
            draws: t.draws,
            p2_wins: t.losses,
            score: t.score(),
            score_ci95: [slo, shi],
            elo: t.elo(),
            elo_ci95: [elo_lo, elo_hi],
            sprt: summary.sprt.map(|(verdict, llr)| SprtReport { verdict: format!("{verdict:?}"), llr }),
            move_times,
            forfeits: summary
                .forfeits
                .iter()
                .map(|f| ForfeitReport { game: f.game, by: f.by, reason: f.reason.clone() })
                .collect(),
            abandoned: summary.abandoned,
            interrupted: summary.interrupted,
            disagreements: summary
                .disagreements
                .iter()
                .map(|(game, scores)| DisagreementReport { game: *game, scores: scores.clone() })
                .collect(),
        }
    }
}

/// One rung of a [`LadderReport`]: `playouts` per move against half as many.
#[derive(Clone, Debug, Serialize)]
pub struct RungReport {
    /// Playouts per move of the rung's first player (the second has half as many).
    pub playouts: u64,
    /// Elo above the lowest rung: the sum of the doublings so far.
    pub elo_total: f64,
    /// The rung's match.
    #[serde(flatten)]
    pub report: MatchReport,
}

/// `parmcts ladder`.
#[derive(Clone, Debug, Serialize)]
pub struct LadderReport {
    /// The game's name.
    pub game: &'static str,
    /// The player without its budget.
    pub player: String,
    /// How the games start (`start`, `random:R` or `all:R`).
    pub openings: String,
    /// The rungs, lowest first.
    pub rungs: Vec<RungReport>,
    /// Whether the ladder was interrupted (Ctrl-C): the rungs are those played, the
    /// last one's match cut short where it says so.
    pub interrupted: bool,
}

/// One line of a match's `--records` file.
#[derive(Clone, Debug, Serialize)]
pub struct RecordLine<'a> {
    /// The game's index in the match.
    pub game: u64,
    /// The board's set-up, for games with more than one (`9x10@3,1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<&'a str>,
    /// The opening moves.
    pub opening: &'a [String],
    /// The moves after the opening.
    pub moves: &'a [String],
    /// Plies played from the start position: the opening's and those after it (die
    /// rolls included; a resignation is no ply).
    pub plies: usize,
    /// `p1`, `p2` or `draw`.
    pub result: &'static str,
    /// `rules`, `resignation` or `forfeit`.
    pub ending: &'static str,
    /// Why the loser forfeited, for a forfeit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<&'a str>,
    /// Whether the first player had the first move.
    pub p1_first: bool,
    /// The two players' specs.
    pub players: [&'a str; 2],
    /// Each player's move times.
    pub move_ms: &'a [Vec<f64>; 2],
    /// Each player's playouts per move (empty for a player that does not search).
    pub move_playouts: &'a [Vec<u64>; 2],
    /// The scores, where a player disputed the rules' result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disagreement: Option<&'a Disagreement>,
}

impl<'a> RecordLine<'a> {
    /// The line of `record`, a game between `players`.
    pub fn new(record: &'a GameRecord, players: [&'a str; 2]) -> RecordLine<'a> {
        RecordLine {
            game: record.index,
            board: record.setup.as_deref(),
            opening: &record.opening,
            moves: &record.moves,
            plies: (record.opening.len() + record.moves.len())
                .saturating_sub(usize::from(record.ending == Ending::Resignation)),
            result: record.result,
            ending: record.ending.name(),
            forfeit: match &record.ending {
                Ending::Forfeit { reason } => Some(reason),
                _ => None,
            },
            p1_first: record.p1_first,
            players,
            move_ms: &record.move_ms,
            move_playouts: &record.move_playouts,
            disagreement: record.disagreement.as_ref(),
        }
    }
}

/// One row of a [`BenchReport`].
#[derive(Clone, Debug, Serialize)]
pub struct BenchRowReport {
    /// The game's name.
    pub game: &'static str,
    /// `pure`, `seq`, `tree` or `root`.
    pub mode: &'static str,
    /// Threads.
    pub threads: usize,
    /// Playouts in flight per thread.
    pub lanes: usize,
    /// Playouts per repeat.
    pub playouts: u64,
    /// Median playouts per second.
    pub playouts_per_sec: f64,
    /// Nanoseconds per playout at the median.
    pub ns_per_playout: f64,
    /// Median rate over the sequential median of the same run.
    pub ratio_to_seq: Option<f64>,
    /// Every repeat's rate, in run order.
    pub samples: Vec<f64>,
}

impl From<&BenchRow> for BenchRowReport {
    fn from(r: &BenchRow) -> BenchRowReport {
        BenchRowReport {
            game: r.game,
            mode: r.mode.name(),
            threads: r.threads,
            lanes: r.lanes,
            playouts: r.playouts,
            playouts_per_sec: r.playouts_per_sec,
            ns_per_playout: r.ns_per_playout(),
            ratio_to_seq: r.ratio_to_seq,
            samples: r.samples.clone(),
        }
    }
}

/// `parmcts bench`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Every row, game by game.
    pub results: Vec<BenchRowReport>,
    /// Repeats per row.
    pub repeat: usize,
    /// Cores available.
    pub cores: usize,
    /// The Othello playout kernels' build (`avx2+bmi2` or `portable`).
    pub othello_playout_build: &'static str,
    /// The 1-minute load average before and after the run (Linux), to tell a busy machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_average: Option<[f64; 2]>,
    /// Whether the run was interrupted (Ctrl-C): the rows are those measured, each the
    /// median of the repeats it had (its `samples`).
    pub interrupted: bool,
}

/// `parmcts train-weights`.
#[derive(Clone, Debug, Serialize)]
pub struct TrainReport {
    /// The game's name.
    pub game: &'static str,
    /// The file written.
    pub out: String,
    /// Decisions recorded.
    pub decisions: usize,
    /// Decisions held out of the fit.
    pub held_out: usize,
    /// The features' names.
    pub features: &'static [&'static str],
    /// The gammas written (at the temperature).
    pub gammas: Vec<f32>,
    /// The game's hand-set gammas.
    pub hand_set: Vec<f32>,
    /// The softmax temperature.
    pub temperature: f64,
    /// The fit itself.
    pub fitted_gammas: Vec<f64>,
    /// Held-out log-likelihood per move of the fit.
    pub fitted_log_likelihood: f64,
    /// Held-out log-likelihood per move of the written gammas.
    pub learned_log_likelihood: f64,
    /// Held-out share of moves whose feature the written gammas rank first.
    pub learned_top_feature: f64,
    /// Held-out log-likelihood per move of the hand-set gammas.
    pub hand_set_log_likelihood: f64,
    /// Held-out share of moves whose feature the hand-set gammas rank first.
    pub hand_set_top_feature: f64,
    /// Wall time.
    pub seconds: f64,
    /// Teacher games played to their end (all of them unless interrupted).
    pub games: usize,
    /// Whether the teacher's games were interrupted (Ctrl-C): the fit is of the
    /// decisions recorded before.
    pub interrupted: bool,
}
