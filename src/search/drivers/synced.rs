//! The synced driver: root-parallel trees that share their shallow statistics while they
//! search — MoGo's cluster scheme (Gelly, Hoock, Rimmel, Teytaud & Kalemkarian 2008, "The
//! parallelization of Monte-Carlo planning") inside one process.
//!
//! Each worker searches its own exclusive tree (no atomic instruction on the hot path, as
//! root-parallel), and every `sync-every` iterations it *exchanges*: it publishes its own
//! statistics of the nodes up to `sync-depth` plies below the root, keyed by their move
//! path, and adds the other trees' latest published statistics into its matching nodes.
//! So every tree selects near the root with (nearly) all the playouts of the search, as
//! one shared tree would, while the deep parts, where the shared tree's cache lines
//! cost most and its statistics are thin anyway, stay private.
//!
//! Bookkeeping keeps the counts exact: each worker remembers what it added from others
//! (`foreign`), publishes only its own part (stats minus foreign), and replaces the old
//! foreign part by the new one at each exchange; at the end the foreign parts are taken
//! out, so each tree holds exactly its own playouts and the root children merge as in
//! root-parallel ([`crate::search::merge_root_children`]). A published snapshot is taken between
//! chunks of iterations (no walk in flight) under its mailbox's lock, so a parent's
//! published visits always cover its children's and the trees stay consistent.

use std::collections::HashMap;
use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::tree::{Arena, ExclusiveTree, Expansion, NodeId, Stats};

use super::sequential::run_exclusive_with;
use super::{on_threads, Driver, Job};
use crate::search::iteration::{child_by_move, Worker};

/// Root-parallel trees with shallow statistics shared every few iterations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Synced;

impl Driver for Synced {
    fn counts_foreign_visits(&self) -> bool {
        true
    }

    fn trees(&self, threads: usize) -> usize {
        threads
    }

    /// Every exchange adds the other trees' root visits to each root, so a root sees the
    /// whole budget played.
    fn root_shares(&self, _threads: usize) -> usize {
        1
    }

    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        let trees = workers.len();
        let mailboxes: Vec<CachePadded<Mutex<Vec<Entry>>>> =
            (0..trees).map(|_| CachePadded::new(Mutex::new(Vec::new()))).collect();
        let mailboxes = &mailboxes;
        let (every, depth) = (job.config.sync_every as u64, job.config.sync_depth);
        on_threads(workers.iter_mut().zip(arenas.iter_mut()).enumerate(), |(i, (worker, arena))| {
            let mut exchange = Exchange::new(i, depth);
            let mut since = 0;
            run_exclusive_with(arena, job, worker, job.stopper.share(i, trees), |arena, ran| {
                since += ran;
                if since >= every && trees > 1 {
                    since = 0;
                    exchange.run(arena, mailboxes);
                }
            });
            exchange.withdraw(arena);
        });
        workers.iter().map(|w| w.playouts).collect()
    }
}

/// One published node: its depth below the root, the move into it and its own stats.
/// A mailbox holds a tree's shared nodes in preorder, so a reader matches them to its
/// own tree in one walk.
#[derive(Clone, Copy, Debug)]
struct Entry {
    depth: u32,
    mv: u16,
    stats: Stats,
}

/// A worker's side of the exchanges.
#[derive(Debug)]
struct Exchange {
    /// This worker's mailbox.
    index: usize,
    /// Nodes up to this many plies below the root are shared.
    depth: u32,
    /// What this tree holds from the other trees, per node (the last exchange's sums).
    foreign: HashMap<NodeId, Stats>,
    /// The next exchange's sums (reused: no allocation once warm).
    incoming: HashMap<NodeId, Stats>,
    /// This tree's nodes matching the reader's current path, per depth.
    path: Vec<Option<NodeId>>,
}

