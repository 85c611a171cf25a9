//! Table 5's claim on how population sizes grow with ℓ (GM search's
//! populations against greedy search's are the generic `order_at_sizes`).

use super::Growth;
use crate::claims::judge::{self, Finding};
use crate::claims::{Ctx, Estimate, Outcome};
use crate::experiments::ecga::analysis::Analysis;
use crate::experiments::ecga::spec::power_fit_se;
use crate::fmt::fmt_mean;
use crate::library::ecga::Search;
use crate::stats::Summary;

/// The rule of the bisections a Table 5 claim judged, and what it left out.
pub(super) fn table5_rule(a: &Analysis) -> String {
    let rule = a.table5_rule.as_ref().map_or("no rule".into(), |r| r.describe());
    let left: Vec<String> = a.table5_left_out.iter().map(|(r, n)| format!("{n} under {}", r.describe())).collect();
    if left.is_empty() { format!("bisections with {rule}") } else { format!("bisections with {rule} (left out: {})", left.join(", ")) }
}

/// Table 5 (the harness's own check: the paper states no growth rate):
/// population sizes grow as a power of ℓ with an exponent in the claim's band
/// (the paper's own Table 5 fits 1.39 for both searches).
pub(super) fn population_growth(p: &Growth, a: &Analysis, _: &Ctx) -> Outcome {
    let outside: Vec<String> = a
        .table5
        .iter()
        .filter(|(k, _)| !p.range.contains(k.1 as f64))
        .map(|(k, v)| format!("{} search at ℓ = {}: {}", k.0, k.1, fmt_mean(v)))
        .collect();
    growth_in_range(p, a).with_beyond(outside.join("; "))
}

/// Each search's exponent fitted to its mean sizes over ℓ, with the standard
/// error of the fit ([`Estimate::fitted`], k − 2 degrees of freedom over k
/// sizes), against the band ([`judge::band`]); both searches must hold
/// ([`judge::all_of`]): an interval across an edge is inconclusive.
fn growth_in_range(p: &Growth, a: &Analysis) -> Outcome {
    let (mut parts, mut findings, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
    let in_range: Vec<usize> = a.table5.keys().map(|k| k.1).filter(|l| p.range.contains(*l as f64)).collect();
    if in_range.is_empty() {
        return Outcome::not_run(format!("no Table 5 bisections at ℓ = {} in these records", p.range));
    }
    for search in [Search::Greedy, Search::GreedyMating] {
        let runs: Vec<(usize, &Vec<f64>)> =
            a.table5.iter().filter(|(k, _)| k.0 == search.name() && p.range.contains(k.1 as f64)).map(|(k, v)| (k.1, v)).collect();
        let pts: Vec<(f64, f64)> =
            runs.iter().filter(|(_, v)| v.len() >= p.min_n).filter_map(|(l, v)| Some((*l as f64, Summary::of(v)?.mean))).collect();
        if pts.len() < p.min_sizes {
            let few: Vec<usize> = runs.iter().filter(|(_, v)| v.len() < p.min_n).map(|(_, v)| v.len()).collect();
            let what =
                format!("{} search: {} sizes with {} bisections or more, the fit needs {}", search.name(), pts.len(), p.min_n, p.min_sizes);
            return match few.iter().max() {
                Some(&n) => Outcome::too_few(n, p.min_n, what),
                None => Outcome::not_run(what),
            };
        }
        let (b, se) = power_fit_se(&pts).expect("three sizes or more");
        let exponent = Estimate::fitted(b, se, pts.len() - 2, pts.len());
        let f = judge::band(&exponent, &p.exponent);
        parts.push(format!("{}: n ∝ ℓ^b with b = {exponent} over ℓ = {}–{} — {}", search.name(), pts[0].0, pts[pts.len() - 1].0, f.word()));
        findings.push(f);
        sizes.push(pts.len());
    }
    let finding = match judge::all_of(&findings) {
        Finding::Undecided { n_needed, why } => Finding::undecided(n_needed, format!("{why}; n counts sizes ℓ")),
        f => f,
    };
    let evidence = format!("{}: {}; band {}", table5_rule(a), parts.join(", "), p.exponent);
    Outcome::decided(finding, sizes.into_iter().min().unwrap_or(0), evidence)
}
