//! The players: random, MCTS, minimax, alpha-beta, expectimax and an external GTP engine.

use super::*;
use std::time::Instant;

/// How long an external engine may take to answer one command (a move included).
pub const GTP_TIMEOUT: Duration = Duration::from_secs(120);

/// An external engine over GTP (`gtp:COMMAND LINE`), started at its first move or
/// observed move: it gets the game's set-up ([`Game::gtp_setup`], then `clear_board`),
/// every move played (`play`), and `genmove` for its own.
#[derive(Debug)]
pub struct GtpAgent {
    command: Vec<String>,
    client: Option<GtpClient>,
    /// The move it chose last, which `observe` then sees and must not send back.
    own: Option<Move>,
}

impl GtpAgent {
    /// A player for the engine that `command` (program and arguments) starts.
    pub fn new(command: Vec<String>) -> GtpAgent {
        GtpAgent { command, client: None, own: None }
    }

    /// The engine, started and set up for `game` on first use.
    fn client<G: Game>(&mut self, game: &G) -> Result<&mut GtpClient, PlayerError> {
        if self.client.is_none() {
            let (program, args) = self.command.split_first().ok_or(PlayerError::Gtp(ClientError::Spawn {
                program: String::new(),
                reason: "empty command line".to_string(),
            }))?;
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut client = GtpClient::spawn(program, &args, GTP_TIMEOUT).map_err(PlayerError::Gtp)?;
            for command in game.gtp_setup().iter().map(String::as_str).chain(["clear_board"]) {
                client.send(command).map_err(PlayerError::Gtp)?;
            }
            self.client = Some(client);
        }
        Ok(self.client.as_mut().expect("started above"))
    }
}

impl<G: Game> Agent<G> for GtpAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        let command = format!("genmove {}", colour_name(game.side_to_move()));
        let reply = self.client(game)?.send(&command).map_err(PlayerError::Gtp)?;
        if reply.eq_ignore_ascii_case("resign") {
            return Err(PlayerError::Resigned);
        }
        let mv = game
            .parse_move(&reply)
            .map_err(|e| PlayerError::GtpMove { reply: reply.clone(), reason: e.to_string() })?;
        self.own = Some(mv);
        Ok(mv)
    }

    fn observe(&mut self, before: &G, mv: Move) -> Result<(), PlayerError> {
        if self.own.take() == Some(mv) {
            return Ok(());
        }
        let command = format!("play {} {}", colour_name(before.side_to_move()), before.format_move(mv));
        self.client(before)?.send(&command).map_err(PlayerError::Gtp).map(drop)
    }

    /// GTP's `undo`, once per ply taken back (an engine not started yet has nothing to
    /// take back).
    fn take_back(&mut self, _position: &G, plies: usize) -> Result<(), PlayerError> {
        self.own = None;
        let Some(client) = self.client.as_mut() else { return Ok(()) };
        for _ in 0..plies {
            client.send("undo").map_err(PlayerError::Gtp)?;
        }
        Ok(())
    }

    /// GTP's `final_score` (an engine that has not seen the game is shown it first).
    fn final_score(&mut self, game: &G) -> Option<Result<String, PlayerError>> {
        Some(self.client(game).and_then(|client| client.send("final_score").map_err(PlayerError::Gtp)))
    }

    /// GTP's `final_status_list dead`.
    fn dead_stones(&mut self, game: &G) -> Option<Result<String, PlayerError>> {
        Some(self.client(game).and_then(|client| client.send("final_status_list dead").map_err(PlayerError::Gtp)))
    }
}

/// Plays uniformly random legal moves.
#[derive(Debug)]
pub struct RandomAgent {
    pub(super) rng: Xoshiro256PlusPlus,
}

impl<G: Game> Agent<G> for RandomAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        if moves.is_empty() {
            return Err(PlayerError::GameOver);
        }
        Ok(moves[random_below(&mut self.rng, moves.len() as u32) as usize])
    }
}

