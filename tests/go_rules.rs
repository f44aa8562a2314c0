//! Go's rules on hand-made positions: captures, ko, snapback, suicide, superko, scoring,
//! the end of the game and the vertex notation, on 9x9, 13x13 and 19x19.

use parmcts::games::go::Superko;
use parmcts::games::{MovesPlayed, PlayoutPolicy};
use parmcts::{Game, GameError, Go, Go13, Go19, Go9, Move, Outcome, Player, Playouts};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A position with the given stones (vertices separated by spaces), placed Black's
/// first, then White's, with `to_move` to move.
fn position<const N: usize>(black: &str, white: &str, to_move: Player) -> Go<N> {
    let mut game = Go::<N>::new();
    for (player, stones) in [(Player::One, black), (Player::Two, white)] {
        for v in stones.split_whitespace() {
            let mv = game.parse_move(v).unwrap();
            game.play_as(player, mv).unwrap_or_else(|e| panic!("setting up {v}: {e}"));
        }
    }
    // The last play_as left its opponent to move; make it `to_move`.
    if game.side_to_move() != to_move {
        game.play_as(to_move.other(), Go::<N>::PASS).unwrap();
    }
    game
}

fn mv<const N: usize>(game: &Go<N>, vertex: &str) -> Move {
    game.parse_move(vertex).unwrap()
}

fn stone<const N: usize>(game: &Go<N>, vertex: &str) -> Option<Player> {
    game.stone_at(mv(game, vertex))
}

#[test]
fn a_surrounded_stone_is_captured() {
    let mut game = position::<9>("C4 E4 D5", "D4", Player::One);
    assert_eq!(stone(&game, "D4"), Some(Player::Two));
    game.try_play(mv(&game, "D3")).unwrap();
    assert_eq!(stone(&game, "D4"), None);
    assert_eq!(stone(&game, "D3"), Some(Player::One));
    // Captured stones count for the captor's area: D4 is now Black's region.
    assert_eq!(game.area_score(), 81.0 - 7.0);
}

#[test]
fn simple_ko_forbids_the_immediate_retake_only() {
    // . X O .
    // X O . O    Black E4 takes D4; White may not retake at once.
    // . X O .
    let mut game = position::<9>("D5 C4 D3", "E5 D4 F4 E3", Player::One);
    game.try_play(mv(&game, "E4")).unwrap();
    assert_eq!(stone(&game, "D4"), None);
    let retake = mv(&game, "D4");
    assert!(!game.is_legal(retake));
    assert!(!game.legal_moves().as_ref().contains(&retake));
    assert!(matches!(game.try_play(retake), Err(GameError::IllegalMove(_))));
    // A ko threat elsewhere and an answer: the retake is legal again.
    game.try_play(mv(&game, "A9")).unwrap();
    game.try_play(mv(&game, "J1")).unwrap();
    assert!(game.is_legal(retake));
    game.try_play(retake).unwrap();
    assert_eq!(stone(&game, "E4"), None);
    assert_eq!(stone(&game, "D4"), Some(Player::Two));
}

#[test]
fn snapback_recaptures_the_capturing_chain() {
    // 3  X X X .
    // 2  O O O X
    // 1  . . O X
    let mut game = position::<9>("A3 B3 C3 D2 D1", "A2 B2 C2 C1", Player::One);
    game.try_play(mv(&game, "B1")).unwrap(); // a throw-in: self-atari, legal
    game.try_play(mv(&game, "A1")).unwrap(); // White takes it...
    assert_eq!(stone(&game, "B1"), None);
    game.try_play(mv(&game, "B1")).unwrap(); // ...and Black takes back five stones.
    for v in ["A1", "A2", "B2", "C2", "C1"] {
        assert_eq!(stone(&game, v), None, "{v} captured");
    }
    assert_eq!(stone(&game, "B1"), Some(Player::One));
}

#[test]
fn single_stone_suicide_is_illegal() {
    let game = position::<9>("", "A2 B1", Player::One);
    assert!(!game.is_legal(mv(&game, "A1")));
    assert!(!game.legal_moves().as_ref().contains(&mv(&game, "A1")));
    // White may fill its own eye there (not suicide: the chain keeps liberties).
    let white = position::<9>("", "A2 B1", Player::Two);
    assert!(white.is_legal(mv(&white, "A1")));
}

#[test]
fn multi_stone_suicide_is_illegal() {
    // Black A1 B1 with their last liberty C1, which White surrounds.
    let mut game = position::<9>("A1 B1", "A2 B2 C2 D1", Player::One);
    let c1 = mv(&game, "C1");
    assert!(!game.is_legal(c1));
    assert!(matches!(game.try_play(c1), Err(GameError::IllegalMove(_))));
    assert_eq!(stone(&game, "A1"), Some(Player::One));
}

