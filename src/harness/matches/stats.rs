//! Match statistics: score with a 95 % confidence interval, the Elo difference with its
//! interval, and the sequential probability ratio test (SPRT) for early stopping.
//!
//! The score interval is Wilson's score interval with the trinomial (win/draw/loss)
//! variance in place of the binomial `p(1-p)`, so it stays honest at 0 % or 100 % (the
//! plain normal interval collapses to a point there); the Elo interval maps the score
//! bounds through `elo(s) = -400 log10(1/s - 1)`, with scores of 0 and 1 read as in
//! [`Tally::elo`] so every figure stays finite.
//! The SPRT uses the normal approximation of the log-likelihood ratio used by Fishtest
//! (GSPRT): `LLR = N (s1 - s0) (2 x̄ - s0 - s1) / (2 σ²)`.

/// Win/draw/loss counts from the first spec's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first player spec won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first player spec lost.
    pub losses: u64,
}

/// 1.96: the two-sided 95 % normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

impl Tally {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Mean score in [0, 1] (draw = 0.5); 0.5 before any game.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }

    /// Per-game variance of the score.
    fn variance(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.25;
        }
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2) + self.draws as f64 * (0.5 - s).powi(2) + self.losses as f64 * s * s) / n
    }

    /// 95 % confidence interval of the score (Wilson, trinomial variance), in [0, 1].
    pub fn score_ci95(&self) -> (f64, f64) {
        let n = self.games().max(1) as f64;
        let z2 = Z95 * Z95;
        let denominator = 1.0 + z2 / n;
        let centre = (self.score() + z2 / (2.0 * n)) / denominator;
        let half = Z95 / denominator * (self.variance() / n + z2 / (4.0 * n * n)).sqrt();
        ((centre - half).max(0.0), (centre + half).min(1.0))
    }

    /// Elo difference implied by the score, finite and never `-0.0`.
    ///
    /// A score of 0 or 1 would be infinite Elo, so scores are clamped to
    /// `[0.5 / (N + 1), 1 - 0.5 / (N + 1)]`: a perfect score reads as if one more game
    /// had been drawn, `(N + 0.5) / (N + 1)`. After one win that is 0.75 (+191 Elo),
    /// strictly above an even score, where the older bound `0.5 / N` pinned a 1-0 result
    /// to 0.5. Any other score of `N` games is at least `0.5 / N` from 0 and 1 (one draw),
    /// so the clamp touches only perfect scores (and interval bounds near 0 and 1).
    pub fn elo(&self) -> f64 {
        elo_of(self.clamp(self.score()))
    }

    /// 95 % confidence interval of the Elo difference (the score bounds mapped to Elo).
    pub fn elo_ci95(&self) -> (f64, f64) {
        let (lo, hi) = self.score_ci95();
        (elo_of(self.clamp(lo)), elo_of(self.clamp(hi)))
    }

    /// The score clamped as [`Tally::elo`] describes.
    fn clamp(&self, s: f64) -> f64 {
        let eps = 0.5 / (self.games() as f64 + 1.0);
        s.clamp(eps, 1.0 - eps)
    }
}

/// `-400 log10(1/s - 1)`: the Elo difference at which the expected score is `s`.
///
/// An even score gives `0.0`, not the `-0.0` of `-400 * 0.0`.
pub fn elo_of(score: f64) -> f64 {
    let elo = -400.0 * (1.0 / score - 1.0).log10();
    // `-0.0 == 0.0`, so this also turns a negative zero into a positive one.
    if elo == 0.0 {
        0.0
    } else {
        elo
    }
}

/// The expected score at Elo difference `elo`.
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// Keep playing.
    Continue,
    /// H1 accepted (the first spec is at least `elo1` stronger).
    AcceptH1,
    /// H0 accepted.
    AcceptH0,
}

/// An SPRT setting that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadSprt {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub why: String,
}

impl std::fmt::Display for BadSprt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (text, why) = (crate::games::one_line(&self.text), crate::games::one_line(&self.why));
        write!(f, "--sprt '{text}': {why}")
    }
}

impl std::error::Error for BadSprt {}

