//! Othello rules, checked against published oracles, differentials and properties.
//!
//! Oracles, read at test time from `tests/data` (byte-for-byte copies, see its README):
//! * `perft/othello.csv`, column `games_running_a124004`: OEIS A124004, the number of
//!   Othello games still running after n plies from the standard start, where a forced
//!   pass is a ply and a finished game contributes 0 afterwards. It is also exactly what
//!   Edax 4.6 `perft` prints (abulmo/edax-reversi `src/perft.c`); the data README reports
//!   that Edax reproduced it to depth 13 and an independent implementation to depth 12.
//! * `othello/fforum-1-19.obf` and `othello/fforum-40-59.obf`: the FFO endgame test suite
//!   (FForum, the magazine of the Fédération Française d'Othello) in Edax's OBF format,
//!   copied byte for byte from abulmo/edax-reversi `problem/` at commit
//!   14f048c05ddfa385b6bf954a9c2905bbe677e9d3 (GPL-3.0 data, Richard Delorme). Each line
//!   lists every legal move with its exact score; the README checked that the listed moves
//!   are exactly the legal moves in all 79 positions.

use std::collections::{BTreeSet, HashMap};

use parmcts::games::othello::{Othello, PASS};
use parmcts::games::perft::perft;
use parmcts::games::{random_below, Game, GameError, Move, Outcome, Player, PlayoutPolicy, Playouts};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// `depth -> value` for one column of the perft CSV (empty cells left out).
fn perft_column(name: &str) -> HashMap<u32, u64> {
    let path = format!("{DATA}/perft/othello.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header row").split(',').collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name).expect(name);
    let (depth_col, value_col) = (col("depth"), col(name));
    let mut table = HashMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').collect();
        let value = cells[value_col].trim();
        if !value.is_empty() {
            table.insert(cells[depth_col].trim().parse().unwrap(), value.parse().unwrap());
        }
    }
    table
}

fn check_perft(depths: std::ops::RangeInclusive<u32>) {
    let table = perft_column("games_running_a124004");
    for depth in depths {
        assert_eq!(perft(&Othello::new(), depth), table[&depth], "perft({depth})");
    }
}

#[test]
fn perft_matches_a124004_to_depth_9() {
    // Depth 9 is the first with passes (24) and finished games (228) among its leaves.
    check_perft(1..=9);
}

#[test]
fn perft_matches_a124004_at_depth_10() {
    check_perft(10..=10);
}

#[test]
fn perft_matches_a124004_at_depth_11() {
    check_perft(11..=11);
}

/// Walks every sequence of at most `depth` plies from `game` (reached after `ply` plies),
/// counting by ply the sequences whose last move is a pass and the games that end.
fn count_passes_and_endings(game: &Othello, ply: usize, depth: usize, passes: &mut [u64], ended: &mut [u64]) {
    let moves = game.legal_moves();
    if moves.is_empty() {
        ended[ply] += 1;
        return;
    }
    if ply == depth {
        return;
    }
    for mv in moves {
        passes[ply + 1] += u64::from(mv == PASS);
        let mut child = *game;
        child.play_unchecked(mv);
        count_passes_and_endings(&child, ply + 1, depth, passes, ended);
    }
}

#[test]
fn passes_and_endings_match_edax_to_depth_10() {
    let depth = 10;
    let (mut passes, mut ended) = (vec![0; depth + 1], vec![0; depth + 1]);
    count_passes_and_endings(&Othello::new(), 0, depth, &mut passes, &mut ended);
    let (pass_table, ended_table) = (perft_column("pass_leaves_in_a124004"), perft_column("games_finished_at_ply"));
    for d in 1..=depth {
        assert_eq!(passes[d], pass_table[&(d as u32)], "pass leaves at ply {d}");
        assert_eq!(ended[d], ended_table[&(d as u32)], "games ending at ply {d}");
    }
    assert_eq!((passes[9], ended[9]), (24, 228), "the table has the known values");
}

