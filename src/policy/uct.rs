//! UCT selection (Kocsis & Szepesvári 2006, "Bandit based Monte-Carlo Planning"), with
//! virtual loss for shared trees (Chaslot, Winands & van den Herik 2008).

use std::ops::ControlFlow;
use std::sync::LazyLock;

use super::halving::{self, MAX_ROOT_CHILDREN};
use crate::tree::{ChildView, NodeId, Proof, TreeOps};

/// UCB1: `q + C * sqrt(ln N / n)`, with `q` the child's mean result in [0, 1], `N` the
/// parent's visits and `n` the child's (Kocsis & Szepesvári 2006).
/// (The selection loop computes it inline; this form is checked against it in tests.)
#[cfg(test)]
pub(crate) fn ucb1(q: f32, ln_parent: f32, visits: f32, c: f32) -> f32 {
    q + c * (ln_parent / visits).sqrt()
}

/// Visit counts below this come from tables instead of `ln`, `sqrt` and a division.
const TABLE_LEN: usize = 1024;

/// Precomputed UCB1 terms for small visit counts. The selection loop spent about 40 % of
/// a sequential Connect Four iteration in `logf`, `sqrtss` and `divss`; most nodes have
/// small counts, so three L1-resident tables (12 KiB) replace them there.
struct UcbTables {
    /// `0.5 / n`: half points to a mean.
    half_inv: [f32; TABLE_LEN],
    /// `1 / sqrt(n)`.
    inv_sqrt: [f32; TABLE_LEN],
    /// `sqrt(ln n)` (0 for n = 0).
    sqrt_ln: [f32; TABLE_LEN],
    /// `ln n`, for the reduction of large `n` below.
    ln: [f32; TABLE_LEN],
}

static TABLES: LazyLock<Box<UcbTables>> = LazyLock::new(|| {
    let mut t = Box::new(UcbTables {
        half_inv: [0.0; TABLE_LEN],
        inv_sqrt: [0.0; TABLE_LEN],
        sqrt_ln: [0.0; TABLE_LEN],
        ln: [0.0; TABLE_LEN],
    });
    for n in 1..TABLE_LEN {
        let x = n as f64;
        t.half_inv[n] = (0.5 / x) as f32;
        t.inv_sqrt[n] = (1.0 / x.sqrt()) as f32;
        t.sqrt_ln[n] = x.ln().sqrt() as f32;
        t.ln[n] = x.ln() as f32;
    }
    t
});

impl UcbTables {
    #[inline]
    fn half_inv(&self, n: u32) -> f32 {
        match self.half_inv.get(n as usize) {
            Some(&v) => v,
            None => 0.5 / n as f32,
        }
    }
    #[inline]
    fn inv_sqrt(&self, n: u32) -> f32 {
        match self.inv_sqrt.get(n as usize) {
            Some(&v) => v,
            None => 1.0 / (n as f32).sqrt(),
        }
    }
    /// `sqrt(ln n)`. Above the table, `ln n = ln(n >> s) + s ln 2` with `n >> s` in
    /// `512..1024`: the truncation lowers `ln n` by less than `ln(1 + 1/512) < 0.002`
    /// (under 0.03 % of it), and saves the `logf` call that cost 8-12 % of a sequential
    /// Connect Four search (it runs at the root and the top levels every iteration).
    #[inline]
    fn sqrt_ln(&self, n: u32) -> f32 {
        match self.sqrt_ln.get(n as usize) {
            Some(&v) => v,
            None => {
                let shift = 22 - n.leading_zeros(); // bit length - 10
                (self.ln[(n >> shift) as usize] + shift as f32 * std::f32::consts::LN_2).sqrt()
            }
        }
    }
}

