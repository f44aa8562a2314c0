//! The game of Hex on an `N`x`N` rhombus ([`Hex11`], the default, and [`Hex9`],
//! [`Hex13`], [`Hex19`]; any `N` from 1 to 19 through [`Hex<N>`]), with an optional swap
//! rule.
//!
//! # Rules and conventions
//! * Players alternately colour one empty cell. Player One ([`Player::One`], Black,
//!   shown `X`) moves first and wins by joining the top and bottom rows (rows `1` and
//!   `N`) with a chain of adjacent black cells; Player Two (White, `O`) joins the left
//!   and right columns (`a` and the `N`-th letter). These are HexGui's conventions
//!   (`hexgui/gui/BoardDrawerBase.java`: "by default, black connects top and bottom
//!   [...] White connects left and right").
//! * There are no draws and no passes: a full board always holds exactly one winning
//!   chain, and the game ends as soon as one exists.
//! * Swap rule (pie rule), off by default ([`Hex::with_swap_rule`]): as the second
//!   player's first move, White may instead take Black's stone over: it is replaced by a
//!   white stone on the cell mirrored in the long diagonal `a1`-`k11` (`(row, col)`
//!   becomes `(col, row)`, so it serves White's edges as it served Black's), and Black
//!   moves next: the `swap-pieces` move of HexGui. From the command line a position text that
//!   starts with the word `swap-rule` turns it on ([`Game::parse_position`]); over GTP
//!   the command `hex-swap-rule on` does.
//!
//! # Moves and notation
//! Cell `(row, col)` (0-based, row 0 at the top) is `Move(row * N + col)`; the swap is
//! `Move(N * N)` ([`Hex::SWAP`]). The text is HexGui's (`hexgui/hex/HexPoint.java`: the
//! letter `'a' + x`, then `y + 1`): a column letter `a`, `b`, ... (contiguous, `i`
//! included; `a`-`k` on 11x11), then the row `1..N` from the top (`f6`, input
//! case-insensitive), and `swap-pieces` (or `swap`, which HexGui also reads) for the
//! swap.
//!
//! # Representation and speed
//! Each player's cells are a bitboard ([`cells::Cells`]); wins are found by hexagonal
//! dilation (flood fill) on those bitboards: after each move, from the stone just played
//! through its chain ([`Game::play_unchecked`]), and in a playout once, on the filled
//! board (`playout.rs`). The position is 104 bytes and `Copy`.
//!
//! # Examples
//! ```
//! use parmcts::games::hex::Hex;
//! use parmcts::{Game, Outcome, Player};
//!
//! // 3x3: Black's column b (b1, b2, b3) joins top and bottom.
//! let mut game = Hex::<3>::new();
//! game.play_sequence("b1 a1 b2 a2").unwrap();
//! assert_eq!(game.stone_at(game.parse_move("a2").unwrap()), Some(Player::Two));
//! game.play_sequence("b3").unwrap();
//! assert_eq!(game.outcome(), Some(Outcome::Win(Player::One)));
//! assert!(game.parse_move("d1").is_err());
//! ```

pub mod cells;
#[cfg(feature = "harness")]
mod gtp;
#[cfg(feature = "encoding")]
mod onnx;
mod playout;

use std::fmt;

use self::cells::{Cells, Geometry, MAX_CELLS};
use super::evaluate::{Evaluate, EVAL_LIMIT};
use super::{Game, GameError, Move, MoveList, Outcome, Player, Tuning};

pub use self::cells::MAX_SIDE;

/// Hex on 9x9 (`hex9`).
pub type Hex9 = Hex<9>;
/// Hex on 11x11 (`hex`), the usual tournament size.
pub type Hex11 = Hex<11>;
/// Hex on 13x13 (`hex13`).
pub type Hex13 = Hex<13>;
/// Hex on 19x19 (`hex19`).
pub type Hex19 = Hex<19>;

/// SplitMix64 (Steele, Lea & Flood 2014): the Zobrist keys' generator.
const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE5_E4B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `ZOBRIST[p][cell]`: the key of player `p`'s stone on `cell`.
static ZOBRIST: [[u64; MAX_CELLS]; 2] = {
    let mut keys = [[0u64; MAX_CELLS]; 2];
    let mut p = 0;
    while p < 2 {
        let mut c = 0;
        while c < MAX_CELLS {
            keys[p][c] = splitmix(((p * MAX_CELLS + c) as u64 + 0x4E58).wrapping_mul(0x2545_F491_4F6C_DD1D));
            c += 1;
        }
        p += 1;
    }
    keys
};

