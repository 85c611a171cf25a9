//! One machine's records indexed for the report and the claims (Sections 4.1–4.4):
//! the timed tries of every (function, size, strategy); who is fastest at each
//! size, where a strategy wins only when the 95% interval of its difference to
//! every other (Welch, over the tries) excludes zero, so that ties and too few
//! tries decide nothing; the LinearSVM regions of Figures 1–6 over the sizes
//! with a winner, on the paper's sweep and on every size measured; and the
//! device limits S3 runs into.

use super::limits::{self, S3Limits};
use super::spec::{LayoutSpec, PAPER_CLASSES, Size};
use crate::claims::judge::{self, Comparison};
use crate::library::nonseparable::Function;
use crate::records::Record;
use crate::report::MachineRecords;
use crate::stats::{self, Summary};
use crate::svm::{self, Boundary, Point};
use std::collections::{BTreeMap, BTreeSet};

/// The timed tries of one strategy at one size.
#[derive(Clone, Debug)]
pub struct Timed {
    /// End-to-end time of each try (ms): for the GPU strategies copy in, kernel and copy out.
    pub walls: Vec<f64>,
    pub summary: Summary,
    /// The block size that was timed (GPU strategies).
    pub block: Option<i64>,
    /// Kernel time of each try (GPU strategies, CUDA events).
    pub kernels: Vec<f64>,
    /// Median of copy in + kernel + copy out by CUDA events.
    pub events_median: Option<f64>,
    /// Kernel alone, back to back (ms per launch), where recorded.
    pub kernel_loop: Option<f64>,
}

impl Timed {
    pub fn kernel_median(&self) -> Option<f64> {
        (!self.kernels.is_empty()).then(|| stats::median(&self.kernels))
    }
}

/// One strategy at one size on one machine.
#[derive(Clone, Debug)]
pub enum Cell {
    Ok(Timed),
    /// The strategy does not fit the device at this size (the reason).
    CannotRun(String),
    /// Not run on this machine (the reason).
    NotRun(String),
}

/// Which times decide who is fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// End to end, copies included: the paper's measure.
    Wall,
    /// The kernel alone (beyond the paper).
    Kernel,
}

/// Who is fastest at one size among some strategies.
#[derive(Clone, Debug, PartialEq)]
pub enum Standing {
    /// Faster than every other strategy by the 95% interval, with the fewest tries of any.
    Won(&'static str, usize),
    /// Strategies not separated from the fastest (the fastest first), with the fewest tries of any.
    Tie(Vec<&'static str>, usize),
    /// A strategy has `n` tries, fewer than the `needs` a decision takes.
    TooFew { n: usize, needs: usize },
    /// A strategy was not run on this machine (the reason).
    NotRun(String),
    /// No timed records of this size.
    Missing,
}

impl Standing {
    /// The strategies first at this size (one when it was won).
    pub fn first(&self) -> Vec<&'static str> {
        match self {
            Standing::Won(c, _) => vec![c],
            Standing::Tie(v, _) => v.clone(),
            _ => vec![],
        }
    }

    /// Whether `group` wins: every strategy first is in it (true), none is (false),
    /// or some are (None, a tie between the group and the rest; also when undecided).
    pub fn group_wins(&self, group: &[&str]) -> Option<bool> {
        let first = self.first();
        let inside = first.iter().filter(|c| group.contains(c)).count();
        match () {
            _ if first.is_empty() => None,
            _ if inside == first.len() => Some(true),
            _ if inside == 0 => Some(false),
            _ => None,
        }
    }

    /// "S4", "tie: S1, S2, S4", "too few runs (n = 3, needs 10)".
    pub fn label(&self) -> String {
        match self {
            Standing::Won(c, _) => (*c).to_owned(),
            Standing::Tie(v, _) => format!("tie: {}", v.join(", ")),
            Standing::TooFew { n, needs } => format!("too few runs (n = {n}, needs {needs})"),
            Standing::NotRun(_) => "not run here".into(),
            Standing::Missing => "—".into(),
        }
    }
}

/// One figure's classes and regions on one set of sizes.
pub struct Figure {
    pub name: String,
    pub function: Function,
    /// The figure's classes and support vectors in the paper.
    pub paper_classes: Vec<String>,
    pub paper_support: BTreeMap<String, Vec<Size>>,
    /// The sizes the figure covers.
    pub sizes: Vec<Size>,
    /// The sizes with a winner, classed by it.
    pub points: Vec<Point>,
    /// The sizes without one (ties, too few tries, not run), left out of the fit.
    pub undecided: Vec<(Size, Standing)>,
    /// The sizes with no records.
    pub missing: Vec<Size>,
    /// One linear SVM per consecutive pair of classes (none without points).
    pub fit: Result<Vec<Boundary>, String>,
}

impl Figure {
    /// The winning classes in order of problem size.
    pub fn classes(&self) -> Vec<String> {
        svm::class_order(&self.points)
    }

