//! Connect Four on a board chosen at run time: 4 to 12 columns, 4 to 12 rows, and at
//! most one blocked cell that nobody may play (a stone dropped into its column lands on
//! top of it: the blocked cell is a filled square owned by neither player). The variant
//! (the cells below it can never be filled: a dropped stone stops on it) of the
//! value-guided Connect Four report draws the width and the height in 9..=12 and
//! one blocked cell for every game ([`ConnectFourBoard::random_variant`]).
//!
//! The 7x6 game without a blocked cell has its own type, [`super::ConnectFour`], on a
//! 64-bit bitboard; this type leaves it untouched, so the 7x6 speed is unchanged by
//! construction. Here each player's stones are one `u16` per column (bit `row`), at most
//! 12 columns: a 12x12 board with a sentinel row needs 156 bits, more than a `u128`.
//! A move's four in a row is found by walking the four lines through its cell (at most
//! three cells each way), and the action values by the same walk on the cells a move
//! could fill.
//!
//! # Notation
//! Moves are columns `1..=width`, separated by spaces or commas (`10` is one column).
//! A position is `WxH:` or `WxH@C,R:` (blocked cell in column `C`, row `R`, both 1-based,
//! row 1 at the bottom) followed by the moves: `9x10@3,1: 5 5 4`. Without a header the
//! board is 7x6 with no blocked cell.

use rand_core::RngCore;

use super::evaluate::Evaluate;
use super::{random_below, Game, GameError, Move, MoveList, Outcome, Player, Playouts, Tuning};

/// The fewest columns or rows a board may have.
pub const MIN_SIDE: u8 = 4;
/// The most columns or rows a board may have.
pub const MAX_SIDE: u8 = 12;
/// No blocked cell (the `blocked_col` value).
const NONE: u8 = u8::MAX;

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
            BoardError::Malformed(text) => write!(f, "bad board '{text}' (expected WxH or WxH@COL,ROW)"),
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
    /// Each player's stones, one `u16` per column, bit `row` (row 0 at the bottom).
    stones: [[u16; MAX_SIDE as usize]; 2],
    /// The next free row of each column (`height` when full).
    next: [u8; MAX_SIDE as usize],
    width: u8,
    height: u8,
    /// The blocked cell's column, or `NONE`.
    blocked_col: u8,
    /// The blocked cell's row (meaningless without a blocked column).
    blocked_row: u8,
    /// Plies played.
    plies: u8,
    /// Whether the last move made four in a row.
    won: bool,
}