/// Hash keys of the side to move (White) and of a swap still available.
const WHITE_TO_MOVE_KEY: u64 = 0x3C6E_F372_FE94_F82B;
const SWAP_AVAILABLE_KEY: u64 = 0xA54F_F53A_5F1D_36F1;

/// A Hex position on an `N`x`N` board (1 ≤ `N` ≤ 19): see the module doc.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Hex<const N: usize> {
    /// Each player's cells, by [`Player::index`].
    stones: [Cells; 2],
    to_move: Player,
    /// Plies played (the swap counts as one).
    plies: u16,
    /// Whether the swap rule is on.
    swap_rule: bool,
    /// The player whose chain joins their edges, once one does.
    winner: Option<Player>,
}

impl<const N: usize> Hex<N> {
    /// The swap move, `Move(N * N)`: legal only as White's first move under the swap rule.
    pub const SWAP: Move = Move((N * N) as u16);

    const VALID_SIZE: () = assert!(N >= 1 && N <= MAX_SIDE, "Hex boards are 1x1 to 19x19");

    /// The empty board without the swap rule (same as [`Game::new`]).
    pub fn empty() -> Self {
        let () = Self::VALID_SIZE;
        Hex { stones: [Cells::EMPTY; 2], to_move: Player::One, plies: 0, swap_rule: false, winner: None }
    }

    /// The empty board with the swap rule: White's first move may be [`Hex::SWAP`].
    ///
    /// ```
    /// use parmcts::games::hex::Hex11;
    /// use parmcts::{Game, Player};
    ///
    /// let mut game = Hex11::with_swap_rule();
    /// game.play_sequence("b3 swap-pieces").unwrap();
    /// // Black's b3 became White's c2; Black moves again.
    /// assert_eq!(game.stone_at(game.parse_move("c2").unwrap()), Some(Player::Two));
    /// assert_eq!(game.stone_at(game.parse_move("b3").unwrap()), None);
    /// assert_eq!(game.side_to_move(), Player::One);
    /// assert!(Hex11::new().play_sequence("b3 swap").is_err());
    /// ```
    pub fn with_swap_rule() -> Self {
        Hex { swap_rule: true, ..Self::empty() }
    }

    /// Turns the swap rule on or off for the rest of this game (it matters only while
    /// [`Hex::swap_available`] could hold: right after the first move).
    pub fn set_swap_rule(&mut self, on: bool) {
        self.swap_rule = on;
    }

    /// Whether the swap rule is on.
    pub fn swap_rule(&self) -> bool {
        self.swap_rule
    }

    /// Whether the side to move may play [`Hex::SWAP`] now: the rule is on and exactly
    /// one move has been played.
    #[inline]
    pub fn swap_available(&self) -> bool {
        self.swap_rule && self.plies == 1 && self.winner.is_none()
    }

    /// Plies played so far (the swap counts as one).
    pub fn plies(&self) -> u32 {
        u32::from(self.plies)
    }

    /// Who holds cell `mv` (`None` for an empty cell, or a move that is no cell).
    pub fn stone_at(&self, mv: Move) -> Option<Player> {
        let cell = mv.0 as usize;
        if cell >= N * N {
            return None;
        }
        [Player::One, Player::Two].into_iter().find(|p| self.stones[p.index()].contains(cell))
    }

    /// The empty cells.
    #[inline]
    pub fn empty_cells(&self) -> Cells {
        Geometry::<N>::and_not(&Geometry::<N>::BOARD, &Geometry::<N>::or(&self.stones[0], &self.stones[1]))
    }

    /// `player`'s cells.
    #[inline]
    pub fn cells_of(&self, player: Player) -> Cells {
        self.stones[player.index()]
    }

    /// `player`'s two edges: top and bottom for Player One, left and right for Player Two.
    #[inline]
    pub fn edges(player: Player) -> (Cells, Cells) {
        match player {
            Player::One => (Geometry::<N>::TOP, Geometry::<N>::BOTTOM),
            Player::Two => (Geometry::<N>::LEFT, Geometry::<N>::RIGHT),
        }
    }

