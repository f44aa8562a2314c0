//! The [`Game`] trait — the embedding surface of parmcts — and the bitboard games.
//!
//! A game is a small `Clone` state (the shipped games are `Copy`; see [`Game`] for what a
//! position must provide). Moves are [`Move`] indices (`u16`) whose meaning the
//! game defines (a cell, a column, a square, a die face). Legal moves come back as a
//! fixed-capacity [`MoveList`], so nothing on the search's hot path allocates.
//!
//! One trait serves every registered game ([`GameKind`]):
//! * tic-tac-toe, Connect Four 7x6 and Othello on fixed bitboards;
//! * Hex (`Hex<N>`: 9x9 to 19x19, and any smaller board) and Go (`Go<N>`, 2x2 to
//!   19x19): `N * N` cells (+ the pass) as move indices, captures and ko in the state;
//! * Connect Four on run-time boards (4-12 columns and rows, a blocked cell): the board
//!   is a property of the state, not of the type;
//! * EinStein würfelt nicht!, a game with dice: [`Game::turn`] returns [`Turn::Chance`]
//!   and [`Game::chance_weight`] gives each outcome's weight; the search samples such
//!   nodes instead of selecting by UCB.
//!
//! Values are backed up from the perspective of the player who made each move, so
//! passes (Othello's forced pass is an explicit move) and chance plies need no sign tricks.
//!
//! # Examples
//! Implementing the trait for a user game (a Nim variant) is shown in
//! `tests/custom_game.rs`; the short form. A search also needs the game's playouts
//! ([`Playouts`]), tuning ([`Tuning`]), exact solver ([`Endgame`]) and board for learned
//! evaluators ([`NTupleBoard`]); all are defaults, so four
//! empty impls do:
//!
//! ```
//! use parmcts::{Endgame, Game, Move, MoveList, Outcome, Player, GameError, NTupleBoard, Playouts, Tuning};
//!
//! /// Subtraction game: take 1 or 2 stones; whoever takes the last stone wins.
//! #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
//! struct Nim { stones: u8, to_move: Player }
//!
//! impl Game for Nim {
//!     const NAME: &'static str = "nim";
//!     type Moves = MoveList<2>;
//!     fn new() -> Self { Nim { stones: 7, to_move: Player::One } }
//!     fn side_to_move(&self) -> Player { self.to_move }
//!     fn outcome(&self) -> Option<Outcome> {
//!         // The player who just moved took the last stone.
//!         (self.stones == 0).then(|| Outcome::Win(self.to_move.other()))
//!     }
//!     fn legal_moves(&self) -> MoveList<2> {
//!         let mut moves = MoveList::new();
//!         for take in 1..=self.stones.min(2) { moves.push(Move(take as u16)); }
//!         moves
//!     }
//!     fn play_unchecked(&mut self, mv: Move) {
//!         self.stones -= mv.0 as u8;
//!         self.to_move = self.to_move.other();
//!     }
//!     fn hash(&self) -> u64 { (self.stones as u64) << 1 | self.to_move as u64 }
//!     fn parse_move(&self, text: &str) -> Result<Move, GameError> {
//!         text.parse::<u16>().map(Move).map_err(|_| GameError::BadMove(text.to_string()))
//!     }
//!     fn format_move(&self, mv: Move) -> String { mv.0.to_string() }
//! }
//! impl Playouts for Nim {}
//! impl Tuning for Nim {}
//! impl Endgame for Nim {}
//! impl NTupleBoard for Nim {}
//!
//! let mut game = Nim::new();
//! game.try_play(Move(2)).unwrap();
//! assert_eq!(game.stones, 5);
//! assert!(game.try_play(Move(3)).is_err());
//! ```

mod capabilities;
pub mod connect4;
pub mod connect4x;
mod criticality;
pub mod einstein;
#[cfg(feature = "encoding")]
mod encoder;
pub mod evaluate;
pub mod go;
pub mod hex;
#[cfg(feature = "encoding")]
mod onnx;
pub mod othello;
pub mod perft;
pub mod playout;
mod registry;
mod replies;
pub mod tictactoe;
pub mod tuning;

use std::borrow::Cow;
use std::fmt;

use rand_core::RngCore;

