//! The referee of one game, shared by `play` and `match`: it asks the player to move
//! for each turn, rolls the die at chance turns, shows every move to both players, takes
//! moves back when a person asks (`undo`) and ends the game when one quits; with a
//! console it draws the board after every ply.

use std::time::{Duration, Instant};

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::games::{roll, Game, GameError, Move, Outcome, Player, Turn};
use crate::harness::players::{Agent, Console, Decision, PlayerError};

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules (the game's own end: a win or a draw on the board).
    Rules,
    /// The loser resigned.
    Resignation,
    /// The loser forfeited: it chose an illegal move, or its external engine crashed,
    /// answered what is not a move, refused a legal move or did not answer in time.
    Forfeit {
        /// What went wrong, as the referee saw it.
        reason: String,
    },
}

impl Ending {
    /// `rules`, `resignation` or `forfeit`: the name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Ending::Rules => "rules",
            Ending::Resignation => "resignation",
            Ending::Forfeit { .. } => "forfeit",
        }
    }
}

/// What one turn of [`Referee::step`] came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The referee rolled the die: `Move` is the outcome.
    Rolled(Move),
    /// `mover` played `mv`.
    Played {
        /// Who moved.
        mover: Player,
        /// The move.
        mv: Move,
        /// How long the mover took to decide it (since it was asked for this turn's
        /// decision: a person's hints and mistyped moves count, a take-back starts anew).
        thought: Duration,
    },
    /// `by` took back its last move and every ply played since: `plies` plies, the die
    /// rolls among them.
    TookBack {
        /// Who asked.
        by: Player,
        /// The plies taken back.
        plies: usize,
    },
    /// The game is over (asking again says so again).
    Finished {
        /// The result.
        outcome: Outcome,
        /// How it came.
        ending: Ending,
    },
    /// `by` quit (a person's `quit`, or the end of their input): no result.
    Abandoned {
        /// Who quit.
        by: Player,
    },
}

/// One ply played: the position before it and the move.
#[derive(Clone, Debug)]
struct Ply<G> {
    before: G,
    mv: Move,
}

/// Where the referee draws the board: a console and each side's name.
#[derive(Clone, Debug)]
struct Narrator {
    console: Console,
    /// By side ([`Player::index`]): `p1`, `p2`.
    names: [&'static str; 2],
}

/// The referee of one game between two [`Agent`]s (`agents[0]` moves for
/// [`Player::One`]), from a start position: the plies since that position are kept, so
/// a person's `undo` can take them back (not the moves of the start position).
#[derive(Debug)]
pub struct Referee<G> {
    game: G,
    plies: Vec<Ply<G>>,
    /// The referee's dice, for chance turns.
    dice: Xoshiro256PlusPlus,
    narrator: Option<Narrator>,
}

impl<G: Game> Referee<G> {
    /// A referee of the game from `start`, its dice seeded with `dice_seed`.
    pub fn new(start: G, dice_seed: u64) -> Referee<G> {
        Referee { game: start, plies: Vec::new(), dice: Xoshiro256PlusPlus::seed_from_u64(dice_seed), narrator: None }
    }

