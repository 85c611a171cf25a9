//! A measured quantity with its 95% interval ([`Estimate`]), and how many runs
//! an interval would need to decide ([`Estimate::n_to_clear`]).
//!
//! Every number a verdict rests on is an estimate: a mean over runs (Student's
//! t), a ratio of two means (delta method on the log scale), a fitted exponent
//! (its standard error), or an exact value (counts, deterministic sizes: no
//! interval, and no number of runs would change it). A measured systematic
//! (e.g. the slowdown of builds run at once) widens an interval by
//! [`Estimate::with_systematic`].

use crate::stats::{Summary, t975};

/// Runs beyond which "the n needed" is not worth stating.
pub const MAX_N_NEEDED: usize = 100_000;

/// How an interval shrinks with more runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spread {
    /// No interval: more runs cannot move it (counts, deterministic values).
    Exact,
    /// Half-width `t975(n − 1) · s / √n` for a per-run spread `s` (means, ratios of means, fits): more runs narrow it.
    PerRun,
}

/// A value with its 95% interval `[low, high]` over `n` runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub n: usize,
    pub spread: Spread,
}

impl Estimate {
    /// A value without spread (a count, a deterministic size, the paper's own figure).
    pub fn exact(value: f64) -> Estimate {
        Estimate { value, low: value, high: value, n: 1, spread: Spread::Exact }
    }

    /// The mean of repeated runs with Student's 95% interval; None for no runs.
    /// One run gives an unbounded interval (its spread is unknown).
    pub fn mean_of(xs: &[f64]) -> Option<Estimate> {
        let s = Summary::of(xs)?;
        Some(Self::from_spread(s.mean, s.sd, s.n))
    }

    /// `value` with per-run spread `sd` over `n` runs (Student's t).
    pub fn from_spread(value: f64, sd: f64, n: usize) -> Estimate {
        let half = if n < 2 { f64::INFINITY } else { t975(n as f64 - 1.0) * sd / (n as f64).sqrt() };
        Estimate { value, low: value - half, high: value + half, n, spread: Spread::PerRun }
    }

    /// A fitted parameter with its standard error on `df` degrees of freedom,
    /// from `n` points (the interval `value ± t975(df)·se`).
    pub fn fitted(value: f64, se: f64, df: usize, n: usize) -> Estimate {
        let half = if df == 0 { f64::INFINITY } else { t975(df as f64) * se };
        Estimate { value, low: value - half, high: value + half, n, spread: Spread::PerRun }
    }

    /// The exponent b of a power law y ∝ x^b fitted to `(x, y)` points by least
    /// squares in log–log, with its 95% interval from the slope's standard error
    /// √(Σ residual² / (k − 2) / Σ (ln x − mean)²) on k − 2 degrees of freedom
    /// over the k points whose logarithms are finite (two points: no interval);
    /// None below two points or with every x equal.
    pub fn power_law(points: &[(f64, f64)]) -> Option<Estimate> {
        let (x, y): (Vec<f64>, Vec<f64>) =
            points.iter().map(|&(v, c)| (v.ln(), c.ln())).filter(|(x, y)| x.is_finite() && y.is_finite()).unzip();
        let (slope, intercept) = crate::stats::linear_fit(&x, &y)?;
        let k = x.len();
        if k < 3 {
            return Some(Estimate::fitted(slope, f64::INFINITY, 0, k));
        }
        let mx = x.iter().sum::<f64>() / k as f64;
        let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
        let sse: f64 = x.iter().zip(&y).map(|(a, b)| (b - intercept - slope * a).powi(2)).sum();
        Some(Estimate::fitted(slope, (sse / (k - 2) as f64 / sxx).sqrt(), k - 2, k))
    }

    /// mean(a) / mean(b) for positive samples, with the delta method's 95%
    /// interval on the log scale (Welch's degrees of freedom): the ratio of two
    /// methods' times, a speedup of means.
    pub fn ratio_of_means(a: &[f64], b: &[f64]) -> Option<Estimate> {
        let (sa, sb) = (Summary::of(a)?, Summary::of(b)?);
        if sa.mean <= 0.0 || sb.mean <= 0.0 {
            return None;
        }
        let value = sa.mean / sb.mean;
        let n = sa.n.min(sb.n);
        if sa.n < 2 || sb.n < 2 {
            return Some(Estimate::log_scale(value, f64::INFINITY, f64::INFINITY, n));
        }
        // Relative variances of each mean (the log scale's variances).
        let (va, vb) = ((sa.sd / sa.mean).powi(2) / sa.n as f64, (sb.sd / sb.mean).powi(2) / sb.n as f64);
        let se = (va + vb).sqrt();
        let df =
            if se == 0.0 { f64::INFINITY } else { (va + vb).powi(2) / (va * va / (sa.n as f64 - 1.0) + vb * vb / (sb.n as f64 - 1.0)) };
        let half = t975(df) * se;
        Some(Estimate::log_scale(value, half, half, n))
    }

