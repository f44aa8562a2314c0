//! Every game's notation under fuzzing (seeded; `PARMCTS_FUZZ_INPUTS` inputs per parser,
//! 10,000 by default): `parse_position`, `play_sequence` and `parse_move` in every game of
//! the registry, what a person types at the board (`human`), Othello's OBF boards, the
//! run-time Connect Four board headers and EinStein's set-ups. Inputs are legal lines of play written with random separators,
//! case and headers, the same mutated, and junk. No call may panic or take longer than a
//! second; a rejection is a one-line error; an accepted text, written back in the game's
//! own notation, reads as the same position (the same move, the same board).

mod common;

use std::any::Any;
use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use common::fuzz::{assert_one_line, fuzz, Fuzz};
use parmcts::games::connect4x::ConnectFourBoard;
use parmcts::games::einstein::Einstein;
use parmcts::games::othello::Othello;
use parmcts::harness::players::{Agent, Console, Decision, Hint, HumanAgent, PlayerSpec};
use parmcts::{with_game, Game, GameKind, SearchGame};

/// What two texts of one position must agree on: hash, turn, outcome, legal moves and
/// set-up.
fn fingerprint<G: Game>(game: &G) -> String {
    format!(
        "{:x} {:?} {:?} {:?} {:?}",
        game.hash(),
        game.turn(),
        game.outcome(),
        game.legal_moves().as_ref(),
        game.setup()
    )
}

/// The most plies of a generated line of play: a whole game of the small games, an
/// opening of the big ones (each move of a parse is checked against the legal moves).
fn max_plies(name: &str) -> usize {
    match name {
        "tictactoe" => 10,
        "connect4" | "othello" | "connect4x" => 64,
        "go" | "hex9" | "hex" => 50,
        "einstein" => 60,
        _ => 30,
    }
}

/// A random position header of the game (`9x10@3,1:` on run-time Connect Four boards,
/// `swap-rule` in Hex; nothing in the others), almost always a valid one.
fn header(f: &mut Fuzz, name: &str) -> String {
    match name {
        "connect4x" if !f.one_in(8) => {
            let side = |f: &mut Fuzz| if f.one_in(20) { f.below(16) } else { 4 + f.below(9) };
            let (w, h) = (side(f), side(f));
            let x = *f.pick(&["x", "X", " x "]);
            let blocked = if f.one_in(2) {
                format!("@{},{}", 1 + f.below(w.max(1)), 1 + f.below(h.max(1)))
            } else {
                String::new()
            };
            format!("{w}{x}{h}{blocked}:")
        }
        n if n.starts_with("hex") && f.one_in(3) => {
            f.pick(&["swap-rule ", "SWAP-RULE,", "swap-rule\t", "swap-rule"]).to_string()
        }
        _ => String::new(),
    }
}

/// A random line of up to `max` plies from `start` (a die roll is a ply), as the moves
/// played and their texts.
fn random_line<G: Game>(f: &mut Fuzz, start: &G, max: usize) -> (G, Vec<String>) {
    let mut game = start.clone();
    let mut texts = Vec::new();
    for _ in 0..f.length(max) {
        let moves = game.legal_moves();
        let Some(&mv) = moves.as_ref().get(f.below(moves.as_ref().len().max(1))) else { break };
        texts.push(game.format_move(mv));
        game.play_unchecked(mv);
    }
    (game, texts)
}

/// `moves` joined by random separators (run together where the game reads them so), at
/// times in upper case or with a pass left out (Othello plays forced passes itself).
fn join_moves<G: Game>(f: &mut Fuzz, start: &G, moves: &[String]) -> String {
    let mut kept = Vec::new();
    for m in moves {
        if m.as_str() == "pass" && f.one_in(2) {
            continue;
        }
        kept.push(if f.one_in(40) { m.to_uppercase() } else { m.clone() });
    }
    let moves = kept;
    let sep = *f.pick(&["", " ", ",", ", ", "\t", "  "]);
    let joined = moves.join(sep);
    if sep.is_empty() && start.split_moves(&joined) != moves {
        return moves.join(" ");
    }
    joined
}

/// An OBF board of `game` with random spellings: `.` or `-`, case, the side glued on,
/// a comment after `;`.
fn obf_text(f: &mut Fuzz, game: &Othello) -> String {
    let mut text = game.to_obf();
    if f.one_in(3) {
        text = text.replace('-', ".");
    }
    if f.one_in(3) {
        text = text.to_lowercase();
    }
    if f.one_in(4) {
        text = text.replacen(' ', "", 1);
    }
    if f.one_in(4) {
        text.push_str(" ; id 7");
    }
    text
}

