//! Beyond the paper (its Section 6 asks when the GPU pays): on the scalable
//! synthetic family (`dataset::scalable`: instances × attributes × classes), which
//! evaluator is fastest — serial, multi-threaded CPU or GPU — for one simulated
//! GA (the instances loaded once, `iterations` evaluations of fresh random rules
//! on the whole set). The winners over (instances, attributes) get LinearSVM
//! decision regions as in the layout paper (`crate::svm`), and the regions give
//! an `auto` rule whose cost is measured against the best choice at every size.
//! The largest size also gives the match kernels' condition tests per second
//! against the device's measured integer-instruction rate.

use super::methods::simulated_ga;
use super::rows::{ConditionTests, Evaluator, ScaleCase, SimulatedGa};
use super::spec::ScaleProfile;
use super::{BALLOT, CUDA, PARALLEL, SERIAL};
use crate::experiments::{Case, RunEnv, Section};
use crate::library::biohel::{condition_tests, random_rule};
use crate::library::dataset;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::report::Table;
use crate::report::chart::{self, RegionChart};
use crate::spec::values;
use crate::stats::median;
use crate::svm::{self, Boundary, Point};
use anyhow::Result;
use itertools::iproduct;
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// The `figure` parameter of the sweep's cases.
pub const SCALE_FIGURE: &str = "scale";
/// The class of the GPU in the decision regions: the faster CUDA design.
const GPU: &str = "gpu";
/// Cost of the SVMs' slack (as the layout paper's regions).
const SVM_COST: f64 = 100.0;

impl ScaleProfile {
    pub fn cases(&self, base_seed: u64) -> Vec<Case> {
        let iterations = *self.iterations;
        iproduct!(values(&self.instances), values(&self.attributes), 0..*self.seeds)
            .map(|(n, a, s)| {
                let row = ScaleCase {
                    instances: n,
                    attributes: a,
                    classes: *self.classes,
                    nominal_fraction: *self.nominal_fraction,
                    iterations,
                    seed: base_seed ^ ((s as u64) << 32) ^ ((n as u64) << 12) ^ a as u64,
                };
                Case::of(SCALE_FIGURE, format!("scale/n{n}/a{a}/s{s}"), &row, ((n * a * iterations) as u64 / 200_000).max(1))
            })
            .collect()
    }
}

/// One case: every evaluator runs one simulated GA on the same set and rules and
/// must give the serial counts exactly.
pub fn run(case: &Case, env: &RunEnv, rules_per_iteration: usize, expressed_probability: f64) -> Result<Vec<Record>> {
    let ScaleCase { instances: n, attributes: a, classes, nominal_fraction, iterations, seed } = case.row()?;
    let data = dataset::scalable(n, a, classes, nominal_fraction, seed);
    let mut rng = StdRng::seed_from_u64(seed);
    let rules: Vec<Vec<_>> =
        (0..iterations).map(|_| (0..rules_per_iteration).map(|_| random_rule(&data, &mut rng, expressed_probability)).collect()).collect();
    let tests: u64 = rules.iter().map(|batch| condition_tests(&data, 0..n, batch)).sum();
    let rows = simulated_ga(&case.id, env, &data, &rules, |_| 0..n)?;
    Ok(rows.into_iter().map(|r| r.with_row(&ConditionTests { condition_tests: tests })).collect())
}

/// (instances, attributes).
type Size = (usize, usize);

/// One size's medians: the whole GA (`eval_s`), its evaluations alone
/// (`eval_s − load_s`), their device kernels (CUDA events; GPU records from v3
/// on) and the condition tests they made.
#[derive(Clone, Copy, Debug)]
struct Timing {
    total_s: f64,
    evaluate_s: f64,
    kernel_s: Option<f64>,
    tests: f64,
    pairs: f64,
}

/// One machine's sweep.
#[derive(Default)]
pub struct Sweep {
    times: BTreeMap<Size, BTreeMap<String, Timing>>,
    not_run: BTreeMap<String, String>,
    /// The profile whose runs timed each size (their ceilings apply).
    profiles: BTreeMap<Size, String>,
}

