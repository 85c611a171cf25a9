//! What the island paper's checks share: their parameters' validation, a band
//! on island counts and sizes, how a count and a share print, and a band on
//! several labelled estimates (Figures 5 and 7).

use crate::claims::judge;
use crate::claims::{Band, Estimate, Finding};
use crate::fmt::fmt_sig;

pub(super) type Invalid = Result<(), (String, String)>;

pub(super) fn ratio_band(band: &Band) -> Invalid {
    band.check_ratio("band")
}

pub(super) fn at_least(key: &str, value: usize, min: usize, why: &str) -> Invalid {
    if value < min { Err((key.into(), format!("{why}: at least {min}, not {value}"))) } else { Ok(()) }
}

pub(super) fn positive(key: &str, value: f64) -> Invalid {
    if value > 0.0 && value.is_finite() { Ok(()) } else { Err((key.into(), format!("must be positive, not {value}"))) }
}

pub(super) fn inside(b: &Band, x: usize) -> bool {
    b.contains(x as f64)
}

/// "1 island", "14 islands".
pub(super) fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// A share as a percentage with its interval: "2.56% [2.1%, 3.0%] (n = 3)".
pub(super) fn pct(share: &Estimate) -> String {
    if share.is_exact() || !share.low.is_finite() || !share.high.is_finite() {
        return format!("{}% (n = {}{})", fmt_sig(100.0 * share.value), share.n, if share.n < 2 { ", no interval" } else { "" });
    }
    format!("{}% [{}%, {}%] (n = {})", fmt_sig(100.0 * share.value), fmt_sig(100.0 * share.low), fmt_sig(100.0 * share.high), share.n)
}

/// A band on measured / paper for several labelled estimates: each one's finding and "label: estimate" line.
pub(super) fn each_in_band(points: &[(String, Estimate)], paper: f64, band: &Band) -> (Vec<Finding>, Vec<String>) {
    points
        .iter()
        .map(|(label, e)| {
            let f = judge::band(&e.scale(1.0 / paper), band);
            let line = format!("{label}: {e} ({})", f.word());
            (f, line)
        })
        .unzip()
}
