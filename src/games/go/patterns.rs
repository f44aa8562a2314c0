//! Go's move features for learned strengths (Coulom 2007, "Computing 'Elo Ratings' of
//! Move Patterns in the Game of Go"): every move but the pass and the filling of the
//! mover's own eye is a team of five features, one per group, whose gammas `parmcts
//! train-weights --game go` fits to a teacher's moves by MM (`crate::harness::training`):
//!
//! 1. its **tactic** ([`TACTICS`]): capture, escape from atari, self-atari, atari (a
//!    stone that leaves an opponent's chain one liberty) or plain;
//! 2. its **3x3 pattern**: the eight points around it, each the mover's stone, the
//!    opponent's, empty or off the board, up to the board's eight symmetries. Colours
//!    are the mover's and the opponent's, not Black and White, so one gamma serves
//!    both sides. The 1,107 classes that a board can show (954 in the open, 135 on an
//!    edge, 18 in a corner) are numbered by their smallest code;
//! 3. its **distance to the last move** and 4. **to the move before it** ([`DISTANCES`]),
//!    Coulom's `|dx| + |dy| + max(|dx|, |dy|)` (2 beside it, 3 diagonal, 4 two points
//!    away in line), or none after a pass;
//! 5. its **line** ([`LINES`]): the distance to the nearest edge, 1 on the edge.
//!
//! The features are laid out group after group ([`feature_names`]); a move's learned
//! strength is the product of its five gammas.

use std::sync::OnceLock;

use super::board::{opponent, Board, BLACK, BORDER, EMPTY, NO_POINT, WHITE};
use super::heavy::{matches, pattern_table, source_of, CAPTURE_STRENGTH, ESCAPE_STRENGTH, PATTERN_STRENGTH};
use super::heavy::{Tactic, SELF_ATARI_STRENGTH};
use super::Go;

/// The tactical features: what a stone on the point does to the chains around it, or to
/// itself (the first that applies of capture, self-atari, escape, atari; else plain).
/// The first four are the heavy playout's tactics, in its order.
pub const TACTICS: [&str; 5] = ["plain", "capture", "escape", "self-atari", "atari"];

/// The distance classes to an earlier move, `|dx| + |dy| + max(|dx|, |dy|)`: 2 to 9, 10
/// or more, none (a pass, or no move yet).
pub const DISTANCES: [&str; 10] = ["2", "3", "4", "5", "6", "7", "8", "9", "10+", "none"];

/// The line classes: the distance to the nearest edge, 1 to 4, or 5 or more.
pub const LINES: [&str; 5] = ["1", "2", "3", "4", "5+"];

/// How many pattern classes a board can show (954 + 135 + 18, checked by the tests).
const PATTERN_CLASSES: usize = 1107;

/// Where each group's features start in [`feature_names`].
const PATTERN_BASE: usize = TACTICS.len();
const LAST_BASE: usize = PATTERN_BASE + PATTERN_CLASSES;
const BEFORE_BASE: usize = LAST_BASE + DISTANCES.len();
const LINE_BASE: usize = BEFORE_BASE + DISTANCES.len();

/// The feature groups of a move: tactic, pattern, two distances, line.
pub const GROUPS: usize = 5;

/// The [`DISTANCES`] class of `cell` from the earlier move's cell `other` ([`NO_POINT`]:
/// none).
fn distance_class<const N: usize>(cell: usize, other: u16) -> usize {
    if other == NO_POINT {
        return DISTANCES.len() - 1;
    }
    let (w, other) = (Board::<N>::W, usize::from(other));
    let (dr, dc) = ((cell / w).abs_diff(other / w), (cell % w).abs_diff(other % w));
    // The mover's own stone of the move before may have been taken and its point played
    // again: distance 0 joins the nearest class.
    (dr + dc + dr.max(dc)).clamp(2, 10) - 2
}

/// The [`LINES`] class of the on-board `cell`.
fn line_class<const N: usize>(cell: usize) -> usize {
    let (row, col) = (cell / Board::<N>::W, cell % Board::<N>::W);
    row.min(col).min(N + 1 - row).min(N + 1 - col).min(LINES.len()) - 1
}

