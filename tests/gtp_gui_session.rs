//! A GUI's session with `parmcts gtp` over pipes, the way Sabaki and Lizzie drive an
//! engine: after the usual opening (`protocol_version`, `name`, `boardsize`, `komi`, …),
//! a seeded random sequence of commands — live analysis (`lz-analyze`, `kata-analyze`)
//! interrupted by the next command at once, after 1-30 ms or now and then after a
//! longer look; moves, now and then one that is no longer legal; searched moves with and
//! without analysis (`genmove_analyze`, `genmove`); `undo`, `showboard` and
//! `clear_board`; numeric ids on some — while the test keeps its own game with the
//! library's rules.
//!
//! After every command the engine must agree with that game: each response is well
//! formed (`=` or `?` with the command's id, ended by an empty line, `?` exactly where the
//! rules refuse the command); each analysis line parses by the extensions' grammar
//! (`tests/common/analysis.rs`) and its moves and lines are legal in the position analysed;
//! each searched move is legal and is then played on the test's board; `showboard` after
//! each command that may change the position prints the test's board exactly. At the end
//! the engine's history is taken back move by move and compared position by position.
//!
//! A failure names the seed, the command's index and the commands before it. The seed is
//! fixed per game; `GTP_GUI_SEED=N` runs another.

mod common;

use std::collections::VecDeque;
use std::time::Duration;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use common::analysis::parse_line;
use common::gtp::Pipes;
use parmcts::games::random_below;
use parmcts::gtp::GtpGame;
use parmcts::{Game, Go9, Hex11, Move, Othello, Player};

/// The commands before the failing one that a failure prints.
const RECENT: usize = 12;

/// An analysis streaming until the next command: what its response must hold.
struct Stream<G> {
    id: Option<u32>,
    kata: bool,
    /// Whether `ownership true` was asked.
    ownership: bool,
    max_moves: Option<usize>,
    /// The position analysed (`None`: the engine must refuse, the game being over).
    position: Option<G>,
}

/// A command sent ahead, its response not read yet.
struct Sent {
    id: Option<u32>,
}

/// What the session did, to show that it reached what it checks.
#[derive(Debug, Default)]
struct Counts {
    info_lines: usize,
    streams_with_lines: usize,
    moves_played: usize,
    moves_refused: usize,
    searched_moves: usize,
    undone: usize,
    boards_compared: usize,
    games_over: usize,
}

/// The GUI: the engine, the random source, and the game as the test keeps it.
struct Gui<G: GtpGame> {
    pipes: Pipes,
    rng: Xoshiro256PlusPlus,
    seed: u64,
    /// The start position (komi and swap rule as the opening set them).
    start: G,
    /// The position after each command that changed the game, the start first (the
    /// engine's `undo` goes back one of them).
    history: Vec<G>,
    /// The move from each position of `history` to the next, with the colour the engine
    /// records it for (what `printsgf` writes).
    moves: Vec<(Player, Move)>,
    /// The number of values an analysis line's ownership holds when asked for.
    ownership_values: usize,
    /// The index in the sequence of the command being checked.
    index: usize,
    recent: VecDeque<String>,
    stream: Option<Stream<G>>,
    counts: Counts,
}

impl<G: GtpGame> Gui<G> {
    /// Starts `parmcts gtp` with `args`, sends a GUI's opening and `setup` (the commands
    /// that give the engine `start`), and checks the engine's board against `start`.
    fn new(args: &[&str], seed: u64, setup: &[&str], start: G) -> Gui<G> {
        let ownership_values = start.ownership().map_or(0, |v| v.len());
        let mut gui = Gui {
            pipes: Pipes::start(args),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            seed,
            history: vec![start.clone()],
            moves: Vec::new(),
            start,
            ownership_values,
            index: 0,
            recent: VecDeque::new(),
            stream: None,
            counts: Counts::default(),
        };
        let size = format!("boardsize {}", G::BOARD_SIZE);
        let opening = ["protocol_version", "name", "version", "list_commands", size.as_str(), "clear_board"];
        for command in opening.iter().chain(setup) {
            let id = gui.send(command);
            gui.expect(id, true);
        }
        gui.compare_boards();
        gui
    }

    fn top(&self) -> &G {
        self.history.last().expect("the start position")
    }