    /// Whether `player`'s cells join their two edges (recomputed from the board: one
    /// flood fill).
    pub fn connects(&self, player: Player) -> bool {
        let (from, to) = Self::edges(player);
        Geometry::<N>::connects(&self.stones[player.index()], &from, &to)
    }

    /// The empty cells where `player` would win at once: those touching both the
    /// cells connected to one of their edges and those connected to the other (an edge
    /// itself counts as connected to itself).
    pub fn winning_cells(&self, player: Player) -> Cells {
        type G<const N: usize> = Geometry<N>;
        let own = &self.stones[player.index()];
        let empty = self.empty_cells();
        let (a, b) = Self::edges(player);
        // The empty cells next to the chains touching an edge, or on that edge.
        let reach = |edge: &Cells| {
            let chains = G::<N>::flood(&G::<N>::and(own, edge), own);
            G::<N>::and(&G::<N>::or(&G::<N>::dilate(&chains, &G::<N>::BOARD), edge), &empty)
        };
        G::<N>::and(&reach(&a), &reach(&b))
    }

    /// The fewest empty cells `player` must still fill to join their edges (their own
    /// cells are free, the opponent's impassable): the classic shortest-path distance.
    /// `None` when the opponent has already cut every path (the opponent has won).
    pub fn distance(&self, player: Player) -> Option<u32> {
        type G<const N: usize> = Geometry<N>;
        let own = self.stones[player.index()];
        let empty = self.empty_cells();
        let (a, b) = Self::edges(player);
        let mut reached = G::<N>::flood(&G::<N>::and(&own, &a), &own);
        for filled in 0..=(N * N) as u32 {
            if G::<N>::meets(&reached, &b) {
                return Some(filled);
            }
            let grown = G::<N>::or(&G::<N>::dilate(&reached, &G::<N>::BOARD), &a);
            let new = G::<N>::and_not(&G::<N>::and(&grown, &empty), &reached);
            if G::<N>::is_empty(&new) {
                return None;
            }
            let seed = G::<N>::or(&reached, &new);
            reached = G::<N>::flood(&seed, &G::<N>::or(&own, &seed));
        }
        None
    }

    /// Plays a stone of the side to move on `cell` (empty, on the board) and updates
    /// the winner by one flood fill from it through its chain.
    #[inline]
    fn place(&mut self, cell: usize) {
        let me = self.to_move;
        let own = &mut self.stones[me.index()];
        own.insert(cell);
        let (a, b) = Self::edges(me);
        let chain = Geometry::<N>::flood(&Cells::single(cell), own);
        if Geometry::<N>::meets(&chain, &a) && Geometry::<N>::meets(&chain, &b) {
            self.winner = Some(me);
        }
    }

    /// The swap: Black's only stone becomes White's, mirrored in the long diagonal.
    fn swap_pieces(&mut self) {
        let first = self.stones[0].iter().next();
        if let Some(cell) = first {
            self.stones[0].remove(cell);
            self.stones[1].insert((cell % N) * N + cell / N);
        }
    }

    /// Whether `mv` is legal here.
    #[inline]
    pub fn is_legal(&self, mv: Move) -> bool {
        let cell = mv.0 as usize;
        self.winner.is_none()
            && (mv == Self::SWAP && self.swap_available() || cell < N * N && self.empty_cells().contains(cell))
    }
}

