//! Players against each other through the match harness: results that can fail.

use parmcts::harness::matches::{run_match, GameRecord, MatchConfig, Openings, Tally};
use parmcts::harness::players::PlayerSpec;
use parmcts::{ConnectFour, Game, Othello, TicTacToe};

fn config(games: u64, openings: Openings) -> MatchConfig {
    MatchConfig::new(games, openings, 2, 17)
}

fn spec(text: &str) -> PlayerSpec {
    PlayerSpec::parse(text).unwrap()
}

#[test]
fn mcts_draws_every_game_against_perfect_alphabeta_in_tictactoe() {
    let summary = run_match(
        &TicTacToe::new(),
        &spec("mcts:playouts=2000"),
        &spec("alphabeta:depth=9"),
        &config(50, Openings::Start),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(summary.tally, Tally { wins: 0, draws: 50, losses: 0 });
}

#[test]
fn alphabeta_never_loses_tictactoe_to_random_players() {
    let summary = run_match(
        &TicTacToe::new(),
        &spec("alphabeta:depth=9"),
        &spec("random"),
        &config(200, Openings::Random(1)),
        |record, _| assert_ne!(record.result, "p2", "alpha-beta lost game {}: {:?}", record.index, record.moves),
    )
    .unwrap();
    assert_eq!(summary.tally.losses, 0);
    assert!(summary.tally.wins > 150, "{:?}", summary.tally);
}

#[test]
fn minimax_and_alphabeta_at_equal_depth_draw_tictactoe() {
    let summary = run_match(
        &TicTacToe::new(),
        &spec("minimax:depth=9"),
        &spec("alphabeta:depth=9"),
        &config(10, Openings::Start),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(summary.tally.draws, 10);
}

#[test]
fn mcts_beats_depth_1_alphabeta_at_connect4() {
    let summary = run_match(
        &ConnectFour::new(),
        &spec("mcts:playouts=10000"),
        &spec("alphabeta:depth=1"),
        &config(100, Openings::Random(2)),
        |_, _| {},
    )
    .unwrap();
    let t = summary.tally;
    assert_eq!(t.games(), 100);
    assert!(t.score() >= 0.75, "MCTS scored only {:.2} ({t:?})", t.score());
    assert!(t.score_ci95().0 > 0.5, "the whole interval lies above 50 %: {:?}", t.score_ci95());
}

/// The records of a Connect Four match of random players, in the order of the games.
fn connect4_records(games: u64, openings: Openings) -> Vec<GameRecord> {
    let records = std::sync::Mutex::new(Vec::new());
    run_match(&ConnectFour::new(), &spec("random"), &spec("random"), &config(games, openings), |r, _| {
        records.lock().unwrap().push(r.clone())
    })
    .unwrap();
    let mut records = records.into_inner().unwrap();
    records.sort_by_key(|r| r.index);
    records
}

#[test]
fn records_alternate_colours_and_share_openings() {
    let records = connect4_records(8, Openings::Random(4));
    assert_eq!(records.len(), 8);
    for pair in records.chunks(2) {
        assert!(pair[0].p1_first && !pair[1].p1_first, "colours alternate");
        assert_eq!(pair[0].opening, pair[1].opening, "a pair shares its opening");
        assert_eq!(pair[0].opening.len(), 4);
    }
    assert_ne!(records[0].opening, records[2].opening, "pairs differ");
}

/// `all:2` in Connect Four plays each of its 49 openings (7 x 7 first moves) in one pair
/// of games, and then starts the list again; tic-tac-toe has 72 (9 x 8).
#[test]
fn all_openings_are_played_once_a_pair_in_turn() {
    let records = connect4_records(100, Openings::All(2));
    let openings: Vec<_> = records
        .chunks(2)
        .map(|pair| {
            assert_eq!(pair[0].opening, pair[1].opening, "a pair shares its opening");
            pair[0].opening.clone()
        })
        .collect();
    let distinct: std::collections::HashSet<_> = openings[..49].iter().collect();
    assert_eq!(distinct.len(), 49, "the first 49 pairs play 49 different openings");
    assert_eq!(openings[49], openings[0], "then the list starts again");
    assert!(openings.iter().all(|o| o.len() == 2));

    let summary =
        |openings| run_match(&TicTacToe::new(), &spec("random"), &spec("random"), &config(2, openings), |_, _| ());
    assert!(summary(Openings::All(2)).is_ok());
    let err = summary(Openings::All(9)).unwrap_err().to_string();
    assert!(err.contains("leaves the game unfinished"), "{err}");
    // Deeper than the game: every line finishes it, and the walk to count them stops
    // at its cap (uncapped, it would walk Othello's whole game tree).
    let err = run_match(&Othello::new(), &spec("random"), &spec("random"), &config(2, Openings::All(99)), |_, _| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("all:99") && err.contains("fewer plies"), "{err}");
    assert_eq!("all:3".parse::<Openings>(), Ok(Openings::All(3)));
    assert!("all:x".parse::<Openings>().is_err());
    // The setting's text reads back as the same setting.
    for openings in [Openings::Start, Openings::Random(2), Openings::All(3)] {
        assert_eq!(openings.to_string().parse::<Openings>(), Ok(openings));
    }
}

/// Every move is timed and credited to the spec that made it: a timed MCTS player's
/// moves take at least three quarters of its budget, and the counts add up to the moves
/// played.
#[test]
fn move_times_are_recorded_per_player() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let moves_by = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let summary = run_match(
        &ConnectFour::new(),
        &spec("mcts:time-ms=5,reuse=off"),
        &spec("random"),
        &config(6, Openings::Random(2)),
        |record, _| {
            // The spec that moved first made the odd-numbered moves of the game.
            let first = if record.p1_first { 0 } else { 1 };
            let total = record.moves.len();
            assert_eq!(record.move_ms[first].len(), total.div_ceil(2), "game {}", record.index);
            assert_eq!(record.move_ms[1 - first].len(), total / 2, "game {}", record.index);
            for (spec, all) in moves_by.iter().zip(&record.move_ms) {
                spec.fetch_add(all.len(), Ordering::Relaxed);
            }
        },
    )
    .unwrap();
    let [mcts, random] = summary.move_times.map(|t| t.expect("both players moved"));
    assert_eq!(mcts.moves, moves_by[0].load(Ordering::Relaxed));
    assert_eq!(random.moves, moves_by[1].load(Ordering::Relaxed));
    // A timed search stops early by the stop lag the process has learned, at most a
    // quarter of its budget (more on a loaded machine, as here beside the other tests).
    assert!(mcts.median_ms >= 5.0 * 0.75 && mcts.median_ms <= mcts.p99_ms && mcts.p99_ms <= mcts.max_ms, "{mcts:?}");
    // Medians: one random move preempted for a scheduler tick (4 ms, beside the other
    // tests) may outlast a 5 ms search cut short by the stop lag.
    assert!(random.median_ms < mcts.median_ms, "a random move is not slower than a search: {random:?} {mcts:?}");
    assert_eq!(spec("mcts:time-ms=5").time_budget(), Some(std::time::Duration::from_millis(5)));
    assert_eq!(spec("random").time_budget(), None);
}

/// A searching player's playouts are recorded per move beside its move times, and
/// summed up as medians; a player that does not search has none.
#[test]
fn searches_record_their_playouts_per_move() {
    let summary = run_match(
        &ConnectFour::new(),
        &spec("mcts:playouts=300,reuse=off"),
        &spec("random"),
        &config(4, Openings::Random(2)),
        |record, _| {
            let searcher = &record.move_playouts[0];
            assert_eq!(searcher.len(), record.move_ms[0].len(), "one count per move: game {}", record.index);
            // A proven root may end a search early; none goes past its budget.
            assert!(searcher.iter().all(|&n| (1..=300).contains(&n)), "{searcher:?}");
            assert!(record.move_playouts[1].is_empty(), "a random player does not search");
        },
    )
    .unwrap();
    let [mcts, random] = summary.move_times.map(|t| t.expect("both players moved"));
    let playouts = mcts.playouts.expect("the searcher's playouts");
    assert_eq!(playouts.median, 300, "{playouts:?}");
    let rate = 300.0 / (mcts.median_ms / 1e3);
    assert!(
        playouts.median_per_second > rate / 4.0 && playouts.median_per_second < rate * 4.0,
        "{playouts:?} {mcts:?}"
    );
    assert_eq!(random.playouts, None);
}

/// The records in index order, without their move times (which vary from run to run).
fn untimed(mut records: Vec<GameRecord>) -> Vec<GameRecord> {
    records.sort_by_key(|r| r.index);
    for r in &mut records {
        r.move_ms = [Vec::new(), Vec::new()];
    }
    records
}

/// Each game depends on its index and the seed only: one thread or three play the same
/// games, and one thread reports them in index order with the tally counting each.
#[test]
fn games_do_not_depend_on_the_number_of_threads() {
    let mut played = Vec::new();
    for parallel_games in [1, 3] {
        let records = std::sync::Mutex::new(Vec::new());
        let config = MatchConfig { parallel_games, ..config(20, Openings::Random(1)) };
        let summary = run_match(&TicTacToe::new(), &spec("random"), &spec("mcts:playouts=50"), &config, |r, tally| {
            let mut records = records.lock().unwrap();
            assert_eq!(tally.games(), records.len() as u64 + 1, "the tally counts this game");
            records.push(r.clone());
        })
        .unwrap();
        let records = records.into_inner().unwrap();
        assert_eq!(summary.tally.games(), 20);
        if parallel_games == 1 {
            let order: Vec<u64> = records.iter().map(|r| r.index).collect();
            assert_eq!(order, (0..20).collect::<Vec<u64>>(), "one thread plays the games in order");
        }
        played.push(untimed(records));
    }
    assert_eq!(played[0], played[1]);
}

/// An SPRT verdict stops the match early, and the games played are the first ones (the
/// games are handed out in index order).
#[test]
fn sprt_stops_early_after_the_first_games() {
    use parmcts::harness::matches::{Sprt, SprtVerdict};
    let records = std::sync::Mutex::new(Vec::new());
    let config = MatchConfig { sprt: Some(Sprt::parse("0,50").unwrap()), ..config(2000, Openings::Random(1)) };
    let summary = run_match(&TicTacToe::new(), &spec("alphabeta:depth=9"), &spec("random"), &config, |r, _| {
        records.lock().unwrap().push(r.clone())
    })
    .unwrap();
    let played = summary.tally.games();
    assert!(played < 500, "the SPRT should decide well before 2000 games: {:?}", summary.tally);
    assert_eq!(summary.sprt.map(|(verdict, _)| verdict), Some(SprtVerdict::AcceptH1));
    let indices: Vec<u64> = untimed(records.into_inner().unwrap()).iter().map(|r| r.index).collect();
    assert_eq!(indices, (0..played).collect::<Vec<u64>>());
}