/// Every line of the FFO files: (the line, its board text, the listed moves).
fn ffo_positions() -> Vec<(String, String, BTreeSet<String>)> {
    let mut positions = Vec::new();
    for file in ["fforum-1-19.obf", "fforum-40-59.obf"] {
        let path = format!("{DATA}/othello/{file}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut fields = line.split(';');
            let board = fields.next().unwrap().trim().to_string();
            let moves = fields
                .filter_map(|f| f.split(':').next())
                .map(|m| m.trim().to_ascii_lowercase())
                .filter(|m| !m.is_empty())
                .collect();
            positions.push((line.to_string(), board, moves));
        }
    }
    positions
}

#[test]
fn ffo_positions_have_exactly_the_listed_moves() {
    let positions = ffo_positions();
    assert_eq!(positions.len(), 39, "FFO #1-#19 and #40-#59");
    for (line, board, listed) in positions {
        let game = Othello::parse_position(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(game.to_obf(), board, "OBF round trip");
        let moves = game.legal_moves();
        let generated: BTreeSet<String> = moves.iter().map(|&m| game.format_move(m)).collect();
        assert_eq!(generated, listed, "{line}");
        assert_eq!(moves.len(), game.legal_mask().count_ones() as usize);
        assert!(game.outcome().is_none());
        let side = if board.ends_with('X') { Player::One } else { Player::Two };
        assert_eq!(game.side_to_move(), side);
    }
}

#[test]
fn start_position() {
    let game = Othello::new();
    let moves: Vec<String> = game.legal_moves().iter().map(|&m| game.format_move(m)).collect();
    assert_eq!(moves, ["d3", "c4", "f5", "e6"]);
    assert_eq!(game.disc_counts(), (2, 2));
    assert_eq!(game.side_to_move(), Player::One);
    let obf = "---------------------------OX------XO--------------------------- X";
    assert_eq!(game.to_obf(), obf);
    assert_eq!(Othello::parse_position(obf), Ok(game));
    assert_eq!(Othello::parse_position(""), Ok(game));
    assert_eq!(Othello::parse_position("  "), Ok(game));
    let picture = game.render();
    assert!(picture.starts_with("  a b c d e f g h\n"), "{picture}");
    assert!(picture.contains("4 . . . O X . . . 4"), "{picture}");
    assert!(picture.contains("Black (X) to move"), "{picture}");
}

#[test]
fn playing_flips_the_outflanked_discs() {
    let mut game = Othello::new();
    let f5 = game.parse_move("f5").unwrap();
    assert_eq!(game.flips(u32::from(f5.0)), 1 << 36, "f5 flips e5");
    game.try_play(f5).unwrap();
    assert_eq!(game.disc_counts(), (4, 1));
    assert_eq!(game.side_to_move(), Player::Two);
    let after = Othello::parse_position("f5d6c3d3c4").unwrap();
    // Computed independently (a throwaway square-by-square implementation).
    let board = "------------------XO------XXX------OXX-----O-------------------- O";
    assert_eq!(after, Othello::parse_position(board).unwrap(), "{}", after.render());
}

#[test]
fn finished_games_go_to_the_side_with_more_discs() {
    let full = |black: u64, to_move| Othello::from_bitboards(black, !black, to_move).unwrap();
    for to_move in [Player::One, Player::Two] {
        assert_eq!(full(u64::MAX >> 24, to_move).outcome(), Some(Outcome::Win(Player::One)));
        assert_eq!(full(u64::MAX >> 34, to_move).outcome(), Some(Outcome::Win(Player::Two)));
        assert_eq!(full(u64::MAX >> 32, to_move).outcome(), Some(Outcome::Draw));
        assert!(full(u64::MAX >> 32, to_move).legal_moves().is_empty());
    }
    // Not full, but neither side can move: 1 black disc against 2 white, far apart.
    let stuck = Othello::from_bitboards(1, (1 << 63) | (1 << 62), Player::One).unwrap();
    assert_eq!(stuck.outcome(), Some(Outcome::Win(Player::Two)));
    assert!(stuck.legal_moves().is_empty());
    assert!(stuck.render().contains("game over: White (O) wins"), "{}", stuck.render());
}

#[test]
fn move_text_round_trips() {
    let game = Othello::new();
    for sq in 0..64 {
        let mv = Move(sq);
        let text = game.format_move(mv);
        assert_eq!(text.len(), 2);
        assert_eq!(game.parse_move(&text), Ok(mv));
        assert_eq!(game.parse_move(&text.to_ascii_uppercase()), Ok(mv));
    }
    assert_eq!(game.format_move(Move(0)), "a1");
    assert_eq!(game.format_move(Move(7)), "h1");
    assert_eq!(game.format_move(Move(63)), "h8");
    assert_eq!(game.format_move(PASS), "pass");
    for pass in ["pass", "PASS", "Pass", "pa", "PA"] {
        assert_eq!(game.parse_move(pass), Ok(PASS), "{pass}");
    }
}

#[test]
fn malformed_moves_are_bad_move() {
    let game = Othello::new();
    for text in ["", "a", "i1", "a0", "a9", "z5", "a1b", "11", "aa", "pas", "é1", "5f"] {
        assert_eq!(game.parse_move(text), Err(GameError::BadMove(text.into())), "{text:?}");
    }
    assert_eq!(Othello::parse_position("f5 i9"), Err(GameError::BadMove("i9".into())));
    assert!(matches!(Othello::parse_position("f5d6x"), Err(GameError::BadMove(_))));
}

#[test]
fn transcripts_split_into_two_character_tokens() {
    let game = Othello::new();
    let tokens = game.split_moves("f5d6C3, d3 pass\tc4PAe6 ,f");
    assert_eq!(tokens, ["f5", "d6", "C3", "d3", "pass", "c4", "PA", "e6", "f"]);
    let joined = Othello::parse_position("f5d6c3d3c4").unwrap();
    let spaced = Othello::parse_position("f5 d6, C3 D3\nc4").unwrap();
    assert_eq!(joined, spaced);
    assert_eq!(joined.disc_counts(), (6, 3));
}

#[test]
fn illegal_moves_name_the_move_and_its_index() {
    let err = Othello::parse_position("f5d6a1").unwrap_err();
    assert_eq!(err, GameError::IllegalMove("a1 (move 3)".into()));
    // An occupied square.
    let err = Othello::parse_position("f5 e5").unwrap_err();
    assert_eq!(err, GameError::IllegalMove("e5 (move 2)".into()));
    // A pass while moves exist.
    let err = Othello::parse_position("pass").unwrap_err();
    assert_eq!(err, GameError::IllegalMove("pass (move 1)".into()));
    let mut game = Othello::new();
    assert_eq!(game.try_play(Move(0)), Err(GameError::IllegalMove("a1".into())));
    assert_eq!(game.try_play(Move(65)), Err(GameError::IllegalMove("#65".into())));
    assert_eq!(game, Othello::new(), "a failed try_play changes nothing");
}

/// Depth-first search for a game that ends within `depth` plies; `path` gets its moves.
fn find_finished_game(game: &Othello, depth: u32, path: &mut Vec<Move>) -> bool {
    let moves = game.legal_moves();
    if moves.is_empty() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    for mv in moves {
        let mut child = *game;
        child.play_unchecked(mv);
        path.push(mv);
        if find_finished_game(&child, depth - 1, path) {
            return true;
        }
        path.pop();
    }
    false
}

#[test]
fn moves_after_the_end_are_rejected() {
    // The shortest games end after 9 plies (228 of them, see the Edax counts above).
    let mut path = Vec::new();
    assert!(find_finished_game(&Othello::new(), 9, &mut path));
    assert_eq!(path.len(), 9);
    let start = Othello::new();
    let text: String = path.iter().map(|&m| start.format_move(m)).collect();
    let game = Othello::parse_position(&text).unwrap();
    assert!(game.outcome().is_some() && game.legal_moves().is_empty());
    let (black, white) = game.disc_counts();
    assert!(black == 0 || white == 0, "a 9-ply game ends in a wipe-out: {}", game.render());
    assert_eq!(game.outcome(), Some(Outcome::Win(if white == 0 { Player::One } else { Player::Two })));
    let mut after = game;
    assert_eq!(after.try_play(Move(0)), Err(GameError::GameOver));
    let err = Othello::parse_position(&format!("{text}a1")).unwrap_err();
    assert_eq!(err, GameError::IllegalMove("a1 (move 10: the game is already over)".into()));
    let err = Othello::parse_position(&format!("{text}pass")).unwrap_err();
    assert_eq!(err, GameError::IllegalMove("pass (move 10: the game is already over)".into()));
}

/// A uniformly random game: its transcript with explicit passes, and the final position.
fn random_game(rng: &mut impl RngCore) -> (Vec<String>, Othello) {
    let mut game = Othello::new();
    let mut transcript = Vec::new();
    loop {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return (transcript, game);
        }
        let mv = moves[random_below(rng, moves.len() as u32) as usize];
        transcript.push(game.format_move(mv));
        game.play_unchecked(mv);
    }
}