/// A position text of `G`: a valid one half the time, else mutated or junk.
fn position_text<G: Game>(f: &mut Fuzz) -> String {
    let header = header(f, G::NAME);
    let text = match G::parse_position(&header) {
        Ok(start) => {
            let (end, moves) = random_line(f, &start, max_plies(G::NAME));
            match (&end as &dyn Any).downcast_ref::<Othello>() {
                Some(board) if f.one_in(4) => obf_text(f, board),
                _ => header + &join_moves(f, &start, &moves),
            }
        }
        Err(_) => header + &f.junk(12),
    };
    match f.below(10) {
        0..=4 => text,
        5..=8 => f.mutate(&text),
        _ => f.junk(40),
    }
}

/// Whether Othello reads `text` as an OBF board (its first word mostly board
/// characters), as `Othello::parse_position` decides.
fn is_board_text(text: &str) -> bool {
    let head = text.split(';').next().unwrap_or_default();
    head.split_whitespace()
        .next()
        .is_some_and(|w| 2 * w.chars().filter(|c| "XOxo-.*".contains(*c)).count() > w.chars().count())
}

/// Splits a position text into its header (as the game writes it for `position`) and
/// its moves.
fn split_header<'a, G: Game>(text: &'a str, position: &G) -> (String, &'a str) {
    if G::NAME == "connect4x" {
        if let Some((_, moves)) = text.split_once(':') {
            return (format!("{}:", position.setup().unwrap_or_default()), moves);
        }
    }
    if G::NAME.starts_with("hex") {
        let trimmed = text.trim_start();
        let first = trimmed.split(|c: char| c.is_whitespace() || c == ',').next().unwrap_or_default();
        if first.eq_ignore_ascii_case("swap-rule") {
            return ("swap-rule ".to_string(), &trimmed[first.len()..]);
        }
    }
    (String::new(), text)
}

/// `moves` (a move text accepted from `start`) written back move by move in the game's
/// own notation, separated by spaces.
fn rewritten<G: Game>(start: &G, moves: &str) -> String {
    let tokens = start.split_moves(moves);
    let texts: Vec<String> = tokens
        .iter()
        .map(|t| start.parse_move(t).map(|mv| start.format_move(mv)).unwrap_or_else(|e| panic!("{t:?} was read: {e}")))
        .collect();
    texts.join(" ")
}

/// `parse_position` of one text: a one-line error, or a position that its text written
/// back (an OBF board for Othello's boards) reads as again.
fn check_position<G: Game>(text: &str) -> bool {
    let parsed = G::parse_position(text);
    let position = match parsed {
        Ok(position) => position,
        Err(e) => {
            assert_one_line(G::NAME, &text, &e);
            return false;
        }
    };
    let again = match (&position as &dyn Any).downcast_ref::<Othello>() {
        Some(board) if is_board_text(text) => board.to_obf(),
        _ => {
            let (header, moves) = split_header(text, &position);
            let start = G::parse_position(&header).unwrap_or_else(|e| panic!("header {header:?} of {text:?}: {e}"));
            header + &rewritten(&start, moves)
        }
    };
    let reread = G::parse_position(&again).unwrap_or_else(|e| panic!("{text:?} written back as {again:?}: {e}"));
    assert_eq!(fingerprint(&reread), fingerprint(&position), "{text:?} written back as {again:?}");
    true
}

/// Fuzzes `parse_position` in `G`.
fn fuzz_positions<G: Game>(seed: u64) {
    let tally =
        fuzz(&format!("{} parse_position", G::NAME), seed, position_text::<G>, |t: &String| check_position::<G>(t));
    tally.assert_accepted(G::NAME, 0.3, 0.9);
}

/// Fuzzes `play_sequence` in `G`, from positions reached by random play: a one-line
/// error, or the position that the moves written back reach.
fn fuzz_sequences<G: Game>(seed: u64) {
    let generate = |f: &mut Fuzz| {
        let header = header(f, G::NAME);
        let start = G::parse_position(&header).unwrap_or_else(|_| G::new());
        let (from, _) = random_line(f, &start, max_plies(G::NAME) / 2);
        let (_, moves) = random_line(f, &from, max_plies(G::NAME) / 2);
        let text = join_moves(f, &from, &moves);
        let text = match f.below(10) {
            0..=4 => text,
            5..=8 => f.mutate(&text),
            _ => f.junk(30),
        };
        (from, text)
    };
    let check = |(from, text): &(G, String)| {
        let mut played = from.clone();
        if let Err(e) = played.play_sequence(text) {
            assert_one_line(G::NAME, text, &e);
            return false;
        }
        let mut again = from.clone();
        let rewritten = rewritten(from, text);
        again.play_sequence(&rewritten).unwrap_or_else(|e| panic!("{text:?} written back as {rewritten:?}: {e}"));
        assert_eq!(fingerprint(&again), fingerprint(&played), "{text:?} written back as {rewritten:?}");
        true
    };
    fuzz(&format!("{} play_sequence", G::NAME), seed, generate, check).assert_accepted(G::NAME, 0.3, 0.9);
}

