//! The [`Game`] trait — the embedding surface of parmcts — and the bitboard games.
//!
//! A game is a small `Copy` state. Moves are [`Move`] indices (`u16`) whose meaning the
//! game defines (a cell, a column, a square, a die face). Legal moves come back as a
//! fixed-capacity [`MoveList`], so nothing on the search's hot path allocates.
//!
//! The trait is designed for the games that come next without change:
//! * Hex 11x11: 121 cells → move indices 0..121, a `MoveList` of capacity 121.
//! * Go 9x9: 81 points + pass → indices 0..82; captures and ko live in the state.
//! * Connect Four variants (9–12 columns, a blocked cell): the column count is a
//!   property of the state, not of the trait.
//! * Games with dice: [`Game::turn`] returns [`Turn::Chance`] and
//!   [`Game::chance_weight`] gives each outcome's weight; the search samples such
//!   nodes instead of selecting by UCB.
//!
//! Values are backed up from the perspective of the player who made each move, so
//! passes (Othello's forced pass is an explicit move) and chance plies need no sign tricks.
//!
//! # Examples
//! Implementing the trait for a user game (a Nim variant) is shown in
//! `tests/custom_game.rs`; the short form:
//!
//! ```
//! use parmcts::{Game, Move, MoveList, Outcome, Player, GameError};
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
//!
//! let mut game = Nim::new();
//! game.try_play(Move(2)).unwrap();
//! assert_eq!(game.stones, 5);
//! assert!(game.try_play(Move(3)).is_err());
//! ```

pub mod connect4;
pub mod evaluate;
pub mod othello;
pub mod perft;
mod registry;
pub mod tictactoe;

use std::fmt;

use rand_core::RngCore;

pub use connect4::ConnectFour;
pub use evaluate::Evaluate;
pub use othello::Othello;
pub use registry::GameKind;
pub use tictactoe::TicTacToe;

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
            GameError::BadPosition(p) => write!(f, "bad position: {p}"),
        }
    }
}

impl std::error::Error for GameError {}

/// A move's text in quotes, with the note after it outside them: `a1 (move 3)` becomes
/// `'a1' (move 3)`.
fn quoted(text: &str) -> String {
    match text.split_once(" (") {
        Some((mv, note)) => format!("'{mv}' ({note}"),
        None => format!("'{text}'"),
    }
}

