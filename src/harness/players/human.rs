//! A person at the board (`human`): [`HumanAgent`] reads moves in the game's notation
//! and the commands `undo`, `hint`, `quit` and `help` from a [`Console`], and answers
//! each line it cannot take with one line naming what was wrong.

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};

use super::*;

/// A person's terminal: the input a human player reads from and the output where the
/// board, the prompts and the messages go. A clone is the same console, so both sides
/// of a game between two people, and the games of a match, read one input in order.
/// Writing never fails the game: a closed output is ignored, as `println!` in a pipe
/// would not be.
#[derive(Clone)]
pub struct Console {
    io: Arc<Mutex<ConsoleIo>>,
}

struct ConsoleIo {
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
}

impl fmt::Debug for Console {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Console").finish_non_exhaustive()
    }
}

impl Console {
    /// A console reading `input` and writing `output` (the front end's stdin and stdout;
    /// the tests' text in memory).
    pub fn new(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) -> Console {
        Console { io: Arc::new(Mutex::new(ConsoleIo { input: Box::new(input), output: Box::new(output) })) }
    }

    /// Writes `text` as it is and flushes (a prompt stays on its line).
    pub fn write(&self, text: &str) {
        let mut io = self.io.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = io.output.write_all(text.as_bytes());
        let _ = io.output.flush();
    }

    /// Writes `line` and a newline.
    pub fn say(&self, line: &str) {
        self.write(&format!("{line}\n"));
    }

    /// The next line of input without its line ending (bytes that are not UTF-8
    /// replaced); `None` at the end of the input or when it cannot be read.
    pub fn read_line(&self) -> Option<String> {
        let mut io = self.io.lock().unwrap_or_else(PoisonError::into_inner);
        let mut bytes = Vec::new();
        match io.input.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(String::from_utf8_lossy(&bytes).trim_end_matches(['\n', '\r']).to_string()),
        }
    }
}

/// The playouts of a hint's search when the opponent is not an MCTS player.
pub const HINT_PLAYOUTS: u64 = 10_000;

/// The search behind a person's `hint`, and where its settings came from.
#[derive(Clone, Debug)]
pub struct Hint {
    config: SearchConfig,
    /// Whether the settings are the opponent's (an MCTS player's, in one process).
    opponents: bool,
}

impl Hint {
    /// The hint of a person playing against `opponent`: MCTS with its settings when it is
    /// an MCTS player of one process, else [`HINT_PLAYOUTS`] playouts of the defaults.
    ///
    /// # Errors
    /// [`ConfigError`] if the default configuration is refused (it is not).
    pub fn against(opponent: &PlayerSpec) -> Result<Hint, ConfigError> {
        match opponent {
            PlayerSpec::Mcts(config) if opponent.distributed().is_none() => {
                Ok(Hint { config: config.clone(), opponents: true })
            }
            _ => {
                let config = SearchConfig::builder().default_playouts(HINT_PLAYOUTS).build()?;
                Ok(Hint { config, opponents: false })
            }
        }
    }

    /// Which search the hint runs: `MCTS with the opponent's settings: 200 playouts`.
    pub fn describe(&self) -> String {
        let budget = match (self.config.playouts(), self.config.time()) {
            (Some(p), Some(t)) => format!("{p} playouts or {} ms", t.as_millis()),
            (Some(p), None) => format!("{p} playouts"),
            (None, Some(t)) => format!("{} ms", t.as_millis()),
            (None, None) => "no budget".to_string(),
        };
        match self.opponents {
            true => format!("MCTS with the opponent's settings: {budget}"),
            false => format!("MCTS with {budget} (the opponent does not search with MCTS)"),
        }
    }

    /// The three most visited moves of a search of `game`, as lines for the console.
    fn lines<G: SearchGame>(&self, game: &G) -> Result<String, SearchError> {
        let result = Search::new(self.config.clone())?.run(game)?;
        let mut children = result.children;
        children.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.mv.cmp(&b.mv)));
        let mut text = format!("hint from {}; a draw counts half a win:\n", self.describe());
        for child in children.iter().take(3) {
            let mv = game.format_move(child.mv);
            let _ = writeln!(text, "  {mv:<6} visits {:>7}  win rate {:5.1} %", child.visits, 100.0 * child.value);
        }
        Ok(text)
    }
}

