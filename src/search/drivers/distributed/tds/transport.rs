//! TDS over MPI: each process runs its rank's part ([`TdsRank`]) on the calling thread,
//! sends what it has for each rank once it has handled what came (a batch per
//! destination, cut at [`MAX_WORDS`] so that a send never waits for its receiver), and
//! polls for messages between. The root's home starts the jobs from the search's budget
//! and ends the search: past the deadline it tells every rank to `HALT` (each job then
//! reports after the walk it is in), and once its last job is back it sends `STOP`; a
//! job's messages have all been answered by then, so nothing is in flight. With copies
//! of the root's block (`dist-top-everywhere=on`) every rank starts jobs from its share
//! of the budget, and tells the root's home `DONE` once they are back and its copy's last
//! gains sent; the root's home stops the ranks once all have, and the copies' last words
//! still on their way are received after (each rank learns how many every other sent
//! it). Then every rank gets the root's children from its home and the totals of all.
//!
//! A rank that stops answering ends the job (the watchdog, `watchdog.rs`, fed here); a
//! rank that dies is `mpirun`'s to notice: it ends the job.
//!
//! [`check_ranks`] gathers every rank's dump (`check.rs`) on rank 0, which checks
//! them against each other and tells every rank the verdict.

use std::time::Instant;

use crossbeam_utils::CachePadded;
use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root as _};
use mpi::Tag;

use crate::games::{Move, SearchGame};
use crate::search::drivers::distributed::budget::Claims;
use crate::search::drivers::distributed::stats::{RankStats, RankWork};
use crate::search::drivers::{Job, Summed};
use crate::search::iteration::Worker;
use crate::search::result::RootChild;
use crate::tree::{Arena, ExclusiveTree, Expansion, NodeId, Proof, TreeOps};
use crate::InvariantViolation;

use super::allowance::MAX_ALLOWANCE;
use super::check::{dump, fragment_list, verify, RankDump};
use super::copy::SYNC_EVERY;
use super::rank::{message_words, TdsRank};
use super::watchdog::{Watch, HEARTBEAT_EVERY};
use super::{Kept, Root};

/// A batch of jobs' messages.
const WORDS: Tag = 21;
/// The root's home to every rank: past the deadline, each job reports after its walk.
const HALT: Tag = 22;
/// The root's home to every rank: every job is back, the search is over.
const STOP: Tag = 23;
/// A rank's dump, to rank 0, for the check of the invariants.
const DUMP: Tag = 24;
/// The root's home to a rank it has sent nothing else to for a while: it is alive.
const HEARTBEAT: Tag = 25;
/// A rank to the root's home, with copies of the top: its jobs are back and its copy's
/// last additions sent.
const DONE: Tag = 26;

/// The most words in one message: 2 KiB, under Open MPI's smallest eager limit (4 KiB,
/// shared memory), so that two ranks sending to each other never wait for each other.
const MAX_WORDS: usize = 256;

/// This process's part of a TDS search: its rank's walks until the root's home says
/// stop, then the totals of all.
pub(in crate::search::drivers::distributed) fn run<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &mut Arena,
    worker: &mut CachePadded<Worker>,
) -> u64 {
    let world = SimpleCommunicator::world();
    let (rank, ranks) = (world.rank() as u32, world.size() as u32);
    let block = job.config.dist_depth;
    let mut kept = job.distributed.tds.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let everywhere = job.config.dist_top_everywhere;
    // A kept tree has no copies of the top: with them, each search starts afresh.
    let reused = std::mem::take(&mut kept.reused) && !everywhere;
    if !reused {
        // Afresh: the first search, or no tree kept on every rank for this root.
        kept.path.clear();
        kept.fragments.clear();
        kept.prior_root_visits = 0;
        if ExclusiveTree::<false>(arena).stats(NodeId::ROOT).visits > 0 {
            crate::search::prepare_arenas(std::slice::from_mut(arena), &mut [(0, 0)], job.root, &job.params, false)
                .expect("the root was prepared once already");
        }
    }
    kept.everywhere = everywhere;
    let root_at = Root::of(&kept.path, block, ranks).everywhere(everywhere);
    let fragments = std::mem::take(&mut kept.fragments);
    drop(kept);
    let every = job.config.dist_every.unwrap_or(SYNC_EVERY);
    let mut part = TdsRank::new((rank, ranks, block, every), (job.root, root_at), fragments, job.params, worker);
    let tree = &mut ExclusiveTree::<true>(arena);
    let watch = Watch::new(rank, ranks, root_at.home);
    std::thread::scope(|scope| {
        let watchdog = scope.spawn(|| watch.run());
        let mut counts = Counts::new(ranks);
        if part.root_at().home == rank {
            lead(job, &mut part, tree, (&world, &watch, &mut counts));
        } else {
            follow(job, &mut part, tree, (&world, &watch, &mut counts));
        }
        watch.finish(watchdog.thread());
        if everywhere {
            drain_copies(&mut part, tree, &world, &mut counts);
        }
    });
    let (stats, valued) = (part.stats, part.stats.valued);
    let fragments = std::mem::take(&mut part.fragments);
    drop(part);
    let summed = totals(tree, &world, (rank, root_at.home), valued, stats);
    let mut kept = job.distributed.tds.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    (kept.fragments, kept.valued, kept.playouts) = (fragments, valued, summed.playouts);
    (kept.expand_threshold, kept.block) = (job.params.expand_threshold, block);
    if cfg!(debug_assertions) && reused {
        // Tests build with debug assertions: every search of a kept tree is checked across
        // the ranks (a collective call, as the search is).
        if let Err(violation) = check_ranks(tree.0, &kept) {
            panic!("a TDS tree kept for reuse breaks rule {}: {}", violation.rule, violation.message);
        }
    }
    drop(kept);
    let _ = job.summed.set(summed);
    valued
}

