//! Settings applied and validated: [`SearchConfigBuilder::apply_settings`] reads `key=value`
//! text, and [`SearchConfigBuilder::build`] checks every setting once, in the order
//! below, and resolves what depends on others (the mode from the thread count, the arena
//! from `nodes` or `memory-mb`); the validated copies of a configuration
//! ([`SearchConfig::with_mode`] and the other `with_*`) go through it again.

use std::time::Duration;

use super::config::{
    ConfigError, Evaluation, Mode, SearchConfig, SearchConfigBuilder, Select, Setting, SettingError,
    DEFAULT_ARENA_NODES, MAX_DIST_BATCH,
};
use super::drivers::{self, nodes_per_tree, with_driver, Driver};
use super::limits::{
    MAX_ARENA_NODES, MAX_EVAL_BATCH, MAX_EVAL_DEPTH, MAX_EVAL_IN_FLIGHT, MAX_EVAL_THREADS, MAX_EVAL_WAIT_US, MAX_LANES,
    MAX_PLAYOUTS, MAX_THREADS, MIN_ARENA_NODES,
};

impl SearchConfigBuilder {
    /// Applies `key=value` settings in order ([`SETTINGS`](super::SETTINGS)), rejecting an unknown key
    /// and a key given twice.
    ///
    /// # Errors
    /// The first [`SettingError`].
    pub fn apply_settings<'a>(
        mut self,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<SearchConfigBuilder, SettingError> {
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            let setting = Setting::find(key).ok_or_else(|| SettingError::UnknownKey(key.to_string()))?;
            if seen.contains(&setting.key) {
                return Err(SettingError::Repeated(setting.key));
            }
            seen.push(setting.key);
            self = setting.apply(self, value)?;
        }
        Ok(self)
    }

    /// Validates the configuration. Values are checked in the type they are stored in
    /// (C = 1e100 overflows a 32-bit float and is rejected).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first bad value, or the two settings that conflict.
    pub fn build(self) -> Result<SearchConfig, ConfigError> {
        let mut cfg = self.config;
        check_budget(&cfg)?;
        check_exploration(&cfg)?;
        check_threads(&mut cfg)?;
        check_policy(&cfg)?;
        check_puct(&cfg)?;
        check_batches(&cfg)?;
        check_mode_settings(&cfg)?;
        check_leaves_and_arena(&mut cfg)?;
        Ok(cfg)
    }
}

impl SearchConfig {
    /// A builder with the defaults of [`SETTINGS`](super::SETTINGS) and no budget (one must be set).
    pub fn builder() -> SearchConfigBuilder {
        SearchConfigBuilder { config: SearchConfig::defaults() }
    }

    /// A builder holding this configuration, for settings applied on top of it
    /// ([`SearchConfigBuilder::apply_settings`]) and validated again.
    pub fn to_builder(&self) -> SearchConfigBuilder {
        SearchConfigBuilder { config: self.clone() }
    }

    /// Arena capacity in nodes, from [`SearchConfig::arena_nodes`] or
    /// [`SearchConfig::memory_mb`] (for root-parallel: shared out between the trees).
    pub fn arena_capacity(&self) -> u64 {
        self.arena_capacity
    }

    /// A copy with another seed (used by players that search once per move).
    pub fn with_seed(&self, seed: u64) -> SearchConfig {
        SearchConfig { seed, ..self.clone() }
    }