    pub fn ties(&self) -> Vec<Size> {
        self.undecided.iter().filter(|(_, s)| matches!(s, Standing::Tie(..))).map(|(s, _)| *s).collect()
    }

    /// The first size with too few tries, if any.
    pub fn too_few(&self) -> Option<&Standing> {
        self.undecided.iter().map(|(_, s)| s).find(|s| matches!(s, Standing::TooFew { .. }))
    }

    /// The support vectors of the fit per class.
    pub fn support(&self) -> BTreeMap<String, BTreeSet<Size>> {
        let mut by: BTreeMap<String, BTreeSet<Size>> = BTreeMap::new();
        for b in self.fit.iter().flatten() {
            for (class, pts) in [(&b.lower, &b.support_lower), (&b.upper, &b.support_upper)] {
                by.entry(class.clone()).or_default().extend(pts.iter().map(|&(p, d)| (p as usize, d as usize)));
            }
        }
        by
    }
}

/// Everything the report and the claims read of one machine's records.
pub struct Analysis {
    /// The profile whose records these are.
    pub profile: String,
    cells: BTreeMap<(Function, Size, String), Cell>,
    pub gpu_ran: bool,
    /// Why the GPU strategies were not run, when they were not.
    pub gpu_absent: String,
    /// Tries each strategy needs before its times decide anything.
    pub min_n: usize,
    /// Table 1's sizes, in the table's order.
    pub table1: Vec<Size>,
    /// Table 1's sizes where the paper's S3 is NAN.
    pub paper_s3_nan: Vec<Size>,
    /// Figures 1–6 on the paper's sweep.
    pub figures: Vec<Figure>,
    /// Figures 1–6 on every size measured (beyond the paper).
    pub grid: Vec<Figure>,
    /// The limits S3 runs into on this machine, from its records.
    pub s3_here: Result<S3Limits, String>,
}

impl Analysis {
    /// The paper profile's records where the machine has them, else the quick profile's.
    pub fn of(m: &MachineRecords, spec: &LayoutSpec) -> Analysis {
        let profile = if m.measurements().any(|r| r.str("profile") == "paper") { "paper" } else { "quick" };
        Analysis::of_profile(m, spec, profile)
    }

    pub fn of_profile(m: &MachineRecords, spec: &LayoutSpec, profile: &str) -> Analysis {
        let (cells, gpu_ran, gpu_absent) = index(m.measurements().filter(|r| r.str("profile") == profile));
        let reasons = cells.values().filter_map(|c| if let Cell::CannotRun(r) = c { Some(r.as_str()) } else { None });
        let s3_here = limits::here(m, reasons);
        let mut a = Analysis {
            profile: profile.to_owned(),
            cells,
            gpu_ran,
            gpu_absent,
            min_n: *spec.settings.min_n.get_ref(),
            table1: spec.table1_sizes(),
            paper_s3_nan: spec.table1.iter().filter(|r| r.s3.is_none()).map(|r| r.size()).collect(),
            figures: vec![],
            grid: vec![],
            s3_here,
        };
        let cost = *spec.settings.svm_cost.get_ref();
        for fig in &spec.figures {
            let f = fig.function();
            let named = |sizes: Vec<Size>| (fig.figure.clone(), f, fig.classes(), fig.support(), sizes);
            a.figures.push(a.figure(named(spec.sweep_sizes(fig.sweep)), cost));
            a.grid.push(a.figure(named(a.sizes(f)), cost));
        }
        a
    }

