//! Hex's playouts: fill the board at random and flood-fill it once; with win-first,
//! block-first pruning, a move-by-move loop that keeps each player's edge-joined stones
//! from ply to ply ([`EdgeReach`]).
//!
//! A uniformly random playout colours the empty cells in a uniformly random order,
//! alternately; the game would stop at the first winning chain, but colouring the rest
//! cannot change the winner (a full board holds exactly one winning chain, and the
//! chain that won stays). So the winner of a random playout is the winner of a random
//! filled board in which the side to move gets `⌈E/2⌉` of the `E` empty cells and the
//! other player a uniformly random `⌊E/2⌋` of them; one flood fill from Black's top
//! edge then decides ([`Geometry::connects`]).
//!
//! The other player's cells are drawn without a list of cells or a shuffle: a random
//! bit per cell (one 64-bit draw per word), then, while the set is too large, a
//! uniformly random member is dropped, and while it is too small, a uniformly random
//! non-member added (each found by rejection: a uniform cell of the board, drawn again
//! until it qualifies). Every step treats the cells alike, so the distribution of the
//! final set is invariant under permutations of the cells; all sets of one size are
//! then equally likely. The size is off by about `0.4 √E` cells before the repair, so
//! a playout on the empty 11x11 board takes about a dozen draws in all.

use rand_core::RngCore;

use super::cells::{Cells, Geometry, MAX_CELLS};
use super::Hex;
use crate::games::{random_below, Game, Move, MovesPlayed, Outcome, Player, PlayoutPolicy, Playouts};

impl<const N: usize> Hex<N> {
    /// Plays a uniformly random game to the end by filling the board (see the module
    /// doc), telling `on_fill` every cell each player gets. Leaves `self` the filled
    /// board, with the winner set.
    #[inline(always)]
    fn fill_playout<R: RngCore>(&mut self, rng: &mut R, mut on_fill: impl FnMut(Player, Move)) -> Outcome {
        type G<const N: usize> = Geometry<N>;
        if let Some(winner) = self.winner {
            return Outcome::Win(winner);
        }
        self.swap_turn(rng, &mut on_fill);
        let empty = self.empty_cells();
        let count = G::<N>::count(&empty);
        let mover = self.to_move;
        let theirs = random_subset::<N, R>(rng, &empty, count / 2);
        let mine = G::<N>::and_not(&empty, &theirs);
        for cell in theirs.iter() {
            on_fill(mover.other(), Move(cell as u16));
        }
        for cell in mine.iter() {
            on_fill(mover, Move(cell as u16));
        }
        let (own, other) = (mover.index(), mover.other().index());
        self.stones[own] = G::<N>::or(&self.stones[own], &mine);
        self.stones[other] = G::<N>::or(&self.stones[other], &theirs);
        self.plies += count as u16;
        if count % 2 == 1 {
            self.to_move = mover.other();
        }
        let winner =
            if G::<N>::connects(&self.stones[0], &G::<N>::TOP, &G::<N>::BOTTOM) { Player::One } else { Player::Two };
        self.winner = Some(winner);
        Outcome::Win(winner)
    }

    /// Where the swap is available, plays a uniformly random legal move (the one position
    /// with a move that is no cell, drawn like any other; pruning keeps every move here).
    #[inline(always)]
    fn swap_turn<R: RngCore>(&mut self, rng: &mut R, on_move: &mut impl FnMut(Player, Move)) {
        if self.swap_available() {
            let moves = self.legal_moves();
            let mv = moves[random_below(rng, moves.len() as u32) as usize];
            on_move(self.to_move, mv);
            self.play_unchecked(mv);
        }
    }