    /// f(mean₁, …, meanₖ) of independent positive samples, with the delta
    /// method's 95% interval on the log scale (numeric partial derivatives of
    /// ln f, Welch–Satterthwaite degrees of freedom): a quantity computed from
    /// several means, such as Amdahl's gain from a phase's time, the run's and
    /// another method's phase. Samples taken from the same runs are treated as
    /// independent. None when a mean or f is not positive; a sample of one run
    /// gives no interval.
    pub fn of_means(samples: &[&[f64]], f: impl Fn(&[f64]) -> f64) -> Option<Estimate> {
        let s: Vec<Summary> = samples.iter().map(|x| Summary::of(x)).collect::<Option<_>>()?;
        let means: Vec<f64> = s.iter().map(|x| x.mean).collect();
        let value = f(&means);
        if means.iter().any(|m| *m <= 0.0) || !(value > 0.0 && value.is_finite()) {
            return None;
        }
        let n = s.iter().map(|x| x.n).min()?;
        if n < 2 {
            return Some(Estimate::log_scale(value, f64::INFINITY, f64::INFINITY, n));
        }
        // Each mean's share of the variance of ln f: (∂ ln f / ∂ mean)² · sd² / n.
        let parts: Vec<(f64, usize)> = s
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let h = 1e-6 * x.mean;
                let at = |d: f64| {
                    let mut m = means.clone();
                    m[i] += d;
                    f(&m).ln()
                };
                let slope = (at(h) - at(-h)) / (2.0 * h);
                (slope * slope * x.sd * x.sd / x.n as f64, x.n)
            })
            .collect();
        let var: f64 = parts.iter().map(|p| p.0).sum();
        let df = if var == 0.0 { f64::INFINITY } else { var * var / parts.iter().map(|(v, n)| v * v / (*n as f64 - 1.0)).sum::<f64>() };
        let half = t975(df) * var.sqrt();
        Some(Estimate::log_scale(value, half, half, n))
    }

    /// `value` over `n` runs with log-scale half-widths `below` and `above`: the
    /// interval `[value·e^−below, value·e^above]` (an infinite half-width: 0 or ∞).
    fn log_scale(value: f64, below: f64, above: f64, n: usize) -> Estimate {
        Estimate { value, low: value * (-below).exp(), high: value * above.exp(), n, spread: Spread::PerRun }
    }

    /// Log-scale half-widths below and above the value (0 for an exact value).
    fn log_halves(&self) -> (f64, f64) {
        if self.is_exact() {
            return (0.0, 0.0);
        }
        let below = if self.low > 0.0 { (self.value / self.low).ln() } else { f64::INFINITY };
        (below, (self.high / self.value).ln())
    }

    /// The quotient of independent positive estimates, their log-scale
    /// half-widths added in quadrature (the delta method); by an exact one, a
    /// change of units ([`Estimate::scale`]).
    pub fn over(self, other: Estimate) -> Estimate {
        if other.is_exact() {
            return self.scale(1.0 / other.value);
        }
        let value = self.value / other.value;
        let ((ab, aa), (bb, ba)) = (self.log_halves(), other.log_halves());
        let (below, above) = (ab.hypot(ba), aa.hypot(bb));
        let n = if self.is_exact() { other.n } else { self.n.min(other.n) };
        Estimate::log_scale(value, below, above, n)
    }

    /// The product of independent positive estimates ([`Estimate::over`] by the
    /// inverse); by an exact one, a change of units.
    pub fn times(self, other: Estimate) -> Estimate {
        if other.is_exact() { self.scale(other.value) } else { self.over(other.powf(-1.0)) }
    }

    /// A positive estimate to the power `p`: its log-scale half-widths times |p|
    /// (exchanged for a negative power).
    pub fn powf(self, p: f64) -> Estimate {
        let value = self.value.powf(p);
        if self.is_exact() {
            return Estimate::exact(value);
        }
        let (below, above) = self.log_halves();
        let (below, above) = if p < 0.0 { (above * -p, below * -p) } else { (below * p, above * p) };
        Estimate::log_scale(value, below, above, self.n)
    }

    /// The same estimate in other units (a positive factor keeps its order).
    pub fn scale(self, k: f64) -> Estimate {
        let (a, b) = (self.low * k, self.high * k);
        Estimate { value: self.value * k, low: a.min(b), high: a.max(b), ..self }
    }

    /// Widened by a measured systematic of ± `fraction` of the value (e.g. 0.143
    /// for builds 14.3% slower when run 8 at once), added to the interval's ends.
    pub fn with_systematic(self, fraction: f64) -> Estimate {
        let d = (self.value * fraction).abs();
        Estimate { low: self.low - d, high: self.high + d, ..self }
    }

    pub fn is_exact(&self) -> bool {
        matches!(self.spread, Spread::Exact)
    }

    /// Half-width on the side toward `x` (the interval may be asymmetric).
    fn half_toward(&self, x: f64) -> f64 {
        if x >= self.value { self.high - self.value } else { self.value - self.low }
    }

    /// The fewest runs at which the interval, with the spread observed, would lie
    /// wholly on one side of `edge`: None where no number of runs decides (an
    /// exact value, a value on the edge, an unknown spread, or more than
    /// [`MAX_N_NEEDED`]).
    pub fn n_to_clear(&self, edge: f64) -> Option<usize> {
        let distance = (self.value - edge).abs();
        if self.is_exact() {
            return None;
        }
        if distance == 0.0 || self.n < 2 {
            return None;
        }
        let half = self.half_toward(edge);
        if !half.is_finite() || half <= 0.0 {
            return None;
        }
        // Per-run spread in the units of the side toward the edge: half = t(n−1)·s/√n.
        let s = half * (self.n as f64).sqrt() / t975(self.n as f64 - 1.0);
        let mut n = self.n + 1;
        while n <= MAX_N_NEEDED {
            if t975(n as f64 - 1.0) * s / (n as f64).sqrt() < distance {
                return Some(n);
            }
            // Grow geometrically far from the answer, one at a time near it.
            let guess = ((1.96 * s / distance).powi(2)).ceil() as usize;
            n = if guess > n + 8 { guess.min(MAX_N_NEEDED + 1) } else { n + 1 };
        }
        None
    }
}