/// Progressive bias scale for a parent with `parent_visits` visits:
/// `C_BT * sqrt(K / (N + K))` (Chaslot et al. 2008, "Progressive Strategies for
/// Monte-Carlo Tree Search"; this form: Ikeda & Viennot 2013). The term a child gets is
/// this scale times its prior `P(m)`, so the bias fades as the parent is visited.
#[inline]
pub(crate) fn progressive_bias_scale(c_bt: f32, k: f32, parent_visits: u32) -> f32 {
    c_bt * (k / (parent_visits as f32 + k)).sqrt()
}

/// Picks the child of `parent` (children `first..first + count`) with the highest UCB1
/// value, plus the progressive bias term `C_BT * P(m) * sqrt(K / (N + K))` when
/// `params.bias = C_BT > 0` (`K = params.bias_k`; `P(m)` is the prior stored on each
/// child at expansion).
///
/// The first unvisited child in block order comes first (the expansion laid the block
/// out in random order, so this is a uniformly random unvisited child); exact ties go to
/// the earlier child, which is random for the same reason. Virtual loss counts as visits
/// that were lost (with `params.wu_uct`, as visits of unknown result: in the exploration
/// term only), so concurrent workers spread over siblings; `own_virtual_loss` (what
/// this worker itself put on `parent`) is left out of the parent's count, so a lone
/// worker selects exactly as the sequential search does.
///
/// With `SOLVER` (MCTS-Solver), a child proven won for the mover is taken at once and
/// children proven lost are never taken while another is left.
///
/// With RAVE (`params.rave = k > 0`; Gelly & Silver 2011, "Monte-Carlo tree search and
/// rapid action value estimation in computer Go"), the mean is blended with the child's
/// all-moves-as-first mean: `(1 - beta) q + beta q_amaf`, `beta = sqrt(k / (3N + k))`
/// (their hand-selected schedule; `N` the parent's visits), so the AMAF estimate leads
/// while the node is young and fades as its own statistics grow. An unvisited child with
/// AMAF data competes on `q_amaf` (explored as if visited once) instead of coming first.
///
/// With implicit minimax backups (`params.implicit = α > 0`; Lanctot, Winands, Pepels &
/// Sturtevant 2014, "Monte Carlo Tree Search with Heuristic Evaluations using Implicit
/// Minimax Backups"), the mean is blended with the child's minimax value of the
/// evaluator's leaf values: `(1 - α) q + α v`.
#[inline]
pub(crate) fn select_child<T: TreeOps, const SOLVER: bool>(
    tree: &mut T,
    parent: NodeId,
    first: NodeId,
    count: u32,
    params: UctParams,
    own_virtual_loss: u32,
) -> NodeId {
    // The visits include the virtual loss of the walks in flight (this worker's own taken
    // out); WU-UCT keeps its in-flight count apart.
    let unobserved = if params.wu_uct { tree.unobserved(parent) } else { 0 };
    let parent_stats = tree.stats(parent);
    let parent_visits = parent_stats.visits + unobserved - own_virtual_loss;
    if params.halving_budget > 0 && parent == NodeId::ROOT && count as usize <= MAX_ROOT_CHILDREN {
        let spent = parent_visits.saturating_sub(params.halving_start);
        return halving::select_root::<T, SOLVER>(tree, first, count, spent, params.halving_budget);
    }
    let count = if params.widen > 0.0 { widened(count, params.widen, parent_visits) } else { count };
    if params.puct {
        // The mean blended with RAVE's and the minimax values where they are on, as UCB1's.
        let beta = if params.rave > 0.0 { rave_beta(params.rave, parent_visits) } else { 0.0 };
        let side = params.rave > 0.0 || params.implicit > 0.0;
        return if side {
            scan_puct::<T, SOLVER, true>(tree, parent_stats, parent_visits, first, count, params, beta)
        } else {
            scan_puct::<T, SOLVER, false>(tree, parent_stats, parent_visits, first, count, params, beta)
        };
    }
    let mut terms = Terms {
        explore: params.c * TABLES.sqrt_ln(parent_visits),
        bias_scale: 0.0,
        prior_visits: params.prior_visits,
        // A prior of 65535 is the whole share; `count` children share it uniformly.
        relative_prior: count as f32 / 65535.0,
        beta: 0.0,
        implicit: 0.0,
        wu_uct: params.wu_uct,
    };
    if params.bias > 0.0 {
        // Priors are stored in units of 1/65535.
        terms.bias_scale = progressive_bias_scale(params.bias, params.bias_k, parent_visits) / 65535.0;
    }
    if params.rave > 0.0 {
        terms.beta = rave_beta(params.rave, parent_visits);
    }
    terms.implicit = params.implicit;
    // The side arrays (AMAF statistics, implicit minimax values) are read for either.
    match (params.bias > 0.0 || params.prior_visits > 0.0, params.rave > 0.0 || params.implicit > 0.0) {
        (false, false) => scan::<T, false, SOLVER, false>(tree, first, count, terms),
        (true, false) => scan::<T, true, SOLVER, false>(tree, first, count, terms),
        (false, true) => scan::<T, false, SOLVER, true>(tree, first, count, terms),
        (true, true) => scan::<T, true, SOLVER, true>(tree, first, count, terms),
    }
}

