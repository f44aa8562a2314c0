//! Go's rules against GNU Go 3.8 over GTP (`src/gtp/client.rs`): on positions from
//! random games (9x9 and 19x19; light-playout moves, and uniformly random legal moves;
//! simple ko, the rule GNU Go's `is_legal` applies), the legal points, the stones after
//! every move (captures), and the area score of finished games.
//!
//! Scores: GNU Go's `final_score` (started with `--chinese-rules`, `komi 7`) is area
//! scoring after GNU Go's own dead-stone analysis. Games played out by light playouts
//! end with no dead stones on the board (every chain that could be captured was: the
//! playouts fill every point that is not a one-point eye), so the two scores agree
//! except where GNU Go's analysis still calls a living chain dead; the test therefore
//! compares only games for which `final_status_list dead` is empty.
//!
//! GNU Go is found as [`common::gnugo`] says; without it the test prints why and passes,
//! unless `PARMCTS_REQUIRE_GNUGO=1` (CI), where it fails.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use parmcts::games::go::Superko;
use parmcts::gtp::client::GtpClient;
use parmcts::{Game, Go, Move, Player};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use common::gnugo::gnugo;

fn color(player: Player) -> &'static str {
    match player {
        Player::One => "black",
        Player::Two => "white",
    }
}

/// Our stones of `player` as GTP vertices.
fn our_stones<const N: usize>(game: &Go<N>, player: Player) -> BTreeSet<String> {
    (0..(N * N) as u16).filter(|&p| game.stone_at(Move(p)) == Some(player)).map(|p| game.format_move(Move(p))).collect()
}

fn their_stones(gnugo: &mut GtpClient, player: Player) -> BTreeSet<String> {
    let text = gnugo.send(&format!("list_stones {}", color(player))).unwrap();
    text.split_whitespace().map(|v| v.to_ascii_uppercase()).collect()
}

/// `B+12.0` → 12, `W+3.0` → -3, `0` → 0.
fn parse_score(text: &str) -> f32 {
    match text.split_once('+') {
        Some(("B", n)) => n.parse().unwrap(),
        Some(("W", n)) => -n.parse::<f32>().unwrap(),
        _ if text == "0" => 0.0,
        _ => panic!("unexpected final_score '{text}'"),
    }
}

#[derive(Default, Debug)]
struct Tally {
    games: u32,
    positions: u32,
    legality_checks: u32,
    scores_compared: u32,
    scores_skipped_dead: u32,
}

/// How the random games choose their moves.
#[derive(Clone, Copy, PartialEq)]
enum Moves {
    /// The light playouts' move ([`Go::playout_move`]): games end with two passes and
    /// no dead stones.
    Light,
    /// Uniform over all legal moves, eye-filling and self-atari included: many more
    /// captures of large chains and crowded suicide tests, to the length cap.
    Uniform,
}

/// Plays `games` random games of side `N` against GNU Go, checking
/// `points_per_position` points' legality (all points when it is `N * N`) before every
/// move, the stones after every move, and the score at the end.
fn compare<const N: usize>(
    gnugo: &mut GtpClient,
    (seed, moves): (u64, Moves),
    games: u32,
    points_per_position: usize,
    tally: &mut Tally,
) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for game_index in 0..games {
        gnugo.send(&format!("boardsize {N}")).unwrap();
        gnugo.send("clear_board").unwrap();
        gnugo.send("komi 7").unwrap();
        let mut game = Go::<N>::new();
        game.set_superko(Superko::SimpleKo);
        let mut transcript = Vec::new();
        while game.outcome().is_none() {
            let mover = game.side_to_move();
            let points: Vec<u16> = if points_per_position >= N * N {
                (0..(N * N) as u16).collect()
            } else {
                (0..points_per_position).map(|_| (rng_below(&mut rng, (N * N) as u32)) as u16).collect()
            };
            for p in points {
                let vertex = game.format_move(Move(p));
                let theirs = gnugo.send(&format!("is_legal {} {vertex}", color(mover))).unwrap() == "1";
                assert_eq!(
                    game.is_legal(Move(p)),
                    theirs,
                    "{N}x{N} game {game_index}: legality of {} {vertex} after {}\n{}",
                    color(mover),
                    transcript.join(" "),
                    game.render()
                );
                tally.legality_checks += 1;
            }
            let mv = match moves {
                Moves::Light => game.playout_move(&mut rng),
                Moves::Uniform => {
                    let legal = game.legal_moves();
                    legal[rng_below(&mut rng, legal.len() as u32) as usize]
                }
            };
            let vertex = game.format_move(mv);
            game.try_play(mv).unwrap();
            gnugo.send(&format!("play {} {vertex}", color(mover))).unwrap();
            transcript.push(vertex);
            tally.positions += 1;
            if mv != Go::<N>::PASS {
                for player in [Player::One, Player::Two] {
                    assert_eq!(
                        our_stones(&game, player),
                        their_stones(gnugo, player),
                        "{N}x{N} game {game_index}: {} stones after {}",
                        color(player),
                        transcript.join(" ")
                    );
                }
            }
        }
        tally.games += 1;
        if game.plies() >= Go::<N>::MAX_PLIES as u32 {
            continue; // stopped by the length cap, not by two passes
        }
        if !gnugo.send("final_status_list dead").unwrap().is_empty() {
            tally.scores_skipped_dead += 1;
            continue;
        }
        let theirs = parse_score(&gnugo.send("final_score").unwrap());
        assert_eq!(game.area_score(), theirs, "{N}x{N} game {game_index}: score after {}", transcript.join(" "));
        tally.scores_compared += 1;
    }
}

