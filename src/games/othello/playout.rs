//! Othello's bitboard playouts: the kernel build ([`PlayoutBuild`]), the square pickers
//! (uniform, class roulette) and the playout loops over legal-square masks.

use super::*;

/// A build of the playout primitives (`kernels`): playouts use the fastest one the CPU
/// runs; benchmarks and tests can ask for either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayoutBuild {
    /// Plain Rust for baseline x86-64 or any other target.
    Portable,
    /// AVX2, BMI1/2, POPCNT and LZCNT (x86-64), picked at run time.
    Avx2,
}

impl PlayoutBuild {
    /// The build playouts use on this CPU.
    pub fn detect() -> PlayoutBuild {
        #[cfg(target_arch = "x86_64")]
        if kernels::Avx2::detect().is_some() {
            return PlayoutBuild::Avx2;
        }
        PlayoutBuild::Portable
    }

    /// `"avx2+bmi2"` or `"portable"` (benchmarks print it, so that figures from
    /// different machines can be compared).
    pub fn name(self) -> &'static str {
        match self {
            PlayoutBuild::Portable => "portable",
            PlayoutBuild::Avx2 => "avx2+bmi2",
        }
    }
}

impl Othello {
    /// [`Playouts::random_playout`] on the given build (the same game from the same
    /// generator state on either); `None` when this CPU cannot run `build`.
    pub fn random_playout_on<R: RngCore>(&mut self, build: PlayoutBuild, rng: &mut R) -> Option<Outcome> {
        match build {
            PlayoutBuild::Portable => Some(Portable.run(|k| self.random_playout_with(k, rng))),
            #[cfg(target_arch = "x86_64")]
            PlayoutBuild::Avx2 => kernels::Avx2::detect().map(|k| k.run(|k| self.random_playout_with(k, rng))),
            #[cfg(not(target_arch = "x86_64"))]
            PlayoutBuild::Avx2 => None,
        }
    }
}

/// How a bitboard playout chooses its square from the (non-empty) legal-square mask.
pub(super) trait Pick {
    /// The chosen square.
    fn pick<K: Kernels, R: RngCore>(&self, kernels: K, mask: u64, rng: &mut R) -> u64;
}

/// Every legal square equally likely.
pub(super) struct Uniform;

impl Pick for Uniform {
    #[inline(always)]
    fn pick<K: Kernels, R: RngCore>(&self, kernels: K, mask: u64, rng: &mut R) -> u64 {
        kernels.random_square(mask, rng)
    }
}

/// The roulette wheel over integer weights per square class (every class weight at
/// least 1): `p(square) = w(class) / Σ w` over the legal squares. Branch-free, so that
/// interleaved lanes keep overlapping: the legal squares of each class are counted (10
/// popcounts), one number drawn over the weighted total picks the class (the number of
/// classes whose running total is at most it), and a second one a square of that class
/// uniformly. (A scan of the legal squares with a data-dependent exit mispredicted
/// about once a ply.)
pub(super) struct ClassRoulette(pub(super) [u32; 10]);

impl Pick for ClassRoulette {
    #[inline(always)]
    fn pick<K: Kernels, R: RngCore>(&self, kernels: K, mask: u64, rng: &mut R) -> u64 {
        let mut running = [0u32; 10];
        let mut total = 0;
        for class in 0..10 {
            total += (mask & CLASS_SQUARES[class]).count_ones() * self.0[class];
            running[class] = total;
        }
        let x = random_below(rng, total);
        let class = running.iter().map(|&t| usize::from(t <= x)).sum::<usize>();
        kernels.random_square(mask & CLASS_SQUARES[class.min(9)], rng)
    }
}

