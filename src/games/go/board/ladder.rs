//! Ladder reading (shicho): whether a chain in atari that runs is caught anyway. The
//! chaser answers every run that leaves two liberties with an atari on one of them;
//! the runner is caught when every line of play ends with it at one liberty (or none)
//! after its own move. A runner that can capture a chaser's chain in atari next to it is
//! counted free (a counter-capture usually breaks the ladder), as is one the read's
//! budget runs out on: the read only ever says "caught" when it has seen the capture.
//! Ko is not looked at past the first move.
//!
//! The knowledge michi and Pachi put in their playouts (a MoGo-style playout without it
//! saves a laddered chain nine times in ten, so the search believes in the escape),
//! read here on copies of the board, one per stone placed; the runner's liberties after
//! a run are counted before any copy, and most reads end there.

use super::{opponent, Board, EMPTY};

/// The most stones one read places before it gives up and calls the runner free: a
/// ladder across a 19x19 board is about 36 moves, and the chaser's second choice of
/// atari usually fails at once.
const READ_BUDGET: u32 = 160;

impl<const N: usize> Board<N> {
    /// Whether the chain on the stone `cell` (in atari, its owner to move) is caught if
    /// its owner extends on its liberty and keeps running: see the module doc. `false`
    /// for a chain not in atari.
    pub(in crate::games::go) fn ladder_catches(&self, cell: usize) -> bool {
        let mut budget = READ_BUDGET;
        self.runner_caught(cell, &mut budget)
    }

    /// [`Board::ladder_catches`] with the read's remaining budget.
    fn runner_caught(&self, cell: usize, budget: &mut u32) -> bool {
        let Some(liberty) = self.atari_liberty(cell) else { return false };
        let color = self.color[cell];
        if self.can_counter_capture(cell) || self.captures_at(liberty, color) {
            return false;
        }
        // Counted before a copy is made: most runs end here, free or caught.
        match self.liberties_after(liberty, color, usize::MAX) {
            (0 | 1, _) => true,
            (2, pair) if *budget > 0 => {
                *budget -= 1;
                let mut after = self.clone();
                after.place(liberty, color);
                after.chaser_catches(cell, pair, budget)
            }
            _ => false,
        }
    }

    /// Whether the chaser (the opponent of the chain on `cell`, which has the two
    /// liberties `pair`) catches it with an atari on one of them.
    fn chaser_catches(&self, cell: usize, pair: [usize; 2], budget: &mut u32) -> bool {
        let runner = self.color[cell];
        let chaser = opponent(runner);
        for (atari, run) in [(pair[0], pair[1]), (pair[1], pair[0])] {
            // The run's liberties counted on this board, `atari` taken: three or more and
            // this atari fails, with no copy made (a capture by the chaser's stone could
            // only add liberties).
            if self.liberties_after(run, runner, atari).0 >= 3 || !self.is_legal(atari, chaser, 0) || *budget == 0 {
                continue;
            }
            *budget -= 1;
            let mut after = self.clone();
            after.place(atari, chaser);
            if after.runner_caught(cell, budget) {
                return true;
            }
        }
        false
    }

    /// Whether a chain of the opponent's next to the chain on `cell` is in atari (the
    /// chain's owner could capture it).
    fn can_counter_capture(&self, cell: usize) -> bool {
        let enemy = opponent(self.color[cell]);
        let mut stone = cell;
        loop {
            for n in Self::neighbours(stone) {
                if self.color[n] == enemy && self.atari_liberty(n).is_some() {
                    return true;
                }
            }
            stone = self.next[stone] as usize;
            if stone == cell {
                return false;
            }
        }
    }

    /// Whether a `color` stone on the empty `cell` would capture: a neighbouring chain of
    /// the opponent's has `cell` as its one liberty.
    fn captures_at(&self, cell: usize, color: u8) -> bool {
        let enemy = opponent(color);
        Self::neighbours(cell).into_iter().any(|n| self.color[n] == enemy && self.atari_liberty(n) == Some(cell))
    }

    /// The liberties a `color` stone on the empty `cell` would have, with the chains of
    /// `color` it joins, when it captures nothing and the point `taken` is filled too
    /// (`usize::MAX`: none): the count up to three (3: three or more) and the first two
    /// found.
    fn liberties_after(&self, cell: usize, color: u8, taken: usize) -> (usize, [usize; 2]) {
        let mut found = [usize::MAX; 2];
        let mut count = 0;
        let mut note = |l: usize| {
            if l == cell || l == taken || found[..count.min(2)].contains(&l) {
                return false;
            }
            if count < 2 {
                found[count] = l;
            }
            count += 1;
            count == 3
        };
        for n in Self::neighbours(cell) {
            let third = match self.color[n] {
                EMPTY => note(n),
                stone if stone == color => self.any_liberty(n, &mut note),
                _ => false,
            };
            if third {
                break;
            }
        }
        (count, found)
    }
}

#[cfg(test)]
mod tests {
    use crate::games::go::Go9;
    use crate::games::{Game, Player};

    /// The board after `black` and `white` stones (vertices) are set, Black to move.
    fn position(black: &[&str], white: &[&str]) -> Go9 {
        let mut game = Go9::new();
        for (player, stones) in [(Player::One, black), (Player::Two, white)] {
            for vertex in stones {
                let mv = game.parse_move(vertex).unwrap();
                game.play_as(player, mv).unwrap();
            }
        }
        game.give_turn(Player::One);
        game
    }

    fn caught(game: &Go9, vertex: &str) -> bool {
        let mv = game.parse_move(vertex).unwrap();
        game.board.ladder_catches(super::Board::<9>::cell(usize::from(mv.0)))
    }

    /// Black D4 in atari at D3 (White C4, D5, E3, E4), Black to run: GNU Go 3.8's
    /// `defend D4` says it dies with no stone or a black stone at F2 (off the ladder's
    /// path to the lower left), and lives (D3) with one at C2, which breaks the ladder.
    #[test]
    fn a_ladder_catches_the_runner_unless_a_stone_breaks_it() {
        let chasers = ["C4", "D5", "E3", "E4"];
        for (breaker, expected) in [(None, true), (Some("F2"), true), (Some("C2"), false)] {
            let black: Vec<&str> = std::iter::once("D4").chain(breaker).collect();
            let game = position(&black, &chasers);
            assert_eq!(caught(&game, "D4"), expected, "breaker {breaker:?}\n{}", game.render());
        }
    }

    #[test]
    fn a_chain_with_room_or_a_counter_capture_is_free() {
        // Not in atari: nothing to read.
        let game = position(&["E5"], &["D5"]);
        assert!(!caught(&game, "E5"));
        // In atari with its liberty open on three sides.
        let game = position(&["E5"], &["D5", "E6", "F5"]);
        assert!(!caught(&game, "E5"));
        // The ladder above, with White's C4 in atari (Black C3 and C5 beside it, B4 its
        // liberty): the runner takes it.
        let game = position(&["D4", "C3", "C5"], &["C4", "D5", "E3", "E4"]);
        assert!(!caught(&game, "D4"), "\n{}", game.render());
    }

    #[test]
    fn a_runner_against_the_edge_is_caught() {
        // Black A2 in atari at A1 (White A3, B2): extending leaves one liberty, B1.
        let game = position(&["A2"], &["A3", "B2"]);
        assert!(caught(&game, "A2"), "\n{}", game.render());
    }
}