impl<const N: usize> Go<N> {
    /// The features of a stone of the side to move on the empty `cell` (no eye of its
    /// own), one per group, written to `team`; `false` when its neighbourhood is none a
    /// board shows (never on a real board).
    pub(super) fn feature_team(&self, cell: usize, team: &mut [usize]) -> bool {
        let color = self.color();
        let Some(class) = classes().class(color, self.board.neighbourhood(cell)) else { return false };
        let tactic = match self.tactic(cell) {
            Tactic::Plain if self.gives_atari(cell) => TACTICS.len() - 1,
            tactic => tactic as usize,
        };
        let [last, before] = self.recent;
        let features = [
            tactic,
            PATTERN_BASE + class,
            LAST_BASE + distance_class::<N>(cell, last),
            BEFORE_BASE + distance_class::<N>(cell, before),
            LINE_BASE + line_class::<N>(cell),
        ];
        team[..GROUPS].copy_from_slice(&features);
        true
    }

    /// Whether a stone of the side to move on the empty `cell` leaves a neighbouring
    /// chain of the opponent's with one liberty.
    fn gives_atari(&self, cell: usize) -> bool {
        let them = opponent(self.color());
        Board::<N>::neighbours(cell).into_iter().any(|n| self.board.color[n] == them && self.board.has_two_liberties(n))
    }
}

/// The pattern classes: the class of every neighbourhood code by the side to move, and
/// each class's smallest code (the mover's stones as [`BLACK`]).
pub(super) struct PatternClasses {
    /// `class_of[side][code]`: side 0 is Black to move, 1 White; `u16::MAX` for codes no
    /// board shows.
    class_of: [Box<[u16]>; 2],
    /// The canonical code of each class, in class order (ascending).
    canonical: Vec<u16>,
}

impl PatternClasses {
    /// The class of the neighbourhood `code` ([`super::board::Board::neighbourhood`])
    /// when `color` is to move, if a board can show it.
    #[inline]
    pub(super) fn class(&self, color: u8, code: u16) -> Option<usize> {
        let class = self.class_of[usize::from(color == WHITE)][usize::from(code)];
        (class != u16::MAX).then_some(usize::from(class))
    }
}

/// The neighbour index (in `Board::AROUND`'s order) of pattern cell `(row, col)`.
fn neighbour_at(row: usize, col: usize) -> usize {
    let index = row * 3 + col;
    debug_assert_ne!(index, 4, "the centre is no neighbour");
    if index < 4 {
        index
    } else {
        index - 1
    }
}

/// `code` seen under `symmetry` (as [`source_of`] numbers them).
fn transform(code: u16, symmetry: usize) -> u16 {
    (0..8).fold(0, |out, i| {
        let (row, col) = source_of(i, symmetry);
        let value = code >> (2 * neighbour_at(row, col)) & 3;
        out | value << (2 * i)
    })
}

/// The smallest code among `code`'s eight symmetries.
fn canonical(code: u16) -> u16 {
    (0..8).map(|s| transform(code, s)).min().expect("eight symmetries")
}

/// `code` with Black and White swapped.
fn swap_colours(code: u16) -> u16 {
    (0..8).fold(0, |out, i| {
        let value = match (code >> (2 * i) & 3) as u8 {
            BLACK => WHITE,
            WHITE => BLACK,
            other => other,
        };
        out | u16::from(value) << (2 * i)
    })
}

/// Every neighbourhood code a board can show, with the mover as [`BLACK`]: the eight
/// points on the board, or one side of them off it, or two adjacent sides (a corner).
fn board_codes() -> Vec<u16> {
    let (top, bottom, left, right) = (0b0000_0111u8, 0b1110_0000, 0b0010_1001, 0b1001_0100);
    let borders = [0, top, bottom, left, right, top | left, top | right, bottom | left, bottom | right];
    let mut codes = Vec::new();
    for border in borders {
        let open: Vec<usize> = (0..8).filter(|i| border >> i & 1 == 0).collect();
        let base = (0..8).filter(|i| border >> i & 1 != 0).fold(0u16, |c, i| c | u16::from(BORDER) << (2 * i));
        for mut assignment in 0..3usize.pow(open.len() as u32) {
            let mut code = base;
            for &i in &open {
                code |= u16::from([EMPTY, BLACK, WHITE][assignment % 3]) << (2 * i);
                assignment /= 3;
            }
            codes.push(code);
        }
    }
    codes
}