    /// A copy in another mode and thread count (the benchmark's rows), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_mode(&self, mode: Mode, threads: usize) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { mode, threads, ..self.clone() } }.build()
    }

    /// A copy with a time budget alone (no playout budget), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_time(&self, time: Duration) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { playouts: None, time: Some(time), ..self.clone() } }.build()
    }

    /// A copy with another budget: a playout budget, a time budget or both (a search stops
    /// at the first spent), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`] ([`ConfigError::NoBudget`] when both are `None`).
    pub fn with_budget(&self, playouts: Option<u64>, time: Option<Duration>) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { playouts, time, until_stopped: false, ..self.clone() } }.build()
    }

    /// A copy with no budget (`until-stopped=on`): its search runs until its handle stops
    /// it ([`Search::start`](super::Search::start)).
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_until_stopped(&self) -> Result<SearchConfig, ConfigError> {
        let config = SearchConfig { playouts: None, time: None, until_stopped: true, ..self.clone() };
        SearchConfigBuilder { config }.build()
    }

    /// A copy with another playout budget (and no time budget), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_playouts(&self, playouts: u64) -> Result<SearchConfig, ConfigError> {
        let config = SearchConfig { playouts: Some(playouts), time: None, until_stopped: false, ..self.clone() };
        SearchConfigBuilder { config }.build()
    }
}

impl SearchConfigBuilder {
    /// A playout budget of `playouts` unless a playout or time budget is already set, or
    /// the search runs until stopped (the default budget of the `search` command and of
    /// an `mcts` player spec).
    pub fn default_playouts(self, playouts: u64) -> Self {
        match (self.config.playouts, self.config.time) {
            (None, None) if !self.config.until_stopped => self.playouts(playouts),
            _ => self,
        }
    }
}

/// A playout or time budget, neither empty, the playouts within the counters.
fn check_budget(cfg: &SearchConfig) -> Result<(), ConfigError> {
    match (cfg.playouts, cfg.time) {
        (None, None) if !cfg.until_stopped => return Err(ConfigError::NoBudget),
        (Some(n), _) if cfg.until_stopped => {
            return Err(ConfigError::conflict(
                "until-stopped",
                "on",
                "playouts",
                n,
                "a search until stopped has no budget",
            ));
        }
        (_, Some(t)) if cfg.until_stopped => {
            let ms = t.as_millis();
            return Err(ConfigError::conflict(
                "until-stopped",
                "on",
                "time-ms",
                ms,
                "a search until stopped has no budget",
            ));
        }
        (Some(0), _) => return Err(ConfigError::ZeroPlayouts),
        (Some(n), _) if n > MAX_PLAYOUTS => return Err(ConfigError::TooManyPlayouts { got: n, max: MAX_PLAYOUTS }),
        (_, Some(t)) if t.is_zero() => return Err(ConfigError::ZeroTime),
        _ => {}
    }
    Ok(())
}

/// A finite, non-negative exploration constant.
fn check_exploration(cfg: &SearchConfig) -> Result<(), ConfigError> {
    let bad = |x: f32| !x.is_finite() || x < 0.0;
    if let Some(x) = cfg.c.filter(|&x| bad(x)) {
        return Err(ConfigError::BadExploration(x.into()));
    }
    Ok(())
}

/// Threads within bounds; `auto` resolved into the mode the thread count gives.
fn check_threads(cfg: &mut SearchConfig) -> Result<(), ConfigError> {
    if cfg.threads == 0 {
        return Err(ConfigError::ZeroThreads);
    }
    if cfg.threads > MAX_THREADS {
        return Err(ConfigError::TooManyThreads { got: cfg.threads, max: MAX_THREADS });
    }
    cfg.mode = cfg.mode.resolve(cfg.threads);
    if cfg.mode == Mode::Sequential && cfg.threads > 1 {
        return Err(ConfigError::conflict(
            "mode",
            Mode::Sequential,
            "threads",
            cfg.threads,
            "the sequential search runs one thread",
        ));
    }
    Ok(())
}

