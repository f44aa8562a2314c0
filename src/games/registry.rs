//! The games parmcts knows by name: one list, [`GameKind`], from which the CLI takes its
//! game names, their help, the benchmark's per-game budget and the `game` field of every
//! JSON report. Adding a game is its own file plus one line in the `registry!` list
//! below (`docs/ARCHITECTURE.md`, "Adding a game").

use std::fmt;

/// Declares [`GameKind`] (with what each game can do) and the
/// [`with_game!`](crate::with_game) dispatch from one list of
/// `Variant: Type (module) [capabilities], bench playouts, "help";` entries. `$d` is a literal `$`,
/// the stable way for a macro to write a macro.
macro_rules! registry {
    ($d:tt $( $kind:ident : $ty:ident ($module:ident) [$($cap:ident $(($boards:ident))?),*], $bench:expr, $about:literal; )*) => {
        /// The games the CLI knows, by name.
        ///
        /// Not `#[non_exhaustive]`: [`with_game!`](crate::with_game) matches every game.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum GameKind {
            $( #[doc = $about] $kind, )*
        }

        impl GameKind {
            /// Every game, in CLI order.
            pub const ALL: &'static [GameKind] = &[$( GameKind::$kind ),*];

            /// The CLI name ([`crate::Game::NAME`]).
            pub fn name(self) -> &'static str {
                match self { $( GameKind::$kind => <super::$module::$ty as super::Game>::NAME, )* }
            }

            /// One line of help.
            pub fn about(self) -> &'static str {
                match self { $( GameKind::$kind => $about, )* }
            }

            /// Playouts per measurement of `parmcts bench`: about a quarter second of
            /// sequential MCTS each on a 2020s core.
            pub fn bench_playouts(self) -> u64 {
                match self { $( GameKind::$kind => $bench, )* }
            }

            /// Whether the GTP engine plays this game (its registry line says `gtp`).
            pub fn serves_gtp(self) -> bool {
                match self { $( GameKind::$kind => [$(stringify!($cap)),*].contains(&"gtp"), )* }
            }

            /// Whether the game has an exact solver (`solver`: its own `Endgame` impl).
            pub fn has_solver(self) -> bool {
                match self { $( GameKind::$kind => [$(stringify!($cap)),*].contains(&"solver"), )* }
            }

            /// Whether learned n-tuple networks read its board (`network`: its own
            /// `NTupleBoard` cells).
            pub fn has_network_board(self) -> bool {
                match self { $( GameKind::$kind => [$(stringify!($cap)),*].contains(&"network"), )* }
            }

            /// Whether it has chance turns (`chance`: dice).
            pub fn has_chance(self) -> bool {
                match self { $( GameKind::$kind => [$(stringify!($cap)),*].contains(&"chance"), )* }
            }

            /// The game that plays it on run-time boards (`boards(Kind)`), if there is one:
            /// board flags on this game play that one.
            pub fn run_time_boards(self) -> Option<GameKind> {
                match self { $( GameKind::$kind => None $($(.or(Some(GameKind::$boards)))?)*, )* }
            }
        }

        /// Calls `$callback!` with the registry's list, one `[Kind module Type (caps…)]`
        /// group per game: how a layer above the games builds its own list from this one
        /// (the GTP engine's games, from those that say `gtp`, always the first
        /// capability) without the games naming that layer.
        // Only the GTP front end (the `harness` feature) builds a list from it today.
        #[cfg(feature = "harness")]
        macro_rules! for_each_game {
            ($d ($d callback:ident)::+ ! ($d ($d args:tt)*)) => {
                $d ($d callback)::+! { ($d ($d args)*) $( [$kind $module $ty ($($cap)*)] )* }
            };
        }
        #[cfg(feature = "harness")]
        pub(crate) use for_each_game;

        /// Runs `$body` with the type alias `$G` bound to the game type that `$kind`
        /// (a [`GameKind`](crate::GameKind)) names: the one runtime-to-type dispatch.
        ///
        /// ```
        /// use parmcts::{with_game, Game, GameKind};
        /// let kind: GameKind = "connect4".parse().unwrap();
        /// let moves = with_game!(kind, G => G::new().legal_moves().as_ref().len());
        /// assert_eq!(moves, 7);
        /// ```
        #[macro_export]
        macro_rules! with_game {
            ($d kind:expr, $d G:ident => $d body:expr) => {
                match $d kind {
                    $( $crate::GameKind::$kind => {
                        type $d G = $crate::games::$module::$ty;
                        $d body
                    } )*
                }
            };
        }
    };
}

// Each line: `Kind: Type(module) [capabilities], bench playouts, "help";` with the
// capabilities `gtp` (first when present: the GTP engine plays it), `solver` (an exact
// solver), `network` (a board for n-tuple networks), `chance` (dice) and
// `boards(Kind)` (the game that plays it on run-time boards).
registry! {$
    TicTacToe: TicTacToe(tictactoe) [network], 500_000, "tic-tac-toe (3x3)";
    ConnectFour: ConnectFour(connect4) [solver, network, boards(ConnectFourBoard)], 1_000_000, "Connect Four (7 columns, 6 rows)";
    Othello: Othello(othello) [gtp, solver, network], 100_000, "Othello / Reversi (8x8)";
    Go: Go9(go) [gtp], 30_000, "Go 9x9 (Tromp-Taylor area scoring, positional superko, komi 7)";
    Go13: Go13(go) [gtp], 15_000, "Go 13x13 (Tromp-Taylor area scoring, positional superko, komi 7)";
    Go19: Go19(go) [gtp], 8_000, "Go 19x19 (Tromp-Taylor area scoring, positional superko, komi 7)";
    Hex: Hex11(hex) [gtp], 200_000, "Hex 11x11 (Black joins top and bottom, White left and right)";
    Hex9: Hex9(hex) [gtp], 300_000, "Hex 9x9";
    Hex13: Hex13(hex) [gtp], 200_000, "Hex 13x13";
    Hex19: Hex19(hex) [gtp], 150_000, "Hex 19x19";
    ConnectFourBoard: ConnectFourBoard(connect4x) [solver, boards(ConnectFourBoard)], 300_000, "Connect Four on a run-time board: --width/--height 4-12, --blocked COL,ROW (default 7x6)";
    Einstein: Einstein(einstein) [chance], 300_000, "EinStein würfelt nicht! (5x5, a die picks the piece)";
}

impl GameKind {
    /// The names of every game, for messages: `tictactoe, connect4, othello, go, go13, go19, hex, hex9, hex13, hex19, connect4x or einstein`.
    pub fn names() -> String {
        let names: Vec<&str> = GameKind::ALL.iter().map(|g| g.name()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

/// A name that is not a registered game's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGame(pub String);

impl fmt::Display for UnknownGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown game '{}' (expected {})", self.0, GameKind::names())
    }
}

impl std::error::Error for UnknownGame {}

impl std::str::FromStr for GameKind {
    type Err = UnknownGame;
    fn from_str(s: &str) -> Result<Self, UnknownGame> {
        GameKind::ALL.iter().copied().find(|g| g.name() == s).ok_or_else(|| UnknownGame(s.to_string()))
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
