//! Connect Four 7x6 on a 7-bits-per-column bitboard (Pons / Tromp layout).
//!
//! Bit `7 * col + row` is the cell in column `col` (0 = left) and row `row` (0 = bottom);
//! the seventh bit of each column is an always-empty sentinel, so a shift never carries a
//! line from one column into the next. The state keeps the stones of the side to move and
//! the mask of all stones; moves are columns 0-6 internally and digits 1-7 in text.

use rand_core::RngCore;

use super::evaluate::{Evaluate, EVAL_LIMIT};
use super::{
    random_below, Game, GameError, Move, MoveList, MovesPlayed, Outcome, Player, PlayoutPolicy, Playouts, Tuning,
};

mod classes;
#[cfg(feature = "encoding")]
mod onnx;
pub mod solver;

pub use classes::hand_set_gammas;
use classes::{nth_cell, ClassWeights, ClassWheel, HandSet, CLASS_NAMES};

/// Number of columns.
pub const WIDTH: u32 = 7;
/// Number of rows.
pub const HEIGHT: u32 = 6;
/// Bits per column: the rows and a sentinel.
pub(crate) const H1: u32 = HEIGHT + 1;
/// One bit at the bottom of each column.
pub(crate) const BOTTOM: u64 = {
    let mut mask = 0;
    let mut col = 0;
    while col < WIDTH {
        mask |= 1 << (col * H1);
        col += 1;
    }
    mask
};
/// Every playable cell (no sentinels).
pub(crate) const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

/// A Connect Four position. The first player moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConnectFour {
    /// Stones of the side to move.
    current: u64,
    /// All stones.
    mask: u64,
    /// Plies played.
    plies: u8,
}

/// Whether `stones` contain four in a row (vertical, horizontal, both diagonals).
#[inline]
pub fn has_four(stones: u64) -> bool {
    // Branch-free: the four directions are independent, so they run in parallel.
    let line = |dir: u32| {
        let pairs = stones & (stones >> dir);
        pairs & (pairs >> (2 * dir))
    };
    (line(1) | line(H1) | line(H1 - 1) | line(H1 + 1)) != 0
}

/// The empty cells (of `mask`'s complement on the board) that would complete four in a
/// row for `stones`: vertical, horizontal and both diagonals (Pons, part 9,
/// `compute_winning_position`). Sentinel bits stop lines from wrapping across columns.
#[inline]
pub(crate) fn winning_cells(stones: u64, mask: u64) -> u64 {
    // Vertical: three stones directly below.
    let mut r = (stones << 1) & (stones << 2) & (stones << 3);
    for dir in [H1, H1 - 1, H1 + 1] {
        // Two neighbours on one side, then either a third on that side or one opposite.
        let p = (stones << dir) & (stones << (2 * dir));
        r |= p & (stones << (3 * dir));
        r |= p & (stones >> dir);
        let p = (stones >> dir) & (stones >> (2 * dir));
        r |= p & (stones >> (3 * dir));
        r |= p & (stones << dir);
    }
    r & (BOARD ^ mask)
}

impl ConnectFour {
    /// The lowest empty cell of each column that is not full.
    #[inline]
    pub fn playable(&self) -> u64 {
        (self.mask + BOTTOM) & BOARD
    }

    /// Whether column `col` (0-6) has room.
    #[inline]
    pub fn can_play(&self, col: u32) -> bool {
        col < WIDTH && self.mask & (1 << (col * H1 + HEIGHT - 1)) == 0
    }

    /// Plies played so far.
    pub fn plies(&self) -> u32 {
        self.plies as u32
    }

    /// Stones of the side to move.
    pub fn current_stones(&self) -> u64 {
        self.current
    }

    /// All stones on the board.
    pub fn all_stones(&self) -> u64 {
        self.mask
    }

    /// Whether playing column `col` wins at once for the side to move.
    #[inline]
    pub fn is_winning_move(&self, col: u32) -> bool {
        let cell = self.playable() & column_mask(col);
        cell != 0 && has_four(self.current | cell)
    }

    /// Drops a stone on `cell` (a single bit from [`ConnectFour::playable`]).
    #[inline]
    fn play_cell(&mut self, cell: u64) {
        // No win check here: `outcome` looks for four in a row only when asked. The search
        // replays about a dozen known non-terminal moves per iteration and never asks
        // about them (measured: 6 % fewer instructions per Connect Four MCTS iteration).
        self.current ^= self.mask; // the opponent's stones become the side to move's
        self.mask |= cell;
        self.plies += 1;
    }

