//! Go's heavy playouts: MoGo's playout policy (Gelly, Wang, Munos & Teytaud 2006,
//! "Modification of UCT with patterns in Monte-Carlo Go"), as Pachi's and michi's
//! playouts keep it. Around the last move, in order:
//!
//! 1. **Ataris** (with probability [`CAPTURE_PROBABILITY`]): capture a chain next to the
//!    last move (or the last move's own) that has one liberty left, or save one of ours
//!    that the last move put in atari by extending on its liberty;
//! 2. **3x3 patterns** (with probability [`PATTERN_PROBABILITY`]): play one of the eight
//!    points around the last move whose neighbourhood matches one of MoGo's shapes
//!    (hane, cut, the side patterns: [`PATTERNS`]);
//! 3. otherwise the light playout's move ([`Go::playout_move`]).
//!
//! Suggested moves that would leave the mover's own chain in atari are refused (with
//! probability [`SELF_ATARI_REFUSAL`]), as michi does. A suggestion must be legal and not
//! fill the mover's own eye, like every light move.

use std::sync::OnceLock;

use rand_core::RngCore;

use super::board::{is_stone, opponent, Board, BORDER, EMPTY, NO_POINT};
use super::{Go, Move};
use crate::games::{random_below, random_unit};

/// Chance of following the atari rule when it applies (michi's `PROB_HEURISTIC['capture']`).
pub const CAPTURE_PROBABILITY: f32 = 0.9;
/// Chance of following the pattern rule when it applies (michi's `PROB_HEURISTIC['pat3']`).
pub const PATTERN_PROBABILITY: f32 = 0.95;
/// Chance of refusing a suggested move that puts the mover in atari (michi's
/// `PROB_SSAREJECT`).
pub const SELF_ATARI_REFUSAL: f32 = 0.9;

/// MoGo's 3x3 shapes, as Pachi's `moggy` and michi list them. The centre is the empty
/// point to play; `X` and `O` are the two colours (either way round: a shape is good for
/// both sides), `.` empty, `x` not `X`, `o` not `O` (edge included), `#` off the board,
/// `?` anything. Every rotation and reflection matches.
pub const PATTERNS: [[&str; 3]; 13] = [
    ["XOX", "...", "???"], // hane: enclosing hane
    ["XO.", "...", "?.?"], // hane: non-cutting hane
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // katatsuke or diagonal attachment
    ["XO?", "O.o", "?o?"], // cut: unprotected cut
    ["XO?", "O.X", "???"], // cut: peeped cut
    ["?X?", "O.O", "ooo"], // cut 2 (de)
    ["OX?", "o.O", "???"], // cut keima
    ["X.?", "O.?", "##?"], // side: chase
    ["OX?", "X.O", "###"], // side: block side cut
    ["?X?", "x.O", "###"], // side: block side connection
    ["?XO", "x.x", "###"], // side: sagari
    ["?OX", "X.O", "###"], // side: cut
];

/// Whether each 16-bit neighbourhood code ([`Board::neighbourhood`]) matches a pattern:
/// one bit per code, built once by expanding every pattern in its 8 symmetries and 2
/// colourings.
pub(super) fn pattern_table() -> &'static [u64; 1024] {
    static TABLE: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([0u64; 1024]);
        for pattern in &PATTERNS {
            for symmetry in 0..8 {
                for (x, o) in [(super::BLACK, super::WHITE), (super::WHITE, super::BLACK)] {
                    // The colours each neighbour may hold, as a bit set over 0..4.
                    let mut allowed = [0u8; 8];
                    for (i, allowed) in allowed.iter_mut().enumerate() {
                        let (row, col) = source_of(i, symmetry);
                        let bit = |c: u8| 1u8 << c;
                        *allowed = match pattern[row].as_bytes()[col] {
                            b'X' => bit(x),
                            b'O' => bit(o),
                            b'.' => bit(EMPTY),
                            b'x' => 0b1111 & !bit(x),
                            b'o' => 0b1111 & !bit(o),
                            b'#' => bit(BORDER),
                            _ => 0b1111,
                        };
                    }
                    expand(&allowed, 0, 0, &mut table);
                }
            }
        }
        table
    })
}

/// The pattern cell (row, column) that neighbour `i` (in [`Board::AROUND`]'s order) reads
/// under `symmetry` (bit 2: transpose; bits 0 and 1: flip rows, columns).
pub(super) fn source_of(i: usize, symmetry: usize) -> (usize, usize) {
    let index = if i < 4 { i } else { i + 1 }; // skip the centre
    let (mut dr, mut dc) = ((index / 3) as isize - 1, (index % 3) as isize - 1);
    if symmetry & 4 != 0 {
        (dr, dc) = (dc, dr);
    }
    if symmetry & 1 != 0 {
        dr = -dr;
    }
    if symmetry & 2 != 0 {
        dc = -dc;
    }
    ((dr + 1) as usize, (dc + 1) as usize)
}

