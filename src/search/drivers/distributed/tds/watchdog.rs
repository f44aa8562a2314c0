//! A TDS rank's watchdog: a thread beside the rank's MPI thread that ends the job when a
//! rank this one waits for has been silent for [`SILENCE`]: a rank holding this one's
//! jobs, or, for the other ranks, the root's home (which sends a heartbeat to each rank
//! it has sent nothing else to for [`HEARTBEAT_EVERY`]). It names the silent rank on
//! stderr and aborts the MPI job, which `mpirun` then ends on every rank. A thread of its
//! own because the MPI thread may be the one stuck: a send to a rank that stopped reading
//! waits in MPI's progress loop once that rank's queue is full. Such a send is watched
//! too: one that has waited [`STUCK_SEND`] names its receiver. Sooner than a silence, so
//! that the rank stuck sending to a stopped rank names that rank before the ranks waiting
//! for the stuck one (which then hear nothing from it) name the stuck one.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use crate::search::drivers::distributed::PANIC_EXIT;

/// How long a rank waits for a rank it needs before it ends the job: the job then ends
/// within this and a poll (`mpirun` kills the other ranks at once).
pub(crate) const SILENCE: Duration = Duration::from_secs(4);

/// How long a send may wait before the watchdog names its receiver as stopped: half of
/// [`SILENCE`]. A live rank reads its messages between walks of microseconds, and the
/// ranks send at most 2 KiB at once (under the transport's eager limit).
const STUCK_SEND: Duration = Duration::from_secs(2);

/// How often the root's home shows the other ranks it is alive.
pub(super) const HEARTBEAT_EVERY: Duration = Duration::from_millis(500);

/// The bits of [`Watch::sending`] that hold when the send began (34 years of
/// milliseconds), and their mask; the receiver's rank is above them.
const SINCE_BITS: u32 = 40;
const SINCE_MASK: u64 = (1 << SINCE_BITS) - 1;

/// How often the watchdog looks.
const POLL: Duration = Duration::from_millis(100);

/// What the MPI thread tells the watchdog.
pub(super) struct Watch {
    began: Instant,
    /// Per rank, when this one last heard from it (nanoseconds since `began`).
    heard: Vec<AtomicU64>,
    /// Per rank, this one's jobs it holds.
    waiting_on: Vec<AtomicU32>,
    /// The send under way: its receiver plus one in the high bits, and when it began
    /// (milliseconds since `began`) in the low [`SINCE_BITS`]; 0 while none is.
    sending: AtomicU64,
    /// This rank, and the root's home.
    rank: u32,
    home: u32,
    /// The search is over: the watchdog stops.
    done: AtomicBool,
}

impl Watch {
    pub(super) fn new(rank: u32, ranks: u32, home: u32) -> Watch {
        let began = Instant::now();
        Watch {
            began,
            heard: (0..ranks).map(|_| AtomicU64::new(0)).collect(),
            waiting_on: (0..ranks).map(|_| AtomicU32::new(0)).collect(),
            sending: AtomicU64::new(0),
            rank,
            home,
            done: AtomicBool::new(false),
        }
    }

    /// A message came from rank `from`.
    pub(super) fn heard(&self, from: usize) {
        // ORDERING: Relaxed (here and in the watchdog's reads): a timestamp read late by
        // the watchdog delays its verdict by a poll at most; nothing else hangs on it.
        self.heard[from].store(self.began.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// A send to rank `to` begins (until [`Watch::sent`]).
    pub(super) fn sending(&self, to: u32) {
        let since = self.began.elapsed().as_millis() as u64 & SINCE_MASK;
        // ORDERING: Relaxed, as in `heard`: one word holds the receiver and the time, so
        // the watchdog never pairs one send's receiver with another's time.
        self.sending.store((u64::from(to) + 1) << SINCE_BITS | since, Ordering::Relaxed);
    }

    /// The send under way is done.
    pub(super) fn sent(&self) {
        // ORDERING: Relaxed, as in `sending`.
        self.sending.store(0, Ordering::Relaxed);
    }

    /// This rank's jobs held by each rank now.
    pub(super) fn waiting(&self, waiting_on: &[u32]) {
        for (slot, &jobs) in self.waiting_on.iter().zip(waiting_on) {
            // ORDERING: Relaxed, as in `heard`.
            slot.store(jobs, Ordering::Relaxed);
        }
    }

    /// Stops the watchdog, running as `watchdog`.
    pub(super) fn finish(&self, watchdog: &std::thread::Thread) {
        // ORDERING: Relaxed: the scope that joins the watchdog orders everything after
        // (and an unpark before the watchdog parks makes that park return at once).
        self.done.store(true, Ordering::Relaxed);
        watchdog.unpark();
    }

    /// The watchdog's loop: until the search is over, ends the job on a silence.
    pub(super) fn run(&self) {
        // ORDERING: Relaxed, as in `finish`.
        while !self.done.load(Ordering::Relaxed) {
            // Parked, not asleep: the search's end unparks it, so that joining it costs
            // nothing (a sleep of a poll kept every search up to 100 ms past its end).
            std::thread::park_timeout(POLL);
            let me = self.rank;
            let stuck = || {
                self.stuck_send().map(|to| {
                    format!("rank {to} stopped answering (rank {me} has waited {STUCK_SEND:?} to send to it)")
                })
            };
            let silent = || {
                self.silent().map(|(rank, jobs)| {
                    format!("rank {rank} stopped answering (rank {me} heard nothing from it for {SILENCE:?}; {jobs} of its jobs there)")
                })
            };
            if let Some(verdict) = stuck().or_else(silent) {
                eprintln!("error: {verdict}: ending the job");
                // Under the funneled level only the MPI thread should call MPI, but
                // MPI_Abort is this process's last call, and Open MPI honours it from any
                // thread (as the panic hook's, `cluster.rs`).
                SimpleCommunicator::world().abort(PANIC_EXIT);
            }
        }
    }

    /// The receiver of a send that has waited too long.
    fn stuck_send(&self) -> Option<u32> {
        // ORDERING: Relaxed, as in `sending`.
        let sending = self.sending.load(Ordering::Relaxed);
        let waited = (self.began.elapsed().as_millis() as u64).saturating_sub(sending & SINCE_MASK);
        (sending != 0 && waited > STUCK_SEND.as_millis() as u64).then(|| (sending >> SINCE_BITS) as u32 - 1)
    }

    /// The rank this one waits for that has been silent too long, with this one's jobs
    /// there.
    fn silent(&self) -> Option<(usize, u32)> {
        let now = self.began.elapsed().as_nanos() as u64;
        // ORDERING: Relaxed, as in `heard`.
        let quiet = |r: usize| now.saturating_sub(self.heard[r].load(Ordering::Relaxed)) > SILENCE.as_nanos() as u64;
        let jobs = |r: usize| self.waiting_on[r].load(Ordering::Relaxed);
        // Never itself: with copies of the top, a job this rank sent itself may wait on
        // another rank, and this rank hears nothing from itself.
        let me = self.rank as usize;
        let holding = (0..self.heard.len()).find(|&r| r != me && jobs(r) > 0 && quiet(r));
        let home = self.home as usize;
        holding.or_else(|| (self.rank != self.home && quiet(home)).then_some(home)).map(|r| (r, jobs(r)))
    }
}