    fn below(&mut self, n: u32) -> u32 {
        random_below(&mut self.rng, n)
    }

    fn fail(&self, why: &str) -> ! {
        let recent: Vec<&str> = self.recent.iter().map(String::as_str).collect();
        panic!(
            "seed {}, command {}: {why}\nlast commands sent:\n  {}\ntest's board:\n{}",
            self.seed,
            self.index,
            recent.join("\n  "),
            self.top().render()
        );
    }

    /// Sends `command`, with an id one time in three, and returns the id; then reads and
    /// checks the response of the analysis that the command ends, if one streams.
    fn send(&mut self, command: &str) -> Option<u32> {
        let id = (self.below(3) == 0).then(|| self.below(1000));
        let line = id.map_or_else(|| command.to_string(), |id| format!("{id} {command}"));
        self.pipes.write(&line);
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(format!("[{}] {line}", self.index));
        if let Some(stream) = self.stream.take() {
            self.check_stream(stream);
        }
        id
    }

    /// The next response, checked: `=` (`ok`) or `?`, then the id, then the result after
    /// a space or on the lines below. Returns the first line's result and the lines below.
    fn expect(&mut self, id: Option<u32>, ok: bool) -> Vec<String> {
        let lines = self.pipes.response().unwrap_or_else(|e| self.fail(&e));
        let head = format!("{}{}", if ok { '=' } else { '?' }, id.map_or(String::new(), |id| id.to_string()));
        let rest = lines.first().and_then(|first| first.strip_prefix(&head));
        match rest {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                let mut result = vec![rest.trim_start().to_string()];
                result.extend_from_slice(&lines[1..]);
                result
            }
            _ => self.fail(&format!("expected a response starting '{head}', got {lines:?}")),
        }
    }

    /// `showboard` prints the test's board: the game's picture, blank lines left out.
    fn compare_boards(&mut self) {
        self.check_board(None);
    }

    /// Sends `showboard` one time in four (before the response to the command just sent
    /// is read: a GUI may send commands ahead, which wait for the one running).
    fn showboard_ahead(&mut self) -> Option<Sent> {
        (self.below(4) == 0).then(|| Sent { id: self.send("showboard") })
    }

    /// [`Gui::compare_boards`], with the `showboard` sent ahead if there is one.
    fn check_board(&mut self, ahead: Option<Sent>) {
        let id = match ahead {
            Some(sent) => sent.id,
            None => self.send("showboard"),
        };
        let lines = self.expect(id, true);
        let picture = self.top().render();
        let expected: Vec<&str> = picture.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines[0].is_empty() && lines[1..] == expected[..] {
            self.counts.boards_compared += 1;
        } else {
            self.fail(&format!("the engine's board {lines:#?}\ndiffers from the test's {expected:#?}"));
        }
    }

    /// The colour a command names: the side to move, or now and then the other colour
    /// where the rules let it move now (Go: either colour; Othello: through a forced pass).
    fn colour(&mut self) -> Player {
        let to_move = self.top().side_to_move();
        let other = to_move.other();
        let allowed = self.top().outcome().is_none() && self.top().clone().give_turn(other, "").is_ok();
        if allowed && self.below(6) == 0 {
            other
        } else {
            to_move
        }
    }

    fn colour_text(&mut self, colour: Player) -> &'static str {
        let names = if colour == Player::One { ["b", "B", "black"] } else { ["w", "W", "white"] };
        names[self.below(3) as usize]
    }

    /// The position analysed for `colour` (`None`: the side to move), or `None` when the
    /// game is over and the engine must refuse.
    fn analysed(&self, colour: Option<Player>) -> Option<G> {
        let mut position = self.top().clone();
        if position.outcome().is_some() {
            return None;
        }
        if let Some(colour) = colour {
            position.give_turn(colour, "").expect("a colour the rules let move");
        }
        Some(position)
    }

    /// Adds `position`, reached by `played`, to the test's game.
    fn record(&mut self, position: G, played: (Player, Move)) {
        self.counts.games_over += usize::from(position.outcome().is_some() && self.top().outcome().is_none());
        self.history.push(position);
        self.moves.push(played);
    }

    /// One random command of the sequence, checked.
    fn step(&mut self) {
        if self.top().outcome().is_some() && self.below(4) == 0 {
            // A new game, as a GUI starts one.
            return self.clear_board();
        }
        match self.below(100) {
            0..=26 => self.analyze(),
            27..=59 => self.play(),
            60..=67 => self.genmove_analyze(),
            68..=75 => self.genmove(),
            76..=87 => self.undo(),
            88..=96 => self.compare_boards(),
            97 | 98 => self.compare_records(),
            _ => self.clear_board(),
        }
    }

    /// `lz-analyze` or `kata-analyze` in one of their forms; the response is read and
    /// checked when the next command has been sent: at once, 1-30 ms later, or now and
    /// then after a longer look.
    fn analyze(&mut self) {
        let kata = self.below(2) == 0;
        let colour = (self.below(3) > 0).then(|| self.colour());
        let mut command = if kata { "kata-analyze" } else { "lz-analyze" }.to_string();
        if let Some(colour) = colour {
            command = format!("{command} {}", self.colour_text(colour));
        }
        let centiseconds = if self.below(3) > 0 { 1 } else { 2 + self.below(2) };
        command = match self.below(2) {
            0 if !kata => format!("{command} {centiseconds}"),
            _ => format!("{command} interval {centiseconds}"),
        };
        let max_moves = (self.below(4) == 0).then(|| 1 + self.below(6) as usize);
        if let Some(n) = max_moves {
            command = format!("{command} maxmoves {n}");
        }
        let ownership = kata && self.below(3) == 0;
        if ownership {
            command.push_str(" ownership true");
        }
        let position = self.analysed(colour);
        let id = self.send(&command);
        self.stream = Some(Stream { id, kata, ownership, max_moves, position });
        // At once, after 1-30 ms, or now and then after a longer look (100-200 ms).
        let pause = match self.below(20) {
            0..=4 => 0,
            5 => 100 + self.below(101),
            _ => 1 + self.below(30),
        };
        std::thread::sleep(Duration::from_millis(u64::from(pause)));
    }

    /// The response of an analysis ended by the command just sent: `?` after the end of
    /// the game, else `=` and the id alone on the first line, then `info` lines only.
    fn check_stream(&mut self, stream: Stream<G>) {
        let Some(position) = &stream.position else {
            self.expect(stream.id, false);
            return;
        };
        let lines = self.expect(stream.id, true);
        if !lines[0].is_empty() {
            self.fail(&format!("an analysis's first line holds more than its id: {lines:?}"));
        }
        for line in &lines[1..] {
            self.check_info(line, &stream, position);
        }
        self.counts.streams_with_lines += usize::from(lines.len() > 1);
    }

    /// One `info` line of `stream` about `position`: it parses, lists at most the moves
    /// asked for, each move and its line legal in `position`, and ownership when asked.
    fn check_info(&mut self, line: &str, stream: &Stream<G>, position: &G) {
        let parsed = parse_line(line, stream.kata, position).unwrap_or_else(|e| self.fail(&format!("{e}: {line:?}")));
        if stream.max_moves.is_some_and(|n| parsed.entries.len() > n) {
            self.fail(&format!("more than {:?} moves: {line:?}", stream.max_moves));
        }
        for entry in &parsed.entries {
            let mut game = position.clone();
            for text in &entry.pv {
                let legal = game.parse_move(text).and_then(|mv| game.try_play(mv));
                if let Err(e) = legal {
                    self.fail(&format!("the line of {} is not legal here at {text} ({e}): {line:?}", entry.mv));
                }
            }
        }
        let values = if stream.ownership { self.ownership_values } else { 0 };
        if parsed.ownership.len() != values {
            self.fail(&format!("{} ownership values, expected {values}: {line:?}", parsed.ownership.len()));
        }
        self.counts.info_lines += 1;
    }

    /// `play COLOUR MOVE`: usually a legal move (the pass one time in eight where it is
    /// one, so that Go's games end), now and then a move of an earlier position (often
    /// illegal now); refused exactly when the rules refuse it.
    fn play(&mut self) {
        let colour = self.colour();
        let mut position = self.top().clone();
        let _ = position.give_turn(colour, "");
        let mut moves: Vec<Move> = position.legal_moves().into_iter().collect();
        if G::pass().is_some_and(|pass| moves.contains(&pass)) && self.below(8) == 0 {
            moves = G::pass().into_iter().collect();
        } else if moves.is_empty() || self.below(12) == 0 {
            let earlier = self.below(self.history.len() as u32) as usize;
            moves = self.history[earlier].legal_moves().into_iter().collect();
            if moves.is_empty() {
                moves = G::new().legal_moves().into_iter().collect();
            }
        }
        let mv = moves[self.below(moves.len() as u32) as usize];
        let text = format!("play {} {}", self.colour_text(colour), position.format_move(mv));
        let expected = played(self.top(), colour, mv);
        let id = self.send(&text);
        self.expect(id, expected.is_some());
        match expected {
            Some(next) => {
                self.counts.moves_played += 1;
                self.record(next, (colour, mv));
            }
            None => self.counts.moves_refused += 1,
        }
        self.compare_boards();
    }

    /// `genmove COLOUR`: a legal move, played (after the end: the pass, where the game
    /// has one; else refused).
    fn genmove(&mut self) {
        let colour = self.colour();
        let command = format!("genmove {}", self.colour_text(colour));
        let position = self.analysed(Some(colour));
        let id = self.send(&command);
        let ahead = self.showboard_ahead();
        let answers = position.is_some() || G::pass().is_some();
        let answer = self.expect(id, answers);
        match position {
            _ if !answers => {}
            None => {
                let over = self.top().clone();
                if answer.len() != 1 || G::pass().map(|p| over.format_move(p)).as_ref() != Some(&answer[0]) {
                    self.fail(&format!("after the end, genmove answers {answer:?}"));
                }
                self.record(over, (colour, G::pass().unwrap_or_default()));
            }
            Some(position) => match answer.as_slice() {
                [resign] if resign == "resign" => {}
                [mv] => self.play_searched(position, colour, mv),
                _ => self.fail(&format!("genmove answers {answer:?}")),
            },
        }
        self.check_board(ahead);
    }

    /// `lz-genmove_analyze` or `kata-genmove_analyze`: `info` lines about the position,
    /// then `play MOVE`, a legal move, played.
    fn genmove_analyze(&mut self) {
        let kata = self.below(2) == 0;
        let colour = (self.below(4) > 0).then(|| self.colour());
        let mut command = if kata { "kata-genmove_analyze" } else { "lz-genmove_analyze" }.to_string();
        if let Some(colour) = colour {
            command = format!("{command} {}", self.colour_text(colour));
        }
        command = format!("{command} interval {}", 1 + self.below(3));
        let position = self.analysed(colour);
        let id = self.send(&command);
        let ahead = self.showboard_ahead();
        let Some(position) = position else {
            self.expect(id, false);
            return self.check_board(ahead);
        };
        let lines = self.expect(id, true);
        let stream = Stream { id, kata, ownership: false, max_moves: None, position: None };
        let Some((last, infos)) = lines[1..].split_last().filter(|_| lines[0].is_empty()) else {
            self.fail(&format!("genmove_analyze answers {lines:?}"));
        };
        for line in infos {
            self.check_info(line, &stream, &position);
        }
        match last.strip_prefix("play ") {
            Some("resign") => {}
            Some(mv) => self.play_searched(position, colour.unwrap_or(self.top().side_to_move()), mv),
            None => self.fail(&format!("genmove_analyze ends with {last:?}")),
        }
        self.check_board(ahead);
    }

    /// The move `text` that a search answered in `position` for `colour`: legal there,
    /// and played.
    fn play_searched(&mut self, mut position: G, colour: Player, text: &str) {
        let mv = position.parse_move(text);
        match mv.and_then(|mv| position.try_play(mv).map(|()| mv)) {
            Ok(mv) => self.record(position, (colour, mv)),
            Err(e) => self.fail(&format!("the engine's move {text} is not legal here: {e}")),
        }
        self.counts.searched_moves += 1;
    }

    fn undo(&mut self) {
        let id = self.send("undo");
        let possible = self.history.len() > 1;
        self.expect(id, possible);
        if possible {
            self.history.pop();
            self.moves.pop();
            self.counts.undone += 1;
        }
        self.compare_boards();
    }

    /// `printsgf`: the record's moves are the test's, each with its colour.
    fn compare_records(&mut self) {
        let id = self.send("printsgf");
        let record = self.expect(id, true).join("\n");
        let listed: Vec<&str> = record
            .split(';')
            .filter_map(|node| node.starts_with(['B', 'W']).then(|| node.split_inclusive(']').next()).flatten())
            .collect();
        let start = &self.history[0];
        let expected: Vec<String> = (self.moves.iter())
            .map(|&(colour, mv)| {
                let point = if Some(mv) == G::pass() { String::new() } else { start.sgf_point(mv) };
                format!("{}[{point}]", if colour == Player::One { 'B' } else { 'W' })
            })
            .collect();
        if listed != expected {
            self.fail(&format!("the engine's record {record:?} lists {listed:?}, the test's game {expected:?}"));
        }
    }

    fn clear_board(&mut self) {
        let id = self.send("clear_board");
        self.expect(id, true);
        self.history = vec![self.start.clone()];
        self.moves.clear();
        self.compare_boards();
    }

    /// Compares the records, takes the engine's whole history back, comparing each
    /// position, then quits.
    fn finish(mut self) -> Counts {
        self.index += 1;
        self.compare_records();
        while self.history.len() > 1 {
            self.undo();
        }
        self.undo();
        let id = self.send("quit");
        self.expect(id, true);
        let status = self.pipes.wait();
        assert!(status.success(), "seed {}: the engine exited with {status}", self.seed);
        self.counts
    }
}

