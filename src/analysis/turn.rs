//! A query's turns as jobs for the pool, and one turn's search: started on the analysis
//! thread's kept [`Search`], reported every `reportDuringSearchEvery`, stopped by
//! `terminate`, and its final analysis written.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::pool::{Job, JobContext, Slot};
use super::position::{turns, Extras, Ownership, Warnings};
use super::query::{FieldError, Query};
use super::report::{line, NoResults, Problem, Turn};
use super::AnalysisConfig;
use crate::games::SearchGame;
use crate::gtp::game::with_gtp_game;
use crate::search::{Search, SearchConfig, SearchHandle};

/// How often a running turn looks for `terminate` when it has no report due sooner.
const TERMINATE_POLL: Duration = Duration::from_millis(5);

/// The first report of a search reporting during its run comes this soon (or at its
/// interval if shorter): a GUI shows something at once.
pub(super) const FIRST_REPORT: Duration = Duration::from_millis(50);

/// The jobs of `query`'s turns, and the warnings to send first.
///
/// # Errors
/// A [`FieldError`] naming the field that cannot be served.
pub(super) fn jobs(query: &Query, config: &AnalysisConfig) -> Result<(Vec<Job>, Warnings), FieldError> {
    let search = search_config(query, config)?;
    let kind = query.game;
    // The games GTP plays bring their colours, komi and ownership; the others their rules.
    with_gtp_game!(kind, G => jobs_of::<G>(query, search.clone(), Extras::gtp())).unwrap_or_else(|| {
        crate::games::for_each_game!(crate::analysis::turn::plain_arms!(
            kind,
            G,
            jobs_of::<G>(query, search, Extras::plain())
        ))
    })
}

/// The match of every registered game (`games::for_each_game!`), `$G` bound to its type.
macro_rules! plain_arms {
    (($kind:expr, $G:ident, $body:expr) $([$k:ident $m:ident $t:ident ($($caps:ident)*)])*) => {
        match $kind {
            $( crate::games::GameKind::$k => {
                type $G = crate::games::$m::$t;
                $body
            } )*
        }
    };
}
pub(crate) use plain_arms;

/// The engine's settings with the query's overrides and budget, within the limits.
fn search_config(query: &Query, config: &AnalysisConfig) -> Result<SearchConfig, FieldError> {
    let invalid = |field: &str, message: String| FieldError { id: None, field: Some(field.to_string()), message };
    let base = &config.search;
    let playouts = query.max_visits.or(base.playouts());
    let time = query.max_time.or(base.time());
    if let (Some(asked), Some(limit)) = (playouts, config.max_visits) {
        if asked > limit {
            return Err(invalid("maxVisits", format!("{asked} (this engine allows at most {limit})")));
        }
    }
    if let (Some(asked), Some(limit)) = (time, config.max_time) {
        if asked > limit {
            let message = format!("maxTime {} s (at most {} s)", asked.as_secs_f64(), limit.as_secs_f64());
            return Err(invalid("overrideSettings", message));
        }
    }
    let pairs = query.overrides.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    let builder = base.to_builder().apply_settings(pairs).map_err(|e| invalid("overrideSettings", e.to_string()))?;
    let overridden = builder.build().map_err(|e| invalid("overrideSettings", e.to_string()))?;
    let budget_field = if query.max_visits.is_some() { "maxVisits" } else { "overrideSettings" };
    overridden.with_budget(playouts, time).map_err(|e| invalid(budget_field, e.to_string()))
}

fn jobs_of<G: SearchGame + Send + 'static>(
    query: &Query,
    search: SearchConfig,
    extras: Extras<G>,
) -> Result<(Vec<Job>, Warnings), FieldError> {
    let (positions, mut warnings) = turns(query, &extras)?;
    if let Some((turn, _)) = query.turns.iter().zip(&positions).find(|(_, p)| p.outcome().is_some()) {
        let message = format!("turn {turn}: the game is over (nothing to analyse)");
        return Err(FieldError { id: None, field: Some("analyzeTurns".to_string()), message });
    }
    let ownership = query.ownership.then_some(extras.ownership);
    if query.ownership && positions.first().and_then(|p| (extras.ownership)(p)).is_none() {
        let message = format!("{} has no ownership: not reported", G::NAME);
        warnings.push(FieldError { id: None, field: Some("includeOwnership".to_string()), message });
    }
    let warned: Vec<FieldError> = query
        .unknown
        .iter()
        .map(|field| FieldError {
            id: None,
            field: Some(field.clone()),
            message: format!("{field} is not a field of the protocol: ignored"),
        })
        .collect();
    warnings.extend(warned);
    let id: Arc<str> = Arc::from(query.id.as_str());
    let jobs = query
        .turns
        .iter()
        .zip(positions)
        .zip(&query.priorities)
        .map(|((&number, position), &priority)| {
            let spec = TurnSpec {
                id: Arc::clone(&id),
                number,
                position,
                config: search.clone(),
                report_every: query.report_every,
                policy: query.policy,
                ownership,
            };
            Job { id: Arc::clone(&id), turn: number, priority, run: Box::new(move |slot, ctx| spec.run(slot, ctx)) }
        })
        .collect();
    Ok((jobs, warnings))
}