#[test]
fn forced_passes_may_be_left_out_of_transcripts() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut checked = 0;
    for _ in 0..2000 {
        let (transcript, game) = random_game(&mut rng);
        // Only passes followed by a move of the other side can be left out.
        let Some(at) = transcript[..transcript.len() - 1].iter().position(|m| m == "pass") else {
            continue;
        };
        let before = Othello::parse_position(&transcript[..at].concat()).unwrap();
        assert_eq!(before.legal_moves().as_slice(), [PASS]);
        assert_eq!(before.legal_mask(), 0);
        let explicit = transcript.join(" ");
        let implicit: String = transcript.iter().filter(|m| *m != "pass").map(String::as_str).collect();
        assert_eq!(Othello::parse_position(&explicit), Ok(game), "{explicit}");
        assert_eq!(Othello::parse_position(&implicit), Ok(game), "{implicit}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} games with a forced pass");
}

#[test]
fn bad_boards_are_bad_position() {
    let start = "---------------------------OX------XO---------------------------";
    let bad = |text: &str, needle: &str| match Othello::parse_position(text) {
        Err(GameError::BadPosition(why)) => assert!(why.contains(needle), "{text:?}: {why}"),
        other => panic!("{text:?}: expected BadPosition, got {other:?}"),
    };
    bad(&format!("{} X", &start[1..]), "63 squares");
    bad(&format!("{start}- X"), "65 squares");
    bad(&format!("{}Z{} X", &start[..10], &start[11..]), "'Z' at square c2");
    bad(&format!("{start} Y"), "'Y'");
    bad(start, "missing the side to move");
    bad(&format!("{start};X"), "missing the side to move");
    bad(&format!("{start} X O"), "unexpected 'O'");
    // Anything after ';' is ignored.
    let game = Othello::parse_position(&format!("{start} X; D3:+0; junk")).unwrap();
    assert_eq!(game, Othello::new());
    assert!(matches!(
        Othello::from_bitboards(1, 1, Player::One),
        Err(GameError::BadPosition(why)) if why.contains("a1")
    ));
}

