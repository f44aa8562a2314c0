//! The simulator of ranks: a TDS search whose ranks are virtual processes in this one,
//! each with its own arena, clock and inbox, and messages carried by a model of the
//! network ([`RankModel`]). It predicts what a real cluster would see at rank counts
//! this machine does not have: messages and bytes per playout, the load's imbalance, and
//! the efficiency (one rank's time for the same playouts, over the ranks' time, over the
//! ranks).
//!
//! The model (a discrete-event simulation):
//! * a rank's work takes the time it takes here (measured on this machine's clock: each
//!   rank runs the real search code), one thing at a time;
//! * each message (one batch per destination, sent once the rank has handled what had
//!   arrived) costs its sender `message_cost` of processor time and arrives `latency`
//!   plus its size over `bandwidth` later; the network never congests;
//! * a rank takes every message that has arrived by its clock at once, then sends.
//!
//! The ranks run the same code as under MPI ([`TdsRank`]), so the tree they build, its
//! invariants and its counts are those of a real run with the same order of messages.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use crate::games::SearchGame;
use crate::search::error::{ConfigError, SearchError};
use crate::search::iteration::Worker;
use crate::search::params::{resolve_gammas, IterationParams, Tables, WalkShape};
use crate::search::Search;
use crate::tree::{Arena, ExclusiveTree, NodeId};
use crate::InvariantViolation;

use super::allowance::MAX_ALLOWANCE;
use super::check::{dump, verify};
use super::copy::SYNC_EVERY;
use super::rank::TdsRank;
use super::Root;

/// The network and the ranks of a simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankModel {
    /// Virtual ranks (1 or more).
    pub ranks: u32,
    /// A message's time from sender to receiver, beside its size's.
    pub latency: Duration,
    /// Bytes a second a message travels at.
    pub bandwidth: f64,
    /// The processor time a rank spends sending one message (the MPI library's).
    pub message_cost: Duration,
    /// Jobs in flight per rank (the root's home keeps `ranks` times this many).
    pub jobs_per_rank: u32,
}

/// What a simulation predicts.
#[derive(Clone, Debug, PartialEq)]
pub struct SimReport {
    /// The model simulated.
    pub model: RankModel,
    /// Playouts done (the configuration's budget).
    pub playouts: u64,
    /// The virtual time the search took: its last rank's clock.
    pub makespan: Duration,
    /// One rank's time for the same playouts (measured by a one-rank simulation of the
    /// same search, per playout).
    pub one_rank: Duration,
    /// `one_rank / makespan / ranks`.
    pub efficiency: f64,
    /// Messages sent, per playout.
    pub messages_per_playout: f64,
    /// Bytes sent, per playout.
    pub bytes_per_playout: f64,
    /// The busiest rank's busy time over the mean rank's.
    pub imbalance: f64,
    /// The mean rank's busy time over the makespan (the rest it waits for messages):
    /// with `imbalance`, where the efficiency goes.
    pub busy: f64,
    /// The playouts valued below the root's block (where the ranks share one tree; the
    /// rest were valued inside the root's home's block, or a rank's copy of it).
    pub below_top: f64,
    /// The invariants of the tree over all ranks, checked once the search is over:
    /// its nodes, or the first rule broken.
    pub invariants: Result<u64, InvariantViolation>,
}