#[test]
fn a_capture_that_looks_like_suicide_is_legal() {
    // White A2 and B1 each have the single liberty A1: Black A1 takes both.
    let mut game = position::<9>("A3 B2 C1", "A2 B1", Player::One);
    game.try_play(mv(&game, "A1")).unwrap();
    assert_eq!(stone(&game, "A2"), None);
    assert_eq!(stone(&game, "B1"), None);
    assert_eq!(stone(&game, "A1"), Some(Player::One));
}

#[test]
fn shared_liberties_are_neutral() {
    // Black holds column D, White column F: column E touches both, so it is nobody's
    // (the liberties shared in a seki score the same way under Tromp-Taylor).
    let black: Vec<String> = (1..=9).map(|r| format!("D{r}")).collect();
    let white: Vec<String> = (1..=9).map(|r| format!("F{r}")).collect();
    let game = position::<9>(&black.join(" "), &white.join(" "), Player::One);
    assert_eq!(game.area_score(), 36.0 - 36.0 - 7.0);
}

#[test]
fn seki_liberties_count_for_nobody() {
    // 4  X X X .        Black B1 B2 and White A2 A3 B3 C3 C2 share the liberties A1
    // 3  O O O X        and C1 and have no other: whoever plays there first puts its own
    // 2  O X O X        chain in atari, so neither does (seki).
    // 1  . X . X
    let seki = position::<9>("B1 B2 A4 B4 C4 D3 D2 D1", "A2 A3 B3 C3 C2", Player::One);
    let mut black_tries = seki.clone();
    black_tries.try_play(mv(&seki, "A1")).unwrap();
    black_tries.try_play(mv(&seki, "C1")).unwrap();
    for v in ["A1", "B1", "B2"] {
        assert_eq!(stone(&black_tries, v), None, "Black's self-atari in the seki is captured: {v}");
    }
    // Tromp-Taylor: A1 and C1 touch both colours and count for nobody; the other 66
    // empty points touch Black only.
    assert_eq!(seki.area_score(), (8.0 + 66.0) - 5.0 - 7.0);
}

#[test]
fn positional_superko_forbids_what_simple_ko_allows() {
    // Black takes the ko at E4; White passes (which clears the simple ko) and retakes at
    // once, out of turn: that recreates the position before Black's capture.
    let mut game = position::<9>("D5 C4 D3", "E5 D4 F4 E3", Player::One);
    game.try_play(mv(&game, "E4")).unwrap();
    game.try_play(Go9::PASS).unwrap();
    let retake = mv(&game, "D4");
    let mut positional = game.clone();
    assert!(matches!(positional.play_as(Player::Two, retake), Err(GameError::IllegalMove(_))));
    assert_eq!(positional, game, "a refused move changes nothing");
    let mut simple = game.clone();
    simple.set_superko(Superko::SimpleKo);
    simple.play_as(Player::Two, retake).unwrap();
    assert_eq!(stone(&simple, "E4"), None);

    // The same cycle in turn: White passes, Black plays elsewhere and White retakes, to a
    // new position (A9 is new), so it is legal under either rule.
    let mut cycle = game.clone();
    cycle.try_play(mv(&cycle, "A9")).unwrap();
    assert!(cycle.legal_moves().as_ref().contains(&retake));
}

#[test]
fn superko_removes_the_repeating_move_from_the_legal_moves() {
    // Black takes the ko; Black then passes out of turn (GTP allows it), which clears the
    // simple ko: White's retake would recreate the position before the capture.
    let mut game = position::<9>("D5 C4 D3", "E5 D4 F4 E3", Player::One);
    let retake = mv(&game, "D4");
    game.try_play(mv(&game, "E4")).unwrap();
    game.play_as(Player::One, Go9::PASS).unwrap();
    assert_eq!(game.side_to_move(), Player::Two);
    assert!(!game.legal_moves().as_ref().contains(&retake));
    let mut simple = game.clone();
    simple.set_superko(Superko::SimpleKo);
    assert!(simple.legal_moves().as_ref().contains(&retake));
    // Every other empty point stays legal for White (no suicide here), plus the pass.
    let empties = (0..81).filter(|&p| game.stone_at(Move(p)).is_none()).count();
    assert_eq!(game.legal_moves().as_ref().len(), empties - 1 + 1);
}

#[test]
fn two_passes_end_the_game() {
    let mut game = Go9::new();
    game.try_play(Go9::PASS).unwrap();
    assert_eq!(game.outcome(), None);
    assert!(!game.legal_moves().as_ref().is_empty());
    game.try_play(Go9::PASS).unwrap();
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::Two)), "empty board: White wins by komi");
    assert!(game.legal_moves().as_ref().is_empty());
    assert_eq!(game.try_play(Move(0)), Err(GameError::GameOver));
    // A stone between the passes restarts the count.
    let mut again = Go9::new();
    again.play_sequence("pass D4 pass").unwrap();
    assert_eq!(again.outcome(), None);
}