fn rng_below(rng: &mut Xoshiro256PlusPlus, n: u32) -> u32 {
    parmcts::games::random_below(rng, n)
}

#[test]
fn rules_agree_with_gnugo() {
    let Some(mut gnugo) = gnugo(&[]) else { return };
    let start = Instant::now();
    let mut tally = Tally::default();
    compare::<9>(&mut gnugo, (1, Moves::Light), 12, 81, &mut tally);
    compare::<9>(&mut gnugo, (2, Moves::Light), 40, 8, &mut tally);
    compare::<9>(&mut gnugo, (4, Moves::Uniform), 8, 24, &mut tally);
    compare::<19>(&mut gnugo, (3, Moves::Light), 4, 16, &mut tally);
    compare::<19>(&mut gnugo, (5, Moves::Uniform), 1, 24, &mut tally);
    println!("{tally:?} in {:.1} s", start.elapsed().as_secs_f64());
    assert!(tally.scores_compared >= 10, "too few finished games without dead stones: {tally:?}");
}

/// A whole 9x9 game against GNU Go through `match`'s `gtp:` player: GNU Go follows every
/// move (its board and ours agree at the end) and the game ends, scored by our rules.
#[test]
fn a_match_against_gnugo_is_refereed_to_the_end() {
    use parmcts::harness::matches::{run_match, MatchConfig, Openings};
    use parmcts::harness::players::PlayerSpec;
    let Some(_) = gnugo(&[]) else { return };
    let program = if GtpClient::spawn("gnugo", &["--version"], Duration::from_secs(5)).is_ok() {
        "gnugo"
    } else {
        "/usr/games/gnugo"
    };
    let opponent = PlayerSpec::parse(&format!("gtp:{program} --mode gtp --level 0 --chinese-rules")).unwrap();
    let us = PlayerSpec::parse("mcts:playouts=300").unwrap();
    let config = MatchConfig {
        games: 2,
        openings: Openings::Random(2),
        parallel_games: 1,
        seed: 5,
        sprt: None,
        interrupt: Default::default(),
        referee: None,
        handicap: None,
    };
    let summary = run_match(&Go::<9>::new(), &us, &opponent, &config, |record, _| {
        assert!(record.moves.len() > 10, "game {} ended early: {:?}", record.index, record.moves);
    })
    .unwrap();
    assert_eq!(summary.tally.wins + summary.tally.draws + summary.tally.losses, 2);
}

