//! A game loop that ponders: while the opponent (here a second search) thinks, the
//! player searches the position the opponent is to move in; when the opponent's move
//! arrives it stops, keeps the subtree of the position reached (`Search::reuse`) and
//! continues from it with its own budget. `cargo run --release --example pondering`.
use parmcts::{ConnectFour, Game, Search, SearchConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let budget = SearchConfig::builder().playouts(20_000).seed(1).build()?;
    let mut player = Search::new(budget.clone())?;
    let mut opponent = Search::new(budget.with_playouts(40_000)?)?;
    let mut game = ConnectFour::new();
    let mut kept_total = 0;
    while game.outcome().is_none() {
        // The player's move, on its own budget.
        let mv = player.run(&game)?.best_move.expect("the game is on");
        let before = game;
        game.try_play(mv)?;
        player.reuse(&before, &game, 1);
        if game.outcome().is_some() {
            break;
        }
        // The opponent thinks; the player ponders on the opponent's time.
        let pondering = player.ponder(game)?;
        let reply = opponent.run(&game)?.best_move.expect("the game is on");
        let finished = pondering.stop();
        let pondered = finished.result?.playouts;
        player = finished.search;
        let before = game;
        game.try_play(reply)?;
        let kept = player.reuse(&before, &game, 1);
        kept_total += kept;
        println!("{}: pondered {pondered} playouts, kept {kept} nodes", game.format_move(reply));
    }
    println!("{}\n{:?}; {kept_total} nodes kept from pondering in all", game.render(), game.outcome());
    Ok(())
}