#[test]
fn area_score_counts_komi_and_can_draw() {
    let game = position::<9>("E5", "", Player::Two);
    assert_eq!(game.area_score(), 81.0 - 7.0);
    let mut drawn = Go9::with_komi(0.0);
    drawn.play_sequence("pass pass").unwrap();
    assert_eq!(drawn.outcome(), Some(Outcome::Draw));
    let mut black_wins = Go9::with_komi(7.0);
    black_wins.set_komi(-0.5);
    assert_eq!(black_wins.komi(), -0.5);
    black_wins.play_sequence("pass pass").unwrap();
    assert_eq!(black_wins.outcome(), Some(Outcome::Win(Player::One)));
}

#[test]
fn vertices_parse_and_format_in_gtp_notation() {
    let game = Go9::new();
    assert_eq!(game.parse_move("A1"), Ok(Move(0)));
    assert_eq!(game.parse_move("j1"), Ok(Move(8)));
    assert_eq!(game.parse_move("H1"), Ok(Move(7)));
    assert_eq!(game.parse_move("A9"), Ok(Move(72)));
    assert_eq!(game.parse_move("PASS"), Ok(Go9::PASS));
    assert_eq!(game.format_move(Move(8)), "J1");
    assert_eq!(game.format_move(Go9::PASS), "pass");
    for bad in ["I1", "K1", "A10", "A0", "", "D", "Dx", "1A", "passs", "é4", "D-1"] {
        assert!(matches!(game.parse_move(bad), Err(GameError::BadMove(_))), "{bad:?}");
    }
    for point in 0..=81u16 {
        assert_eq!(game.parse_move(&game.format_move(Move(point))), Ok(Move(point)));
    }
    let big = Go19::new();
    assert_eq!(big.parse_move("T19"), Ok(Move(360)));
    assert_eq!(big.parse_move("q16"), Ok(Move(15 * 19 + 15)));
    assert!(big.parse_move("U1").is_err());
    assert_eq!(Go13::new().parse_move("N13"), Ok(Move(168)));
}

#[test]
fn larger_boards_follow_the_same_rules() {
    assert_eq!(Go13::NAME, "go13");
    assert_eq!(Go19::NAME, "go19");
    assert_eq!(Go13::new().legal_moves().as_ref().len(), 13 * 13 + 1);
    assert_eq!(Go19::new().legal_moves().as_ref().len(), 19 * 19 + 1);
    // A corner capture at T19 and a suicide at the far corner.
    let mut game = position::<19>("S19 T17", "T19 T18", Player::One);
    game.try_play(mv(&game, "S18")).unwrap();
    assert_eq!(stone(&game, "T19"), None);
    assert_eq!(stone(&game, "T18"), None);
    let corner = position::<13>("", "M1 N2", Player::One);
    assert!(!corner.is_legal(mv(&corner, "N1")));
    assert_eq!(position::<13>("G7", "", Player::Two).area_score(), 169.0 - 7.0);
}

#[test]
fn light_playouts_end_within_the_cap_and_score_the_board() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..50 {
        let mut game = Go9::new();
        let outcome = game.random_playout(&mut rng);
        assert_eq!(game.outcome(), Some(outcome));
        assert!(game.plies() <= Go9::MAX_PLIES as u32);
        let score = game.area_score();
        assert_eq!(outcome == Outcome::Win(Player::One), score > 0.0);
    }
    for _ in 0..5 {
        let mut game = Go19::new();
        game.random_playout(&mut rng);
        assert!(game.outcome().is_some());
        let mut game = Go13::new();
        game.random_playout(&mut rng);
        assert!(game.outcome().is_some());
    }
}

#[test]
fn the_hash_covers_side_ko_and_passes() {
    let a = Go9::parse_position("D4 E5 C3").unwrap();
    let b = Go9::parse_position("C3 E5 D4").unwrap();
    assert_eq!(a.hash(), b.hash(), "transpositions hash alike");
    let mut passed = a.clone();
    passed.try_play(Go9::PASS).unwrap();
    assert_ne!(passed.hash(), a.hash());
    let mut ko = position::<9>("D5 C4 D3", "E5 D4 F4 E3", Player::One);
    let before = ko.hash();
    ko.try_play(mv(&ko, "E4")).unwrap();
    let mut same_stones = position::<9>("D5 C4 D3 E4", "E5 F4 E3", Player::Two);
    assert_ne!(ko.hash(), same_stones.hash(), "the ko point is part of the hash");
    same_stones.set_komi(7.0);
    assert_ne!(before, ko.hash());
}

