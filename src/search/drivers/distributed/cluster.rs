//! MPI for the distributed search (`mode=dist`, the `mpi` feature): the process's MPI
//! [`Cluster`], initialised once by the program's main thread, the panic hook that
//! aborts the whole job when any rank panics, and the communication the search and the
//! harness share: the check that every rank searches the same position (`agree`), one
//! word broadcast from rank 0 (`broadcast_from_rank_zero`), rank 0's input for every
//! rank ([`Relay`]).
//!
//! Open MPI's communicators are neither `Send` nor `Sync`, and MPI is initialised at the
//! *funneled* threading level: every MPI call of a search is made by the thread that
//! called [`Cluster::init`] (the distributed driver runs on the caller's thread and does
//! its exchanges there while its workers search). [`crate::Search::run`] refuses a
//! distributed search on any other thread.
//!
//! A panicking rank must not leave the others waiting in a collective or in
//! `MPI_Finalize` (rsmpi issue 197): the hook installed by [`Cluster::init`] reports the
//! panic as the hook before it did (std's prints it) and then calls `MPI_Abort`, which
//! makes `mpirun` end every rank (Open MPI names the rank that aborted).
//!
//! # Examples
//! ```no_run
//! use parmcts::search::distributed::Cluster;
//! use parmcts::{ConnectFour, Game, Mode, Search, SearchConfig};
//!
//! let cluster = Cluster::init().unwrap();
//! let config = SearchConfig::builder().playouts(100_000).mode(Mode::Dist).threads(2).build().unwrap();
//! let result = Search::new(config).unwrap().run(&ConnectFour::new()).unwrap();
//! // Every rank answers the same move, from the root statistics summed over the ranks.
//! println!("rank {} of {}: {:?}", cluster.rank(), cluster.size(), result.best_move);
//! ```

use std::fmt;
use std::io::{self, Read};
use std::time::Duration;

use mpi::collective::SystemOperation;
use mpi::environment::{Threading, Universe};
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

use super::error::ClusterError;

/// The exit status `MPI_Abort` gives the job when a rank panics.
pub const PANIC_EXIT: i32 = 101;

/// MPI, initialised for this process. Dropping it finalises MPI: keep it until the
/// program's last search has ended.
pub struct Cluster {
    universe: Universe,
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster").field("rank", &self.rank()).field("size", &self.size()).finish()
    }
}

impl Cluster {
    /// Initialises MPI at the funneled threading level (only this thread makes MPI calls)
    /// and installs the panic hook that aborts the job. Run alone (not under `mpirun`),
    /// Open MPI makes a job of one rank.
    ///
    /// # Errors
    /// [`ClusterError::AlreadyInitialised`] on a second call;
    /// [`ClusterError::Threading`] if the library cannot run threads beside MPI.
    pub fn init() -> Result<Cluster, ClusterError> {
        let (universe, provided) =
            mpi::initialize_with_threading(Threading::Funneled).ok_or(ClusterError::AlreadyInitialised)?;
        if provided == Threading::Single {
            return Err(ClusterError::Threading(format!("{provided:?}").to_lowercase()));
        }
        install_abort_hook();
        // Open MPI connects two ranks at their first message (over TCP, some milliseconds
        // a pair): connect every pair now, or the first timed search pays it from its
        // budget (a 5 ms search over loopback TCP ended with no playout).
        let world = universe.world();
        let size = world.size() as usize;
        let mut received = vec![0u8; size];
        world.all_to_all_into(&vec![0u8; size][..], &mut received[..]);
        Ok(Cluster { universe })
    }

    /// This process's rank, 0 to [`Cluster::size`] - 1; rank 0 talks to the outside.
    pub fn rank(&self) -> usize {
        self.universe.world().rank() as usize
    }

    /// The number of processes in the job.
    pub fn size(&self) -> usize {
        self.universe.world().size() as usize
    }
}

/// This process's rank in a running MPI job; 0 when MPI is not running.
pub fn rank() -> usize {
    if running() {
        SimpleCommunicator::world().rank() as usize
    } else {
        0
    }
}

/// The number of processes in the running MPI job; 1 when MPI is not running.
pub fn size() -> usize {
    if running() {
        SimpleCommunicator::world().size() as usize
    } else {
        1
    }
}

/// Whether MPI is initialised and not yet finalised.
fn running() -> bool {
    mpi::environment::is_initialized() && !mpi::environment::is_finalized()
}

