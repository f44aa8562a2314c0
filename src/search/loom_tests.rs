//! Model checking of the lock-free protocol with loom, on the real tree code.
//!
//! Run with: `RUSTFLAGS="--cfg loom" cargo test --profile test-release --lib loom`
//! (CI does, with `LOOM_MAX_PREEMPTIONS=2`).

use loom::sync::Arc;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::iteration::{expand, prove_ancestors, Step, Worker};
use super::options::ChanceSelection;
use super::params::{ChildLayout, IterationParams};
use crate::games::{Game, GameError, Move, MoveList, Outcome, Player, Playouts, SearchGame, Tuning, Turn};
use crate::policy::UctParams;
use crate::tree::invariants::{check, check_proofs, Expectations};
use crate::tree::{Arena, ExclusiveTree, Expansion, NodeId, Proof, SharedTree, TreeOps};

/// Subtraction game: take 1 or 2 stones; whoever takes the last stone wins. Tiny
/// branching keeps the number of interleavings small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Nim {
    stones: u8,
    to_move: Player,
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    type Moves = MoveList<2>;
    fn new() -> Self {
        Nim { stones: 4, to_move: Player::One }
    }
    fn side_to_move(&self) -> Player {
        self.to_move
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.stones == 0).then(|| Outcome::Win(self.to_move.other()))
    }
    fn legal_moves(&self) -> MoveList<2> {
        (1..=self.stones.min(2)).map(|t| Move(t as u16)).collect()
    }
    fn play_unchecked(&mut self, mv: Move) {
        self.stones -= mv.0 as u8;
        self.to_move = self.to_move.other();
    }
    fn hash(&self) -> u64 {
        self.stones as u64
    }
    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        Err(GameError::BadMove(text.to_string()))
    }
    fn format_move(&self, mv: Move) -> String {
        mv.0.to_string()
    }
}

impl Playouts for Nim {}
impl Tuning for Nim {}
impl crate::games::Endgame for Nim {}
impl crate::games::NTupleBoard for Nim {}

/// Nim with dice: before each move a coin shows 1 (weight 1) or 2 (weight 3), and the
/// player takes 1 stone or the number shown. Chance nodes alternate with player nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CoinNim {
    stones: u8,
    to_move: Player,
    /// The coin's face, 0 while it is still to be tossed.
    shown: u8,
}

impl Game for CoinNim {
    const NAME: &'static str = "coin-nim";
    const HAS_CHANCE: bool = true;
    type Moves = MoveList<2>;
    fn new() -> Self {
        CoinNim { stones: 3, to_move: Player::One, shown: 0 }
    }
    fn side_to_move(&self) -> Player {
        self.to_move
    }
    fn turn(&self) -> Turn {
        if self.shown == 0 {
            Turn::Chance
        } else {
            Turn::Player(self.to_move)
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.stones == 0).then(|| Outcome::Win(self.to_move.other()))
    }
    fn legal_moves(&self) -> MoveList<2> {
        if self.shown == 0 {
            return [Move(1), Move(2)].into_iter().collect();
        }
        let mut moves: MoveList<2> = [Move(1)].into_iter().collect();
        if self.shown == 2 && self.stones >= 2 {
            moves.push(Move(2));
        }
        moves
    }
    fn chance_weight(&self, mv: Move) -> f32 {
        if mv.0 == 1 {
            1.0
        } else {
            3.0
        }
    }
    fn play_unchecked(&mut self, mv: Move) {
        if self.shown == 0 {
            self.shown = mv.0 as u8;
        } else {
            self.stones -= mv.0 as u8;
            self.to_move = self.to_move.other();
            self.shown = 0;
        }
    }
    fn hash(&self) -> u64 {
        u64::from(self.stones) | u64::from(self.shown) << 8
    }
    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        Err(GameError::BadMove(text.to_string()))
    }
    fn format_move(&self, mv: Move) -> String {
        mv.0.to_string()
    }
}

impl Playouts for CoinNim {}
impl Tuning for CoinNim {}
impl crate::games::Endgame for CoinNim {}
impl crate::games::NTupleBoard for CoinNim {}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(f);
}