/// How many of a parent's `count` children progressive widening lets selection see after
/// `parent_visits` visits: the children lie in order of their priors (the expansion
/// sorted them), and the k-th (from 0) is seen from `A (1.4^k - 1)` visits, so one more
/// each time the visits grow by 40 % (Coulom 2007, "Computing Elo Ratings of Move
/// Patterns in the Game of Go", with `A = 40` there). Children left out are not lost:
/// the window only grows.
#[inline]
pub(crate) fn widened(count: u32, a: f32, parent_visits: u32) -> u32 {
    let seen = 1.0 + (1.0 + parent_visits as f32 / a).ln() / 1.4f32.ln();
    (seen as u32).max(1).min(count)
}

/// The selection constants of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct UctParams {
    /// Exploration constant C.
    pub c: f32,
    /// Progressive bias weight C_BT (0: off).
    pub bias: f32,
    /// Progressive bias constant K.
    pub bias_k: f32,
    /// Priors as equivalent experience: the visits each child starts with (0: off).
    pub prior_visits: f32,
    /// Progressive widening's visit scale A ([`widened`]; 0: off).
    pub widen: f32,
    /// RAVE constant k (0: off).
    pub rave: f32,
    /// Implicit minimax weight α (0: off).
    pub implicit: f32,
    /// PUCT selection ([`crate::search::Select::Puct`]) instead of UCB1.
    pub puct: bool,
    /// PUCT's exploration weight c_puct.
    pub c_puct: f32,
    /// PUCT's first-play urgency: an unvisited child's value is the parent's mean less this.
    pub fpu: f32,
    /// WU-UCT (Liu et al. 2020): in-flight playouts count as visits in the exploration
    /// term only, not as losses in the mean.
    pub wu_uct: bool,
    /// Sequential halving at the root ([`halving`]): the playouts of the root's tree in
    /// this search (0: off, UCB1 at the root too).
    pub halving_budget: u32,
    /// The root's visits when this search began (kept by tree reuse), which halving's
    /// rounds do not count.
    pub halving_start: u32,
}

/// RAVE's weight on the AMAF mean, `sqrt(k / (3N + k))` (Gelly & Silver 2011).
#[inline]
pub(crate) fn rave_beta(k: f32, parent_visits: u32) -> f32 {
    (k / (3.0 * parent_visits as f32 + k)).sqrt()
}

/// The per-parent factors of one selection.
#[derive(Clone, Copy)]
struct Terms {
    /// `C * sqrt(ln N)`.
    explore: f32,
    /// Progressive bias scale per prior unit.
    bias_scale: f32,
    /// Priors as equivalent experience: the visits each child starts with (0: off).
    prior_visits: f32,
    /// A stored prior's ratio to the uniform share, per prior unit.
    relative_prior: f32,
    /// RAVE weight.
    beta: f32,
    /// Implicit minimax weight α.
    implicit: f32,
    /// The mean over completed playouts only (WU-UCT).
    wu_uct: bool,
}