impl Sprt {
    /// Parses `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    ///
    /// # Errors
    /// [`BadSprt`] naming the text and what is wrong with it.
    pub fn parse(text: &str) -> Result<Sprt, BadSprt> {
        let bad = |why: String| BadSprt { text: text.to_string(), why };
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(bad("expected elo0,elo1 or elo0,elo1,alpha,beta".into()));
        }
        let num = |s: &str| s.trim().parse::<f64>().map_err(|_| bad(format!("bad number '{s}'")));
        let (elo0, elo1) = (num(parts[0])?, num(parts[1])?);
        let (alpha, beta) = if parts.len() == 4 { (num(parts[2])?, num(parts[3])?) } else { (0.05, 0.05) };
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(bad("need finite elo0 < elo1".into()));
        }
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err(bad("alpha and beta must lie in (0, 0.5)".into()));
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// The log-likelihood ratio of the games so far.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let n = tally.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        // Regularised: one pseudo-game of each result keeps the variance away from 0
        // (a run of draws would otherwise make the ratio explode after one game).
        let prior = Tally { wins: tally.wins + 1, draws: tally.draws + 1, losses: tally.losses + 1 };
        let variance = prior.variance();
        let (s0, s1) = (score_of(self.elo0), score_of(self.elo1));
        n * (s1 - s0) * (2.0 * tally.score() - s0 - s1) / (2.0 * variance)
    }

    /// The decision bounds `(lower, upper)` of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The verdict after these games.
    pub fn verdict(&self, tally: &Tally) -> SprtVerdict {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_match_is_zero_elo() {
        let t = Tally { wins: 40, draws: 20, losses: 40 };
        assert_eq!(t.score(), 0.5);
        assert!(t.elo().abs() < 1e-9);
        let (lo, hi) = t.elo_ci95();
        assert!(lo < 0.0 && hi > 0.0 && (lo + hi).abs() < 1e-6);
    }

    #[test]
    fn known_values() {
        // A 75 % score is +190.85 Elo.
        let t = Tally { wins: 75, draws: 0, losses: 25 };
        assert!((t.elo() - 190.848_501_887_865).abs() < 1e-6);
        // Wilson: centre (0.75 + z²/200) / (1 + z²/100), half-width
        // z / (1 + z²/100) * sqrt(0.1875/100 + z²/40000).
        let (lo, hi) = t.score_ci95();
        let z2 = Z95 * Z95;
        let half = Z95 / (1.0 + z2 / 100.0) * (0.1875f64 / 100.0 + z2 / 40000.0).sqrt();
        assert!((hi - lo - 2.0 * half).abs() < 1e-9);
        assert!(lo > 0.65 && hi < 0.83);
        assert!((score_of(elo_of(0.3)) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn perfect_scores_stay_finite() {
        let t = Tally { wins: 20, draws: 0, losses: 0 };
        assert!(t.elo().is_finite() && t.elo() > 300.0);
        let (lo, hi) = t.score_ci95();
        assert!(lo > 0.8 && lo < 0.9 && hi == 1.0, "a 20-0 score still has a real interval: {lo}..{hi}");
        assert!(t.elo_ci95().0.is_finite() && t.elo_ci95().0 < t.elo());
    }

    /// One game is enough for a sign: a 1-0 result is positive Elo with a real interval
    /// (the old clamp `0.5 / N` pinned it to an even score, `-0.0 [-0.0, -0.0]`).
    #[test]
    fn one_game_has_a_sign_and_an_interval() {
        let won = Tally { wins: 1, draws: 0, losses: 0 };
        assert!(won.elo() > 0.0 && won.elo().is_finite(), "{}", won.elo());
        assert!((won.elo() - elo_of(0.75)).abs() < 1e-9, "read as 1.5 of 2: {}", won.elo());
        let (lo, hi) = won.elo_ci95();
        assert!(lo.is_finite() && hi.is_finite() && lo < 0.0 && hi > 0.0 && lo < hi, "{lo}..{hi}");
        let lost = Tally { wins: 0, draws: 0, losses: 1 };
        assert!(lost.elo() < 0.0 && lost.elo().is_finite(), "{}", lost.elo());
        // The mirror image, up to rounding.
        let (lost_lo, lost_hi) = lost.elo_ci95();
        for (a, b) in [(lost.elo(), -won.elo()), (lost_lo, -hi), (lost_hi, -lo)] {
            assert!((a - b).abs() < 1e-9, "{a} against {b}");
        }
    }

    /// An even score is `0.0` with its sign bit clear, and no bound is ever `-0.0`.
    #[test]
    fn no_negative_zero() {
        for draws in [1, 2, 7, 100] {
            let t = Tally { wins: 0, draws, losses: 0 };
            assert_eq!(t.elo(), 0.0);
            assert!(t.elo().is_sign_positive(), "{draws} draws: {}", t.elo());
        }
        assert!(Tally::default().elo().is_sign_positive());
        assert!(Tally { wins: 3, draws: 4, losses: 3 }.elo().is_sign_positive());
        assert!(elo_of(0.5).is_sign_positive());
        for wins in 0..6 {
            for draws in 0..6 {
                for losses in 0..6 {
                    let t = Tally { wins, draws, losses };
                    let (elo_lo, elo_hi) = t.elo_ci95();
                    let (lo, hi) = t.score_ci95();
                    for x in [t.elo(), elo_lo, elo_hi, lo, hi] {
                        assert!(x.is_finite() && (x != 0.0 || x.is_sign_positive()), "{t:?}: {x}");
                    }
                    assert!(elo_lo <= t.elo() && t.elo() <= elo_hi, "{t:?}");
                }
            }
        }
    }

    #[test]
    fn sprt_decides() {
        let sprt = Sprt::parse("0,50").unwrap();
        assert_eq!(sprt.verdict(&Tally { wins: 5, draws: 0, losses: 5 }), SprtVerdict::Continue);
        assert_eq!(sprt.verdict(&Tally { wins: 0, draws: 1, losses: 0 }), SprtVerdict::Continue);
        assert_eq!(sprt.verdict(&Tally { wins: 300, draws: 0, losses: 100 }), SprtVerdict::AcceptH1);
        assert_eq!(sprt.verdict(&Tally { wins: 100, draws: 0, losses: 300 }), SprtVerdict::AcceptH0);
        assert!(Sprt::parse("50,0").is_err());
        assert!(Sprt::parse("0,50,0.7,0.05").is_err());
        assert!(Sprt::parse("x,5").is_err());
    }
}