/// One turn to search, as queued.
struct TurnSpec<G> {
    id: Arc<str>,
    number: usize,
    position: G,
    config: SearchConfig,
    report_every: Option<Duration>,
    policy: bool,
    ownership: Option<Ownership<G>>,
}

impl<G: SearchGame + Send + 'static> TurnSpec<G> {
    /// Searches the turn on the thread's kept search (a new one when the settings
    /// differ), reporting as asked, and writes its final analysis.
    fn run(self, slot: &mut Slot, ctx: &JobContext<'_>) {
        // The kept search serves when only the budget differs (its arenas stay).
        let search = match slot.take() {
            Some(mut search) if self.same_but_budget(search.config()) => {
                search.set_budget(self.config.playouts, self.config.time).map(|()| search).map_err(Into::into)
            }
            _ => Search::new(self.config.clone()),
        };
        let handle = match search.map(|s| s.start(self.position.clone())) {
            Ok(Ok(handle)) => handle,
            Ok(Err(refused)) => {
                *slot = Some(*refused.search);
                return self.fail(ctx, &refused.error.to_string());
            }
            Err(e) => return self.fail(ctx, &e.to_string()),
        };
        self.watch(&handle, ctx);
        let snapshot = handle.snapshot();
        let finished = handle.wait();
        *slot = Some(finished.search);
        if let Err(e) = finished.result {
            return self.fail(ctx, &e.to_string());
        }
        if ctx.cancelled() && snapshot.children.iter().all(|c| c.visits == 0) {
            // Terminated before a playout: as if it had not started.
            let reply = NoResults { id: &self.id, turn_number: self.number, is_during_search: false, no_results: true };
            return ctx.out.send(&line(&reply));
        }
        ctx.out.send(&line(&self.turn().analysis(&snapshot, self.ownership.and_then(|f| f(&self.position)))));
    }

    /// Waits for the search's end, writing a report every `report_every` and stopping
    /// it at `terminate`.
    fn watch(&self, handle: &SearchHandle, ctx: &JobContext<'_>) {
        let mut next_report = self.report_every.map(|every| Instant::now() + every.min(FIRST_REPORT));
        loop {
            let wait = next_report.map_or(TERMINATE_POLL, |at| at.saturating_duration_since(Instant::now()));
            if handle.wait_timeout(wait.min(TERMINATE_POLL)) {
                return;
            }
            if ctx.cancelled() {
                handle.request_stop();
                // The workers stop at their next chunk, microseconds away.
                while !handle.wait_timeout(TERMINATE_POLL) {}
                return;
            }
            if let (Some(at), Some(every)) = (next_report, self.report_every) {
                if Instant::now() >= at {
                    let snapshot = handle.snapshot();
                    if !snapshot.finished {
                        let analysis = self.turn().analysis(&snapshot, self.ownership.and_then(|f| f(&self.position)));
                        ctx.out.send(&line(&analysis));
                    }
                    next_report = Some(Instant::now() + every);
                }
            }
        }
    }

    /// Whether `kept` is this turn's configuration but for the budget.
    fn same_but_budget(&self, kept: &SearchConfig) -> bool {
        let budget = SearchConfig { playouts: self.config.playouts, time: self.config.time, ..kept.clone() };
        budget == self.config
    }

    fn turn(&self) -> Turn<'_, G> {
        Turn { id: &self.id, number: self.number, position: &self.position, policy: self.policy }
    }

    /// The turn's search failed: its error, with its turn.
    fn fail(&self, ctx: &JobContext<'_>, message: &str) {
        let problem =
            Problem { id: Some(&self.id), error: Some(message), warning: None, field: None, turn: Some(self.number) };
        ctx.out.send(&line(&problem));
    }
}
