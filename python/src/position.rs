//! `parmcts.Position`: a position of any registered game behind one Python class. The
//! game type is chosen at run time ([`parmcts::with_game!`]); everything the bindings do
//! with a position goes through the object-safe [`AnyGame`], implemented once for every
//! game type ([`Typed`]).

use std::sync::Arc;

use parmcts::games::{encoder, Encoder};
use parmcts::{with_game, Game, GameKind, Outcome, Player, SearchConfig, SearchGame};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::search::{self, SearchJob};

/// A position of some game, whatever its type.
pub trait AnyGame: Send + Sync {
    /// The game's kind.
    fn kind(&self) -> GameKind;
    /// The legal moves in the game's notation (empty when the game is over).
    fn legal_moves(&self) -> Vec<String>;
    /// Plays a move given in the game's notation.
    fn play(&mut self, text: &str) -> Result<(), String>;
    /// The result, once over: `"p1"`, `"p2"` or `"draw"`.
    fn outcome(&self) -> Option<&'static str>;
    /// The player to move: 1 or 2.
    fn to_move(&self) -> u8;
    /// A picture of the board.
    fn render(&self) -> String;
    /// A copy.
    fn boxed_clone(&self) -> Box<dyn AnyGame>;
    /// The input planes `(planes, height, width)` and their values, where the game has
    /// an encoding.
    fn planes(&self) -> Option<((usize, usize, usize), Vec<f32>)>;
    /// The policy slots of the legal moves `(policy size, slots)`, where the game has an
    /// encoding.
    fn policy_slots(&self) -> Option<(usize, Vec<usize>)>;
    /// Runs a search job on this position (the bindings' one entry to the typed search).
    fn run(&self, job: SearchJob<'_>) -> PyResult<Py<PyAny>>;
    /// The seconds `n` searches of this position take in Rust alone.
    fn time_searches(&self, py: Python<'_>, n: usize, settings: &[(String, String)]) -> PyResult<f64>;
}

/// A position of game `G`, and its encoding if it has one.
pub struct Typed<G> {
    pub game: G,
    pub encoder: Option<Encoder<G>>,
}

impl<G: SearchGame + Send + Sync + 'static> AnyGame for Typed<G> {
    fn kind(&self) -> GameKind {
        G::NAME.parse().expect("a registered game")
    }

    fn legal_moves(&self) -> Vec<String> {
        self.game.legal_moves().as_ref().iter().map(|&m| self.game.format_move(m)).collect()
    }

    fn play(&mut self, text: &str) -> Result<(), String> {
        let mv = self.game.parse_move(text).map_err(|e| e.to_string())?;
        self.game.try_play(mv).map_err(|e| e.to_string())
    }

    fn outcome(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| match o {
            Outcome::Win(Player::One) => "p1",
            Outcome::Win(Player::Two) => "p2",
            Outcome::Draw => "draw",
        })
    }

    fn to_move(&self) -> u8 {
        match self.game.side_to_move() {
            Player::One => 1,
            Player::Two => 2,
        }
    }

    fn render(&self) -> String {
        self.game.render()
    }

    fn boxed_clone(&self) -> Box<dyn AnyGame> {
        Box::new(Typed { game: self.game.clone(), encoder: self.encoder })
    }

    fn planes(&self) -> Option<((usize, usize, usize), Vec<f32>)> {
        let e = self.encoder?;
        let mut values = vec![0.0; e.planes * e.height * e.width];
        (e.encode)(&self.game, &mut values);
        Some(((e.planes, e.height, e.width), values))
    }

    fn policy_slots(&self) -> Option<(usize, Vec<usize>)> {
        let e = self.encoder?;
        let legal = self.game.legal_moves();
        Some((e.policy_size, legal.as_ref().iter().filter_map(|&m| (e.policy_index)(&self.game, m)).collect()))
    }

    fn run(&self, job: SearchJob<'_>) -> PyResult<Py<PyAny>> {
        search::run_typed(&self.game, self.encoder, job)
    }

    fn time_searches(&self, py: Python<'_>, n: usize, settings: &[(String, String)]) -> PyResult<f64> {
        search::time_searches(py, &self.game, n, settings)
    }
}

/// A new position of `kind` from `text` (moves, or the game's board notation).
pub fn any_game(kind: GameKind, text: &str) -> Result<Box<dyn AnyGame>, String> {
    with_game!(kind, G => {
        let game = G::parse_position(text).map_err(|e| format!("'{text}': {e}"))?;
        Ok(Box::new(Typed { game, encoder: encoder::<G>() }) as Box<dyn AnyGame>)
    })
}