/// The four line directions: up, right, up-right, down-right.
const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

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
            stones: [[0; MAX_SIDE as usize]; 2],
            next: [0; MAX_SIDE as usize],
            width: width as u8,
            height: height as u8,
            blocked_col: NONE,
            blocked_row: 0,
            plies: 0,
            won: false,
        };
        if let Some((col, row)) = blocked {
            if col >= width || row >= height {
                return Err(BoardError::Blocked { col: col.saturating_add(1), row: row.saturating_add(1) });
            }
            board.blocked_col = col as u8;
            board.blocked_row = row as u8;
            // A stone dropped into the column stops on the blocked cell: the cells below
            // it stay empty for ever.
            board.next[col as usize] = row as u8 + 1;
        }
        Ok(board)
    }

    /// A board of the value-guided Connect Four report's variant: width and height
    /// uniform in 9..=12, one blocked cell uniform on the board.
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
        u32::from(self.plies)
    }

    /// Cells a stone may ever fill: the board less the blocked cell and the cells below it.
    pub fn playable_cells(&self) -> u32 {
        let dead = if self.blocked_col == NONE { 0 } else { u32::from(self.blocked_row) + 1 };
        self.width() * self.height() - dead
    }

    /// Whether `col` (0-based) is on the board and not full.
    #[inline]
    pub fn can_play(&self, col: u32) -> bool {
        col < self.width() && self.next[col as usize] < self.height
    }

    /// The stone in column `col`, row `row` (0-based), if any; `None` also for the
    /// blocked cell and cells off the board.
    pub fn cell(&self, col: u32, row: u32) -> Option<Player> {
        if col >= self.width() || row >= self.height() {
            return None;
        }
        let bit = 1 << row;
        if self.stones[0][col as usize] & bit != 0 {
            Some(Player::One)
        } else if self.stones[1][col as usize] & bit != 0 {
            Some(Player::Two)
        } else {
            None
        }
    }

    /// Whether `player` has a stone at (`col`, `row`), which may be off the board.
    #[inline(always)]
    fn has(&self, player: usize, col: i32, row: i32) -> bool {
        (col as u32) < self.width() && (row as u32) < self.height() && self.stones[player][col as usize] >> row & 1 != 0
    }

    /// Whether a stone of `player` at the empty cell (`col`, `row`) would make four in a
    /// row with its stones already there.
    #[inline]
    fn completes_four(&self, player: usize, col: i32, row: i32) -> bool {
        DIRECTIONS.iter().any(|&(dc, dr)| {
            let mut count = 1;
            for sign in [1, -1] {
                let (mut c, mut r) = (col + sign * dc, row + sign * dr);
                while count < 4 && self.has(player, c, r) {
                    count += 1;
                    c += sign * dc;
                    r += sign * dr;
                }
            }
            count >= 4
        })
    }

    /// The row a stone dropped into `col` (not full) lands on.
    #[inline]
    fn landing_row(&self, col: u32) -> i32 {
        i32::from(self.next[col as usize])
    }

    /// Whether playing `col` (not full) wins at once for the side to move.
    #[inline]
    pub fn is_winning_move(&self, col: u32) -> bool {
        self.completes_four(self.mover_index(), col as i32, self.landing_row(col))
    }

    #[inline]
    fn mover_index(&self) -> usize {
        usize::from(self.plies & 1)
    }

    /// The class of move `col` for the action values and the pruning (see
    /// [`Playouts::action_value`] for this type).
    #[inline]
    fn class(&self, col: u32) -> MoveClass {
        let me = self.mover_index();
        let (c, r) = (col as i32, self.landing_row(col));
        if self.completes_four(me, c, r) {
            return MoveClass::Win;
        }
        if self.completes_four(1 - me, c, r) {
            return MoveClass::Block;
        }
        // The cell above becomes playable: a gift when it wins for the opponent, a spoil
        // when it wins for the mover (the opponent can block it). The blocked cell is
        // never above a playable one.
        let above = r + 1;
        if above < i32::from(self.height) {
            if self.completes_four(1 - me, c, above) {
                return MoveClass::Gift;
            }
            if self.completes_four(me, c, above) {
                return MoveClass::Spoil;
            }
        }
        MoveClass::Plain
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

/// The classes of moves behind the action values and the pruning, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MoveClass {
    Win,
    Block,
    Gift,
    Spoil,
    Plain,
}