/// Plays the final move of an MCTS search per move; with `reuse=on` it keeps the
/// subtree of the position it finds on its next turn, and with [`MctsAgent::ponder`] it
/// searches that position's parent on the opponent's time.
#[derive(Debug)]
pub struct MctsAgent<G> {
    /// The search, when it is not pondering.
    search: Option<Search>,
    /// The search pondering on the opponent's time ([`MctsAgent::ponder`]).
    pondering: Option<SearchHandle>,
    /// The search's configuration (with the budget of the next move).
    config: SearchConfig,
    moves_played: u64,
    last: Option<SearchResult>,
    /// The position searched last (to find the new position in its tree).
    last_root: Option<G>,
    /// The player's moved target, with `dyn-komi=on`.
    komi: Option<DynamicKomi>,
}

impl<G: SearchGame> MctsAgent<G> {
    /// A player searching with `config`, its seed mixed with `seed` (which decorrelates
    /// players that share a configuration).
    ///
    /// # Errors
    /// [`SearchError::Config`] if the search memory cannot be set up, or for `dyn-komi=on`
    /// in a game won by no margin of points.
    pub fn new(config: &SearchConfig, seed: u64) -> Result<Self, SearchError> {
        if config.dyn_komi() && !G::MOVABLE_TARGET {
            let why = "it is won by no margin of points (Go is)";
            return Err(ConfigError::NotForGame { setting: "dyn-komi=on", game: G::NAME, why }.into());
        }
        let komi = config.dyn_komi().then(DynamicKomi::default);
        let config = config.with_seed(config.seed() ^ seed);
        let search = Some(Search::new(config.clone())?);
        Ok(MctsAgent { search, pondering: None, config, moves_played: 0, last: None, last_root: None, komi })
    }

    /// The points this player asks of itself beyond the rules' in `game` (dynamic komi;
    /// 0 without): its searches' win rates are for that target.
    pub fn target_points(&self, game: &G) -> f32 {
        self.komi.map_or(0.0, |komi| komi.points(game))
    }

    /// The position this player searches for `game` (its own move if `to_move`, else the
    /// opponent's, pondering): a copy with its target moved (dynamic komi), or `None` for
    /// `game` itself.
    fn moved(&self, game: &G, to_move: bool) -> Option<G> {
        let Turn::Player(mover) = game.turn() else { return None };
        let me = if to_move { mover } else { mover.other() };
        self.komi.map(|komi| komi.position(game, me))
    }

