//! What the distributed schemes do with walks beyond start, finish and abandon: the
//! descents of the split (a walk stops where another rank owns the tree, [`Partitioned`];
//! a walk follows the moves it was sent, [`Along`]), and the walk in flight read and
//! finished with what another rank found ([`RemoteWalk`]).

use crate::games::{Game, MovesPlayed, Outcome, Player};
use crate::search::iteration::{back_up_values, Descent, Step, Worker};
use crate::search::params::IterationParams;
use crate::search::{DistScheme, Mode, SearchConfig};
use crate::tree::{NodeId, TreeOps};

/// A partitioned distributed search's split of the tree (`dist-scheme=split`): every
/// rank keeps the nodes down to `depth` plies below the root (the shared top), and each
/// node at `depth` belongs, with its subtree, to one rank, chosen by a hash of the moves
/// from the root to it. Only its owner grows that subtree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Partition {
    /// Plies below the root of the nodes that are owned.
    pub depth: u32,
    /// This rank, and the number of ranks.
    pub rank: u32,
    pub ranks: u32,
}

impl Partition {
    /// The rank that owns the node reached by `moves` from the root (the same on every
    /// rank: it depends on the moves only).
    #[inline]
    pub(super) fn owner(&self, moves: impl Iterator<Item = u16>) -> u32 {
        // FNV-1a over the moves' two bytes, then the high half of a multiply: the moves of
        // sibling nodes differ in one byte, and their owners should not be correlated.
        let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
        for mv in moves {
            for byte in mv.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
        let mixed = (hash ^ hash >> 31).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        ((mixed * u64::from(self.ranks)) >> 32) as u32
    }
}

/// The ranks' partition of the tree for a search with `config`: the split scheme's, on
/// more than one rank.
pub(super) fn partition(config: &SearchConfig) -> Option<Partition> {
    let (rank, ranks) = (super::rank() as u32, super::size() as u32);
    let split = config.mode == Mode::Dist && ranks > 1 && config.dist_scheme == DistScheme::Split;
    split.then_some(Partition { depth: config.dist_depth, rank, ranks })
}

/// The split's descent: selection, stopping at a node of the partition's depth that
/// another rank owns (the walk is valued there); that rank is kept in `owner` (which the
/// caller clears before each walk).
#[derive(Clone, Copy, Debug)]
pub(super) struct Partitioned {
    pub partition: Partition,
    /// The other rank that owns the node the last walk stopped at, if it did.
    pub owner: Option<u32>,
}

impl Descent for Partitioned {
    #[inline(always)]
    fn stops_at<T: TreeOps>(&mut self, tree: &mut T, path: &[Step]) -> bool {
        if path.len() - 1 == self.partition.depth as usize {
            let at = self.partition.owner(path[1..].iter().map(|step| tree.mv(step.node)));
            if at != self.partition.rank {
                self.owner = Some(at);
            }
        }
        self.owner.is_some()
    }
}

/// A descent that follows `moves` from the root (expanding the nodes on the way where
/// they are not yet), then selects as usual: a walk another rank started, whose end this
/// rank owns.
#[derive(Clone, Copy, Debug)]
pub(super) struct Along<'a>(pub &'a [u16]);

impl Descent for Along<'_> {
    #[inline(always)]
    fn forced(&self, ply: usize) -> Option<u16> {
        self.0.get(ply).copied()
    }

    #[inline(always)]
    fn forced_plies(&self) -> usize {
        self.0.len()
    }
}

/// A worker's walk in flight as the distributed schemes read and finish it.
pub(super) trait RemoteWalk {
    /// Finishes the walk in flight with `outcome` and the playout's `played` moves (RAVE),
    /// found elsewhere (a farm's other rank): the back-up along lane 0's path, as
    /// [`Worker::finish_walk`] after its playout.
    fn finish_walk_with<T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, impl Game>,
        outcome: Outcome,
        played: MovesPlayed,
    );

    /// The moves of lane 0's last playout ([`Worker::value_leaf`]'s, for RAVE).
    fn played(&self) -> &MovesPlayed;

    /// The nodes of the last walk (lane 0's path), each with the player who moved into it.
    fn walk_steps(&self) -> impl Iterator<Item = (NodeId, Player)> + '_;

    /// The node `depth` plies below the root on the last walk, if it got there.
    fn walk_node_at(&self, depth: usize) -> Option<NodeId>;

    /// With implicit minimax backups, gives the end of the last walk the value `value`
    /// (found elsewhere: the rank that owns the node) and backs the values up the path.
    fn set_walk_value<T: TreeOps>(&mut self, tree: &mut T, params: IterationParams<'_, impl Game>, value: f32);

    /// The nodes on which the walk in flight holds its mark (virtual loss or unobserved
    /// playouts): lane 0's path, less the batched nodes.
    fn walk_nodes_marked(&self) -> impl Iterator<Item = NodeId> + '_;

    /// Appends the moves from the root to the walk in flight (lane 0's path): replayed
    /// from the root, they reach the walk's position.
    fn walk_moves<T: TreeOps>(&self, tree: &mut T, out: &mut Vec<u16>);
}

impl RemoteWalk for Worker {
    fn finish_walk_with<T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, impl Game>,
        outcome: Outcome,
        played: MovesPlayed,
    ) {
        self.played[0] = played;
        self.back_up::<T, SOLVER>(tree, params, 0, outcome, false);
    }

    fn played(&self) -> &MovesPlayed {
        &self.played[0]
    }

    fn walk_steps(&self) -> impl Iterator<Item = (NodeId, Player)> + '_ {
        self.paths[0].iter().map(|step| (step.node, step.mover))
    }

    fn walk_node_at(&self, depth: usize) -> Option<NodeId> {
        self.paths[0].get(depth).map(|step| step.node)
    }

    fn set_walk_value<T: TreeOps>(&mut self, tree: &mut T, params: IterationParams<'_, impl Game>, value: f32) {
        if params.uct.implicit > 0.0 {
            if let Some(end) = self.paths[0].last() {
                tree.set_value(end.node, value);
                back_up_values(tree, &self.paths[0]);
            }
        }
    }

    fn walk_nodes_marked(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.paths[0].iter().filter(|step| !step.batched).map(|step| step.node)
    }

    fn walk_moves<T: TreeOps>(&self, tree: &mut T, out: &mut Vec<u16>) {
        out.extend(self.paths[0][1..].iter().map(|step| tree.mv(step.node)));
    }
}