/// The selection and evaluation settings: bias, RAVE, the evaluator's weight, depth,
/// priors and minimax mix, the expansion threshold.
fn check_policy(cfg: &SearchConfig) -> Result<(), ConfigError> {
    let bad = |x: f32| !x.is_finite() || x < 0.0;
    if let Some(c_bt) = cfg.bias.filter(|&c| bad(c)) {
        return Err(ConfigError::BadBias(c_bt.into()));
    }
    if bad(cfg.bias_k) || cfg.bias_k == 0.0 {
        return Err(ConfigError::BadBiasK(cfg.bias_k.into()));
    }
    if let Some(n) = cfg.prior_visits.filter(|&n| bad(n)) {
        return Err(ConfigError::OutOfRange { key: "prior-visits", got: n.into(), range: "finite and >= 0" });
    }
    if let Some(n) = cfg.prior_visits.filter(|&n| n > 0.0 && cfg.select == Select::Puct) {
        return Err(ConfigError::conflict("prior-visits", n, "select", "puct", "PUCT weighs the priors itself"));
    }
    if bad(cfg.widen) {
        return Err(ConfigError::OutOfRange { key: "widen", got: cfg.widen.into(), range: "finite and >= 0" });
    }
    if bad(cfg.crit) {
        return Err(ConfigError::OutOfRange { key: "crit", got: cfg.crit.into(), range: "finite and >= 0" });
    }
    if let Some(rave) = cfg.rave.filter(|&k| bad(k)) {
        return Err(ConfigError::BadRave(rave.into()));
    }
    if !(0.0..=1.0).contains(&cfg.eval_weight) {
        return Err(ConfigError::BadEvalWeight(cfg.eval_weight.into()));
    }
    if cfg.eval_depth > MAX_EVAL_DEPTH {
        return Err(ConfigError::BadEvalDepth { got: cfg.eval_depth, max: MAX_EVAL_DEPTH });
    }
    if cfg.eval_priors && cfg.eval == Evaluation::None {
        return Err(ConfigError::conflict("eval-priors", "on", "eval", "none", "the priors come from the evaluator"));
    }
    if let Some(alpha) = cfg.implicit {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(ConfigError::BadImplicit(alpha.into()));
        }
        if alpha > 0.0 && cfg.eval == Evaluation::None {
            return Err(ConfigError::conflict(
                "implicit",
                alpha,
                "eval",
                "none",
                "the minimax values come from the evaluator",
            ));
        }
    }
    if cfg.expand_threshold == 0 {
        return Err(ConfigError::ZeroExpandThreshold);
    }
    Ok(())
}

/// PUCT's constants, the root noise and the move temperature within their ranges.
fn check_puct(cfg: &SearchConfig) -> Result<(), ConfigError> {
    let out = |key, got: f32, range| Err(ConfigError::OutOfRange { key, got: got.into(), range });
    if let Some(c) = cfg.c_puct.filter(|c| !(c.is_finite() && *c > 0.0)) {
        return out("c-puct", c, "finite and > 0");
    }
    if !(0.0..=1.0).contains(&cfg.fpu) {
        return out("fpu", cfg.fpu, "0 to 1");
    }
    if !(cfg.noise.is_finite() && cfg.noise >= 0.0) {
        return out("noise", cfg.noise, "finite and >= 0");
    }
    if !(0.0..=1.0).contains(&cfg.noise_frac) {
        return out("noise-frac", cfg.noise_frac, "0 to 1");
    }
    if !(cfg.temperature.is_finite() && cfg.temperature >= 0.0) {
        return out("temperature", cfg.temperature, "finite and >= 0");
    }
    Ok(())
}

