//! Time controls: the settings a controller sends (`time_settings`,
//! `kgs-time_settings`), each colour's [`Clock`] (`time_left`, and the engine's own
//! bookkeeping of the time it spends), and [`move_budget`], the pure function that gives
//! one move its time.
//!
//! # The budget
//! With `R` the time the clock has left before any byo-yomi, `M` the [`SAFETY_MARGIN`]
//! and `n` the moves the engine still expects to play (the game's estimate, at least
//! [`MIN_PLANNED_MOVES`]):
//!
//! * **main time**: `(R - M) · 2 / (n + 1)`. The remaining time is shared out over the
//!   remaining moves with weights falling linearly to the end (`n, n-1, …, 1`, which sum
//!   to `n (n + 1) / 2`): the first move of a 30-move plan gets twice the even share, and
//!   the budgets then fall linearly. Early moves decide more, late positions are
//!   smaller (fewer moves, shorter playouts, and in Othello the exact endgame solver
//!   takes over), so the search needs less time there for the same accuracy. The floor
//!   on `n` keeps the last moves from spending everything on a wrong estimate;
//! * **byo-yomi** (Canadian: `(T - M) / S` for `S` stones left in `T`; Japanese:
//!   `T - M` of a period of `T`, never spending a period): what each move may use
//!   without losing. In main time a move gets the larger of the main-time share and the
//!   byo-yomi budget, since overrunning the main time only starts the byo-yomi;
//! * at least [`MIN_BUDGET`]: a move must be played, even on a clock already spent.
//!
//! So a budget never exceeds the time left minus the margin (main time, plus what one
//! move may take of byo-yomi), unless that is below [`MIN_BUDGET`].

use std::time::Duration;

/// Time kept back on every move for what happens outside the search. Measured
/// (docs/RESULTS.md, "Time control"): a time-limited search stops within +0.8 ms of its
/// budget at the 99th percentile and +24 ms at worst over 2,400 moves (a worker
/// descheduled on a busy machine); a whole GTP turn seen from the controller (command,
/// tree reuse, search, response over a pipe) within +4.5 ms at the 90th percentile and
/// +13 ms at worst over 193 moves. The rest of the 100 ms is for the controller, a
/// network and a busier machine.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(100);

/// The least time a move gets, even on a spent clock.
pub const MIN_BUDGET: Duration = Duration::from_millis(1);

/// The fewest moves the main time is planned over (see the module docs).
pub const MIN_PLANNED_MOVES: u32 = 10;

/// What follows the main time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByoYomi {
    /// Nothing: absolute time (sudden death).
    None,
    /// Canadian: `time` for every `stones` moves.
    Canadian {
        /// The time of one period.
        time: Duration,
        /// The moves to play in it (at least 1).
        stones: u32,
    },
    /// Japanese: `periods` periods of `time`; a move played within its period keeps it,
    /// a move that overruns it uses it up.
    Japanese {
        /// The time of one period.
        time: Duration,
        /// The periods (at least 1).
        periods: u32,
    },
}

/// A game's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeSettings {
    /// No time limit: each move gets the command line's budget.
    #[default]
    Unlimited,
    /// Main time, then byo-yomi.
    Limited {
        /// The main time.
        main: Duration,
        /// What follows it.
        byo_yomi: ByoYomi,
    },
}

impl TimeSettings {
    /// GTP's `time_settings main_time byo_yomi_time byo_yomi_stones` (GTP 2 draft,
    /// section 4.2): stones 0 with a byo-yomi time means no limit, as do three zeros;
    /// stones 0 with no byo-yomi time is absolute time; otherwise Canadian byo-yomi.
    pub fn from_gtp(main: Duration, byo_time: Duration, byo_stones: u32) -> TimeSettings {
        match (main.is_zero(), byo_time.is_zero(), byo_stones) {
            (true, true, _) | (_, false, 0) => TimeSettings::Unlimited,
            (false, true, _) => TimeSettings::Limited { main, byo_yomi: ByoYomi::None },
            (_, false, stones) => {
                TimeSettings::Limited { main, byo_yomi: ByoYomi::Canadian { time: byo_time, stones } }
            }
        }
    }

