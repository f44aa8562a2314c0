//! The game of Go on an `N`x`N` board ([`Go9`], [`Go13`], [`Go19`]) under Tromp-Taylor
//! rules with positional superko.
//!
//! # Rules
//! * Area scoring (Tromp-Taylor): a player's score is their stones plus the empty points
//!   whose empty region reaches their stones only; White adds the komi (7 by default,
//!   [`Go::with_komi`], [`Go::set_komi`]). Black ([`Player::One`]) moves first. With an
//!   integer komi a draw is possible.
//! * Suicide (of one stone or of a chain) is illegal; a capture that looks like
//!   suicide is legal.
//! * Positional superko: no move may recreate a whole-board position that occurred
//!   earlier in the game ([`Superko::Positional`], the default). [`Superko::SimpleKo`]
//!   keeps only the simple-ko rule (no immediate retake of a single stone that just
//!   captured a single stone), as GNU Go's `is_legal` does.
//! * The game ends after two passes in a row, or after [`Go::MAX_PLIES`] = `3 N²` plies
//!   (a cap that makes every playout and every random game finite; real games end far
//!   sooner), and is then scored on the board as it stands: dead stones must be
//!   captured before the end to count as dead.
//!
//! # Moves and notation
//! Point `(row, col)` (0-based, row 0 at the bottom) is `Move(row * N + col)`, the pass
//! `Move(N * N)` ([`Go::PASS`]). The text is the GTP vertex: a column letter `A`..`T`
//! skipping `I`, then the row `1..N` from the bottom (`D4`, `q16`; input is
//! case-insensitive), and `pass`.
//!
//! # History and the cost of a clone
//! Positional superko needs every earlier position of the game. A position keeps their
//! stone hashes in a persistent list (`Arc` cons cells, newest first) shared by all
//! clones: a clone costs one reference-count increment plus a copy of the board (about
//! 5 KiB: the chain arrays are sized for 19x19), and each move played through
//! [`Game::play_unchecked`] allocates one 16-byte cell. The superko test walks the list,
//! and only once some stones have been captured in the game (before that, every move
//! adds a stone, so no position can repeat). Playouts use simple ko only and add no
//! cells. [`Game::hash`] covers the stones, the side to move, the ko point and a pending
//! pass, not the history: transpositions hash alike, and positions that differ only in
//! which earlier positions superko forbids share a hash.
//!
//! # Examples
//! ```
//! use parmcts::games::go::Go9;
//! use parmcts::{Game, Player};
//!
//! let mut game = Go9::new();
//! game.play_sequence("D4 E5 pass").unwrap();
//! assert_eq!(game.stone_at(game.parse_move("d4").unwrap()), Some(Player::One));
//! assert!(game.parse_move("I5").is_err());
//! assert_eq!(game.area_score(), 1.0 - 1.0 - 7.0 + 0.0);
//! ```

mod board;
mod closing;
#[cfg(feature = "harness")]
mod gtp;
pub mod heavy;
#[cfg(feature = "encoding")]
mod onnx;
pub mod patterns;
mod playout;

use std::fmt;
use std::sync::Arc;

use self::board::{Board, BLACK, EMPTY, NO_POINT, WHITE};
use super::evaluate::{Evaluate, EVAL_LIMIT};
use super::{Game, GameError, Move, MoveList, Outcome, Player, Tuning};

pub use self::board::MAX_SIDE;

/// The shipped learned gammas of Go's move features on 9x9 ([`Tuning::SHIPPED_WEIGHTS`]).
pub const DEFAULT_WEIGHTS: &str = include_str!("weights.json");

/// Go on 9x9 (`go`).
pub type Go9 = Go<9>;
/// Go on 13x13 (`go13`).
pub type Go13 = Go<13>;
/// Go on 19x19 (`go19`).
pub type Go19 = Go<19>;

/// GTP's column letters (no `I`).
const COLUMNS: &[u8; MAX_SIDE] = b"ABCDEFGHJKLMNOPQRST";

/// Hash keys of the side to move (White) and of a pending pass.
const WHITE_TO_MOVE_KEY: u64 = 0x8A5C_D789_635D_2DFF;
const PASS_PENDING_KEY: u64 = 0x1215_8B21_43C4_F4E1;

/// Which repetitions the rules forbid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Superko {
    /// No move may recreate an earlier whole-board position (the default).
    #[default]
    Positional,
    /// Only the simple-ko rule: no immediate retake of a ko.
    SimpleKo,
}

