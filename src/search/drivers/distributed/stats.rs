//! What each rank of a distributed search did ([`RankStats`]): in every build, part of
//! the [`SearchResult`](crate::SearchResult) (its `distributed` field), for the
//! measurements of docs/SCALING.md. The library prints nothing; the command line prints
//! these when asked (`PARMCTS_DIST_STATS`).

use std::fmt;
use std::time::Duration;

use super::tds::rank::TdsStats;

/// What one rank of a distributed search did in one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankStats {
    /// The rank.
    pub rank: usize,
    /// Its work, by scheme.
    pub work: RankWork,
}

/// A rank's work in one search, by the scheme that ran ([`DistScheme`](crate::search::DistScheme)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RankWork {
    /// MoGo's scheme: its shares.
    Share(ShareStats),
    /// The farm: its leaves.
    Farm(FarmStats),
    /// The split: its walks, and the shares of the top.
    Split {
        /// Where its walks ended.
        walks: SplitStats,
        /// The shares of the top.
        shares: ShareStats,
    },
    /// TDS: its walks and messages.
    Tds(TdsStats),
}

/// The shares a rank made, the time they took, and the path entries it sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShareStats {
    /// Shares made.
    pub shares: u64,
    /// Their total time.
    pub sharing: Duration,
    /// Path entries sent (below the fixed share of the root and its children).
    pub sent: usize,
}

/// What a farm's rank did in one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FarmStats {
    /// Leaves valued on this rank (rank 0: its own; a helper: those it was sent).
    pub valued_here: u64,
    /// Leaves sent to the other ranks (rank 0).
    pub sent: u64,
    /// Time rank 0 waited with nothing to do, or a helper between batches.
    pub waited: Duration,
}

/// What a rank of a split search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitStats {
    /// Walks this rank started that ended in its own part (or in the top).
    pub local: u64,
    /// Walks it started and sent to their owners.
    pub sent: u64,
    /// Walks it started that ended in another rank's part and were valued here, their
    /// owner's batches being all in flight.
    pub overflow: u64,
    /// Walks other ranks sent it.
    pub served: u64,
}

/// One line: `rank R: ...`, the scheme's counts.
impl fmt::Display for RankStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rank = self.rank;
        match &self.work {
            RankWork::Farm(FarmStats { valued_here, sent, waited }) => {
                write!(f, "rank {rank}: {valued_here} leaves valued here, {sent} sent, {waited:.1?} waiting")
            }
            RankWork::Split { walks: SplitStats { local, sent, overflow, served }, shares } => {
                let ShareStats { shares, sharing, .. } = shares;
                write!(
                    f,
                    "rank {rank}: {local} walks ended here, {sent} sent, {overflow} valued here for their owner, {served} served, {shares} shares ({sharing:.1?})"
                )
            }
            RankWork::Tds(TdsStats { walks, valued, valued_in_top, downs, ups, messages, words, fragments, idle }) => {
                write!(
                    f,
                    "rank {rank}: {walks} walks, {valued} leaves valued here ({valued_in_top} in the root's block), {downs} jobs sent down, {ups} reports up, {messages} messages ({words} words), {fragments} fragments, {idle:.1?} idle"
                )
            }
            RankWork::Share(ShareStats { shares, sharing, sent }) => {
                let mean = sharing.as_secs_f64() * 1e6 / *shares as f64;
                write!(
                    f,
                    "rank {rank}: {shares} shares, {mean:.1} us each on average, {sent} path entries sent (below the fixed share)"
                )
            }
        }
    }
}