/// Sets the bits of every code whose neighbours `i..` take allowed colours.
fn expand(allowed: &[u8; 8], i: usize, code: u16, table: &mut [u64; 1024]) {
    if i == 8 {
        table[usize::from(code >> 6)] |= 1 << (code & 63);
        return;
    }
    for colour in 0..4u8 {
        if allowed[i] & (1 << colour) != 0 {
            expand(allowed, i + 1, code | u16::from(colour) << (2 * i), table);
        }
    }
}

/// Whether the neighbourhood `code` matches one of [`PATTERNS`].
#[inline]
pub(super) fn matches(table: &[u64; 1024], code: u16) -> bool {
    table[usize::from(code >> 6)] >> (code & 63) & 1 != 0
}

/// `true` with probability `p`.
#[inline]
fn chance<R: RngCore>(rng: &mut R, p: f32) -> bool {
    random_unit(rng) < p
}

/// Move strengths for progressive bias ([`Go::move_strength`]): the same knowledge as
/// the heavy playout, as priors in the tree (MoGo and Fuego seed their trees' values from
/// it; Chaslot et al. 2008 weigh moves by it). A capture of a chain in atari.
pub const CAPTURE_STRENGTH: f32 = 8.0;
/// Saving our chain in atari by extending it to two liberties or more.
pub const ESCAPE_STRENGTH: f32 = 4.0;
/// A point whose neighbourhood is one of MoGo's shapes ([`PATTERNS`]).
pub const PATTERN_STRENGTH: f32 = 3.0;
/// A move that leaves the mover's chain in atari (and captures nothing).
pub const SELF_ATARI_STRENGTH: f32 = 0.1;
/// Filling the mover's own one-point eye, and the pass.
pub const EYE_OR_PASS_STRENGTH: f32 = 0.02;
/// A point on the first line with no stone within two points (an empty edge).
pub const EMPTY_EDGE_STRENGTH: f32 = 0.5;

/// A move's tactical class ([`Go::tactic`]): the first feature group of the learned
/// strengths (`super::patterns`), in [`super::patterns::TACTICS`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tactic {
    /// None of the others.
    Plain = 0,
    /// Captures a chain in atari.
    Capture = 1,
    /// Saves the mover's chain in atari (and is no self-atari).
    Escape = 2,
    /// Leaves the mover's chain in atari and captures nothing.
    SelfAtari = 3,
}

/// Up to 16 suggested cells.
struct Suggestions {
    cells: [u16; 16],
    len: usize,
}

impl Suggestions {
    fn new() -> Self {
        Suggestions { cells: [0; 16], len: 0 }
    }

    fn push(&mut self, cell: usize) {
        if self.len < self.cells.len() {
            self.cells[self.len] = cell as u16;
            self.len += 1;
        }
    }
}

impl<const N: usize> Go<N> {
    /// How strong the legal move `mv` looks to the heavy playout's knowledge, 1 for a
    /// plain move: the product of the strengths above that apply (captures, escapes,
    /// shapes, self-ataris, eyes, empty edges).
    pub fn move_strength(&self, mv: Move) -> f32 {
        if mv == Self::PASS {
            return EYE_OR_PASS_STRENGTH;
        }
        let cell = Board::<N>::cell(usize::from(mv.0));
        if self.board.is_eye(cell, self.color()) {
            return EYE_OR_PASS_STRENGTH;
        }
        let tactic = self.tactic(cell);
        let mut strength = match tactic {
            Tactic::Capture => CAPTURE_STRENGTH,
            Tactic::SelfAtari => return SELF_ATARI_STRENGTH,
            Tactic::Escape => ESCAPE_STRENGTH,
            Tactic::Plain => 1.0,
        };
        if matches(pattern_table(), self.board.neighbourhood(cell)) {
            strength *= PATTERN_STRENGTH;
        }
        if tactic != Tactic::Capture && self.board.on_empty_edge(cell) {
            strength *= EMPTY_EDGE_STRENGTH;
        }
        strength
    }

    /// What a stone of the side to move on the empty `cell` does to the chains in atari
    /// around it, or to itself: the first of capture, self-atari, escape that applies.
    pub(super) fn tactic(&self, cell: usize) -> Tactic {
        let color = self.color();
        let (mut captures, mut escapes) = (false, false);
        for n in Board::<N>::neighbours(cell) {
            let stone = self.board.color[n];
            if is_stone(stone) && self.board.atari_liberty(n) == Some(cell) {
                if stone == color {
                    escapes = true;
                } else {
                    captures = true;
                }
            }
        }
        if captures {
            Tactic::Capture
        } else if self.is_self_atari(cell) {
            Tactic::SelfAtari
        } else if escapes {
            Tactic::Escape
        } else {
            Tactic::Plain
        }
    }