impl MoveClass {
    /// 20 x the action value (the weights of `connect4.rs` without its make-a-three class).
    const fn weight(self) -> u32 {
        match self {
            MoveClass::Win => 20_000,
            MoveClass::Block => 2_000,
            MoveClass::Gift | MoveClass::Spoil => 1,
            MoveClass::Plain => 20,
        }
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
        if self.plies & 1 == 0 {
            Player::One
        } else {
            Player::Two
        }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        if self.won {
            Some(Outcome::Win(self.side_to_move().other()))
        } else if self.plies() == self.playable_cells() {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn legal_moves(&self) -> Self::Moves {
        let mut moves = MoveList::new();
        if self.outcome().is_none() {
            for col in 0..self.width() {
                if self.can_play(col) {
                    moves.push(Move(col as u16));
                }
            }
        }
        moves
    }

    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        let col = u32::from(mv.0);
        if !self.can_play(col) {
            // Outside the precondition: leave the state as it is (memory safe).
            return;
        }
        let row = self.landing_row(col);
        let me = self.mover_index();
        self.won = self.completes_four(me, col as i32, row);
        let c = col as usize;
        self.stones[me][c] |= 1 << row;
        self.next[c] = row as u8 + 1;
        self.plies += 1;
    }

    fn hash(&self) -> u64 {
        let mut x = (u64::from(self.width) << 8 | u64::from(self.height)) << 16
            | u64::from(self.blocked_col) << 8
            | u64::from(self.blocked_row);
        for col in 0..self.width as usize {
            let word = u64::from(self.stones[0][col]) | u64::from(self.stones[1][col]) << 16;
            x = (x ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 29;
        }
        x
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.trim().parse::<u32>() {
            Ok(col) if (1..=self.width()).contains(&col) => Ok(Move(col as u16 - 1)),
            _ => Err(GameError::BadMove(format!("{text} (expected a column 1-{})", self.width))),
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
    /// The classes of `connect4.rs` less its make-a-three class: a move that wins at
    /// once 1000; one that blocks the opponent's immediate win 100; one right below a
    /// winning cell of either side 0.05; otherwise 1.
    #[inline]
    fn action_value(&self, mv: Move) -> f32 {
        self.class(u32::from(mv.0)).weight() as f32 / 20.0
    }

    /// Win-first / block-first from the move classes, without playing anything: a
    /// winning move alone; else the blocks; else the moves that do not give the opponent
    /// a winning cell; else all.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        let mut classes = [MoveClass::Plain; MAX_SIDE as usize];
        for (class, mv) in classes.iter_mut().zip(moves.iter()) {
            *class = self.class(u32::from(mv.0));
        }
        let n = moves.len();
        if let Some(i) = classes[..n].iter().position(|&c| c == MoveClass::Win) {
            moves.swap(0, i);
            return 1;
        }
        let any_block = classes[..n].contains(&MoveClass::Block);
        let keep = |class: MoveClass| -> bool {
            if any_block {
                class == MoveClass::Block
            } else {
                class != MoveClass::Gift
            }
        };
        let mut kept = 0;
        for i in 0..n {
            if keep(classes[i]) {
                moves.swap(kept, i);
                classes.swap(kept, i);
                kept += 1;
            }
        }
        if kept == 0 {
            n
        } else {
            kept
        }
    }

    /// Uniform over the open columns by rejection, no move list.
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        loop {
            if let Some(outcome) = self.outcome() {
                return outcome;
            }
            let col = loop {
                let col = random_below(rng, self.width());
                if self.can_play(col) {
                    break col;
                }
            };
            self.play_unchecked(Move(col as u16));
        }
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

impl crate::evaluator::NTupleBoard for ConnectFourBoard {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stones_land_on_the_blocked_cell() {
        let mut g = ConnectFourBoard::parse_position("4x4@1,2: 1").unwrap();
        assert_eq!(g.cell(0, 2), Some(Player::One));
        assert_eq!(g.cell(0, 0), None);
        g.play_unchecked(Move(0));
        assert_eq!(g.cell(0, 3), Some(Player::Two));
        assert!(!g.can_play(0));
        assert_eq!(g.playable_cells(), 14);
        assert_eq!(g.board_text(), "4x4@1,2");
    }

    #[test]
    fn headers_round_trip_and_bad_ones_are_named() {
        let g = ConnectFourBoard::parse_board("12x9@12,9").unwrap();
        assert_eq!((g.width(), g.height(), g.blocked()), (12, 9, Some((11, 8))));
        assert_eq!(ConnectFourBoard::parse_board("13x9"), Err(BoardError::Width(13)));
        assert_eq!(ConnectFourBoard::parse_board("9x3"), Err(BoardError::Height(3)));
        assert_eq!(ConnectFourBoard::parse_board("9x9@10,1"), Err(BoardError::Blocked { col: 10, row: 1 }));
        assert!(matches!(ConnectFourBoard::parse_board("9by9"), Err(BoardError::Malformed(_))));
    }
}
