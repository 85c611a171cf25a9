//! Section V.A — network construction's time against ℓ and N, with the
//! fitted exponents beside the paper's complexity formulas.

use super::analysis::Analysis;
use super::cases::{GBOA, GBOA_PAPER, PBOA, PBOA_MT, SBOA};
use crate::experiments::Part;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use crate::stats;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
/// Points (x, time) per method, for one chart.
type Series<'a> = BTreeMap<&'a str, Vec<(f64, f64)>>;

pub(super) fn complexity(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<Part> {
    if a.complexity.is_empty() {
        return Ok(Part::NotRun("no complexity cases in this machine's profiles".into()));
    }
    let mut t =
        Table::new(&["axis", "value", "sBOA (ms)", "pBOA (ms)", "pBOA all cores (ms)", "gBOA kernel (ms)", "gboa-paper kernel (ms)"]);
    let mut charts: BTreeMap<String, Series> = BTreeMap::new();
    for ((axis, v), methods) in &a.complexity {
        let med = |method: &str| methods.get(method).map(|x| stats::median(x));
        let kernel = |method: &str| a.complexity_kernel.get(&(axis.clone(), *v)).and_then(|m| m.get(method)).map(|x| stats::median(x));
        t.row(vec![
            if axis == "ell" { "ℓ (N fixed)".into() } else { "N (ℓ fixed)".into() },
            v.to_string(),
            fmt::opt(med(SBOA), 1),
            fmt::opt(med(PBOA), 1),
            fmt::opt(med(PBOA_MT), 1),
            kernel(GBOA).map_or("—".into(), |v| format!("{v:.3}")),
            kernel(GBOA_PAPER).map_or("—".into(), |v| format!("{v:.3}")),
        ]);
        for (method, y) in [GBOA, GBOA_PAPER].map(|method| (method, kernel(method))) {
            if let Some(y) = y {
                charts.entry(axis.clone()).or_default().entry(method).or_default().push((*v as f64, y));
            }
        }
        for method in [SBOA, PBOA, PBOA_MT] {
            if let Some(y) = med(method) {
                charts.entry(axis.clone()).or_default().entry(method).or_default().push((*v as f64, y));
            }
        }
    }
    let mut md = t.render();
    let name = |axis: &str| if axis == "ell" { "ℓ" } else { "N" };
    let mut fits: Vec<String> = ["ell", "n"]
        .iter()
        .flat_map(|axis| [SBOA, PBOA].map(|method| (axis, method)))
        .filter_map(|(axis, method)| a.exponent(axis, method).map(|e| format!("{method} ∝ {}^{:.2} ({} points)", name(axis), e.value, e.n)))
        .collect();
    fits.extend(["ell", "n"].iter().flat_map(|axis| [GBOA, GBOA_PAPER].map(|method| (axis, method))).filter_map(|(axis, method)| {
        a.kernel_exponent(axis, method).map(|e| format!("{method} kernel ∝ {}^{:.2} ({} points)", name(axis), e.value, e.n))
    }));
    let _ = writeln!(
        md,
        "\nFitted exponents (least squares in log–log; sBOA and pBOA: the construction, gBOA: the network kernel's CUDA-event \
         time, set against its own formula of Section V.A under Claims): {}.\n",
        fits.join("; ")
    );
    for (axis, series) in charts {
        let (title, x_label) = if axis == "ell" {
            ("Network construction against ℓ", "problem size ℓ")
        } else {
            ("Network construction against N", "population N")
        };
        let chart = LineChart::new(title, (x_label, "time (ms; gBOA: kernel)"), series, m.label());
        let alt = format!("complexity against {axis}");
        let _ = writeln!(md, "{}\n", chart::figure(dir, &m.hw_id, &format!("complexity_{axis}"), &alt, &chart)?);
    }
    Ok(Part::Shown(md))
}
