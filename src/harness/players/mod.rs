//! Players behind one trait ([`Agent`]), built from text specs such as
//! `mcts:playouts=10000,c=1.4`, `mcts:time-ms=500,mode=tree,threads=4`, `random`,
//! `minimax:depth=4`, `alphabeta:depth=6`, `alphabeta:time-ms=200`,
//! `alphabeta:depth=4,eval=network` (the depth cut-off scored by the game's shipped
//! n-tuple network; `eval=FILE` for a network file, `eval=heuristic` the default), or
//! `expectimax:depth=3` / `expectimax:time-ms=200` (expectimax with Star1 pruning, the
//! baseline for games with dice: [`crate::expectimax`]).
//!
//! `human` is a person at the board ([`HumanAgent`]): it reads moves and commands from a
//! [`Console`] the front end gives it, and asks the referee to take moves back or to
//! end the game ([`Decision`]).
//!
//! The keys of an `mcts:` spec are the same as the `search` command's flags: both go
//! through [`crate::search::SETTINGS`], so a flag and a spec key can never disagree.

mod agents;
mod baseline;
mod dynamic_komi;
pub mod gtp_client;
mod human;
mod spec;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::alphabeta::{minimax, AbError, AlphaBeta, Evaluate, Limits};
use crate::evaluator::{NTupleNetwork, NetworkError};
use crate::expectimax::{Expectimax, ExpectimaxError};
use crate::games::{random_below, Game, Move, SearchGame, Turn};
use crate::search::{
    ConfigError, Search, SearchConfig, SearchError, SearchHandle, SearchResult, SettingError, Snapshot,
};
use crate::solver::{solved_to_play, Endgame, Solved};
use dynamic_komi::DynamicKomi;
pub use gtp_client::{colour_name, ClientError, GtpClient};

pub use agents::{AlphaBetaAgent, ExpectimaxAgent, GtpAgent, MctsAgent, MinimaxAgent, RandomAgent, GTP_TIMEOUT};
pub use baseline::{EvalSpec, DEFAULT_TT_MB};
pub use human::{Console, Hint, HumanAgent, HINT_PLAYOUTS};
pub use spec::{PlayerSpec, Seat, SpecError};

/// Why a player could not move.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PlayerError {
    /// The MCTS player's search failed.
    Search(SearchError),
    /// The alpha-beta player's search failed.
    AlphaBeta(AbError),
    /// The expectimax player's search failed.
    Expectimax(ExpectimaxError),
    /// A player was asked to move at a chance turn, where the referee rolls.
    ChanceToMove,
    /// The position is already over.
    GameOver,
    /// A minimax or alpha-beta player was asked for a game without a heuristic
    /// evaluation ([`PlayerSpec::build`] builds random and MCTS players only).
    NeedsEvaluation(&'static str),
    /// An alpha-beta player's network (`eval=network` or `eval=FILE`) cannot be used.
    Network(NetworkError),
    /// An external engine (`gtp:COMMAND`) failed: it did not start, exited, timed out or
    /// refused a command.
    Gtp(ClientError),
    /// An external engine answered `genmove` with text that is not a move of the game.
    GtpMove {
        /// Its answer.
        reply: String,
        /// Why it is not a move.
        reason: String,
    },
    /// The player resigned (an external engine answered `genmove` with `resign`).
    Resigned,
    /// A minimax or alpha-beta player was asked for a game with chance turns, which
    /// they do not search (no chance nodes).
    ChanceTurns(&'static str),
    /// The player, played on MPI rank 0 for every rank (the other side of a distributed
    /// player's match), failed there: rank 0 reports how; `forfeit` as
    /// [`PlayerError::forfeits`] said of it.
    OnRankZero {
        /// Whether its error lost it the game.
        forfeit: bool,
    },
    /// A person at the board (`human`) needs a console to read and write, which only
    /// `play` and `match` give ([`PlayerSpec::build_seated`]).
    NeedsConsole,
    /// The person at the board quit, or their input ended, where the game's loop could
    /// not take it as a [`Decision::Quit`] (a plain [`Agent::choose`]).
    Abandoned,
}

impl PlayerError {
    /// Whether this error loses the player the game rather than stopping the match: the
    /// failures of an external engine (a crash, a time-out, a reply that is not a move, a
    /// refused move). An engine that cannot be started at all is a bad command line, and
    /// errors of the crate's own players are bugs or bad settings: those stop the match.
    pub fn forfeits(&self) -> bool {
        match self {
            PlayerError::Gtp(ClientError::Spawn { .. }) => false,
            PlayerError::Gtp(_) | PlayerError::GtpMove { .. } => true,
            PlayerError::OnRankZero { forfeit } => *forfeit,
            _ => false,
        }
    }
}

impl fmt::Display for PlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerError::Search(e) => e.fmt(f),
            PlayerError::AlphaBeta(e) => e.fmt(f),
            PlayerError::Expectimax(e) => e.fmt(f),
            PlayerError::ChanceToMove => write!(f, "asked for a move at a chance turn (the referee rolls the die)"),
            PlayerError::GameOver => write!(f, "the game is already over"),
            PlayerError::NeedsEvaluation(kind) => {
                write!(f, "a {kind} player needs the game's heuristic evaluation (build_with_evaluation)")
            }
            PlayerError::Network(e) => write!(f, "alphabeta eval: {e}"),
            PlayerError::Gtp(e) => write!(f, "gtp player: {e}"),
            PlayerError::GtpMove { reply, reason } => write!(f, "gtp player answered '{reply}': {reason}"),
            PlayerError::Resigned => write!(f, "the player resigned"),
            PlayerError::OnRankZero { .. } => write!(f, "the player failed on MPI rank 0 (reported there)"),
            PlayerError::NeedsConsole => {
                write!(f, "a human player needs a console: it plays in `play` and `match` only")
            }
            PlayerError::Abandoned => write!(f, "the person at the board quit"),
            PlayerError::ChanceTurns(game) => {
                write!(
                    f,
                    "minimax and alphabeta players do not search chance turns ({game} has dice): \
                     use expectimax, mcts or random"
                )
            }
        }
    }
}

