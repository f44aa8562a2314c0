//! Connect Four on a board chosen at run time: 4 to 12 columns, 4 to 12 rows, and at
//! most one blocked cell that nobody may play (a stone dropped into its column lands on
//! top of it: the blocked cell is a filled square owned by neither player; the cells below
//! it can never be filled). The random variant draws the width and the height in 9..=12
//! and one blocked cell for every game ([`ConnectFourBoard::random_variant`]).
//!
//! The 7x6 game without a blocked cell has its own type, [`super::ConnectFour`], on a
//! 64-bit bitboard; this type leaves it untouched, so the 7x6 speed is unchanged by
//! construction. Here each player's stones are a column-major bitboard of `height + 1`
//! bits per column (bit `col * (height + 1) + row`, the top bit of each column an
//! always-empty sentinel, as in `games/connect4/`): up to 12 x 13 = 156 bits, kept in three
//! `u64` words (`Wide`). The blocked cell is in neither player's stones, so it breaks
//! every line through it. Four in a row, and the cells where a stone would complete four,
//! are shifts and ANDs along the strides 1, `height`, `height + 1` and `height + 2`
//! (Tromp's Fhourstones; Pons, "Solving Connect 4", part 9), so a move's class for the
//! action values and the pruning is a few bit tests once the two sides' winning cells
//! are known. The playouts (and the single-position win test, classes and pruning) run
//! on the narrowest word that holds the board: one `u64` up to 64 bits (7x6 with a
//! blocked cell), two up to 128 (9x9, 10x10), else three.
//!
//! Measured on 2026-11-25 on a 2-vCPU machine, against the cell-walking version this
//! replaced (same games move for move): `parmcts search --game connect4 --width 10
//! --height 11 --blocked 3,2 --playouts 20000 --nodes 200000 --seed 1` (biased, pruned
//! playouts) 971 ms to 74 ms; `parmcts bench --game connect4 --width 7 --height 6
//! --blocked 1,1 --modes pure` 647 to 107 ns a random playout, against 90 ns for
//! [`super::ConnectFour`].
//!
//! # Notation
//! Moves are columns `1..=width`. Up to 9 columns each is one digit, separators optional
//! (`554`, as Connect Four writes them); on wider boards they are separated by spaces or
//! commas (`10` is one column). A position is `WxH:` or `WxH@C,R:` (blocked cell in
//! column `C`, row `R`, both 1-based, row 1 at the bottom) followed by the moves:
//! `9x10@3,1: 5 5 4`. Without a header the board is 7x6 with no blocked cell.

mod classes;
pub mod solver;
mod stones;
mod words;

use rand_core::RngCore;

use classes::{prune_classified, MoveClass};
use stones::{Shape, Stones};
use words::{has_four, Wide, Word, Words};

use super::evaluate::Evaluate;
use super::playout::recorded_play_out;
use super::{
    random_below, Game, GameError, Move, MoveList, MovesPlayed, Outcome, Player, PlayoutPolicy, Playouts, Tuning,
};

/// The fewest columns or rows a board may have.
pub const MIN_SIDE: u8 = 4;
/// The most columns or rows a board may have.
pub const MAX_SIDE: u8 = 12;
/// No blocked cell (the `blocked_col` value).
const NONE: u8 = u8::MAX;

/// Runs `$body` with the type `$w` the narrowest [`Word`] that holds the bits of
/// `$shape` (a [`Shape`]).
macro_rules! on_narrowest_word {
    ($shape:expr, $w:ident => $body:expr) => {{
        let bits = $shape.bits();
        if bits <= u64::BITS {
            type $w = u64;
            $body
        } else if bits <= 2 * u64::BITS {
            type $w = Words<2>;
            $body
        } else {
            type $w = Wide;
            $body
        }
    }};
}

/// A board specification that is not playable: a side outside 4..=12, or a blocked
/// cell outside the board.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoardError {
    /// The width is not in 4..=12.
    Width(u32),
    /// The height is not in 4..=12.
    Height(u32),
    /// The blocked cell (1-based column, row) is not on the board.
    Blocked {
        /// Its column, 1-based.
        col: u32,
        /// Its row, 1-based from the bottom.
        row: u32,
    },
    /// The text is not a board header `WxH` or `WxH@C,R`.
    Malformed(String),
}

impl std::fmt::Display for BoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoardError::Width(w) => write!(f, "bad width '{w}' (expected {MIN_SIDE} to {MAX_SIDE})"),
            BoardError::Height(h) => write!(f, "bad height '{h}' (expected {MIN_SIDE} to {MAX_SIDE})"),
            BoardError::Blocked { col, row } => {
                write!(f, "bad blocked cell '{col},{row}' (expected a column and a row on the board, both from 1)")
            }
            BoardError::Malformed(text) => {
                write!(f, "bad board '{}' (expected WxH or WxH@COL,ROW)", super::one_line(text))
            }
        }
    }
}