#[test]
fn playout_policies_pick_light_or_heavy_playouts() {
    // The same generator state gives the same game under the policies that share a
    // playout: uniform ones (pruned or not) the light playout, biased ones the heavy.
    let root = Go9::parse_position("E5 D4").unwrap();
    let run = |seed: u64, heavy: bool| {
        let mut game = root.clone();
        let rng = &mut Xoshiro256PlusPlus::seed_from_u64(seed);
        let outcome = if heavy { game.biased_playout(rng) } else { game.random_playout(rng) };
        (outcome, game.render())
    };
    let mut differ = 0;
    for seed in 0..20 {
        let expected = run(seed, false);
        differ += usize::from(run(seed, true) != expected);
        for (biased, prune) in [(false, true), (true, false), (true, true)] {
            let mut game = root.clone();
            let policy = PlayoutPolicy { biased, prune, ..PlayoutPolicy::default() };
            let outcome = policy.play_out(&mut game, &mut Xoshiro256PlusPlus::seed_from_u64(seed));
            assert_eq!((outcome, game.render()), run(seed, biased), "biased {biased}, prune {prune}");
        }
        let mut game = root.clone();
        let mut played = MovesPlayed::default();
        let rng = &mut Xoshiro256PlusPlus::seed_from_u64(seed);
        let outcome = game.recorded_playout(rng, PlayoutPolicy::default(), &mut played);
        assert_eq!((outcome, game.render()), expected.clone());
        // RAVE's record: every stone still on the board was played by its owner.
        for point in 0..81 {
            if let Some(owner) = game.stone_at(Move(point)) {
                let on_root = root.stone_at(Move(point)).is_some();
                assert!(on_root || played.contains(owner, Move(point)), "{}", game.format_move(Move(point)));
            }
        }
        // The heavy playout records too.
        let mut game = root.clone();
        let policy = PlayoutPolicy { biased: true, ..PlayoutPolicy::default() };
        let rng = &mut Xoshiro256PlusPlus::seed_from_u64(seed);
        let outcome = game.recorded_playout(rng, policy, &mut MovesPlayed::default());
        assert_eq!((outcome, game.render()), run(seed, true));
    }
    assert!(differ > 15, "heavy and light playouts differ in only {differ} of 20 games");
}

/// RAVE (Go's default) records every point of 19x19, whose move ids pass 255: the AMAF
/// visits cover the visits of every node (invariant 5), in 19x19 Go and 19x19 Hex.
#[test]
fn rave_covers_the_largest_boards() {
    use parmcts::{Hex19, Search, SearchConfig};
    let config = SearchConfig::builder().playouts(4000).seed(2).rave(1000.0).build().unwrap();
    let mut search = Search::new(config).unwrap();
    search.run(&parmcts::Go19::new()).unwrap();
    search.check_invariants().unwrap();
    let config = SearchConfig::builder().playouts(4000).seed(2).rave(1000.0).build().unwrap();
    let mut search = Search::new(config).unwrap();
    search.run(&Hex19::new()).unwrap();
    search.check_invariants().unwrap();
}

/// The move strengths behind Go's progressive bias: a capture, an escape from atari, a
/// self-atari, an own eye, the pass, an empty edge and a plain move, each as the
/// heavy playout's knowledge rates it.
#[test]
fn move_strengths_rate_captures_escapes_and_self_ataris() {
    use parmcts::games::go::heavy::{
        CAPTURE_STRENGTH, EMPTY_EDGE_STRENGTH, ESCAPE_STRENGTH, EYE_OR_PASS_STRENGTH, SELF_ATARI_STRENGTH,
    };
    // White D4 in atari (D3 captures); Black B8 in atari (B7 escapes to three
    // liberties); J1 next to White H1 is a self-atari; F6 is Black's eye.
    let game = position::<9>("C4 E4 D5 B8 F7 E6 G6 F5 E7 G7 E5 G5", "D4 H1 A8 B9 C8", Player::One);
    let strength = |v: &str| game.move_strength(mv(&game, v));
    assert!(strength("D3") >= CAPTURE_STRENGTH, "capture: {}", strength("D3"));
    assert!(strength("B7") >= ESCAPE_STRENGTH, "escape: {}", strength("B7"));
    assert_eq!(strength("J1"), SELF_ATARI_STRENGTH);
    assert_eq!(strength("F6"), EYE_OR_PASS_STRENGTH);
    assert_eq!(strength("pass"), EYE_OR_PASS_STRENGTH);
    // E1: first line, no stone within two points; B2: second line, nothing near.
    assert_eq!(strength("E1"), EMPTY_EDGE_STRENGTH);
    assert_eq!(strength("B2"), 1.0);
    // They are the priors of progressive bias (Playouts::action_value).
    assert_eq!(game.action_value(mv(&game, "D3")), strength("D3"));
}