    /// The heavy playout's move here, `last` being the cell of the last move
    /// ([`NO_POINT`] after a pass or at the playout's start): see the module doc.
    #[cfg(test)]
    pub(super) fn heavy_move<R: RngCore>(&mut self, rng: &mut R, last: u16) -> Move {
        Self::move_of(self.heavy_cell(rng, last))
    }

    /// `Go::heavy_move` (the tests' form) as a cell ([`NO_POINT`]: the pass), for the playout loop.
    #[inline(always)]
    pub(super) fn heavy_cell<R: RngCore>(&mut self, rng: &mut R, last: u16) -> usize {
        if last != NO_POINT {
            let last = usize::from(last);
            if chance(rng, CAPTURE_PROBABILITY) {
                let suggested = self.atari_moves(last);
                if let Some(mv) = self.pick(rng, suggested) {
                    return mv;
                }
            }
            if chance(rng, PATTERN_PROBABILITY) {
                let table = pattern_table();
                let mut suggested = Suggestions::new();
                for offset in Board::<N>::AROUND {
                    let cell = last.wrapping_add_signed(offset);
                    if self.board.color[cell] == EMPTY && matches(table, self.board.neighbourhood(cell)) {
                        suggested.push(cell);
                    }
                }
                if let Some(mv) = self.pick(rng, suggested) {
                    return mv;
                }
            }
        }
        self.playout_cell(rng)
    }

    /// The liberties of the chains in atari on and next to `last`: captures of the
    /// opponent's, and extensions of ours that gain liberties.
    fn atari_moves(&self, last: usize) -> Suggestions {
        let color = self.color();
        let mut suggested = Suggestions::new();
        let mut seen = [usize::MAX; 5];
        for (i, cell) in std::iter::once(last).chain(Board::<N>::neighbours(last)).enumerate() {
            let stone = self.board.color[cell];
            if !is_stone(stone) {
                continue;
            }
            // Each chain once (the last stone's chain often touches it several times).
            let chain = self.board.chain(cell);
            if seen[..i].contains(&chain) {
                continue;
            }
            seen[i] = chain;
            if let Some(liberty) = self.board.atari_liberty(cell) {
                if stone != color || self.board.empty_neighbours(liberty) >= 2 {
                    suggested.push(liberty);
                }
            }
        }
        suggested
    }

    /// A random one of `suggested` (empty points) that is legal and not the mover's own
    /// eye ([`Board::is_playable`]) and (mostly) not a self-atari; `None` when there is none.
    fn pick<R: RngCore>(&self, rng: &mut R, mut suggested: Suggestions) -> Option<usize> {
        let color = self.color();
        while suggested.len > 0 {
            let i = random_below(rng, suggested.len as u32) as usize;
            let cell = usize::from(suggested.cells[i]);
            suggested.len -= 1;
            suggested.cells[i] = suggested.cells[suggested.len];
            if self.board.is_playable(cell, color, self.ko)
                && !(self.is_self_atari(cell) && chance(rng, SELF_ATARI_REFUSAL))
            {
                return Some(cell);
            }
        }
        None
    }