impl std::error::Error for BoardError {}

impl From<BoardError> for GameError {
    fn from(e: BoardError) -> GameError {
        GameError::BadPosition(e.to_string())
    }
}

/// A Connect Four position on a board of 4 to 12 columns and rows, with an optional
/// blocked cell. The first player moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConnectFourBoard {
    /// The stones, the columns' next free rows and the plies.
    stones: Stones<Wide>,
    width: u8,
    height: u8,
    /// The blocked cell's column, or `NONE`.
    blocked_col: u8,
    /// The blocked cell's row (meaningless without a blocked column).
    blocked_row: u8,
}

impl ConnectFourBoard {
    /// The empty board of `width` columns and `height` rows, with the cell in column
    /// `blocked.0` and row `blocked.1` (0-based, row 0 at the bottom) blocked if given.
    ///
    /// # Errors
    /// [`BoardError`] naming the side outside 4..=12 or the blocked cell off the board.
    pub fn try_new(width: u32, height: u32, blocked: Option<(u32, u32)>) -> Result<Self, BoardError> {
        let side = u32::from(MIN_SIDE)..=u32::from(MAX_SIDE);
        if !side.contains(&width) {
            return Err(BoardError::Width(width));
        }
        if !side.contains(&height) {
            return Err(BoardError::Height(height));
        }
        let mut board = ConnectFourBoard {
            stones: Stones { by_player: [Wide::ZERO; 2], next: [0; MAX_SIDE as usize], plies: 0, won: false },
            width: width as u8,
            height: height as u8,
            blocked_col: NONE,
            blocked_row: 0,
        };
        if let Some((col, row)) = blocked {
            if col >= width || row >= height {
                return Err(BoardError::Blocked { col: col.saturating_add(1), row: row.saturating_add(1) });
            }
            board.blocked_col = col as u8;
            board.blocked_row = row as u8;
            // A stone dropped into the column stops on the blocked cell: the cells below
            // it stay empty for ever.
            board.stones.next[col as usize] = row as u8 + 1;
        }
        Ok(board)
    }

    /// A board of the random variant: width and height uniform in 9..=12, one blocked
    /// cell uniform on the board.
    pub fn random_variant<R: RngCore>(rng: &mut R) -> Self {
        let width = 9 + random_below(rng, 4);
        let height = 9 + random_below(rng, 4);
        let col = random_below(rng, width);
        let row = random_below(rng, height);
        // In range by construction.
        Self::try_new(width, height, Some((col, row))).unwrap_or_else(|_| Self::new())
    }