    /// The same referee, drawing the board at `console` after each ply and naming each
    /// side's moves by `names` (by side: the name of [`Player::One`]'s seat first).
    pub fn narrated(self, console: Console, names: [&'static str; 2]) -> Referee<G> {
        Referee { narrator: Some(Narrator { console, names }), ..self }
    }

    /// The position now.
    pub fn position(&self) -> &G {
        &self.game
    }

    /// The plies played since the start position, in the game's notation (die rolls
    /// included; the plies taken back left out).
    pub fn moves(&self) -> Vec<String> {
        self.plies.iter().map(|p| p.before.format_move(p.mv)).collect()
    }

    /// Writes `header` (if not empty) and the board to the console, if there is one.
    pub fn announce(&self, header: &str) {
        if let Some(narrator) = &self.narrator {
            let header = if header.is_empty() { String::new() } else { format!("{header}\n") };
            narrator.console.say(&format!("{header}{}", self.game.render()));
        }
    }

    /// Plays one turn: a roll at a chance turn, else the mover's decision (a move, a
    /// take-back or a quit).
    ///
    /// # Errors
    /// [`PlayerError`] when one of the crate's own players fails (an error that does not
    /// [forfeit](PlayerError::forfeits) the game).
    pub fn step(&mut self, agents: &mut [Box<dyn Agent<G>>; 2]) -> Result<Step, PlayerError> {
        if let Some(outcome) = self.game.outcome() {
            return Ok(Step::Finished { outcome, ending: Ending::Rules });
        }
        if let Some(mv) = roll(&self.game, &mut self.dice) {
            return self.play(agents, mv, None);
        }
        let mover = self.game.side_to_move();
        let undoable = self.last_turn_of(mover).is_some();
        let lost = |ending| Ok(Step::Finished { outcome: Outcome::Win(mover.other()), ending });
        let asked = Instant::now();
        let decision = agents[mover.index()].decide(&self.game, undoable);
        let thought = asked.elapsed();
        match decision {
            Ok(Decision::Move(mv)) => {
                if let Err(e) = self.game.clone().try_play(mv) {
                    let reason = match e {
                        GameError::IllegalMove(_) => e.to_string(),
                        e => format!("move '{}': {e}", self.game.format_move(mv)),
                    };
                    return lost(Ending::Forfeit { reason });
                }
                self.play(agents, mv, Some((mover, thought)))
            }
            Ok(Decision::Undo) => self.take_back(agents, mover),
            Ok(Decision::Quit) => Ok(Step::Abandoned { by: mover }),
            Err(PlayerError::Resigned) => lost(Ending::Resignation),
            Err(e) if e.forfeits() => lost(Ending::Forfeit { reason: e.to_string() }),
            Err(e) => Err(e),
        }
    }

    /// Plays the legal move `mv` (a player's, with the time it took, or the die's when
    /// `mover` is `None`) after showing it to both players.
    fn play(
        &mut self,
        agents: &mut [Box<dyn Agent<G>>; 2],
        mv: Move,
        mover: Option<(Player, Duration)>,
    ) -> Result<Step, PlayerError> {
        if let Some(step) = show_move(agents, &self.game, mv)? {
            return Ok(step);
        }
        let before = self.game.clone();
        self.game.play_unchecked(mv);
        let text = before.format_move(mv);
        self.plies.push(Ply { before, mv });
        let (step, line) = match mover {
            Some((mover, thought)) => {
                (Step::Played { mover, mv, thought }, format!("{} plays {text}", self.name(mover)))
            }
            None => (Step::Rolled(mv), format!("the die shows {text}")),
        };
        self.announce(&line);
        Ok(step)
    }

    /// The index in `plies` of `side`'s last move.
    fn last_turn_of(&self, side: Player) -> Option<usize> {
        self.plies.iter().rposition(|p| p.before.turn() == Turn::Player(side))
    }

    /// Takes back `by`'s last move and the plies since (`by` has one: the referee said
    /// so to its [`Agent::decide`]), and tells both players.
    fn take_back(&mut self, agents: &mut [Box<dyn Agent<G>>; 2], by: Player) -> Result<Step, PlayerError> {
        let Some(index) = self.last_turn_of(by) else {
            // Nothing to take back: the turn is asked again.
            return Ok(Step::TookBack { by, plies: 0 });
        };
        let plies = self.plies.len() - index;
        self.game = self.plies[index].before.clone();
        self.plies.truncate(index);
        for side in [Player::One, Player::Two] {
            match agents[side.index()].take_back(&self.game, plies) {
                Ok(()) => {}
                Err(e) if e.forfeits() => {
                    let ending = Ending::Forfeit { reason: e.to_string() };
                    return Ok(Step::Finished { outcome: Outcome::Win(side.other()), ending });
                }
                Err(e) => return Err(e),
            }
        }
        let unit = if plies == 1 { "ply" } else { "plies" };
        self.announce(&format!("{} takes back {plies} {unit}", self.name(by)));
        Ok(Step::TookBack { by, plies })
    }

    /// The name of `side`'s seat in the console's lines.
    fn name(&self, side: Player) -> &'static str {
        self.narrator.as_ref().map_or(["p1", "p2"][side.index()], |n| n.names[side.index()])
    }
}

/// Shows the legal move `mv`, played from `before`, to both players. A player that fails
/// to follow and [forfeits](PlayerError::forfeits) loses: `Some` of that step.
///
/// # Errors
/// [`PlayerError`] when one of the crate's own players fails.
pub fn show_move<G: Game>(
    agents: &mut [Box<dyn Agent<G>>; 2],
    before: &G,
    mv: Move,
) -> Result<Option<Step>, PlayerError> {
    for side in [Player::One, Player::Two] {
        match agents[side.index()].observe(before, mv) {
            Ok(()) => {}
            Err(e) if e.forfeits() => {
                let ending = Ending::Forfeit { reason: e.to_string() };
                return Ok(Some(Step::Finished { outcome: Outcome::Win(side.other()), ending }));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::games::{Einstein, TicTacToe};

    /// Decides from a script, then plays the first legal move; logs the take-backs it
    /// sees and the `undoable` it was told.
    struct Scripted {
        script: VecDeque<Decision>,
        log: Arc<Mutex<Vec<String>>>,
    }

    impl<G: Game> Agent<G> for Scripted {
        fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
            game.legal_moves().as_ref().first().copied().ok_or(PlayerError::GameOver)
        }
        fn decide(&mut self, game: &G, undoable: bool) -> Result<Decision, PlayerError> {
            self.log.lock().unwrap().push(format!("undoable {undoable}"));
            match self.script.pop_front() {
                Some(decision) => Ok(decision),
                None => self.choose(game).map(Decision::Move),
            }
        }
        fn take_back(&mut self, _position: &G, plies: usize) -> Result<(), PlayerError> {
            self.log.lock().unwrap().push(format!("take back {plies}"));
            Ok(())
        }
    }

    type Log = Arc<Mutex<Vec<String>>>;

    fn players<G: Game>(scripts: [Vec<Decision>; 2]) -> ([Box<dyn Agent<G>>; 2], [Log; 2]) {
        let logs = [Arc::default(), Arc::default()];
        let [a, b] = scripts.map(VecDeque::from);
        let agents: [Box<dyn Agent<G>>; 2] = [
            Box::new(Scripted { script: a, log: Arc::clone(&logs[0]) }),
            Box::new(Scripted { script: b, log: Arc::clone(&logs[1]) }),
        ];
        (agents, logs)
    }

    #[test]
    fn undo_goes_back_to_the_askers_previous_turn_and_tells_both_players() {
        use Decision::{Move as Play, Quit, Undo};
        let (mut agents, logs) = players::<TicTacToe>([vec![Play(Move(4)), Undo, Play(Move(0)), Quit], vec![]]);
        let mut referee = Referee::new(TicTacToe::new(), 1);
        let mut steps = Vec::new();
        loop {
            let step = referee.step(&mut agents).unwrap();
            let done = matches!(step, Step::Abandoned { .. } | Step::Finished { .. });
            steps.push(step);
            if done {
                break;
            }
        }
        assert!(matches!(steps[0], Step::Played { mover: Player::One, mv: Move(4), .. }));
        assert!(matches!(steps[1], Step::Played { mover: Player::Two, mv: Move(0), .. }));
        assert_eq!(steps[2], Step::TookBack { by: Player::One, plies: 2 });
        assert!(matches!(steps[3], Step::Played { mover: Player::One, mv: Move(0), .. }));
        assert_eq!(steps.last(), Some(&Step::Abandoned { by: Player::One }));
        assert_eq!(referee.moves(), ["1", "2"], "the taken-back 5 and 1 are gone");
        assert_eq!(referee.position(), &TicTacToe::parse_position("12").unwrap());
        // p1 could not undo before its first move; both players saw the take-back.
        let log = logs[0].lock().unwrap().clone();
        assert_eq!(log[..3], ["undoable false", "undoable true", "take back 2"]);
        assert!(logs[1].lock().unwrap().contains(&"take back 2".to_string()));
    }

    #[test]
    fn a_game_ends_by_the_rules_and_an_illegal_move_forfeits() {
        let (mut agents, _) = players::<TicTacToe>([vec![], vec![]]);
        let mut referee = Referee::new(TicTacToe::new(), 1);
        let end = loop {
            if let step @ Step::Finished { .. } = referee.step(&mut agents).unwrap() {
                break step;
            }
        };
        // First legal moves: X 1, O 2, X 3, O 4, X 5, O 6, X 7 wins on the diagonal 3-5-7.
        assert_eq!(end, Step::Finished { outcome: Outcome::Win(Player::One), ending: Ending::Rules });
        assert_eq!(referee.moves().join(""), "1234567");
        let (mut agents, _) = players::<TicTacToe>([vec![Decision::Move(Move(9))], vec![]]);
        let step = Referee::new(TicTacToe::new(), 1).step(&mut agents).unwrap();
        assert!(
            matches!(&step, Step::Finished { outcome: Outcome::Win(Player::Two), ending: Ending::Forfeit { .. } }),
            "{step:?}"
        );
    }

    #[test]
    fn an_undo_in_einstein_takes_back_the_rolls_and_keeps_the_askers_die() {
        // Both play their first legal moves; p2 undoes at its second turn.
        let (mut agents, _) = players::<Einstein>([vec![], vec![]]);
        let mut referee = Referee::new(Einstein::new(), 7);
        let mut p2_turns = Vec::new();
        while p2_turns.len() < 2 {
            let before = *referee.position();
            if let Step::Played { mover: Player::Two, .. } = referee.step(&mut agents).unwrap() {
                p2_turns.push((before, referee.moves().len()));
            }
        }
        let mut undoer = players::<Einstein>([vec![], vec![Decision::Undo]]).0;
        // The referee is at p1's turn or a roll; step until p2 decides (and undoes).
        let step = loop {
            if let step @ Step::TookBack { .. } = referee.step(&mut undoer).unwrap() {
                break step;
            }
        };
        let (position, plies_then) = &p2_turns[1];
        assert_eq!(referee.position().hash(), position.hash(), "back at p2's previous turn, die and all");
        assert_eq!(referee.moves().len(), plies_then - 1);
        let Step::TookBack { by: Player::Two, plies } = step else { panic!("{step:?}") };
        assert!(plies >= 3, "p2's move, a roll and p1's move at least: {plies}");
    }
}