/// The pattern classes, built once.
pub(super) fn classes() -> &'static PatternClasses {
    static CLASSES: OnceLock<PatternClasses> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let codes = board_codes();
        let mut canonicals: Vec<u16> = codes.iter().map(|&c| canonical(c)).collect();
        canonicals.sort_unstable();
        canonicals.dedup();
        let mut class_of = [vec![u16::MAX; 1 << 16].into_boxed_slice(), vec![u16::MAX; 1 << 16].into_boxed_slice()];
        for &code in &codes {
            let class = canonicals.binary_search(&canonical(code)).expect("a class per code") as u16;
            class_of[0][usize::from(code)] = class;
            class_of[1][usize::from(swap_colours(code))] = class;
        }
        PatternClasses { class_of, canonical: canonicals }
    })
}

/// The names of Go's move features: [`TACTICS`], then each pattern class drawn as its
/// three rows (`X` the mover's stone, `O` the opponent's, `.` empty, `#` off the board,
/// `*` the point played), such as `XO./.*./###`, then `last:D`, `before:D` ([`DISTANCES`])
/// and `line:L` ([`LINES`]).
pub fn feature_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let patterns = classes().canonical.iter().map(|&code| {
            let mut name = String::with_capacity(11);
            for row in 0..3 {
                for col in 0..3 {
                    name.push(if (row, col) == (1, 1) {
                        '*'
                    } else {
                        match (code >> (2 * neighbour_at(row, col)) & 3) as u8 {
                            BLACK => 'X',
                            WHITE => 'O',
                            EMPTY => '.',
                            _ => '#',
                        }
                    });
                }
                if row < 2 {
                    name.push('/');
                }
            }
            // Built once per process: the names live as long as the program.
            &*Box::leak(name.into_boxed_str())
        });
        let named = |group: &str, classes: &[&str]| -> Vec<&'static str> {
            classes.iter().map(|c| &*Box::leak(format!("{group}:{c}").into_boxed_str())).collect()
        };
        let tail = [named("last", &DISTANCES), named("before", &DISTANCES), named("line", &LINES)].concat();
        TACTICS.iter().copied().chain(patterns).chain(tail).collect()
    })
}

