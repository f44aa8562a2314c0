//! One game in progress behind an object-safe trait ([`Session`]), so that the engine
//! holds a `Box<dyn Session>` that `boardsize` can replace with another game type's
//! (Go's and Hex's sizes are different types): the position history, the MCTS player (its tree
//! kept between moves) and the genmove rules (pass, resign).

use std::time::Duration;

use super::analyze::{gfx, Board, Request};
use super::config::EngineConfig;
use super::error::GtpError;
use super::game::{colour_name, sized, with_gtp_game, FinalStatus, GtpGame};
use super::sgf::{self, RecordHeader, SgfGame};
use crate::games::{GameError, GameKind, Move, Player};
use crate::harness::players::{Agent, MctsAgent};
use crate::search::{SearchError, SearchResult};
use crate::tree::Proof;

/// Plies a game must have before the engine resigns: a few moves each.
pub const RESIGN_MIN_PLIES: usize = 20;

/// The engine's own searches in a row whose best move must be below the resign threshold
/// before it resigns: one low search can be a misjudged moment.
pub const RESIGN_STREAK: u32 = 3;

/// Visits the best move needs before its win rate can justify resigning (below this the
/// estimate is too noisy; a proven loss needs none).
pub const RESIGN_MIN_VISITS: u64 = 1_000;

/// What `genmove` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenMove {
    /// A move (a pass included), in the game's notation.
    Move(String),
    /// The engine resigns.
    Resign,
}

/// What one `genmove` may spend and when it gives up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenMoveRules {
    /// Playout budget (`None`: the time alone).
    pub playouts: Option<u64>,
    /// Time budget (`None`: the playouts alone).
    pub time: Option<Duration>,
    /// Resign below this win rate (0: never).
    pub resign_below: f64,
    /// Play the move (`genmove`) or only name it (`reg_genmove`).
    pub commit: bool,
}

/// A game in progress, whatever its type: what the engine's commands do to it.
pub trait Session: Send {
    /// The board size (GTP's `boardsize`).
    fn board_size(&self) -> u32;
    /// The game's number in SGF (`GM`).
    fn sgf_game(&self) -> u32;
    /// Back to the start position (the komi stays).
    fn clear(&mut self);
    /// The komi of this game.
    fn komi(&self) -> f32;
    /// Sets the komi of this and later games.
    fn set_komi(&mut self, komi: f32);
    /// Whether the swap rule is on in this game.
    fn swap_rule(&self) -> bool;
    /// Turns the swap rule on or off in this and later games.
    ///
    /// # Errors
    /// [`GtpError::NoSwapRule`] for a game without one.
    fn set_swap_rule(&mut self, on: bool) -> Result<(), GtpError>;
    /// Plays `vertex` for `player`.
    ///
    /// # Errors
    /// [`GtpError::Syntax`] for a vertex that is not this game's; [`GtpError::IllegalMove`].
    fn play(&mut self, player: Player, vertex: &str) -> Result<(), GtpError>;
    /// Searches and answers a move for `player` (playing it if `rules.commit`).
    ///
    /// # Errors
    /// [`GtpError::IllegalMove`] when `player` cannot move now; [`GtpError::Search`].
    fn genmove(&mut self, player: Player, rules: GenMoveRules) -> Result<GenMove, GtpError>;
    /// Whether no move (handicap stones included) has been played since the start.
    fn at_start(&self) -> bool;
    /// The vertices of `stones` handicap stones in the game's standard layout
    /// ([`GtpGame::handicap_layout`]), or `None` where it has none.
    fn handicap_layout(&self, stones: u32) -> Option<Vec<String>>;
    /// Takes the last move back.
    ///
    /// # Errors
    /// [`GtpError::CannotUndo`] at the start.
    fn undo(&mut self) -> Result<(), GtpError>;
    /// The board for people (lines, no blank one).
    fn showboard(&self) -> String;
    /// GTP's `final_score` text.
    fn final_score(&self) -> String;
    /// The vertices of `status` stones.
    fn final_status_list(&self, status: FinalStatus) -> Vec<String>;
    /// The moves the side to move still expects to play (for the clock).
    fn moves_left(&self) -> u32;
    /// The last search's statistics, if any (for diagnostics).
    fn last_search(&self) -> Option<&SearchResult>;
    /// The game so far as an SGF record (GTP's `printsgf`).
    fn record(&self) -> String;
    /// Starts again from `game` (read by GTP's `loadsgf`; its size is this session's):
    /// its komi, its setup stones and the first `moves` of its moves (all: `None`). On
    /// an error the session is left at the start position.
    ///
    /// # Errors
    /// [`GtpError::BadSgf`] when a move is not a point of the board or is illegal.
    fn load(&mut self, game: &SgfGame, moves: Option<usize>) -> Result<(), GtpError>;
    /// Starts analysing the position with `player` to move (`None`: the side to move): a
    /// search on its own thread until [`Session::end_analysis`] or the next move.
    ///
    /// # Errors
    /// [`GtpError::IllegalMove`] when `player` cannot move now or the game is over;
    /// [`GtpError::Search`] when the search cannot run on its own thread (`mode=dist`).
    fn analyze(&mut self, player: Option<Player>) -> Result<(), GtpError>;
    /// The analysis so far as one line of `request`'s format (`None` before a visit).
    fn analysis_line(&mut self, request: &Request) -> Option<String>;
    /// Ends the analysis (the search goes on pondering when the engine ponders).
    fn end_analysis(&mut self);
    /// The colour to move in the position analysed, else in the game's position.
    fn to_move(&self) -> Player;
    /// GoGui's graphics (`gfx`) of `board` for the game's position, from its last search
    /// ([`super::analyze::Board`]).
    fn gfx(&self, board: Board) -> String;
    /// Whether the game reports ownership ([`GtpGame::ownership`]).
    fn has_ownership(&self) -> bool;
    /// Whether the analysis has spent `rules`' budget (its playouts, or its time since
    /// it started).
    fn analysis_spent(&mut self, rules: &GenMoveRules) -> bool;
    /// Ends the analysis started for `player`'s move (`genmove_analyze`) and answers its
    /// best move, played when `rules.commit` (and then pondered after, as `genmove`'s
    /// moves are, when the engine ponders).
    ///
    /// # Errors
    /// [`GtpError::Search`] when no analysis runs or its search failed.
    fn finish_analysis_move(&mut self, player: Player, rules: &GenMoveRules) -> Result<GenMove, GtpError>;
}