    /// The search configuration (with the budget of the next move).
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Ponders: searches `game` (the opponent to move, after this player's move) until
    /// this player is next asked for a move, which stops it and keeps the subtree of the
    /// position then reached (with `reuse=on`). Returns whether it started (not in a
    /// finished position, nor in a mode no handle drives).
    pub fn ponder(&mut self, game: &G) -> bool
    where
        G: Send + 'static,
    {
        let mut search = self.idle();
        let root = self.moved(game, false).unwrap_or_else(|| game.clone());
        if let Some(old) = self.last_root.take() {
            search.reuse(&old, &root, REUSE_PLIES);
        }
        match search.ponder(root.clone()) {
            Ok(handle) => {
                self.pondering = Some(handle);
                self.last_root = Some(root);
                true
            }
            Err(refused) => {
                self.search = Some(*refused.search);
                false
            }
        }
    }

    /// The search, stopped first if it was pondering.
    fn idle(&mut self) -> Search {
        match (self.pondering.take(), self.search.take()) {
            (Some(handle), _) => handle.stop().search,
            (None, Some(search)) => search,
            (None, None) => unreachable!("a player's search is idle or pondering"),
        }
    }

    /// A view of the pondering search's root ([`SearchHandle::snapshot`]), if it ponders.
    pub fn snapshot(&self) -> Option<Snapshot> {
        self.pondering.as_ref().map(SearchHandle::snapshot)
    }

    /// Stops pondering (the tree is kept for reuse at the next move).
    pub fn stop_pondering(&mut self) {
        let search = self.idle();
        self.search = Some(search);
    }

    /// Stops pondering and keeps the search's result as this player's move search (its
    /// [`Agent::last_search`]); the tree is kept for reuse at the next move. `None` when
    /// it was not pondering.
    ///
    /// # Errors
    /// The search's error.
    pub fn finish_pondering(&mut self) -> Option<Result<(), SearchError>> {
        let handle = self.pondering.take()?;
        let finished = handle.stop();
        self.search = Some(finished.search);
        Some(finished.result.map(|result| self.last = Some(result)))
    }

    /// Whether the search is pondering.
    pub fn is_pondering(&self) -> bool {
        self.pondering.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Changes the budget of the next moves ([`Search::set_budget`]); the tree kept for
    /// reuse stays.
    ///
    /// # Errors
    /// As [`SearchConfig::with_budget`]; the budget is then unchanged.
    pub fn set_budget(&mut self, playouts: Option<u64>, time: Option<Duration>) -> Result<(), ConfigError> {
        self.config = self.config.with_budget(playouts, time)?;
        Ok(())
    }
}

/// Plies between two searches of one player that tree reuse looks through: its own move,
/// the reply, and room for forced passes.
const REUSE_PLIES: u32 = 4;

impl<G: SearchGame> Agent<G> for MctsAgent<G> {
    /// The best move of a search, or, once the opponent has offered to end the game, the
    /// best of the game's closing moves ([`crate::games::Playouts::closing_moves`]; a single one
    /// without a search, and the time they took off the search's).
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        let started = Instant::now();
        let closing = game.closing_moves();
        if let Some(&[only]) = closing.as_deref() {
            self.stop_pondering();
            self.last = None;
            return Ok(only);
        }
        let mut search = self.idle();
        let moved = self.moved(game, true);
        let root = moved.as_ref().unwrap_or(game);
        if let Some(old) = self.last_root.take() {
            search.reuse(&old, root, REUSE_PLIES);
        }
        // The budget of this move (a clock's), and a fresh, reproducible seed per move.
        let seed = self.config.seed().wrapping_add(self.moves_played.wrapping_mul(0x9E37_79B9));
        self.moves_played += 1;
        self.config = self.config.with_seed(seed);
        let left = |time: Duration| time.saturating_sub(started.elapsed()).max(Duration::from_millis(1));
        let budget = search.set_budget(self.config.playouts(), self.config.time().map(left));
        search.set_seed(seed);
        let result = budget.map_err(SearchError::Config).and_then(|()| search.run(root));
        self.search = Some(search);
        let result = result?;
        if self.config.reuse() {
            self.last_root = Some(root.clone());
        }
        let best = result.move_within(closing.as_deref()).ok_or(PlayerError::GameOver)?;
        if let (Some(komi), Some(chosen)) = (&mut self.komi, result.children.iter().find(|c| c.mv == best)) {
            komi.update(game, chosen.value);
        }
        self.last = Some(result);
        Ok(best)
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }

    /// Forgets the tree kept for reuse: the position it knew is gone from the game.
    fn take_back(&mut self, _position: &G, _plies: usize) -> Result<(), PlayerError> {
        self.last_root = None;
        Ok(())
    }
}

/// Plays the move of a plain negamax search to a fixed depth.
#[derive(Debug)]
pub struct MinimaxAgent {
    pub(super) depth: u32,
}

impl<G: Evaluate> Agent<G> for MinimaxAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        minimax(game, self.depth).1.ok_or(PlayerError::GameOver)
    }
}

/// Plays the move of an iterative-deepening alpha-beta search.
pub struct AlphaBetaAgent<G: Evaluate> {
    pub(super) search: AlphaBeta<G>,
    pub(super) limits: Limits,
    /// Node budget of the game's exact solver before searching (`endgame=`; 0: off).
    pub(super) endgame: u64,
}

impl<G: Evaluate> fmt::Debug for AlphaBetaAgent<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlphaBetaAgent").field("limits", &self.limits).finish()
    }
}

impl<G: Evaluate + Endgame> Agent<G> for AlphaBetaAgent<G> {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        // As the MCTS search does: a proven win or draw is played at once.
        if let Some(Solved { best_move: Some(best), .. }) = solved_to_play(game, self.endgame) {
            return Ok(best);
        }
        Ok(self.search.search(game, self.limits)?.best_move)
    }
}

/// Plays the move of an iterative-deepening expectimax search with Star1 pruning.
#[derive(Debug)]
pub struct ExpectimaxAgent {
    pub(super) search: Expectimax,
    pub(super) limits: Limits,
}

impl<G: Evaluate> Agent<G> for ExpectimaxAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        self.search.search(game, self.limits)?.best_move.ok_or(PlayerError::ChanceToMove)
    }
}
