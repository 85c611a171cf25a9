//! The rule every paper's checks share.
//!
//! - **Quantitative claims** ([`ratio`]): the measured value over the paper's must
//!   lie in the claim's [`Band`] (from the spec, e.g. `band = [0.5, 2.0]`). Outside
//!   it, the verdict is "differs on this hardware" only when the claim's hardware
//!   [`Model`] predicts the measured ratio within [`super::hardware::WITHIN`];
//!   otherwise "not reproduced". A value far above the paper's is reported with
//!   its ratio, never merged into "reproduced".
//! - **Comparisons** ([`compare`]): two methods or sizes differ only when the 95%
//!   interval of the difference of their means (Welch) excludes zero; otherwise
//!   they tie, and the evidence says so with n.
//! - **Minimum runs** ([`enough`]): below the spec's `min_n` a check returns
//!   "too few runs" instead of deciding.

use super::{Ctx, Model, Outcome, Verdict};
use crate::spec::Pair;
use crate::stats::{self, Summary};
use serde::Deserialize;

/// A closed interval `[low, high]`, read from a two-element array: a claim's band
/// on measured / paper, or the paper's range of sizes a claim applies to.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Pair<f64>")]
pub struct Band {
    pub low: f64,
    pub high: f64,
}

/// Through [`Pair`], not a `[f64; 2]`: toml reads a longer array into a pair by
/// dropping the rest, and a band of three values is a mistake to name.
impl TryFrom<Pair<f64>> for Band {
    type Error = String;
    fn try_from(Pair([low, high]): Pair<f64>) -> Result<Band, String> {
        if low.is_finite() && high.is_finite() && low <= high {
            Ok(Band { low, high })
        } else {
            Err(format!("[{low}, {high}] is not an interval (low ≤ high, both finite)"))
        }
    }
}

impl Band {
    pub fn contains(&self, x: f64) -> bool {
        (self.low..=self.high).contains(&x)
    }

    /// A band of ratios must be positive to be read as "× the paper".
    pub fn check_ratio(&self, key: &str) -> Result<(), (String, String)> {
        if self.low > 0.0 {
            Ok(())
        } else {
            Err((key.into(), format!("a band of ratios must be above 0, not [{}, {}]", self.low, self.high)))
        }
    }
}

impl std::fmt::Display for Band {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}–{}", fmt_num(self.low), fmt_num(self.high))
    }
}

/// A number with as many digits as it needs (up to 3 decimals).
pub fn fmt_num(x: f64) -> String {
    if x == x.round() && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A ratio as "12.3×" with a sensible number of digits.
pub fn fmt_ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else if r >= 10.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}×")
    }
}

/// `Err(too few runs)` when `n < min_n`.
pub fn enough(n: usize, min_n: usize, what: &str) -> Result<(), Outcome> {
    if n < min_n { Err(Outcome::too_few(n, min_n, format!("{what}: n = {n}"))) } else { Ok(()) }
}

/// Judges a measured value against the paper's (quantitative claims).
///
/// `what` names the quantity in the evidence; `model`, when the claim has one,
/// may explain a ratio outside the band by this machine's hardware.
pub fn ratio(what: &str, measured: f64, paper: f64, band: &Band, model: Option<&Model>, ctx: &Ctx) -> Outcome {
    let r = measured / paper;
    if !r.is_finite() || paper <= 0.0 {
        return Outcome::new(
            Verdict::NotReproduced,
            format!("{what}: measured {} against the paper's {}", fmt_num(measured), fmt_num(paper)),
        );
    }
    let mut evidence = format!(
        "{what}: measured {} against the paper's {} — {} the paper's (band {band}×)",
        fmt_num(measured),
        fmt_num(paper),
        fmt_ratio(r)
    );
    if band.contains(r) {
        return Outcome::new(Verdict::Reproduced, evidence).with_ratio(r);
    }
    evidence += if r > band.high { "; above the band" } else { "; below the band" };
    let verdict = match model.map(|m| m.explain(r, ctx.machine, ctx.paper)) {
        Some(Ok(e)) => Verdict::Differs(e),
        Some(Err(why)) => {
            evidence += &format!("; {why}");
            Verdict::NotReproduced
        }
        None => Verdict::NotReproduced,
    };
    Outcome::new(verdict, evidence).with_ratio(r)
}

/// How two samples compare, by the 95% interval of their difference of means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Less,
    Tie,
    Greater,
}

/// `a` against `b`: Less / Greater when the 95% interval of mean(a) − mean(b)
/// excludes 0, else Tie; None when either sample has fewer than two values
/// (unless both are exact: n ≥ 1 each and no spread is possible, see
/// [`compare_exact`]).
pub fn compare(a: &[f64], b: &[f64]) -> Option<Comparison> {
    let (d, h) = stats::welch(a, b)?;
    Some(if d - h > 0.0 {
        Comparison::Greater
    } else if d + h < 0.0 {
        Comparison::Less
    } else {
        Comparison::Tie
    })
}