impl std::fmt::Display for Estimate {
    /// "12.1 [11.7, 12.5] (n = 5)"; an exact value alone.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::fmt::fmt_sig;
        if self.is_exact() {
            return write!(f, "{}", fmt_sig(self.value));
        }
        if !self.low.is_finite() || !self.high.is_finite() {
            return write!(f, "{} (n = {}, no interval)", fmt_sig(self.value), self.n);
        }
        write!(f, "{} [{}, {}] (n = {})", fmt_sig(self.value), fmt_sig(self.low), fmt_sig(self.high), self.n)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_power_law_carries_the_slopes_standard_error() {
        // y = x² exactly: no residual, a zero-width interval.
        let exact = Estimate::power_law(&[(1.0, 1.0), (2.0, 4.0), (4.0, 16.0), (8.0, 64.0)]).unwrap();
        assert!((exact.value - 2.0).abs() < 1e-12 && (exact.high - exact.low).abs() < 1e-9, "{exact}");
        // ln y = 0, 1, 0 at ln x = 0, 1, 2: slope 0, residuals ±1/3·(1, −2, 1), se = √((2/3)/1/2) = 0.577.
        let e = std::f64::consts::E;
        let bent = Estimate::power_law(&[(1.0, 1.0), (e, e), (e * e, 1.0)]).unwrap();
        assert!(bent.value.abs() < 1e-12, "{bent}");
        assert!((bent.high - bent.value - t975(1.0) * (1.0f64 / 3.0).sqrt()).abs() < 1e-9, "{bent}");
        assert_eq!(bent.n, 3);
        // ln y off the line 1.4·ln x by 0.1, −0.2, 0.1 at ln x = 1, 2, 4: least squares by hand.
        let noisy = [(1.0f64, 0.1f64), (2.0, -0.2), (4.0, 0.1)].map(|(x, e)| (x.exp(), (1.4 * x + e).exp()));
        let fit = Estimate::power_law(&noisy).unwrap();
        assert!((fit.value - 1.421_428_571).abs() < 1e-6 && ((fit.high - fit.value) / t975(1.0) - 0.111_346_123).abs() < 1e-6, "{fit}");
        // Two points: no freedom left, no interval; one point or a zero: no fit.
        assert!(Estimate::power_law(&[(1.0, 1.0), (2.0, 2.0)]).unwrap().high.is_infinite());
        assert_eq!(Estimate::power_law(&[(1.0, 1.0), (2.0, 0.0)]), None);
    }

    use super::*;

