//! Othello (Reversi) on 8x8 bitboards.
//!
//! # Board and moves
//! Square `i` is bit `i` of a `u64`: a1 = 0, b1 = 1, …, h1 = 7, a2 = 8, …, h8 = 63. This
//! is the order of the 64-character board of Edax's OBF format, so character `i` of an
//! OBF board is bit `i`. Black (`X`, [`Player::One`]) moves first from the standard start
//! (d5 and e4 black, d4 and e5 white).
//!
//! A move is its square index (`Move(0)` = a1 … `Move(63)` = h8) or [`PASS`]. A side
//! with no square to play whose opponent can still move has exactly one legal move,
//! [`PASS`]; when neither side can move the game is over, `legal_moves()` is empty and
//! the side with more discs wins (equal counts draw).
//!
//! # Move generation
//! Legal squares come from shift-and-mask floods along the 8 directions (the
//! "dumb7fill" / Kogge–Stone family of fills, see the Chess Programming Wiki; the
//! doubling form is the one of Edax's `get_moves`): runs of opponent discs are grown from
//! the mover's discs, masked off the a- and h-files for horizontal and diagonal
//! directions so that no shift wraps to the next rank. The discs a move flips come from
//! a table of the 8 rays of each square: along each ray the nearest square without an
//! opponent disc is isolated with a bit trick, and the run before it flips when that
//! square holds one of the mover's discs. Nothing allocates, and nothing branches on
//! the board. Playouts also have an AVX2 + BMI2 build of these primitives (flips there
//! come from the same fill as the legal squares, seeded with the placed disc), chosen at
//! run time because the release binary targets baseline x86-64 ([`PlayoutBuild`]).
//!
//! # Text
//! Squares are written `a1`…`h8` (upper case is accepted), the pass `pass` (`pa` is
//! accepted). A transcript may be concatenated (`f5d6c3d3c4`) and may leave forced
//! passes out. [`Game::parse_position`] also reads an OBF board:
//! `64 × X/O/-`, a space, `X` or `O` for the side to move; anything after `;` is ignored.
//!
//! # Examples
//! ```
//! use parmcts::games::othello::{Othello, PASS};
//! use parmcts::games::Game;
//!
//! let game = Othello::parse_position("f5d6c3").unwrap();
//! assert_eq!(game.disc_counts(), (5, 2));
//! assert_eq!(game.format_move(PASS), "pass");
//! assert!(Othello::parse_position("f5 a1").is_err());
//! ```

mod classes;
mod evaluate;
#[cfg(feature = "harness")]
mod gtp;
mod kernels;
mod notation;
mod ntuple;
#[cfg(feature = "encoding")]
mod onnx;
mod playout;
pub mod solver;

#[cfg(test)]
use self::playout::Pick;
pub use self::playout::PlayoutBuild;
use self::playout::Uniform;

use std::fmt;

pub use self::classes::hand_set_gammas;
use self::classes::{class_wheel, learned_roulette, CLASS_SQUARES, HAND_SET_WHEEL, SQUARE_CLASS, WEIGHT_SCALE};
use self::notation::{looks_like_board, parse_obf, square_name};

use rand_core::RngCore;

use self::kernels::{flips, legal_squares, Kernels, Portable};
use super::playout::recorded_play_out;
use super::{
    random_below, try_play_numbered, Game, GameError, Move, MoveList, MovesPlayed, Outcome, Player, PlayoutPolicy,
    Playouts, Tuning,
};

/// The learned Othello gammas shipped with the crate (Othello's default strengths, a
/// [`crate::weights::MoveWeights`] file), trained by `parmcts train-weights --game othello`
/// (the command is in the file's `source`).
pub const DEFAULT_WEIGHTS: &str = include_str!("weights.json");

/// The pass move: the only legal move of a side that has no square to play while its
/// opponent has one.
pub const PASS: Move = Move(64);

/// Black's discs at the start: e4 (bit 28) and d5 (bit 35).
const START_BLACK: u64 = (1 << 28) | (1 << 35);
/// White's discs at the start: d4 (bit 27) and e5 (bit 36).
const START_WHITE: u64 = (1 << 27) | (1 << 36);