/// The messages this rank sent each other and received from it (with copies of the top:
/// what is still in flight at the end), and on the root's home the ranks that said
/// `DONE`.
struct Counts {
    sent: Vec<u64>,
    received: Vec<u64>,
    done: Vec<bool>,
}

impl Counts {
    fn new(ranks: u32) -> Counts {
        Counts { sent: vec![0; ranks as usize], received: vec![0; ranks as usize], done: vec![false; ranks as usize] }
    }

    /// What the root's home waits for: the ranks holding its jobs, and with copies of the
    /// top every rank that has not said `DONE` (a live one sends its copy's gains often).
    fn waited_on(&self, waiting_on: &[u32], me: u32, everywhere: bool) -> Vec<u32> {
        let pending = |r: usize| u32::from(everywhere && r != me as usize && !self.done[r]);
        waiting_on.iter().enumerate().map(|(r, &jobs)| jobs + pending(r)).collect()
    }
}

/// What a rank that starts jobs draws them from: its part of the budget (the whole on
/// the root's home alone, a share on each rank with copies of the top).
fn claims<G: SearchGame>(job: &Job<'_, G>, part: &TdsRank<'_, G>) -> Option<Claims> {
    let root_at = part.root_at();
    match (root_at.everywhere, root_at.home == part.rank) {
        (true, _) => Some(Claims::new(job.stopper.share(part.rank as usize, part.ranks as usize))),
        (false, true) => Some(Claims::new(job.stopper.share(0, 1))),
        (false, false) => None,
    }
}

/// Starts jobs from `claims` while the budget lasts, up to `jobs` in flight; whether the
/// budget is over.
fn start_jobs<G: SearchGame, T: TreeOps>(
    job: &Job<'_, G>,
    part: &mut TdsRank<'_, G>,
    tree: &mut T,
    claims: &mut Claims,
    jobs: u32,
) -> bool {
    while !claims.over() && part.in_flight < jobs {
        let mut allowance = 0;
        while allowance < MAX_ALLOWANCE && claims.claim(&job.stopper, tree) {
            allowance += 1;
        }
        if allowance > 0 {
            part.start_job(tree, allowance);
        }
    }
    claims.over()
}

/// The root's home: starts jobs while the budget lasts, halts them past the deadline,
/// and stops every rank once its jobs are back (with copies of the top: once every
/// rank has said its own are).
fn lead<G: SearchGame, T: TreeOps>(
    job: &Job<'_, G>,
    part: &mut TdsRank<'_, G>,
    tree: &mut T,
    (world, watch, counts): (&SimpleCommunicator, &Watch, &mut Counts),
) {
    let everywhere = part.root_at().everywhere;
    let jobs = job.config.dist_batch.saturating_mul(if everywhere { 1 } else { part.ranks });
    let mut claims = claims(job, part).expect("the root's home starts jobs");
    let mut buffer = Vec::new();
    let (mut halted, mut sent_copy) = (false, false);
    let mut sent = vec![Instant::now(); part.ranks as usize];
    loop {
        let (walks, began) = (part.stats.walks, Instant::now());
        let over = start_jobs(job, part, tree, &mut claims, jobs);
        if !halted && job.stopper.deadline().is_some_and(|d| Instant::now() >= d) {
            halted = true;
            part.halt();
            for to in (0..part.ranks).filter(|&r| r != part.rank) {
                send(world, watch, to, &[], HALT);
            }
        }
        let busy = receive(part, tree, world, &mut buffer, (watch, counts));
        if over && part.in_flight == 0 && !sent_copy {
            part.send_copy(tree);
            sent_copy = true;
        }
        flush(part, (world, watch), &mut sent, counts);
        watch.waiting(&counts.waited_on(&part.waiting_on, part.rank, everywhere));
        let all_done = counts.done.iter().filter(|&&done| done).count() as u32 + 1 >= part.ranks;
        if over && part.in_flight == 0 && (!everywhere || all_done) {
            break;
        }
        for to in (0..part.ranks).filter(|&r| r != part.rank) {
            if sent[to as usize].elapsed() > HEARTBEAT_EVERY {
                send(world, watch, to, &[], HEARTBEAT);
                sent[to as usize] = Instant::now();
            }
        }
        end_turn(part, busy, (walks, began));
    }
    for to in (0..part.ranks).filter(|&r| r != part.rank) {
        send(world, watch, to, &[], STOP);
    }
}