impl Exchange {
    fn new(index: usize, depth: u32) -> Exchange {
        Exchange {
            index,
            depth,
            foreign: HashMap::new(),
            incoming: HashMap::new(),
            path: Vec::with_capacity(depth as usize + 1),
        }
    }

    /// Publishes this tree's own shallow statistics, then replaces what it holds from the
    /// others by their latest published statistics.
    fn run(&mut self, arena: &mut Arena, mailboxes: &[CachePadded<Mutex<Vec<Entry>>>]) {
        {
            let mut mine = lock(&mailboxes[self.index]);
            mine.clear();
            self.publish(arena, NodeId::ROOT, 0, 0, &mut mine);
        }
        self.incoming.clear();
        for (other, mailbox) in mailboxes.iter().enumerate() {
            if other != self.index {
                let entries = lock(mailbox);
                self.gather(arena, &entries);
            }
        }
        for (&node, &old) in &self.foreign {
            let new = self.incoming.get(&node).copied().unwrap_or_default();
            replace(arena, node, old, new);
        }
        for (&node, &new) in &self.incoming {
            if !self.foreign.contains_key(&node) {
                replace(arena, node, Stats::default(), new);
            }
        }
        std::mem::swap(&mut self.foreign, &mut self.incoming);
    }

    /// Pushes `node` (own part) and, below the depth limit, its visited children, in
    /// preorder.
    fn publish(&self, arena: &mut Arena, node: NodeId, mv: u16, depth: u32, out: &mut Vec<Entry>) {
        let stats = own(arena, &self.foreign, node);
        if stats.visits == 0 {
            return;
        }
        out.push(Entry { depth, mv, stats });
        if depth < self.depth {
            if let Expansion::Expanded { first, count } = arena.node_mut(node).expansion_plain() {
                for child in (0..count).map(|i| NodeId(first.0 + i)) {
                    let mv = arena.node_mut(child).mv_plain();
                    self.publish(arena, child, mv, depth + 1, out);
                }
            }
        }
    }

    /// Adds another tree's published `entries` into `incoming`, node by matching node
    /// (matched by move path; nodes this tree lacks are skipped with their subtrees).
    fn gather(&mut self, arena: &mut Arena, entries: &[Entry]) {
        for entry in entries {
            let depth = entry.depth as usize;
            self.path.truncate(depth);
            let node = match depth {
                0 => Some(NodeId::ROOT),
                _ => self.path[depth - 1]
                    .and_then(|parent| child_by_move(&mut ExclusiveTree::<false>(arena), parent, entry.mv)),
            };
            self.path.push(node);
            if let Some(node) = node {
                let sum = self.incoming.entry(node).or_default();
                sum.visits += entry.stats.visits;
                sum.half_points += entry.stats.half_points;
            }
        }
    }

    /// Takes the other trees' statistics out again: the tree then holds exactly its own
    /// playouts (what the invariants and the root merge count).
    fn withdraw(&mut self, arena: &mut Arena) {
        for (&node, &old) in &self.foreign {
            replace(arena, node, old, Stats::default());
        }
        self.foreign.clear();
    }
}

fn lock(mailbox: &Mutex<Vec<Entry>>) -> std::sync::MutexGuard<'_, Vec<Entry>> {
    // A worker that panicked mid-publish leaves a vector of whole entries: still usable.
    mailbox.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The part of `node`'s statistics that this tree's own playouts made.
fn own(arena: &mut Arena, foreign: &HashMap<NodeId, Stats>, node: NodeId) -> Stats {
    let stats = arena.node_mut(node).stats_plain();
    let held = foreign.get(&node).copied().unwrap_or_default();
    Stats { visits: stats.visits - held.visits, half_points: stats.half_points - held.half_points }
}