/// An Othello position: the discs of the side to move, the discs of its opponent, and
/// who is to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Othello {
    /// Discs of the side to move.
    me: u64,
    /// Discs of the other side; disjoint from `me`.
    opp: u64,
    /// The side to move (owner of `me`).
    to_move: Player,
}

impl Othello {
    /// A position from the two sides' bitboards (bit `i` = square `i`, a1 = bit 0).
    ///
    /// # Errors
    /// [`GameError::BadPosition`] when a square holds both a black and a white disc.
    pub fn from_bitboards(black: u64, white: u64, to_move: Player) -> Result<Self, GameError> {
        if black & white != 0 {
            let sq = (black & white).trailing_zeros() as u16;
            return Err(GameError::BadPosition(format!(
                "square {} holds both a black and a white disc",
                square_name(sq)
            )));
        }
        let (me, opp) = match to_move {
            Player::One => (black, white),
            Player::Two => (white, black),
        };
        Ok(Othello { me, opp, to_move })
    }

    /// Black's discs as a bitboard.
    #[inline]
    pub fn black(&self) -> u64 {
        match self.to_move {
            Player::One => self.me,
            Player::Two => self.opp,
        }
    }

    /// White's discs as a bitboard.
    #[inline]
    pub fn white(&self) -> u64 {
        match self.to_move {
            Player::One => self.opp,
            Player::Two => self.me,
        }
    }

    /// The squares the side to move may play, as a bitboard (0 when it must pass or
    /// the game is over).
    #[inline]
    pub fn legal_mask(&self) -> u64 {
        legal_squares(self.me, self.opp)
    }

    /// Disc counts as `(black, white)`.
    #[inline]
    pub fn disc_counts(&self) -> (u32, u32) {
        (self.black().count_ones(), self.white().count_ones())
    }

    /// The discs that playing square `sq` (0..64) would flip for the side to move
    /// (0 when `sq` is not a legal square).
    #[inline]
    pub fn flips(&self, sq: u32) -> u64 {
        if sq >= 64 || (self.me | self.opp) >> sq & 1 != 0 {
            return 0;
        }
        flips(self.me, self.opp, sq)
    }

    /// The discs of the side to move and of its opponent, `(me, opp)`: the exact
    /// endgame solver ([`crate::solver::othello`]) searches on these.
    #[inline]
    pub(crate) fn sides(&self) -> (u64, u64) {
        (self.me, self.opp)
    }

    /// The position with `me` to move (as Black) and `opp`: the solver's nodes read by
    /// an n-tuple network, whose cells are relative to the side to move.
    #[inline]
    pub(crate) fn from_sides(me: u64, opp: u64) -> Othello {
        Othello { me, opp, to_move: Player::One }
    }

    /// The game's legal-square kernel on raw bitboards: the empty squares where the owner
    /// of `me` outflanks at least one run of `opp` discs (`me` and `opp` disjoint).
    #[inline]
    pub(crate) fn legal_squares_of(me: u64, opp: u64) -> u64 {
        legal_squares(me, opp)
    }

    /// The game's flip kernel on raw bitboards: the `opp` discs flipped when the owner
    /// of `me` plays the empty square `sq` (0..64); 0 when the square flips nothing.
    #[inline]
    pub(crate) fn flips_of(me: u64, opp: u64, sq: u32) -> u64 {
        flips(me, opp, sq)
    }

    /// The position in Edax's OBF notation: 64 characters `X`/`O`/`-` (a1 first), a
    /// space, and `X` or `O` for the side to move. [`Game::parse_position`] reads it back.
    pub fn to_obf(&self) -> String {
        let (black, white) = (self.black(), self.white());
        let mut text: String = (0..64)
            .map(|i| match (black >> i & 1, white >> i & 1) {
                (1, _) => 'X',
                (_, 1) => 'O',
                _ => '-',
            })
            .collect();
        text.push_str(match self.to_move {
            Player::One => " X",
            Player::Two => " O",
        });
        text
    }