impl<const N: usize> Game for Hex<N> {
    const NAME: &'static str = match N {
        9 => "hex9",
        11 => "hex",
        13 => "hex13",
        19 => "hex19",
        _ => "hex-other",
    };

    type Moves = MoveList<{ MAX_CELLS + 1 }>;

    fn new() -> Self {
        Self::empty()
    }

    fn side_to_move(&self) -> Player {
        self.to_move
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(Outcome::Win)
    }

    fn legal_moves(&self) -> Self::Moves {
        let mut moves = MoveList::new();
        if self.winner.is_some() {
            return moves;
        }
        moves.extend(self.empty_cells().iter().map(|cell| Move(cell as u16)));
        if self.swap_available() {
            moves.push(Self::SWAP);
        }
        moves
    }

    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        if mv == Self::SWAP {
            self.swap_pieces();
        } else {
            self.place(mv.0 as usize);
        }
        self.plies += 1;
        self.to_move = self.to_move.other();
    }

    fn try_play(&mut self, mv: Move) -> Result<(), GameError> {
        if self.winner.is_some() {
            return Err(GameError::GameOver);
        }
        if !self.is_legal(mv) {
            return Err(GameError::IllegalMove(self.format_move(mv)));
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// The stones' Zobrist keys, the side to move and whether the swap is available
    /// (computed from the board: positions are not hashed on the hot path).
    fn hash(&self) -> u64 {
        let mut hash = 0;
        for (p, stones) in self.stones.iter().enumerate() {
            for cell in stones.iter() {
                hash ^= ZOBRIST[p][cell];
            }
        }
        if self.to_move == Player::Two {
            hash ^= WHITE_TO_MOVE_KEY;
        }
        if self.swap_available() {
            hash ^= SWAP_AVAILABLE_KEY;
        }
        hash
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        let last = (b'a' + N as u8 - 1) as char;
        let bad = || GameError::BadMove(format!("{text} (expected a cell a1-{last}{N} or swap-pieces)"));
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("swap-pieces") || trimmed.eq_ignore_ascii_case("swap") {
            return Ok(Self::SWAP);
        }
        let column = |c: char| c.is_ascii_alphabetic().then(|| usize::from(c.to_ascii_lowercase() as u8 - b'a'));
        let (col, row) = crate::games::parse_coordinate(trimmed, N, column).ok_or_else(bad)?;
        Ok(Move((row * N + col) as u16))
    }

    fn format_move(&self, mv: Move) -> String {
        let cell = mv.0 as usize;
        match cell {
            c if c < N * N => format!("{}{}", (b'a' + (c % N) as u8) as char, c / N + 1),
            c if c == N * N => "swap-pieces".to_string(),
            _ => format!("#{cell}"),
        }
    }

    /// A move sequence from the empty board, optionally after the word `swap-rule`,
    /// which turns the swap rule on (`swap-rule f6 swap-pieces`).
    fn parse_position(text: &str) -> Result<Self, GameError> {
        let trimmed = text.trim_start();
        let (mut game, moves) = match trimmed.split_once(|c: char| c.is_whitespace() || c == ',') {
            Some((first, rest)) if first.eq_ignore_ascii_case("swap-rule") => (Self::with_swap_rule(), rest),
            _ if trimmed.eq_ignore_ascii_case("swap-rule") => (Self::with_swap_rule(), ""),
            _ => (Self::new(), trimmed),
        };
        game.play_sequence(moves)?;
        Ok(game)
    }

    /// The board size.
    fn gtp_setup(&self) -> Vec<String> {
        vec![format!("boardsize {N}")]
    }

    /// HexGui's picture: column letters on top, each row half a cell right of the one
    /// above, Black `X` (top and bottom), White `O` (left and right).
    fn render(&self) -> String {
        let letters: String = (0..N).map(|c| format!(" {}", (b'a' + c as u8) as char)).collect();
        let mut out = format!("   {letters}\n");
        for row in 0..N {
            out.push_str(&" ".repeat(row));
            out.push_str(&format!("{:>2} ", row + 1));
            for col in 0..N {
                let mark = match self.stone_at(Move((row * N + col) as u16)) {
                    Some(Player::One) => 'X',
                    Some(Player::Two) => 'O',
                    None => '.',
                };
                out.push(' ');
                out.push(mark);
            }
            out.push_str(&format!(" {}\n", row + 1));
        }
        out.push_str(&format!("{}{letters}\n", " ".repeat(N + 2)));
        let state = match self.winner {
            Some(Player::One) => "Black (X, top-bottom) has won".to_string(),
            Some(Player::Two) => "White (O, left-right) has won".to_string(),
            None if self.to_move == Player::One => "Black (X, top-bottom) to move".to_string(),
            None => "White (O, left-right) to move".to_string(),
        };
        let swap = if self.swap_available() { ", swap-pieces available" } else { "" };
        out.push_str(&format!("{state}{swap}"));
        out
    }
}

impl<const N: usize> fmt::Debug for Hex<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hex{N} {{ plies: {}, swap rule: {} }}\n{}", self.plies, self.swap_rule, self.render())
    }
}

impl<const N: usize> Tuning for Hex<N> {
    /// Measured on 11x11 (docs/RESULTS.md, "Hex: the exploration constant and RAVE"): at
    /// 3,000 playouts a move 0.25 scored 0.917 against sqrt(2), 0.35 0.450 and 0.15
    /// 0.398 against 0.25; at 20,000, 0.5 scored 0.480 and 0.15 0.180 against 0.25; at
    /// 10 ms a move, 0.718 against sqrt(2).
    const EXPLORATION: f64 = 0.25;