impl std::error::Error for PlayerError {}

impl From<SearchError> for PlayerError {
    fn from(e: SearchError) -> Self {
        PlayerError::Search(e)
    }
}

impl From<NetworkError> for PlayerError {
    fn from(e: NetworkError) -> Self {
        PlayerError::Network(e)
    }
}

impl From<ExpectimaxError> for PlayerError {
    fn from(e: ExpectimaxError) -> Self {
        PlayerError::Expectimax(e)
    }
}

impl From<AbError> for PlayerError {
    fn from(e: AbError) -> Self {
        PlayerError::AlphaBeta(e)
    }
}

/// What a player does at its turn ([`Agent::decide`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Play this legal move.
    Move(Move),
    /// Take back this player's last move and every ply played since (a person's `undo`):
    /// the game goes back to this player's previous turn.
    Undo,
    /// End the game without a result (a person's `quit`, or the end of their input).
    Quit,
}

/// Anything that picks moves: the one interface `play` and matches use.
pub trait Agent<G: Game>: Send {
    /// Chooses a legal move in `game` (which is not over).
    ///
    /// # Errors
    /// [`SearchError`] if the player cannot search this position.
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError>;

    /// The last search's result, for players that search.
    fn last_search(&self) -> Option<&SearchResult> {
        None
    }

    /// Sees move `mv` played in `before` (by either side, the opening's included, in
    /// order): players that keep their own board (an external engine) follow the game.
    ///
    /// # Errors
    /// [`PlayerError`] if the player cannot follow (its engine refused the move).
    fn observe(&mut self, before: &G, mv: Move) -> Result<(), PlayerError> {
        let _ = (before, mv);
        Ok(())
    }

    /// Decides what to do in `game` (which is not over): a move, or, for a person at
    /// the board, a request to take moves back or to quit. `undoable` says whether this
    /// player has a move in this game that the referee can take back. The default plays
    /// [`Agent::choose`]'s move.
    ///
    /// # Errors
    /// As [`Agent::choose`].
    fn decide(&mut self, game: &G, undoable: bool) -> Result<Decision, PlayerError> {
        let _ = undoable;
        self.choose(game).map(Decision::Move)
    }

    /// Sees the game set back by `plies` plies to `position` (a person's undo, by either
    /// side): players that keep their own board or tree follow.
    ///
    /// # Errors
    /// [`PlayerError`] if the player cannot follow (its engine refused to undo).
    fn take_back(&mut self, position: &G, plies: usize) -> Result<(), PlayerError> {
        let _ = (position, plies);
        Ok(())
    }

    /// The player's own score of `game`, which ended by the rules (an external engine's
    /// answer to `final_score`, as it wrote it); `None` for players that accept the
    /// rules' result.
    fn final_score(&mut self, game: &G) -> Option<Result<String, PlayerError>> {
        let _ = game;
        None
    }

    /// The stones the player scores as dead in `game`, which ended by the rules (an
    /// external engine's answer to `final_status_list dead`); `None` as
    /// [`Agent::final_score`].
    fn dead_stones(&mut self, game: &G) -> Option<Result<String, PlayerError>> {
        let _ = game;
        None
    }
}