    /// Plays a win-first, block-first playout to the end ([`Playouts::prune_moves`] at
    /// every ply: a winning cell if there is one, else the opponent's only winning cell,
    /// else a uniformly random empty cell), telling `on_move` every move. The same games
    /// as the trait's move-by-move loop, at a fraction of its cost: each player's
    /// edge-joined stones are kept from ply to ply ([`EdgeReach`]), so a ply's winning
    /// cells take a few word operations instead of four flood fills, and no move list is
    /// built. A random move never wins (a winning cell would have been played first), so
    /// the game ends on the first winning cell found.
    fn pruned_playout<R: RngCore>(&mut self, rng: &mut R, mut on_move: impl FnMut(Player, Move)) -> Outcome {
        if let Some(winner) = self.winner {
            return Outcome::Win(winner);
        }
        self.swap_turn(rng, &mut on_move);
        if let Some(winner) = self.winner {
            return Outcome::Win(winner);
        }
        let mut reach = [Player::One, Player::Two].map(|p| EdgeReach::of::<N>(&self.stones[p.index()], Self::edges(p)));
        let mut empty = self.empty_cells();
        // Cells not yet drawn: a draw takes one uniformly and skips those filled since
        // (forced moves), which leaves every empty cell equally likely.
        let mut pool = [0u16; MAX_CELLS];
        let mut left = 0;
        for cell in empty.iter() {
            pool[left] = cell as u16;
            left += 1;
        }
        loop {
            let me = self.to_move;
            if let Some(cell) = reach[me.index()].wins::<N>(&empty).iter().next() {
                on_move(me, Move(cell as u16));
                self.play_unchecked(Move(cell as u16));
                return Outcome::Win(me);
            }
            let threats = reach[me.other().index()].wins::<N>(&empty);
            let cell = if threats.count() == 1 {
                threats.iter().next()
            } else {
                std::iter::from_fn(|| {
                    (left > 0).then(|| {
                        let i = random_below(rng, left as u32) as usize;
                        left -= 1;
                        pool.swap(i, left);
                        pool[left] as usize
                    })
                })
                .find(|&cell| empty.contains(cell))
            };
            // A full board has a winner, found as a winning cell the ply before.
            let Some(cell) = cell else {
                return Outcome::Win(if self.connects(Player::One) { Player::One } else { Player::Two });
            };
            on_move(me, Move(cell as u16));
            let own = &mut self.stones[me.index()];
            own.insert(cell);
            empty.remove(cell);
            reach[me.index()].joined_by::<N>(cell, own, Self::edges(me));
            self.plies += 1;
            self.to_move = me.other();
        }
    }
}

/// One player's stones joined to each of their two edges during a pruned playout, and
/// the cells where a stone would join them (those stones' neighbours and the edge
/// itself): the cells that win at once are then `reach[0] ∩ reach[1] ∩ empty`.
#[derive(Clone, Copy)]
struct EdgeReach {
    joined: [Cells; 2],
    reach: [Cells; 2],
}

impl EdgeReach {
    /// From the board: the chains of `own` touching each edge.
    #[inline(always)]
    fn of<const N: usize>(own: &Cells, edges: (Cells, Cells)) -> EdgeReach {
        type G<const N: usize> = Geometry<N>;
        let mut this = EdgeReach { joined: [Cells::EMPTY; 2], reach: [Cells::EMPTY; 2] };
        for (side, edge) in [edges.0, edges.1].iter().enumerate() {
            this.joined[side] = G::<N>::flood(&G::<N>::and(own, edge), own);
            this.reach[side] = G::<N>::or(&G::<N>::dilate(&this.joined[side], &G::<N>::BOARD), edge);
        }
        this
    }

    /// The empty cells that join both edges.
    #[inline(always)]
    fn wins<const N: usize>(&self, empty: &Cells) -> Cells {
        Geometry::<N>::and(&Geometry::<N>::and(&self.reach[0], &self.reach[1]), empty)
    }

    /// After `cell` joined `own`: where it touches an edge's joined stones (or the edge),
    /// its chain joins them. Only the stones not yet joined are flooded (a path through a
    /// joined stone reaches nothing new).
    #[inline(always)]
    fn joined_by<const N: usize>(&mut self, cell: usize, own: &Cells, edges: (Cells, Cells)) {
        type G<const N: usize> = Geometry<N>;
        for (side, edge) in [edges.0, edges.1].iter().enumerate() {
            if self.reach[side].contains(cell) {
                let new = G::<N>::flood(&Cells::single(cell), &G::<N>::and_not(own, &self.joined[side]));
                self.joined[side] = G::<N>::or(&self.joined[side], &new);
                self.reach[side] = G::<N>::or(&G::<N>::dilate(&self.joined[side], &G::<N>::BOARD), edge);
            }
        }
    }
}

/// A uniformly random subset of `size` cells of `from` (which has at least `size`): a
/// random bit per cell, repaired to the size by rejection (the module doc).
#[inline(always)]
fn random_subset<const N: usize, R: RngCore>(rng: &mut R, from: &Cells, size: u32) -> Cells {
    type G<const N: usize> = Geometry<N>;
    let mut set = Cells::EMPTY;
    for w in 0..G::<N>::WORDS {
        set.0[w] = rng.next_u64() & from.0[w];
    }
    let mut have = G::<N>::count(&set);
    while have > size {
        let cell = random_below(rng, (N * N) as u32) as usize;
        if set.contains(cell) {
            set.remove(cell);
            have -= 1;
        }
    }
    while have < size {
        let cell = random_below(rng, (N * N) as u32) as usize;
        if from.contains(cell) && !set.contains(cell) {
            set.insert(cell);
            have += 1;
        }
    }
    set
}