    /// Measured on 11x11 against the defaults at 5,000 playouts a move, 100 games each
    /// (docs/results/enhancements.md, "PUCT"): c_puct 0.5, 1, 2 and 4 scored 0.000, 0.030,
    /// 0.380 and 0.550 (uniform priors: the exploration must come from c_puct).
    const PUCT_EXPLORATION: f32 = 4.0;
}

/// The shortest-path difference for the side to move, 1,000 per cell: the opponent's
/// [`Hex::distance`] minus the mover's.
impl<const N: usize> Evaluate for Hex<N> {
    fn evaluate(&self) -> i32 {
        let me = self.to_move;
        let worst = (N * N) as i64 + 1;
        let mine = self.distance(me).map_or(worst, i64::from);
        let theirs = self.distance(me.other()).map_or(worst, i64::from);
        ((theirs - mine) * 1000).clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_and_names_bad_text() {
        let game = Hex11::new();
        for cell in 0..121 {
            let text = game.format_move(Move(cell));
            assert_eq!(game.parse_move(&text), Ok(Move(cell)), "{text}");
        }
        assert_eq!(game.format_move(Move(0)), "a1");
        assert_eq!(game.format_move(Move(120)), "k11");
        assert_eq!(game.parse_move("I3"), Ok(Move(2 * 11 + 8)));
        assert_eq!(game.parse_move("swap-pieces"), Ok(Hex11::SWAP));
        for bad in ["l1", "a0", "a12", "", "a", "1a", "a+1", "é1"] {
            let err = game.parse_move(bad).unwrap_err().to_string();
            assert!(err.contains(&format!("'{bad}'")) && err.contains("a1-k11"), "{bad}: {err}");
        }
    }

    #[test]
    fn win_detection_needs_both_edges() {
        let mut game = Hex::<4>::new();
        // Black's column b down to row 3; White plays along column a.
        game.play_sequence("b1 a1 b2 a2 b3 a3").unwrap();
        assert_eq!(game.outcome(), None);
        assert_eq!(game.winning_cells(Player::One).iter().collect::<Vec<_>>(), vec![12, 13]);
        assert_eq!(game.distance(Player::One), Some(1));
        game.play_sequence("a4").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::Win(Player::One)));
        assert!(game.legal_moves().is_empty());
        assert_eq!(game.try_play(Move(15)), Err(GameError::GameOver));
    }

    #[test]
    fn evaluation_is_the_shortest_path_difference() {
        assert_eq!(Hex11::new().evaluate(), 0);
        // Black's f6 leaves Black 10 cells to fill and White 11: White to move, behind.
        assert_eq!(Hex11::parse_position("f6").unwrap().evaluate(), -1000);
        let mut game = Hex::<3>::new();
        game.play_sequence("a1 b1 a2 b2").unwrap();
        // Black's a1-a2 needs a3; White's b1-b2 needs a3 and one of c1, c2.
        assert_eq!(game.distance(Player::One), Some(1));
        assert_eq!(game.distance(Player::Two), Some(2));
        assert_eq!(game.evaluate(), 1000);
        game.play_sequence("a3").unwrap();
        // Black has won: White's every path is cut.
        assert_eq!(game.outcome(), Some(Outcome::Win(Player::One)));
        assert_eq!(game.distance(Player::Two), None);
    }

    #[test]
    fn the_one_cell_board_is_won_by_the_first_move() {
        let mut game = Hex::<1>::new();
        assert_eq!(game.legal_moves().as_ref(), [Move(0)]);
        game.play_unchecked(Move(0));
        assert_eq!(game.outcome(), Some(Outcome::Win(Player::One)));
    }

    #[test]
    fn swap_rule_from_the_position_text() {
        let game = Hex11::parse_position("swap-rule f6").unwrap();
        assert!(game.swap_available() && game.legal_moves().as_ref().contains(&Hex11::SWAP));
        let swapped = Hex11::parse_position("swap-rule, a2 swap").unwrap();
        assert_eq!(swapped.stone_at(Move(1)), Some(Player::Two));
        assert_ne!(game.hash(), Hex11::parse_position("f6").unwrap().hash());
        assert!(Hex11::parse_position("f6 swap").is_err());
        assert!(Hex11::parse_position("swap-rule f6 g7 swap").is_err());
    }
}
