//! The GTP engine in Go and Hex, and game records: Go's dead stones, Hex's sizes and
//! swap rule, and `printsgf` / `loadsgf` round trips.

mod common;

use common::gtp::{engine, fails, ok};
use parmcts::gtp::{Engine, EngineConfig};
use parmcts::{Game, GameKind, Outcome, Player, SearchConfig};

/// Go's end of game: a white stone left in atari inside Black's area is dead by
/// Monte-Carlo ownership (`final_status_list dead`), Tromp-Taylor's count takes it as it
/// stands, so when White passes early Black does not pass (passing would lose) but plays
/// on. (A lone white stone there, with no black stone beside it, is not dead by light
/// playouts: they give it to Black about as often as to White, ownership 0.0-0.3.)
#[test]
fn go_dead_stones_are_listed_and_cleaned_up() {
    let search = SearchConfig::builder()
        .apply_settings([("playouts", "3000"), ("nodes", "400000"), ("seed", "3")])
        .unwrap()
        .build()
        .unwrap();
    let mut e = Engine::new(GameKind::Go, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap();
    // Black's wall on column F, White's on G, and a white stone at B5 in Black's area, in
    // atari from B4, B6 and C5 (ownership about +0.6, Black's, over eight seeds).
    for row in 1..=9 {
        ok(&mut e, &format!("play b F{row}"));
        ok(&mut e, &format!("play w G{row}"));
    }
    ok(&mut e, "play w B5");
    for point in ["B4", "B6", "C5"] {
        ok(&mut e, &format!("play b {point}"));
    }
    assert_eq!(ok(&mut e, "final_status_list dead"), "B5");
    let alive = ok(&mut e, "final_status_list alive");
    assert_eq!(alive.split_whitespace().count(), 21, "{alive}");
    assert!(!alive.contains("B5"), "{alive}");
    // As it stands, A-E's empty points are no one's: Black 12, White 10 + 18 + komi 7.
    assert_eq!(ok(&mut e, "final_score"), "W+23");
    ok(&mut e, "play w pass");
    let answer = ok(&mut e, "genmove b");
    assert_ne!(answer.to_ascii_lowercase(), "pass", "Black passed into a lost count");
}

/// A Hex engine (11x11 unless `boardsize` says otherwise) with a small budget.
fn hex_engine() -> Engine {
    let search = SearchConfig::builder()
        .apply_settings([("playouts", "300"), ("nodes", "200000"), ("seed", "3")])
        .unwrap()
        .build()
        .unwrap();
    Engine::new(GameKind::Hex, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap()
}

#[test]
fn hex_over_gtp_with_sizes_the_swap_rule_and_a_whole_game() {
    let mut e = hex_engine();
    assert_eq!(ok(&mut e, "name"), "parmcts");
    assert!(ok(&mut e, "showboard").contains(" a b c d e f g h i j k"));
    fails(&mut e, "boardsize 12", "unacceptable size 12");
    // HexGui's form: width and height.
    fails(&mut e, "boardsize 11 9", "only square boards");
    fails(&mut e, "boardsize 12 12", "unacceptable size 12");
    ok(&mut e, "boardsize 9 9");
    assert!(ok(&mut e, "showboard").contains(" a b c d e f g h i\n"));
    ok(&mut e, "boardsize 9");
    assert!(ok(&mut e, "showboard").contains(" a b c d e f g h i\n"));
    fails(&mut e, "play b j1", "invalid vertex 'j1'");
    ok(&mut e, "play b i9");
    fails(&mut e, "play b a1", "not black's turn");
    fails(&mut e, "play w i9", "illegal move i9");
    fails(&mut e, "play w swap-pieces", "illegal move swap-pieces");
    fails(&mut e, "hex-swap-rule maybe", "syntax error");
    // The swap rule, on in the game under way and kept across boardsize.
    ok(&mut e, "hex-swap-rule on");
    ok(&mut e, "boardsize 11");
    ok(&mut e, "play b c2");
    ok(&mut e, "play w swap-pieces");
    let board = ok(&mut e, "showboard");
    assert!(board.contains("Black (X, top-bottom) to move"), "{board}");
    ok(&mut e, "undo");
    ok(&mut e, "hex-swap-rule off");
    fails(&mut e, "play w swap", "illegal move swap-pieces");
    assert_eq!(ok(&mut e, "final_score"), "0");

    // A whole 9x9 game: genmove and play alternate until one side connects, and the
    // score names the winner the board shows.
    ok(&mut e, "boardsize 9");
    let mut game = parmcts::Hex9::new();
    for ply in 0..81 {
        let colour = if ply % 2 == 0 { "b" } else { "w" };
        let mv = if ply % 4 == 1 {
            // White's every other move comes from outside, the first empty cell.
            let mv = game.legal_moves()[0];
            ok(&mut e, &format!("play {colour} {}", game.format_move(mv)));
            mv
        } else {
            let text = ok(&mut e, &format!("genmove {colour}"));
            game.parse_move(&text).unwrap()
        };
        game.try_play(mv).unwrap();
        if game.outcome().is_some() {
            break;
        }
    }
    let expected = match game.outcome() {
        Some(Outcome::Win(Player::One)) => "B+1",
        Some(Outcome::Win(Player::Two)) => "W+1",
        other => panic!("the game did not end: {other:?}"),
    };
    assert_eq!(ok(&mut e, "final_score"), expected);
    fails(&mut e, "genmove b", "the game is over");
    let over = Engine::new(
        GameKind::Othello,
        EngineConfig {
            search: SearchConfig::builder().playouts(10).build().unwrap(),
            resign_below: 0.0,
            ponder: false,
        },
    );
    fails(&mut over.unwrap(), "hex-swap-rule on", "no swap rule");
}

/// A Go engine with `playouts` playouts a move, seed 5.
fn go_engine(playouts: &str) -> Engine {
    let settings = [("playouts", playouts), ("nodes", "200000"), ("seed", "5")];
    let search = SearchConfig::builder().apply_settings(settings).unwrap().build().unwrap();
    Engine::new(GameKind::Go, EngineConfig { search, resign_below: 0.0, ponder: false }).unwrap()
}

/// `printsgf` writes the game so far; `loadsgf` reads it back to the same position (and
/// `loadsgf FILE N` to the position before move N), in Othello, Go (with moves out of
/// turn, a pass and a board size change) and Hex (with the swap).
#[test]
fn printsgf_and_loadsgf_round_trip() {
    let dir = std::env::temp_dir().join(format!("parmcts-gtp-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    // Each game: a few moves, then the record reloaded in a fresh engine.
    let lines: [(&str, Vec<&str>); 3] = [
        ("othello", vec!["genmove b", "genmove w", "genmove b", "genmove w", "genmove b"]),
        (
            "go",
            vec![
                "boardsize 13",
                "komi 5.5",
                "play b D4",
                "play b K10",
                "genmove w",
                "genmove b",
                "play w pass",
                "play b C3",
            ],
        ),
        ("hex", vec!["hex-swap-rule on", "play b c3", "play w swap-pieces", "genmove b", "genmove w"]),
    ];
    for (game, commands) in lines {
        let fresh = || match game {
            "othello" => engine("50"),
            "go" => go_engine("50"),
            _ => hex_engine(),
        };
        let mut e = fresh();
        for command in &commands {
            ok(&mut e, command);
        }
        let record = ok(&mut e, "printsgf");
        assert!(record.starts_with("(;FF[4]") && record.ends_with(')'), "{game}: {record}");
        let path = save(&format!("{game}.sgf"), &record);
        let board = ok(&mut e, "showboard");
        let mut loaded = fresh();
        if game == "hex" {
            // The swap rule is the engine's setting (SGF has no property for it).
            fails(&mut loaded, &format!("loadsgf {path}"), "move 2 (swap-pieces by white) is not legal here");
            ok(&mut loaded, "hex-swap-rule on");
        }
        ok(&mut loaded, &format!("loadsgf {path}"));
        assert_eq!(ok(&mut loaded, "showboard"), board, "{game}: {record}");
        assert_eq!(ok(&mut loaded, "printsgf"), record, "{game}");
        // Before move 3: two moves played (setup stones, if any, count for none).
        ok(&mut loaded, &format!("loadsgf {path} 3"));
        let moves = commands.iter().filter(|c| c.starts_with("play") || c.starts_with("genmove")).count();
        for _ in 2..moves {
            ok(&mut e, "undo");
        }
        assert_eq!(ok(&mut loaded, "showboard"), ok(&mut e, "showboard"), "{game}: loadsgf 3");
    }
    // Errors name the file and what is wrong; the engine stays usable.
    let mut e = go_engine("50");
    fails(&mut e, &format!("loadsgf {}", dir.join("missing.sgf").display()), "missing.sgf");
    fails(&mut e, &format!("loadsgf {}", save("bad.sgf", "(;GM[1]SZ[9];B[ee")), "not SGF");
    fails(&mut e, &format!("loadsgf {}", dir.join("othello.sgf").display()), "not GM[1]");
    fails(&mut e, &format!("loadsgf {}", save("twice.sgf", "(;GM[1]SZ[9];B[ee];W[ee])")), "move 2 (ee by white)");
    fails(&mut e, &format!("loadsgf {}", save("size.sgf", "(;GM[1]SZ[7];B[aa])")), "unacceptable size 7");
    fails(&mut e, &format!("loadsgf {}", save("rect.sgf", "(;GM[1]SZ[9:7])")), "only square boards");
    fails(&mut e, &format!("loadsgf {} 0", dir.join("go.sgf").display()), "move number");
    fails(&mut e, "loadsgf /", "not a regular file");
    ok(&mut e, "play b E5");
    // Handicap stones (AB) and a pass written the old way (tt).
    ok(&mut e, &format!("loadsgf {}", save("handicap.sgf", "(;GM[1]SZ[9]HA[2]AB[cc][gg];W[tt];B[ee])")));
    let board = ok(&mut e, "showboard");
    let rows = board.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    assert_eq!(rows.map(|row| row.matches('X').count()).sum::<usize>(), 3, "{board}");
    assert!(ok(&mut e, "printsgf").ends_with(";B[cc];B[gg];W[];B[ee])"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `fixed_handicap` places GTP's layout: the points GNU Go 3.8 answers (`gnugo --mode
/// gtp`, `boardsize S`, `fixed_handicap N`, for S in 9, 13, 19 and N in 2 to 9; compared
/// as sets, as GTP leaves the order free), and nothing past 9 stones.
#[test]
fn fixed_handicap_places_the_points_gnu_go_places() {
    let gnugo: [(u32, [&str; 8]); 3] = [
        (
            9,
            [
                "G7 C3",
                "C7 G7 C3",
                "C7 G7 C3 G3",
                "C7 G7 E5 C3 G3",
                "C7 G7 C5 G5 C3 G3",
                "C7 G7 C5 E5 G5 C3 G3",
                "C7 E7 G7 C5 G5 C3 E3 G3",
                "C7 E7 G7 C5 E5 G5 C3 E3 G3",
            ],
        ),
        (
            13,
            [
                "K10 D4",
                "D10 K10 D4",
                "D10 K10 D4 K4",
                "D10 K10 G7 D4 K4",
                "D10 K10 D7 K7 D4 K4",
                "D10 K10 D7 G7 K7 D4 K4",
                "D10 G10 K10 D7 K7 D4 G4 K4",
                "D10 G10 K10 D7 G7 K7 D4 G4 K4",
            ],
        ),
        (
            19,
            [
                "Q16 D4",
                "D16 Q16 D4",
                "D16 Q16 D4 Q4",
                "D16 Q16 K10 D4 Q4",
                "D16 Q16 D10 Q10 D4 Q4",
                "D16 Q16 D10 K10 Q10 D4 Q4",
                "D16 K16 Q16 D10 Q10 D4 K4 Q4",
                "D16 K16 Q16 D10 K10 Q10 D4 K4 Q4",
            ],
        ),
    ];
    let sorted = |text: &str| {
        let mut points: Vec<String> = text.split_whitespace().map(str::to_ascii_uppercase).collect();
        points.sort();
        points
    };
    let mut e = go_engine("200");
    ok(&mut e, "komi 0.5");
    for (size, layouts) in gnugo {
        ok(&mut e, &format!("boardsize {size}"));
        for (stones, expected) in (2..).zip(layouts) {
            ok(&mut e, "clear_board");
            let placed = ok(&mut e, &format!("fixed_handicap {stones}"));
            assert_eq!(sorted(&placed), sorted(expected), "{size}x{size}, {stones} stones");
            // Black's stones are on the board, and White is to move.
            let board = ok(&mut e, "showboard");
            let (grid, footer) = board.rsplit_once('\n').unwrap();
            assert_eq!(grid.matches('X').count(), stones as usize, "{board}");
            assert!(footer.starts_with("White (O) to move"), "{board}");
            assert_eq!(ok(&mut e, "final_score"), format!("B+{}.5", size * size - 1));
        }
        ok(&mut e, "clear_board");
        fails(&mut e, "fixed_handicap 10", "invalid number of stones");
        fails(&mut e, "fixed_handicap 1", "invalid number of stones");
    }
}

/// The handicap commands' errors (GTP's `board not empty`, `invalid number of stones`,
/// `bad vertex list`) leave the board as it was; `place_free_handicap` places the fixed
/// layout, at most nine stones (GTP lets an engine place fewer than asked);
/// `set_free_handicap` places the stones given.
#[test]
fn handicap_commands_check_their_arguments() {
    let mut e = go_engine("200");
    fails(&mut e, "fixed_handicap", "syntax error");
    fails(&mut e, "fixed_handicap two", "syntax error");
    fails(&mut e, "place_free_handicap 1", "invalid number of stones");
    fails(&mut e, "place_free_handicap 81", "invalid number of stones");
    fails(&mut e, "set_free_handicap C3", "bad vertex list");
    // A repeated vertex, a pass or a point off the board: nothing stays placed.
    fails(&mut e, "set_free_handicap C3 D4 C3", "bad vertex list: C3");
    fails(&mut e, "set_free_handicap C3 pass", "bad vertex list: pass");
    fails(&mut e, "set_free_handicap C3 Z9", "bad vertex list: Z9");
    assert_eq!(ok(&mut e, "place_free_handicap 12").split_whitespace().count(), 9);
    fails(&mut e, "fixed_handicap 2", "board not empty");
    ok(&mut e, "clear_board");
    assert_eq!(ok(&mut e, "set_free_handicap c3 d4 e5"), "");
    let board = ok(&mut e, "showboard");
    assert!(board.contains("White (O) to move"), "{board}");
    // The game goes on with White's move; `undo` takes the stones back one by one.
    let reply = ok(&mut e, "genmove w");
    assert!(!["C3", "D4", "E5"].contains(&reply.as_str()), "{reply}");
    for _ in 0..4 {
        ok(&mut e, "undo");
    }
    fails(&mut e, "undo", "cannot undo");
    // A game without handicap stones says so.
    let mut othello = common::gtp::engine("10");
    fails(&mut othello, "fixed_handicap 2", "no handicap stones");
}