/// A reader that sees EXPANDED sees the children's moves (the Release/Acquire pair).
/// With a Relaxed publish, loom finds an execution where the reader sees move 0.
#[test]
fn loom_publish_makes_children_visible() {
    model(|| {
        let arena = Arc::new(Arena::new(4).unwrap());
        let writer = {
            let arena = arena.clone();
            loom::thread::spawn(move || {
                let mut tree = SharedTree(&arena);
                assert!(tree.try_claim(NodeId::ROOT));
                let first = tree.alloc(2).unwrap();
                tree.init_child(first, 7, 0);
                tree.init_child(NodeId(first.0 + 1), 9, 0);
                tree.publish(NodeId::ROOT, first, 2);
            })
        };
        let mut tree = SharedTree(&arena);
        if let Expansion::Expanded { first, count } = tree.expansion(NodeId::ROOT) {
            assert_eq!(count, 2);
            assert_eq!(tree.mv(first), 7);
            assert_eq!(tree.mv(NodeId(first.0 + 1)), 9);
        }
        writer.join().unwrap();
    });
}

/// Exactly one of two racing claimers wins, and the loser's allocation never happens.
#[test]
fn loom_one_claim_wins() {
    model(|| {
        let arena = Arc::new(Arena::new(8).unwrap());
        let racers: Vec<_> = (0..2)
            .map(|_| {
                let arena = arena.clone();
                loom::thread::spawn(move || {
                    let mut tree = SharedTree(&arena);
                    if tree.try_claim(NodeId::ROOT) {
                        expand(
                            &mut tree,
                            NodeId::ROOT,
                            &Nim::new(),
                            None::<&mut Xoshiro256PlusPlus>,
                            None,
                            None,
                            ChildLayout::default(),
                        );
                        1
                    } else {
                        0
                    }
                })
            })
            .collect();
        let wins: u32 = racers.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(wins, 1);
        assert_eq!(arena.len(), 3, "one block of two children");
    });
}

/// Two workers run full iterations (select with virtual loss, racing expansions of the
/// same child, playout, backup, a batched root update) on one tree; afterwards every
/// quiescent invariant holds.
#[test]
fn loom_concurrent_iterations_keep_invariants() {
    concurrent_iterations(1);
}

/// The same with the first worker keeping two playouts in flight (`leaves = 2`): its two
/// walks down, the other worker's iteration, and all three backups interleave.
#[test]
fn loom_two_lanes_beside_a_worker_keep_invariants() {
    concurrent_iterations(2);
}

/// Two workers on one tree after two sequential iterations; worker 0 runs `lanes`
/// iterations at once.
fn concurrent_iterations(lanes: usize) {
    concurrent_iterations_of(Nim::new(), lanes, ChanceSelection::Sample);
}

/// [`concurrent_iterations`] on any tiny game `root`, chance nodes picked by `chance`.
fn concurrent_iterations_of<G: SearchGame + Copy + Send + Sync + 'static>(
    root: G,
    lanes: usize,
    chance: ChanceSelection,
) {
    model(move || {
        let mut arena = Arena::new(16).unwrap();
        let params = IterationParams {
            uct: UctParams { c: 1.4, ..UctParams::default() },
            virtual_loss: 1,
            exclusive_virtual_loss: false,
            expand_threshold: 1,
            biased_playouts: false,
            gammas: None,
            replies: None,
            criticality: None,
            prune: false,
            chance,
            solver: false,
            endgame_leaf_nodes: 0,
            evaluator: None,
            eval_weight: 1.0,
            eval_depth: 0,
            eval_priors: false,
            batch_min_visits: 2,
            batched_eval: false,
            lanes: 1,
        };
        // Two sequential iterations first, so both root children have a visit and the
        // workers below race to expand them.
        {
            let mut tree = ExclusiveTree::<false>(&mut arena);
            assert!(tree.try_claim(NodeId::ROOT));
            expand(&mut tree, NodeId::ROOT, &root, None::<&mut Xoshiro256PlusPlus>, None, None, ChildLayout::default());
            let mut worker = Worker::new(1, 0);
            worker.iterate::<_, _, false, 1>(&mut tree, &root, params);
            worker.iterate::<_, _, false, 1>(&mut tree, &root, params);
            worker.flush(&mut tree);
        }
        let arena = Arc::new(arena);
        let workers: Vec<_> = (0..2)
            .map(|i| {
                let arena = arena.clone();
                loom::thread::spawn(move || {
                    let mut worker = Worker::new(5, i);
                    // The root has 2 visits: its backup is batched, then flushed.
                    if i == 0 && lanes == 2 {
                        worker.iterate::<_, _, false, 2>(&mut SharedTree(&arena), &root, params);
                    } else {
                        worker.iterate::<_, _, false, 1>(&mut SharedTree(&arena), &root, params);
                    }
                    worker.flush(&mut SharedTree(&arena));
                    worker.playouts
                })
            })
            .collect();
        let playouts: u64 = workers.into_iter().map(|t| t.join().unwrap()).sum();
        let expect = Expectations {
            playouts: 2 + playouts,
            expand_threshold: 1,
            exact_leaf_visits: false,
            prior_root_visits: 0,
            prior_root_leaf: 0,
            amaf_covers_visits: false,
        };
        check(&arena, expect).unwrap();
    });
}