    /// True when the side to move has no square to play but the opponent has one.
    #[inline]
    fn must_pass(&self) -> bool {
        self.legal_mask() == 0 && legal_squares(self.opp, self.me) != 0
    }

    /// The winner by disc count, for a finished game.
    #[inline]
    fn count_outcome(&self) -> Outcome {
        let (black, white) = self.disc_counts();
        match black.cmp(&white) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::One),
            std::cmp::Ordering::Less => Outcome::Win(Player::Two),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }
}

/// A 64-bit finaliser (Stafford's "Mix13", as in SplitMix64): a bijection whose output
/// bits each depend on every input bit.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Game for Othello {
    const NAME: &'static str = "othello";

    type Moves = MoveList<64>;

    /// The standard start, Black to move.
    fn new() -> Self {
        Othello { me: START_BLACK, opp: START_WHITE, to_move: Player::One }
    }

    #[inline]
    fn side_to_move(&self) -> Player {
        self.to_move
    }

    /// Two move generations (one when the side to move can play).
    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        if legal_squares(self.me, self.opp) != 0 || legal_squares(self.opp, self.me) != 0 {
            return None;
        }
        Some(self.count_outcome())
    }

    /// Squares in increasing index order; `[PASS]` for a forced pass; empty when over.
    fn legal_moves(&self) -> MoveList<64> {
        let mut moves = MoveList::new();
        let mut mask = self.legal_mask();
        if mask == 0 {
            if legal_squares(self.opp, self.me) != 0 {
                moves.push(PASS);
            }
            return moves;
        }
        while mask != 0 {
            moves.push(Move(mask.trailing_zeros() as u16));
            mask &= mask - 1;
        }
        moves
    }

    /// Plays a square (placing a disc and flipping) or, for [`PASS`] or any index
    /// above 63, hands the move to the opponent.
    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        let sq = u32::from(mv.0);
        if sq < 64 {
            let placed = 1u64 << sq;
            let flipped = flips(self.me, self.opp, sq);
            self.me |= placed | flipped;
            self.opp &= !(placed | flipped);
        }
        std::mem::swap(&mut self.me, &mut self.opp);
        self.to_move = self.to_move.other();
    }

    #[inline]
    fn hash(&self) -> u64 {
        let side = match self.to_move {
            Player::One => 0,
            Player::Two => 0x9E37_79B9_7F4A_7C15,
        };
        mix(mix(self.me ^ side).wrapping_add(self.opp))
    }

    /// `a1`…`h8` in either case, or `pass` / `pa` (any case).
    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        if text.eq_ignore_ascii_case("pass") || text.eq_ignore_ascii_case("pa") {
            return Ok(PASS);
        }
        match text.as_bytes() {
            [file, rank] => {
                let (file, rank) = (file.to_ascii_lowercase(), *rank);
                if (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank) {
                    return Ok(Move(u16::from(rank - b'1') * 8 + u16::from(file - b'a')));
                }
                Err(GameError::BadMove(text.to_string()))
            }
            _ => Err(GameError::BadMove(text.to_string())),
        }
    }

    /// `a1`…`h8`, `pass`; an index above 64 (never legal) is written `#index`.
    fn format_move(&self, mv: Move) -> String {
        match mv.0 {
            64 => "pass".to_string(),
            sq @ 0..64 => square_name(sq),
            other => format!("#{other}"),
        }
    }

    /// Splits a transcript into two-character tokens (`f5d6` → `f5`, `d6`), skipping
    /// whitespace and commas between them and taking the word `pass` whole.
    fn split_moves<'a>(&self, text: &'a str) -> Vec<&'a str> {
        let is_sep = |c: char| c.is_whitespace() || c == ',';
        let mut tokens = Vec::new();
        let mut rest = text;
        loop {
            rest = rest.trim_start_matches(is_sep);
            if rest.is_empty() {
                return tokens;
            }
            let len = if rest.get(..4).is_some_and(|w| w.eq_ignore_ascii_case("pass")) {
                4
            } else {
                // Up to two characters, stopping at a separator (the first is not one).
                rest.char_indices().take(2).take_while(|&(_, c)| !is_sep(c)).fold(0, |_, (i, c)| i + c.len_utf8())
            };
            let (token, tail) = rest.split_at(len);
            tokens.push(token);
            rest = tail;
        }
    }

    /// Like the default, but forced passes may be left out: before a square move, a
    /// position whose only legal move is [`PASS`] is passed automatically.
    fn play_sequence(&mut self, text: &str) -> Result<(), GameError> {
        for (i, token) in self.split_moves(text).into_iter().enumerate() {
            let mv = self.parse_move(token)?;
            if mv != PASS && self.must_pass() {
                self.play_unchecked(PASS);
            }
            try_play_numbered(self, mv, token, i)?;
        }
        Ok(())
    }

    /// A move sequence from the start (forced passes optional; empty = the start), or an
    /// OBF board: 64 × `X`/`O`/`-` (a1…h8), whitespace, `X` or `O`; text after `;` is
    /// ignored.
    fn parse_position(text: &str) -> Result<Self, GameError> {
        let head = text.split(';').next().unwrap_or_default();
        match head.split_whitespace().next() {
            Some(first) if looks_like_board(first) => parse_obf(head),
            _ => {
                let mut game = Self::new();
                game.play_sequence(text)?;
                Ok(game)
            }
        }
    }

    fn render(&self) -> String {
        let (black, white) = (self.black(), self.white());
        let mut out = String::from("  a b c d e f g h\n");
        for rank in 0..8 {
            out.push_str(&format!("{} ", rank + 1));
            for file in 0..8 {
                let sq = rank * 8 + file;
                out.push(match (black >> sq & 1, white >> sq & 1) {
                    (1, _) => 'X',
                    (_, 1) => 'O',
                    _ => '.',
                });
                out.push(' ');
            }
            out.push_str(&format!("{}\n", rank + 1));
        }
        out.push_str("  a b c d e f g h\n");
        let (b, w) = self.disc_counts();
        let status = match (self.outcome(), self.to_move) {
            (Some(Outcome::Win(Player::One)), _) => "game over: Black (X) wins",
            (Some(Outcome::Win(Player::Two)), _) => "game over: White (O) wins",
            (Some(Outcome::Draw), _) => "game over: draw",
            (None, Player::One) => "Black (X) to move",
            (None, Player::Two) => "White (O) to move",
        };
        out.push_str(&format!("{status}; discs X {b}, O {w}\n"));
        out
    }
}