/// The MCTS-Solver's rule for a proven child, shared by UCB1 and PUCT: a child proven won
/// for the mover is taken at once (`best` set, the scan stops), one proven lost is passed
/// over; `None` for the others, which are scored.
#[inline(always)]
fn solver_rule(proof: Proof, i: u32, best: &mut u32) -> Option<ControlFlow<()>> {
    match proof {
        Proof::Win => {
            *best = i;
            Some(ControlFlow::Break(()))
        }
        Proof::Loss => Some(ControlFlow::Continue(())),
        Proof::Draw | Proof::Unknown => None,
    }
}

/// The selection loop; the flags keep the plain loop free of the prior term, the proof
/// reads and the side arrays' reads (`SIDE`: AMAF statistics and implicit minimax
/// values, zero where the arena keeps none).
#[inline(always)]
fn scan<T: TreeOps, const BIAS: bool, const SOLVER: bool, const SIDE: bool>(
    tree: &mut T,
    first: NodeId,
    count: u32,
    terms: Terms,
) -> NodeId {
    let tables: &UcbTables = &TABLES;
    // UCB1 as q + (C * sqrt(ln N)) * (1 / sqrt(n)): the first factor once per node.
    let explore = terms.explore;
    let mut best = 0;
    let mut best_value = f32::NEG_INFINITY;
    tree.scan_children::<SOLVER, SIDE>(first, count, terms.wu_uct, |i, child| {
        if SOLVER {
            if let Some(flow) = solver_rule(child.proof, i, &mut best) {
                return flow;
            }
        }
        // Virtual loss is in the visits already; WU-UCT's in-flight playouts are added.
        let visits = child.stats.visits + child.unobserved;
        let amaf = child.amaf; // zero without RAVE
        let mut value = if BIAS && terms.prior_visits > 0.0 {
            with_prior_experience::<SIDE>(&child, visits, terms)
        } else if visits == 0 && (!SIDE || amaf.visits == 0) {
            best = i;
            return ControlFlow::Break(());
        } else if SIDE && visits == 0 {
            // Explored as if visited once, on its AMAF mean.
            amaf.half_points as f32 * tables.half_inv(amaf.visits) + explore
        } else {
            // Virtual loss: in-flight playouts are lost visits. WU-UCT: the mean is over
            // completed ones (0 before the first), the exploration term counts both.
            let completed = if terms.wu_uct { child.stats.visits } else { visits };
            let mut q = child.stats.half_points as f32 * tables.half_inv(completed);
            if SIDE && amaf.visits != 0 {
                let q_amaf = amaf.half_points as f32 * tables.half_inv(amaf.visits);
                q += terms.beta * (q_amaf - q);
            }
            if SIDE {
                q += terms.implicit * (child.value - q);
            }
            q + explore * tables.inv_sqrt(visits)
        };
        if BIAS {
            value += terms.bias_scale * child.prior as f32;
        }
        if value > best_value {
            best_value = value;
            best = i;
        }
        ControlFlow::Continue(())
    });
    NodeId(first.0 + best)
}