    #[test]
    fn a_mean_has_students_interval() {
        let e = Estimate::mean_of(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(e.value, 2.0);
        assert!((e.high - 2.0 - t975(2.0) / 3f64.sqrt()).abs() < 1e-9, "{e}");
        assert_eq!(e.n, 3);
        let one = Estimate::mean_of(&[5.0]).unwrap();
        assert!(one.high.is_infinite() && one.low.is_infinite());
        assert!(Estimate::mean_of(&[]).is_none());
        assert_eq!(Estimate::exact(4.0).to_string(), "4.00");
    }

    #[test]
    fn a_ratio_of_means_is_centred_on_the_log_scale() {
        let e = Estimate::ratio_of_means(&[10.0, 11.0, 9.0, 10.0], &[5.0, 5.0, 5.0, 5.0]).unwrap();
        assert!((e.value - 2.0).abs() < 1e-12);
        assert!(e.low < 2.0 && e.high > 2.0);
        assert!(((e.high / e.value).ln() - (e.value / e.low).ln()).abs() < 1e-12, "symmetric on the log scale");
        let exact = Estimate::ratio_of_means(&[4.0, 4.0], &[2.0, 2.0]).unwrap();
        assert_eq!((exact.low, exact.high), (2.0, 2.0));
        assert!(Estimate::ratio_of_means(&[1.0], &[0.0]).is_none());
    }

    #[test]
    fn a_function_of_means_carries_their_intervals() {
        let (a, b) = ([10.0, 11.0, 9.0, 10.0], [5.0, 5.5, 4.5, 5.2]);
        // m₀ / m₁ is the ratio of means, interval and all.
        let f = Estimate::of_means(&[&a, &b], |m| m[0] / m[1]).unwrap();
        let r = Estimate::ratio_of_means(&a, &b).unwrap();
        assert!((f.value - r.value).abs() < 1e-12 && (f.low - r.low).abs() < 1e-6 && (f.high - r.high).abs() < 1e-6, "{f} {r}");
        // A sample without spread adds nothing; a function of it alone is exact in width.
        let flat = Estimate::of_means(&[&[4.0, 4.0, 4.0]], |m| m[0] * 2.0).unwrap();
        assert_eq!((flat.low, flat.value, flat.high), (8.0, 8.0, 8.0));
        assert!(Estimate::of_means(&[&a, &[1.0, -3.0]], |m| m[0] / m[1]).is_none());
        assert!(Estimate::of_means(&[&a, &[2.0]], |m| m[0] / m[1]).unwrap().high.is_infinite());
    }

    #[test]
    fn quotients_add_log_widths_in_quadrature_and_an_exact_one_rescales() {
        let a = Estimate::ratio_of_means(&[10.0, 11.0, 9.0, 10.0], &[5.0, 5.0, 5.0, 5.0]).unwrap();
        assert_eq!(a.over(Estimate::exact(4.0)), a.scale(0.25));
        let q = a.over(a);
        let w = (a.high / a.value).ln();
        assert!((q.value - 1.0).abs() < 1e-12 && ((q.high / q.value).ln() - w * 2f64.sqrt()).abs() < 1e-9, "{q}");
        let t = a.times(a);
        assert!((t.value - 4.0).abs() < 1e-12 && ((t.high / t.value).ln() - w * 2f64.sqrt()).abs() < 1e-9, "{t}");
        let inv = a.powf(-1.0);
        assert!((inv.value - 0.5).abs() < 1e-12 && (inv.high - 1.0 / a.low).abs() < 1e-9 && (inv.low - 1.0 / a.high).abs() < 1e-9);
        assert_eq!(Estimate::exact(3.0).powf(2.0), Estimate::exact(9.0));
    }

    #[test]
    fn the_runs_needed_shrink_the_interval_past_the_edge() {
        // mean 10, sd 1 over 3 runs: half-width 2.48; the edge at 11 needs the half-width below 1.
        let e = Estimate::mean_of(&[9.0, 10.0, 11.0]).unwrap();
        let n = e.n_to_clear(11.0).unwrap();
        assert!(t975(n as f64 - 1.0) / (n as f64).sqrt() < 1.0, "n = {n}");
        assert!(t975(n as f64 - 2.0) / ((n - 1) as f64).sqrt() >= 1.0, "n = {n} is the fewest");
        assert_eq!(n, 7);
        // On the edge, exact, or one run: no n decides.
        assert_eq!(e.n_to_clear(10.0), None);
        assert_eq!(Estimate::exact(3.0).n_to_clear(4.0), None);
        assert_eq!(Estimate::mean_of(&[3.0]).unwrap().n_to_clear(4.0), None);
        // Far too close: beyond reach.
        let wide = Estimate::mean_of(&[0.0, 100.0]).unwrap();
        assert_eq!(wide.n_to_clear(50.0 + 1e-6), None);
    }

    #[test]
    fn a_systematic_widens_and_a_scale_keeps_order() {
        let e = Estimate::mean_of(&[9.0, 11.0]).unwrap().with_systematic(0.1);
        assert!((e.high - (10.0 + t975(1.0) * 2f64.sqrt() / 2f64.sqrt() + 1.0)).abs() < 1e-9, "{e}");
        let s = Estimate::mean_of(&[1.0, 3.0]).unwrap().scale(-2.0);
        assert!(s.low < s.high && s.value == -4.0);
    }
}
