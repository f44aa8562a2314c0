//! A player of one process in a match against a distributed player ([`RankZeroAgent`]):
//! it moves on MPI rank 0 alone and its moves go to every rank (without the `mpi`
//! feature, a job of one rank: it is the player itself).

use std::fmt;
use std::time::Duration;

use crate::games::{Game, Move};
use crate::harness::players::{Agent, PlayerError};
use crate::search::distributed;
use crate::SearchResult;

/// A player played on rank 0 alone, its moves broadcast to the other ranks: the other
/// side of a match against a distributed player (which every rank plays in lockstep).
/// So that player may have a time budget (each rank searching it on its own would
/// choose different moves) and searches on one core, rank 0's, while the other ranks
/// wait (sleeping between polls). Its errors reach the other ranks as
/// [`PlayerError::OnRankZero`], the match's flow the same on every rank; rank 0 reports
/// the error itself.
pub struct RankZeroAgent<G> {
    inner: Box<dyn Agent<G>>,
    root: bool,
}

impl<G> fmt::Debug for RankZeroAgent<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RankZeroAgent").field("root", &self.root).finish_non_exhaustive()
    }
}

impl<G: Game> RankZeroAgent<G> {
    /// Plays `inner` on rank 0 for every rank.
    pub fn new(inner: Box<dyn Agent<G>>) -> RankZeroAgent<G> {
        RankZeroAgent { inner, root: distributed::rank() == 0 }
    }
}

/// How rank 0 tells the others what its player did: a move in the low 16 bits, or one
/// of these above them.
const RESIGNED: u64 = 1 << 32;
const FORFEITED: u64 = 2 << 32;
const FAILED: u64 = 3 << 32;

impl<G: Game> Agent<G> for RankZeroAgent<G> {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        let mut word = 0;
        let mut mine = None;
        if self.root {
            let chosen = self.inner.choose(game);
            word = match &chosen {
                Ok(mv) => u64::from(mv.0),
                Err(PlayerError::Resigned) => RESIGNED,
                Err(e) if e.forfeits() => FORFEITED,
                Err(_) => FAILED,
            };
            mine = Some(chosen);
        }
        // The other ranks wait here for the whole of rank 0's search: sleep, do not spin
        // (their cores are the other player's, on a shared machine).
        let word = distributed::broadcast_from_rank_zero(word, Duration::from_micros(200));
        if let Some(chosen) = mine {
            return chosen;
        }
        match word {
            RESIGNED => Err(PlayerError::Resigned),
            FORFEITED => Err(PlayerError::OnRankZero { forfeit: true }),
            FAILED => Err(PlayerError::OnRankZero { forfeit: false }),
            mv => Ok(Move(mv as u16)),
        }
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.inner.last_search().filter(|_| self.root)
    }

    fn observe(&mut self, before: &G, mv: Move) -> Result<(), PlayerError> {
        // Only rank 0's player moves; an external engine on the others never starts.
        if self.root {
            self.inner.observe(before, mv)
        } else {
            Ok(())
        }
    }
}