/// The batches' settings within their bounds; batches only where the mode's driver
/// keeps walks in flight for them ([`Driver::evaluates_in_batches`]) and the leaf's value
/// is the evaluator's own (no negamax below it, no implicit minimax values, which ask
/// the evaluator one position at a time).
fn check_batches(cfg: &SearchConfig) -> Result<(), ConfigError> {
    let out = |key, got: u32, range| Err(ConfigError::OutOfRange { key, got: got.into(), range });
    if cfg.eval_batch > MAX_EVAL_BATCH {
        return out("eval-batch", cfg.eval_batch, "0 to 1024");
    }
    if let Some(n) = cfg.eval_in_flight.filter(|n| !(1..=MAX_EVAL_IN_FLIGHT).contains(n)) {
        return out("eval-in-flight", n, "1 to 4096");
    }
    if cfg.eval_wait_us > MAX_EVAL_WAIT_US {
        return out("eval-wait-us", cfg.eval_wait_us, "0 to 1000000");
    }
    if cfg.eval_threads > MAX_EVAL_THREADS {
        return out("eval-threads", cfg.eval_threads, "0 to 64");
    }
    let batch = cfg.eval_batch;
    if batch == 0 {
        return match cfg.eval_in_flight {
            Some(n) => Err(ConfigError::conflict("eval-in-flight", n, "eval-batch", 0, "walks wait only for batches")),
            None => Ok(()),
        };
    }
    let conflict =
        |key, value: &dyn std::fmt::Display, why| Err(ConfigError::conflict("eval-batch", batch, key, value, why));
    if cfg.eval == Evaluation::None {
        return conflict("eval", &"none", "the batches go to the evaluator");
    }
    if cfg.eval_depth > 0 {
        return conflict("eval-depth", &cfg.eval_depth, "a batch values the leaf itself");
    }
    if let Some(alpha) = cfg.implicit.filter(|&a| a > 0.0) {
        return conflict("implicit", &alpha, "implicit minimax asks the evaluator at each expansion");
    }
    if !with_driver!(cfg.mode, |driver| driver.evaluates_in_batches()) {
        return conflict("mode", &cfg.mode, "only modes seq and tree evaluate in batches");
    }
    Ok(())
}

/// The bounds of the synced and distributed modes' own settings (whatever the mode), then
/// what the mode's driver asks of the rest ([`Driver::check`]).
fn check_mode_settings(cfg: &SearchConfig) -> Result<(), ConfigError> {
    if cfg.sync_every == 0 {
        return Err(ConfigError::ZeroSyncEvery);
    }
    if cfg.dist_period == 0 {
        return Err(ConfigError::ZeroDistPeriod);
    }
    if cfg.dist_every == Some(0) {
        return Err(ConfigError::ZeroDistEvery);
    }
    if cfg.dist_batch == 0 || cfg.dist_batch > MAX_DIST_BATCH {
        return Err(ConfigError::BadDistBatch { got: cfg.dist_batch, max: MAX_DIST_BATCH });
    }
    if !(0.0..=100.0).contains(&cfg.dist_share) {
        return Err(ConfigError::BadDistShare(cfg.dist_share.into()));
    }
    with_driver!(cfg.mode, |driver| driver.check(cfg))
}

