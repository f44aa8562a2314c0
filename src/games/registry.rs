//! The games parmcts knows by name: one list, [`GameKind`], from which the CLI takes its
//! game names, their help, the benchmark's per-game budget and the `game` field of every
//! JSON report. Adding a game is its own file plus one line in the `registry!` list
//! below (`docs/ARCHITECTURE.md`, "Adding a game").

use std::fmt;

/// The empty impls of the capability traits a registry line does not claim: `Endgame`
/// (no exact solver) unless it says `solver`, `NTupleBoard` (no board for networks)
/// unless it says `network`. A line that says `sizes(Go)` stands for every size of the
/// generic `Go<N>` its type is one of (its impls are generic); a line that says `size` is
/// one more size of such a family (covered by it). So a capability the registry claims
/// must be implemented in the game's folder, and one it does not claim must not be: the
/// build fails on either lie.
macro_rules! capability_impls {
    ($module:ident $ty:ident; $($caps:tt)*) => {
        capability_impls!(@scan $module [$ty] no no; $($caps)*);
    };
    (@scan $m:ident $form:tt $s:ident $n:ident; solver $($rest:tt)*) => {
        capability_impls!(@scan $m $form yes $n; $($rest)*);
    };
    (@scan $m:ident $form:tt $s:ident $n:ident; network $($rest:tt)*) => {
        capability_impls!(@scan $m $form $s yes; $($rest)*);
    };
    (@scan $m:ident [$ty:ident] $s:ident $n:ident; sizes($generic:ident) $($rest:tt)*) => {
        capability_impls!(@scan $m [generic $generic] $s $n; $($rest)*);
    };
    (@scan $m:ident [$ty:ident] $s:ident $n:ident; size $($rest:tt)*) => {
        capability_impls!(@scan $m [covered] $s $n; $($rest)*);
    };
    (@scan $m:ident $form:tt $s:ident $n:ident; $other:ident ($arg:ident) $($rest:tt)*) => {
        capability_impls!(@scan $m $form $s $n; $($rest)*);
    };
    (@scan $m:ident $form:tt $s:ident $n:ident; $other:ident $($rest:tt)*) => {
        capability_impls!(@scan $m $form $s $n; $($rest)*);
    };
    (@scan $m:ident $form:tt $s:ident $n:ident;) => {
        capability_impls!(@emit $m $form $s $n);
    };
    (@emit $m:ident [covered] $s:ident $n:ident) => {};
    (@emit $m:ident [generic $g:ident] no $n:ident) => {
        impl<const N: usize> super::Endgame for super::$m::$g<N> {}
        capability_impls!(@emit $m [generic $g] yes $n);
    };
    (@emit $m:ident [generic $g:ident] yes no) => {
        impl<const N: usize> super::NTupleBoard for super::$m::$g<N> {}
    };
    (@emit $m:ident [$ty:ident] no $n:ident) => {
        impl super::Endgame for super::$m::$ty {}
        capability_impls!(@emit $m [$ty] yes $n);
    };
    (@emit $m:ident [$ty:ident] yes no) => {
        impl super::NTupleBoard for super::$m::$ty {}
    };
    (@emit $m:ident $form:tt yes yes) => {};
}

/// The game a registry line's `boards(Kind)` names, if it has one.
macro_rules! run_time_boards {
    () => { None };
    (boards($kind:ident) $($rest:tt)*) => { Some(GameKind::$kind) };
    ($other:ident ($arg:ident) $($rest:tt)*) => { run_time_boards!($($rest)*) };
    ($other:ident $($rest:tt)*) => { run_time_boards!($($rest)*) };
}

/// Declares [`GameKind`] (with what each game can do) and the
/// [`with_game!`](crate::with_game) dispatch from one list of
/// `Variant: Type (module) [capabilities], bench playouts, "help";` entries. `$d` is a literal `$`,
/// the stable way for a macro to write a macro.
macro_rules! registry {
    ($d:tt $( $kind:ident : $ty:ident ($module:ident) [$($cap:ident $(($arg:ident))?),*], $bench:expr, $about:literal; )*) => {
        $( capability_impls!($module $ty; $($cap $(($arg))?)*); )*

        // Every registered game can be searched: a capability claimed but not implemented
        // fails here, in the library's own build.
        const _: fn() = || {
            fn searchable<G: super::SearchGame>() {}
            $( searchable::<super::$module::$ty>(); )*
        };

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
                match self { $( GameKind::$kind => run_time_boards!($($cap $(($arg))?)*), )* }
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
// solver: the game's `Endgame`), `network` (a board for n-tuple networks: its
// `NTupleBoard`), `chance` (dice), `boards(Kind)` (the game that plays it on run-time
// boards), and for the sizes of a generic game `sizes(Generic)` (the first: the
// capabilities hold for every size) and `size` (the others).
// The empty `Endgame` and `NTupleBoard` impls of the games that claim neither are
// written here (`capability_impls!`).
registry! {$
    TicTacToe: TicTacToe(tictactoe) [network], 500_000, "tic-tac-toe (3x3)";
    ConnectFour: ConnectFour(connect4) [solver, network, boards(ConnectFourBoard)], 1_000_000, "Connect Four (7 columns, 6 rows)";
    Othello: Othello(othello) [gtp, solver, network], 100_000, "Othello / Reversi (8x8)";
    Go: Go9(go) [gtp, sizes(Go)], 30_000, "Go 9x9 (Tromp-Taylor area scoring, positional superko, komi 7)";
    Go13: Go13(go) [gtp, size], 15_000, "Go 13x13 (Tromp-Taylor area scoring, positional superko, komi 7)";
    Go19: Go19(go) [gtp, size], 8_000, "Go 19x19 (Tromp-Taylor area scoring, positional superko, komi 7)";
    Hex: Hex11(hex) [gtp, sizes(Hex)], 200_000, "Hex 11x11 (Black joins top and bottom, White left and right)";
    Hex9: Hex9(hex) [gtp, size], 300_000, "Hex 9x9";
    Hex13: Hex13(hex) [gtp, size], 200_000, "Hex 13x13";
    Hex19: Hex19(hex) [gtp, size], 150_000, "Hex 19x19";
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
        write!(f, "unknown game '{}' (expected {})", super::one_line(&self.0), GameKind::names())
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
