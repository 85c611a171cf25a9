//! One machine's records indexed for the report and the claims (Sections 4.1–4.4):
//! the timed tries of every (function, size, strategy); who is fastest at each
//! size, where a strategy wins only when the 95% interval of its difference to
//! every other (Welch, over the tries) excludes zero, so that ties and too few
//! tries decide nothing; the LinearSVM regions of Figures 1–6 over the sizes
//! with a winner, on the paper's sweep and on every size measured, beside the
//! SVMs fitted to the paper's own classed sizes; and the device limits S3 runs into.

use super::limits::{self, S3Limits};
use super::rows::{KERNEL_LOOP, Measured, SizeCase, TIMED, Try};
use super::spec::{LayoutSpec, PAPER_CLASSES, Size, Sweep, Table1Row};
use crate::claims::judge::{self, Comparison, Finding};
use crate::library::nonseparable::Function;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
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
    /// S4's host-side transposition before each try (ms), where recorded.
    pub transposes: Vec<f64>,
    /// Threads the transposition ran on; None in records made before it ran
    /// in parallel into its own buffer (one thread, into the pinned buffer S4
    /// copies from, which slowed S4's copy-in).
    pub transpose_threads: Option<i64>,
}

impl Timed {
    pub fn kernel_median(&self) -> Option<f64> {
        (!self.kernels.is_empty()).then(|| stats::median(&self.kernels))
    }

    /// Each try's end-to-end time plus the transposition before it, where every try has one.
    pub fn with_transposition(&self) -> Option<Vec<f64>> {
        (!self.transposes.is_empty() && self.transposes.len() == self.walls.len())
            .then(|| self.walls.iter().zip(&self.transposes).map(|(w, t)| w + t).collect())
    }