impl Search {
    /// Simulates a TDS search of `root` (`dist-scheme=tds`) over `model.ranks` virtual
    /// ranks, with this search's configuration (its playout budget: a time budget is not
    /// simulated) ([`SimReport`]).
    ///
    /// # Errors
    /// [`SearchError::Config`] where the configuration asks for what TDS leaves out, or
    /// has no playout budget; what [`Search::run`] refuses of the root.
    pub fn simulate_ranks<G: SearchGame>(&mut self, root: &G, model: RankModel) -> Result<SimReport, SearchError> {
        super::check(&self.config)?;
        super::check_game::<G>(&self.config)?;
        let Some(playouts) = self.config.playouts else { return Err(ConfigError::NoBudget.into()) };
        if root.outcome().is_some() {
            return Err(SearchError::GameOver);
        }
        let gammas = resolve_gammas::<G>(&self.config, &mut self.shipped)?;
        let evaluator = self.evaluators.resolve::<G>(&self.config.eval)?;
        let shape = WalkShape { root_shares: 1, walks_in_flight: true, one_lane: true, batched: false };
        let params = IterationParams::resolve(&self.config, shape, gammas, Tables::default(), evaluator.as_deref());
        let capacity = self.arenas[0].capacity() as u64;
        let every = self.config.dist_every.unwrap_or(SYNC_EVERY);
        let setup =
            (capacity, self.config.dist_depth, self.config.seed, self.config.dist_top_everywhere.then_some(every));
        // One rank's time a playout: the faster of two runs (the first pays for the
        // process's first touch of its memory).
        let one_rank = || simulate(root, params, RankModel { ranks: 1, ..model }, playouts.min(50_000), setup);
        let (first, second) = (one_rank()?, one_rank()?);
        let one = if first.makespan <= second.makespan { first } else { second };
        let mut report = simulate(root, params, model, playouts, setup)?;
        let per_playout = one.makespan.as_secs_f64() / one.playouts.max(1) as f64;
        report.one_rank = Duration::from_secs_f64(per_playout * report.playouts as f64);
        report.efficiency =
            report.one_rank.as_secs_f64() / report.makespan.as_secs_f64().max(1e-12) / f64::from(model.ranks);
        Ok(report)
    }
}

/// A message in flight: when it arrives, where, from where, what.
type InFlight = (Reverse<Duration>, u32, u32, Vec<u64>);

/// The simulated network: the messages in flight, earliest first, and what was sent.
#[derive(Default)]
struct Network {
    queue: BinaryHeap<InFlight>,
    messages: u64,
    bytes: u64,
}

impl Network {
    /// Takes the earliest message, for rank `to`, and every other for it that has
    /// arrived by its `clock`, into `arrived` (its sender, its words), to be handled at
    /// once; its clock waits for the first.
    fn take_arrived(&mut self, to: u32, clock: &mut Duration, arrived: &mut Vec<(u32, Vec<u64>)>) {
        let (Reverse(at), _, from, words) = self.queue.pop().expect("a message");
        *clock = (*clock).max(at);
        arrived.push((from, words));
        while let Some((Reverse(at), next, _, _)) = self.queue.peek() {
            if *next != to || *at > *clock {
                break;
            }
            let (_, _, from, words) = self.queue.pop().expect("a message");
            arrived.push((from, words));
        }
    }

    /// Sends what rank `r` (`part`) has for each rank, one message per destination: each
    /// costs the rank `model.message_cost` of its `clock` and `busy` time, and arrives the
    /// latency and its size's time later.
    fn send<G: SearchGame>(
        &mut self,
        part: &mut TdsRank<'_, G>,
        r: usize,
        (clock, busy): (&mut Duration, &mut Duration),
        model: &RankModel,
    ) {
        for to in 0..part.out.len() {
            if part.out[to].is_empty() {
                continue;
            }
            let words = std::mem::take(&mut part.out[to]);
            let size = words.len() as u64 * 8;
            *clock += model.message_cost;
            *busy += model.message_cost;
            let at = *clock + model.latency + Duration::from_secs_f64(size as f64 / model.bandwidth);
            part.stats.messages += 1;
            part.stats.words += words.len() as u64;
            (self.messages, self.bytes) = (self.messages + 1, self.bytes + size);
            self.queue.push((Reverse(at), to as u32, r as u32, words));
        }
    }
}

