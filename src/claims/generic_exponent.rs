//! `exponent`: each of some series, by size, grows as a power of the size with
//! an exponent inside its band (a complexity, a population-sizing law).

use super::{BySize, Series, one};
use crate::claims::judge::{self, Band, Finding};
use crate::claims::{Ctx, Estimate, Outcome, Params};
use crate::fmt::fmt_mean;
use crate::stats::{self, Summary};
use serde::Deserialize;

/// One fit: a series by size and the band its exponent must lie in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fit {
    pub series: String,
    pub band: Band,
}

/// How each size's runs make the point fitted.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Center {
    #[default]
    Mean,
    Median,
}

/// `exponent`: the fits, the paper's sizes, the runs a size and the sizes a fit need.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExponentParams {
    pub fits: Vec<Fit>,
    /// What the samples are, where none are found: "Table 5 bisections".
    pub of: String,
    /// The paper's range of sizes; the others go beyond the paper. Absent: every size.
    #[serde(default)]
    pub sizes: Option<Band>,
    /// Runs a size needs to enter a fit.
    #[serde(default = "one")]
    pub min_n: usize,
    /// Sizes each fit needs: at least 3, so that a fit can fail.
    pub min_sizes: usize,
    #[serde(default)]
    pub center: Center,
}

impl Params for ExponentParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        self.fits.iter().map(|f| ("fits.series", f.series.as_str())).collect()
    }

    fn validate(&self) -> Result<(), (String, String)> {
        if self.fits.is_empty() {
            return Err(("fits".into(), "name at least one series to fit".into()));
        }
        if self.min_sizes < 3 {
            return Err(("min_sizes".into(), format!("a fit that can fail needs at least 3 sizes, not {}", self.min_sizes)));
        }
        if self.min_n == 0 { Err(("min_n".into(), "a size needs at least 1 run".into())) } else { Ok(()) }
    }
}

/// Each series' exponent, fitted in log–log to the mean (or median) of its
/// runs at each of the paper's sizes with `min_n` runs or more, with the 95%
/// interval of the fit ([`Estimate::power_law`]), against its band
/// ([`judge::band`]: across an edge, inconclusive; n counts sizes); every fit
/// must hold ([`judge::all_of`]). A fit short of sizes is inconclusive: for
/// want of runs where some size has too few, else of sizes.
pub(super) fn exponent<A: Series>(p: &ExponentParams, a: &A, _: &Ctx) -> Outcome {
    let (mut parts, mut findings, mut sizes, mut beyond) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut symbols: Vec<&str> = Vec::new();
    for fit in &p.fits {
        let s: BySize = a.by_size(&fit.series).unwrap_or_default();
        let (inside, outside): (Vec<_>, Vec<_>) = s.at.iter().partition(|(x, _)| p.sizes.is_none_or(|r| r.contains(**x as f64)));
        if let (Some(range), false) = (p.sizes, outside.is_empty()) {
            let each: Vec<String> = outside.iter().map(|(x, v)| format!("{x}: {}", fmt_mean(v))).collect();
            beyond.push(format!("{} outside {} = {range}: {}", fit.series, s.symbol, each.join(", ")));
        }
        beyond.extend(a.beyond(&fit.series));
        if inside.is_empty() {
            let range = p.sizes.map_or(String::new(), |r| format!(" at {} = {r}", s.symbol));
            let why = a.absent(&fit.series).unwrap_or_else(|| format!("no {}{range} in these records", p.of));
            return Outcome::not_run(why).with_beyond(beyond.join("; "));
        }
        let center = |v: &[f64]| match p.center {
            Center::Mean => Summary::of(v).map(|s| s.mean),
            Center::Median => Some(stats::median(v)),
        };
        let points: Vec<(f64, f64)> =
            inside.iter().filter(|(_, v)| v.len() >= p.min_n).filter_map(|(x, v)| Some((**x as f64, center(v)?))).collect();
        if points.len() < p.min_sizes {
            let what = format!("{}: {} sizes with {} runs or more, the fit needs {}", fit.series, points.len(), p.min_n, p.min_sizes);
            let few = inside.iter().map(|(_, v)| v.len()).filter(|&n| n < p.min_n).max();
            return match few {
                Some(n) => Outcome::too_few(n, p.min_n, what),
                None => Outcome::too_few(points.len(), p.min_sizes, format!("{what}; n counts sizes")),
            }
            .with_beyond(beyond.join("; "));
        }
        let Some(e) = Estimate::power_law(&points) else {
            return Outcome::not_run(format!("{}: its sizes could not be fitted", fit.series));
        };
        let f = judge::band(&e, &fit.band);
        let (lo, hi) = (points[0].0, points[points.len() - 1].0);
        parts.push(format!("{} ∝ {sym}^e, e = {e} over {sym} = {lo}–{hi}, band {} — {}", fit.series, fit.band, f.word(), sym = s.symbol));
        findings.push(f);
        sizes.push(points.len());
        symbols.push(s.symbol);
    }
    let symbol = if symbols.windows(2).all(|w| w[0] == w[1]) { format!(" {}", symbols[0]) } else { String::new() };
    let finding = match judge::all_of(&findings) {
        Finding::Undecided { n_needed, why } => Finding::undecided(n_needed, format!("{why}; n counts sizes{symbol}")),
        f => f,
    };
    let center = match p.center {
        Center::Mean => "mean",
        Center::Median => "median",
    };
    let how = a.measured_as(&p.fits[0].series).map_or(String::new(), |h| format!("{h}; "));
    let evidence = format!("{how}fitted to the {center} of each size's runs: {}", parts.join("; "));
    Outcome::decided(finding, sizes.into_iter().min().unwrap_or(0), evidence).with_beyond(beyond.join("; "))
}