/// Our SGF records open in GNU Go (`loadsgf`) to the same position: the same stones
/// of both colours after uniformly random 9x9 and 19x19 games (captures of large chains
/// included), and the same side to move.
#[test]
fn sgf_records_load_in_gnugo_to_the_same_position() {
    use parmcts::gtp::sgf::{write_record, Decision, GameToRecord};
    let Some(mut gnugo) = gnugo(&[]) else { return };
    fn check<const N: usize>(gnugo: &mut GtpClient, seed: u64, plies: usize) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut game = Go::<N>::new();
        let mut moves = Vec::new();
        while game.outcome().is_none() && moves.len() < plies {
            let legal = game.legal_moves();
            let mv = legal[rng_below(&mut rng, legal.len() as u32) as usize];
            moves.push(game.format_move(mv));
            game.play_unchecked(mv);
        }
        let record = GameToRecord { players: ["a", "b"], moves: &moves, decision: Decision::Rules, comment: None };
        let sgf = write_record(&Go::<N>::new(), &record).unwrap();
        let path = std::env::temp_dir().join(format!("parmcts-sgf-{N}-{seed}-{}.sgf", std::process::id()));
        std::fs::write(&path, &sgf).unwrap();
        let to_move = gnugo.send(&format!("loadsgf {}", path.display())).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(to_move, color(game.side_to_move()), "{N}x{N} seed {seed}: side to move\n{sgf}");
        for player in [Player::One, Player::Two] {
            assert_eq!(
                our_stones(&game, player),
                their_stones(gnugo, player),
                "{N}x{N} seed {seed}: {} stones\n{sgf}",
                color(player)
            );
        }
    }
    for seed in 0..4 {
        check::<9>(&mut gnugo, seed, 150);
    }
    check::<19>(&mut gnugo, 7, 600);
}

/// GNU Go's own records open in our engine (`loadsgf`) to its position: a random game is
/// played into GNU Go, which writes it (`printsgf`); our engine loads that file and
/// writes it again, and GNU Go, loading ours, has the same stones and side to move.
#[test]
fn gnugo_records_load_in_our_engine() {
    use parmcts::gtp::protocol::RawLine;
    use parmcts::gtp::{Engine, EngineConfig};
    use parmcts::{GameKind, SearchConfig};
    let Some(mut gnugo) = gnugo(&[]) else { return };
    let dir = std::env::temp_dir().join(format!("parmcts-gnugo-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let search = SearchConfig::builder().playouts(10).build().unwrap();
    let mut ours = Engine::new(GameKind::Go, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap();
    let mut ask = |line: &str| {
        let response = ours.respond(&RawLine::Line(line.as_bytes().to_vec())).unwrap();
        assert!(response.starts_with('='), "{line}: {response}");
        response[1..].trim().to_string()
    };
    fn check<const N: usize>(
        gnugo: &mut GtpClient,
        ask: &mut impl FnMut(&str) -> String,
        dir: &std::path::Path,
        seed: u64,
    ) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut game = Go::<N>::new();
        gnugo.send(&format!("boardsize {N}")).unwrap();
        gnugo.send("clear_board").unwrap();
        gnugo.send("komi 7").unwrap();
        for _ in 0..(N * N * 3 / 2) {
            if game.outcome().is_some() {
                break;
            }
            let legal = game.legal_moves();
            let mv = legal[rng_below(&mut rng, legal.len() as u32) as usize];
            gnugo.send(&format!("play {} {}", color(game.side_to_move()), game.format_move(mv))).unwrap();
            game.play_unchecked(mv);
        }
        let theirs = dir.join(format!("gnugo-{N}-{seed}.sgf"));
        gnugo.send(&format!("printsgf {}", theirs.display())).unwrap();
        ask(&format!("loadsgf {}", theirs.display()));
        let record = ask("printsgf");
        let ours = dir.join(format!("ours-{N}-{seed}.sgf"));
        std::fs::write(&ours, &record).unwrap();
        gnugo.send("clear_board").unwrap();
        let to_move = gnugo.send(&format!("loadsgf {}", ours.display())).unwrap();
        let their_record = std::fs::read_to_string(&theirs).unwrap();
        assert_eq!(to_move, color(game.side_to_move()), "{N}x{N} seed {seed}\n{record}\n{their_record}");
        for player in [Player::One, Player::Two] {
            assert_eq!(our_stones(&game, player), their_stones(gnugo, player), "{N}x{N} seed {seed}\n{record}");
        }
    }
    for seed in 0..3 {
        check::<9>(&mut gnugo, &mut ask, &dir, seed);
    }
    check::<19>(&mut gnugo, &mut ask, &dir, 11);
    std::fs::remove_dir_all(&dir).unwrap();
}