impl Playouts for Othello {
    /// A Bradley-Terry strength per square class (Coulom 2007: a move's strength is its
    /// gamma). The 64 squares fold by the board's symmetries into 10 classes; these gammas
    /// are hand-set from Othello practice (corners best, the X- and C-squares next to an
    /// empty corner worst). A pass is 1.
    #[inline]
    fn action_value(&self, mv: Move) -> f32 {
        SQUARE_CLASS.get(mv.0 as usize).map_or(1.0, |&c| HAND_SET_WHEEL.0[c as usize] as f32 / WEIGHT_SCALE as f32)
    }

    /// The roulette wheel over the legal-move mask directly (no move list), by square
    /// class (`ClassRoulette`): the same distribution as the trait's default.
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.play_out_masks(rng, HAND_SET_WHEEL, |_, _| {})
    }

    fn move_features() -> &'static [&'static str] {
        &["corner", "C-square", "A-square", "B-square", "X-square", "1-2", "1-3", "2-2", "2-3", "3-3"]
    }

    /// The square's symmetry class (the pass has none).
    #[inline]
    fn move_feature(&self, mv: Move) -> Option<usize> {
        SQUARE_CLASS.get(mv.0 as usize).map(|&c| c as usize)
    }

    /// The bitboard roulette wheel over the classes' gammas, as integers.
    fn learned_playout<R: RngCore>(&mut self, rng: &mut R, gammas: &[f32]) -> Outcome {
        self.play_out_masks(rng, learned_roulette(gammas), |_, _| {})
    }

    /// A uniformly random game to the end, on bitboards: one move generation per ply,
    /// the `k`-th legal square chosen with [`random_below`]. It draws exactly the random
    /// numbers the trait's default loop draws (one per ply, a forced pass included) and
    /// numbers squares in the same order, so from the same generator state both play the
    /// same game.
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.play_out_masks(rng, Uniform, |_, _| {})
    }

    /// Lanes interleaved on bitboards (`Othello::play_out_lanes`); pruned playouts go
    /// one at a time through the trait's loop.
    fn playouts<R: RngCore, const N: usize>(
        games: &mut [Self; N],
        rngs: &mut [R; N],
        policy: PlayoutPolicy,
    ) -> [Outcome; N] {
        match (policy.prune, class_wheel(&policy)) {
            (true, _) => std::array::from_fn(|i| policy.play_out(&mut games[i], &mut rngs[i])),
            (false, Some(wheel)) => Othello::lanes_on_fastest(games, rngs, &wheel, |_, _, _| {}),
            (false, None) => Othello::lanes_on_fastest(games, rngs, &Uniform, |_, _, _| {}),
        }
    }

    /// The bitboard loop, recording squares (pruned playouts take the trait's loop).
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        let record = |player, sq: u32| played.insert(player, Move(sq as u16));
        match (policy.prune, class_wheel(&policy)) {
            (true, _) => recorded_play_out(self, rng, policy, played),
            (false, Some(wheel)) => self.play_out_masks(rng, wheel, record),
            (false, None) => self.play_out_masks(rng, Uniform, record),
        }
    }
}