/// Hex has no move strengths and no learned features: every playout policy but the
/// pruned one is the uniformly random playout, played by filling the board.
impl<const N: usize> Playouts for Hex<N> {
    /// Fills the board at random and flood-fills it once (the module doc): the same
    /// distribution of winners as uniformly random moves to the end of the game.
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.fill_playout(rng, |_, _| {})
    }

    /// The random playout (every move's strength is 1).
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.fill_playout(rng, |_, _| {})
    }

    /// The random playout (Hex has no move features, so every gamma is unused).
    fn learned_playout<R: RngCore>(&mut self, rng: &mut R, _gammas: &[f32]) -> Outcome {
        self.fill_playout(rng, |_, _| {})
    }

    /// Without pruning, the filling playout, recording every cell each player gets
    /// (RAVE's all-moves-as-first over the whole filled board, as Hex programs use
    /// it); with pruning, the move-by-move pruned playout.
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        if policy.prune {
            self.pruned_playout(rng, |player, mv| played.insert(player, mv))
        } else {
            self.fill_playout(rng, |player, mv| played.insert(player, mv))
        }
    }

    /// Win-first, block-first by bitboards ([`Hex::winning_cells`]): a cell that wins at
    /// once, alone; else, when the opponent has exactly one winning cell, only it (any
    /// other move leaves it); else every move (two threats cannot both be blocked, and
    /// none need be). The swap position is not pruned.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        if self.swap_available() || self.winner.is_some() {
            return moves.len();
        }
        let me = self.to_move;
        let pick = |moves: &mut [Move], targets: &Cells| {
            let found = moves.iter().position(|m| (m.0 as usize) < N * N && targets.contains(m.0 as usize));
            found.map(|i| moves.swap(0, i)).is_some()
        };
        let wins = self.winning_cells(me);
        if !Geometry::<N>::is_empty(&wins) && pick(moves, &wins) {
            return 1;
        }
        let threats = self.winning_cells(me.other());
        if threats.count() == 1 && pick(moves, &threats) {
            return 1;
        }
        moves.len()
    }
}

#[cfg(test)]
mod tests {
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::games::playout::recorded_play_out;
    use crate::games::Turn;

