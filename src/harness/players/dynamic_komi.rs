//! Dynamic komi: a player's own target in a game won by points (Go), moved between its
//! moves (Baudiš and Gailly, "Balancing MCTS by Dynamically Adjusting the Komi Value",
//! ICGA Journal 2011: value-based situational compensation).
//!
//! A player far ahead (a handicap game's Black) or far behind (the White giving the
//! stones) sees nearly every move win, or lose, in its playouts, and its search no longer
//! tells good moves from bad. So it searches a position whose target it has moved: more
//! points asked of itself while its win rate is above [`HIGH`], fewer while below
//! [`LOW`]. The step doubles while the win rate stays on one side (a handicap is worth
//! many points) and starts again from [`FIRST_STEP`] in the band. The target is kept
//! within the game's room ([`Playouts::target_room`]: in Go a quarter of the empty
//! points), so it returns to the rules' as the board fills.

use crate::games::{Player, Playouts};

/// The win rate above which the player asks more of itself.
pub(super) const HIGH: f64 = 0.55;
/// The win rate below which it asks less.
pub(super) const LOW: f64 = 0.45;
/// The first step, in points.
pub(super) const FIRST_STEP: f32 = 1.0;
/// The largest step, in points.
pub(super) const MAX_STEP: f32 = 8.0;

/// A player's moved target: the points it asks of itself beyond the rules' (negative:
/// fewer), and the last step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct DynamicKomi {
    points: f32,
    step: f32,
    /// The direction of the last step: +1, -1, or 0 after a search in the band.
    last: i8,
}

impl Default for DynamicKomi {
    fn default() -> Self {
        DynamicKomi { points: 0.0, step: FIRST_STEP, last: 0 }
    }
}

impl DynamicKomi {
    /// The points asked beyond the rules' in `game` (the target, within its room).
    pub(super) fn points<G: Playouts>(&self, game: &G) -> f32 {
        let room = game.target_room();
        self.points.clamp(-room, room)
    }

    /// `game` with `player`'s target moved ([`DynamicKomi::points`]), to be searched.
    pub(super) fn position<G: Playouts>(&self, game: &G, player: Player) -> G {
        let mut moved = game.clone();
        moved.move_target(player, self.points(game));
        moved
    }

    /// After a search of `game` (moved) whose best move's win rate for the player was
    /// `value`: the next target.
    pub(super) fn update<G: Playouts>(&mut self, game: &G, value: f64) {
        let direction: i8 = if value > HIGH {
            1
        } else if value < LOW {
            -1
        } else {
            0
        };
        self.step = if direction != 0 && direction == self.last { (self.step * 2.0).min(MAX_STEP) } else { FIRST_STEP };
        self.last = direction;
        let room = game.target_room();
        self.points = (self.points.clamp(-room, room) + f32::from(direction) * self.step).clamp(-room, room);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Game, Go9, TicTacToe};

    #[test]
    fn the_target_follows_the_win_rate_with_doubling_steps() {
        let game = Go9::new();
        let mut komi = DynamicKomi::default();
        for (value, points) in [(0.2, -1.0), (0.1, -3.0), (0.3, -7.0), (0.2, -15.0), (0.2, -20.25), (0.5, -20.25)] {
            komi.update(&game, value);
            assert_eq!(komi.points(&game), points, "after a win rate of {value}");
        }
        // In the band the target stays; above it, one point again, then doubling.
        komi.update(&game, 0.7);
        komi.update(&game, 0.7);
        assert_eq!(komi.points(&game), -20.25 + 1.0 + 2.0);
    }

    /// A player's searches move its target: White giving four stones at komi 0.5 asks
    /// fewer points of itself, Black receiving them more.
    #[test]
    fn a_player_moves_its_target_by_its_win_rate() {
        use crate::harness::players::{Agent, MctsAgent, PlayerSpec};
        use crate::search::SearchConfig;
        let PlayerSpec::Mcts(config) = PlayerSpec::parse("mcts:playouts=2000,dyn-komi=on").unwrap() else {
            panic!("an mcts spec")
        };
        let mut game = Go9::with_komi(0.5);
        for stone in ["C3", "G7", "C7", "G3"] {
            let mv = game.parse_move(stone).unwrap();
            game.play_as(Player::One, mv).unwrap();
        }
        let mut white = MctsAgent::<Go9>::new(&config, 1).unwrap();
        white.choose(&game).unwrap();
        white.choose(&game).unwrap();
        assert_eq!(white.target_points(&game), -3.0);
        game.give_turn(Player::One);
        let mut black = MctsAgent::<Go9>::new(&config, 2).unwrap();
        black.choose(&game).unwrap();
        assert_eq!(black.target_points(&game), 1.0);
        // Without the setting, no target moves.
        let plain = MctsAgent::<Go9>::new(&SearchConfig { dyn_komi: false, ..config }, 3).unwrap();
        assert_eq!(plain.target_points(&game), 0.0);
    }

    #[test]
    fn the_moved_position_asks_the_points_of_the_player() {
        let mut komi = DynamicKomi::default();
        let game = Go9::new();
        komi.update(&game, 0.9);
        komi.update(&game, 0.9);
        assert_eq!(komi.position(&game, Player::One).komi(), 7.0 + 3.0);
        assert_eq!(komi.position(&game, Player::Two).komi(), 7.0 - 3.0);
    }

    #[test]
    fn the_target_shrinks_with_the_room_and_is_none_without_one() {
        let mut komi = DynamicKomi::default();
        let mut game = Go9::new();
        for _ in 0..6 {
            komi.update(&game, 0.0);
        }
        assert_eq!(komi.points(&game), -20.25);
        // 65 of 81 points filled: 4 points of room left.
        for mv in game.legal_moves().as_ref()[..65].iter().copied() {
            game.play_as(Player::One, mv).unwrap();
        }
        assert_eq!(komi.points(&game), -4.0);
        let ttt = TicTacToe::new();
        let mut other = DynamicKomi::default();
        other.update(&ttt, 0.0);
        assert_eq!(other.points(&ttt), 0.0);
    }
}