/// UCB1's value of a child whose prior counts as `terms.prior_visits` visits more at the
/// mean `r / (1 + r)`, `r` its prior over the uniform share (Gelly & Silver 2007, "Combining
/// Online and Offline Knowledge in UCT": the prior as equivalent experience; a child
/// stored without a prior counts as uniform). The mean is then blended with the AMAF
/// mean and the minimax value as the plain one is; no child comes first for being
/// unvisited.
#[inline(always)]
fn with_prior_experience<const SIDE: bool>(child: &ChildView, visits: u32, terms: Terms) -> f32 {
    let tables: &UcbTables = &TABLES;
    let relative = if child.prior == 0 { 1.0 } else { child.prior as f32 * terms.relative_prior };
    let completed = if terms.wu_uct { child.stats.visits } else { visits };
    let counted = completed as f32 + terms.prior_visits;
    let mut q = (child.stats.half_points as f32 * 0.5 + terms.prior_visits * relative / (1.0 + relative)) / counted;
    if SIDE && child.amaf.visits != 0 {
        let q_amaf = child.amaf.half_points as f32 * tables.half_inv(child.amaf.visits);
        q += terms.beta * (q_amaf - q);
    }
    if SIDE {
        q += terms.implicit * (child.value - q);
    }
    q + terms.explore / (visits as f32 + terms.prior_visits).sqrt()
}