/// Playouts in flight within bounds; the arena resolved and large enough per tree.
fn check_leaves_and_arena(cfg: &mut SearchConfig) -> Result<(), ConfigError> {
    if let Some(n) = cfg.lanes.filter(|&n| n == 0 || n as usize > MAX_LANES) {
        return Err(ConfigError::BadLanes { got: n, max: MAX_LANES });
    }
    cfg.arena_capacity = match (cfg.arena_nodes, cfg.memory_mb) {
        (Some(nodes), Some(mb)) => {
            return Err(ConfigError::conflict("nodes", nodes, "memory-mb", mb, "both size the arena; give one"));
        }
        (Some(nodes), None) => nodes,
        // `memory-mb` bounds all of it: every tree's nodes with the side arrays the
        // configuration allows, and tree reuse's spare arena (which a reused tree fills).
        (None, Some(mb)) => {
            let trees = drivers::trees(cfg) as u64;
            mb.saturating_mul(1 << 20) / (cfg.bytes_per_node() * cfg.arenas()) * trees
        }
        (None, None) => DEFAULT_ARENA_NODES,
    };
    if cfg.arena_capacity > MAX_ARENA_NODES {
        return Err(ConfigError::ArenaTooLarge { nodes: cfg.arena_capacity, max: MAX_ARENA_NODES });
    }
    let per_tree = nodes_per_tree(cfg);
    if per_tree < MIN_ARENA_NODES {
        return Err(ConfigError::ArenaTooSmall { nodes: per_tree, needed: MIN_ARENA_NODES });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::config::*;

    #[test]
    fn bad_configs_are_rejected() {
        let b = || SearchConfig::builder().playouts(100);
        assert_eq!(SearchConfig::builder().build(), Err(ConfigError::NoBudget));
        assert_eq!(SearchConfig::builder().playouts(0).build(), Err(ConfigError::ZeroPlayouts));
        assert_eq!(SearchConfig::builder().time(Duration::ZERO).build(), Err(ConfigError::ZeroTime));
        assert_eq!(b().threads(0).build(), Err(ConfigError::ZeroThreads));
        assert_eq!(b().c(-1.0).build(), Err(ConfigError::BadExploration(-1.0)));
        assert!(matches!(b().c(f64::NAN).build(), Err(ConfigError::BadExploration(_))));
        assert_eq!(b().arena_nodes(1).build(), Err(ConfigError::ArenaTooSmall { nodes: 1, needed: MIN_ARENA_NODES }));
        assert_eq!(
            b().mode(Mode::RootParallel).threads(4).arena_nodes(7).build(),
            Err(ConfigError::ArenaTooSmall { nodes: 1, needed: MIN_ARENA_NODES })
        );
        assert_eq!("fast".parse::<Mode>(), Err(ConfigError::UnknownMode("fast".into())));
        assert_eq!("wu-uct".parse::<InFlight>(), Ok(InFlight::WuUct));
        assert_eq!("loss".parse::<InFlight>(), Ok(InFlight::Loss));
        assert!("wu".parse::<InFlight>().unwrap_err().to_string().contains("'wu'"));
        assert_eq!(b().rave(-1.0).build(), Err(ConfigError::BadRave(-1.0)));
        assert_eq!(b().implicit(1.5).build(), Err(ConfigError::BadImplicit(1.5)));
        assert!(b().implicit(0.0).eval(Evaluation::None).build().is_ok());
        assert!(matches!(b().implicit(0.5).eval(Evaluation::None).build(), Err(ConfigError::Conflict { .. })));
        assert!(b().build().is_ok());
        // `memory-mb` counts the side arrays and the spare arena: 24 + 8 + 4 bytes a node.
        let capacity = |b: SearchConfigBuilder| b.memory_mb(36).build().unwrap().arena_capacity();
        assert_eq!(capacity(b().reuse(false)), 1 << 20);
        assert_eq!(capacity(b()), 1 << 19);
        assert_eq!(capacity(b().reuse(false).rave(0.0).implicit(0.0)), (36 << 20) / 24);
    }

    /// `memory-mb` bounds every arena a search may fill, with every side array it may
    /// keep, in every mode that keeps trees in this process.
    #[test]
    fn memory_mb_bounds_every_arena_and_side_array() {
        use crate::tree::Arena;
        for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced, Mode::Virtual] {
            let threads: &[usize] = if mode == Mode::Sequential { &[1] } else { &[1, 2, 3, 7] };
            let combinations = threads.iter().flat_map(|&t| {
                [false, true].into_iter().flat_map(move |reuse| {
                    [None, Some(0.0), Some(300.0)]
                        .into_iter()
                        .flat_map(move |rave| [None, Some(0.0)].map(|implicit| (t, reuse, rave, implicit)))
                })
            });
            for (threads, reuse, rave, implicit) in combinations {
                let mut b = SearchConfig::builder().playouts(1).mode(mode).threads(threads).reuse(reuse).memory_mb(5);
                b = if let Some(k) = rave { b.rave(k) } else { b };
                b = if let Some(a) = implicit { b.implicit(a) } else { b };
                let cfg = b.build().unwrap();
                let (amaf, values) = (rave != Some(0.0), implicit != Some(0.0));
                let arenas = super::drivers::trees(&cfg) as u64 + u64::from(reuse);
                let bytes = super::nodes_per_tree(&cfg) * Arena::bytes_per_node(amaf, values) * arenas;
                assert!(bytes <= 5 << 20 && bytes > (5 << 20) * 9 / 10, "{mode:?} {threads} {reuse}: {bytes}");
            }
        }
    }

    /// Values are checked as stored (32-bit floats), sizes and thread counts are capped,
    /// and settings that exclude each other are rejected naming both.
    #[test]
    fn bounds_and_conflicts_are_rejected() {
        let b = || SearchConfig::builder().playouts(100);
        assert!(matches!(b().c(1e100).build(), Err(ConfigError::BadExploration(c)) if c.is_infinite()));
        assert!(matches!(b().bias(1e300).build(), Err(ConfigError::BadBias(_))));
        let negative = b().prior_visits(-1.0).build();
        assert!(matches!(negative, Err(ConfigError::OutOfRange { key: "prior-visits", .. })), "{negative:?}");
        let puct = b().prior_visits(20.0).select(Select::Puct).build().unwrap_err().to_string();
        assert!(puct.contains("prior-visits=20") && puct.contains("select=puct"), "{puct}");
        let too_many = b().mode(Mode::TreeParallel).threads(MAX_THREADS + 1).build();
        assert_eq!(too_many, Err(ConfigError::TooManyThreads { got: MAX_THREADS + 1, max: MAX_THREADS }));
        assert!(b().mode(Mode::TreeParallel).threads(MAX_THREADS).arena_nodes(1 << 20).build().is_ok());
        let huge = b().memory_mb(99_999_999).build();
        assert!(matches!(huge, Err(ConfigError::ArenaTooLarge { .. })), "{huge:?}");
        assert!(
            matches!(b().arena_nodes(1 << 32).build(), Err(ConfigError::ArenaTooLarge { nodes, .. }) if nodes == 1 << 32)
        );
        let both = b().memory_mb(10).arena_nodes(100).build().unwrap_err().to_string();
        assert!(both.contains("nodes=100") && both.contains("memory-mb=10"), "{both}");
        let seq = b().mode(Mode::Sequential).threads(4).build().unwrap_err().to_string();
        assert!(seq.contains("mode=seq") && seq.contains("threads=4"), "{seq}");
        assert!(b().mode(Mode::Sequential).threads(1).build().is_ok());
    }

    #[test]
    fn auto_is_the_default_and_resolves_by_thread_count() {
        let b = || SearchConfig::builder().playouts(10);
        assert_eq!(b().build().unwrap().mode(), Mode::Sequential);
        assert_eq!(b().threads(4).build().unwrap().mode(), Mode::TreeParallel);
        assert_eq!(b().mode(Mode::Auto).threads(1).build().unwrap().mode(), Mode::Sequential);
        // Resolved once: a copy with a new thread count is resolved from its resolved mode.
        assert_eq!(b().build().unwrap().with_mode(Mode::Auto, 2).unwrap().mode(), Mode::TreeParallel);
        assert_eq!("auto".parse::<Mode>(), Ok(Mode::Auto));
    }
}