/// The hand-set strengths ([`super::Go::move_strength`]) as gammas of these features, in
/// [`feature_names`] order: the tactics' strengths (plain and atari 1), a pattern's
/// [`PATTERN_STRENGTH`] when it is one of MoGo's shapes, else 1, and 1 for every distance
/// and line. (The hand-set strength's empty-edge factor, and its self-atari that overrides
/// a shape, have no feature here.)
pub fn hand_set_gammas() -> Vec<f32> {
    let tactics = [1.0, CAPTURE_STRENGTH, ESCAPE_STRENGTH, SELF_ATARI_STRENGTH, 1.0];
    debug_assert_eq!(Tactic::SelfAtari as usize, 3);
    let table = pattern_table();
    let patterns = classes().canonical.iter().map(|&code| if matches(table, code) { PATTERN_STRENGTH } else { 1.0 });
    let rest = std::iter::repeat_n(1.0, 2 * DISTANCES.len() + LINES.len());
    tactics.into_iter().chain(patterns).chain(rest).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_the_board_shapes_up_to_symmetry() {
        let classes = classes();
        // Burnside over the eight symmetries: 954 shapes in the open, 135 on an edge, 18
        // in a corner.
        assert_eq!(classes.canonical.len(), PATTERN_CLASSES);
        assert_eq!(PATTERN_CLASSES, 954 + 135 + 18);
        assert_eq!(feature_names().len(), LINE_BASE + LINES.len());
        assert_eq!(feature_names()[LAST_BASE], "last:2");
        assert_eq!(feature_names()[LINE_BASE - 1], "before:none");
        // Every symmetry and both sides to move give the same class.
        for &code in board_codes().iter().step_by(7) {
            let class = classes.class(BLACK, code).unwrap();
            for s in 0..8 {
                assert_eq!(classes.class(BLACK, transform(code, s)), Some(class));
                assert_eq!(classes.class(WHITE, swap_colours(transform(code, s))), Some(class));
            }
        }
        // A border all round shows on no board.
        assert_eq!(classes.class(BLACK, 0xFFFF), None);
        assert_eq!(feature_names()[TACTICS.len()], ".../.*./...");
    }

    /// The hand-set gammas, as learned strengths, give the hand-set strength of every
    /// legal move of random games, but for the two factors they leave out.
    #[test]
    fn hand_set_gammas_reproduce_the_hand_set_strengths() {
        use super::super::board::Board;
        use super::super::Go9;
        use crate::games::{Game, Playouts};
        let hand = hand_set_gammas();
        let mut checked = 0;
        super::super::for_each_playout_position(3, 20, u32::MAX, |game| {
            for &mv in game.legal_moves().as_ref() {
                let (strength, learned) = (game.move_strength(mv), game.learned_strength(mv, &hand));
                if mv != Go9::PASS {
                    let cell = Board::<9>::cell(usize::from(mv.0));
                    let tactic = game.tactic(cell);
                    if tactic == Tactic::SelfAtari && !game.board.is_eye(cell, game.color()) {
                        assert_eq!(strength, SELF_ATARI_STRENGTH);
                        continue;
                    }
                    if tactic != Tactic::Capture && game.board.on_empty_edge(cell) {
                        assert_eq!(strength, learned * super::super::heavy::EMPTY_EDGE_STRENGTH);
                        continue;
                    }
                }
                assert_eq!(strength, learned, "{}", game.format_move(mv));
                checked += 1;
            }
        });
        assert!(checked > 10_000, "{checked}");
    }

    /// The names of a stone's features on `vertex` for the side to move, group by group.
    fn team_names(game: &super::super::Go9, vertex: &str) -> Vec<&'static str> {
        let cell = Board::<9>::cell(usize::from(crate::games::Game::parse_move(game, vertex).unwrap().0));
        let mut team = [0; GROUPS];
        assert!(game.feature_team(cell, &mut team));
        team.iter().map(|&f| feature_names()[f]).collect()
    }

    #[test]
    fn distances_and_lines_follow_the_board() {
        use super::super::Go9;
        use crate::games::Game;
        let mut game = Go9::new();
        assert_eq!(team_names(&game, "E5")[2..], ["last:none", "before:none", "line:5+"]);
        game.try_play(game.parse_move("E5").unwrap()).unwrap();
        // White beside, diagonal to, two and three points from Black's E5; the edge.
        assert_eq!(team_names(&game, "E6")[2..], ["last:2", "before:none", "line:4"]);
        assert_eq!(team_names(&game, "D6")[2..], ["last:3", "before:none", "line:4"]);
        assert_eq!(team_names(&game, "E7")[2..], ["last:4", "before:none", "line:3"]);
        assert_eq!(team_names(&game, "C6")[2..], ["last:5", "before:none", "line:3"]);
        assert_eq!(team_names(&game, "A1")[2..], ["last:10+", "before:none", "line:1"]);
        game.try_play(game.parse_move("B2").unwrap()).unwrap();
        // Black: the last move is White's B2, the one before its own E5.
        assert_eq!(team_names(&game, "B3")[2..], ["last:2", "before:8", "line:2"]);
        game.try_play(Go9::PASS).unwrap();
        assert_eq!(team_names(&game, "B3")[2..], ["last:none", "before:2", "line:2"]);
    }

    /// The liberty counts behind the atari feature against a count of each chain's
    /// liberties, and the atari feature against playing the move, on random games.
    #[test]
    fn two_liberties_and_ataris_are_what_the_board_shows() {
        use crate::games::Game;
        let (mut twos, mut ataris) = (0, 0);
        super::super::for_each_playout_position(5, 30, u32::MAX, |game| {
            let color = game.color();
            for point in 0..81 {
                let cell = Board::<9>::cell(point);
                if super::super::board::is_stone(game.board.color[cell]) {
                    let two = game.board.liberties_by_flood_fill(cell).len() == 2;
                    assert_eq!(game.board.has_two_liberties(cell), two, "{point}\n{}", game.render());
                    twos += usize::from(two);
                } else if game.board.is_legal(cell, color, game.ko) && game.tactic(cell) == Tactic::Plain {
                    let mut after = game.board.clone();
                    after.place(cell, color);
                    let expected = Board::<9>::neighbours(cell)
                        .into_iter()
                        .any(|n| after.color[n] == opponent(color) && after.liberties_by_flood_fill(n).len() == 1);
                    assert_eq!(game.gives_atari(cell), expected, "{point}\n{}", game.render());
                    ataris += usize::from(expected);
                }
            }
        });
        assert!(twos > 1_000 && ataris > 1_000, "{twos} chains of two liberties, {ataris} ataris");
    }

    #[test]
    fn hand_set_gammas_mark_mogo_shapes() {
        let gammas = hand_set_gammas();
        let shapes = gammas[TACTICS.len()..].iter().filter(|&&g| g == PATTERN_STRENGTH).count();
        assert!(shapes > 50 && shapes < 500, "{shapes} MoGo shapes");
        assert_eq!(gammas[1], CAPTURE_STRENGTH);
    }
}
