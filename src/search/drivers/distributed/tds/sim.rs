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
use crate::search::params::{resolve_gammas, IterationParams, WalkShape};
use crate::search::Search;
use crate::tree::{Arena, ExclusiveTree, NodeId, TreeOps};
use crate::InvariantViolation;

use super::check::{dump, verify};
use super::rank::{TdsRank, MAX_ALLOWANCE};
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
        let params = IterationParams::resolve(&self.config, shape, gammas, None, evaluator.as_deref());
        let capacity = self.arenas[0].capacity() as u64;
        let setup = (capacity, self.config.dist_depth, self.config.seed);
        let one = simulate(root, params, RankModel { ranks: 1, ..model }, playouts.min(50_000), setup)?;
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
    /// Gives `part` (the rank the earliest message is for) that message and every other
    /// for it that has arrived by its `clock`, at once; its clock waits for the first.
    fn deliver<G: SearchGame, T: TreeOps>(&mut self, part: &mut TdsRank<'_, G>, tree: &mut T, clock: &mut Duration) {
        let (Reverse(at), to, from, words) = self.queue.pop().expect("a message");
        *clock = (*clock).max(at);
        part.receive(tree, from, &words);
        while let Some((Reverse(at), next, _, _)) = self.queue.peek() {
            if *next != to || *at > *clock {
                break;
            }
            let (_, _, from, words) = self.queue.pop().expect("a message");
            part.receive(tree, from, &words);
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
    (capacity, block, seed): (u64, u32, u64),
) -> Result<SimReport, SearchError> {
    let ranks = model.ranks.max(1);
    // Each rank its own arena, as each process has (up to 2^20 nodes here: many ranks share
    // this process's memory).
    let per_rank = capacity.min(1 << 20);
    let mut arenas =
        (0..ranks).map(|_| new_arena(per_rank, params.uct.implicit > 0.0)).collect::<Result<Vec<_>, _>>()?;
    let mut workers: Vec<Worker> = (0..ranks).map(|r| Worker::new(seed, r as usize)).collect();
    let root_at = Root::of(&[], block, ranks);
    let home = root_at.home as usize;
    crate::search::prepare_arenas(std::slice::from_mut(&mut arenas[home]), &mut [(0, 0)], root, &params, false)?;
    let mut parts: Vec<TdsRank<'_, G>> = workers
        .iter_mut()
        .enumerate()
        .map(|(r, worker)| TdsRank::new((r as u32, ranks, block), (root, root_at), Default::default(), params, worker))
        .collect();
    let mut clocks = vec![Duration::ZERO; ranks as usize];
    let mut busy = vec![Duration::ZERO; ranks as usize];
    let mut network = Network::default();
    let mut budget = playouts;
    let jobs = model.jobs_per_rank.max(1).saturating_mul(ranks);
    loop {
        // The next thing to do: the root's home starting jobs, or the earliest delivery.
        let can_start = budget > 0 && parts[home].in_flight < jobs;
        let next = network.queue.peek().map(|(Reverse(at), to, _, _)| (*at, *to));
        let (r, started) = match next {
            Some((at, to)) if !can_start || at.max(clocks[to as usize]) < clocks[home] => (to as usize, false),
            _ if can_start => (home, true),
            Some((_, to)) => (to as usize, false),
            None => break,
        };
        let began = Instant::now();
        let tree = &mut ExclusiveTree::<true>(&mut arenas[r]);
        if started {
            while budget > 0 && parts[r].in_flight < jobs {
                let allowance = budget.min(u64::from(MAX_ALLOWANCE)) as u32;
                budget -= u64::from(allowance);
                parts[r].start_job(tree, allowance);
            }
        } else {
            network.deliver(&mut parts[r], tree, &mut clocks[r]);
        }
        let spent = began.elapsed();
        clocks[r] += spent;
        busy[r] += spent;
        network.send(&mut parts[r], r, (&mut clocks[r], &mut busy[r]), &model);
    }
    let done = parts[home].finished;
    let threshold = params.expand_threshold;
    let fragments: Vec<Vec<(u64, NodeId)>> = parts.iter().map(TdsRank::fragment_list).collect();
    let valued: Vec<u64> = parts.iter().map(|p| p.stats.valued).collect();
    drop(parts);
    let dumps: Vec<_> = arenas
        .iter()
        .enumerate()
        .map(|(r, arena)| dump(arena, &fragments[r], (r as u32, ranks, block), root_at, valued[r], threshold))
        .collect();
    let mean_busy = busy.iter().sum::<Duration>().as_secs_f64() / f64::from(ranks);
    let max_busy = busy.iter().max().copied().unwrap_or_default().as_secs_f64();
    Ok(SimReport {
        model,
        playouts: done,
        makespan: clocks.iter().max().copied().unwrap_or_default(),
        one_rank: Duration::ZERO,
        efficiency: 0.0,
        messages_per_playout: network.messages as f64 / done.max(1) as f64,
        bytes_per_playout: network.bytes as f64 / done.max(1) as f64,
        imbalance: if mean_busy > 0.0 { max_busy / mean_busy } else { 1.0 },
        invariants: verify(&dumps, done, root_at, 0),
    })
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
    fn implicit_minimax_values_cross_the_ranks() {
        // Othello's defaults: the network at the leaves, implicit minimax backups.
        let mut search = Search::new(config(10_000)).unwrap();
        let report = search.simulate_ranks(&Othello::new(), model(4)).unwrap();
        assert_eq!(report.playouts, 10_000);
        report.invariants.unwrap();
    }
}