    /// Who occupies the cell at (`col`, `row`), row 0 at the bottom.
    pub fn cell(&self, col: u32, row: u32) -> Option<Player> {
        let bit = 1u64 << (col * H1 + row);
        if self.mask & bit == 0 {
            return None;
        }
        let mover = self.side_to_move();
        Some(if self.current & bit != 0 { mover } else { mover.other() })
    }
}

/// The cells of column `col`.
#[inline]
pub const fn column_mask(col: u32) -> u64 {
    ((1 << HEIGHT) - 1) << (col * H1)
}

/// The lowest empty cell of each non-full column of a board with stones `mask`.
#[inline]
pub(crate) fn playable_cells(mask: u64) -> u64 {
    (mask + BOTTOM) & BOARD
}

/// Row parity masks: cells on rows 1, 3, 5 (counted from 1 at the bottom) and on rows 2,
/// 4, 6. Used by the alpha-beta evaluation (threats on odd rows favour the first player).
pub(crate) const ODD_ROWS: u64 = BOTTOM * 0b01_0101;
/// See [`ODD_ROWS`].
pub(crate) const EVEN_ROWS: u64 = BOTTOM * 0b10_1010;
/// The centre column's cells.
pub(crate) const CENTRE: u64 = column_mask(3);

impl Game for ConnectFour {
    const NAME: &'static str = "connect4";

    type Moves = MoveList<7>;

    fn new() -> Self {
        ConnectFour::default()
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
        // Only the player who just moved can have four in a row.
        if has_four(self.current ^ self.mask) {
            Some(Outcome::Win(self.side_to_move().other()))
        } else if self.plies as u32 == WIDTH * HEIGHT {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn legal_moves(&self) -> MoveList<7> {
        let mut moves = MoveList::new();
        if self.outcome().is_none() {
            for col in 0..WIDTH {
                if self.can_play(col) {
                    moves.push(Move(col as u16));
                }
            }
        }
        moves
    }

    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        let cell = self.playable() & column_mask(mv.0 as u32);
        self.play_cell(cell);
    }

    fn hash(&self) -> u64 {
        // current + mask identifies the position uniquely (Pons's key); mix it.
        let key = self.current.wrapping_add(self.mask);
        let mut x = key ^ (key >> 31);
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^ (x >> 29)
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.trim().parse::<u16>() {
            Ok(col @ 1..=7) => Ok(Move(col - 1)),
            _ => Err(GameError::BadMove(format!("{text} (expected a column 1-7)"))),
        }
    }

    fn format_move(&self, mv: Move) -> String {
        (mv.0 + 1).to_string()
    }

    fn split_moves<'a>(&self, text: &'a str) -> Vec<&'a str> {
        super::split_single_chars(text)
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for row in (0..HEIGHT).rev() {
            for col in 0..WIDTH {
                out.push(match self.cell(col, row) {
                    Some(Player::One) => 'X',
                    Some(Player::Two) => 'O',
                    None => '.',
                });
            }
            out.push('\n');
        }
        out.push_str("1234567\n");
        out
    }
}

impl Playouts for ConnectFour {
    /// Threats first: a move that wins at once 1000; one that blocks the opponent's
    /// immediate win 100; one right below a winning cell of either side 0.05 (it lets the
    /// opponent win there, or block the mover's own threat); one that makes a new three (a
    /// new cell that would complete four) 2; otherwise 1. The bitboard playouts use the
    /// same weights x20. The "below your own threat" class and make-a-three's 2 were
    /// chosen by matches (docs/RESULTS.md, "Connect Four: the ≥ 90 % target").
    #[inline]
    fn action_value(&self, mv: Move) -> f32 {
        let cell = self.playable() & column_mask(mv.0 as u32);
        self.cell_classes().weight(cell) as f32 / 20.0
    }