pub use capabilities::{square_symmetries, Endgame, NTupleBoard, Solved};
pub use connect4::ConnectFour;
pub use connect4x::{BoardError, ConnectFourBoard};
pub use criticality::{Criticality, CriticalityTally, Excesses};
pub use einstein::Einstein;
#[cfg(feature = "encoding")]
pub use encoder::{encoder, Encoder};
pub use evaluate::Evaluate;
pub use go::{Go, Go13, Go19, Go9};
pub use hex::{Hex, Hex11, Hex13, Hex19, Hex9};
#[cfg(feature = "encoding")]
pub use onnx::OnnxEncoding;
pub use othello::Othello;
pub use playout::{roulette, roulette_by, sample_weighted, MovesPlayed, PlayoutPolicy, Playouts, MAX_FEATURE_GROUPS};
#[cfg(feature = "harness")]
pub(crate) use registry::for_each_game;
pub use registry::{GameKind, UnknownGame};
pub use replies::LastGoodReplies;
pub use tictactoe::TicTacToe;
pub use tuning::Tuning;

/// What a search needs of a game: its rules ([`Game`]), its playouts ([`Playouts`]), its
/// tuning ([`Tuning`]), its exact solver if it has one ([`Endgame`]) and its board for
/// learned evaluators ([`NTupleBoard`]). Implemented for every such game; embedding a game
/// means `impl Game` plus the empty impls `impl Playouts for MyGame {}`,
/// `impl Tuning for MyGame {}`, `impl Endgame for MyGame {}` and
/// `impl NTupleBoard for MyGame {}`.
pub trait SearchGame: Game + Playouts + Tuning + Endgame + NTupleBoard {}

impl<G: Game + Playouts + Tuning + Endgame + NTupleBoard> SearchGame for G {}

/// A move: an index whose meaning the game defines (cell, column, square, die face).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(pub u16);

/// A fixed-capacity list of moves: no heap allocation.
pub type MoveList<const N: usize> = arrayvec::ArrayVec<Move, N>;

/// One of the two players. `One` moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// The first player (X in tic-tac-toe, Black in Othello).
    One = 0,
    /// The second player.
    Two = 1,
}

impl Player {
    /// The opponent.
    #[inline]
    pub fn other(self) -> Player {
        match self {
            Player::One => Player::Two,
            Player::Two => Player::One,
        }
    }

    /// `0` for [`Player::One`], `1` for [`Player::Two`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Who acts in a position: a player, or chance (a die roll).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// A player chooses the move.
    Player(Player),
    /// The move is drawn at random with weights [`Game::chance_weight`].
    Chance,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This player won.
    Win(Player),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The result for `player` in half points: 2 for a win, 1 for a draw, 0 for a loss.
    /// Half points keep the value sums exact integers (a draw is worth half a win).
    #[inline]
    pub fn half_points(self, player: Player) -> u32 {
        match self {
            Outcome::Win(p) if p == player => 2,
            Outcome::Win(_) => 0,
            Outcome::Draw => 1,
        }
    }
}

/// Errors from parsing or playing moves and positions.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GameError {
    /// The text is not a move of this game: the text, optionally followed by a
    /// parenthesised note (`8 (expected a column 1-7)`).
    BadMove(String),
    /// The move is well formed but not legal here: its text, optionally followed by a
    /// parenthesised note (`a1 (move 3)`).
    IllegalMove(String),
    /// The game is already over.
    GameOver,
    /// The position text is malformed or describes an impossible position.
    BadPosition(String),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::BadMove(m) => write!(f, "malformed move {}", quoted(m)),
            GameError::IllegalMove(m) => write!(f, "illegal move {}", quoted(m)),
            GameError::GameOver => write!(f, "the game is already over"),
            GameError::BadPosition(p) => write!(f, "bad position: {}", one_line(p)),
        }
    }
}

impl std::error::Error for GameError {}

/// `text` with its control characters (line breaks, tabs, escapes) written as Rust
/// writes them in a string literal (`\n`, `\t`, `\u{1b}`): user text quoted in an error
/// message keeps the message on one line.
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            escaped.extend(c.escape_default());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// A move's text in quotes, with the note after it outside them: `a1 (move 3)` becomes
/// `'a1' (move 3)`.
fn quoted(text: &str) -> String {
    let text = one_line(text);
    match text.split_once(" (") {
        Some((mv, note)) => format!("'{mv}' ({note}"),
        None => format!("'{text}'"),
    }
}