/// PUCT (Silver et al. 2017; Rosin 2011): the child with the highest
/// `q + c_puct P sqrt(N) / (1 + n)`, `P` its stored prior (uniform where the expansion
/// stored none), `N` the parent's visits and `n` the child's (virtual loss counted as lost
/// visits, as in UCB1); an unvisited child's `q` is the parent's mean for the side to move
/// less `fpu` (first-play urgency), so the prior orders the first visits. With `SIDE`, a
/// visited child's mean is blended with its AMAF mean (`beta`, RAVE) and its implicit
/// minimax value as in UCB1. The solver's proven children are taken or avoided as in UCB1.
#[inline]
fn scan_puct<T: TreeOps, const SOLVER: bool, const SIDE: bool>(
    tree: &mut T,
    parent: crate::tree::Stats,
    parent_visits: u32,
    first: NodeId,
    count: u32,
    params: UctParams,
    beta: f32,
) -> NodeId {
    let tables: &UcbTables = &TABLES;
    // The parent's stats are its mover's; the children's are the side to move's.
    let parent_mean =
        if parent.visits == 0 { 0.5 } else { 1.0 - parent.half_points as f32 * tables.half_inv(parent.visits) };
    let first_play = parent_mean - params.fpu;
    let explore = params.c_puct * (parent_visits.max(1) as f32).sqrt() / 65535.0;
    let uniform = 65535.0 / count as f32;
    let mut best = 0;
    let mut best_value = f32::NEG_INFINITY;
    tree.scan_children::<SOLVER, SIDE>(first, count, params.wu_uct, |i, child| {
        if SOLVER {
            if let Some(flow) = solver_rule(child.proof, i, &mut best) {
                return flow;
            }
        }
        let visits = child.stats.visits + child.unobserved;
        let completed = if params.wu_uct { child.stats.visits } else { visits };
        let mut q =
            if completed == 0 { first_play } else { child.stats.half_points as f32 * tables.half_inv(completed) };
        if SIDE && completed != 0 {
            if child.amaf.visits != 0 {
                let q_amaf = child.amaf.half_points as f32 * tables.half_inv(child.amaf.visits);
                q += beta * (q_amaf - q);
            }
            q += params.implicit * (child.value - q);
        }
        let prior = if child.prior == 0 { uniform } else { child.prior as f32 };
        let value = q + explore * prior / (1 + visits) as f32;
        if value > best_value {
            best_value = value;
            best = i;
        }
        ControlFlow::Continue(())
    });
    NodeId(first.0 + best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_opens_one_more_child_each_time_the_visits_grow_by_forty_percent() {
        // The k-th child (from 0) from 40 (1.4^k - 1) visits: 16 for the second, 1,117
        // for the eleventh.
        let seen: Vec<u32> = [0, 15, 17, 1_100, 1_130].map(|n| widened(82, 40.0, n)).to_vec();
        assert_eq!(seen, [1, 1, 2, 10, 11]);
        assert_eq!(widened(5, 40.0, 1_000_000), 5, "never more than the children");
        assert_eq!(widened(3, 1e9, 0), 1, "never fewer than one");
    }

    #[test]
    fn tables_match_the_formulas() {
        let t: &UcbTables = &TABLES;
        for n in [1u32, 2, 7, 100, 1023, 1024, 1025, 5000, 65_537, 1 << 20, 123_456_789, u32::MAX] {
            let x = n as f64;
            assert!((t.half_inv(n) as f64 - 0.5 / x).abs() <= 1e-6 * (0.5 / x), "half_inv({n})");
            assert!((t.inv_sqrt(n) as f64 - 1.0 / x.sqrt()).abs() <= 1e-6 / x.sqrt(), "inv_sqrt({n})");
            let exact = x.ln();
            let approx = (t.sqrt_ln(n) as f64).powi(2);
            assert!(approx <= exact + 1e-5 && exact - approx < 0.002, "ln({n}): {approx} vs {exact}");
        }
    }

    #[test]
    fn progressive_bias_fades_with_visits() {
        // C_BT sqrt(K / (N + K)): C_BT at N = 0, C_BT / sqrt(2) at N = K.
        assert!((progressive_bias_scale(0.5, 5000.0, 0) - 0.5).abs() < 1e-6);
        assert!((progressive_bias_scale(0.5, 5000.0, 5000) - 0.5 / 2f32.sqrt()).abs() < 1e-6);
        assert!(progressive_bias_scale(0.5, 5000.0, 5_000_000) < 0.02);
    }

    #[test]
    fn rave_beta_schedule() {
        // sqrt(k / (3N + k)): 1 at N = 0, 1/2 at N = k, and fading.
        assert_eq!(rave_beta(1000.0, 0), 1.0);
        assert!((rave_beta(1000.0, 1000) - 0.5).abs() < 1e-6);
        assert!(rave_beta(1000.0, 10_000_000) < 0.02);
    }

    /// Priors as equivalent experience: no child is taken first for being unvisited, the
    /// strongest prior leads at first, losses move the lead to the next prior, and a
    /// weak prior's real wins outweigh it.
    #[test]
    fn priors_count_as_visits() {
        use crate::tree::{Arena, ExclusiveTree};
        let mut arena = Arena::new(16).unwrap();
        let mut tree = ExclusiveTree::<false>(&mut arena);
        assert!(tree.try_claim(NodeId::ROOT));
        let first = tree.alloc(3).unwrap();
        let child = |i: u32| NodeId(first.0 + i);
        // Priors 0.1, 0.6 and 0.3 of the share (units of 1/65535).
        for (i, prior) in [6554u16, 39321, 19661].into_iter().enumerate() {
            tree.init_child(child(i as u32), i as u16, prior);
        }
        tree.publish(NodeId::ROOT, first, 3);
        let params = UctParams { c: 0.25, bias_k: 5000.0, prior_visits: 20.0, ..UctParams::default() };
        let plain = UctParams { prior_visits: 0.0, ..params };
        let select =
            |tree: &mut ExclusiveTree, params| select_child::<_, false>(tree, NodeId::ROOT, first, 3, params, 0);
        assert_eq!(select(&mut tree, plain), child(0), "plain UCB1 takes the first unvisited child");
        assert_eq!(select(&mut tree, params), child(1));
        // Child 1 loses 40 playouts of 40: child 2's prior leads.
        for _ in 0..40 {
            tree.record(child(1), 0, 0);
            tree.record(NodeId::ROOT, 2, 0);
        }
        assert_eq!(select(&mut tree, params), child(2));
        // Child 0 wins 100 of 100: its visits outweigh its weak prior.
        for _ in 0..100 {
            tree.record(child(0), 2, 0);
            tree.record(NodeId::ROOT, 0, 0);
        }
        assert_eq!(select(&mut tree, params), child(0));
    }

    #[test]
    fn ucb1_formula() {
        // q + C sqrt(ln N / n) with q = 0.5, N = e^2, n = 2, C = 1: 0.5 + 1.
        assert!((ucb1(0.5, 2.0, 2.0, 1.0) - 1.5).abs() < 1e-6);
    }
}
