//! Tic-tac-toe 3x3 on two 9-bit bitboards.
//!
//! Cells are numbered 1-9 row-major from the top-left in move text; internally a move is
//! the cell index 0-8 (bit `i` of a player's board).

use rand_core::RngCore;

use super::evaluate::Evaluate;
use super::{random_below, Game, GameError, Move, MoveList, Outcome, Player, Playouts, Tuning};

/// The eight winning lines as 9-bit masks.
const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];
const FULL: u16 = 0b111_111_111;

/// A tic-tac-toe position. X ([`Player::One`]) moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TicTacToe {
    /// Cells taken by each player, indexed by [`Player::index`].
    boards: [u16; 2],
}

impl TicTacToe {
    fn occupied(&self) -> u16 {
        self.boards[0] | self.boards[1]
    }

    fn has_line(board: u16) -> bool {
        for line in LINES {
            if board & line == line {
                return true;
            }
        }
        false
    }

    /// Who occupies cell `cell` (0-8), if anyone.
    pub fn cell(&self, cell: usize) -> Option<Player> {
        let bit = 1u16 << cell;
        if self.boards[0] & bit != 0 {
            Some(Player::One)
        } else if self.boards[1] & bit != 0 {
            Some(Player::Two)
        } else {
            None
        }
    }
}

impl Game for TicTacToe {
    const NAME: &'static str = "tictactoe";

    type Moves = MoveList<9>;

    fn new() -> Self {
        TicTacToe::default()
    }

    #[inline]
    fn side_to_move(&self) -> Player {
        if self.occupied().count_ones() & 1 == 0 {
            Player::One
        } else {
            Player::Two
        }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        if Self::has_line(self.boards[0]) {
            Some(Outcome::Win(Player::One))
        } else if Self::has_line(self.boards[1]) {
            Some(Outcome::Win(Player::Two))
        } else if self.occupied() == FULL {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn legal_moves(&self) -> MoveList<9> {
        let mut moves = MoveList::new();
        if self.outcome().is_none() {
            let mut free = !self.occupied() & FULL;
            while free != 0 {
                moves.push(Move(free.trailing_zeros() as u16));
                free &= free - 1;
            }
        }
        moves
    }

    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        let side = self.side_to_move().index();
        self.boards[side] |= 1 << mv.0;
    }

    fn hash(&self) -> u64 {
        // Injective: 9 bits per player.
        (self.boards[0] as u64) | (self.boards[1] as u64) << 9
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.trim().parse::<u16>() {
            Ok(cell @ 1..=9) => Ok(Move(cell - 1)),
            _ => Err(GameError::BadMove(format!("{text} (expected a cell 1-9)"))),
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
        for row in 0..3 {
            for col in 0..3 {
                out.push(match self.cell(row * 3 + col) {
                    Some(Player::One) => 'X',
                    Some(Player::Two) => 'O',
                    None => '.',
                });
            }
            out.push('\n');
        }
        out
    }
}

impl Playouts for TicTacToe {
    /// Centre 3, corners 2, edges 1: the number of winning lines through the cell
    /// (4, 3 and 2) minus one.
    #[inline]
    fn action_value(&self, mv: Move) -> f32 {
        match mv.0 {
            4 => 3.0,
            0 | 2 | 6 | 8 => 2.0,
            _ => 1.0,
        }
    }

    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        loop {
            if let Some(outcome) = self.outcome() {
                return outcome;
            }
            let mut free = !self.occupied() & FULL;
            for _ in 0..random_below(rng, free.count_ones()) {
                free &= free - 1;
            }
            self.play_unchecked(Move(free.trailing_zeros() as u16));
        }
    }
}

impl Tuning for TicTacToe {}

/// Tic-tac-toe: the line-count heuristic. The search usually reaches the end of the game
/// (9 plies at most), so this only matters for shallow depths.
///
/// For each of the 8 lines that holds marks of only one player, that player gains `10`
/// for one mark and `100` for two (the side to move's gains count positive, the
/// opponent's negative; empty and blocked lines count 0). Two marks in an open line for the side to move mean a win next move,
/// hence the large weight.
impl Evaluate for TicTacToe {
    fn evaluate(&self) -> i32 {
        const LINES: [[usize; 3]; 8] =
            [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
        const WEIGHT: [i32; 3] = [0, 10, 100];
        let me = self.side_to_move();
        let mut score = 0;
        for line in LINES {
            let mine = line.iter().filter(|&&c| self.cell(c) == Some(me)).count();
            let theirs = line.iter().filter(|&&c| self.cell(c) == Some(me.other())).count();
            match (mine, theirs) {
                (0, 0) => {}
                (m, 0) if m < 3 => score += WEIGHT[m],
                (0, t) if t < 3 => score -= WEIGHT[t],
                _ => {}
            }
        }
        score
    }
}

/// The 8 symmetries of the 3×3 board.
const TTT_SYMMETRIES: [[u8; 9]; 8] = crate::games::square_symmetries::<3, 9>();

/// The symmetries as slices.
static TTT_SYMMETRY_SLICES: [&[u8]; 8] = [
    &TTT_SYMMETRIES[0],
    &TTT_SYMMETRIES[1],
    &TTT_SYMMETRIES[2],
    &TTT_SYMMETRIES[3],
    &TTT_SYMMETRIES[4],
    &TTT_SYMMETRIES[5],
    &TTT_SYMMETRIES[6],
    &TTT_SYMMETRIES[7],
];

impl crate::games::NTupleBoard for TicTacToe {
    /// Cells 0-8 row-major from the top-left (the move indices).
    const CELLS: usize = 9;

    fn cells(&self, out: &mut [u8]) {
        let mover = self.side_to_move().index();
        let (me, opp) = (self.boards[mover], self.boards[1 - mover]);
        for (i, cell) in out.iter_mut().enumerate().take(9) {
            *cell = ((me >> i) & 1) as u8 | (((opp >> i) & 1) as u8) << 1;
        }
    }

    fn symmetries() -> &'static [&'static [u8]] {
        &TTT_SYMMETRY_SLICES
    }

    /// An edge line, the middle line, a diagonal and a corner 2×2 square; the
    /// symmetries carry them onto every line and corner.
    fn default_tuples() -> Vec<Vec<u8>> {
        vec![vec![0, 1, 2], vec![3, 4, 5], vec![0, 4, 8], vec![0, 1, 3, 4]]
    }
}

/// Two planes of 3 rows × 3 columns, from the side to move's view: plane 0 its marks,
/// plane 1 its opponent's; cell `i` (the move index, 0-8 row-major from the top-left)
/// is element `i` of its plane. The policy has 9 logits: move `Move(i)` is slot `i`.
#[cfg(feature = "encoding")]
impl super::OnnxEncoding for TicTacToe {
    const PLANES: usize = 2;
    const HEIGHT: usize = 3;
    const WIDTH: usize = 3;
    const POLICY_SIZE: usize = 9;

    fn encode(&self, out: &mut [f32]) {
        let mover = self.side_to_move().index();
        super::onnx::two_planes(u64::from(self.boards[mover]), u64::from(self.boards[1 - mover]), 9, out);
    }

    fn policy_index(&self, mv: Move) -> Option<usize> {
        (mv.0 < 9).then_some(usize::from(mv.0))
    }
}