#[cfg(test)]
mod settings_tests {
    use std::time::Duration;

    use super::super::config::*;

    #[test]
    fn settings_are_applied_by_key_once() {
        let builder = SearchConfig::builder();
        let config =
            builder.apply_settings([("playouts", "500"), ("c", "0.7"), ("reuse", "off"), ("time-ms", "20")]).unwrap();
        let config = config.build().unwrap();
        assert_eq!(config.playouts(), Some(500));
        assert_eq!(config.c(), Some(0.7));
        assert!(!config.reuse());
        assert_eq!(config.time(), Some(Duration::from_millis(20)));
        let repeated = SearchConfig::builder().apply_settings([("playouts", "10"), ("playouts", "20")]);
        assert_eq!(repeated.unwrap_err(), SettingError::Repeated("playouts"));
        let unknown = SearchConfig::builder().apply_settings([("speed", "9")]).unwrap_err();
        assert_eq!(unknown, SettingError::UnknownKey("speed".into()));
        let bad = SearchConfig::builder().apply_settings([("reuse", "maybe")]).unwrap_err().to_string();
        assert!(bad.contains("'maybe'") && bad.contains("on or off"), "{bad}");
        // Every key is unique, and every key's default text is shown.
        for (i, s) in SETTINGS.iter().enumerate() {
            assert!(SETTINGS[..i].iter().all(|t| t.key != s.key), "{} twice", s.key);
            assert!(!s.help.trim().is_empty() && !s.default.is_empty(), "{}", s.key);
        }
    }
}