    /// The trait's rule from winning cells, without playing anything
    /// (`ConnectFour::pruned_cells`): the moves whose cell is kept, a winning one alone.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        let playable = self.playable();
        let kept_cells = self.pruned_cells();
        let mut kept = 0;
        for i in 0..moves.len() {
            if playable & column_mask(moves[i].0 as u32) & kept_cells != 0 {
                moves.swap(kept, i);
                kept += 1;
            }
        }
        kept
    }

    /// The roulette wheel of [`Playouts::action_value`] on bitboards: the same weights (as
    /// integers, x20), computed for all playable cells from the two sides' winning cells
    /// instead of move by move (`CellClasses`; tested to give every cell its action
    /// value and to draw with those frequencies).
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        self.play_out_cells(rng, |game, playable, rng| game.pick_cell(playable, false, Some(&HandSet), rng), |_, _| {})
    }

    /// The cell classes of [`Playouts::action_value`], in its order.
    fn move_features() -> &'static [&'static str] {
        &CLASS_NAMES
    }

    #[inline]
    fn move_feature(&self, mv: Move) -> Option<usize> {
        let cell = self.playable() & column_mask(mv.0 as u32);
        self.cell_classes().masks().iter().position(|&mask| mask & cell != 0)
    }

    /// The class wheel with each class weighted by its gamma (`ClassWheel::learned`).
    fn learned_playout<R: RngCore>(&mut self, rng: &mut R, gammas: &[f32]) -> Outcome {
        let wheel = ClassWheel::learned(gammas);
        self.play_out_cells(rng, |game, playable, rng| game.pick_cell(playable, false, Some(&wheel), rng), |_, _| {})
    }

    /// Every policy on bitboards (`ConnectFour::play_out_cells`), learned gammas included.
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        let record = |player, mv| played.insert(player, mv);
        let prune = policy.prune;
        // A closure per arm: one helper taking the wheel as an argument counted 3.7 % more
        // instructions in a search (callgrind), its wheel no longer known in the loop.
        match (policy.biased, policy.gammas) {
            (true, None) => self.play_out_cells(
                rng,
                |game, playable, rng| game.pick_cell(playable, prune, Some(&HandSet), rng),
                record,
            ),
            (true, Some(gammas)) => {
                let wheel = ClassWheel::learned(gammas);
                self.play_out_cells(
                    rng,
                    |game, playable, rng| game.pick_cell(playable, prune, Some(&wheel), rng),
                    record,
                )
            }
            (false, _) => self.play_out_cells(
                rng,
                |game, playable, rng| game.pick_cell(playable, prune, None::<&HandSet>, rng),
                record,
            ),
        }
    }

    #[inline]
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        // Uniform over the open columns by rejection: draw a column, redraw if it is
        // full. Measured: 1,268 instructions and 332 cycles per playout, against 1,462
        // and 670 for a branch-free gather plus table lookup.
        let pick = |_: &Self, playable: u64, rng: &mut R| loop {
            let cell = playable & column_mask(random_below(rng, WIDTH));
            if cell != 0 {
                break cell;
            }
        };
        self.play_out_cells(rng, pick, |_, _| {})
    }
}

impl Tuning for ConnectFour {
    /// Measured: +0.09 in score against plain UCT on top of biased playouts at 20 ms
    /// per move (docs/RESULTS.md); the rule is a few bitboard operations.
    const PRUNE_BY_DEFAULT: bool = true;

    /// Measured: +104 Elo [+75, +132] over sqrt(2) with the default playouts and pruning
    /// at 20 ms per move, and 0.3 -42 Elo [-83, -1] against 0.5 (docs/RESULTS.md).
    const EXPLORATION: f64 = 0.5;

    /// Measured against UCB1 at the root at equal playouts: +4, +2, +18, +27 and +74 Elo
    /// [+33, +114] at 4,000, 16,000, 32,000, 128,000 and 512,000; at equal time -9 at
    /// 200 ms and +45 [+3, +86] at 500 ms (docs/RESULTS.md): UCB1 stops revisiting the
    /// opening's rivals past 32,000 playouts, halving shares them out.
    const HALVING: bool = true;
}

impl ConnectFour {
    /// The cell a pruned or biased playout plays among the `playable` ones. With `prune`,
    /// only [`ConnectFour::pruned_cells`]. Among the cells kept: with `weighted`, the
    /// roulette wheel of the action values ([`CellClasses::draw`](classes::CellClasses::draw)), else uniform,
    /// numbering the cells in column order and drawing one number per ply even when one
    /// cell is kept, exactly as the trait's loop does — so the pruned uniform playout
    /// plays the same game as the trait's from the same generator state (tested).
    #[inline(always)]
    fn pick_cell<W: ClassWeights, R: RngCore>(
        &self,
        playable: u64,
        prune: bool,
        wheel: Option<&W>,
        rng: &mut R,
    ) -> u64 {
        if let Some(wheel) = wheel {
            let classes = self.cell_classes();
            let kept = if prune { classes.pruned() } else { playable };
            classes.draw(kept, wheel, rng)
        } else {
            let kept = if prune { self.pruned_cells() } else { playable };
            nth_cell(kept, random_below(rng, kept.count_ones()))
        }
    }