impl Othello {
    /// One playout on bitboards with the fastest [`Kernels`] this CPU runs (one lane of
    /// [`Othello::lanes_on_fastest`]): `pick` chooses each square, `on_move` hears each
    /// (player, square).
    #[inline(always)]
    pub(super) fn play_out_masks<R: RngCore>(
        &mut self,
        rng: &mut R,
        pick: impl Pick,
        mut on_move: impl FnMut(Player, u32),
    ) -> Outcome {
        let [outcome] =
            Othello::lanes_on_fastest(std::array::from_mut(self), std::array::from_mut(rng), &pick, |_, side, sq| {
                on_move(side, sq)
            });
        outcome
    }

    /// [`Othello::play_out_lanes`] with the fastest [`Kernels`] this CPU runs.
    #[inline(always)]
    pub(super) fn lanes_on_fastest<const N: usize, R: RngCore>(
        games: &mut [Othello; N],
        rngs: &mut [R; N],
        pick: &impl Pick,
        on_move: impl FnMut(usize, Player, u32),
    ) -> [Outcome; N] {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = kernels::Avx2::detect() {
            return avx2.run(|k| Othello::play_out_lanes(games, k, rngs, pick, on_move));
        }
        Portable.run(|k| Othello::play_out_lanes(games, k, rngs, pick, on_move))
    }

    /// One uniform playout with the given kernels (one lane of
    /// [`Othello::play_out_lanes`]).
    #[inline(always)]
    pub(super) fn random_playout_with<K: Kernels, R: RngCore>(&mut self, kernels: K, rng: &mut R) -> Outcome {
        let [outcome] = Othello::play_out_lanes(
            std::array::from_mut(self),
            kernels,
            std::array::from_mut(rng),
            &Uniform,
            |_, _, _| {},
        );
        outcome
    }

    /// The bitboard playout loop: `N` games, lane `i` playing `games[i]` to the end with
    /// `rngs[i]`, one ply of each lane per turn of the loop. A ply waits for the last
    /// (generate, pick, flip, generate, …: about 77 cycles at an IPC of 1.5 on Zen 3), so
    /// a lone game leaves most of the core idle; the plies of different lanes are
    /// independent, and the out-of-order core overlaps them (2 lanes: 1.62x the playouts
    /// per second). Each lane draws from its own generator exactly what a lone game
    /// draws, so it plays the same game. `on_move` hears each (lane, player, square).
    #[inline(always)]
    pub(super) fn play_out_lanes<const N: usize, K: Kernels, R: RngCore>(
        games: &mut [Othello; N],
        kernels: K,
        rngs: &mut [R; N],
        pick: &impl Pick,
        mut on_move: impl FnMut(usize, Player, u32),
    ) -> [Outcome; N] {
        // Plain arrays of bitboards in the loop (not `games`), so the lanes stay in
        // registers; a lane is finished when neither side has a square (`done`).
        let (mut me, mut opp): ([u64; N], [u64; N]) = (games.map(|g| g.me), games.map(|g| g.opp));
        let mut side: [Player; N] = games.map(|g| g.to_move);
        let mut masks: [u64; N] = std::array::from_fn(|i| kernels.legal_squares(me[i], opp[i]));
        let mut done = [false; N];
        let mut running = N;
        while running > 0 {
            for i in 0..N {
                if masks[i] != 0 {
                    let placed = pick.pick(kernels, masks[i], &mut rngs[i]);
                    on_move(i, side[i], placed.trailing_zeros());
                    (me[i], opp[i], masks[i]) = kernels.play(me[i], opp[i], placed);
                    side[i] = side[i].other();
                } else if !done[i] {
                    let reply = kernels.legal_squares(opp[i], me[i]);
                    if reply == 0 {
                        done[i] = true;
                        running -= 1;
                    } else {
                        // Forced pass: the default loop draws `random_below(rng, 1)` here.
                        rngs[i].next_u32();
                        (me[i], opp[i], masks[i]) = (opp[i], me[i], reply);
                        side[i] = side[i].other();
                    }
                }
            }
        }
        for i in 0..N {
            games[i] = Othello { me: me[i], opp: opp[i], to_move: side[i] };
        }
        std::array::from_fn(|i| games[i].count_outcome())
    }
}