/// Checks that a distributed search may run on this thread: MPI is running and this is
/// the thread that initialised it.
pub(crate) fn check() -> Result<(), ClusterError> {
    if !running() {
        return Err(ClusterError::NotRunning);
    }
    let mut main = 0;
    // SAFETY: MPI is initialised (checked above); MPI_Is_thread_main only writes the
    // flag through the pointer, which points to a live local.
    unsafe { mpi::ffi::MPI_Is_thread_main(&mut main) };
    if main == 0 {
        return Err(ClusterError::NotMainThread);
    }
    Ok(())
}

/// Reports a panic as before (the previous hook), then aborts the whole MPI job, so the
/// other ranks do not wait for this one forever.
fn install_abort_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        if running() {
            let world = SimpleCommunicator::world();
            // Called from whichever thread panicked: under the funneled level only the
            // main thread should call MPI, but MPI_Abort is the last call this process
            // makes, and Open MPI honours it from any thread.
            world.abort(PANIC_EXIT);
        }
    }));
}

/// How long the calling thread sleeps between two polls of a collective in flight.
pub(crate) const POLL: Duration = Duration::from_micros(100);

/// Waits for `request`, sleeping `pause` between polls: a blocking wait would spin on a
/// core that the workers (or other ranks) need.
pub(crate) fn poll<'a, D: ?Sized, S: Scope<'a>>(mut request: Request<'a, D, S>, pause: Duration) {
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => {
                request = pending;
                std::thread::sleep(pause);
            }
        }
    }
}

/// One input for every rank: rank 0 reads `inner` and broadcasts what it read; the other
/// ranks read the broadcast (their `inner` is never read). So every rank of a
/// distributed GTP engine sees the controller's commands, which only rank 0 receives,
/// and runs them in lockstep. Every rank must read with buffers of the same sizes (a
/// `BufReader` of the same capacity); MPI calls stay on the calling thread.
#[derive(Debug)]
pub struct Relay<R> {
    inner: R,
    root: bool,
}

impl<R: Read> Relay<R> {
    /// Relays `inner` (read on rank 0 only) to every rank.
    pub fn new(inner: R) -> Relay<R> {
        Relay { inner, root: rank() == 0 }
    }
}

impl<R: Read> Read for Relay<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let world = SimpleCommunicator::world();
        let root = world.process_at_rank(0);
        // Rank 0's read: its length (0 at the end of the input, or on an error, which
        // then ends every rank's input) and its bytes.
        let mut read = Ok(0);
        let mut length = [0u64];
        if self.root {
            read = self.inner.read(buf);
            length[0] = *read.as_ref().unwrap_or(&0) as u64;
        }
        // Waiting for the controller's next command: sleep, do not spin.
        let pause = Duration::from_millis(1);
        mpi::request::scope(|scope| poll(root.immediate_broadcast_into(scope, &mut length[..]), pause));
        let length = (length[0] as usize).min(buf.len());
        if length > 0 {
            let bytes = &mut buf[..length];
            mpi::request::scope(|scope| poll(root.immediate_broadcast_into(scope, bytes), pause));
        }
        if self.root {
            read
        } else {
            Ok(length)
        }
    }
}

/// Checks, with every rank (a collective call), that all search the position hashed
/// `hash`: ranks that play a match in lockstep diverge if a player is not deterministic,
/// and then every rank gets this error, rather than mismatched shares.
pub(crate) fn agree(hash: u64) -> Result<(), ClusterError> {
    let world = SimpleCommunicator::world();
    let mine = [hash, !hash];
    let mut max = [0u64; 2];
    mpi::request::scope(|scope| {
        poll(world.immediate_all_reduce_into(scope, &mine[..], &mut max[..], SystemOperation::max()), POLL);
    });
    if max == mine {
        Ok(())
    } else {
        Err(ClusterError::DifferentPositions)
    }
}

/// Rank 0's `word`, on every rank (a collective call: every rank calls it, in the same
/// order; the others' `word` is not read). The ranks wait for rank 0 sleeping `pause`
/// between polls, not spinning: their cores may be another player's, on a shared
/// machine.
pub fn broadcast_from_rank_zero(word: u64, pause: Duration) -> u64 {
    let world = SimpleCommunicator::world();
    let mut words = [word];
    mpi::request::scope(|scope| poll(world.process_at_rank(0).immediate_broadcast_into(scope, &mut words[..]), pause));
    words[0]
}