#[test]
fn hashes_separate_positions_and_ignore_move_order() {
    // Every position reachable in 6 plies, by every path.
    let mut seen: HashMap<u64, Othello> = HashMap::new();
    let mut frontier = vec![Othello::new()];
    for _ in 0..6 {
        let mut next = Vec::new();
        for game in frontier {
            for mv in game.legal_moves() {
                let mut child = game;
                child.play_unchecked(mv);
                if let Some(previous) = seen.insert(child.hash(), child) {
                    assert_eq!(previous, child, "hash collision");
                }
                next.push(child);
            }
        }
        frontier = next;
    }
    assert!(seen.len() > 5000, "{} distinct positions", seen.len());
    // A transposition (found with a throwaway square-by-square implementation): the
    // same position by two move orders is the same state, with the same hash.
    let a = Othello::parse_position("d3c3c4e3").unwrap();
    let b = Othello::parse_position("c4c3d3e3").unwrap();
    assert_eq!(a, b);
    let board = "------------------OOO-----XXO------XO--------------------------- X";
    assert_eq!(a.to_obf(), board);
    assert_eq!(a.hash(), b.hash());
    // The side to move is part of the position.
    let side = |p| Othello::from_bitboards(a.black(), a.white(), p).unwrap().hash();
    assert_ne!(side(Player::One), side(Player::Two));
}

