//! The root-parallel driver (Chaslot, Winands & van den Herik 2008): each thread searches
//! its own exclusive tree with its share of the playout budget, and the trees' root
//! children are summed by move at the end ([`merge_root_children`](crate::search::merge_root_children), exact: in visits and
//! half points).

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::tree::Arena;

use super::sequential::run_exclusive;
use super::{on_threads, Driver, Job};
use crate::search::iteration::Worker;

/// One tree per thread.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootParallel;

impl Driver for RootParallel {
    fn trees(&self, threads: usize) -> usize {
        threads
    }

    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        let trees = workers.len();
        on_threads(workers.iter_mut().zip(arenas.iter_mut()).enumerate(), |(i, (worker, arena))| {
            run_exclusive(arena, job, worker, job.stopper.share(i, trees));
        });
        workers.iter().map(|w| w.playouts).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::games::Move;
    use crate::search::result::{merge_root_children, RootChild};
    use crate::tree::Proof;

    fn child(mv: u16, visits: u64, half_points: u64, proof: Proof) -> RootChild {
        RootChild { mv: Move(mv), visits, half_points, proof }
    }

    #[test]
    fn merge_sums_exactly_by_move() {
        // Tree B lists its children in another order (a reused tree), lacks move 2 and has
        // move 4, which tree A lacks; B proved move 0 lost, A proved nothing there.
        let a = vec![
            child(0, 7, 5, Proof::Unknown),
            child(1, 1_000_000_001, 1_999_999_999, Proof::Unknown),
            child(2, 3, 6, Proof::Win),
        ];
        let b = vec![
            child(4, 2, 1, Proof::Unknown),
            child(1, 1_000_000_003, 3, Proof::Unknown),
            child(0, 4, 0, Proof::Loss),
        ];
        let merged = merge_root_children(&[a.clone(), b]);
        assert_eq!(
            merged,
            [
                child(0, 11, 5, Proof::Loss),
                child(1, 2_000_000_004, 2_000_000_002, Proof::Unknown),
                child(2, 3, 6, Proof::Win),
                child(4, 2, 1, Proof::Unknown),
            ]
        );
        // One tree: its children in move order, unchanged.
        assert_eq!(merge_root_children(std::slice::from_ref(&a)), a);
        assert_eq!(merge_root_children(&[]), []);
    }
}