/// A two-player (optionally chance) game with a cheap `Copy` state.
///
/// Required: the start position, side to move, terminal outcome, legal moves, an
/// unchecked `play`, a hash, and move text. Everything else has a default that a game may
/// override for speed (notably [`Game::random_playout`]).
pub trait Game: Copy + Send + Sync + fmt::Debug + 'static {
    /// Short lowercase name used on the command line (`connect4`).
    const NAME: &'static str;

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
        text.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()).collect()
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

    /// A multi-line picture of the board for humans.
    fn render(&self) -> String {
        format!("{self:?}")
    }

    /// The strength `f(m) > 0` of move `mv` here: the action-value function behind
    /// progressive bias (`P(m) = f(m) / Σ f`) and biased playouts (roulette wheel,
    /// `p(m) = f(m) / Σ f`). Neutral (1 for every move) by default, so a game need not
    /// implement it; games in this crate document theirs.
    #[inline]
    fn action_value(&self, _mv: Move) -> f32 {
        1.0
    }

    /// Plays moves drawn by [`Game::action_value`] (roulette wheel, linear in the number
    /// of moves, no allocation) until the game ends and returns the outcome.
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        play_out(self, rng, |game, moves, rng| roulette(game, moves, rng))
    }

    /// Win-first / block-first pruning: reorders `moves` (the legal moves here) so that
    /// the moves worth considering come first and returns how many they are. A move that
    /// wins at once: only it. Otherwise, when some but not all moves leave the opponent
    /// an immediate win: only the others (the blocks). Otherwise all. The default plays
    /// every move (and every reply, for the block test); games override it with
    /// something faster. Chance positions are never pruned.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        let Turn::Player(me) = self.turn() else { return moves.len() };
        let wins_at_once = |game: &Self, mv: Move, player: Player| {
            let mut child = *game;
            child.play_unchecked(mv);
            child.outcome() == Some(Outcome::Win(player))
        };
        if let Some(i) = moves.iter().position(|&m| wins_at_once(self, m, me)) {
            moves.swap(0, i);
            return 1;
        }
        let mut safe = 0;
        for i in 0..moves.len() {
            let mut child = *self;
            child.play_unchecked(moves[i]);
            let threatened = match child.turn() {
                Turn::Player(opponent) if opponent != me => {
                    child.legal_moves().into_iter().any(|reply| wins_at_once(&child, reply, opponent))
                }
                _ => false,
            };
            if !threatened {
                moves.swap(safe, i);
                safe += 1;
            }
        }
        if safe == 0 {
            moves.len()
        } else {
            safe
        }
    }

    /// A playout under any [`PlayoutPolicy`] (the search's pruned playouts and RAVE's
    /// playouts), with every move a player makes added to `played` (RAVE's
    /// all-moves-as-first statistics). The default serves every game.
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        recorded_play_out(self, rng, policy, played)
    }

    /// The learned features of this game's moves, by name ([`Game::move_feature`]); empty
    /// when the game has none. A weights file holds one gamma per feature.
    const MOVE_FEATURES: &'static [&'static str] = &[];

    /// The learned weights file (JSON, [`crate::weights::MoveWeights`]) a search uses by
    /// default in place of the game's action values, if the game ships one: learned sets
    /// are measured against the hand-set action values before they replace them.
    const SHIPPED_WEIGHTS: Option<&'static str> = None;

    /// The feature (an index into [`Game::MOVE_FEATURES`]) of move `mv` here: with learned
    /// gammas, a move's strength is its feature's gamma (Coulom 2007). `None`: strength 1.
    #[inline]
    fn move_feature(&self, _mv: Move) -> Option<usize> {
        None
    }

    /// A roulette-wheel playout with learned strengths: move `m` has strength
    /// `gammas[move_feature(m)]`.
    fn learned_playout<R: RngCore>(&mut self, rng: &mut R, gammas: &[f32]) -> Outcome {
        let policy = PlayoutPolicy { biased: true, prune: false, gammas: Some(gammas) };
        play_out(self, rng, |game, moves, rng| policy.pick(game, moves, rng))
    }

    /// The UCB1 exploration constant C a search uses unless told
    /// ([`crate::search::SearchConfigBuilder::c`]): sqrt(2), unless another value measured
    /// stronger for the game.
    const EXPLORATION: f64 = std::f64::consts::SQRT_2;

    /// Whether a search prunes by default ([`Game::prune_moves`],
    /// [`crate::search::SearchConfigBuilder::prune`]): false, unless the game's rule is
    /// cheap and measured stronger at equal time.
    const PRUNE_BY_DEFAULT: bool = false;

    /// How many playouts a search worker keeps in flight by default
    /// ([`crate::search::SearchConfigBuilder::leaves`]): 1, unless [`Game::playouts`]
    /// interleaves lanes and that measured stronger at equal time.
    const PLAYOUT_LANES: usize = 1;

    /// `N` playouts under `policy` at once: lane `i` plays `games[i]` to the end with
    /// `rngs[i]`, exactly the game [`PlayoutPolicy::play_out`] plays from that generator
    /// state. The default plays the lanes one after the other. A game whose playout is one
    /// long chain of dependent steps overrides it to advance the lanes in turn, so that
    /// the core overlaps their chains (Othello: 1.62x the playouts per second with 2
    /// lanes); the search runs [`crate::search::SearchConfig::leaves`] playouts this way.
    fn playouts<R: RngCore, const N: usize>(
        games: &mut [Self; N],
        rngs: &mut [R; N],
        policy: PlayoutPolicy,
    ) -> [Outcome; N] {
        std::array::from_fn(|i| policy.play_out(&mut games[i], &mut rngs[i]))
    }

    /// Plays uniformly random moves until the game ends and returns the outcome.
    /// Games override this with a faster loop; the distribution must stay uniform over
    /// [`Game::legal_moves`] (chance positions: by [`Game::chance_weight`]).
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        play_out(self, rng, |_, moves, rng| moves[random_below(rng, moves.len() as u32) as usize])
    }
}