    /// [`Self::random_variant`] drawn from its own generator seeded with `seed`: the
    /// board of pair `k` of a match is `variant_from_seed(match seed ^ k * φ)`.
    pub fn variant_from_seed(seed: u64) -> Self {
        use rand_core::SeedableRng;
        Self::random_variant(&mut rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// Parses a board header `WxH` or `WxH@C,R` (blocked cell 1-based, row 1 at the
    /// bottom) into the empty board.
    ///
    /// # Errors
    /// [`BoardError`] naming the bad part.
    pub fn parse_board(text: &str) -> Result<Self, BoardError> {
        let malformed = || BoardError::Malformed(text.to_string());
        let (size, blocked) = match text.trim().split_once('@') {
            Some((size, cell)) => (size, Some(cell)),
            None => (text.trim(), None),
        };
        let (w, h) = size.split_once(['x', 'X']).ok_or_else(malformed)?;
        let w: u32 = w.trim().parse().map_err(|_| malformed())?;
        let h: u32 = h.trim().parse().map_err(|_| malformed())?;
        let blocked = match blocked {
            None => None,
            Some(cell) => {
                let (c, r) = cell.split_once(',').ok_or_else(malformed)?;
                let c: u32 = c.trim().parse().map_err(|_| malformed())?;
                let r: u32 = r.trim().parse().map_err(|_| malformed())?;
                if c == 0 || r == 0 {
                    return Err(BoardError::Blocked { col: c, row: r });
                }
                Some((c - 1, r - 1))
            }
        };
        Self::try_new(w, h, blocked)
    }

    /// Whether every column's number is one digit (up to 9 columns), so that move lists
    /// may be written without separators, as on 7x6.
    fn one_digit_moves(&self) -> bool {
        self.width <= 9
    }

    /// The board header of this position (`9x10@3,1`), as [`Self::parse_board`] reads it.
    pub fn board_text(&self) -> String {
        match self.blocked() {
            Some((c, r)) => format!("{}x{}@{},{}", self.width, self.height, c + 1, r + 1),
            None => format!("{}x{}", self.width, self.height),
        }
    }

    /// Columns.
    pub fn width(&self) -> u32 {
        u32::from(self.width)
    }

    /// Rows.
    pub fn height(&self) -> u32 {
        u32::from(self.height)
    }

    /// The blocked cell (0-based column, row), if any.
    pub fn blocked(&self) -> Option<(u32, u32)> {
        (self.blocked_col != NONE).then(|| (u32::from(self.blocked_col), u32::from(self.blocked_row)))
    }

    /// Plies played.
    pub fn plies(&self) -> u32 {
        u32::from(self.stones.plies)
    }

    /// Cells a stone may ever fill: the board less the blocked cell and the cells below it.
    pub fn playable_cells(&self) -> u32 {
        let dead = if self.blocked_col == NONE { 0 } else { u32::from(self.blocked_row) + 1 };
        self.width() * self.height() - dead
    }

    /// Whether `col` (0-based) is on the board and not full.
    #[inline]
    pub fn can_play(&self, col: u32) -> bool {
        col < self.width() && self.stones.next[col as usize] < self.height
    }

    /// The stone in column `col`, row `row` (0-based), if any; `None` also for the
    /// blocked cell and cells off the board.
    pub fn cell(&self, col: u32, row: u32) -> Option<Player> {
        if col >= self.width() || row >= self.height() {
            return None;
        }
        let bit = col * self.shape().h1 + row;
        if self.stones.by_player[0].test(bit) {
            Some(Player::One)
        } else if self.stones.by_player[1].test(bit) {
            Some(Player::Two)
        } else {
            None
        }
    }

    /// Whether playing `col` (not full) wins at once for the side to move.
    #[inline]
    pub fn is_winning_move(&self, col: u32) -> bool {
        let shape = self.shape();
        let stones = &self.stones;
        let mine = stones.by_player[stones.mover()] | Wide::bit(stones.landing(shape, col));
        on_narrowest_word!(shape, W => has_four(W::from_wide(mine), shape.h1))
    }

    /// The geometry the rules run on.
    #[inline]
    fn shape(&self) -> Shape {
        Shape { width: self.width(), height: self.height(), h1: self.height() + 1, cells: self.playable_cells() }
    }

    /// The class of move `col` for the action values and the pruning (see
    /// [`Playouts::action_value`] for this type).
    #[inline]
    fn class(&self, col: u32) -> MoveClass {
        let shape = self.shape();
        on_narrowest_word!(shape, W => {
            let stones = self.stones.convert::<W>();
            stones.class(shape, &stones.threats(shape), col)
        })
    }

    fn render_board(&self) -> String {
        let mut out = String::new();
        for row in (0..self.height()).rev() {
            for col in 0..self.width() {
                out.push(match self.cell(col, row) {
                    Some(Player::One) => 'X',
                    Some(Player::Two) => 'O',
                    None if self.blocked() == Some((col, row)) => '#',
                    None => '.',
                });
            }
            out.push('\n');
        }
        for col in 0..self.width() {
            out.push(char::from_digit((col + 1) % 10, 10).unwrap_or('?'));
        }
        out.push('\n');
        out
    }
}

impl Default for ConnectFourBoard {
    fn default() -> Self {
        Self::new()
    }
}

impl Game for ConnectFourBoard {
    const NAME: &'static str = "connect4x";

    type Moves = MoveList<{ MAX_SIDE as usize }>;

    /// The board header ([`ConnectFourBoard::board_text`]: `9x10@3,1`).
    fn setup(&self) -> Option<String> {
        Some(self.board_text())
    }

    /// The 7x6 board with no blocked cell (`--width`, `--height`, `--blocked` or a
    /// position header choose another).
    fn new() -> Self {
        match Self::try_new(7, 6, None) {
            Ok(board) => board,
            Err(_) => unreachable!("7x6 is a valid board"),
        }
    }

    #[inline]
    fn side_to_move(&self) -> Player {
        self.stones.side_to_move()
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.stones.outcome(self.shape())
    }

    fn legal_moves(&self) -> Self::Moves {
        let shape = self.shape();
        match self.stones.outcome(shape) {
            None => self.stones.legal_moves(shape),
            Some(_) => MoveList::new(),
        }
    }

    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        let col = u32::from(mv.0);
        if !self.can_play(col) {
            // Outside the precondition: leave the state as it is (memory safe).
            return;
        }
        let shape = self.shape();
        let cell = self.stones.landing(shape, col);
        let mine = self.stones.place(shape, col);
        self.stones.won = on_narrowest_word!(shape, W => W::from_wide(mine).has_four_through(cell, shape.h1));
    }

    fn hash(&self) -> u64 {
        let mut x = (u64::from(self.width) << 8 | u64::from(self.height)) << 16
            | u64::from(self.blocked_col) << 8
            | u64::from(self.blocked_row);
        let (height, h1) = (self.height(), self.height() + 1);
        for col in 0..self.width() {
            // Each player's column as a `u16`, bit `row`.
            let [one, two] = self.stones.by_player.map(|stones| stones.bits_at(col * h1, height));
            let word = one | two << 16;
            x = (x ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 29;
        }
        x
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.trim().parse::<u32>() {
            Ok(col) if (1..=self.width()).contains(&col) => Ok(Move(col as u16 - 1)),
            _ => {
                let hint = if self.one_digit_moves() {
                    ""
                } else {
                    "; on boards over 9 wide, moves are separated by spaces or commas"
                };
                Err(GameError::BadMove(format!("{text} (expected a column 1-{}{hint})", self.width)))
            }
        }
    }

    /// Connect Four's own notation (`4453`) where every move is one digit; wider boards
    /// need separators (`10,3,12`), since `1012` could be read more than one way.
    fn split_moves<'a>(&self, text: &'a str) -> Vec<&'a str> {
        if self.one_digit_moves() {
            super::split_single_chars(text)
        } else {
            super::split_separated(text)
        }
    }

