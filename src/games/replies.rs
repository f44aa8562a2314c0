//! Last good replies with forgetting (LGRF-2, Baier & Drake 2010, "The Power of
//! Forgetting: Improving the Last-Good-Reply Policy in Monte Carlo Go"): a playout
//! remembers, for each player, the reply that won after the opponent's last move (and
//! after the last two moves), and forgets a reply that lost. A later playout plays the
//! remembered reply when it is legal, before its own policy.
//!
//! One table serves every thread of a search: an entry is a hint whose legality the
//! playout checks before playing it, so a race between two writers only changes which
//! hint is left, and every access is `Relaxed`. Moves are a game's own ids below
//! [`LastGoodReplies::IDS`] (Go's board cells).

use std::sync::atomic::{AtomicU16, Ordering};

use super::{Outcome, Player};

/// The replies each player last won with, after one move and after two.
pub struct LastGoodReplies {
    /// `[player][previous]`: the reply to the last move (0: none, else id + 1).
    one: Box<[AtomicU16]>,
    /// `[player][before previous][previous]`: the reply to the last two moves.
    two: Box<[AtomicU16]>,
}

impl std::fmt::Debug for LastGoodReplies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastGoodReplies").finish_non_exhaustive()
    }
}

impl Default for LastGoodReplies {
    fn default() -> Self {
        Self::new()
    }
}

impl LastGoodReplies {
    /// Move ids are below this (masked to it).
    pub const IDS: usize = 512;

    /// Empty tables (1 MiB for the two-move replies).
    pub fn new() -> LastGoodReplies {
        let table = |len: usize| (0..len).map(|_| AtomicU16::new(0)).collect::<Box<[_]>>();
        LastGoodReplies { one: table(2 * Self::IDS), two: table(2 * Self::IDS * Self::IDS) }
    }

    fn one_index(player: Player, previous: u16) -> usize {
        player.index() * Self::IDS + usize::from(previous) % Self::IDS
    }

    fn two_index(player: Player, before: u16, previous: u16) -> usize {
        (player.index() * Self::IDS + usize::from(before) % Self::IDS) * Self::IDS + usize::from(previous) % Self::IDS
    }

    fn read(entry: &AtomicU16) -> Option<u16> {
        // Relaxed: a hint, checked for legality by the reader (module doc).
        entry.load(Ordering::Relaxed).checked_sub(1)
    }

    /// `player`'s remembered replies to the moves `before` then `previous`: the reply to
    /// both first, then the reply to `previous` alone.
    #[inline]
    pub fn replies(&self, player: Player, before: u16, previous: u16) -> [Option<u16>; 2] {
        [
            Self::read(&self.two[Self::two_index(player, before, previous)]),
            Self::read(&self.one[Self::one_index(player, previous)]),
        ]
    }

    /// Learns from a finished playout whose moves were `moves` (the first two are its
    /// context: the moves before it, which it does not learn), the first of them played
    /// by `first`: the winner's replies are remembered, the loser's forgotten where they
    /// are the ones remembered. A draw teaches nothing.
    pub fn learn(&self, moves: &[u16], first: Player, outcome: Outcome) {
        let Outcome::Win(winner) = outcome else { return };
        for (i, window) in moves.windows(3).enumerate() {
            let player = if i % 2 == 0 { first } else { first.other() };
            let &[before, previous, reply] = window else { continue };
            let one = &self.one[Self::one_index(player, previous)];
            let two = &self.two[Self::two_index(player, before, previous)];
            // Relaxed: the entries are independent hints (module doc).
            if player == winner {
                one.store(reply + 1, Ordering::Relaxed);
                two.store(reply + 1, Ordering::Relaxed);
            } else {
                let _ = one.compare_exchange(reply + 1, 0, Ordering::Relaxed, Ordering::Relaxed);
                let _ = two.compare_exchange(reply + 1, 0, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winners_replies_are_kept_and_losers_forgotten() {
        let replies = LastGoodReplies::new();
        // Context 7, 8 (the second by Black); White plays 20, Black 30, White 40; White wins.
        let moves = [7, 8, 20, 30, 40];
        replies.learn(&moves, Player::Two, Outcome::Win(Player::Two));
        assert_eq!(replies.replies(Player::Two, 7, 8), [Some(20), Some(20)]);
        assert_eq!(replies.replies(Player::Two, 20, 30), [Some(40), Some(40)]);
        // Black's reply 30 lost: not remembered.
        assert_eq!(replies.replies(Player::One, 8, 20), [None, None]);
        // The reply to 8 alone serves another context.
        assert_eq!(replies.replies(Player::Two, 9, 8), [None, Some(20)]);
        // White loses with 20 after 7, 8: forgotten; a draw changes nothing.
        replies.learn(&[1, 2, 3], Player::Two, Outcome::Draw);
        assert_eq!(replies.replies(Player::Two, 7, 8), [Some(20), Some(20)]);
        replies.learn(&[7, 8, 20], Player::Two, Outcome::Win(Player::One));
        assert_eq!(replies.replies(Player::Two, 7, 8), [None, None]);
        // Another reply that lost does not erase a remembered one.
        replies.learn(&[5, 6, 10], Player::Two, Outcome::Win(Player::Two));
        replies.learn(&[5, 6, 11], Player::Two, Outcome::Win(Player::One));
        assert_eq!(replies.replies(Player::Two, 5, 6), [Some(10), Some(10)]);
    }
}