/// The playout loop behind the trait's default playouts: `pick` chooses among the legal
/// moves (it may reorder them) at players' turns; chance turns draw by
/// [`Game::chance_weight`].
fn play_out<G: Game, R: RngCore>(
    game: &mut G,
    rng: &mut R,
    pick: impl FnMut(&G, &mut [Move], &mut R) -> Move,
) -> Outcome {
    play_out_observed(game, rng, pick, |_, _| {})
}

/// [`play_out`], telling `on_move` every move a player makes.
#[inline(always)]
fn play_out_observed<G: Game, R: RngCore>(
    game: &mut G,
    rng: &mut R,
    mut pick: impl FnMut(&G, &mut [Move], &mut R) -> Move,
    mut on_move: impl FnMut(Player, Move),
) -> Outcome {
    loop {
        if let Some(outcome) = game.outcome() {
            return outcome;
        }
        let mut moves = game.legal_moves();
        let moves = moves.as_mut();
        let mv = match game.turn() {
            Turn::Player(player) => {
                let mv = pick(game, moves, rng);
                on_move(player, mv);
                mv
            }
            Turn::Chance => sample_weighted(game, moves, rng),
        };
        game.play_unchecked(mv);
    }
}

/// The body of [`Game::recorded_playout`]'s default, for overrides that keep it for some
/// settings.
pub(crate) fn recorded_play_out<G: Game, R: RngCore>(
    game: &mut G,
    rng: &mut R,
    policy: PlayoutPolicy,
    played: &mut MovesPlayed,
) -> Outcome {
    play_out_observed(
        game,
        rng,
        |game, moves, rng| policy.pick(game, moves, rng),
        |player, mv| played.insert(player, mv),
    )
}

/// How a playout picks its moves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayoutPolicy<'a> {
    /// Roulette wheel over the moves' strengths instead of uniform.
    pub biased: bool,
    /// Win-first / block-first pruning ([`Game::prune_moves`]) at every ply.
    pub prune: bool,
    /// Learned strengths per move feature ([`Game::move_feature`]); `None`: the game's
    /// own [`Game::action_value`].
    pub gammas: Option<&'a [f32]>,
}

impl PlayoutPolicy<'_> {
    /// The strength of `mv` in `game` under this policy.
    #[inline]
    pub fn strength<G: Game>(&self, game: &G, mv: Move) -> f32 {
        match self.gammas {
            Some(gammas) => game.move_feature(mv).and_then(|f| gammas.get(f)).copied().unwrap_or(1.0),
            None => game.action_value(mv),
        }
    }

    /// Plays `game` to the end under this policy with the game's fastest playout for it
    /// and returns the outcome.
    #[inline(always)]
    pub fn play_out<G: Game, R: RngCore>(&self, game: &mut G, rng: &mut R) -> Outcome {
        match (self.prune, self.biased, self.gammas) {
            (true, _, _) => game.recorded_playout(rng, *self, &mut MovesPlayed::default()),
            (false, true, Some(gammas)) => game.learned_playout(rng, gammas),
            (false, true, None) => game.biased_playout(rng),
            (false, false, _) => game.random_playout(rng),
        }
    }

    /// Picks a move among `moves` (reordering them when pruning).
    #[inline]
    pub fn pick<G: Game, R: RngCore>(&self, game: &G, moves: &mut [Move], rng: &mut R) -> Move {
        let count = if self.prune { game.prune_moves(moves) } else { moves.len() };
        let kept = &moves[..count];
        if self.biased {
            roulette_by(kept, rng, |m| self.strength(game, m))
        } else {
            kept[random_below(rng, kept.len() as u32) as usize]
        }
    }
}