/// A position of one of parmcts's games.
///
/// ``Position("connect4", "4453")`` starts from a move sequence; Othello also reads a
/// board of 64 characters ``X``/``O``/``-`` and the side to move; ``connect4x`` a board
/// header (``"9x7@3,1:45"``). Moves are written in the game's notation, as the command
/// line writes them.
#[pyclass(module = "parmcts", frozen)]
pub struct Position {
    pub game: Arc<std::sync::RwLock<Box<dyn AnyGame>>>,
}

impl Position {
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Box<dyn AnyGame>> {
        self.game.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl Position {
    #[new]
    #[pyo3(signature = (game, moves = ""))]
    fn new(game: &str, moves: &str) -> PyResult<Position> {
        let kind: GameKind = game.parse().map_err(|e| PyValueError::new_err(format!("{e}")))?;
        let game = any_game(kind, moves).map_err(PyValueError::new_err)?;
        Ok(Position { game: Arc::new(std::sync::RwLock::new(game)) })
    }

    /// The names of the games, as ``Position`` takes them.
    #[staticmethod]
    fn games() -> Vec<&'static str> {
        GameKind::ALL.iter().map(|g| g.name()).collect()
    }

    /// The game's name.
    #[getter]
    fn game(&self) -> &'static str {
        self.read().kind().name()
    }

    /// The legal moves, in the game's notation (empty when the game is over).
    fn legal_moves(&self) -> Vec<String> {
        self.read().legal_moves()
    }

    /// Plays ``move`` (the game's notation); ``ValueError`` names a malformed or
    /// illegal move and leaves the position unchanged.
    fn play(&self, r#move: &str) -> PyResult<()> {
        let mut game = self.game.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        game.play(r#move).map_err(PyValueError::new_err)
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.read().outcome().is_some()
    }

    /// ``"p1"``, ``"p2"`` or ``"draw"`` once the game is over, else ``None``.
    fn outcome(&self) -> Option<&'static str> {
        self.read().outcome()
    }

    /// The player to move: 1 or 2.
    fn to_move(&self) -> u8 {
        self.read().to_move()
    }

    /// A copy of the position.
    fn copy(&self) -> Position {
        Position { game: Arc::new(std::sync::RwLock::new(self.read().boxed_clone())) }
    }

    /// The input planes a neural network reads (a float32 NumPy array of shape
    /// ``(planes, height, width)``, from the side to move's view), or ``None`` for a game
    /// without an encoding (docs/EVALUATORS.md).
    fn planes<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some((shape, values)) = self.read().planes() else { return Ok(None) };
        crate::numpy::array_f32(py, &values, &[shape.0, shape.1, shape.2]).map(Some)
    }

    /// A boolean NumPy array over the policy's slots, true at each legal move's slot,
    /// or ``None`` for a game without an encoding.
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some((size, slots)) = self.read().policy_slots() else { return Ok(None) };
        let mut mask = vec![0.0; size];
        for slot in slots {
            mask[slot] = 1.0;
        }
        let array = crate::numpy::array_f32(py, &mask, &[size])?;
        array.call_method1("astype", ("bool",)).map(Some)
    }

    fn __str__(&self) -> String {
        self.read().render()
    }

    fn __repr__(&self) -> String {
        let game = self.read();
        format!(
            "<Position {} p{} to move, {} legal moves>",
            game.kind().name(),
            game.to_move(),
            game.legal_moves().len()
        )
    }
}

/// The settings of keyword arguments: `time_ms=500` is the setting `time-ms`; booleans
/// are `on`/`off`; `None` values are left out.
pub fn settings_of(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    let Some(kwargs) = kwargs else { return Ok(pairs) };
    for (key, value) in kwargs.iter() {
        if value.is_none() {
            continue;
        }
        let key: String = key.extract()?;
        let text = if let Ok(b) = value.extract::<bool>() {
            if b { "on" } else { "off" }.to_string()
        } else {
            value.str()?.to_string()
        };
        pairs.push((key.replace('_', "-"), text));
    }
    Ok(pairs)
}

/// The search configuration of `pairs` with `default_playouts` when no budget is given.
pub fn config_of(pairs: &[(String, String)], default_playouts: u64) -> PyResult<SearchConfig> {
    let builder = SearchConfig::builder()
        .apply_settings(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    builder.default_playouts(default_playouts).build().map_err(|e| PyValueError::new_err(e.to_string()))
}