    /// The tries `metric` reads (None: S4 without recorded transpositions).
    fn tries(&self, class: &str, metric: Metric) -> Option<Vec<f64>> {
        match metric {
            Metric::Wall => Some(self.walls.clone()),
            Metric::Kernel => Some(self.kernels.clone()),
            Metric::Transposed if class == "S4" => self.with_transposition(),
            Metric::Transposed => Some(self.walls.clone()),
        }
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
    /// End to end, S4 also paying its host-side transposition (Section 3.2.4).
    Transposed,
}

/// Who is fastest at one size among some strategies.
#[derive(Clone, Debug, PartialEq)]
pub enum Standing {
    /// Faster than every other strategy by the 95% interval, with the fewest tries of any.
    Won(&'static str, usize),
    /// Strategies not separated from the fastest (the fastest first), with the
    /// fewest tries of any and the tries a separation would need (None: none would).
    Tie(Vec<&'static str>, usize, Option<usize>),
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
            Standing::Tie(v, ..) => v.clone(),
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

    /// "S4 (n = 20)", "tie: S1, S2, S4 (n = 20)", "too few runs (n = 3, needs 10)".
    pub fn label(&self) -> String {
        match self {
            Standing::Won(c, n) => format!("{c} (n = {n})"),
            Standing::Tie(v, n, _) => format!("tie: {} (n = {n})", v.join(", ")),
            Standing::TooFew { n, needs } => format!("too few runs (n = {n}, needs {needs})"),
            Standing::NotRun(_) => "not run here".into(),
            Standing::Missing => "—".into(),
        }
    }
}

/// The paper's own classes of a figure and the SVMs fitted to them.
#[derive(Clone)]
pub struct PaperFit {
    /// Where the classed sizes come from: Table 1's winners as the paper reports
    /// them (Figure 1), else the caption's support vectors (the only sizes Figures
    /// 2–6 class in the text).
    pub source: &'static str,
    pub points: Vec<Point>,
    pub fit: Result<Vec<Boundary>, String>,
}

impl PaperFit {
    /// Table 1's winners by the rule applied here ([`paper_standing`]): sizes
    /// the paper's own times leave tied are left out, as on this machine.
    pub fn of_table1(spec: &LayoutSpec) -> PaperFit {
        let tries = *spec.settings.paper_tries;
        let points = spec
            .table1
            .iter()
            .filter_map(|r| match paper_standing(r, tries) {
                Standing::Won(c, _) => Some(Point { pop: r.size[0] as f64, dim: r.size[1] as f64, class: c.into() }),
                _ => None,
            })
            .collect();
        PaperFit::new("Table 1's winners as the paper reports them", points, spec)
    }

    /// The caption's support vectors, classed as the caption classes them.
    pub fn of_caption(support: &BTreeMap<String, Vec<Size>>, spec: &LayoutSpec) -> PaperFit {
        let points = support
            .iter()
            .flat_map(|(c, v)| v.iter().map(move |&(p, d)| Point { pop: p as f64, dim: d as f64, class: c.clone() }))
            .collect();
        PaperFit::new("the caption's support vectors", points, spec)
    }

    fn new(source: &'static str, points: Vec<Point>, spec: &LayoutSpec) -> PaperFit {
        let fit = if points.is_empty() { Err("the paper classes no size".into()) } else { fit(&points, spec) };
        PaperFit { source, points, fit }
    }

    /// The support vectors of the fit per class.
    pub fn support(&self) -> BTreeMap<String, BTreeSet<Size>> {
        support_of(&self.fit)
    }
}

/// The SVMs of the spec's settings (cost, features) over some classed sizes.
fn fit(points: &[Point], spec: &LayoutSpec) -> Result<Vec<Boundary>, String> {
    svm::fit_regions_in(points, *spec.settings.svm_cost, spec.settings.svm_features)
}

/// The support vectors of some boundaries per class.
fn support_of(fit: &Result<Vec<Boundary>, String>) -> BTreeMap<String, BTreeSet<Size>> {
    let mut by: BTreeMap<String, BTreeSet<Size>> = BTreeMap::new();
    for b in fit.iter().flatten() {
        for (class, pts) in [(&b.lower, &b.support_lower), (&b.upper, &b.support_upper)] {
            by.entry(class.clone()).or_default().extend(pts.iter().map(|&(p, d)| (p as usize, d as usize)));
        }
    }
    by
}

/// The paper's winner of a Table 1 row by the rule applied here: the fastest
/// mean, unless another column's 95% interval of the difference (Welch, from
/// the paper's mean ± sd over its `tries`) includes zero; then a tie.
pub fn paper_standing(r: &Table1Row, tries: usize) -> Standing {
    let ran: Vec<(&'static str, [f64; 2])> = PAPER_CLASSES.iter().filter_map(|c| r.paper(c).map(|p| (*c, p))).collect();
    let Some(&(fastest, [mean, sd])) = ran.iter().min_by(|x, y| x.1[0].total_cmp(&y.1[0])) else { return Standing::Missing };
    let n = tries as f64;
    let mut tied = vec![fastest];
    tied.extend(
        ran.iter()
            .filter(|(c, [m, s])| {
                let (va, vb) = (sd * sd / n, s * s / n);
                let df = (va + vb).powi(2) / ((va * va + vb * vb) / (n - 1.0));
                *c != fastest && m - mean <= stats::t975(df) * (va + vb).sqrt()
            })
            .map(|(c, _)| *c),
    );
    if tied.len() == 1 { Standing::Won(fastest, tries) } else { Standing::Tie(tied, tries, None) }
}

/// One figure's classes and regions on one set of sizes.
pub struct Figure {
    pub name: String,
    pub function: Function,
    /// The figure's classes and support vectors in the paper.
    pub paper_classes: Vec<String>,
    pub paper_support: BTreeMap<String, Vec<Size>>,
    /// The SVMs fitted to the paper's own classed sizes.
    pub paper_fit: PaperFit,
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
        support_of(&self.fit)
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
        let profile = if m.measurements().any(|r| r.str(col::PROFILE) == "paper") { "paper" } else { "quick" };
        Analysis::of_profile(m, spec, profile)
    }

    pub fn of_profile(m: &MachineRecords, spec: &LayoutSpec, profile: &str) -> Analysis {
        let (cells, gpu_ran, gpu_absent) = index(m.measurements().filter(|r| r.str(col::PROFILE) == profile));
        let reasons = cells.values().filter_map(|c| if let Cell::CannotRun(r) = c { Some(r.as_str()) } else { None });
        let s3_here = limits::here(m, reasons);
        let mut a = Analysis {
            profile: profile.to_owned(),
            cells,
            gpu_ran,
            gpu_absent,
            min_n: *spec.settings.min_n,
            table1: spec.table1_sizes(),
            paper_s3_nan: spec.table1.iter().filter(|r| r.s3.is_none()).map(|r| r.size()).collect(),
            figures: vec![],
            grid: vec![],
            s3_here,
        };
        // Each figure's SVMs fitted on its own core (a fit of ~100 sizes takes seconds; the fits are independent).
        use rayon::prelude::*;
        let fitted: Vec<(Figure, Figure)> = spec
            .figures
            .par_iter()
            .map(|fig| {
                let f = fig.function();
                let paper = if fig.sweep == Sweep::Table1 { PaperFit::of_table1(spec) } else { PaperFit::of_caption(&fig.support(), spec) };
                let named = |sizes: Vec<Size>| (fig.figure.clone(), f, fig.classes(), fig.support(), paper.clone(), sizes);
                (a.figure(named(spec.sweep_sizes(fig.sweep)), spec), a.figure(named(a.sizes(f)), spec))
            })
            .collect();
        (a.figures, a.grid) = fitted.into_iter().unzip();
        a
    }

    fn figure(&self, (name, function, paper_classes, paper_support, paper_fit, sizes): FigureParts, spec: &LayoutSpec) -> Figure {
        let (mut points, mut undecided, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for &(p, d) in &sizes {
            match self.winner(function, (p, d)) {
                Standing::Won(c, _) => points.push(Point { pop: p as f64, dim: d as f64, class: c.into() }),
                Standing::Missing => missing.push((p, d)),
                other => undecided.push(((p, d), other)),
            }
        }
        let fit = if points.is_empty() { Err("no size has a winner".into()) } else { fit(&points, spec) };
        Figure { name, function, paper_classes, paper_support, paper_fit, sizes, points, undecided, missing, fit }
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

    /// The tries of a strategy at a size that `metric` reads, if it ran.
    pub fn times(&self, f: Function, size: Size, class: &str, metric: Metric) -> Option<Vec<f64>> {
        self.timed(f, size, class)?.tries(class, metric)
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
    /// is slower by Welch's 95% interval over their tries ([`judge::order`]);
    /// those it does not separate tie with it.
    pub fn standing(&self, f: Function, size: Size, classes: &[&'static str], metric: Metric) -> Standing {
        let cells: Vec<(&'static str, Option<&Cell>)> = classes.iter().map(|&c| (c, self.get(f, size, c))).collect();
        if let Some(why) = cells.iter().find_map(|(_, x)| if let Some(Cell::NotRun(why)) = x { Some(why) } else { None }) {
            return Standing::NotRun(why.clone());
        }
        let mut ran: Vec<(&'static str, Vec<f64>)> = Vec::new();
        for (c, cell) in cells {
            match cell {
                None => return Standing::Missing,
                Some(Cell::NotRun(_) | Cell::CannotRun(_)) => {}
                Some(Cell::Ok(t)) => match t.tries(c, metric) {
                    Some(xs) => ran.push((c, xs)),
                    None => return Standing::Missing,
                },
            }
        }
        let Some(n) = ran.iter().map(|(_, xs)| xs.len()).min().filter(|n| *n > 0) else {
            return Standing::Missing;
        };
        if n < self.min_n {
            return Standing::TooFew { n, needs: self.min_n };
        }
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
        ran.sort_by(|a, b| mean(&a.1).total_cmp(&mean(&b.1)));
        let (fastest, tries) = (ran[0].0, &ran[0].1);
        let mut tied = vec![fastest];
        let mut ties = Vec::new();
        for (c, xs) in &ran[1..] {
            let f = judge::order(tries, xs, Comparison::Less);
            if !f.holds() {
                tied.push(*c);
                ties.push(f);
            }
        }
        match judge::all_of(&ties) {
            Finding::Holds => Standing::Won(fastest, n),
            Finding::Undecided { n_needed, .. } => Standing::Tie(tied, n, n_needed),
            // The fastest mean is never significantly slower: only with times that are not numbers.
            Finding::Fails(_) => Standing::Tie(tied, n, None),
        }
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

type FigureParts = (String, Function, Vec<String>, BTreeMap<String, Vec<Size>>, PaperFit, Vec<Size>);

/// Groups rows by (function, size, strategy): the timed tries, else why it did not run.
fn index<'a>(rows: impl Iterator<Item = &'a Record>) -> (BTreeMap<(Function, Size, String), Cell>, bool, String) {
    // Each row with its case, its try and what it measured.
    type Tried<'a> = (&'a Record, Try, Measured);
    let mut groups: BTreeMap<(Function, Size, String), Vec<Tried>> = BTreeMap::new();
    for r in rows {
        let (Ok(case), Ok(t), Ok(m)) = (r.row::<SizeCase>(), r.row::<Try>(), r.row::<Measured>()) else { continue };
        let Some(f) = Function::from_name(&case.function) else { continue };
        groups.entry((f, (case.pop, case.dim), t.strategy.clone())).or_default().push((r, t, m));
    }
    let mut cells = BTreeMap::new();
    let mut gpu_ran = false;
    let mut gpu_absent = String::new();
    for (key, rows) in groups {
        let timed: Vec<&Measured> = rows.iter().filter(|(r, t, _)| t.phase == TIMED && r.is_ok()).map(|(_, _, m)| m).collect();
        let walls: Vec<f64> = timed.iter().filter_map(|m| m.wall_ms).collect();
        let cell = if let Some(summary) = Summary::of(&walls) {
            let events: Vec<f64> = timed.iter().filter_map(|m| m.events_ms).collect();
            Cell::Ok(Timed {
                walls,
                summary,
                block: timed[0].block_size.map(i64::from),
                kernels: timed.iter().filter_map(|m| m.kernel_ms).collect(),
                events_median: (!events.is_empty()).then(|| stats::median(&events)),
                kernel_loop: rows.iter().find(|(_, t, _)| t.phase == KERNEL_LOOP).and_then(|(_, _, m)| m.kernel_ms),
                transposes: timed.iter().filter_map(|m| m.transpose_ms).collect(),
                transpose_threads: timed[0].transpose_threads.map(|t| t as i64),
            })
        } else if let Some((r, _, _)) = rows.iter().find(|(r, _, _)| r.str(col::STATUS) == "cannot_run") {
            Cell::CannotRun(r.str(col::REASON).to_owned())
        } else {
            Cell::NotRun(rows.first().map_or("", |(r, _, _)| r.str(col::REASON)).to_owned())
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
    use super::super::spec::tests::shipped;
    use super::super::testing::Fake;
    use super::*;
    use crate::svm::Features;

    #[test]
    fn a_winner_needs_the_interval_ties_and_too_few_decide_nothing() {
        let s = (100, 100);
        let f = Function::Rosenbrock;
        let fake = Fake::new().size("rosenbrock", s, &[("sequential", 1.0), ("S1", 2.0), ("S2", 2.0), ("S3", 3.0), ("S4", 1.5)]);
        assert_eq!(fake.analysis().winner(f, s), Standing::Won("sequential", 20));
        // S4 within 0.05% of sequential: inside the tries' ±0.2% spread.
        let tie = Fake::new().size("rosenbrock", s, &[("sequential", 1.0), ("S1", 2.0), ("S2", 2.0), ("S3", 3.0), ("S4", 1.0005)]);
        let w = tie.analysis().winner(f, s);
        let Standing::Tie(first, 20, Some(need)) = &w else { panic!("{w:?}") };
        assert_eq!(first, &vec!["sequential", "S4"]);
        assert!(*need > 20, "a tie needs more tries to separate: {need}");
        assert_eq!((w.group_wins(&["sequential"]), w.group_wins(&["S3", "S4"])), (None, None));
        assert_eq!(w.label(), "tie: sequential, S4 (n = 20)");
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

    #[test]
    fn s4_paying_its_transposition_is_a_second_standing() {
        let (f, s) = (Function::Rosenbrock, (2000, 500));
        let means = [("sequential", 1.0), ("S1", 2.0), ("S2", 2.0), ("S3", 3.0), ("S4", 0.8)];
        let fake = Fake::new().size("rosenbrock", s, &means);
        let a = fake.analysis();
        assert_eq!(a.winner(f, s), Standing::Won("S4", 20));
        // Without recorded transpositions there is nothing to add.
        assert_eq!(a.standing(f, s, &PAPER_CLASSES, Metric::Transposed), Standing::Missing);
        let a = fake.transposition("rosenbrock", s, 0.5).analysis();
        assert_eq!(a.winner(f, s), Standing::Won("S4", 20), "the paper's measure leaves the transposition out");
        assert_eq!(a.standing(f, s, &PAPER_CLASSES, Metric::Transposed), Standing::Won("sequential", 20));
        let with = a.timed(f, s, "S4").unwrap().with_transposition().unwrap();
        assert!((with.iter().sum::<f64>() / 20.0 - 1.3).abs() < 1e-3, "{with:?}");
    }

    #[test]
    fn the_paper_s_own_winners_follow_the_same_rule() {
        let spec = shipped().1;
        let row = |s: Size| spec.table1.iter().find(|r| r.size() == s).unwrap();
        assert_eq!(paper_standing(row((100, 100)), 20), Standing::Won("sequential", 20));
        assert_eq!(paper_standing(row((2000, 500)), 20), Standing::Won("S4", 20));
        // 22.425 ± 0.049 against 22.426 ± 0.034 and 22.431 ± 0.064: inside the tries' spread.
        assert_eq!(paper_standing(row((4000, 4000)), 20).label(), "tie: S4, S1, S2 (n = 20)");
    }

    /// Figure 1 is the LinearSVM of Table 1 (Section 4.1): its caption's support
    /// vectors follow from Table 1's winners in linear features, the boundary
    /// 2·population + dimension = 3750 with 1000×1000 and 500×2000 on the
    /// sequential margin and 1500×1500 (and 2000×500, which the caption leaves
    /// out) on S4's; in log10 features they do not.
    #[test]
    fn table1_s_winners_through_the_svm_against_figure_1_s_caption() {
        let mut spec = shipped().1;
        let caption = &spec.figures[0].support();
        assert_eq!(caption["sequential"], vec![(1000, 1000), (500, 2000)]);
        assert_eq!(caption["S4"], vec![(1500, 1500)]);
        assert_eq!(spec.settings.svm_features, Features::Linear);
        let paper = PaperFit::of_table1(&spec);
        // Table 1's 4000×4000 is a tie by the paper's own times: 11 sizes classed.
        assert_eq!(paper.points.len(), 11);
        let support = paper.support();
        assert_eq!(support["sequential"], BTreeSet::from([(1000, 1000), (500, 2000)]));
        assert_eq!(support["S4"], BTreeSet::from([(1500, 1500), (2000, 500)]));
        let b = &paper.fit.as_ref().unwrap()[0];
        assert!((b.w[0] / b.w[1] - 2.0).abs() < 1e-3 && (b.rho / b.w[1] - 3750.0).abs() < 1.0, "{b:?}");
        spec.settings.svm_features = Features::Log10;
        let support = PaperFit::of_table1(&spec).support();
        assert_eq!(support["sequential"], BTreeSet::from([(1000, 1000)]));
        assert_eq!(support["S4"], BTreeSet::from([(2000, 500), (1000, 4000)]));
    }
}
