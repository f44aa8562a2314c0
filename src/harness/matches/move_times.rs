//! Per-player move timing over a match: the median, the 99th percentile and the slowest move, and a searcher's playouts.

/// How long one player's moves took over a match (wall time of each `choose`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveTimes {
    /// Moves timed.
    pub moves: usize,
    /// Median, in milliseconds.
    pub median_ms: f64,
    /// 99th percentile (nearest rank), in milliseconds.
    pub p99_ms: f64,
    /// Slowest, in milliseconds.
    pub max_ms: f64,
    /// For a player that searches: the medians of its searches' playouts and rates.
    pub playouts: Option<MovePlayouts>,
}

/// A searching player's playouts per move in a match ([`MoveTimes::playouts`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovePlayouts {
    /// The median of its searches' playouts.
    pub median: u64,
    /// The median of its searches' playouts a second (each move's playouts over its wall
    /// time): what an equal-time match gives each side, comparable between a player with
    /// a time budget and one with a playout budget, whose rates over the whole game are
    /// weighted differently.
    pub median_per_second: f64,
}

impl MoveTimes {
    /// The summary of `samples` (milliseconds) and, for a player that searches, of its
    /// searches' `playouts` (one per sample, else ignored); `None` when there are no
    /// samples.
    pub fn of(mut samples: Vec<f64>, playouts: Vec<u64>) -> Option<MoveTimes> {
        let playouts = (playouts.len() == samples.len() && !samples.is_empty()).then(|| {
            let rates = samples.iter().zip(&playouts).map(|(&ms, &n)| n as f64 / (ms.max(1e-6) / 1e3)).collect();
            let counts = playouts.iter().map(|&n| n as f64).collect();
            MovePlayouts { median: quantile(counts, 0.5) as u64, median_per_second: quantile(rates, 0.5) }
        });
        samples.sort_by(f64::total_cmp);
        let last = samples.len().checked_sub(1)?;
        Some(MoveTimes {
            moves: samples.len(),
            median_ms: nearest_rank(&samples, 0.5),
            p99_ms: nearest_rank(&samples, 0.99),
            max_ms: samples[last],
            playouts,
        })
    }
}

/// The `q` quantile (nearest rank) of a non-empty sample.
fn quantile(mut sample: Vec<f64>, q: f64) -> f64 {
    sample.sort_by(f64::total_cmp);
    nearest_rank(&sample, q)
}

/// The `q` quantile (nearest rank) of a non-empty sorted sample.
fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}
