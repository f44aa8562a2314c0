//! Why a distributed search cannot run ([`ClusterError`]): in every build, so that
//! [`SearchError::Cluster`](crate::SearchError::Cluster) is one variant whatever the
//! features.

use std::fmt;

/// Why MPI could not be initialised.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClusterError {
    /// MPI was initialised before (once per process).
    AlreadyInitialised,
    /// The MPI library offers less than the funneled threading level (the level it
    /// offers).
    Threading(String),
    /// A distributed search was asked for while MPI is not running
    /// (`Cluster::init` was not called, or MPI is finalised; without the `mpi` feature
    /// MPI never runs).
    NotRunning,
    /// A distributed search was asked for on a thread that did not initialise MPI.
    NotMainThread,
    /// The ranks were given different positions to search together (a match whose
    /// other player is not deterministic, or different arguments per rank).
    DifferentPositions,
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::AlreadyInitialised => write!(f, "MPI is already initialised in this process"),
            ClusterError::Threading(level) => {
                write!(f, "the MPI library offers the {level} threading level; a distributed search needs funneled")
            }
            ClusterError::NotRunning => {
                write!(
                    f,
                    "MPI is not running (the program must call parmcts::search::distributed::Cluster::init first)"
                )
            }
            ClusterError::NotMainThread => write!(f, "MPI calls must stay on the thread that initialised MPI"),
            ClusterError::DifferentPositions => {
                write!(f, "the ranks are searching different positions (every rank must be given the same search)")
            }
        }
    }
}

impl std::error::Error for ClusterError {}