    /// Whether the side to move's stone on the empty `cell` would be in atari: it
    /// captures nothing and its chain would have at most one liberty.
    pub(super) fn is_self_atari(&self, cell: usize) -> bool {
        let color = self.color();
        // Two empty neighbours are two liberties: the common case, with no walk.
        if self.board.empty_neighbours(cell) >= 2 {
            return false;
        }
        let around = Board::<N>::neighbours(cell);
        let mut liberty = None;
        let mut note = |n: usize| -> bool {
            // Whether a second liberty has turned up.
            match liberty {
                None => {
                    liberty = Some(n);
                    false
                }
                Some(l) => l != n,
            }
        };
        for n in around {
            match self.board.color[n] {
                EMPTY if note(n) => return false,
                // Our chain's liberties other than `cell` become the stone's.
                stone if stone == color && self.board.any_liberty(n, |l| l != cell && note(l)) => return false,
                // Taking an opponent's chain's last liberty captures it.
                stone if stone == opponent(color) && self.board.atari_liberty(n) == Some(cell) => return false,
                _ => {}
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::go::{Go9, Superko};
    use crate::games::{Game, Player};
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn at(game: &Go9, vertex: &str) -> Move {
        game.parse_move(vertex).unwrap()
    }

    /// How often in 1,000 draws the heavy move after `last` is `expected`.
    fn share(game: &Go9, last: &str, expected: &str) -> usize {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let last = Board::<9>::cell(usize::from(at(game, last).0)) as u16;
        let expected = at(game, expected);
        (0..1000).filter(|_| game.clone().heavy_move(&mut rng, last) == expected).count()
    }

    #[test]
    fn ataris_are_captured_and_escaped() {
        // White's E5 among black D5, F5, E6 has one liberty, E4: Black captures.
        let mut game = Go9::new();
        for (player, vertex) in [(Player::One, "D5"), (Player::One, "F5"), (Player::One, "E6"), (Player::Two, "E5")] {
            let mv = at(&game, vertex);
            game.play_as(player, mv).unwrap();
        }
        assert_eq!(game.side_to_move(), Player::One);
        let captures = share(&game, "E5", "E4");
        assert!(captures > 850, "{captures}");
        // Black's E6 put White's E5 in atari: White extends to E4 (three empty neighbours).
        let mut game = Go9::new();
        for (player, vertex) in [(Player::One, "D5"), (Player::One, "F5"), (Player::Two, "E5"), (Player::One, "E6")] {
            let mv = at(&game, vertex);
            game.play_as(player, mv).unwrap();
        }
        assert_eq!(game.side_to_move(), Player::Two);
        let escapes = share(&game, "E6", "E4");
        assert!(escapes > 850, "{escapes}");
    }

    /// `is_self_atari` against playing the move: a legal stone that captures nothing and
    /// whose chain is then left with one liberty, on every legal point of random games.
    #[test]
    fn self_atari_is_what_playing_the_move_shows() {
        let mut self_ataris = 0;
        crate::games::go::for_each_playout_position(9, 30, u32::MAX, |game| {
            let color = game.color();
            for point in 0..81 {
                let cell = Board::<9>::cell(point);
                if !game.board.is_legal(cell, color, game.ko) {
                    continue;
                }
                let mut after = game.board.clone();
                let placed = after.place(cell, color);
                let expected = placed.captured == 0 && after.atari_liberty(cell).is_some();
                assert_eq!(game.is_self_atari(cell), expected, "{}\n{}", point, game.render());
                self_ataris += usize::from(expected);
            }
        });
        assert!(self_ataris > 1_000, "{self_ataris} self-ataris seen");
    }

    #[test]
    fn heavy_playouts_play_legal_moves_to_the_end() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..200 {
            let mut game = Go9::new();
            game.set_superko(Superko::SimpleKo);
            let mut last = NO_POINT;
            while game.outcome().is_none() {
                let mv = game.heavy_move(&mut rng, last);
                assert!(game.is_legal(mv), "{}\n{}", game.format_move(mv), game.render());
                let color = game.color();
                let eye = mv != Go9::PASS && game.board.is_eye(Board::<9>::cell(usize::from(mv.0)), color);
                assert!(!eye, "{} fills an own eye", game.format_move(mv));
                last = if mv == Go9::PASS { NO_POINT } else { Board::<9>::cell(usize::from(mv.0)) as u16 };
                game.play_unchecked(mv);
            }
        }
    }

    #[test]
    fn patterns_match_in_every_symmetry_and_colouring() {
        let table = pattern_table();
        // The empty neighbourhood matches nothing; every pattern matches itself.
        assert!(!matches(table, 0));
        let codes = (0..=u16::MAX).filter(|&c| matches(table, c)).count();
        assert!(codes > 1000 && codes < 20_000, "{codes} matching codes");
        // Enclosing hane "XOX / ... / ???" with X black, O white, bottom row empty: its
        // rotations and colour swap match too.
        let code = |cells: [u8; 8]| cells.iter().enumerate().fold(0u16, |c, (i, &v)| c | u16::from(v) << (2 * i));
        let (b, w, e) = (super::super::BLACK, super::super::WHITE, EMPTY);
        assert!(matches(table, code([b, w, b, e, e, e, e, e])));
        assert!(matches(table, code([e, e, e, e, e, b, w, b])));
        assert!(matches(table, code([w, b, w, e, e, e, e, e])));
        assert!(matches(table, code([b, e, e, w, e, b, e, e])));
        // A lone stone diagonal to the point is no shape.
        assert!(!matches(table, code([b, e, e, e, e, e, e, e])));
    }

    #[test]
    fn source_cells_are_a_permutation_without_the_centre() {
        for symmetry in 0..8 {
            let mut seen: Vec<(usize, usize)> = (0..8).map(|i| source_of(i, symmetry)).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 8);
            assert!(!seen.contains(&(1, 1)));
        }
    }
}