/// Runs `model.ranks` virtual ranks until `playouts` are done.
fn simulate<G: SearchGame>(
    root: &G,
    params: IterationParams<'_, G>,
    model: RankModel,
    playouts: u64,
    (capacity, block, seed, copies): (u64, u32, u64, Option<u32>),
) -> Result<SimReport, SearchError> {
    let ranks = model.ranks.max(1);
    // Each rank its own arena, as each process has (up to 2^20 nodes here: many ranks share
    // this process's memory).
    let per_rank = capacity.min(1 << 20);
    let mut arenas =
        (0..ranks).map(|_| new_arena(per_rank, params.uct.implicit > 0.0)).collect::<Result<Vec<_>, _>>()?;
    let mut workers: Vec<Worker> = (0..ranks).map(|r| Worker::new(seed, r as usize)).collect();
    let root_at = Root::of(&[], block, ranks).everywhere(copies.is_some());
    let mut prior = vec![(0, 0); ranks as usize];
    for (r, arena) in arenas.iter_mut().enumerate().filter(|&(r, _)| root_at.kept_on(r as u32)) {
        crate::search::prepare_arenas(std::slice::from_mut(arena), &mut prior[r..=r], root, &params, false)?;
    }
    let mut parts: Vec<TdsRank<'_, G>> = workers
        .iter_mut()
        .enumerate()
        .map(|(r, worker)| {
            let at = (r as u32, ranks, block, copies.unwrap_or(SYNC_EVERY));
            TdsRank::new(at, (root, root_at), Default::default(), params, worker)
        })
        .collect();
    // The ranks that start jobs, each with its part of the budget and of the jobs in flight.
    let starters: Vec<usize> = (0..ranks as usize).filter(|&r| root_at.kept_on(r as u32)).collect();
    let mut budget = vec![0u64; ranks as usize];
    for (i, &r) in starters.iter().enumerate() {
        budget[r] = playouts / starters.len() as u64 + u64::from((i as u64) < playouts % starters.len() as u64);
    }
    let jobs = model.jobs_per_rank.max(1).saturating_mul(ranks / starters.len() as u32);
    let (clocks, busy, network) = run_ranks(&mut parts, &mut arenas, (budget, jobs), &model);
    let done: u64 = parts.iter().map(|p| p.finished).sum();
    let threshold = params.expand_threshold;
    let fragments: Vec<Vec<(u64, NodeId)>> = parts.iter().map(TdsRank::fragment_list).collect();
    let valued: Vec<u64> = parts.iter().map(|p| p.stats.valued).collect();
    let in_top: u64 = parts.iter().map(|p| p.stats.valued_in_top).sum();
    drop(parts);
    let dumps: Vec<_> = arenas
        .iter()
        .enumerate()
        .map(|(r, arena)| dump(arena, &fragments[r], (r as u32, ranks, block), root_at, valued[r], threshold))
        .collect();
    let mean_busy = busy.iter().sum::<Duration>().as_secs_f64() / f64::from(ranks);
    let max_busy = busy.iter().max().copied().unwrap_or_default().as_secs_f64();
    let makespan = clocks.iter().max().copied().unwrap_or_default();
    Ok(SimReport {
        model,
        playouts: done,
        makespan,
        one_rank: Duration::ZERO,
        efficiency: 0.0,
        messages_per_playout: network.messages as f64 / done.max(1) as f64,
        bytes_per_playout: network.bytes as f64 / done.max(1) as f64,
        imbalance: if mean_busy > 0.0 { max_busy / mean_busy } else { 1.0 },
        busy: mean_busy / makespan.as_secs_f64().max(1e-12),
        below_top: 1.0 - in_top as f64 / done.max(1) as f64,
        invariants: verify(&dumps, done, root_at, 0),
    })
}