/// Fuzzes `parse_move` in `G`: a one-line error, or a move whose text reads as itself.
fn fuzz_moves<G: Game>(seed: u64) {
    let generate = |f: &mut Fuzz| {
        let header = header(f, G::NAME);
        let start = G::parse_position(&header).unwrap_or_else(|_| G::new());
        let (at, _) = random_line(f, &start, max_plies(G::NAME));
        let (_, next) = random_line(f, &at, 3);
        let text = next.first().cloned().unwrap_or_else(|| at.format_move(parmcts::Move(f.below(400) as u16)));
        let text = match f.below(10) {
            0..=3 => text,
            4 => text.to_uppercase(),
            5..=8 => f.mutate(&text),
            _ => f.junk(8),
        };
        (at, text)
    };
    let check = |(at, text): &(G, String)| match at.parse_move(text) {
        Ok(mv) => {
            let written = at.format_move(mv);
            assert_eq!(at.parse_move(&written), Ok(mv), "{text:?} written back as {written:?}");
            true
        }
        Err(e) => {
            assert_one_line(G::NAME, text, &e);
            false
        }
    };
    fuzz(&format!("{} parse_move", G::NAME), seed, generate, check).assert_accepted(G::NAME, 0.2, 0.95);
}

/// A seed per game and parser, so each run is reproducible on its own.
fn seed(kind: GameKind, parser: u64) -> u64 {
    let index = GameKind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u64;
    parser << 32 | index
}

#[test]
fn positions_parse_or_name_their_fault_in_every_game() {
    for &kind in GameKind::ALL {
        with_game!(kind, G => fuzz_positions::<G>(seed(kind, 1)));
    }
}

#[test]
fn sequences_play_or_name_their_fault_in_every_game() {
    for &kind in GameKind::ALL {
        with_game!(kind, G => fuzz_sequences::<G>(seed(kind, 2)));
    }
}

#[test]
fn moves_parse_or_name_their_fault_in_every_game() {
    for &kind in GameKind::ALL {
        with_game!(kind, G => fuzz_moves::<G>(seed(kind, 3)));
    }
}

/// A run-time Connect Four board header, valid or not.
fn board_header(f: &mut Fuzz) -> String {
    let text = header(f, "connect4x");
    let text = text.trim_end_matches(':').to_string();
    match f.below(10) {
        0..=4 => text,
        5..=8 => f.mutate(&text),
        _ => f.junk(12),
    }
}

#[test]
fn board_headers_parse_or_name_their_fault() {
    let check = |text: &String| match ConnectFourBoard::parse_board(text) {
        Ok(board) => {
            let written = board.board_text();
            let again = ConnectFourBoard::parse_board(&written).unwrap_or_else(|e| panic!("{written:?}: {e}"));
            assert_eq!(again, board, "{text:?} written back as {written:?}");
            true
        }
        Err(e) => {
            assert_one_line("connect4x board", text, &e);
            false
        }
    };
    fuzz("connect4x parse_board", 4, board_header, check).assert_accepted("connect4x parse_board", 0.3, 0.9);
}

/// An EinStein set-up (`123456/654321`), valid or not.
fn setup_text(f: &mut Fuzz) -> String {
    let mut sides = Vec::new();
    for _ in 0..2 {
        let mut digits: Vec<char> = "123456".chars().collect();
        for i in (1..digits.len()).rev() {
            digits.swap(i, f.below(i + 1));
        }
        sides.push(digits.into_iter().collect::<String>());
    }
    let text = format!("{}{}/{}", if f.one_in(8) { " " } else { "" }, sides[0], sides[1]);
    match f.below(10) {
        0..=4 => text,
        5..=8 => f.mutate(&text),
        _ => f.junk(14),
    }
}

#[test]
fn einstein_setups_parse_or_name_their_fault() {
    let check = |text: &String| match Einstein::parse_setup(text) {
        Ok(game) => {
            let written = game.setup().unwrap_or_else(|| panic!("{text:?}: a start position has a set-up"));
            let again = Einstein::parse_setup(&written).unwrap_or_else(|e| panic!("{written:?}: {e}"));
            assert_eq!(fingerprint(&again), fingerprint(&game), "{text:?} written back as {written:?}");
            true
        }
        Err(e) => {
            assert_one_line("einstein set-up", text, &e);
            false
        }
    };
    fuzz("einstein parse_setup", 5, setup_text, check).assert_accepted("einstein parse_setup", 0.3, 0.9);
}

