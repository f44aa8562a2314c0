//! [`NTupleNetwork`]: the tuples, their symmetric images, the weight tables, the value,
//! and the file format.
//!
//! # File format (version 1)
//! `PMNT` (4 bytes), the format version (`u32`, little-endian), the header length in
//! bytes (`u32`), a JSON header (game, cells, symmetries, stages, tuples, weight count,
//! and the command that made the file), then the weights as `f32` little-endian, stage
//! by stage, tuple by tuple, each tuple's table indexed by its cells read as a base-3
//! number (first cell most significant).

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::NTupleBoard;
use crate::games::one_line;

/// The first four bytes of a network file.
pub const MAGIC: &[u8; 4] = b"PMNT";

/// The file format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// The most cells a board may have (the value reads cells into a stack buffer).
pub const MAX_CELLS: usize = 64;

/// The cell buffer of [`NTupleNetwork::value`]: one byte per possible `u8` cell index,
/// so reading a tuple's cell needs no bounds check (cells past the board stay 0).
pub(crate) type CellBuffer = [u8; 256];

/// The longest tuple: 3^12 = 531,441 weights in its table.
const MAX_TUPLE: usize = 12;

/// The most game stages a network may have.
const MAX_STAGES: usize = 16;

/// Why a network cannot be built, read or used, naming the bad value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NetworkError {
    /// The file could not be read or written.
    Io {
        /// The path given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The bytes are not a network file (bad magic, truncated, bad header).
    Malformed {
        /// The file, when the bytes came from one.
        path: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// A format version this build does not read.
    UnsupportedVersion(u32),
    /// The network is for another game.
    WrongGame {
        /// The game asked for ([`crate::Game::NAME`]).
        expected: &'static str,
        /// The game the network names.
        found: String,
    },
    /// The game has no board for n-tuples ([`NTupleBoard::CELLS`] is 0), or more cells
    /// than [`MAX_CELLS`].
    NoBoard {
        /// The game.
        game: &'static str,
        /// Its cell count.
        cells: usize,
    },
    /// The network reads another number of cells or other symmetries than the game has.
    WrongBoard {
        /// The game.
        game: &'static str,
        /// What differs.
        reason: String,
    },
    /// A tuple that is empty, too long, repeats a cell or names a cell off the board.
    BadTuple {
        /// The tuple's index in the list.
        index: usize,
        /// The tuple's cells.
        cells: Vec<u8>,
        /// What is wrong.
        reason: &'static str,
    },
    /// No tuples at all.
    NoTuples,
    /// A stage count of 0 or above the maximum.
    BadStages(usize),
    /// The game ships no trained network.
    NoShippedNetwork {
        /// The game.
        game: &'static str,
    },
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Io { path, reason } => write!(f, "network file '{}': {reason}", one_line(path)),
            NetworkError::Malformed { path: Some(path), reason } => {
                write!(f, "network file '{}' is malformed: {}", one_line(path), one_line(reason))
            }
            NetworkError::Malformed { path: None, reason } => write!(f, "malformed network: {}", one_line(reason)),
            NetworkError::UnsupportedVersion(v) => {
                write!(f, "network format version {v} is not supported (this build reads {FORMAT_VERSION})")
            }
            NetworkError::WrongGame { expected, found } => {
                write!(f, "the network is for '{}', not for {expected}", one_line(found))
            }
            NetworkError::NoBoard { game, cells } => {
                write!(f, "{game} has no board for n-tuple networks ({cells} cells; 1 to {MAX_CELLS} needed)")
            }
            NetworkError::WrongBoard { game, reason } => write!(f, "the network does not fit {game}'s board: {reason}"),
            NetworkError::BadTuple { index, cells, reason } => write!(f, "bad tuple {index} {cells:?}: {reason}"),
            NetworkError::NoTuples => write!(f, "a network needs at least one tuple"),
            NetworkError::BadStages(n) => write!(f, "bad stage count {n} (must be 1 to {MAX_STAGES})"),
            NetworkError::NoShippedNetwork { game } => write!(f, "{game} ships no trained network (give a FILE)"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// The JSON header of a network file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    game: String,
    cells: usize,
    symmetries: Vec<Vec<u8>>,
    stages: usize,
    tuples: Vec<Vec<u8>>,
    weights: usize,
    #[serde(default)]
    source: String,
}

/// One image of a tuple under one symmetry: which table it reads and which cells.
#[derive(Clone, Debug, PartialEq)]
struct Image {
    /// Offset of the tuple's table within a stage.
    table: u32,
    /// Start of its cells in `NTupleNetwork::image_cells`.
    start: u32,
    /// Number of cells.
    len: u32,
}

/// An n-tuple network (Lucas 2008): tuples of cells, each applied under every symmetry
/// of the board with one shared weight table, optionally one set of tables per game
/// stage (Buro's Logistello: stages by the number of discs on the board). Its value
/// for the side to move is `σ(Σ w)` (the logistic function of the summed weights).
///
/// Not generic: the game is checked by name and board at load ([`NTupleNetwork::check`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NTupleNetwork {
    header: Header,
    /// Weights per stage.
    stage_size: usize,
    images: Vec<Image>,
    image_cells: Vec<u8>,
    weights: Vec<f32>,
}

/// The logistic function.
#[inline]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl NTupleNetwork {
    /// A zero network (every value 0.5) for `G` with these tuples and one stage.
    ///
    /// # Errors
    /// [`NetworkError::NoBoard`], [`NetworkError::NoTuples`] or [`NetworkError::BadTuple`].
    pub fn new<G: NTupleBoard>(tuples: Vec<Vec<u8>>) -> Result<Self, NetworkError> {
        Self::with_stages::<G>(tuples, 1)
    }

    /// A zero network for `G` with these tuples and `stages` game stages (the stage of a
    /// position is `occupied cells * stages / (CELLS + 1)`).
    ///
    /// # Errors
    /// As [`NTupleNetwork::new`], and [`NetworkError::BadStages`].
    pub fn with_stages<G: NTupleBoard>(tuples: Vec<Vec<u8>>, stages: usize) -> Result<Self, NetworkError> {
        if G::CELLS == 0 || G::CELLS > MAX_CELLS {
            return Err(NetworkError::NoBoard { game: G::NAME, cells: G::CELLS });
        }
        let header = Header {
            game: G::NAME.to_string(),
            cells: G::CELLS,
            symmetries: G::symmetries().iter().map(|s| s.to_vec()).collect(),
            stages,
            tuples,
            weights: 0,
            source: String::new(),
        };
        let mut network = Self::from_header(header, None)?;
        network.weights = vec![0.0; network.header.weights];
        Ok(network)
    }

    /// Validates a header and expands its tuples (weights left empty).
    fn from_header(mut header: Header, path: Option<&str>) -> Result<Self, NetworkError> {
        let malformed = |reason: String| NetworkError::Malformed { path: path.map(str::to_string), reason };
        if header.cells == 0 || header.cells > MAX_CELLS {
            return Err(malformed(format!("bad cell count {} (must be 1 to {MAX_CELLS})", header.cells)));
        }
        if header.stages == 0 || header.stages > MAX_STAGES {
            return Err(NetworkError::BadStages(header.stages));
        }
        if header.symmetries.is_empty() {
            header.symmetries.push((0..header.cells as u8).collect());
        }
        for (s, sym) in header.symmetries.iter().enumerate() {
            let mut seen = [false; MAX_CELLS];
            let permutation = sym.len() == header.cells
                && sym.iter().all(|&c| (c as usize) < header.cells && !std::mem::replace(&mut seen[c as usize], true));
            if !permutation {
                return Err(malformed(format!("symmetry {s} is not a permutation of the {} cells", header.cells)));
            }
        }
        if header.tuples.is_empty() {
            return Err(NetworkError::NoTuples);
        }
        let mut images = Vec::new();
        let mut image_cells = Vec::new();
        let mut table = 0usize;
        for (index, tuple) in header.tuples.iter().enumerate() {
            let bad = |reason| NetworkError::BadTuple { index, cells: tuple.clone(), reason };
            if tuple.is_empty() {
                return Err(bad("empty"));
            }
            if tuple.len() > MAX_TUPLE {
                return Err(bad("longer than 12 cells"));
            }
            if tuple.iter().any(|&c| c as usize >= header.cells) {
                return Err(bad("a cell off the board"));
            }
            if tuple.iter().enumerate().any(|(i, c)| tuple[..i].contains(c)) {
                return Err(bad("a repeated cell"));
            }
            for sym in &header.symmetries {
                images.push(Image { table: table as u32, start: image_cells.len() as u32, len: tuple.len() as u32 });
                image_cells.extend(tuple.iter().map(|&c| sym[c as usize]));
            }
            table += 3usize.pow(tuple.len() as u32);
        }
        header.weights = table * header.stages;
        Ok(NTupleNetwork { header, stage_size: table, images, image_cells, weights: Vec::new() })
    }

    /// Checks that the network is for `G`: its name, cell count and symmetries.
    ///
    /// # Errors
    /// [`NetworkError::WrongGame`], [`NetworkError::NoBoard`] or [`NetworkError::WrongBoard`].
    pub fn check<G: NTupleBoard>(&self) -> Result<(), NetworkError> {
        if self.header.game != G::NAME {
            return Err(NetworkError::WrongGame { expected: G::NAME, found: self.header.game.clone() });
        }
        if G::CELLS == 0 || G::CELLS > MAX_CELLS {
            return Err(NetworkError::NoBoard { game: G::NAME, cells: G::CELLS });
        }
        if self.header.cells != G::CELLS {
            let reason = format!("{} cells, the game has {}", self.header.cells, G::CELLS);
            return Err(NetworkError::WrongBoard { game: G::NAME, reason });
        }
        let symmetries = G::symmetries();
        let same = if symmetries.is_empty() {
            self.header.symmetries.len() == 1
                && self.header.symmetries[0].iter().enumerate().all(|(i, &c)| c as usize == i)
        } else {
            self.header.symmetries.len() == symmetries.len()
                && self.header.symmetries.iter().zip(symmetries).all(|(a, b)| a[..] == b[..])
        };
        if !same {
            let reason = format!("{} symmetries that are not the game's", self.header.symmetries.len());
            return Err(NetworkError::WrongBoard { game: G::NAME, reason });
        }
        Ok(())
    }

    /// The game the network is for.
    pub fn game(&self) -> &str {
        &self.header.game
    }

    /// The tuples (before symmetric expansion).
    pub fn tuples(&self) -> &[Vec<u8>] {
        &self.header.tuples
    }

    /// The number of game stages.
    pub fn stages(&self) -> usize {
        self.header.stages
    }

    /// How the network was made (the training command), for the record.
    pub fn source(&self) -> &str {
        &self.header.source
    }

    /// Records how the network was made (written into the file header).
    pub fn set_source(&mut self, source: impl Into<String>) {
        self.header.source = source.into();
    }

    /// All weights, stage by stage.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// All weights, for initialisation (random weights in tests, a warm start).
    pub fn weights_mut(&mut self) -> &mut [f32] {
        &mut self.weights
    }

    /// Reads `game`'s cells into a stack buffer, each clamped to 0..=2 (so a faulty
    /// game cannot index past a table).
    #[inline]
    pub(crate) fn read_cells<G: NTupleBoard>(&self, game: &G) -> CellBuffer {
        let mut cells = [0u8; 256];
        let board = &mut cells[..G::CELLS.min(MAX_CELLS)];
        game.cells(board);
        board.iter_mut().for_each(|c| *c = (*c).min(2));
        cells
    }

    /// Offset of the stage's tables for a board.
    #[inline]
    fn stage_offset(&self, cells: &[u8]) -> usize {
        if self.header.stages == 1 {
            return 0;
        }
        let occupied = cells[..self.header.cells].iter().filter(|&&c| c != 0).count();
        (occupied * self.header.stages / (self.header.cells + 1)) * self.stage_size
    }

    /// Each image's weight index for a board.
    #[inline]
    fn indices<'a>(&'a self, cells: &'a CellBuffer) -> impl Iterator<Item = usize> + 'a {
        let stage = self.stage_offset(cells);
        self.images.iter().map(move |image| {
            let start = image.start as usize;
            let tuple = &self.image_cells[start..start + image.len as usize];
            // Cells hold 0, 1 or 2 (`read_cells` clamps them), and a `u8` index is
            // always inside the 256-byte buffer.
            let index = tuple.iter().fold(0usize, |acc, &c| acc * 3 + cells[usize::from(c)] as usize);
            stage + image.table as usize + index
        })
    }

    /// The summed weights of a board's cells (the value's logit).
    #[inline]
    pub(crate) fn sum_cells(&self, cells: &CellBuffer) -> f32 {
        self.indices(cells).map(|i| self.weights[i]).sum()
    }

    /// Adds `delta` to every weight a board reads (one TD step of the training, built
    /// with the harness).
    #[cfg(feature = "harness")]
    #[inline]
    pub(crate) fn add_cells(&mut self, cells: &CellBuffer, delta: f32) {
        // The weights leave `self` while its images are read.
        let mut weights = std::mem::take(&mut self.weights);
        for i in self.indices(cells) {
            weights[i] += delta;
        }
        self.weights = weights;
    }

    /// The number of weights one board reads (tuples × symmetries).
    pub fn active_weights(&self) -> usize {
        self.images.len()
    }

    /// The summed weights for `game`'s side to move: the logit of [`NTupleNetwork::value`].
    /// Meaningful only for a network that [`NTupleNetwork::check`]s with `G`.
    #[inline]
    pub fn logit<G: NTupleBoard>(&self, game: &G) -> f32 {
        let cells = self.read_cells(game);
        self.sum_cells(&cells)
    }

    /// The probability that `game`'s side to move wins (a draw counting one half):
    /// `σ(Σ w)`. No allocation. Meaningful only for a non-terminal position and a
    /// network that [`NTupleNetwork::check`]s with `G`.
    #[inline]
    pub fn value<G: NTupleBoard>(&self, game: &G) -> f32 {
        sigmoid(self.logit(game))
    }

    /// The file's bytes (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = serde_json::to_vec(&self.header).unwrap_or_default();
        let mut bytes = Vec::with_capacity(12 + header.len() + 4 * self.weights.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&header);
        for w in &self.weights {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes
    }

    /// Parses a network file's bytes.
    ///
    /// # Errors
    /// [`NetworkError::Malformed`], [`NetworkError::UnsupportedVersion`], or a header
    /// error ([`NetworkError::BadTuple`], [`NetworkError::BadStages`], ...).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, NetworkError> {
        Self::parse(bytes, None)
    }

    fn parse(bytes: &[u8], path: Option<&str>) -> Result<Self, NetworkError> {
        let malformed = |reason: String| NetworkError::Malformed { path: path.map(str::to_string), reason };
        if bytes.len() < 12 || &bytes[..4] != MAGIC {
            return Err(malformed("not a network file (no PMNT magic)".to_string()));
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let version = word(4);
        if version != FORMAT_VERSION {
            return Err(NetworkError::UnsupportedVersion(version));
        }
        let header_len = word(8) as usize;
        let body = &bytes[12..];
        if header_len > body.len() {
            return Err(malformed(format!("header of {header_len} bytes, only {} follow", body.len())));
        }
        let header: Header = serde_json::from_slice(&body[..header_len]).map_err(|e| malformed(e.to_string()))?;
        let declared = header.weights;
        let mut network = Self::from_header(header, path)?;
        if declared != network.header.weights {
            return Err(malformed(format!(
                "header declares {declared} weights, its tuples need {}",
                network.header.weights
            )));
        }
        let data = &body[header_len..];
        if data.len() != 4 * declared {
            return Err(malformed(format!("{} weight bytes, expected {}", data.len(), 4 * declared)));
        }
        network.weights = data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if let Some(i) = network.weights.iter().position(|w| !w.is_finite()) {
            return Err(malformed(format!("weight {i} is {}", network.weights[i])));
        }
        Ok(network)
    }

    /// Reads a network file.
    ///
    /// # Errors
    /// [`NetworkError::Io`] if it cannot be read; otherwise as [`NetworkError::Malformed`]
    /// and the other errors of [`NTupleNetwork::from_bytes`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self, NetworkError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| NetworkError::Io { path: name.clone(), reason: e.to_string() })?;
        Self::parse(&bytes, Some(&name))
    }

    /// Reads a network file and checks it against `G`.
    ///
    /// # Errors
    /// As [`NTupleNetwork::load`] and [`NTupleNetwork::check`].
    pub fn load_for<G: NTupleBoard>(path: impl AsRef<Path>) -> Result<Self, NetworkError> {
        let network = Self::load(path)?;
        network.check::<G>()?;
        Ok(network)
    }

    /// Writes the network file.
    ///
    /// # Errors
    /// [`NetworkError::Io`] if it cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), NetworkError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes())
            .map_err(|e| NetworkError::Io { path: path.display().to_string(), reason: e.to_string() })
    }
}