/// Runs the ranks (`parts`, on `arenas`) until their jobs are over: each starts jobs from
/// its `budget` while fewer than `jobs` are in flight, handles what arrives, and sends.
/// Returns the ranks' clocks and busy times, and the network's tally.
fn run_ranks<G: SearchGame>(
    parts: &mut [TdsRank<'_, G>],
    arenas: &mut [Arena],
    (mut budget, jobs): (Vec<u64>, u32),
    model: &RankModel,
) -> (Vec<Duration>, Vec<Duration>, Network) {
    let ranks = parts.len();
    let (mut clocks, mut busy) = (vec![Duration::ZERO; ranks], vec![Duration::ZERO; ranks]);
    let mut network = Network::default();
    let can_start = |parts: &[TdsRank<'_, G>], budget: &[u64], r: usize| budget[r] > 0 && parts[r].in_flight < jobs;
    // The ranks that can start a job, by their clocks then (stale entries skipped).
    let mut ready: BinaryHeap<Reverse<(Duration, usize)>> =
        (0..ranks).filter(|&r| budget[r] > 0).map(|r| Reverse((Duration::ZERO, r))).collect();
    let mut arrived = Vec::new();
    loop {
        // The next thing to do: the earliest of a rank starting jobs and a delivery.
        while let Some(&Reverse((at, r))) = ready.peek() {
            if at == clocks[r] && can_start(parts, &budget, r) {
                break;
            }
            ready.pop();
        }
        let start = ready.peek().map(|&Reverse((at, r))| (at, r));
        let next = network.queue.peek().map(|(Reverse(at), to, _, _)| ((*at).max(clocks[*to as usize]), *to));
        let (r, started) = match (next, start) {
            (Some((at, to)), Some((when, _))) if at < when => (to as usize, false),
            (_, Some((_, r))) => (r, true),
            (Some((_, to)), None) => (to as usize, false),
            (None, None) => break,
        };
        let tree = &mut ExclusiveTree::<true>(&mut arenas[r]);
        if !started {
            // The simulator's own bookkeeping is no rank's time.
            network.take_arrived(r as u32, &mut clocks[r], &mut arrived);
        }
        let began = Instant::now();
        if started {
            ready.pop();
            while can_start(parts, &budget, r) {
                let allowance = budget[r].min(u64::from(MAX_ALLOWANCE)) as u32;
                budget[r] -= u64::from(allowance);
                parts[r].start_job(tree, allowance);
            }
        } else {
            for (from, words) in arrived.drain(..) {
                parts[r].receive(tree, from, &words);
            }
        }
        let spent = began.elapsed();
        (clocks[r], busy[r]) = (clocks[r] + spent, busy[r] + spent);
        if budget[r] == 0 && parts[r].in_flight == 0 {
            // Its jobs are over: what they added to its copy of the top goes to the others.
            parts[r].send_copy(tree);
        }
        network.send(&mut parts[r], r, (&mut clocks[r], &mut busy[r]), model);
        if can_start(parts, &budget, r) {
            ready.push(Reverse((clocks[r], r)));
        }
    }
    (clocks, busy, network)
}

/// A virtual rank's arena of `nodes`, with implicit minimax values if `values`.
fn new_arena(nodes: u64, values: bool) -> Result<Arena, SearchError> {
    let mut arena = Arena::new(nodes).map_err(crate::search::error::ConfigError::from)?;
    if values {
        arena.enable_values();
    }
    Ok(arena)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, Game, Othello};
    use crate::search::{Mode, SearchConfig};

    fn model(ranks: u32) -> RankModel {
        RankModel {
            ranks,
            latency: Duration::from_micros(10),
            bandwidth: 1e9,
            message_cost: Duration::from_micros(1),
            jobs_per_rank: 4,
        }
    }

    fn config(playouts: u64) -> SearchConfig {
        SearchConfig::builder()
            .playouts(playouts)
            .mode(Mode::Sequential)
            .arena_nodes(1 << 20)
            .dist_depth(2)
            .build()
            .unwrap()
    }

    #[test]
    fn every_playout_is_counted_once_over_any_number_of_ranks() {
        for ranks in [1, 2, 3, 4, 16] {
            let mut search = Search::new(config(20_000)).unwrap();
            let report = search.simulate_ranks(&ConnectFour::new(), model(ranks)).unwrap();
            assert_eq!(report.playouts, 20_000, "{ranks} ranks");
            let nodes = report.invariants.unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
            assert!(nodes > 1_000, "{ranks} ranks: {nodes} nodes");
            if ranks > 1 {
                assert!(report.messages_per_playout > 0.0, "{ranks} ranks");
            }
        }
    }

    #[test]
    fn copies_of_the_top_end_with_every_playout() {
        // Every rank starts jobs from its copy of the root's block; once over, each copy
        // has every rank's playouts and each record at its end its home fragment's.
        for (ranks, every) in [(1, 256), (2, 256), (3, 7), (4, 100), (16, 256)] {
            let mut config = config(20_000);
            config.dist_top_everywhere = true;
            config.dist_every = Some(every);
            let mut search = Search::new(config).unwrap();
            let report = search.simulate_ranks(&ConnectFour::new(), model(ranks)).unwrap();
            assert_eq!(report.playouts, 20_000, "{ranks} ranks");
            report.invariants.unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
            assert!(report.busy > 0.0 && report.busy <= 1.0, "{ranks} ranks: busy {}", report.busy);
        }
        let mut config = config(10_000);
        config.dist_top_everywhere = true;
        let report = Search::new(config).unwrap().simulate_ranks(&Othello::new(), model(4)).unwrap();
        assert_eq!(report.playouts, 10_000);
        report.invariants.unwrap();
    }

    #[test]
    fn implicit_minimax_values_cross_the_ranks() {
        // Othello's defaults: the network at the leaves, implicit minimax backups.
        let mut search = Search::new(config(10_000)).unwrap();
        let report = search.simulate_ranks(&Othello::new(), model(4)).unwrap();
        assert_eq!(report.playouts, 10_000);
        report.invariants.unwrap();
    }
}