/// One earlier position's stone hash, and the ones before it.
#[derive(Debug)]
struct History {
    hash: u64,
    prev: Option<Arc<History>>,
}

/// A Go position on an `N`x`N` board (2 ≤ `N` ≤ 19): see the module doc.
#[derive(Clone)]
pub struct Go<const N: usize> {
    board: Board<N>,
    to_move: Player,
    /// The cell the side to move may not play (simple ko), or `NO_POINT`.
    ko: u16,
    /// Passes in a row just before this position.
    passes: u8,
    /// The cells of the last two moves, the last first ([`NO_POINT`]: a pass, or none):
    /// what a heavy playout answers first (the tree's last move is a playout's first
    /// "last move"), and the context of a last good reply. Not part of the rules state.
    recent: [u16; 2],
    /// Whether any stone has been captured in the game (superko can only bite then).
    captured: bool,
    plies: u16,
    komi: f32,
    superko: Superko,
    /// The stone hashes of this game's positions, this one first.
    history: Option<Arc<History>>,
}

impl<const N: usize> Go<N> {
    /// The pass move, `Move(N * N)`.
    pub const PASS: Move = Move((N * N) as u16);

    /// The cap on a game's length in plies, `3 N²`: the game is over and scored when it
    /// is reached.
    pub const MAX_PLIES: u16 = (3 * N * N) as u16;

    const VALID_SIZE: () = assert!(N >= 2 && N <= MAX_SIDE, "Go boards are 2x2 to 19x19");

    /// The empty board with Black to move and komi `komi`.
    pub fn with_komi(komi: f32) -> Self {
        let () = Self::VALID_SIZE;
        let board = Board::new();
        let history = Some(Arc::new(History { hash: board.hash, prev: None }));
        Go {
            board,
            to_move: Player::One,
            ko: NO_POINT,
            passes: 0,
            recent: [NO_POINT; 2],
            captured: false,
            plies: 0,
            komi,
            superko: Superko::Positional,
            history,
        }
    }

    /// The komi White receives.
    pub fn komi(&self) -> f32 {
        self.komi
    }

    /// Sets the komi White receives.
    pub fn set_komi(&mut self, komi: f32) {
        self.komi = komi;
    }

    /// The repetition rule in force.
    pub fn superko(&self) -> Superko {
        self.superko
    }

    /// Sets the repetition rule (for games against engines that know simple ko only).
    pub fn set_superko(&mut self, superko: Superko) {
        self.superko = superko;
    }

    /// Plies played since the empty board (passes included).
    pub fn plies(&self) -> u32 {
        self.plies as u32
    }

    /// The stone on point `mv` (`row * N + col`), if any; `None` for the pass and off
    /// the board too.
    pub fn stone_at(&self, mv: Move) -> Option<Player> {
        if mv.0 as usize >= N * N {
            return None;
        }
        match self.board.color[Board::<N>::cell(mv.0 as usize)] {
            BLACK => Some(Player::One),
            WHITE => Some(Player::Two),
            _ => None,
        }
    }

    /// Black's area minus White's, komi included (Tromp-Taylor, on the board as it stands).
    pub fn area_score(&self) -> f32 {
        let (black, white) = self.board.area();
        black as f32 - white as f32 - self.komi
    }

    /// Whether the side to move may play `mv` now (superko per [`Go::superko`]).
    pub fn is_legal(&self, mv: Move) -> bool {
        if self.is_over() || mv.0 as usize > N * N {
            return false;
        }
        mv == Self::PASS || self.point_is_legal(Board::<N>::cell(mv.0 as usize))
    }