/// A two-player (optionally chance) game: the rules and the notation.
///
/// Required: the start position, side to move, terminal outcome, legal moves, an
/// unchecked `play`, a hash, and move text. Everything else has a default. A search also
/// needs the game's [`Playouts`] and [`Tuning`] (both all defaults; see [`SearchGame`]).
///
/// # What a position must provide
/// The search copies positions: one per playout lane at every iteration, one per root
/// tree in root-parallel mode, one per level when tree reuse looks for the new root. So:
/// * **Cheap clone.** `clone` runs on the hot path; the shipped games are small `Copy`
///   bitboards, whose `clone` is a plain copy. A game that must keep history (Go's
///   positional superko) may be `Clone` only, but should share or bound that history
///   (a persistent list, a fixed ring of hashes) rather than copy a growing vector.
/// * **Independent clones.** Playing a move on a clone never changes the original or
///   another clone: workers on different threads play on their own clones.
/// * **A hash that identifies the position for reuse.** Tree reuse finds the new root by
///   [`Game::hash`] among the positions a few plies below the old root, so two positions
///   that the search must tell apart (including by the history their rules depend on) must
///   hash differently; equal positions hash equally.
pub trait Game: Clone + Send + Sync + fmt::Debug + 'static {
    /// Short lowercase name used on the command line (`connect4`).
    const NAME: &'static str;

    /// Whether some positions are chance turns ([`Turn::Chance`]): the referee of `play`
    /// and `match` then rolls ([`roll`]), and players that search without chance nodes
    /// (minimax, alpha-beta) refuse the game.
    const HAS_CHANCE: bool = false;

    /// How [`Game::render`] marks each player's pieces (by [`Player::index`]): `X` and
    /// `O` by default. A person at the board is told which they play.
    const MARKS: [&'static str; 2] = ["X", "O"];

    /// The legal-move list type, usually [`MoveList<N>`] with `N` the most moves a
    /// position can have.
    type Moves: AsRef<[Move]> + AsMut<[Move]> + IntoIterator<Item = Move>;

    /// The start position.
    fn new() -> Self;

    /// The player to move (for a chance position: the player who moves after it).
    fn side_to_move(&self) -> Player;

    /// Who acts now. Defaults to the side to move; games with dice return
    /// [`Turn::Chance`] in chance positions.
    #[inline]
    fn turn(&self) -> Turn {
        Turn::Player(self.side_to_move())
    }

    /// The outcome if the game is over, else `None`.
    fn outcome(&self) -> Option<Outcome>;

    /// The legal moves; empty exactly when the game is over. A forced pass is a move.
    fn legal_moves(&self) -> Self::Moves;

    /// Plays `mv`.
    ///
    /// Precondition: `mv` is in [`Game::legal_moves`]; otherwise the state is unspecified
    /// (but memory safe).
    fn play_unchecked(&mut self, mv: Move);

    /// A hash of the position (equal positions hash equally).
    fn hash(&self) -> u64;

    /// Parses one move in this game's notation.
    ///
    /// # Errors
    /// [`GameError::BadMove`] when `text` is not a move of this game.
    fn parse_move(&self, text: &str) -> Result<Move, GameError>;

    /// Formats one move in this game's notation.
    fn format_move(&self, mv: Move) -> String;

    /// Plays `mv` after checking that it is legal.
    ///
    /// # Errors
    /// [`GameError::GameOver`] or [`GameError::IllegalMove`].
    fn try_play(&mut self, mv: Move) -> Result<(), GameError> {
        if self.outcome().is_some() {
            return Err(GameError::GameOver);
        }
        if !self.legal_moves().as_ref().contains(&mv) {
            return Err(GameError::IllegalMove(self.format_move(mv)));
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Weight of chance outcome `mv` in a [`Turn::Chance`] position (uniform by default).
    #[inline]
    fn chance_weight(&self, _mv: Move) -> f32 {
        1.0
    }

    /// Splits a move sequence into single-move tokens. The default splits on
    /// whitespace and commas; games with fixed-width notation override it.
    fn split_moves<'a>(&self, text: &'a str) -> Vec<&'a str> {
        split_separated(text)
    }

    /// Plays a move sequence from this position, checking each move.
    ///
    /// # Errors
    /// The first malformed or illegal move, with its 1-based position in the sequence.
    fn play_sequence(&mut self, text: &str) -> Result<(), GameError> {
        for (i, token) in self.split_moves(text).into_iter().enumerate() {
            let mv = self.parse_move(token)?;
            try_play_numbered(self, mv, token, i)?;
        }
        Ok(())
    }

    /// Parses a whole position. The default accepts a move sequence from the start;
    /// games with a board notation extend it.
    ///
    /// # Errors
    /// [`GameError`] naming the first bad part of `text`.
    fn parse_position(text: &str) -> Result<Self, GameError> {
        let mut game = Self::new();
        game.play_sequence(text)?;
        Ok(game)
    }

    /// The set-up of this position's game where the game has more than one, for game
    /// records: Connect Four's run-time board (`9x10@3,1`), EinStein's arrangement of the
    /// pieces (read from a start position); `None` for a game with one.
    fn setup(&self) -> Option<String> {
        None
    }

    /// The GTP commands that set an external engine up for this game before
    /// `clear_board` (`boardsize`, `komi`): none by default. Used by the `gtp:` player.
    fn gtp_setup(&self) -> Vec<String> {
        Vec::new()
    }

    /// A multi-line picture of the board for humans.
    fn render(&self) -> String {
        format!("{self:?}")
    }
}