/// A new session for `kind` at `size` (`None`: the game's usual size; another size of
/// the family is another type, [`sized`]).
///
/// # Errors
/// [`GtpError::UnacceptableSize`] for a size the game does not have;
/// [`GtpError::UnsupportedGame`] for a game without GTP; [`GtpError::Search`] if the
/// search memory cannot be set up.
pub fn new_session(kind: GameKind, size: Option<u32>, config: &EngineConfig) -> Result<Box<dyn Session>, GtpError> {
    let unsupported = || GtpError::UnsupportedGame(kind);
    let kind = match size {
        None => kind,
        Some(size) if with_gtp_game!(kind, G => G::SGF_GAME).is_some() => {
            sized(kind, size).ok_or(GtpError::UnacceptableSize(size))?
        }
        Some(_) => return Err(unsupported()),
    };
    with_gtp_game!(kind, G => GameSession::<G>::new(config).map(|s| Box::new(s) as Box<dyn Session>))
        .unwrap_or_else(|| Err(unsupported()))
}

/// A game of `G`: the positions so far (the start first), the moves between them, and
/// the player.
pub struct GameSession<G: GtpGame> {
    history: Vec<G>,
    /// The move from each position of `history` to the next, with its colour.
    moves: Vec<(Player, Move)>,
    agent: MctsAgent<G>,
    komi: f32,
    swap_rule: bool,
    /// Whether the player ponders after its own moves ([`EngineConfig::ponder`]).
    ponder: bool,
    /// The position analysed, while an analysis runs.
    analysing: Option<G>,
    /// The engine's own searches in a row below the resign threshold.
    low_streak: u32,
}

impl<G: GtpGame> GameSession<G> {
    /// A game at the start, played by MCTS with `config`'s search settings.
    ///
    /// # Errors
    /// [`GtpError::Search`] if the search memory cannot be set up.
    pub fn new(config: &EngineConfig) -> Result<Self, GtpError> {
        let agent = MctsAgent::new(&config.search, 0).map_err(|e| GtpError::Search(e.into()))?;
        let start = G::new();
        let komi = start.komi();
        let ponder = config.ponder;
        Ok(GameSession {
            history: vec![start],
            moves: Vec::new(),
            agent,
            komi,
            swap_rule: false,
            ponder,
            analysing: None,
            low_streak: 0,
        })
    }

    fn position(&self) -> &G {
        // `history` always holds the start position.
        &self.history[self.history.len() - 1]
    }