/// Another rank: serves the jobs it is sent until the root's home says stop; with
/// copies of the top it starts its own too, and says when they are back.
fn follow<G: SearchGame, T: TreeOps>(
    job: &Job<'_, G>,
    part: &mut TdsRank<'_, G>,
    tree: &mut T,
    (world, watch, counts): (&SimpleCommunicator, &Watch, &mut Counts),
) {
    let (mut buffer, mut sent) = (Vec::new(), vec![Instant::now(); part.ranks as usize]);
    let mut claims = claims(job, part);
    let mut done = claims.is_none();
    loop {
        let (walks, began) = (part.stats.walks, Instant::now());
        let over = claims.as_mut().is_none_or(|c| start_jobs(job, part, tree, c, job.config.dist_batch));
        let busy = receive(part, tree, world, &mut buffer, (watch, counts));
        let finished = !done && over && part.in_flight == 0;
        if finished {
            part.send_copy(tree);
        }
        flush(part, (world, watch), &mut sent, counts);
        if finished {
            // After its copy's last words, so that the root's home stops no one before they
            // are sent.
            send(world, watch, part.root_at().home, &[], DONE);
            done = true;
        }
        watch.waiting(&part.waiting_on);
        if part.stopped {
            return;
        }
        end_turn(part, busy, (walks, began));
    }
}

/// Ends a turn of a rank's loop that began at `began` with `walks` walks run: yields the
/// core if no message came, and counts the turn as idle if it ran no walk.
fn end_turn<G: SearchGame>(part: &mut TdsRank<'_, G>, busy: bool, (walks, began): (u64, Instant)) {
    if !busy {
        std::thread::yield_now();
    }
    if part.stats.walks == walks {
        part.stats.idle += began.elapsed();
    }
}

/// With copies of the top, after the stop: the copies' last words still on their way
/// (each rank learns what every other sent it, and waits for all of it).
fn drain_copies<G: SearchGame, T: TreeOps>(
    part: &mut TdsRank<'_, G>,
    tree: &mut T,
    world: &SimpleCommunicator,
    counts: &mut Counts,
) {
    let mut expected = vec![0u64; part.ranks as usize];
    world.all_to_all_into(&counts.sent[..], &mut expected[..]);
    for (from, &expected) in expected.iter().enumerate() {
        while counts.received[from] < expected {
            let (words, _) = world.process_at_rank(from as i32).receive_vec_with_tag::<u64>(WORDS);
            counts.received[from] += 1;
            part.receive(tree, from as u32, &words);
        }
    }
}

/// Handles the messages that have come; whether there were any.
fn receive<G: SearchGame, T: TreeOps>(
    part: &mut TdsRank<'_, G>,
    tree: &mut T,
    world: &SimpleCommunicator,
    buffer: &mut Vec<u64>,
    (watch, counts): (&Watch, &mut Counts),
) -> bool {
    let mut any = false;
    while let Some((message, status)) = world.any_process().immediate_matched_probe() {
        any = true;
        watch.heard(status.source_rank() as usize);
        buffer.resize(status.count(u64::equivalent_datatype()) as usize, 0);
        message.matched_receive_into(&mut buffer[..]);
        match status.tag() {
            WORDS => {
                counts.received[status.source_rank() as usize] += 1;
                part.receive(tree, status.source_rank() as u32, buffer);
            }
            HALT => part.halt(),
            STOP => part.stopped = true,
            DONE => counts.done[status.source_rank() as usize] = true,
            HEARTBEAT => {}
            tag => panic!(
                "a TDS message has tag WORDS, HALT, STOP, DONE or HEARTBEAT (got {tag} from rank {})",
                status.source_rank()
            ),
        }
    }
    any
}