    /// A clock at the start of a game under these settings.
    pub fn clock(&self) -> Clock {
        match *self {
            TimeSettings::Unlimited => Clock { main: Duration::ZERO, period: None },
            TimeSettings::Limited { main, byo_yomi } => {
                let period = if main.is_zero() { first_period(byo_yomi) } else { None };
                Clock { main, period }
            }
        }
    }
}

/// The byo-yomi as it starts: the first period.
fn first_period(byo_yomi: ByoYomi) -> Option<Period> {
    match byo_yomi {
        ByoYomi::None => None,
        ByoYomi::Canadian { time, stones } => Some(Period { time, count: stones.max(1) }),
        ByoYomi::Japanese { time, periods } => Some(Period { time, count: periods.max(1) }),
    }
}

/// The current byo-yomi period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The time left in it.
    pub time: Duration,
    /// Canadian: the stones still to play in it; Japanese: the periods left, this one
    /// included.
    pub count: u32,
}

/// One colour's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Main time left.
    pub main: Duration,
    /// In byo-yomi: the current period (the main time is then spent).
    pub period: Option<Period>,
}

impl Clock {
    /// GTP's `time_left colour time stones`: `stones` 0 is main time; otherwise byo-yomi
    /// with `time` left for `stones` stones (Canadian) or, under Japanese byo-yomi (the
    /// KGS convention), `time` left in the current period with `stones` periods left.
    pub fn set_left(&mut self, settings: &TimeSettings, time: Duration, stones: u32) {
        let byo_yomi = match settings {
            TimeSettings::Limited { byo_yomi, .. } => *byo_yomi,
            TimeSettings::Unlimited => ByoYomi::None,
        };
        *self = match (stones, byo_yomi) {
            (0, _) | (_, ByoYomi::None) => Clock { main: time, period: None },
            (count, _) => Clock { main: Duration::ZERO, period: Some(Period { time, count }) },
        };
    }

    /// Charges `elapsed` (one move) to the clock: main time first, then byo-yomi.
    pub fn spend(&mut self, settings: &TimeSettings, elapsed: Duration) {
        let TimeSettings::Limited { byo_yomi, .. } = *settings else { return };
        let mut over = elapsed;
        if self.period.is_none() {
            if over <= self.main {
                self.main -= over;
                return;
            }
            over -= self.main;
            self.main = Duration::ZERO;
            self.period = first_period(byo_yomi);
        }
        let Some(period) = self.period.as_mut() else { return };
        match byo_yomi {
            ByoYomi::None => {}
            ByoYomi::Canadian { time, stones } => {
                period.time = period.time.saturating_sub(over);
                period.count = period.count.saturating_sub(1);
                if period.count == 0 {
                    *period = Period { time, count: stones.max(1) };
                }
            }
            ByoYomi::Japanese { time, .. } => {
                // Each whole period overrun is used up; the move's own period restarts.
                let used = if time.is_zero() { 0 } else { (over.as_nanos() / time.as_nanos()) as u32 };
                period.count = period.count.saturating_sub(used).max(1);
                period.time = time;
            }
        }
    }
}