    #[test]
    fn filled_boards_are_full_and_won_by_the_connected_player() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for start in ["", "f6", "a1 k11 b2", "swap-rule f6"] {
            for _ in 0..200 {
                let mut game = super::super::Hex11::parse_position(start).unwrap();
                let mut played = MovesPlayed::default();
                let outcome = game.recorded_playout(&mut rng, PlayoutPolicy::default(), &mut played);
                assert_eq!(game.empty_cells().count(), 0);
                let Outcome::Win(winner) = outcome else { panic!("a draw") };
                assert!(game.connects(winner) && !game.connects(winner.other()));
                assert_eq!(game.stones[0].count() + game.stones[1].count(), 121);
                assert!(game.stones[0].count().abs_diff(game.stones[1].count()) <= 1);
                for cell in 0..121 {
                    let owner = game.stone_at(Move(cell)).unwrap();
                    assert!(played.contains(owner, Move(cell)) || !start.is_empty());
                }
            }
        }
    }

    /// On 3x3 from the empty board White gets 4 of the 9 cells: each of the 126 sets must
    /// come up about equally often (63,000 playouts, 500 expected each, σ ≈ 22).
    #[test]
    fn filled_boards_are_uniformly_random() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..63_000 {
            let mut game = super::super::Hex::<3>::new();
            game.random_playout(&mut rng);
            *counts.entry(game.stones[1].0[0]).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 126);
        assert!(counts.values().all(|&c| (380..=620).contains(&c)), "{counts:?}");
        let chi2: f64 = counts.values().map(|&c| (f64::from(c) - 500.0).powi(2) / 500.0).sum();
        // 125 degrees of freedom: the 0.1 % tail starts near 180.
        assert!(chi2 < 180.0, "chi-square {chi2}");
    }

    /// Every pruned playout, replayed move by move, is a legal game that plays the win
    /// or the only block wherever [`Playouts::prune_moves`] keeps one move (and a random
    /// move, mostly no block, against two threats), ends on its last move, and leaves the
    /// playout's board.
    #[test]
    fn pruned_playouts_are_the_pruned_games() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let (mut lost_plies, mut blocked) = (0u32, 0u32);
        for start in ["", "f6", "a1 k11 b2 c3 f5 f7 e6", "swap-rule f6", "swap-rule"] {
            for _ in 0..300 {
                let start = super::super::Hex11::parse_position(start).unwrap();
                let (mut game, mut replay) = (start, start);
                let mut moves = Vec::new();
                let outcome = game.pruned_playout(&mut rng, |player, mv| moves.push((player, mv)));
                for (ply, &(player, mv)) in moves.iter().enumerate() {
                    assert_eq!(replay.outcome(), None);
                    assert_eq!(replay.turn(), Turn::Player(player));
                    let mut legal = replay.legal_moves();
                    assert!(legal.as_ref().contains(&mv), "ply {ply}: {mv:?} is illegal");
                    let threats = replay.winning_cells(player.other());
                    if replay.prune_moves(legal.as_mut()) == 1 {
                        assert_eq!(mv, legal[0], "ply {ply}: the win or the only block was not played");
                    } else if threats.count() > 1 {
                        // Two threats: any move loses, and the move is a random one.
                        lost_plies += 1;
                        blocked += u32::from(threats.contains(mv.0 as usize));
                    }
                    replay.play_unchecked(mv);
                }
                assert_eq!(replay.outcome(), Some(outcome));
                assert_eq!(
                    (game.stones, game.to_move, game.plies, game.winner),
                    (replay.stones, replay.to_move, replay.plies, replay.winner)
                );
            }
        }
        assert!(lost_plies > 100 && blocked * 4 < lost_plies, "{blocked} of {lost_plies} lost plies blocked a threat");
    }

    /// The pruned playout plays the trait's move-by-move pruned games, not only legal
    /// ones: its first move from the empty 3x3 board is uniform over the 9 cells (18,000
    /// playouts, 2,000 expected each), and Black's share of wins from three 7x7
    /// positions matches the trait loop's within 4.5σ (20,000 playouts each).
    #[test]
    fn pruned_playouts_draw_like_the_move_by_move_loop() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
        let mut first = [0u32; 9];
        for _ in 0..18_000 {
            let mut game = super::super::Hex::<3>::new();
            let mut opening = None;
            game.pruned_playout(&mut rng, |_, mv| {
                opening.get_or_insert(mv);
            });
            first[opening.unwrap().0 as usize] += 1;
        }
        let chi2: f64 = first.iter().map(|&c| (f64::from(c) - 2000.0).powi(2) / 2000.0).sum();
        // 8 degrees of freedom: the 0.1 % tail starts near 26.
        assert!(chi2 < 26.0, "first moves {first:?}, chi-square {chi2}");
        let policy = PlayoutPolicy { prune: true, ..PlayoutPolicy::default() };
        for start in ["", "d4 c5", "a1 b2 c3 d4 e5 f6"] {
            let start = super::super::Hex::<7>::parse_position(start).unwrap();
            let black_wins = |dedicated: bool, rng: &mut Xoshiro256PlusPlus| {
                (0..20_000)
                    .filter(|_| {
                        let mut game = start;
                        let outcome = if dedicated {
                            game.pruned_playout(rng, |_, _| {})
                        } else {
                            recorded_play_out(&mut game, rng, policy, &mut MovesPlayed::default())
                        };
                        outcome == Outcome::Win(Player::One)
                    })
                    .count() as f64
                    / 20_000.0
            };
            let (ours, loop_) = (black_wins(true, &mut rng), black_wins(false, &mut rng));
            let sigma = (2.0 * loop_ * (1.0 - loop_) / 20_000.0).sqrt();
            assert!((ours - loop_).abs() < 4.5 * sigma, "from {start:?}: {ours} against the loop's {loop_}");
        }
    }

    #[test]
    fn pruning_keeps_the_win_or_the_only_block() {
        let mut game = super::super::Hex::<4>::new();
        game.play_sequence("b1 a1 b2 a2 b3").unwrap();
        // White to move; Black threatens a4 and b4: no single block, every move stays.
        let mut moves = game.legal_moves();
        assert_eq!(game.prune_moves(moves.as_mut()), moves.len());
        game.play_sequence("b4").unwrap();
        // Black to move: a4 wins at once.
        let mut moves = game.legal_moves();
        assert_eq!(game.prune_moves(moves.as_mut()), 1);
        assert_eq!(game.format_move(moves[0]), "a4");
    }
}
