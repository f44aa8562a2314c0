//! A game of your own, searched by parmcts: three in a row on a 4x4 board, on two 16-bit
//! bitboards. `impl Game` gives the rules; `Playouts`, `Tuning`, `Endgame` and
//! `NTupleBoard` have defaults for everything (uniform playouts, C = sqrt(2), no solver,
//! no learned evaluator), so empty impls make it a `SearchGame` that every mode searches.
//! `cargo run --release --example custom_game`.
use parmcts::{
    Endgame, Game, GameError, Mode, Move, MoveList, NTupleBoard, Outcome, Player, Playouts, Search, SearchConfig,
    Tuning,
};

/// Every line of three cells, as a 16-bit mask (cell = 4 × row + column).
const LINES: [u16; 24] = lines();

const fn lines() -> [u16; 24] {
    // (row step, column step, rows where a line may start, columns where it may start)
    let directions = [(0, 1, 4, 2), (1, 0, 2, 4), (1, 1, 2, 2), (1, -1, 2, 2)];
    let mut lines = [0u16; 24];
    let (mut n, mut d) = (0, 0);
    while d < 4 {
        let (dr, dc, rows, cols) = directions[d];
        let first_col = if dc < 0 { 2 } else { 0 };
        let mut r = 0;
        while r < rows {
            let mut c = first_col;
            while c < first_col + cols {
                let mut k = 0;
                while k < 3 {
                    lines[n] |= 1 << ((r + k * dr) * 4 + (c + k * dc));
                    k += 1;
                }
                n += 1;
                c += 1;
            }
            r += 1;
        }
        d += 1;
    }
    lines
}

/// A position: the cells of each player, indexed by `Player::index`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Three {
    cells: [u16; 2],
}

impl Game for Three {
    const NAME: &'static str = "three-in-a-row";
    type Moves = MoveList<16>;

    fn new() -> Self {
        Three::default()
    }
    fn side_to_move(&self) -> Player {
        let stones = (self.cells[0] | self.cells[1]).count_ones();
        if stones.is_multiple_of(2) {
            Player::One
        } else {
            Player::Two
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        for player in [Player::One, Player::Two] {
            let cells = self.cells[player.index()];
            if LINES.iter().any(|&line| line & !cells == 0) {
                return Some(Outcome::Win(player));
            }
        }
        (self.cells[0] | self.cells[1] == u16::MAX).then_some(Outcome::Draw)
    }
    fn legal_moves(&self) -> MoveList<16> {
        let empty = !(self.cells[0] | self.cells[1]);
        let mut moves = MoveList::new();
        if self.outcome().is_none() {
            moves.extend((0..16).filter(|cell| empty >> cell & 1 == 1).map(Move));
        }
        moves
    }
    fn play_unchecked(&mut self, mv: Move) {
        self.cells[self.side_to_move().index()] |= 1 << mv.0;
    }
    fn hash(&self) -> u64 {
        u64::from(self.cells[0]) | u64::from(self.cells[1]) << 16
    }
    /// Cells `a1`-`d4`: a column letter, then the row from 1 at the top.
    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        let bad = || GameError::BadMove(format!("{text} (expected a cell a1-d4)"));
        let mut chars = text.chars();
        let column = chars.next().and_then(|c| "abcd".find(c)).ok_or_else(bad)?;
        let row = chars.as_str().parse::<usize>().ok().filter(|r| (1..=4).contains(r)).ok_or_else(bad)?;
        Ok(Move(((row - 1) * 4 + column) as u16))
    }
    fn format_move(&self, mv: Move) -> String {
        format!("{}{}", (b'a' + (mv.0 % 4) as u8) as char, mv.0 / 4 + 1)
    }
}

// The defaults: uniform random playouts, the exploration constant sqrt(2), no exact
// solver, no learned evaluator. Override a constant or a method where the game knows
// better (`Tuning::EXPLORATION`, `Playouts::action_value`, …).
impl Playouts for Three {}
impl Tuning for Three {}
impl Endgame for Three {}
impl NTupleBoard for Three {}

fn board(game: &Three) -> String {
    let mut text = String::new();
    for cell in 0..16 {
        let bit = 1 << cell;
        text.push(if game.cells[0] & bit != 0 {
            'X'
        } else if game.cells[1] & bit != 0 {
            'O'
        } else {
            '.'
        });
        if cell % 4 == 3 {
            text.push('\n');
        }
    }
    text
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The first player wins from b2 with best play: the MCTS-Solver (`solver`) proves it.
    let config = SearchConfig::builder().playouts(50_000).mode(Mode::TreeParallel).threads(2).solver(true).seed(1);
    let mut search = Search::new(config.build()?)?;
    let mut game = Three::new();
    game.play_sequence("b2")?;
    while game.outcome().is_none() {
        let result = search.run(&game)?;
        let mv = result.best_move.expect("a game that is not over has moves");
        let player = game.side_to_move().index() + 1;
        // `proof`: the position's exact value for the side to move, once the solver has it.
        println!("player {player} plays {} (proven for player {player}: {:?})", game.format_move(mv), result.proof);
        game.try_play(mv)?;
    }
    println!("{}{:?}", board(&game), game.outcome());
    Ok(())
}