/// The time one move may take (see the module docs for the formula); `None` without a
/// time limit. `moves_left` is the game's estimate of the moves the player still has to
/// play; `margin` the time kept back ([`SAFETY_MARGIN`] in the engine).
pub fn move_budget(settings: &TimeSettings, clock: &Clock, moves_left: u32, margin: Duration) -> Option<Duration> {
    let TimeSettings::Limited { byo_yomi, .. } = *settings else { return None };
    let period = clock.period.or_else(|| first_period(byo_yomi));
    let byo_budget = match (byo_yomi, period) {
        (ByoYomi::Canadian { .. }, Some(p)) => p.time.saturating_sub(margin) / p.count.max(1),
        (ByoYomi::Japanese { .. }, Some(p)) => p.time.saturating_sub(margin),
        _ => Duration::ZERO,
    };
    let budget = if clock.period.is_some() {
        byo_budget
    } else {
        let planned = moves_left.max(MIN_PLANNED_MOVES);
        let share = clock.main.saturating_sub(margin).mul_f64(2.0 / (f64::from(planned) + 1.0));
        share.max(byo_budget)
    };
    Some(budget.max(MIN_BUDGET))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const S: Duration = Duration::from_secs(1);

    fn canadian(main: u32, time: u32, stones: u32) -> TimeSettings {
        TimeSettings::Limited { main: main * S, byo_yomi: ByoYomi::Canadian { time: time * S, stones } }
    }

    #[test]
    fn gtp_settings_follow_the_spec() {
        assert_eq!(TimeSettings::from_gtp(Duration::ZERO, Duration::ZERO, 0), TimeSettings::Unlimited);
        assert_eq!(TimeSettings::from_gtp(60 * S, 10 * S, 0), TimeSettings::Unlimited);
        assert_eq!(
            TimeSettings::from_gtp(60 * S, Duration::ZERO, 0),
            TimeSettings::Limited { main: 60 * S, byo_yomi: ByoYomi::None }
        );
        assert_eq!(TimeSettings::from_gtp(60 * S, 10 * S, 5), canadian(60, 10, 5));
        // No main time: the byo-yomi starts at once.
        assert_eq!(canadian(0, 10, 5).clock().period, Some(Period { time: 10 * S, count: 5 }));
    }

    #[test]
    fn unlimited_gives_no_budget() {
        let settings = TimeSettings::Unlimited;
        assert_eq!(move_budget(&settings, &settings.clock(), 30, SAFETY_MARGIN), None);
    }

    #[test]
    fn main_time_is_front_loaded() {
        let settings = TimeSettings::Limited { main: 300 * S, byo_yomi: ByoYomi::None };
        let mut clock = settings.clock();
        let mut budgets = Vec::new();
        for moves_left in (1..=30).rev() {
            let budget = move_budget(&settings, &clock, moves_left, SAFETY_MARGIN).unwrap();
            assert!(budget <= clock.main - SAFETY_MARGIN, "{budget:?} of {:?}", clock.main);
            budgets.push(budget);
            clock.spend(&settings, budget + SAFETY_MARGIN / 2);
        }
        // Twice the even share first, falling to the end, never over the clock.
        assert!(budgets[0] > 2 * 290 * S / 30 && budgets[0] < 2 * 300 * S / 30, "{:?}", budgets[0]);
        assert!(budgets.windows(2).all(|w| w[1] <= w[0]), "{budgets:?}");
        assert!(budgets[0] > 3 * budgets[25]);
        assert!(clock.main > Duration::ZERO);
    }

    #[test]
    fn a_spent_clock_still_moves() {
        let settings = TimeSettings::Limited { main: 50 * MS, byo_yomi: ByoYomi::None };
        assert_eq!(move_budget(&settings, &settings.clock(), 20, SAFETY_MARGIN), Some(MIN_BUDGET));
    }

    #[test]
    fn canadian_stones_are_counted() {
        let settings = canadian(0, 10, 5);
        let mut clock = settings.clock();
        // 10 s for 5 stones: (10 s - margin) / 5.
        assert_eq!(move_budget(&settings, &clock, 30, SAFETY_MARGIN), Some((10 * S - SAFETY_MARGIN) / 5));
        clock.spend(&settings, S);
        assert_eq!(clock.period, Some(Period { time: 9 * S, count: 4 }));
        assert_eq!(move_budget(&settings, &clock, 30, SAFETY_MARGIN), Some((9 * S - SAFETY_MARGIN) / 4));
        for _ in 0..4 {
            clock.spend(&settings, S);
        }
        // The period's stones played: a fresh period.
        assert_eq!(clock.period, Some(Period { time: 10 * S, count: 5 }));
        // The controller's word wins: 3 s left for 1 stone.
        clock.set_left(&settings, 3 * S, 1);
        assert_eq!(move_budget(&settings, &clock, 30, SAFETY_MARGIN), Some(3 * S - SAFETY_MARGIN));
    }

    #[test]
    fn main_time_running_out_falls_back_on_the_byo_yomi() {
        let settings = canadian(60, 30, 10);
        let mut clock = settings.clock();
        clock.set_left(&settings, S, 0);
        // 1 s of main time: the share is tiny, the byo-yomi gives (30 s - margin) / 10.
        assert_eq!(move_budget(&settings, &clock, 30, SAFETY_MARGIN), Some((30 * S - SAFETY_MARGIN) / 10));
        clock.spend(&settings, 2 * S);
        assert_eq!(clock.period, Some(Period { time: 29 * S, count: 9 }));
    }

    #[test]
    fn japanese_periods_are_respected() {
        let settings =
            TimeSettings::Limited { main: Duration::ZERO, byo_yomi: ByoYomi::Japanese { time: 5 * S, periods: 3 } };
        let mut clock = settings.clock();
        assert_eq!(move_budget(&settings, &clock, 30, SAFETY_MARGIN), Some(5 * S - SAFETY_MARGIN));
        // Within the period: it restarts, no period lost.
        clock.spend(&settings, 4 * S);
        assert_eq!(clock.period, Some(Period { time: 5 * S, count: 3 }));
        // Over one period: one is used up.
        clock.spend(&settings, 7 * S);
        assert_eq!(clock.period, Some(Period { time: 5 * S, count: 2 }));
        // The controller says 2 s are left in the last period: never more than that.
        clock.set_left(&settings, 2 * S, 1);
        assert_eq!(move_budget(&settings, &clock, 30, SAFETY_MARGIN), Some(2 * S - SAFETY_MARGIN));
    }

    /// Over a grid of clocks and phases: a budget never exceeds what the move may use
    /// without losing, minus the margin (or is the minimum).
    #[test]
    fn budgets_never_exceed_the_time_left_minus_the_margin() {
        let systems = [
            ByoYomi::None,
            ByoYomi::Canadian { time: 30 * S, stones: 10 },
            ByoYomi::Canadian { time: 50 * MS, stones: 1 },
            ByoYomi::Japanese { time: 10 * S, periods: 5 },
        ];
        for byo_yomi in systems {
            for main_ms in [0u32, 20, 100, 150, 1_000, 60_000, 3_600_000] {
                let settings = TimeSettings::Limited { main: main_ms * MS, byo_yomi };
                for in_byo_yomi in [false, true] {
                    let mut clock = settings.clock();
                    if in_byo_yomi {
                        clock.spend(&settings, clock.main + 40 * MS);
                    }
                    for moves_left in [0, 1, 5, 30, 200] {
                        let budget = move_budget(&settings, &clock, moves_left, SAFETY_MARGIN).unwrap();
                        let per_move_byo = match (byo_yomi, clock.period.or_else(|| first_period(byo_yomi))) {
                            (ByoYomi::Canadian { .. }, Some(p)) => p.time.saturating_sub(SAFETY_MARGIN) / p.count,
                            (ByoYomi::Japanese { .. }, Some(p)) => p.time.saturating_sub(SAFETY_MARGIN),
                            _ => Duration::ZERO,
                        };
                        let allowed = clock.main.saturating_sub(SAFETY_MARGIN).max(per_move_byo).max(MIN_BUDGET);
                        assert!(budget <= allowed, "{settings:?} {clock:?} {moves_left}: {budget:?} > {allowed:?}");
                    }
                }
            }
        }
    }
}