    /// Plays `mv` for `player`, who need not be the side to move (GTP's `play`, handicap
    /// stones); the other player is to move afterwards.
    ///
    /// # Errors
    /// [`GameError::GameOver`], or [`GameError::IllegalMove`] (the position is unchanged).
    pub fn play_as(&mut self, player: Player, mv: Move) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        let before = self.to_move;
        self.to_move = player;
        if !self.is_legal(mv) {
            self.to_move = before;
            return Err(GameError::IllegalMove(self.format_move(mv)));
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Makes `player` the side to move without a move (GTP's `genmove` for a colour not
    /// to move, as in handicap set-up): a ko ban, which binds the side to move, lapses.
    pub fn give_turn(&mut self, player: Player) {
        if player != self.to_move {
            self.to_move = player;
            self.ko = NO_POINT;
            self.recent = [NO_POINT; 2];
        }
    }

    /// The empty points.
    pub fn empty_points(&self) -> u32 {
        u32::from(self.board.empties)
    }

    fn is_over(&self) -> bool {
        self.passes >= 2 || self.plies >= Self::MAX_PLIES
    }

    /// The colour of the side to move.
    fn color(&self) -> u8 {
        match self.to_move {
            Player::One => BLACK,
            Player::Two => WHITE,
        }
    }

    /// Whether the side to move may place a stone on `cell` (simple ko, suicide, superko).
    fn point_is_legal(&self, cell: usize) -> bool {
        let color = self.color();
        if !self.board.is_legal(cell, color, self.ko) {
            return false;
        }
        if self.superko == Superko::SimpleKo || !self.captured {
            return true;
        }
        let after = self.board.hash_after(cell, color);
        let mut entry = self.history.as_deref();
        while let Some(h) = entry {
            if h.hash == after {
                return false;
            }
            entry = h.prev.as_deref();
        }
        true
    }

    /// Plays a stone of the side to move on `cell` (legal under simple ko): the board,
    /// ko, passes and captures, not the history or the turn.
    #[inline(always)]
    fn place(&mut self, cell: usize) {
        let placed = self.board.place(cell, self.color());
        self.ko = placed.ko;
        self.captured |= placed.captured > 0;
        self.passes = 0;
    }

    /// The stone hashes of the earlier positions, newest first (for tests of the history).
    fn history_hashes(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::successors(self.history.as_deref(), |h| h.prev.as_deref()).map(|h| h.hash)
    }
}

impl<const N: usize> Game for Go<N> {
    const NAME: &'static str = match N {
        9 => "go",
        13 => "go13",
        19 => "go19",
        _ => "go-other",
    };

    type Moves = MoveList<{ MAX_SIDE * MAX_SIDE + 1 }>;

    fn new() -> Self {
        Self::with_komi(7.0)
    }

    fn side_to_move(&self) -> Player {
        self.to_move
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        let score = self.area_score();
        Some(if score > 0.0 {
            Outcome::Win(Player::One)
        } else if score < 0.0 {
            Outcome::Win(Player::Two)
        } else {
            Outcome::Draw
        })
    }

    fn legal_moves(&self) -> Self::Moves {
        let mut moves = MoveList::new();
        if self.is_over() {
            return moves;
        }
        for point in 0..N * N {
            if self.point_is_legal(Board::<N>::cell(point)) {
                moves.push(Move(point as u16));
            }
        }
        moves.push(Self::PASS);
        moves
    }

    fn play_unchecked(&mut self, mv: Move) {
        let cell = if mv == Self::PASS {
            self.passes += 1;
            self.ko = NO_POINT;
            NO_POINT
        } else {
            let cell = Board::<N>::cell(mv.0 as usize);
            self.place(cell);
            self.history = Some(Arc::new(History { hash: self.board.hash, prev: self.history.take() }));
            cell as u16
        };
        self.recent = [cell, self.recent[0]];
        self.plies += 1;
        self.to_move = self.to_move.other();
    }

    fn try_play(&mut self, mv: Move) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        if !self.is_legal(mv) {
            return Err(GameError::IllegalMove(self.format_move(mv)));
        }
        self.play_unchecked(mv);
        Ok(())
    }

    fn hash(&self) -> u64 {
        let mut hash = self.board.hash;
        if self.to_move == Player::Two {
            hash ^= WHITE_TO_MOVE_KEY;
        }
        if self.ko != NO_POINT {
            hash ^= board::ZOBRIST[2][self.ko as usize];
        }
        if self.passes == 1 {
            hash ^= PASS_PENDING_KEY;
        }
        hash
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        let bad = |why: &str| GameError::BadMove(format!("{text} ({why})"));
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("pass") {
            return Ok(Self::PASS);
        }
        let column = |c: char| COLUMNS[..N].iter().position(|&l| char::from(l) == c.to_ascii_uppercase());
        let (col, row) = crate::games::parse_coordinate(trimmed, N, column).ok_or_else(|| {
            bad(&format!("expected a vertex A1-{}{N} (columns without I) or pass", char::from(COLUMNS[N - 1])))
        })?;
        Ok(Move((row * N + col) as u16))
    }