impl Sweep {
    pub fn of(m: &MachineRecords) -> Sweep {
        let mut raw: BTreeMap<(Size, String), Vec<Timing>> = BTreeMap::new();
        let mut sweep = Sweep::default();
        for r in m.measurements().filter(|r| r.str(col::FIGURE) == SCALE_FIGURE) {
            let method = r.str(col::METHOD).to_owned();
            if !r.is_ok() {
                sweep.not_run.insert(method, r.str(col::REASON).to_owned());
                continue;
            }
            let Ok(case) = r.row::<ScaleCase>() else { continue };
            let size = (case.instances, case.attributes);
            sweep.profiles.insert(size, r.str(col::PROFILE).to_owned());
            if let (Ok(e), Ok(ga)) = (r.row::<Evaluator>(), r.row::<SimulatedGa>()) {
                let tests = r.row::<ConditionTests>().map_or(0.0, |c| c.condition_tests as f64);
                raw.entry((size, method)).or_default().push(Timing {
                    total_s: e.eval_s,
                    evaluate_s: e.eval_s - ga.load_s,
                    kernel_s: ga.kernel_s,
                    tests,
                    pairs: ga.pairs as f64,
                });
            }
        }
        for ((size, method), v) in raw {
            let med = |f: fn(&Timing) -> f64| median(&v.iter().map(f).collect::<Vec<_>>());
            let kernels: Option<Vec<f64>> = v.iter().map(|x| x.kernel_s).collect();
            let t = Timing {
                total_s: med(|x| x.total_s),
                evaluate_s: med(|x| x.evaluate_s),
                kernel_s: kernels.map(|k| median(&k)),
                tests: med(|x| x.tests),
                pairs: med(|x| x.pairs),
            };
            sweep.times.entry(size).or_default().insert(method, t);
        }
        sweep
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The winner of a size: serial, cpu-mt or `gpu` (the faster CUDA design), by
    /// the whole GA's time.
    fn winner(&self, size: Size) -> Option<(&'static str, f64)> {
        let t = self.times.get(&size)?;
        let best = |names: &[&str]| names.iter().filter_map(|m| t.get(*m).map(|x| x.total_s)).min_by(f64::total_cmp);
        [(SERIAL, best(&[SERIAL])), (PARALLEL, best(&[PARALLEL])), (GPU, best(&[CUDA, BALLOT]))]
            .into_iter()
            .filter_map(|(c, v)| v.map(|v| (c, v)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    fn points(&self) -> Vec<Point> {
        self.times
            .keys()
            .filter_map(|&(n, a)| self.winner((n, a)).map(|(c, _)| Point { pop: n as f64, dim: a as f64, class: c.into() }))
            .collect()
    }
}

/// The `auto` rule of fitted regions: the highest class whose boundary puts the
/// size on its upper side, else the lowest class.
fn auto_pick(order: &[String], bounds: &[Boundary], n: f64, a: f64) -> String {
    bounds.iter().rev().find(|b| b.decision(n, a) >= 0.0).map_or_else(|| order[0].clone(), |b| b.upper.clone())
}

/// The section of every machine with a sweep; None when no machine has one.
pub fn section(machines: &[MachineRecords], dir: &Path, rules_per_iteration: usize) -> Result<Option<Section>> {
    if machines.iter().all(|m| Sweep::of(m).is_empty()) {
        return Ok(None);
    }
    let intro = format!(
        "The paper's future work: on the scalable synthetic family (`dataset::scalable`, a stated share of nominal \
         attributes, uniform continuous ones; not a data set of the paper), one simulated GA per evaluator — the \
         instances loaded once (for CUDA: the upload), then per iteration {rules_per_iteration} fresh random rules \
         evaluated on the whole set. Winner = the fastest of `serial`, `cpu-mt` and `gpu` (the faster of `cuda-paper` \
         and `cuda-ballot`) by the whole GA's time. Regions: two consecutive binary linear SVMs over (log10 instances, \
         log10 attributes), as the layout paper's; the *auto rule* picks the class of the highest boundary whose upper \
         side holds the size. *Regret* = the time of the rule's pick over the best time at that size."
    );
    let section = Section::per_machine("Beyond the paper — where the GPU is worth it", intro, machines, |m| {
        let s = Sweep::of(m);
        if s.is_empty() {
            return Ok(String::new());
        }
        let mut md = times_table(&s);
        for (method, reason) in &s.not_run {
            let _ = writeln!(md, "`{method}`: not run here ({reason}).");
        }
        if !s.not_run.is_empty() {
            md += "\n";
        }
        md += &regions(m, &s, dir)?;
        md += &rates(m, &s);
        Ok(md)
    })?;
    Ok(Some(section))
}

fn times_table(s: &Sweep) -> String {
    let methods = [SERIAL, PARALLEL, CUDA, BALLOT];
    let mut header = vec!["instances".to_owned(), "attributes".into()];
    header.extend(methods.iter().map(|m| format!("{m} (s)")));
    header.push("winner".into());
    let mut t = Table::new(&header);
    for (&(n, a), times) in &s.times {
        let mut row = vec![n.to_string(), a.to_string()];
        row.extend(methods.iter().map(|m| times.get(*m).map_or("—".into(), |x| format!("{:.4}", x.total_s))));
        row.push(s.winner((n, a)).map_or("—".into(), |(c, _)| format!("`{c}`")));
        t.row(row);
    }
    t.render() + "\n"
}

fn regions(m: &MachineRecords, s: &Sweep, dir: &Path) -> Result<String> {
    let points = s.points();
    let order = svm::class_order(&points);
    if order.len() < 2 {
        return Ok(format!("One class wins at every size ({}): no regions to fit.\n\n", order.join("")));
    }
    let bounds = svm::fit_regions(&points, SVM_COST).map_err(anyhow::Error::msg)?;
    let name = format!("{}__scale", m.hw_id);
    let span = |v: Vec<f64>| (v.iter().copied().fold(f64::INFINITY, f64::min) / 1.6, v.iter().copied().fold(0.0, f64::max) * 1.6);
    chart::write_regions(
        &dir.join("figures").join(&name),
        &RegionChart {
            title: "Fastest evaluator",
            machine: m.label(),
            x_label: "training instances",
            y_label: "attributes",
            x_range: span(points.iter().map(|p| p.pop).collect()),
            y_range: span(points.iter().map(|p| p.dim).collect()),
            classes: order.iter().map(|c| (c.clone(), points.iter().filter(|p| &p.class == c).map(|p| (p.pop, p.dim)).collect())).collect(),
            lines: bounds.iter().map(|b| (format!("SVM {} | {}", b.lower, b.upper), [b.w[0], b.w[1], b.rho])).collect(),
            rings: bounds.iter().flat_map(|b| b.support_lower.iter().chain(&b.support_upper).copied()).collect(),
            ..RegionChart::default()
        },
    )
    .map_err(anyhow::Error::msg)?;
    let mut md = format!("![fastest evaluator over instances × attributes](figures/{name}.png)\n\n");
    let mut t = Table::new(&["boundary", "auto rule: upper class when", "support vectors (instances × attributes)", "misclassified"]);
    for b in &bounds {
        let support: Vec<String> = b.support_lower.iter().chain(&b.support_upper).map(|(n, a)| format!("{n:.0}×{a:.0}")).collect();
        t.row(vec![
            format!("`{}` | `{}`", b.lower, b.upper),
            format!("{:.3}·log10 n + {:.3}·log10 a ≥ {:.3}", b.w[0], b.w[1], b.rho),
            support.join(", "),
            b.misclassified.to_string(),
        ]);
    }
    md += &t.render();
    let (mut agree, mut regrets) = (0, Vec::new());
    let mut worst = (1.0, String::new());
    for p in &points {
        let size = (p.pop as usize, p.dim as usize);
        let pick = auto_pick(&order, &bounds, p.pop, p.dim);
        agree += usize::from(pick == p.class);
        let times = &s.times[&size];
        let time_of = |c: &str| match c {
            GPU => [CUDA, BALLOT].iter().filter_map(|m| times.get(*m).map(|x| x.total_s)).min_by(f64::total_cmp),
            c => times.get(c).map(|x| x.total_s),
        };
        if let (Some(got), Some((_, best))) = (time_of(&pick), s.winner(size)) {
            let r = got / best;
            if r > worst.0 {
                worst = (r, format!("{}×{} (picks `{pick}`, best `{}`)", size.0, size.1, p.class));
            }
            regrets.push(r);
        }
    }
    let mean = regrets.iter().sum::<f64>() / regrets.len().max(1) as f64;
    let _ = writeln!(
        md,
        "\nThe auto rule picks the winner at {agree} of {} sizes; mean regret {mean:.2}×, worst {:.2}×{}.\n",
        points.len(),
        worst.0,
        if worst.1.is_empty() { String::new() } else { format!(" at {}", worst.1) }
    );
    Ok(md)
}

/// Condition tests per second at the largest size, over the evaluations and, for
/// the CUDA designs, over their kernels alone (CUDA events; records before v3 lack
/// them and use the evaluations); for the CUDA designs the fraction of the
/// device's integer-instruction rate measured in the same run (a test is at least
/// a load, two comparisons and a branch: the fraction bounds how busy the integer
/// units are), and the bytes the tests ask for (a 4-byte value per test, a 2-byte
/// label per rule × instance) against the device copy bandwidth (an upper bound
/// on DRAM traffic: the rules of a tile re-read an instance from the caches).
fn rates(m: &MachineRecords, s: &Sweep) -> String {
    let Some((&(n, a), times)) = s.times.iter().max_by_key(|((n, a), _)| n * a) else { return String::new() };
    let profile = s.profiles.get(&(n, a)).map_or("", String::as_str);
    let ceiling = |name: &str| m.ceiling_of_profile(name, profile);
    let fraction = |rate: f64, ceiling: Option<f64>| {
        ceiling.map_or("not in these records".into(), |c| format!("{} of {c:.0}", crate::fmt::share(rate, c, 1)))
    };
    let mut t = Table::new(&[
        "method",
        "evaluations (s)",
        "their kernels (s)",
        "condition tests per second of evaluations (10⁹/s)",
        "per second of kernels (10⁹/s)",
        "of the GPU int32 instruction rate (10⁹/s, same run)",
        "bytes asked for per second of kernels (GB/s)",
        "of the device copy (GB/s, same run)",
    ]);
    for method in [SERIAL, PARALLEL, CUDA, BALLOT] {
        let Some(x) = times.get(method) else { continue };
        let rate = x.tests / x.evaluate_s / 1e9;
        let gpu = method == CUDA || method == BALLOT;
        let (busy_s, of) = match x.kernel_s {
            Some(k) if gpu && k > 0.0 => (k, ""),
            _ => (x.evaluate_s, " (of evaluations)"),
        };
        let kernel_rate = x.tests / busy_s / 1e9;
        let bytes = (4.0 * x.tests + 2.0 * x.pairs) / busy_s / 1e9;
        t.row(vec![
            format!("`{method}`"),
            format!("{:.4}", x.evaluate_s),
            x.kernel_s.filter(|_| gpu).map_or("—".into(), |k| format!("{k:.4}")),
            format!("{rate:.2}"),
            if gpu && of.is_empty() { format!("{kernel_rate:.2}") } else { "—".into() },
            if gpu { fraction(kernel_rate, ceiling("gpu_int32")) + of } else { "—".into() },
            if gpu { format!("{bytes:.1}{of}") } else { "—".into() },
            if gpu { fraction(bytes, ceiling("gpu_d2d")) } else { "—".into() },
        ]);
    }
    format!(
        "Rates at the largest size, {n} instances × {a} attributes (evaluations only, the load excluded; the goal: the \
         match kernel at ≥ 50% of the integer rate):\n\n{}\n",
        t.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundary(lower: &str, upper: &str, rho: f64) -> Boundary {
        Boundary {
            lower: lower.into(),
            upper: upper.into(),
            features: crate::svm::Features::Log10,
            w: [1.0, 0.0],
            rho,
            support_lower: vec![],
            support_upper: vec![],
            misclassified: 0,
        }
    }

    #[test]
    fn auto_rule_takes_the_highest_boundary_whose_upper_side_holds_the_size() {
        let order: Vec<String> = [SERIAL, PARALLEL, GPU].map(String::from).to_vec();
        let bounds = [boundary(SERIAL, PARALLEL, 3.0), boundary(PARALLEL, GPU, 5.0)];
        assert_eq!(auto_pick(&order, &bounds, 100.0, 10.0), SERIAL);
        assert_eq!(auto_pick(&order, &bounds, 10_000.0, 10.0), PARALLEL);
        assert_eq!(auto_pick(&order, &bounds, 1e6, 10.0), GPU);
    }
}
