//! Embedding parmcts in your own game: implement `Game`, then search it in any mode.
//!
//! The game here is Nim with one heap: players take 1 to 3 stones in turn, and whoever
//! takes the last stone wins. From a multiple of 4 the side to move loses, so the search
//! should always leave a multiple of 4.
//!
//! Run with `cargo run --release --example custom_game`.

use parmcts::{Game, GameError, Mode, Move, MoveList, Outcome, Player, Search, SearchConfig};

/// A Nim position: stones left and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Nim {
    stones: u8,
    to_move: Player,
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    // At most three moves: a fixed-capacity list, no allocation.
    type Moves = MoveList<3>;

    fn new() -> Self {
        Nim { stones: 21, to_move: Player::One }
    }

    fn side_to_move(&self) -> Player {
        self.to_move
    }

    fn outcome(&self) -> Option<Outcome> {
        // The player who just moved took the last stone.
        (self.stones == 0).then(|| Outcome::Win(self.to_move.other()))
    }

    fn legal_moves(&self) -> MoveList<3> {
        (1..=self.stones.min(3)).map(|take| Move(take as u16)).collect()
    }

    fn play_unchecked(&mut self, mv: Move) {
        self.stones -= mv.0 as u8;
        self.to_move = self.to_move.other();
    }

    fn hash(&self) -> u64 {
        (self.stones as u64) << 1 | self.to_move.index() as u64
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.parse::<u16>() {
            Ok(take @ 1..=3) => Ok(Move(take)),
            _ => Err(GameError::BadMove(format!("{text} (take 1, 2 or 3)"))),
        }
    }

    fn format_move(&self, mv: Move) -> String {
        format!("take {}", mv.0)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = SearchConfig::builder().playouts(200_000).mode(Mode::TreeParallel).threads(2).seed(3).build()?;
    let mut search = Search::new(config)?;
    let mut game = Nim::new();
    while game.outcome().is_none() {
        let result = search.run(&game)?;
        let mv = result.best_move.expect("a position that is not over has moves");
        println!(
            "{} stones, {:?} to move: {} ({} playouts, value {:.2})",
            game.stones,
            game.to_move,
            game.format_move(mv),
            result.playouts,
            result.children.iter().find(|c| c.mv == mv).map_or(0.5, |c| c.value)
        );
        game.try_play(mv)?;
    }
    println!("result: {:?}", game.outcome());
    Ok(())
}