/// Replaces the foreign part `old` of `node`'s statistics by `new`.
fn replace(arena: &mut Arena, node: NodeId, old: Stats, new: Stats) {
    let node = arena.node_mut(node);
    let stats = node.stats_plain();
    node.set_stats_plain(Stats {
        visits: stats.visits - old.visits + new.visits,
        half_points: stats.half_points - old.half_points + new.half_points,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root with children entered by `moves`, each with the given own stats, and the
    /// root's visits their sum.
    fn tree(moves: &[(u16, u32, u32)]) -> Arena {
        let mut arena = Arena::new(16).unwrap();
        let first = arena.alloc_mut(moves.len() as u32).unwrap();
        for (i, &(mv, visits, half_points)) in moves.iter().enumerate() {
            let id = NodeId(first.0 + i as u32);
            arena.init_child_mut(id, mv, 0);
            arena.node_mut(id).set_stats_plain(Stats { visits, half_points });
        }
        arena.node_mut(NodeId::ROOT).set_expanded_plain(first, moves.len() as u32);
        let visits = moves.iter().map(|m| m.1).sum();
        let half_points = moves.iter().map(|m| m.2).sum();
        arena.node_mut(NodeId::ROOT).set_stats_plain(Stats { visits, half_points });
        arena
    }

    fn stats(arena: &mut Arena) -> Vec<(u16, u32, u32)> {
        let Expansion::Expanded { first, count } = arena.node_mut(NodeId::ROOT).expansion_plain() else { panic!() };
        let root = arena.node_mut(NodeId::ROOT).stats_plain();
        std::iter::once((u16::MAX, root.visits, root.half_points))
            .chain((0..count).map(|i| {
                let node = arena.node_mut(NodeId(first.0 + i));
                let s = node.stats_plain();
                (node.mv_plain(), s.visits, s.half_points)
            }))
            .collect()
    }

    #[test]
    fn exchanges_add_the_other_trees_own_statistics_and_withdraw_them() {
        // Tree 0 lacks move 9, which tree 1 has; tree 1 lists its children in another order.
        let mut a = tree(&[(3, 10, 12), (5, 4, 1)]);
        let mut b = tree(&[(9, 2, 2), (5, 6, 7), (3, 1, 0)]);
        let mailboxes: Vec<_> = (0..2).map(|_| CachePadded::new(Mutex::new(Vec::new()))).collect();
        let (mut xa, mut xb) = (Exchange::new(0, 2), Exchange::new(1, 2));
        xa.run(&mut a, &mailboxes); // publishes a; b has published nothing yet
        assert_eq!(stats(&mut a), [(u16::MAX, 14, 13), (3, 10, 12), (5, 4, 1)]);
        xb.run(&mut b, &mailboxes); // b adds a's own statistics
        assert_eq!(stats(&mut b), [(u16::MAX, 23, 22), (9, 2, 2), (5, 10, 8), (3, 11, 12)]);
        // b's own part grows; a's next exchange adds b's own part only (not a's, echoed).
        b.node_mut(NodeId(1)).set_stats_plain(Stats { visits: 5, half_points: 4 });
        b.node_mut(NodeId::ROOT).set_stats_plain(Stats { visits: 26, half_points: 24 });
        xb.run(&mut b, &mailboxes);
        xa.run(&mut a, &mailboxes);
        assert_eq!(stats(&mut a), [(u16::MAX, 26, 24), (3, 11, 12), (5, 10, 8)]);
        // A second exchange with nothing new changes nothing (foreign parts are replaced,
        // not added again).
        xa.run(&mut a, &mailboxes);
        assert_eq!(stats(&mut a), [(u16::MAX, 26, 24), (3, 11, 12), (5, 10, 8)]);
        xa.withdraw(&mut a);
        xb.withdraw(&mut b);
        assert_eq!(stats(&mut a), [(u16::MAX, 14, 13), (3, 10, 12), (5, 4, 1)]);
        assert_eq!(stats(&mut b), [(u16::MAX, 12, 11), (9, 5, 4), (5, 6, 7), (3, 1, 0)]);
    }
}
