//! Table I — whole-run times of every construction and the speedups of gBOA
//! over sBOA and pBOA, inside the range the claims judge and beyond it, with
//! the chart.

use super::analysis::{Analysis, Judged, Point};
use super::cases::{GBOA, GBOA_DEVICE, GBOA_PAPER, METHODS, PBOA, PBOA_MT, SBOA};
use crate::experiments::Part;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
/// Table I's points inside (`inside`) or outside the range judged: each method's
/// total, the speedups of gBOA (both kernels) over the CPU constructions for the
/// whole run and for network construction only, and sBOA / pBOA against the ratio
/// the paper's two speedups imply.
pub(super) fn table1(m: &MachineRecords, a: &Analysis, dir: &Path, range: &Judged, implied: f64, inside: bool) -> Result<Part> {
    let points: Vec<Point> = a.table1.keys().copied().filter(|at| range.contains(at) == inside).collect();
    if points.is_empty() {
        return Ok(Part::NotRun(
            if inside { "no Table I runs in the range judged" } else { "no Table I runs outside the range judged" }.into(),
        ));
    }
    let mut header = vec!["ℓ".to_owned()];
    header.extend(METHODS.iter().map(|method| format!("{method}: total (ms) / solved")));
    header.extend([
        format!("sBOA / pBOA (paper's implied {implied:.1}×)"),
        "pBOA / pBOA all cores".into(),
        "sBOA / gBOA: whole run, construction".into(),
        "pBOA / gBOA: whole run, construction".into(),
        "sBOA / gboa-paper: whole run, construction".into(),
        "pBOA / gboa-paper: whole run, construction".into(),
        "sBOA / gboa-device (goal ≥ 100×)".into(),
        "pBOA all cores / gboa-device (goal ≥ 10×)".into(),
    ]);
    let mut t = Table::new(&header);
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for &at in &points {
        let mut cells = vec![at.to_string()];
        for method in METHODS {
            cells.push(match (a.summary(at, method, |r| r.total), a.summary(at, method, |r| r.solved)) {
                (Some(t), Some(q)) => {
                    series.entry(format!("{method}, {} gen.", at.generations)).or_default().push((at.ell as f64, t.mean));
                    format!("{:.1} ± {:.1} (n = {}) / {:.0}%", t.mean, t.sd, t.n, 100.0 * q.mean)
                }
                _ => format!("not run here ({})", a.reason(method)),
            });
        }
        let total = |method: &str| a.mean(at, method, |r| r.total);
        let built = |method: &str| a.mean(at, method, |r| r.construction);
        let both =
            |base: &str, gpu: &str| format!("{}, {}", fmt::quotient(total(base), total(gpu), 2), fmt::quotient(built(base), built(gpu), 2));
        cells.push(fmt::quotient(total(SBOA), total(PBOA), 2));
        cells.push(fmt::quotient(total(PBOA), total(PBOA_MT), 2));
        cells.push(both(SBOA, GBOA));
        cells.push(both(PBOA, GBOA));
        cells.push(both(SBOA, GBOA_PAPER));
        cells.push(both(PBOA, GBOA_PAPER));
        cells.push(fmt::quotient(total(SBOA), total(GBOA_DEVICE), 2));
        cells.push(fmt::quotient(total(PBOA_MT), total(GBOA_DEVICE), 2));
        t.row(cells);
    }
    let name = if inside { "table1" } else { "table1_beyond" };
    let title = if inside { "Table I: total time per run" } else { "Table I beyond the paper: total time per run" };
    let chart = LineChart::new(title, ("problem size ℓ", "time (ms)"), series, m.label());
    Ok(format!("{}\n{}", t.render(), chart::figure(dir, &m.hw_id, name, "Table I", &chart)?).into())
}