    /// Ponders on `position`, reached by the engine's own move, when the engine ponders
    /// and the game goes on: on the opponent's time, until the next search (a mode no
    /// handle drives, `dist`, does not ponder).
    fn ponder_after_own_move(&mut self, position: &G) {
        if self.ponder && position.outcome().is_none() {
            self.agent.ponder(position);
        }
    }

    /// The resign rule, after a search of `position` (the engine's last): enabled, a few
    /// moves into the game, and the search sure of it. A proven loss; or the best move
    /// well visited and below the threshold at [`RESIGN_STREAK`] searches in a row (for no
    /// target above the rules', `dyn-komi`), in a position the playouts do not misjudge:
    /// no stone of the opponent's that the engine would capture is left on the board
    /// ([`GtpGame::dead_stones_of`]; Tromp-Taylor counts it until it is captured).
    fn resigns(&mut self, position: &G, resign_below: f64) -> bool {
        let Some(result) = self.agent.last_search() else { return false };
        if resign_below <= 0.0 || self.history.len() <= RESIGN_MIN_PLIES {
            return false;
        }
        if result.proof == Proof::Loss {
            return true;
        }
        let best = result.children.iter().find(|c| Some(c.mv) == result.best_move);
        // A win rate for a target above the rules' (dynamic komi ahead) is no loss.
        let low = best.is_some_and(|c| c.visits >= RESIGN_MIN_VISITS && c.value < resign_below)
            && self.agent.target_points(position) <= 0.0;
        self.low_streak = if low { self.low_streak + 1 } else { 0 };
        self.low_streak >= RESIGN_STREAK && position.dead_stones_of(position.side_to_move().other()).is_empty()
    }
}

impl<G: GtpGame> Session for GameSession<G> {
    fn board_size(&self) -> u32 {
        G::BOARD_SIZE
    }

    fn sgf_game(&self) -> u32 {
        G::SGF_GAME
    }

    fn clear(&mut self) {
        let mut start = G::new();
        start.set_komi(self.komi);
        start.set_swap_rule(self.swap_rule);
        self.history = vec![start];
        self.low_streak = 0;
        self.moves.clear();
    }

    fn komi(&self) -> f32 {
        self.komi
    }

    fn set_komi(&mut self, komi: f32) {
        self.komi = komi;
        for position in &mut self.history {
            position.set_komi(komi);
        }
    }

    fn swap_rule(&self) -> bool {
        self.swap_rule
    }

    fn set_swap_rule(&mut self, on: bool) -> Result<(), GtpError> {
        for position in &mut self.history {
            if !position.set_swap_rule(on) {
                return Err(GtpError::NoSwapRule);
            }
        }
        self.swap_rule = on;
        Ok(())
    }

    fn play(&mut self, player: Player, vertex: &str) -> Result<(), GtpError> {
        let mut next = self.position().clone();
        let mv = next.parse_move(vertex).map_err(|_| GtpError::Syntax(format!("invalid vertex '{vertex}'")))?;
        // After the end, a pass changes nothing (a referee forwards the other engine's
        // closing pass); it is still a move that `undo` takes back.
        if next.outcome().is_none() || Some(mv) != G::pass() {
            next.play_as(player, mv).map_err(|e| match e {
                GameError::IllegalMove(why) => GtpError::IllegalMove(why),
                GameError::GameOver => GtpError::IllegalMove(format!("{vertex} (the game is over)")),
                e => GtpError::IllegalMove(format!("{vertex} ({e})")),
            })?;
        }
        self.history.push(next);
        self.moves.push((player, mv));
        Ok(())
    }

    fn genmove(&mut self, player: Player, rules: GenMoveRules) -> Result<GenMove, GtpError> {
        let mut next = self.position().clone();
        let pass = G::pass().map(|p| next.format_move(p));
        if next.outcome().is_some() {
            // Over: answer the pass a controller expects, as `play` takes it.
            let Some(pass) = pass else { return Err(GtpError::IllegalMove("(the game is over)".to_string())) };
            if rules.commit {
                self.history.push(next);
                self.moves.push((player, G::pass().unwrap_or_default()));
            }
            return Ok(GenMove::Move(pass));
        }
        if next.give_turn(player, "").is_err() {
            return Err(GtpError::IllegalMove(format!("(not {}'s turn)", colour_name(player))));
        }
        let moves = next.legal_moves();
        let mv = match moves.as_ref() {
            // Nothing to choose (a forced pass): no search.
            [only] => *only,
            _ => {
                self.agent
                    .set_budget(rules.playouts, rules.time)
                    .map_err(|e| GtpError::Search(SearchError::Config(e).into()))?;
                let mv = self.agent.choose(&next).map_err(GtpError::Search)?;
                if self.resigns(&next, rules.resign_below) {
                    return Ok(GenMove::Resign);
                }
                mv
            }
        };
        let text = next.format_move(mv);
        if rules.commit {
            next.play_unchecked(mv);
            self.history.push(next.clone());
            self.moves.push((player, mv));
            self.ponder_after_own_move(&next);
        }
        Ok(GenMove::Move(text))
    }