/// A person at the board: at each turn it writes a prompt (`p1 (X) to move> `) and reads
/// lines until one is a legal move or a command that ends the turn. The game's loop
/// draws the board after each move; this player writes only prompts, hints, help and
/// one-line messages for what it could not take.
#[derive(Debug)]
pub struct HumanAgent {
    console: Console,
    /// The seat's name in prompts (`p1`, `p2`).
    seat: &'static str,
    hint: Hint,
}

impl HumanAgent {
    /// A person in seat `seat` (`p1`, `p2`) at `console`, whose hints search as `hint`.
    pub fn new(console: Console, seat: &'static str, hint: Hint) -> HumanAgent {
        HumanAgent { console, seat, hint }
    }

    /// What the line `text` asks for: `Some` ends the turn, `None` asks again (after the
    /// hint, the help or the message the line called for).
    fn answer<G: SearchGame>(&self, game: &G, text: &str, undoable: bool) -> Option<Decision> {
        match text.to_ascii_lowercase().as_str() {
            "" => None,
            "quit" => Some(Decision::Quit),
            "undo" if undoable => Some(Decision::Undo),
            "undo" => {
                self.console.say("nothing to undo: you have not moved in this game yet");
                None
            }
            "hint" => {
                match self.hint.lines(game) {
                    Ok(lines) => self.console.write(&lines),
                    Err(e) => self.console.say(&format!("no hint: {e}")),
                }
                None
            }
            "help" => {
                self.console.write(&self.help(game));
                None
            }
            _ => match read_move(game, text) {
                Ok(mv) => Some(Decision::Move(mv)),
                Err(message) => {
                    self.console.say(&message);
                    None
                }
            },
        }
    }

    /// The commands, the notation and the legal moves of `game`.
    fn help<G: Game>(&self, game: &G) -> String {
        let moves = game.legal_moves();
        let example = moves.as_ref().first().map(|&mv| game.format_move(mv)).unwrap_or_default();
        format!(
            "type a move in {}'s notation (such as {example}) or a command:\n  \
             undo  take back your last move and the moves played since\n  \
             hint  the engine's three best moves ({})\n  \
             quit  end the game without a result (so does the end of the input)\n  \
             help  this text\nlegal moves here: {}\n",
            G::NAME,
            self.hint.describe(),
            move_list(game, usize::MAX),
        )
    }
}

/// The most moves an illegal move's message lists.
const LISTED_MOVES: usize = 20;

/// The legal moves of `game` in its notation, or a pointer to `help` when there are more
/// than `most`.
fn move_list<G: Game>(game: &G, most: usize) -> String {
    let moves = game.legal_moves();
    if moves.as_ref().len() > most {
        return "type help to list them".to_string();
    }
    moves.as_ref().iter().map(|&mv| game.format_move(mv)).collect::<Vec<_>>().join(" ")
}

/// The legal move `text` names in `game`, or the one-line message saying why it is not
/// one.
fn read_move<G: Game>(game: &G, text: &str) -> Result<Move, String> {
    let mv = game.parse_move(text).map_err(|e| format!("{e}: not a move or a command (type help)"))?;
    game.clone()
        .try_play(mv)
        .map_err(|e| format!("{e}: not legal in this position (legal: {})", move_list(game, LISTED_MOVES)))?;
    Ok(mv)
}