    fn format_move(&self, mv: Move) -> String {
        let point = mv.0 as usize;
        if point >= N * N {
            return "pass".to_string();
        }
        format!("{}{}", COLUMNS[point % N] as char, point / N + 1)
    }

    /// The board size and the komi.
    fn gtp_setup(&self) -> Vec<String> {
        vec![format!("boardsize {N}"), format!("komi {}", self.komi)]
    }

    fn render(&self) -> String {
        let letters: String = COLUMNS[..N].iter().map(|&c| format!(" {}", c as char)).collect();
        let mut out = format!("  {letters}\n");
        for row in (0..N).rev() {
            out.push_str(&format!("{:>2}", row + 1));
            for col in 0..N {
                let cell = Board::<N>::cell(row * N + col);
                let mark = match self.board.color[cell] {
                    BLACK => 'X',
                    WHITE => 'O',
                    _ if cell == self.ko as usize => '*',
                    _ => '.',
                };
                out.push(' ');
                out.push(mark);
            }
            out.push_str(&format!(" {}\n", row + 1));
        }
        out.push_str(&format!("  {letters}\n"));
        let side = if self.to_move == Player::One { "Black (X)" } else { "White (O)" };
        out.push_str(&format!("{side} to move, komi {}, area score {:+}", self.komi, self.area_score()));
        out
    }
}

impl<const N: usize> fmt::Debug for Go<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Go{N} {{ plies: {}, passes: {}, ko: {} }}\n{}", self.plies, self.passes, self.ko, self.render())
    }
}

/// Equal rules state: the same stones, side to move, ko point, passes, length, komi,
/// repetition rule and history of positions (chain bookkeeping may differ).
impl<const N: usize> PartialEq for Go<N> {
    fn eq(&self, other: &Self) -> bool {
        (0..N * N).all(|p| {
            let cell = Board::<N>::cell(p);
            self.board.color[cell] == other.board.color[cell]
        }) && self.to_move == other.to_move
            && self.ko == other.ko
            && self.passes == other.passes
            && self.plies == other.plies
            && self.komi == other.komi
            && self.superko == other.superko
            && self.history_hashes().eq(other.history_hashes())
    }
}

impl<const N: usize> Tuning for Go<N> {
    /// Measured on 9x9 with light playouts at 3,000 playouts a move (docs/RESULTS.md):
    /// 0.5 scored 0.78 against sqrt(2), 0.25 0.655 against 0.5, and 0.12 0.25 against
    /// 0.25. With today's priors as experience and RAVE, at equal time (50 ms a move), 0.1
    /// scored 0.588 [0.540, 0.634] against 0.25 (+61 Elo, 400 games). The larger boards
    /// take 9x9's settings as one set (measured as such: [`Tuning::SHIPPED_WEIGHTS`]).
    const EXPLORATION: f64 = 0.1;

    /// Heavy playouts (docs/RESULTS.md, "Go: against GNU Go level 10"): against GNU Go
    /// at 2 s a move they scored 0.708 where light playouts scored 0.354 on the same 24
    /// openings and colours (11 games turned to wins, 2 to losses), though in self-play
    /// at equal time the two were even (0.475 for heavy at 1.55x the cost a playout).
    const BIASED_PLAYOUTS_BY_DEFAULT: bool = true;

    /// Measured on 9x9 (docs/RESULTS.md): k = 1000 scored 0.725 against no RAVE at 3,000
    /// playouts a move, and 0.755 at equal time (3,000 playouts with RAVE against 3,600
    /// without; RAVE's recorded playouts cost 1.14x). Re-measured with the priors as
    /// experience and C = 0.1 at equal time: k = 300 scored 0.449 and k = 3000 0.388
    /// against it.
    const RAVE: f32 = 1000.0;

    /// Progressive bias by the heavy playout's knowledge ([`Go::move_strength`]), measured
    /// on 9x9 at 3,000 playouts a move with RAVE (docs/RESULTS.md): C_BT = 0.5 scored
    /// 0.665 against none, 0.25 scored 0.64, 2 0.595 and 8 0.55; the priors cost about 4 % of the
    /// playout rate. On 9x9 the priors are the learned gammas ([`Tuning::SHIPPED_WEIGHTS`]),
    /// sharper than the hand-set strengths: with them C_BT = 0.25 scored 0.618 against
    /// the hand-set priors at 0.5 (+83 Elo, 200 games, 3,000 playouts a move), 0.1 scored
    /// 0.448, 0.5 0.490 and 1 0.242. Since the priors count as experience
    /// ([`Tuning::PRIOR_VISITS`]) the bias term counts them twice: on 9x9 at equal time,
    /// C_BT = 0 scored 0.598 [0.551, 0.642] against 0.25 (+69 Elo, 400 games), so Go
    /// has none; the priors still act as experience.
    const PROGRESSIVE_BIAS: f32 = 0.0;