/// Chance nodes on the shared tree: two workers walk CoinNim's coin tosses in proportion
/// (`chance=walk`, reading each other's virtual loss) while the tosses' children are
/// expanded and backed up; the invariants hold whatever the interleaving.
#[test]
fn loom_walked_chance_nodes_keep_invariants() {
    concurrent_iterations_of(CoinNim::new(), 1, ChanceSelection::Walk);
}

/// The same with the outcomes sampled by their weights (`chance=sample`).
#[test]
fn loom_sampled_chance_nodes_keep_invariants() {
    concurrent_iterations_of(CoinNim::new(), 1, ChanceSelection::Sample);
}

/// MCTS-Solver on the shared tree. In a 3-stone game (lost for the player to move:
/// either take leaves the opponent the last stones), two workers each prove one
/// terminal grandchild and back the proof up (`prove_ancestors`) at the same time as
/// the other: the root is lost only once both of its children are, so each may read the
/// other's proof too early. Whatever the interleaving, every proof is one the game
/// supports, and when the root is proven it is proven lost for the player to move.
#[test]
fn loom_racing_proofs_are_sound() {
    model(|| {
        let mut arena = Arena::new(8).unwrap();
        let root = Nim { stones: 3, to_move: Player::One };
        // Expand the whole game tree first (3 → {2, 1}; 2 → {1, 0}; 1 → {0}): the race is
        // only over the proofs.
        let mut tree = ExclusiveTree::<false>(&mut arena);
        let grow = |tree: &mut ExclusiveTree, node: NodeId, state: Nim| {
            assert!(tree.try_claim(node));
            expand(tree, node, &state, None::<&mut Xoshiro256PlusPlus>, None, None, ChildLayout::default());
        };
        grow(&mut tree, NodeId::ROOT, root);
        let Expansion::Expanded { first, .. } = tree.expansion(NodeId::ROOT) else { unreachable!() };
        let (take1, take2) = (first, NodeId(first.0 + 1));
        grow(&mut tree, take1, Nim { stones: 2, to_move: Player::Two });
        grow(&mut tree, take2, Nim { stones: 1, to_move: Player::Two });
        // The winning replies: take 2 of 2 (second child of take1), take 1 of 1.
        let Expansion::Expanded { first: a, .. } = tree.expansion(take1) else { unreachable!() };
        let Expansion::Expanded { first: b, .. } = tree.expansion(take2) else { unreachable!() };
        let wins = [(take1, NodeId(a.0 + 1)), (take2, b)];
        for (_, leaf) in wins {
            tree.publish(leaf, NodeId(0), 0);
        }
        let arena = Arc::new(arena);
        let step = |node, mover, chance| Step { node, mover, batched: false, chance };
        let provers: Vec<_> = wins
            .into_iter()
            .map(|(child, leaf)| {
                let arena = arena.clone();
                loom::thread::spawn(move || {
                    let mut tree = SharedTree(&arena);
                    tree.prove(leaf, Proof::Win);
                    let path = [
                        step(NodeId::ROOT, Player::Two, false),
                        step(child, Player::One, false),
                        step(leaf, Player::Two, false),
                    ];
                    prove_ancestors(&mut tree, &path);
                })
            })
            .collect();
        for prover in provers {
            prover.join().unwrap();
        }
        check_proofs(&*arena, &root).unwrap();
        let root_proof = arena.node(NodeId::ROOT).proof();
        assert!(matches!(root_proof, Proof::Unknown | Proof::Win), "root's mover (Two) wins: {root_proof:?}");
    });
}