/// Sends each rank what this one has for it, in messages of at most [`MAX_WORDS`] cut
/// between two jobs' messages, noting when (`sent`, per rank).
fn flush<G: SearchGame>(
    part: &mut TdsRank<'_, G>,
    (world, watch): (&SimpleCommunicator, &Watch),
    sent: &mut [Instant],
    counts: &mut Counts,
) {
    for (to, last) in sent.iter_mut().enumerate() {
        let out = &part.out[to];
        if !out.is_empty() {
            *last = Instant::now();
        }
        let mut start = 0;
        while start < out.len() {
            let mut end = start;
            while end < out.len() && (end == start || end - start + message_words(out[end]) <= MAX_WORDS) {
                end += message_words(out[end]);
            }
            send(world, watch, to as u32, &out[start..end], WORDS);
            counts.sent[to] += 1;
            part.stats.messages += 1;
            part.stats.words += (end - start) as u64;
            start = end;
        }
        part.out[to].clear();
    }
}

/// Sends `words` to rank `to` with `tag`, the watchdog watching: a send waits while the
/// receiver's queue is full, and one that waits too long names a receiver that stopped.
fn send(world: &SimpleCommunicator, watch: &Watch, to: u32, words: &[u64], tag: Tag) {
    watch.sending(to);
    world.process_at_rank(to as i32).send_with_tag(words, tag);
    watch.sent();
}

/// The totals every rank reports: the root's children from its home, the playouts and
/// nodes of all.
fn totals(
    tree: &mut ExclusiveTree<'_, true>,
    world: &SimpleCommunicator,
    (rank, home): (u32, u32),
    valued: u64,
    stats: super::rank::TdsStats,
) -> Summed {
    let mut children: Vec<u64> = Vec::new();
    if rank == home {
        if let Expansion::Expanded { first, count } = tree.expansion(NodeId::ROOT) {
            for child in (first.0..first.0 + count).map(NodeId) {
                let s = tree.stats(child);
                children.extend_from_slice(&[u64::from(tree.mv(child)), u64::from(s.visits), u64::from(s.half_points)]);
            }
        }
    }
    let mut length = [children.len() as u64];
    world.process_at_rank(home as i32).broadcast_into(&mut length[..]);
    children.resize(length[0] as usize, 0);
    world.process_at_rank(home as i32).broadcast_into(&mut children[..]);
    let mine = [valued, u64::from(tree.0.len())];
    let mut sums = [0u64; 2];
    world.all_reduce_into(&mine[..], &mut sums[..], SystemOperation::sum());
    let mut children: Vec<RootChild> = children
        .chunks_exact(3)
        .map(|c| RootChild { mv: Move(c[0] as u16), visits: c[1], half_points: c[2], proof: Proof::Unknown })
        .collect();
    children.sort_by_key(|c| c.mv);
    let root_visits = children.iter().map(|c| c.visits).sum();
    Summed {
        children,
        playouts: sums[0],
        root_visits,
        nodes: sums[1],
        stats: Some(RankStats { rank: rank as usize, work: RankWork::Tds(stats) }),
    }
}

/// Checks the invariants of the last TDS search over every rank (a collective call):
/// each rank's dump of `arena` goes to rank 0, which checks them all; every rank returns
/// its verdict.
pub(crate) fn check_ranks(arena: &Arena, kept: &Kept) -> Result<u64, InvariantViolation> {
    let world = SimpleCommunicator::world();
    let (rank, ranks) = (world.rank() as u32, world.size() as u32);
    let root = Root::of(&kept.path, kept.block, ranks).everywhere(kept.everywhere);
    let fragments = fragment_list(&kept.fragments, root, rank);
    let mine = dump(arena, &fragments, (rank, ranks, kept.block), root, kept.valued, kept.expand_threshold);
    let mut verdict = [0u64; 2];
    if rank == 0 {
        let mut dumps = vec![mine];
        for from in 1..ranks {
            let (words, _) = world.process_at_rank(from as i32).receive_vec_with_tag::<u64>(DUMP);
            dumps.push(RankDump::from_words(&words));
        }
        verdict = match verify(&dumps, kept.playouts, root, kept.prior_root_visits) {
            Ok(nodes) => [1, nodes],
            Err(e) => {
                // The message goes to the others as the ranks' part of it: they report the
                // rule; rank 0 reports it whole.
                if ranks == 1 {
                    return Err(e);
                }
                broadcast_verdict(&world, &mut [0, u64::from(e.rule)]);
                return Err(e);
            }
        };
    } else {
        world.process_at_rank(0).send_with_tag(&mine.to_words()[..], DUMP);
    }
    broadcast_verdict(&world, &mut verdict);
    match verdict {
        [1, nodes] => Ok(nodes),
        [_, rule] => Err(InvariantViolation {
            rule: rule as u8,
            node: None,
            message: "a rule broken across the ranks (rank 0 reports which)".into(),
        }),
    }
}

/// Rank 0's verdict, on every rank.
fn broadcast_verdict(world: &SimpleCommunicator, verdict: &mut [u64; 2]) {
    world.process_at_rank(0).broadcast_into(&mut verdict[..]);
}