    fn at_start(&self) -> bool {
        self.moves.is_empty()
    }

    fn handicap_layout(&self, stones: u32) -> Option<Vec<String>> {
        let position = self.position();
        G::handicap_layout(stones).map(|points| points.into_iter().map(|mv| position.format_move(mv)).collect())
    }

    fn undo(&mut self) -> Result<(), GtpError> {
        if self.history.len() <= 1 {
            return Err(GtpError::CannotUndo);
        }
        self.history.pop();
        self.moves.pop();
        Ok(())
    }

    fn showboard(&self) -> String {
        self.position().render().lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("\n")
    }

    fn final_score(&self) -> String {
        self.position().final_score()
    }

    fn final_status_list(&self, status: FinalStatus) -> Vec<String> {
        let position = self.position();
        position.final_status_list(status).into_iter().map(|mv| position.format_move(mv)).collect()
    }

    fn moves_left(&self) -> u32 {
        self.position().moves_left()
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.agent.last_search()
    }

    fn record(&self) -> String {
        // The colour the moves imply next: the other one than the last move's.
        let implied = self.moves.last().map_or(self.history[0].side_to_move(), |&(player, _)| player.other());
        let to_move = self.position().side_to_move();
        let to_play = (to_move != implied && self.position().outcome().is_none()).then_some(to_move);
        let header = RecordHeader { players: ["", ""], result: None, comment: None, to_play };
        sgf::write_moves(&self.history[0], &self.moves, &header, None)
    }

    fn load(&mut self, game: &SgfGame, moves: Option<usize>) -> Result<(), GtpError> {
        if let Some(komi) = game.komi {
            self.set_komi(komi);
        }
        self.clear();
        let count = moves.map_or(game.moves.len(), |n| (game.setup + n).min(game.moves.len()));
        for (i, (player, point)) in game.moves[..count].iter().enumerate() {
            let mut position = self.position().clone();
            let found = match point {
                None => G::pass(),
                // The legal move with this point (setup stones: for their colour).
                Some(point) => {
                    position.give_turn(*player, point).ok();
                    position
                        .legal_moves()
                        .into_iter()
                        .find(|&mv| Some(mv) != G::pass() && position.sgf_point(mv) == *point)
                }
            };
            let played = found.map(|mv| self.play(*player, &position.format_move(mv)));
            if !matches!(played, Some(Ok(()))) {
                self.clear();
                let what = point.as_deref().unwrap_or("a pass");
                return Err(GtpError::BadSgf(format!(
                    "move {} ({what} by {}) is not legal here",
                    i + 1,
                    colour_name(*player)
                )));
            }
        }
        if let Some(player) = game.to_play.filter(|_| count == game.moves.len()) {
            let last = self.history.len() - 1;
            if self.history[last].give_turn(player, "").is_err() {
                self.clear();
                return Err(GtpError::BadSgf(format!("{} cannot be to move here (PL)", colour_name(player))));
            }
        }
        Ok(())
    }

    fn analyze(&mut self, player: Option<Player>) -> Result<(), GtpError> {
        let mut position = self.position().clone();
        if position.outcome().is_some() {
            return Err(GtpError::IllegalMove("(the game is over: nothing to analyse)".to_string()));
        }
        if let Some(player) = player {
            position
                .give_turn(player, "")
                .map_err(|_| GtpError::IllegalMove(format!("(not {}'s turn)", colour_name(player))))?;
        }
        if !self.agent.ponder(&position) {
            return Err(GtpError::Search(SearchError::NoHandle(self.agent.config().mode()).into()));
        }
        self.analysing = Some(position);
        Ok(())
    }

    fn analysis_line(&mut self, request: &Request) -> Option<String> {
        let position = self.analysing.as_ref()?;
        let snapshot = self.agent.snapshot()?;
        let ownership = if request.ownership { position.ownership() } else { None };
        // Positive for the side to move.
        let flip = if position.side_to_move() == Player::One { 1.0 } else { -1.0 };
        let ownership = ownership.map(|v| v.into_iter().map(|(_, x)| x * flip).collect::<Vec<_>>());
        request.line(&snapshot.children, |mv| position.format_move(mv), ownership.as_deref())
    }