/// A writer whose text the test reads back.
#[derive(Clone, Default)]
struct Transcript(Arc<Mutex<Vec<u8>>>);

impl Write for Transcript {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A position of `G` and what a person types there: moves (legal, mutated), commands and
/// junk, a line each.
fn console_input<G: Game>(f: &mut Fuzz) -> (G, bool, String) {
    let header = header(f, G::NAME);
    let start = G::parse_position(&header).unwrap_or_else(|_| G::new());
    let (at, _) = random_line(f, &start, max_plies(G::NAME));
    let lines: Vec<String> = (0..1 + f.length(4))
        .map(|_| {
            let legal = at.legal_moves();
            let mv = legal.as_ref().get(f.below(legal.as_ref().len().max(1))).map(|&m| at.format_move(m));
            let text = mv.unwrap_or_else(|| "pass".to_string());
            match f.below(10) {
                0..=2 => text,
                3 => f.pick(&["undo", "UNDO", "help", "hint", " quit ", ""]).to_string(),
                4..=8 => f.mutate(&text),
                _ => f.junk(10),
            }
        })
        .collect();
    (at, f.one_in(2), lines.join(if f.one_in(3) { "\r\n" } else { "\n" }))
}

/// Fuzzes a person at the board in `G`: a decision (a legal move that its text reads as,
/// an undo where one may undo, a quit), every message on the console free of control
/// characters but the line breaks.
fn fuzz_console<G: SearchGame>(seed: u64) {
    let opponent = PlayerSpec::parse("mcts:playouts=20,nodes=20000").unwrap_or_else(|e| panic!("{e}"));
    let hint = Hint::against(&opponent).unwrap_or_else(|e| panic!("{e}"));
    let check = move |(game, undoable, text): &(G, bool, String)| {
        let transcript = Transcript::default();
        let console = Console::new(Cursor::new(text.clone().into_bytes()), transcript.clone());
        let mut person = HumanAgent::new(console, "p1", hint.clone());
        let decision = person.decide(game, *undoable);
        let written = String::from_utf8_lossy(&transcript.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
        assert!(!written.contains(|c: char| c.is_control() && c != '\n'), "{text:?}: {written:?}");
        match decision {
            Ok(Decision::Move(mv)) => {
                assert!(game.legal_moves().as_ref().contains(&mv), "{text:?}: an illegal move");
                assert_eq!(game.parse_move(&game.format_move(mv)), Ok(mv), "{text:?}");
                true
            }
            Ok(Decision::Undo) => {
                assert!(*undoable, "{text:?}: an undo where none may be");
                false
            }
            Ok(Decision::Quit) => false,
            Err(e) => {
                assert!(game.outcome().is_some(), "{text:?}: {e}");
                assert_one_line(G::NAME, text, &e);
                false
            }
        }
    };
    let tally = fuzz(&format!("{} console", G::NAME), seed, console_input::<G>, check);
    tally.assert_accepted(G::NAME, 0.2, 0.9);
}

#[test]
fn a_person_at_the_board_in_every_game_moves_or_is_told_why_not() {
    for &kind in GameKind::ALL {
        with_game!(kind, G => fuzz_console::<G>(seed(kind, 6)));
    }
}

/// Inputs the fuzzing found whose errors quoted a line break or a carriage return and
/// so ran over two lines: the control characters are now written as escapes.
#[test]
fn errors_quote_control_characters_as_escapes() {
    let cases: Vec<(String, String)> = vec![
        ("go parse_move p\\nasss".into(), parmcts::Go9::new().parse_move("p\nasss").unwrap_err().to_string()),
        ("hex9 parse_move \\ndd5".into(), parmcts::Hex9::new().parse_move("\ndd5").unwrap_err().to_string()),
        ("connect4x parse_board".into(), ConnectFourBoard::parse_board("p_s])a\rt\"").unwrap_err().to_string()),
        ("connect4x header".into(), ConnectFourBoard::parse_position("9\nby9:4").unwrap_err().to_string()),
        ("einstein set-up".into(), Einstein::parse_setup("621435/621435/\n542631531").unwrap_err().to_string()),
    ];
    for (input, message) in cases {
        assert!(!message.contains(['\n', '\r']), "{input}: {message:?}");
        assert!(message.contains("\\n") || message.contains("\\r"), "{input}: {message:?}");
    }
    let message = parmcts::Go9::new().parse_move("p\nasss").unwrap_err().to_string();
    assert_eq!(message, "malformed move 'p\\nasss' (expected a vertex A1-J9 (columns without I) or pass)");
}