/// The moves each player made during part of a game, as two sets of move ids below 256
/// (higher ids are not recorded): what RAVE's all-moves-as-first statistics need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MovesPlayed {
    bits: [[u64; 4]; 2],
}

impl MovesPlayed {
    /// Empties both sets.
    #[inline]
    pub fn clear(&mut self) {
        *self = MovesPlayed::default();
    }

    /// Records that `player` played `mv`.
    #[inline]
    pub fn insert(&mut self, player: Player, mv: Move) {
        if let Some(word) = self.bits[player.index()].get_mut(mv.0 as usize / 64) {
            *word |= 1 << (mv.0 % 64);
        }
    }

    /// Whether `player` played `mv`.
    #[inline]
    pub fn contains(&self, player: Player, mv: Move) -> bool {
        self.bits[player.index()].get(mv.0 as usize / 64).is_some_and(|w| w >> (mv.0 % 64) & 1 != 0)
    }
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

/// A uniform integer in `0..n` from one 32-bit draw (Lemire's multiply-shift; the bias
/// is below 2^-24 for the move counts of board games). `n` must be positive.
#[inline]
pub fn random_below<R: RngCore>(rng: &mut R, n: u32) -> u32 {
    ((rng.next_u32() as u64 * n as u64) >> 32) as u32
}

/// Draws one of `moves` with probability `f(m) / Σ f` for `f` = [`Game::action_value`]
/// (uniform if the values do not sum to a positive finite number). `moves` must not be
/// empty.
pub fn roulette<G: Game, R: RngCore>(game: &G, moves: &[Move], rng: &mut R) -> Move {
    roulette_by(moves, rng, |m| game.action_value(m))
}

/// Draws one of `moves` (non-empty) with probability proportional to `value(m)` (negative
/// values count as 0; uniform if none is positive).
pub fn roulette_by<R: RngCore>(moves: &[Move], rng: &mut R, value: impl Fn(Move) -> f32) -> Move {
    // Values computed once (on the stack) when they fit; twice otherwise.
    const BUFFER: usize = 128;
    let mut values = [0f32; BUFFER];
    let buffered = moves.len() <= BUFFER;
    let mut total = 0.0;
    for (i, &m) in moves.iter().enumerate() {
        let v = value(m).max(0.0);
        if buffered {
            values[i] = v;
        }
        total += v;
    }
    if !(total > 0.0 && total.is_finite()) {
        return moves[random_below(rng, moves.len() as u32) as usize];
    }
    let mut x = (rng.next_u32() as f32 / 4_294_967_296.0) * total;
    for (i, &m) in moves.iter().enumerate() {
        x -= if buffered { values[i] } else { value(m).max(0.0) };
        if x < 0.0 {
            return m;
        }
    }
    // Rounding left a sliver past the last move: take the last with positive weight.
    *moves.iter().rev().find(|&&m| value(m) > 0.0).unwrap_or(&moves[moves.len() - 1])
}

/// Draws one of `moves` with probability proportional to [`Game::chance_weight`].
pub fn sample_weighted<G: Game, R: RngCore>(game: &G, moves: &[Move], rng: &mut R) -> Move {
    let total: f32 = moves.iter().map(|&m| game.chance_weight(m)).sum();
    let mut x = (rng.next_u32() as f32 / 4_294_967_296.0) * total;
    for &m in moves {
        x -= game.chance_weight(m);
        if x < 0.0 {
            return m;
        }
    }
    moves[moves.len() - 1]
}