    fn end_analysis(&mut self) {
        if self.analysing.take().is_some() && !self.ponder {
            self.agent.stop_pondering();
        }
    }

    fn to_move(&self) -> Player {
        self.analysing.as_ref().unwrap_or(self.position()).side_to_move()
    }

    fn has_ownership(&self) -> bool {
        G::new().ownership().is_some()
    }

    fn gfx(&self, board: Board) -> String {
        let position = self.position();
        match board {
            Board::Visits => match self.agent.last_search() {
                Some(result) => gfx::visits(&result.children, |mv| position.format_move(mv)),
                None => String::new(),
            },
            Board::Line => {
                let pv = self.agent.last_search().map_or(&[][..], |r| &r.pv[..]);
                gfx::line(position, pv)
            }
            Board::Ownership => gfx::ownership(position.ownership(), |mv| position.format_move(mv)),
        }
    }

    fn analysis_spent(&mut self, rules: &GenMoveRules) -> bool {
        let Some(snapshot) = self.agent.snapshot() else { return true };
        snapshot.finished
            || rules.playouts.is_some_and(|n| snapshot.playouts >= n)
            || rules.time.is_some_and(|t| snapshot.elapsed >= t)
    }

    fn finish_analysis_move(&mut self, player: Player, rules: &GenMoveRules) -> Result<GenMove, GtpError> {
        let position = self.analysing.take().ok_or(GtpError::NoAnalysis)?;
        let finished = self.agent.finish_pondering().ok_or(GtpError::NoAnalysis)?;
        finished.map_err(|e| GtpError::Search(e.into()))?;
        if self.resigns(&position, rules.resign_below) {
            return Ok(GenMove::Resign);
        }
        let result = self.agent.last_search().ok_or(GtpError::NoAnalysis)?;
        let mv = result.move_to_play(&position).ok_or_else(|| GtpError::Search(SearchError::GameOver.into()))?;
        let text = position.format_move(mv);
        if rules.commit {
            let mut next = position;
            next.play_unchecked(mv);
            self.history.push(next.clone());
            self.moves.push((player, mv));
            // A move chosen with its analysis is the engine's own move as much as
            // `genmove`'s: the engine ponders after it alike.
            self.ponder_after_own_move(&next);
        }
        Ok(GenMove::Move(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::Othello;
    use crate::games::Game;
    use crate::search::SearchConfig;

    /// The root moves of the search pondering now, once it has expanded its root
    /// (`None`: not pondering).
    fn pondered_moves(session: &GameSession<Othello>) -> Option<Vec<Move>> {
        for _ in 0..1_000 {
            let children = session.agent.snapshot()?.children;
            if !children.is_empty() {
                let mut moves: Vec<Move> = children.iter().map(|c| c.mv).collect();
                // A reused root keeps its children's order.
                moves.sort_by_key(|m| m.0);
                return Some(moves);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("the pondering search never expanded its root");
    }

    /// With pondering on, the engine ponders on the opponent's position after each of its
    /// own moves, whether `genmove` or `genmove_analyze` chose it; with it off, after
    /// neither.
    #[test]
    fn the_engine_ponders_after_genmove_and_genmove_analyze_alike() {
        let rules = GenMoveRules { playouts: Some(200), time: None, resign_below: 0.0, commit: true };
        for ponder in [false, true] {
            let search = SearchConfig::builder().playouts(200).arena_nodes(1 << 18).seed(1).build().unwrap();
            let mut session = GameSession::<Othello>::new(&EngineConfig { search, resign_below: 0.0, ponder }).unwrap();
            session.genmove(Player::One, rules).unwrap();
            let replies = |s: &GameSession<Othello>| {
                let mut moves = s.position().legal_moves().as_ref().to_vec();
                moves.sort_by_key(|m| m.0);
                moves
            };
            let expected = ponder.then(|| replies(&session));
            assert_eq!(pondered_moves(&session), expected, "after genmove, ponder {ponder}");
            session.analyze(Some(Player::Two)).unwrap();
            while !session.analysis_spent(&rules) {
                std::thread::sleep(Duration::from_millis(1));
            }
            session.finish_analysis_move(Player::Two, &rules).unwrap();
            assert_eq!(session.history.len(), 3);
            let expected = ponder.then(|| replies(&session));
            assert_eq!(pondered_moves(&session), expected, "after genmove_analyze, ponder {ponder}");
        }
    }
}