    fn format_move(&self, mv: Move) -> String {
        (mv.0 + 1).to_string()
    }

    /// `WxH[@C,R]:` then the moves; without a header, moves on the 7x6 board.
    fn parse_position(text: &str) -> Result<Self, GameError> {
        let (mut game, moves) = match text.split_once(':') {
            Some((board, moves)) => (Self::parse_board(board)?, moves),
            None => (Self::new(), text),
        };
        game.play_sequence(moves)?;
        Ok(game)
    }

    fn render(&self) -> String {
        self.render_board()
    }
}

impl Playouts for ConnectFourBoard {
    /// The classes of `games/connect4/` less its make-a-three class: a move that wins at
    /// once 1000; one that blocks the opponent's immediate win 100; one right below a
    /// winning cell of either side 0.05; otherwise 1.
    #[inline]
    fn action_value(&self, mv: Move) -> f32 {
        self.class(u32::from(mv.0)).action_value()
    }

    /// Win-first / block-first from the move classes (`prune_classified`), without
    /// playing anything: a winning move alone; else the blocks; else the moves that do not
    /// give the opponent a winning cell; else all.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        let shape = self.shape();
        let mut classes = [MoveClass::Plain; MAX_SIDE as usize];
        let classes = &mut classes[..moves.len()];
        on_narrowest_word!(shape, W => {
            let stones = self.stones.convert::<W>();
            let threats = stones.threats(shape);
            for (class, mv) in classes.iter_mut().zip(moves.iter()) {
                *class = stones.class(shape, &threats, u32::from(mv.0));
            }
        });
        prune_classified(moves, classes)
    }

    /// The trait's roulette wheel of the action values, with the classes of each ply
    /// computed once from the two sides' winning cells, on the narrowest word: the same
    /// game from the same generator state (tested).
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        let shape = self.shape();
        on_narrowest_word!(shape, W => {
            let mut stones = self.stones.convert::<W>();
            let outcome = stones.policy_playout(shape, rng, false, true, |_, _| {});
            self.stones = stones.convert();
            outcome
        })
    }

    /// As the trait's loop (the same game from the same generator state, tested), the
    /// classes of each ply computed once, on the narrowest word. Learned strengths (this
    /// game has no move features, so every move's is 1) take the trait's loop.
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        if policy.biased && policy.gammas.is_some() {
            return recorded_play_out(self, rng, policy, played);
        }
        let shape = self.shape();
        on_narrowest_word!(shape, W => {
            let mut stones = self.stones.convert::<W>();
            let on_move = |player, mv| played.insert(player, mv);
            let outcome = stones.policy_playout(shape, rng, policy.prune, policy.biased, on_move);
            self.stones = stones.convert();
            outcome
        })
    }

    /// Uniform over the open columns by rejection, no move list, on the narrowest word.
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        let shape = self.shape();
        on_narrowest_word!(shape, W => {
            let mut stones = self.stones.convert::<W>();
            let outcome = stones.random_playout(shape, rng);
            self.stones = stones.convert();
            outcome
        })
    }
}

impl Tuning for ConnectFourBoard {
    /// As [`super::ConnectFour`]'s: the rule is cheap here too (no move is played).
    const PRUNE_BY_DEFAULT: bool = true;
    /// [`super::ConnectFour`]'s measured constant, not re-measured on these boards.
    const EXPLORATION: f64 = 0.5;
}

/// No heuristic: alpha-beta on these boards is exact only where it searches to the end.
impl Evaluate for ConnectFourBoard {
    fn evaluate(&self) -> i32 {
        0
    }
}

#[cfg(test)]
mod tests;