    /// The gammas of Go's tactics and 3x3 patterns ([`patterns`]) fitted by `parmcts
    /// train-weights` to GNU Go's 9x9 moves (`weights.json` records the command), the
    /// distances and lines weighted 1: the fit of all five groups scored 0.520 [0.472,
    /// 0.568] against it at equal time (400 games, docs/results/go.md), no gain shown.
    /// Every size ships them (the features do not depend on the board), with 9x9's
    /// settings: on 13x13 at 50 ms a move that set (these weights, C = 0.1, C_BT = 0,
    /// 20 prior visits, last good replies) scored 0.995 [0.982, 0.999] against the
    /// hand-set strengths with C = 0.25, C_BT = 0.5 (400 games); on 19x19 see
    /// docs/results/go.md.
    const SHIPPED_WEIGHTS: Option<&'static str> = Some(DEFAULT_WEIGHTS);

    /// Priors as equivalent experience, measured on 9x9 at equal time (docs/RESULTS.md):
    /// 20 visits scored 0.750 against none at 50 ms a move (+191 Elo [+152, +229], 400
    /// games); the larger boards take them with 9x9's other settings.
    const PRIOR_VISITS: f32 = 20.0;

    /// Last good replies with forgetting in the playouts, measured on 9x9 at equal time
    /// (docs/RESULTS.md): 0.604 against the same without at 50 ms a move (+73 Elo
    /// [+39, +108], 400 games), at the same playout rate; the larger boards take them
    /// with 9x9's other settings.
    const LAST_GOOD_REPLIES: bool = true;
}

/// The Tromp-Taylor area score for the side to move, 1,000 per point: a crude estimate
/// early in the game (regions touching both colours count for nobody).
impl<const N: usize> Evaluate for Go<N> {
    fn evaluate(&self) -> i32 {
        let score = self.area_score() * if self.to_move == Player::One { 1.0 } else { -1.0 };
        ((score * 1000.0) as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

/// Test support: calls `visit` on every position of `games` 9x9 games of light-playout
/// moves drawn from `seed`, the first `max_plies` plies of each.
#[cfg(test)]
pub(in crate::games::go) fn for_each_playout_position(
    seed: u64,
    games: usize,
    max_plies: u32,
    mut visit: impl FnMut(&Go9),
) {
    use rand_core::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..games {
        let mut game = Go9::new();
        while game.outcome().is_none() && game.plies() < max_plies {
            visit(&game);
            let mv = game.playout_move(&mut rng);
            game.play_unchecked(mv);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_points_round_trip() {
        for p in 0..81 {
            let c = Board::<9>::cell(p);
            assert_eq!(Board::<9>::point(c), p);
            assert_eq!(Go9::new().board.color[c], EMPTY);
            assert!(!board::is_stone(Go9::new().board.color[c]));
        }
        assert_eq!(Go19::new().board.empties, 361);
    }

    /// Random games mixing light-playout moves and uniformly random legal moves (which
    /// fill eyes, so chains die and merge in every way): after every move the board's
    /// incremental state equals its recomputation.
    fn random_games<const N: usize>(games: u64) {
        use rand_core::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(N as u64);
        for g in 0..games {
            let mut game = Go::<N>::new();
            while game.outcome().is_none() {
                let mv = if g % 2 == 0 {
                    game.playout_move(&mut rng)
                } else {
                    let moves = game.legal_moves();
                    moves[crate::games::random_below(&mut rng, moves.len() as u32) as usize]
                };
                assert!(game.is_legal(mv), "{}", game.format_move(mv));
                game.play_unchecked(mv);
                game.board.assert_consistent();
            }
        }
    }

    #[test]
    fn incremental_board_state_matches_a_recomputation() {
        random_games::<9>(40);
        random_games::<5>(40);
        random_games::<19>(2);
    }
}