/// The trait's default `random_playout` loop, written out (Othello overrides it); also
/// counts the plies.
fn default_playout(game: &mut Othello, rng: &mut impl RngCore) -> (Outcome, u32) {
    let mut plies = 0;
    loop {
        if let Some(outcome) = game.outcome() {
            return (outcome, plies);
        }
        let moves = game.legal_moves();
        let mv = moves[random_below(rng, moves.len() as u32) as usize];
        game.play_unchecked(mv);
        plies += 1;
    }
}

#[test]
fn random_playout_ends_the_game() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let starts: Vec<Othello> = std::iter::once(Othello::new())
        .chain(ffo_positions().iter().map(|(line, ..)| Othello::parse_position(line).unwrap()))
        .collect();
    for start in starts {
        for _ in 0..50 {
            let mut game = start;
            let outcome = game.random_playout(&mut rng);
            assert_eq!(game.outcome(), Some(outcome), "{}", game.render());
            assert!(game.legal_moves().is_empty());
            let (black, white) = game.disc_counts();
            let (start_black, start_white) = start.disc_counts();
            assert!(black + white > start_black + start_white);
        }
    }
}

#[test]
fn random_playout_plays_the_default_loops_games() {
    // The override draws the same random numbers as the default loop, so with equal
    // seeds the two play the very same games.
    let games = 20_000;
    let (mut fast_rng, mut slow_rng) = (Xoshiro256PlusPlus::seed_from_u64(5), Xoshiro256PlusPlus::seed_from_u64(5));
    let mut plies = Vec::with_capacity(games);
    for _ in 0..games {
        let (mut fast, mut slow) = (Othello::new(), Othello::new());
        let outcome = fast.random_playout(&mut fast_rng);
        let (expected, length) = default_playout(&mut slow, &mut slow_rng);
        assert_eq!((outcome, fast), (expected, slow));
        plies.push(length);
    }
    // Random games nearly always fill the board: 60 moves plus any passes.
    let mean = plies.iter().sum::<u32>() as f64 / games as f64;
    assert!((59.0..61.0).contains(&mean), "mean length {mean}");
    let long = plies.iter().filter(|&&n| (50..=64).contains(&n)).count();
    assert!(long as f64 > 0.98 * games as f64, "{long} of {games} games have 50-64 plies");
}

/// Both builds of the playout primitives play the default loop's games (the AVX2 one
/// where this CPU has it): every build is held to the same oracle.
#[test]
fn every_playout_build_plays_the_default_loops_games() {
    use parmcts::games::othello::PlayoutBuild;
    for build in [PlayoutBuild::Portable, PlayoutBuild::Avx2] {
        let (mut rng, mut slow_rng) = (Xoshiro256PlusPlus::seed_from_u64(6), Xoshiro256PlusPlus::seed_from_u64(6));
        for _ in 0..5_000 {
            let (mut game, mut slow) = (Othello::new(), Othello::new());
            let Some(outcome) = game.random_playout_on(build, &mut rng) else {
                eprintln!("{} skipped: this CPU cannot run it", build.name());
                break;
            };
            let (expected, _) = default_playout(&mut slow, &mut slow_rng);
            assert_eq!((outcome, game), (expected, slow), "{}", build.name());
        }
    }
    // The build playouts use is one this CPU runs.
    let detected = PlayoutBuild::detect();
    assert!(Othello::new().random_playout_on(detected, &mut Xoshiro256PlusPlus::seed_from_u64(1)).is_some());
}