/// The position after GTP's `play colour mv` on `top` as the engine's rules define it, or
/// `None` where it must be refused: after the end a pass changes nothing (a referee
/// forwards the other engine's closing pass); otherwise `colour` is given the turn where
/// the rules allow it, and the move must be legal.
fn played<G: GtpGame>(top: &G, colour: Player, mv: Move) -> Option<G> {
    let mut next = top.clone();
    if top.outcome().is_some() && Some(mv) == G::pass() {
        return Some(next);
    }
    next.play_as(colour, mv).ok().map(|()| next)
}

/// The seed of a session: `GTP_GUI_SEED` if set, else `default`.
fn seed(default: u64) -> u64 {
    std::env::var("GTP_GUI_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Runs `commands` random commands against `parmcts gtp --game game` with `flags`, after
/// `setup` (which gives the engine `start`).
fn session<G: GtpGame>(game: &str, flags: &[&str], setup: &[&str], start: G, commands: usize, seed: u64) -> Counts {
    let seed_text = seed.to_string();
    let mut args = vec!["gtp", "--game", game, "--seed", &seed_text];
    args.extend_from_slice(flags);
    let mut gui = Gui::new(&args, seed, setup, start);
    for index in 0..commands {
        gui.index = index;
        gui.step();
    }
    let counts = gui.finish();
    println!("{game}, seed {seed}: {counts:?}");
    counts
}

#[test]
fn othello_gui_session_of_1000_commands_stays_in_step() {
    let flags = ["--playouts", "200", "--nodes", "200000"];
    let counts = session("othello", &flags, &[], Othello::new(), 1_000, seed(1));
    assert!(counts.info_lines > 100 && counts.streams_with_lines > 20, "{counts:?}");
    assert!(counts.searched_moves > 50 && counts.moves_refused > 0 && counts.undone > 50, "{counts:?}");
}

/// Go 9x9 with a GUI's komi, searched by two threads on one tree.
#[test]
fn go_gui_session_stays_in_step() {
    let mut start = Go9::new();
    start.set_komi(6.5);
    let flags = ["--playouts", "100", "--nodes", "200000", "--threads", "2"];
    let counts = session("go", &flags, &["komi 6.5"], start, 300, seed(2));
    assert!(counts.info_lines > 10 && counts.searched_moves > 10 && counts.undone > 10, "{counts:?}");
}

/// Hex 11x11 with the swap rule on, the engine pondering after its moves.
#[test]
fn hex_gui_session_stays_in_step() {
    let mut start = Hex11::new();
    start.set_swap_rule(true);
    let flags = ["--playouts", "200", "--nodes", "200000", "--ponder"];
    let counts = session("hex", &flags, &["hex-swap-rule on"], start, 300, seed(3));
    assert!(counts.info_lines > 10 && counts.searched_moves > 10 && counts.undone > 10, "{counts:?}");
}
