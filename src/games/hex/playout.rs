//! Hex's playouts: fill the board at random and flood-fill it once.
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

use super::cells::{Cells, Geometry};
use super::Hex;
use crate::games::playout::recorded_play_out;
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
        if self.swap_available() {
            // The one position with a move that is no cell: draw it like any other.
            let moves = self.legal_moves();
            let mv = moves[random_below(rng, moves.len() as u32) as usize];
            on_fill(self.to_move, mv);
            self.play_unchecked(mv);
        }
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
    /// it); with pruning, the trait's move-by-move loop over [`Playouts::prune_moves`].
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        if policy.prune {
            recorded_play_out(self, rng, policy, played)
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
