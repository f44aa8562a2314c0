//! A game loop with tree reuse: one `Search` plays a whole game of Connect Four against
//! itself, and before each move keeps the subtree of the position reached
//! (`Search::reuse`), so each search continues the last one's playouts.
//! `cargo run --release --example game_loop`.
use parmcts::{ConnectFour, Game, Search, SearchConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = SearchConfig::builder().playouts(20_000).reuse(true).seed(3).build()?;
    let mut search = Search::new(config)?;
    let mut game = ConnectFour::new();
    let mut moves = Vec::new();
    while game.outcome().is_none() {
        let result = search.run(&game)?;
        let mv = result.best_move.expect("a game that is not over has moves");
        println!(
            "ply {:>2}: {} ({} nodes kept from the last search, root visits {})",
            moves.len() + 1,
            game.format_move(mv),
            result.reused_nodes,
            result.root_visits
        );
        let before = game;
        game.try_play(mv)?;
        moves.push(game.format_move(mv));
        // The new root is one ply below the last one; the next `run` starts from it.
        search.reuse(&before, &game, 1);
    }
    println!("{}\n{:?} after {}", game.render(), game.outcome(), moves.concat());
    Ok(())
}