    /// The playout loop on bitboards behind every playout: `pick` chooses each cell (one
    /// bit) among the playable ones; `on_move` hears each (player, column).
    #[inline(always)]
    fn play_out_cells<R: RngCore>(
        &mut self,
        rng: &mut R,
        mut pick: impl FnMut(&Self, u64, &mut R) -> u64,
        mut on_move: impl FnMut(Player, Move),
    ) -> Outcome {
        if let Some(outcome) = self.outcome() {
            return outcome;
        }
        loop {
            if self.plies as u32 == WIDTH * HEIGHT {
                return Outcome::Draw;
            }
            let cell = pick(self, self.playable(), rng);
            // Test the mover's stones with the new one before the board update, off the
            // update's dependency chain.
            let won = has_four(self.current | cell);
            let mover = self.side_to_move();
            on_move(mover, Move((cell.trailing_zeros() / H1) as u16));
            self.play_cell(cell);
            if won {
                return Outcome::Win(mover);
            }
        }
    }
}

/// Connect Four: threat cells, weighted by row parity, plus centre control.
///
/// * **Immediate win.** If the side to move has a *playable* threat cell it wins next
///   move: `EVAL_LIMIT / 2`.
/// * **Threats.** A threat cell is an empty cell that would complete four for its owner.
///   Each scores `4` for its owner when it lies on the owner's good parity (rows 1, 3, 5
///   counted from the bottom for the first player, rows 2, 4, 6 for the second: in
///   zugzwang endings each player gets to fill the cells of its own parity), else `2`.
/// * **Centre.** Each disc in the centre column (it takes part in the most lines): `1`.
///
/// The value is the side to move's total minus the opponent's.
impl Evaluate for ConnectFour {
    fn evaluate(&self) -> i32 {
        let mask = self.all_stones();
        let me = self.current_stones();
        let opp = me ^ mask;
        let my_threats = winning_cells(me, mask);
        if my_threats & playable_cells(mask) != 0 {
            return EVAL_LIMIT / 2;
        }
        let (my_rows, their_rows) =
            if self.side_to_move() == Player::One { (ODD_ROWS, EVEN_ROWS) } else { (EVEN_ROWS, ODD_ROWS) };
        let weigh = |threats: u64, good_rows: u64| {
            4 * (threats & good_rows).count_ones() as i32 + 2 * (threats & !good_rows).count_ones() as i32
        };
        let threats = weigh(my_threats, my_rows) - weigh(winning_cells(opp, mask), their_rows);
        let centre = (me & CENTRE).count_ones() as i32 - (opp & CENTRE).count_ones() as i32;
        threats + centre
    }
}

/// The mirror of Connect Four's 42 cells (cell `row * 7 + col`, row 0 at the bottom).
const MIRROR: [u8; 42] = {
    let mut m = [0u8; 42];
    let mut i = 0;
    while i < 42 {
        m[i] = ((i / 7) * 7 + (6 - i % 7)) as u8;
        i += 1;
    }
    m
};

/// Identity and the left-right mirror.
static C4_SYMMETRIES: [&[u8]; 2] = [
    &[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,
    ],
    &MIRROR,
];

impl crate::games::NTupleBoard for ConnectFour {
    /// Cell `row * 7 + col`, row 0 at the bottom.
    const CELLS: usize = 42;

    /// Trained by TD(0) self-play; the command is in the file's header.
    const SHIPPED_NETWORK: Option<&'static [u8]> = Some(include_bytes!("network.pmnt"));

    #[inline]
    fn cells(&self, out: &mut [u8]) {
        let opponent = self.mask ^ self.current;
        for (i, cell) in out.iter_mut().enumerate().take(42) {
            let bit = (i as u32 % WIDTH) * H1 + i as u32 / WIDTH;
            *cell = ((self.current >> bit) & 1) as u8 | (((opponent >> bit) & 1) as u8) << 1;
        }
    }

    fn symmetries() -> &'static [&'static [u8]] {
        &C4_SYMMETRIES
    }

    /// Every 2×4 and 4×2 rectangle of cells up to the mirror (19 tuples of 8 cells): a
    /// systematic set in the spirit of Jaśkowski 2014 ("Systematic n-tuple networks for
    /// Othello position evaluation"); each rectangle holds the fours through it.
    fn default_tuples() -> Vec<Vec<u8>> {
        let rect = |col: u32, row: u32, w: u32, h: u32| -> Vec<u8> {
            (0..h).flat_map(|r| (0..w).map(move |c| ((row + r) * WIDTH + col + c) as u8)).collect()
        };
        let mut tuples = Vec::new();
        // 4 wide, 2 tall: columns 0..=3 mirror onto each other in pairs (0,3), (1,2).
        for row in 0..HEIGHT - 1 {
            for col in 0..2 {
                tuples.push(rect(col, row, 4, 2));
            }
        }
        // 2 wide, 4 tall: columns 0..=5 pair as (0,5), (1,4), (2,3).
        for row in 0..HEIGHT - 3 {
            for col in 0..3 {
                tuples.push(rect(col, row, 2, 4));
            }
        }
        tuples
    }
}

#[cfg(test)]
mod tests;