    fn figure(&self, (name, function, paper_classes, paper_support, sizes): FigureParts, cost: f64) -> Figure {
        let (mut points, mut undecided, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for &(p, d) in &sizes {
            match self.winner(function, (p, d)) {
                Standing::Won(c, _) => points.push(Point { pop: p as f64, dim: d as f64, class: c.into() }),
                Standing::Missing => missing.push((p, d)),
                other => undecided.push(((p, d), other)),
            }
        }
        let fit = if points.is_empty() { Err("no size has a winner".into()) } else { svm::fit_regions(&points, cost) };
        Figure { name, function, paper_classes, paper_support, sizes, points, undecided, missing, fit }
    }

    pub fn get(&self, f: Function, size: Size, class: &str) -> Option<&Cell> {
        self.cells.get(&(f, size, class.to_owned()))
    }

    /// The timed tries of a strategy at a size, if it ran.
    pub fn timed(&self, f: Function, size: Size, class: &str) -> Option<&Timed> {
        match self.get(f, size, class) {
            Some(Cell::Ok(t)) => Some(t),
            _ => None,
        }
    }

    /// Mean end-to-end time.
    pub fn time(&self, f: Function, size: Size, class: &str) -> Option<f64> {
        self.timed(f, size, class).map(|t| t.summary.mean)
    }

    /// Every size measured for a function, by number of coordinates.
    pub fn sizes(&self, f: Function) -> Vec<Size> {
        let set: BTreeSet<Size> = self.cells.keys().filter(|k| k.0 == f).map(|k| k.1).collect();
        let mut v: Vec<Size> = set.into_iter().collect();
        v.sort_by_key(|&(p, d)| (p * d, p));
        v
    }

    /// Who is fastest at a size among the paper's five columns, end to end.
    pub fn winner(&self, f: Function, size: Size) -> Standing {
        self.standing(f, size, &PAPER_CLASSES, Metric::Wall)
    }

    /// Who is fastest at a size among `classes` (those that cannot run there are
    /// left out, as the paper's NAN): the fastest by mean wins when every other
    /// is slower by the 95% interval of the difference of their tries.
    pub fn standing(&self, f: Function, size: Size, classes: &[&'static str], metric: Metric) -> Standing {
        let cells: Vec<(&'static str, Option<&Cell>)> = classes.iter().map(|&c| (c, self.get(f, size, c))).collect();
        if let Some(why) = cells.iter().find_map(|(_, x)| if let Some(Cell::NotRun(why)) = x { Some(why) } else { None }) {
            return Standing::NotRun(why.clone());
        }
        let mut ran: Vec<(&'static str, &[f64])> = Vec::new();
        for (c, cell) in cells {
            match cell {
                None => return Standing::Missing,
                Some(Cell::NotRun(_) | Cell::CannotRun(_)) => {}
                Some(Cell::Ok(t)) => ran.push((c, if metric == Metric::Wall { &t.walls } else { &t.kernels })),
            }
        }
        let Some(n) = ran.iter().map(|(_, xs)| xs.len()).min().filter(|n| *n > 0) else {
            return Standing::Missing;
        };
        if n < self.min_n {
            return Standing::TooFew { n, needs: self.min_n };
        }
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
        ran.sort_by(|a, b| mean(a.1).total_cmp(&mean(b.1)));
        let (fastest, tries) = ran[0];
        let mut tied = vec![fastest];
        tied.extend(ran[1..].iter().filter(|(_, xs)| judge::compare(tries, xs) != Some(Comparison::Less)).map(|(c, _)| *c));
        if tied.len() == 1 { Standing::Won(fastest, n) } else { Standing::Tie(tied, n) }
    }

    /// The figure of a function on the paper's sweep (the spec has one per function).
    pub fn figure_of(&self, f: Function) -> Option<&Figure> {
        self.figures.iter().find(|x| x.function == f)
    }

    /// The figure of a function on every size measured.
    pub fn grid_of(&self, f: Function) -> Option<&Figure> {
        self.grid.iter().find(|x| x.function == f)
    }

    /// Share of S4's end-to-end time spent in copies at one size (CUDA events).
    pub fn copy_share(&self, f: Function, size: Size) -> Option<f64> {
        let t = self.timed(f, size, "S4")?;
        Some(1.0 - t.kernel_median()? / t.events_median?)
    }

    /// Whether these records hold nothing of the profile.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Fewest tries of any timed strategy (Table 1's caption).
    pub fn tries(&self) -> Option<usize> {
        self.cells.values().filter_map(|c| if let Cell::Ok(t) = c { Some(t.summary.n) } else { None }).min()
    }
}

type FigureParts = (String, Function, Vec<String>, BTreeMap<String, Vec<Size>>, Vec<Size>);

/// Groups rows by (function, size, strategy): the timed tries, else why it did not run.
fn index<'a>(rows: impl Iterator<Item = &'a Record>) -> (BTreeMap<(Function, Size, String), Cell>, bool, String) {
    let mut groups: BTreeMap<(Function, Size, String), Vec<&Record>> = BTreeMap::new();
    for r in rows {
        let Some(f) = Function::from_name(r.str("function")) else { continue };
        let (Some(p), Some(d)) = (r.int("pop"), r.int("dim")) else { continue };
        groups.entry((f, (p as usize, d as usize), r.str("strategy").to_owned())).or_default().push(r);
    }
    let mut cells = BTreeMap::new();
    let mut gpu_ran = false;
    let mut gpu_absent = String::new();
    for (key, rows) in groups {
        let timed: Vec<&Record> = rows.iter().copied().filter(|r| r.str("phase") == "timed" && r.str("status") == "ok").collect();
        let walls: Vec<f64> = timed.iter().filter_map(|r| r.float("wall_ms")).collect();
        let cell = if let Some(summary) = Summary::of(&walls) {
            let events: Vec<f64> = timed.iter().filter_map(|r| r.float("events_ms")).collect();
            Cell::Ok(Timed {
                walls,
                summary,
                block: timed[0].int("block_size"),
                kernels: timed.iter().filter_map(|r| r.float("kernel_ms")).collect(),
                events_median: (!events.is_empty()).then(|| stats::median(&events)),
                kernel_loop: rows.iter().find(|r| r.str("phase") == "kernel_loop").and_then(|r| r.float("kernel_ms")),
            })
        } else if let Some(r) = rows.iter().find(|r| r.str("status") == "cannot_run") {
            Cell::CannotRun(r.str("reason").to_owned())
        } else {
            Cell::NotRun(rows.first().map_or("", |r| r.str("reason")).to_owned())
        };
        match &cell {
            Cell::Ok(_) | Cell::CannotRun(_) if key.2.starts_with('S') => gpu_ran = true,
            Cell::NotRun(why) => gpu_absent = why.clone(),
            _ => {}
        }
        cells.insert(key, cell);
    }
    if gpu_absent.is_empty() {
        gpu_absent = "no GPU records".into();
    }
    (cells, gpu_ran, gpu_absent)
}

#[cfg(test)]
mod tests {
    use super::super::testing::Fake;
    use super::*;

    #[test]
    fn a_winner_needs_the_interval_ties_and_too_few_decide_nothing() {
        let s = (100, 100);
        let f = Function::Rosenbrock;
        let fake = Fake::new().size("rosenbrock", s, &[("sequential", 1.0), ("S1", 2.0), ("S2", 2.0), ("S3", 3.0), ("S4", 1.5)]);
        assert_eq!(fake.analysis().winner(f, s), Standing::Won("sequential", 20));
        // S4 within 0.05% of sequential: inside the tries' ±0.2% spread.
        let tie = Fake::new().size("rosenbrock", s, &[("sequential", 1.0), ("S1", 2.0), ("S2", 2.0), ("S3", 3.0), ("S4", 1.0005)]);
        let w = tie.analysis().winner(f, s);
        assert_eq!(w, Standing::Tie(vec!["sequential", "S4"], 20));
        assert_eq!((w.group_wins(&["sequential"]), w.group_wins(&["S3", "S4"])), (None, None));
        assert_eq!(w.label(), "tie: sequential, S4");
        let gpu = Fake::new().size("rosenbrock", s, &[("sequential", 3.0), ("S1", 2.0), ("S2", 2.001), ("S3", 3.0), ("S4", 2.0)]);
        let w = gpu.analysis().winner(f, s);
        assert_eq!(w.group_wins(&["sequential"]), Some(false), "every strategy first is a GPU one: {w:?}");
        let few =
            Fake::new().with_tries(3).size("rosenbrock", s, &[("sequential", 1.0), ("S1", 2.0), ("S2", 2.0), ("S3", 3.0), ("S4", 1.5)]);
        assert_eq!(few.analysis().winner(f, s), Standing::TooFew { n: 3, needs: 10 });
        assert_eq!(few.analysis().winner(f, (7, 7)), Standing::Missing);
    }

    #[test]
    fn strategies_that_cannot_run_are_left_out_and_not_run_ones_block() {
        let s = (100, 2000);
        let f = Function::Rosenbrock;
        let fake = Fake::new().size("rosenbrock", s, &[("sequential", 3.0), ("S1", 2.0), ("S2", 2.5), ("S4", 1.0)]).cannot_run(
            "rosenbrock",
            s,
            "S3",
            "dimension 2000 exceeds the device's 1024 threads per block",
        );
        let a = fake.analysis();
        assert_eq!(a.winner(f, s), Standing::Won("S4", 20));
        assert_eq!(a.s3_here.as_ref().unwrap().threads.value, 1024);
        let cpu = Fake::cpu_only("libcuda not found").size("rosenbrock", s, &[("sequential", 3.0), ("S4", 1.0)]);
        let a = cpu.analysis();
        assert!(!a.gpu_ran && a.gpu_absent == "libcuda not found");
        assert_eq!(a.winner(f, s), Standing::NotRun("libcuda not found".into()));
    }

    #[test]
    fn figures_fit_the_sizes_with_a_winner_and_count_the_ties() {
        let mut fake = Fake::new();
        for &(p, d) in &[(10, 10), (16, 16), (20, 20), (40, 40), (100, 100), (200, 200), (1000, 1000), (4000, 4000)] {
            let n = (p * d) as f64;
            let gpu = 1.0 + 1e-6 * n;
            // Sequential and S4 tie at 200×200.
            let seq = if (p, d) == (200, 200) { gpu } else { 1e-4 * n };
            fake =
                fake.size("f2_light", (p, d), &[("sequential", seq), ("S1", 2.0 * gpu), ("S2", 2.0 * gpu), ("S3", 3.0 * gpu), ("S4", gpu)]);
        }
        let a = fake.analysis();
        let fig = a.figure_of(Function::F2Light).unwrap();
        assert_eq!(fig.name, "Figure 2");
        assert_eq!(fig.classes(), vec!["sequential", "S4"]);
        assert_eq!(fig.ties(), vec![(200, 200)]);
        assert_eq!(fig.points.len(), 7);
        assert!(fig.fit.as_ref().unwrap().len() == 1);
        assert!(!fig.support().is_empty());
        // The grid holds only what was measured: the same sizes here.
        assert_eq!(a.grid_of(Function::F2Light).unwrap().points.len(), 7);
    }
}