/// Splits move text where every move is one character (`4453`), ignoring separators.
pub(crate) fn split_single_chars(text: &str) -> Vec<&str> {
    text.char_indices()
        .filter(|(_, c)| !c.is_whitespace() && *c != ',')
        .map(|(i, c)| &text[i..i + c.len_utf8()])
        .collect()
}

/// Splits move text on whitespace and commas (`d5 5c3`, `10,3,12`): the default of
/// [`Game::split_moves`].
pub(crate) fn split_separated(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()).collect()
}

/// [`Game::try_play`] for the `index`-th (0-based) move of a sequence, whose text is
/// `token`: errors name the move and its 1-based position.
pub(crate) fn try_play_numbered<G: Game>(game: &mut G, mv: Move, token: &str, index: usize) -> Result<(), GameError> {
    game.try_play(mv).map_err(|e| match e {
        GameError::IllegalMove(m) => GameError::IllegalMove(format!("{m} (move {})", index + 1)),
        GameError::GameOver => {
            GameError::IllegalMove(format!("{token} (move {}: the game is already over)", index + 1))
        }
        other => other,
    })
}

/// The (column, row) of a board coordinate such as `d4` on an `n`x`n` board, both 0-based:
/// a column letter (`column` maps it, any case, to its index) and a row number 1-`n`
/// written plainly (no sign). `None` for anything else. The notation of Go and Hex.
pub(crate) fn parse_coordinate(text: &str, n: usize, column: impl Fn(char) -> Option<usize>) -> Option<(usize, usize)> {
    let mut chars = text.chars();
    let col = column(chars.next()?).filter(|&c| c < n)?;
    let digits = chars.as_str();
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let row: usize = digits.parse().ok().filter(|r| (1..=n).contains(r))?;
    Some((col, row - 1))
}

/// The referee's roll in a chance position: an outcome drawn by [`Game::chance_weight`];
/// `None` at a player's turn (or at the end).
pub fn roll<G: Game, R: RngCore>(game: &G, rng: &mut R) -> Option<Move> {
    if game.turn() != Turn::Chance || game.outcome().is_some() {
        return None;
    }
    let moves = game.legal_moves();
    (!moves.as_ref().is_empty()).then(|| playout::sample_weighted(game, moves.as_ref(), rng))
}

/// A uniform integer in `0..n` from one 32-bit draw (Lemire's multiply-shift; the bias
/// is below 2^-24 for the move counts of board games). `n` must be positive.
#[inline]
pub fn random_below<R: RngCore>(rng: &mut R, n: u32) -> u32 {
    ((rng.next_u32() as u64 * n as u64) >> 32) as u32
}

/// A uniform float in `[0, 1)` from one 32-bit draw (24 bits, every value exact).
#[inline]
pub fn random_unit<R: RngCore>(rng: &mut R) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}