/// For values without run-to-run spread (counts, deterministic sizes): plain order.
pub fn compare_exact(a: f64, b: f64) -> Comparison {
    if a > b {
        Comparison::Greater
    } else if a < b {
        Comparison::Less
    } else {
        Comparison::Tie
    }
}

/// "12.1 ± 0.4 (95% CI, n = 5)".
pub fn fmt_mean(xs: &[f64]) -> String {
    match Summary::of(xs) {
        Some(s) if s.n > 1 => format!("{} ± {} (95% CI, n = {})", fmt_sig(s.mean), fmt_sig(s.ci95()), s.n),
        Some(s) => format!("{} (n = 1)", fmt_sig(s.mean)),
        None => "—".into(),
    }
}

/// Three significant digits.
pub fn fmt_sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::claims::VerdictKind;

    #[test]
    fn bands_parse_from_pairs_and_refuse_reversed_ones() {
        let b: Band = toml::Value::Array(vec![0.5.into(), 2.0.into()]).try_into().unwrap();
        assert_eq!(b, Band { low: 0.5, high: 2.0 });
        assert!(toml::Value::Array(vec![2.0.into(), 0.5.into()]).try_into::<Band>().is_err());
        // toml's text deserializer (claims' params) read [a, b, c] as [a, b]; a band needs exactly two values.
        let three = toml::de::ValueDeserializer::parse("[0.5, 2.0, 0]").unwrap();
        assert!(Band::deserialize(three).unwrap_err().message().contains("3 values"));
        assert!(b.contains(1.0) && !b.contains(2.5));
        assert!(Band { low: 0.0, high: 1.0 }.check_ratio("band").is_err());
        assert_eq!(b.to_string(), "0.5–2");
    }

    #[test]
    fn a_ratio_is_reproduced_inside_the_band_only() {
        let (m, hw) = (testing::machine(&[("gpu_d2d", 3000.0)]), testing::paper_hardware());
        let ctx = Ctx { machine: &m, paper: &hw };
        let band = Band { low: 0.5, high: 2.0 };
        let o = ratio("speedup", 60.0, 52.4, &band, None, &ctx);
        assert_eq!(o.verdict, Verdict::Reproduced);
        assert!((o.ratio.unwrap() - 60.0 / 52.4).abs() < 1e-12);
        // 22× the paper is not "reproduced", with or without a model that fails to predict it.
        let o = ratio("speedup", 1161.0, 52.4, &band, None, &ctx);
        assert_eq!(o.verdict, Verdict::NotReproduced);
        assert!(o.evidence.contains("22.2× the paper's") && o.evidence.contains("above the band"), "{}", o.evidence);
        let model = testing::model(&[("gpu_bandwidth", 1.0)]);
        // The bandwidth ratio here is 3000 / 100 = 30×: it explains 22× (within 2×)…
        assert_eq!(ratio("speedup", 1161.0, 52.4, &band, Some(&model), &ctx).verdict.kind(), VerdictKind::Differs);
        // … but not 200×, nor a slowdown.
        let o = ratio("speedup", 52.4 * 200.0, 52.4, &band, Some(&model), &ctx);
        assert_eq!(o.verdict, Verdict::NotReproduced);
        assert!(o.evidence.contains("predicts 30.0×"), "{}", o.evidence);
        assert_eq!(ratio("speedup", 10.0, 52.4, &band, Some(&model), &ctx).verdict, Verdict::NotReproduced);
        assert_eq!(ratio("x", 1.0, 0.0, &band, None, &ctx).verdict, Verdict::NotReproduced);
    }

    #[test]
    fn comparisons_tie_inside_the_spread() {
        assert_eq!(compare(&[10.0, 10.1, 9.9], &[5.0, 5.1, 4.9]), Some(Comparison::Greater));
        assert_eq!(compare(&[5.0, 5.1, 4.9], &[10.0, 10.1, 9.9]), Some(Comparison::Less));
        assert_eq!(compare(&[10.0, 10.1, 9.9], &[10.05, 9.95, 10.0]), Some(Comparison::Tie));
        assert_eq!(compare(&[10.0], &[5.0, 5.1]), None);
        assert_eq!(compare_exact(2.0, 2.0), Comparison::Tie);
        assert_eq!(enough(2, 10, "runs").unwrap_err().verdict, Verdict::TooFewRuns { n: 2, needs: 10 });
        assert!(enough(10, 10, "runs").is_ok());
    }

    #[test]
    fn numbers_format_compactly() {
        assert_eq!(fmt_num(2.0), "2");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_ratio(1161.0), "1161×");
        assert_eq!(fmt_sig(0.012345), "0.0123");
        assert_eq!(fmt_sig(1234.4), "1234");
        assert_eq!(fmt_mean(&[1.0, 2.0, 3.0]), "2.00 ± 2.48 (95% CI, n = 3)");
    }
}