#[test]
fn random_playout_winner_distribution_matches_the_default_loop() {
    // Independent seeds: the two winner distributions must agree within sampling noise.
    let games = 20_000;
    let tally = |outcomes: &mut dyn FnMut() -> Outcome| {
        let mut counts = [0u32; 3];
        for _ in 0..games {
            counts[match outcomes() {
                Outcome::Win(Player::One) => 0,
                Outcome::Win(Player::Two) => 1,
                Outcome::Draw => 2,
            }] += 1;
        }
        counts.map(|c| c as f64 / games as f64)
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(101);
    let fast = tally(&mut || Othello::new().random_playout(&mut rng));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(202);
    let slow = tally(&mut || default_playout(&mut Othello::new(), &mut rng).0);
    for (f, s) in fast.iter().zip(&slow) {
        // The standard error of a difference of two shares is at most 0.005 here.
        assert!((f - s).abs() < 0.025, "fast {fast:?} vs default {slow:?}");
    }
    // Sanity: random Othello is close to balanced, White slightly ahead.
    assert!((0.40..0.50).contains(&fast[0]) && (0.45..0.55).contains(&fast[1]), "{fast:?}");
}

/// `Othello::playouts` interleaves its lanes; each lane must play exactly the game a lone
/// playout plays from its generator (same outcome, final position and draws), under every
/// policy, with lanes that finish at different plies (starts from random depths and from
/// the FFO endgames, a few plies from the end).
fn lanes_play_the_lone_games<const N: usize>(policy: PlayoutPolicy) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(40 + N as u64);
    let ffo: Vec<Othello> = ffo_positions().iter().map(|(line, ..)| Othello::parse_position(line).unwrap()).collect();
    for round in 0..1_500u64 {
        let mut games: [Othello; N] = std::array::from_fn(|lane| match (round as usize + lane) % 3 {
            0 => ffo[random_below(&mut rng, ffo.len() as u32) as usize],
            _ => {
                let plies = random_below(&mut rng, 50) as usize;
                random_game_of(&mut rng, plies)
            }
        });
        let mut rngs: [Xoshiro256PlusPlus; N] =
            std::array::from_fn(|lane| Xoshiro256PlusPlus::seed_from_u64(round * 8 + lane as u64));
        let (mut lone_games, mut lone_rngs) = (games, rngs.clone());
        let outcomes = Othello::playouts(&mut games, &mut rngs, policy);
        for lane in 0..N {
            let expected = policy.play_out(&mut lone_games[lane], &mut lone_rngs[lane]);
            assert_eq!((outcomes[lane], games[lane]), (expected, lone_games[lane]), "round {round} lane {lane}");
            assert_eq!(rngs[lane].next_u64(), lone_rngs[lane].next_u64(), "round {round} lane {lane}: draws differ");
        }
    }
}

/// A game of `plies` random moves from the start (fewer if it ends first).
fn random_game_of(rng: &mut impl RngCore, plies: usize) -> Othello {
    let mut game = Othello::new();
    for _ in 0..plies {
        let moves = game.legal_moves();
        if game.outcome().is_some() {
            break;
        }
        game.play_unchecked(moves[random_below(rng, moves.len() as u32) as usize]);
    }
    game
}

#[test]
fn interleaved_lanes_play_the_lone_games() {
    let gammas = [9.0, 0.2, 2.5, 1.5, 0.1, 1.0, 1.2, 0.8, 0.6, 0.9];
    for policy in [
        PlayoutPolicy::default(),
        PlayoutPolicy { biased: true, ..PlayoutPolicy::default() },
        PlayoutPolicy { biased: true, gammas: Some(&gammas), ..PlayoutPolicy::default() },
    ] {
        lanes_play_the_lone_games::<1>(policy);
        lanes_play_the_lone_games::<2>(policy);
        lanes_play_the_lone_games::<3>(policy);
        lanes_play_the_lone_games::<4>(policy);
    }
}