impl Tuning for Othello {
    /// Measured with the default playouts at 20 ms per move (docs/RESULTS.md): the
    /// literature's 0.85 is +113 Elo [+79, +148] over sqrt(2), and 0.5 +79 [+46, +112]
    /// over 0.85 (0.3 is no better than 0.5); 0.5 against sqrt(2) directly +186 [+149, +224].
    const EXPLORATION: f64 = 0.5;

    /// Measured against the defaults at 5,000 playouts a move, 100 games each
    /// (docs/results/enhancements.md, "PUCT"): c_puct 0.5, 1, 2 and 4 scored 0.410, 0.390,
    /// 0.175 and 0.095.
    const PUCT_EXPLORATION: f32 = 0.5;

    /// Gammas fitted to alpha-beta's moves, at temperature 0.5: +40 Elo [+7, +74] over
    /// the hand-set action values in biased playouts (400 games, `docs/RESULTS.md`).
    const SHIPPED_WEIGHTS: Option<&'static str> = Some(DEFAULT_WEIGHTS);

    /// Two playouts in flight per search worker: 1.62x the pure playout rate and
    /// 1.4-1.6x the sequential search's; +20 Elo [+3, +37] over one lane at 20 ms per
    /// move (1,600 games; `docs/RESULTS.md`).
    const PLAYOUT_LANES: usize = 2;

    /// With the shipped network at the leaves, at equal playouts (100 games each,
    /// `docs/RESULTS.md`): 0.3 is +96 Elo over 0.5 at 4,000 and +85 at 32,000; 0.15 beats
    /// 0.3 at 4,000 (+67) but loses at 16,000 (-78); 0.2 and 0.3 are level at 32,000.
    const EVAL_EXPLORATION: f64 = 0.3;

    /// The shipped n-tuple network at the leaves, in place of the playouts: +688 Elo
    /// [+566, +806] over the playouts alone at 20 ms per move (400 games, paired
    /// openings; `docs/RESULTS.md`).
    const LEAF_EVALUATION: bool = true;

    /// Implicit minimax backups of the network's values, α = 0.6: +196 Elo [+146, +243]
    /// over the mean alone at 20 ms per move (200 games); at 5,000 playouts a move α =
    /// 0.3, 0.6, 0.8 and 1 score 0.81, 0.90, 0.89 and 0.92, and 1 against 0.6 at 20 ms
    /// 0.475 [0.41, 0.54] (`docs/RESULTS.md`).
    const IMPLICIT_MINIMAX: f32 = 0.6;
}

impl fmt::Debug for Othello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Othello({})", self.to_obf())
    }
}

#[cfg(test)]
mod tests;