impl<G: SearchGame> Agent<G> for HumanAgent {
    /// The person's move; quitting (or an undo, which this call cannot carry out) is
    /// [`PlayerError::Abandoned`].
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        match self.decide(game, false)? {
            Decision::Move(mv) => Ok(mv),
            Decision::Undo | Decision::Quit => Err(PlayerError::Abandoned),
        }
    }

    fn decide(&mut self, game: &G, undoable: bool) -> Result<Decision, PlayerError> {
        if game.outcome().is_some() {
            return Err(PlayerError::GameOver);
        }
        let prompt = format!("{} ({}) to move> ", self.seat, G::MARKS[game.side_to_move().index()]);
        loop {
            self.console.write(&prompt);
            let Some(line) = self.console.read_line() else {
                self.console.say("\nend of input");
                return Ok(Decision::Quit);
            };
            if let Some(decision) = self.answer(game, line.trim(), undoable) {
                return Ok(decision);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, TicTacToe};

    /// A writer whose text the test reads back.
    #[derive(Clone, Default)]
    struct Transcript(Arc<Mutex<Vec<u8>>>);

    impl Write for Transcript {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Transcript {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    /// A person typing `input`, against an MCTS player of 100 playouts.
    fn person(input: &str) -> (HumanAgent, Transcript) {
        let transcript = Transcript::default();
        let console = Console::new(std::io::Cursor::new(input.to_string()), transcript.clone());
        let opponent = PlayerSpec::parse("mcts:playouts=100").unwrap();
        (HumanAgent::new(console, "p1", Hint::against(&opponent).unwrap()), transcript)
    }

    #[test]
    fn a_move_after_a_malformed_and_an_illegal_one() {
        let mut game = TicTacToe::new();
        game.play_sequence("5").unwrap();
        let (mut agent, transcript) = person("ten\n5\n\n  3  \n");
        assert_eq!(agent.decide(&game, true), Ok(Decision::Move(Move(2))));
        let text = transcript.text();
        assert_eq!(text.matches("p1 (O) to move> ").count(), 4, "{text}");
        assert!(text.contains("malformed move 'ten' (expected a cell 1-9): not a move or a command"), "{text}");
        assert!(text.contains("illegal move '5': not legal in this position (legal: 1 2 3 4 6 7 8 9)"), "{text}");
    }

    #[test]
    fn undo_is_refused_before_the_first_move_and_asked_after() {
        let game = TicTacToe::new();
        let (mut agent, transcript) = person("undo\nUNDO\n");
        assert_eq!(agent.decide(&game, false), Ok(Decision::Quit), "the input ends after two refusals");
        assert_eq!(transcript.text().matches("nothing to undo: you have not moved in this game yet").count(), 2);
        let (mut agent, _) = person("undo\n");
        assert_eq!(agent.decide(&game, true), Ok(Decision::Undo));
    }

    #[test]
    fn quit_and_the_end_of_input_quit() {
        let game = ConnectFour::new();
        let (mut agent, _) = person("quit\n4\n");
        assert_eq!(agent.decide(&game, false), Ok(Decision::Quit));
        let (mut agent, transcript) = person("");
        assert_eq!(agent.decide(&game, false), Ok(Decision::Quit));
        assert!(transcript.text().contains("end of input"));
        let (mut agent, _) = person("quit\n");
        assert_eq!(Agent::<ConnectFour>::choose(&mut agent, &game), Err(PlayerError::Abandoned));
    }

    #[test]
    fn a_hint_names_three_moves_with_visits_and_win_rates() {
        let game = ConnectFour::new();
        let (mut agent, transcript) = person("hint\nhelp\n4\n");
        assert_eq!(agent.decide(&game, false), Ok(Decision::Move(Move(3))));
        let text = transcript.text();
        assert!(text.contains("hint from MCTS with the opponent's settings: 100 playouts"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.contains("visits") && l.contains("win rate")).collect();
        assert_eq!(rows.len(), 3, "{text}");
        let visits: Vec<u64> = rows.iter().map(|r| r.split_whitespace().nth(2).unwrap().parse().unwrap()).collect();
        assert!(visits.windows(2).all(|w| w[0] >= w[1]) && visits.iter().sum::<u64>() <= 100, "{visits:?}");
        assert!(text.contains("legal moves here: 1 2 3 4 5 6 7"), "{text}");
    }

    #[test]
    fn the_hint_of_a_game_against_a_baseline_says_its_default_budget() {
        let hint = Hint::against(&PlayerSpec::Random).unwrap();
        assert_eq!(hint.describe(), "MCTS with 10000 playouts (the opponent does not search with MCTS)");
    }
}
