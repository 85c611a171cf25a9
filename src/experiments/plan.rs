//! `evorepro reproduce --dry-run`: the cases a profile would run, grouped by
//! figure, with the memory and the resource each needs ([`Footprint`],
//! [`Resource`]) and a time estimated from stored records, without running or
//! writing anything.
//!
//! Estimates come from one machine's records, the *basis*: this machine when it
//! has timed records of the paper, else the one named by `--estimate-from`, else
//! the machine with the most timed cases (said so). A case's time is its own
//! earlier run on the basis (the same id and parameters, from any profile), else
//! the basis's median seconds per unit of case weight over its timed cases of the
//! same figure, else over all its timed cases (a stated rough model), else the
//! same case on another machine (named), else unknown.
//!
//! Here too: which of a paper's claims a profile can decide on a machine, and
//! why not ([`foresee`]), for the dry run and `list`; and the spread of a run's
//! repeated timings ([`Repeats`]), which a run warns of and a report notes.

use super::{Case, Footprint, Paper};
use crate::records::MachineRecords;
use crate::records::{Record, Value};
use crate::report::Table;
use std::collections::BTreeMap;

/// Record column: seconds the whole case took (every row of the case carries it).
pub const CASE_SECONDS: &str = "case_s";

/// What one case occupies while it runs, so that cases can share a node: the
/// issue's three resources. A case that uses the GPU where there is one records
/// other rows with a GPU than without (its GPU methods' results instead of "not
/// run here"), so only a rank with a GPU may run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Resource {
    /// One CPU thread: any rank may run it beside others.
    CpuThread,
    /// Every CPU core (rayon): needs no GPU.
    CpuCores,
    /// One GPU (and the host threads that drive it and time its CPU baselines).
    Gpu,
}

impl Resource {
    pub fn label(self) -> &'static str {
        match self {
            Resource::CpuThread => "one CPU thread",
            Resource::CpuCores => "all CPU cores",
            Resource::Gpu => "one GPU",
        }
    }
}

/// The next case for a worker, removed from `queue` (case indices, longest last):
/// a worker with a GPU takes the longest GPU case left, else the longest other
/// case; a worker without takes the longest case that needs no GPU. None when
/// nothing left suits the worker.
pub fn next_case(queue: &mut Vec<usize>, resources: &[Resource], has_gpu: bool) -> Option<usize> {
    let at = if has_gpu {
        queue.iter().rposition(|&i| resources[i] == Resource::Gpu).or_else(|| queue.len().checked_sub(1))
    } else {
        queue.iter().rposition(|&i| resources[i] != Resource::Gpu)
    }?;
    Some(queue.remove(at))
}

/// Where a case's estimated time comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Estimate {
    /// Its own earlier run on the basis machine.
    Measured(f64),
    /// The basis machine's seconds per unit of case weight × the case's weight.
    Model(f64),
    /// The same case on another machine.
    Elsewhere {
        seconds: f64,
        hw_id: String,
    },
    Unknown,
}

impl Estimate {
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Estimate::Measured(s) | Estimate::Elsewhere { seconds: s, .. } | Estimate::Model(s) => Some(*s),
            Estimate::Unknown => None,
        }
    }
}

/// How far past the heaviest timed case of its figure the model still
/// estimates a case (by weight); beyond, the case has no model estimate.
pub const EXTRAPOLATION: u64 = 100;

/// Whether `row` is a run of `case`: the same id and the same parameters (a case
/// of another profile may share the id with other generations or sizes).
fn same_case(row: &Record, case: &Case) -> bool {
    use crate::records::Value;
    let number = |v: &Value| match *v {
        Value::Int(x) => Some(x as f64),
        Value::Float(x) => Some(x),
        _ => None,
    };
    row.str("case_id") == case.id
        && case.params.cells().all(|(k, want)| match want {
            Value::Int(_) | Value::Float(_) => number(want) == row.float(k),
            _ => want == row.get(k),
        })
}

/// Stored case times: per case id, per machine, the latest run's seconds.
pub struct CaseTimes {
    by_case: BTreeMap<String, BTreeMap<String, (i64, f64)>>,
    /// The machine whose records estimate.
    pub basis: String,
    /// The basis machine's median seconds per unit of weight, per figure, and
    /// the heaviest timed case of the figure (the model is not stretched past
    /// [`EXTRAPOLATION`] times it).
    per_weight: BTreeMap<String, (f64, u64)>,
    /// The commits of the basis machine's timed cases.
    pub commits: std::collections::BTreeSet<String>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[v.len() / 2])
}

impl CaseTimes {
    /// Times of `cases` from `machines`, estimated from `basis`'s records; `known`
    /// are the cases of every profile (their weights give the model its rates).
    pub fn new(machines: &[MachineRecords], basis: &str, cases: &[Case], known: &[Case]) -> CaseTimes {
        let mut by_case: BTreeMap<String, BTreeMap<String, (i64, f64)>> = BTreeMap::new();
        let mut ids: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
        for c in cases.iter().chain(known) {
            ids.entry(c.id.as_str()).or_default().push(c);
        }
        let mut rates: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
        let mut heaviest: BTreeMap<String, u64> = BTreeMap::new();
        let mut commits = std::collections::BTreeSet::new();
        for m in machines {
            for r in m.measurements() {
                let Some(s) = r.float(CASE_SECONDS) else { continue };
                let Some(list) = ids.get(r.str("case_id")) else { continue };
                let run = r.int("run_id").unwrap_or(0);
                if let Some(c) = cases.iter().find(|c| c.id == r.str("case_id") && same_case(r, c)) {
                    let e = by_case.entry(c.id.clone()).or_default().entry(m.hw_id.clone()).or_insert((run, s));
                    if run > e.0 {
                        *e = (run, s);
                    }
                }
                if m.hw_id == basis
                    && let Some(c) = list.iter().find(|c| same_case(r, c))
                {
                    // One rate per case (its rows all carry the same case_s).
                    rates.entry(group(c)).or_default().insert(format!("{}@{run}", c.id), s / c.weight.max(1) as f64);
                    let w = heaviest.entry(group(c)).or_insert(0);
                    *w = (*w).max(c.weight.max(1));
                    commits.insert(r.str("git_commit").to_owned());
                }
            }
        }
        let per_weight =
            rates.into_iter().filter_map(|(g, r)| Some((g.clone(), (median(r.into_values().collect())?, heaviest[&g])))).collect();
        CaseTimes { by_case, basis: basis.to_owned(), per_weight, commits }
    }

    pub fn estimate(&self, case: &Case) -> Estimate {
        let runs = self.by_case.get(&case.id);
        if let Some(&(_, s)) = runs.and_then(|r| r.get(&self.basis)) {
            return Estimate::Measured(s);
        }
        // Weights are in each figure's own units, so a rate serves its figure
        // only, and only near the weights it was measured at.
        if let Some(&(k, heaviest)) = self.per_weight.get(&group(case))
            && case.weight.max(1) <= heaviest.saturating_mul(EXTRAPOLATION)
        {
            return Estimate::Model(k * case.weight.max(1) as f64);
        }
        match runs.and_then(|r| r.iter().next()) {
            Some((hw, &(_, s))) => Estimate::Elsewhere { seconds: s, hw_id: hw.clone() },
            None => Estimate::Unknown,
        }
    }
}

/// How like this machine another is, by their ids (`<gpu>__<cpu>__<threads>t`):
/// the same GPU (`cpu-only` for none) first, then the same CPU family (the CPU
/// up to its model number), so that a machine without a GPU is estimated from
/// another CPU-only machine, one of its own CPU family first, before any GPU host.
fn likeness(this_hw: &str, hw: &str) -> (bool, bool) {
    let parts = |id: &str| {
        let mut p = id.split("__");
        let gpu = p.next().unwrap_or("").to_owned();
        let cpu = p.next().unwrap_or("");
        (gpu, cpu.split("-model-").next().unwrap_or(cpu).to_owned())
    };
    let ((gpu, family), (their_gpu, their_family)) = (parts(this_hw), parts(hw));
    (gpu == their_gpu, family == their_family)
}

/// The machine whose records estimate, and a line saying which when it is not
/// this machine: among the machines `wanted` names (an `hw_id` or a part of
/// one; this machine when None), the one with the most timed rows; when none of
/// them has any, the most similar machine with timed rows ([`likeness`]; of
/// equals, the one with the most). Err names the machines when `wanted` matches none.
pub fn basis(machines: &[MachineRecords], this_hw: &str, wanted: Option<&str>) -> Result<(String, Option<String>), String> {
    let timed = |m: &MachineRecords| m.measurements().filter(|r| r.float(CASE_SECONDS).is_some()).count();
    let most =
        |it: &mut dyn Iterator<Item = &MachineRecords>| it.filter(|m| timed(m) > 0).max_by_key(|m| timed(m)).map(|m| m.hw_id.clone());
    let named = match wanted {
        Some(w) => {
            let hits: Vec<&MachineRecords> = machines.iter().filter(|m| m.hw_id.contains(w)).collect();
            if hits.is_empty() {
                let names: Vec<String> = machines.iter().map(|m| format!("`{}`", m.hw_id)).collect();
                return Err(format!("--estimate-from `{w}` names no machine with records (they are: {})", names.join(", ")));
            }
            most(&mut hits.into_iter())
        }
        None => most(&mut machines.iter().filter(|m| m.hw_id == this_hw)),
    };
    let which = wanted.map_or_else(|| "this machine".to_owned(), |w| format!("`{w}`"));
    Ok(match (named, most(&mut machines.iter())) {
        (Some(hw), _) if hw == this_hw => (hw, None),
        (Some(hw), _) => (hw.clone(), Some(format!("Estimated from the records of `{hw}` (--estimate-from)."))),
        (None, Some(_)) => {
            let hw = machines
                .iter()
                .filter(|m| timed(m) > 0)
                .max_by_key(|m| (likeness(this_hw, &m.hw_id), timed(m)))
                .map(|m| m.hw_id.clone())
                .expect("a machine with timed rows");
            let line = format!("No timed records of {which}: estimated from `{hw}`, the most similar machine with records.");
            (hw, Some(line))
        }
        (None, None) => (this_hw.to_owned(), None),
    })
}

/// A profile in one line for `evorepro list`: its cases and the time they
/// would take, estimated as `--dry-run` does (this machine's records, else the
/// most similar machine's, named; cases with no estimate counted).
pub fn profile_line(cases: &[Case], known: &[Case], machines: &[MachineRecords], this_hw: &str) -> String {
    let (basis, _) = basis(machines, this_hw, None).expect("no machine named");
    let times = CaseTimes::new(machines, &basis, cases, known);
    let known: Vec<f64> = cases.iter().filter_map(|c| times.estimate(c).seconds()).collect();
    let n = cases.len();
    let from = if basis == this_hw || known.is_empty() { String::new() } else { format!(" (estimated from `{basis}`)") };
    format!("{n} case{}, {}{from}", if n == 1 { "" } else { "s" }, fmt_partial(known.iter().sum(), n - known.len(), n))
}

/// Repeated timings of one case (the same point and method) whose slowest is
/// more than this many times its fastest, over two repeats or more, are
/// flagged, as hyperfine flags outliers: other work, a clock that changed or
/// an unstable timing spread them, and their mean hides it.
pub const SPREAD_FACTOR: f64 = 1.5;

/// Timings under this many milliseconds are left out of the spread check: the
/// clock's resolution and a cold cache alone spread them.
pub const SPREAD_MIN_MS: f64 = 1.0;

/// The case parameters that tell repeats of one point apart: its run's index and seed.
const REPEAT_KEYS: [&str; 2] = ["run", "seed"];

/// A timing column's value in milliseconds, by the unit its name carries (`_ms`, `_s`).
fn millis(column: &str, value: f64) -> Option<f64> {
    let ms = if column.ends_with("_ms") {
        value
    } else if column.ends_with("_s") {
        value * 1e3
    } else {
        return None;
    };
    (ms.is_finite() && ms > 0.0).then_some(ms)
}

/// How a paper's rows time one repetition of a method, for the spread check.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// The column that names the method.
    pub method: &'static str,
    /// The columns that time one repetition: a row's first with a value.
    pub columns: &'static [&'static str],
    /// Only rows whose column holds this value (layout's timed tries, not its
    /// block-size search).
    pub only: Option<(&'static str, &'static str)>,
}

impl Timing {
    /// A row's timing of a repetition, in milliseconds, and its column.
    fn of(&self, row: &Record) -> Option<(&'static str, f64)> {
        if self.only.is_some_and(|(k, v)| row.str(k) != v) {
            return None;
        }
        self.columns.iter().find_map(|c| Some((*c, millis(c, row.float(c)?)?)))
    }
}

/// Where repeated timings belong together: a point (the case's parameters but
/// its run and seed), a method and a timing column.
type RepeatKey = (String, String, String);

/// Repeated timings of the same case: per [`RepeatKey`], the cases and their times.
#[derive(Debug, Default)]
pub struct Repeats {
    times: BTreeMap<RepeatKey, (Vec<String>, Vec<f64>)>,
}

/// A case whose repeated timings spread more than [`SPREAD_FACTOR`].
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// The point's first case, and how many cases repeat it.
    pub case: String,
    pub cases: usize,
    pub method: String,
    pub column: String,
    pub timings: usize,
    /// The slowest timing over the fastest.
    pub factor: f64,
}

impl Spread {
    /// "case table1/l30/r0 (and 4 repeats of it), sboa `total_ms`: 5 timings, the slowest 1.73× the fastest".
    pub fn label(&self) -> String {
        let more = match self.cases {
            1 => String::new(),
            n => format!(" (and {} repeat{} of it)", n - 1, if n == 2 { "" } else { "s" }),
        };
        format!(
            "case {}{more}, {} `{}`: {} timings, the slowest {:.2}× the fastest",
            self.case, self.method, self.column, self.timings, self.factor
        )
    }
}

impl Repeats {
    /// Adds the timings of `rows`, the rows of `case`, each under its method.
    pub fn add<'r>(&mut self, case: &Case, rows: impl IntoIterator<Item = &'r Record>, timing: &Timing) {
        let point: Vec<String> = case.params.cells().filter(|(k, _)| !REPEAT_KEYS.contains(k)).map(|(k, v)| format!("{k}={v}")).collect();
        for r in rows {
            let Some((column, ms)) = timing.of(r) else { continue };
            let (cases, times) = self.times.entry((point.join(","), r.str(timing.method).to_owned(), column.to_owned())).or_default();
            if !cases.contains(&case.id) {
                cases.push(case.id.clone());
            }
            times.push(ms);
        }
    }

    /// The cases whose timings of at least [`SPREAD_MIN_MS`] (two or more)
    /// spread more than [`SPREAD_FACTOR`], widest first.
    pub fn spread(&self) -> Vec<Spread> {
        let mut out: Vec<Spread> = self
            .times
            .iter()
            .filter_map(|((_, method, column), (cases, t))| {
                let t: Vec<f64> = t.iter().copied().filter(|ms| *ms >= SPREAD_MIN_MS).collect();
                let (lo, hi) = (t.iter().copied().fold(f64::INFINITY, f64::min), t.iter().copied().fold(0.0, f64::max));
                (t.len() >= 2 && hi / lo > SPREAD_FACTOR).then(|| Spread {
                    case: cases[0].clone(),
                    cases: cases.len(),
                    method: method.clone(),
                    column: column.clone(),
                    timings: t.len(),
                    factor: hi / lo,
                })
            })
            .collect();
        out.sort_by(|a, b| b.factor.total_cmp(&a.factor));
        out
    }

    /// A run's one warning line: how many cases spread, and the widest.
    pub fn warning(&self) -> Option<String> {
        let spread = self.spread();
        let widest = spread.first()?;
        let others = match spread.len() {
            1 => String::new(),
            2 => " (1 more case too; the report's Runs section names it)".to_owned(),
            n => format!(" ({} more cases too; the report's Runs section counts them and names the widest)", n - 1),
        };
        Some(format!(
            "repeated timings spread more than {SPREAD_FACTOR}× (slowest over fastest): {}{others}; their means may hide other work or an unstable timing",
            widest.label()
        ))
    }
}

/// The report's note on spread repeats (beside the busy-machine note): per
/// machine and profile, at one commit, the cases of `cases(profile)` whose
/// repeated timings spread more than [`SPREAD_FACTOR`], the widest three named.
pub fn spread_note(machines: &[MachineRecords], cases: impl Fn(&str) -> Option<Vec<Case>>, timing: &Timing) -> Option<String> {
    let mut lines = Vec::new();
    for m in machines {
        let mut runs: BTreeMap<(String, String), BTreeMap<String, Vec<&Record>>> = BTreeMap::new();
        for r in m.measurements() {
            let key = (r.str("profile").to_owned(), r.str("git_commit").to_owned());
            runs.entry(key).or_default().entry(r.str("case_id").to_owned()).or_default().push(r);
        }
        for ((profile, commit), by_case) in runs {
            let Some(planned) = cases(&profile) else { continue };
            let mut repeats = Repeats::default();
            for c in &planned {
                if let Some(rows) = by_case.get(&c.id) {
                    repeats.add(c, rows.iter().copied(), timing);
                }
            }
            let spread = repeats.spread();
            if spread.is_empty() {
                continue;
            }
            let named: Vec<String> = spread.iter().take(3).map(Spread::label).collect();
            let more = if spread.len() > 3 { format!("; {} more", spread.len() - 3) } else { String::new() };
            lines.push(format!(
                "**Spread repeats:** `{}`, profile `{profile}` at `{commit}`: {} case{} whose repeated timings spread more than \
                 {SPREAD_FACTOR}× (slowest over fastest, timings of {SPREAD_MIN_MS} ms or more): {}{more}. Their means may hide \
                 other work or an unstable timing.",
                m.hw_id,
                spread.len(),
                if spread.len() == 1 { "" } else { "s" },
                named.join("; ")
            ));
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n\n"))
}

/// The GPUs a machine offers a claim's evidence: how many, and why none.
#[derive(Clone, Debug, PartialEq)]
pub struct GpusHere {
    pub count: usize,
    /// Why there are none ("libcuda not found", "--backend cpu").
    pub absent: String,
}

impl GpusHere {
    /// This machine's CUDA devices, as a run would find them.
    pub fn probe() -> GpusHere {
        match crate::gpu::probe() {
            Ok(count) => GpusHere { count, absent: String::new() },
            Err(crate::error::GpuError::Unavailable(why)) => GpusHere { count: 0, absent: why },
            Err(e) => GpusHere { count: 0, absent: e.to_string() },
        }
    }
}

/// Why a profile cannot decide a claim on a machine, known before it runs,
/// from the claim's `needs`, its `min_n` and `reduced_budget`, and the
/// profile's cases; in the order the judge would meet them.
#[derive(Clone, Debug, PartialEq)]
pub enum Blocked {
    /// The profile plans none of the cases it reads (the filter they miss).
    NoCases(String),
    /// Its evidence is measured on `needs` GPUs; the machine has `have` (why none).
    Gpus { needs: usize, have: usize, why: String },
    /// Its evidence would lie below the paper's budget, which it does not tolerate.
    ReducedBudget(crate::claims::Budget),
    /// A smoke profile never decides a paper claim ([`crate::claims::smoke_gate`]).
    Smoke,
    /// Fewer runs per point than the claim's `min_n`: inconclusive at best.
    TooFewRuns { runs: usize, needs: usize },
}

impl Blocked {
    pub fn label(&self) -> String {
        match self {
            Blocked::NoCases(filter) => format!("the profile plans none of its cases ({filter})"),
            Blocked::Gpus { needs: 1, have: 0, why } => format!("needs a GPU (none here: {why})"),
            Blocked::Gpus { needs, have: 0, why } => format!("needs {needs} GPUs (none here: {why})"),
            Blocked::Gpus { needs, have, .. } => format!("needs {needs} GPUs ({have} here)"),
            Blocked::ReducedBudget(b) => b.label(),
            Blocked::Smoke => "smoke profile: it decides no paper claim".into(),
            Blocked::TooFewRuns { runs, needs } => {
                format!("too few runs for its n ({runs} per point, it needs {needs}): inconclusive at best")
            }
        }
    }

    /// What `list` counts: "need a GPU", "smoke profile", …
    pub fn kind(&self) -> &'static str {
        match self {
            Blocked::NoCases(_) => "not in this profile",
            Blocked::Gpus { have: 0, .. } => "need a GPU",
            Blocked::Gpus { .. } => "need more GPUs",
            Blocked::ReducedBudget(_) => "reduced budget",
            Blocked::Smoke => "smoke profile",
            Blocked::TooFewRuns { .. } => "too few runs",
        }
    }
}

/// What a profile can do for one claim on a machine, before it runs.
#[derive(Clone, Debug)]
pub struct Foresight<'c> {
    pub claim: &'c crate::spec::ClaimSpec,
    /// Why it cannot decide it; None: nothing the spec tells stops it.
    pub blocked: Option<Blocked>,
    /// A budget below the paper's that the claim tolerates (its verdict will say so).
    pub reduced: Option<crate::claims::Budget>,
}

/// What `cases` (a profile's, `smoke` or not) can do for `claim` on a machine
/// with the GPUs `here`: the claim's cases must be planned, its GPUs present,
/// its budget the paper's (unless it tolerates less), the profile no smoke
/// test (for a paper claim) and each point's runs at least its `min_n`.
/// "Decides" is an upper bound: the sizes the records end up holding, a
/// stand-in data set or a spread too wide for the runs are known only after
/// the run.
pub fn foresee<'c>(claim: &'c crate::spec::ClaimSpec, cases: &[Case], smoke: bool, here: &GpusHere) -> Foresight<'c> {
    let needs = &claim.needs;
    let matching = |f: &BTreeMap<String, crate::spec::Wanted>| -> Vec<&Case> {
        cases.iter().filter(|c| f.iter().all(|(k, w)| w.admits(c.params.get(k)))).collect()
    };
    let read: Vec<Vec<&Case>> =
        if needs.cases.is_empty() { vec![cases.iter().collect()] } else { needs.cases.iter().map(matching).collect() };
    let blocked = |b| Foresight { claim, blocked: Some(b), reduced: None };
    if let Some(i) = read.iter().position(Vec::is_empty) {
        let filter =
            needs.cases.get(i).map_or("no cases".into(), |f| f.iter().map(|(k, w)| format!("{k} {w}")).collect::<Vec<_>>().join(", "));
        return blocked(Blocked::NoCases(filter));
    }
    if needs.gpus > here.count {
        return blocked(Blocked::Gpus { needs: needs.gpus, have: here.count, why: here.absent.clone() });
    }
    // A case two filters match is read once.
    let mut read: Vec<&Case> = read.into_iter().flatten().collect();
    read.sort_by(|a, b| a.id.cmp(&b.id));
    read.dedup_by(|a, b| a.id == b.id);
    let budget = needs.budget.as_ref().and_then(|b| {
        let product = |c: &Case| b.of.iter().map(|k| c.params.float(k)).product::<Option<f64>>();
        let used = read.iter().filter_map(|c| product(c)).reduce(f64::min)?;
        Some(crate::claims::Budget::new(used, b.paper, b.of.join(" × "))).filter(|b| b.is_reduced())
    });
    if let Some(b) = &budget
        && claim.reduced_budget == crate::spec::ReducedBudget::Gate
    {
        return blocked(Blocked::ReducedBudget(b.clone()));
    }
    if smoke && claim.provenance == crate::spec::Provenance::Paper {
        return blocked(Blocked::Smoke);
    }
    if let (Some(key), Some(min_n)) = (&needs.runs, claim.min_n()) {
        let mut points: BTreeMap<String, usize> = BTreeMap::new();
        for c in &read {
            let point: Vec<String> = c.params.cells().filter(|(k, _)| k != key && *k != "seed").map(|(k, v)| format!("{k}={v}")).collect();
            *points.entry(point.join(",")).or_default() += 1;
        }
        let runs = points.into_values().min().unwrap_or(0);
        if runs < min_n {
            return blocked(Blocked::TooFewRuns { runs, needs: min_n });
        }
    }
    Foresight { claim, blocked: None, reduced: budget }
}

/// A profile's claims in one line for `list`: "decides 5 of 12 claims here; 7 need a GPU".
pub fn foresight_line(all: &[Foresight]) -> String {
    let decided = all.iter().filter(|f| f.blocked.is_none()).count();
    let mut why: Vec<(&str, usize)> = Vec::new();
    for b in all.iter().filter_map(|f| f.blocked.as_ref()) {
        match why.iter_mut().find(|(k, _)| *k == b.kind()) {
            Some((_, n)) => *n += 1,
            None => why.push((b.kind(), 1)),
        }
    }
    let why: Vec<String> = why.into_iter().map(|(k, n)| format!("{n} {k}")).collect();
    let rest = if why.is_empty() { String::new() } else { format!("; {}", why.join(", ")) };
    format!("decides {decided} of {} claims here{rest}", all.len())
}

/// The dry run's claims section: for each claim whether the profile can decide
/// it here, and why not.
pub fn foresight_table(all: &[Foresight]) -> String {
    let mut t = Table::new(&["claim", "whose", "this profile here"]);
    for f in all {
        let here = match (&f.blocked, &f.reduced) {
            (Some(b), _) => format!("cannot decide: {}", b.label()),
            (None, Some(b)) => format!("decides, its verdict labelled {}", b.label()),
            (None, None) => "decides".into(),
        };
        t.row(vec![format!("`{}`", f.claim.id), f.claim.provenance.label().into(), here]);
    }
    let mut md = format!("{}.\n\n", foresight_line(all));
    md += &t.render();
    md += "\n*Decides*: nothing the spec tells stops it (its cases are planned, with the GPUs, budget and runs per point it \
           needs, and a smoke profile decides no paper claim); whether the records then hold its sizes, rest on a stand-in \
           data set or spread too widely for their runs is known only after the run.\n";
    md
}

/// The figure a case belongs to: its id up to the first `/`, with its
/// single-threaded cases (`single_thread`: ECGA's Figure 5 runs of the CPU
/// baselines) apart, since their time grows otherwise with the case weight.
fn group(case: &Case) -> String {
    let figure = case.id.split('/').next().unwrap_or(&case.id);
    if case.params.get("single_thread") == &Value::Bool(true) { format!("{figure} (single-threaded)") } else { figure.to_owned() }
}

/// Progress without a terminal: a line per finished case with the elapsed time
/// and the time left (by case weight), at most one every 10 s, and the last case.
pub struct BatchLog {
    on: bool,
    cases: usize,
    total_weight: u64,
    started: std::time::Instant,
    done: usize,
    last_line: Option<std::time::Instant>,
}

impl BatchLog {
    pub fn new(on: bool, cases: usize, total_weight: u64) -> BatchLog {
        BatchLog { on, cases, total_weight, started: std::time::Instant::now(), done: 0, last_line: None }
    }

    /// A case finished; `done_weight` is the weight finished so far.
    pub fn finished(&mut self, paper: &str, case: &str, done_weight: u64) {
        self.done += 1;
        let now = std::time::Instant::now();
        let due = self.last_line.is_none_or(|t| now.duration_since(t).as_secs() >= 10) || self.done == self.cases;
        if self.on && due {
            self.last_line = Some(now);
            crate::say!("{}", self.line(paper, case, self.done, done_weight, self.started.elapsed().as_secs_f64()));
        }
    }

    fn line(&self, paper: &str, case: &str, done: usize, done_weight: u64, elapsed: f64) -> String {
        let left = elapsed * (self.total_weight.saturating_sub(done_weight)) as f64 / done_weight.max(1) as f64;
        format!("{paper}: {done}/{} cases, {case} done; {} elapsed, about {} left", self.cases, fmt_duration(elapsed), fmt_duration(left))
    }
}

fn fmt_duration(s: f64) -> String {
    match s {
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 5400.0 => format!("{:.0} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

fn fmt_bytes(bytes: u64) -> String {
    match bytes as f64 {
        b if b >= f64::from(1u32 << 30) => format!("{:.1} GiB", b / f64::from(1u32 << 30)),
        b => format!("{:.1} MiB", b / f64::from(1u32 << 20)),
    }
}

/// The known part of a time, with how many cases it lacks.
fn fmt_partial(secs: f64, unknown: usize, of: usize) -> String {
    match unknown {
        0 => fmt_duration(secs),
        u if u == of => "unknown".into(),
        u => format!("≥ {} ({u} cases unknown)", fmt_duration(secs)),
    }
}

/// The time `times` take on `lanes` ranks run side by side, each case (longest
/// first) going to the rank with the least time so far (LPT scheduling, as the
/// MPI dispatcher hands out cases): the largest rank's time.
pub fn makespan(times: &[f64], lanes: usize) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut load = vec![0.0f64; lanes.max(1)];
    for t in sorted {
        let least = (0..load.len()).min_by(|&a, &b| load[a].total_cmp(&load[b])).expect("at least one lane");
        load[least] += t;
    }
    load.into_iter().fold(0.0, f64::max)
}

/// What the dry run shows.
pub struct DryRun<'a> {
    pub paper: &'a dyn Paper,
    pub cases: &'a [Case],
    pub times: &'a CaseTimes,
    pub this_hw: &'a str,
    /// `--gpus`: the time on this many GPUs (one rank each) too.
    pub gpus: usize,
}

impl DryRun<'_> {
    /// The Markdown: one row per figure (cases, already stored here, the resource
    /// they need, the largest case's memory, estimated time and where it comes
    /// from), the totals per resource, then the time on one GPU and on `gpus`.
    /// `stored` tells whether a case's rows are already in this machine's records
    /// (skipped by `--resume`).
    pub fn render(&self, stored: impl Fn(&Case) -> bool) -> String {
        let (paper, cases, times) = (self.paper, self.cases, self.times);
        let mut groups: Vec<(String, Vec<&Case>)> = Vec::new();
        for c in cases {
            match groups.iter_mut().find(|(g, _)| *g == group(c)) {
                Some((_, list)) => list.push(c),
                None => groups.push((group(c), vec![c])),
            }
        }
        let basis = if times.basis == self.this_hw { "this machine".to_owned() } else { format!("`{}`", times.basis) };
        let mut t = Table::new(&[
            "figure",
            "cases",
            "stored here",
            "needs",
            "largest host memory",
            "largest device memory",
            "estimated time",
            "from",
        ]);
        let (mut total, mut unknown, mut total_todo) = (0.0, 0, 0.0);
        // Per resource: cases, cases to run, their estimated seconds, cases to run without an estimate.
        let mut per_resource: BTreeMap<Resource, (usize, usize, f64, usize)> = BTreeMap::new();
        let mut todo_times = Vec::new();
        for (name, list) in &groups {
            let mut largest = Footprint::default();
            let (mut secs, mut sources) = (0.0, BTreeMap::<String, usize>::new());
            let mut needs = BTreeMap::<Resource, usize>::new();
            let (mut done, mut missing) = (0, 0);
            for c in list {
                let f = paper.footprint(c);
                largest.host_bytes = largest.host_bytes.max(f.host_bytes);
                largest.device_bytes = largest.device_bytes.max(f.device_bytes);
                let resource = paper.resource(c);
                *needs.entry(resource).or_default() += 1;
                let e = times.estimate(c);
                let source = match &e {
                    Estimate::Measured(_) => basis.clone(),
                    Estimate::Model(_) => "model".to_owned(),
                    Estimate::Elsewhere { hw_id, .. } => format!("`{hw_id}`"),
                    Estimate::Unknown => "unknown".to_owned(),
                };
                *sources.entry(source).or_default() += 1;
                let r = per_resource.entry(resource).or_default();
                r.0 += 1;
                match e.seconds() {
                    Some(s) => {
                        secs += s;
                        if !stored(c) {
                            total_todo += s;
                            r.2 += s;
                            todo_times.push(s);
                        }
                    }
                    None => {
                        missing += 1;
                        r.3 += usize::from(!stored(c));
                    }
                }
                r.1 += usize::from(!stored(c));
                done += usize::from(stored(c));
            }
            total += secs;
            unknown += missing;
            let from: Vec<String> = sources.into_iter().map(|(s, n)| format!("{s} ({n})")).collect();
            let needs: Vec<String> = match needs.len() {
                1 => needs.keys().map(|r| r.label().to_owned()).collect(),
                _ => needs.into_iter().map(|(r, n)| format!("{} ({n})", r.label())).collect(),
            };
            t.row(vec![
                (*name).to_owned(),
                list.len().to_string(),
                done.to_string(),
                needs.join(", "),
                fmt_bytes(largest.host_bytes),
                fmt_bytes(largest.device_bytes),
                fmt_partial(secs, missing, list.len()),
                from.join(", "),
            ]);
        }
        let stored_n = cases.iter().filter(|c| stored(c)).count();
        let todo_n = cases.len() - stored_n;
        let unknown_todo = cases.iter().filter(|c| !stored(c) && times.estimate(c) == Estimate::Unknown).count();
        let mut md = t.render();
        md += &format!(
            "\n{} cases, {stored_n} already stored here; estimated time {} in all, {} for the cases not yet stored (`--resume`).\n\n",
            cases.len(),
            fmt_partial(total, unknown, cases.len()),
            fmt_partial(total_todo, unknown_todo, todo_n),
        );
        let mut r = Table::new(&["needs", "cases", "not yet stored", "their estimated time"]);
        for (resource, (n, todo, secs, missing)) in per_resource {
            r.row(vec![resource.label().to_owned(), n.to_string(), todo.to_string(), fmt_partial(secs, missing, todo)]);
        }
        md += &r.render();
        let lanes: Vec<usize> = if self.gpus > 1 { vec![1, self.gpus] } else { vec![1] };
        let spans: Vec<String> = lanes
            .iter()
            .map(|&g| {
                format!("{} on {g} GPU{}", fmt_partial(makespan(&todo_times, g), unknown_todo, todo_n), if g == 1 { "" } else { "s" })
            })
            .collect();
        md += &format!(
            "\nThe cases not yet stored take {}: one rank per GPU, each case (longest first) to the GPU with the least \
             estimated time so far (the MPI hand-out); the longest case alone takes {}.\n",
            spans.join(", "),
            fmt_duration(todo_times.iter().copied().fold(0.0, f64::max)),
        );
        md += &format!(
            "Estimates: a case's own earlier run (same id and parameters, any profile) on {basis}, else {basis}'s median \
             seconds per unit of case weight over its timed cases of the same figure, for cases at most {EXTRAPOLATION}× \
             the heaviest of them (model), else the same case on the machine named; records from before `case_s` was recorded have no times.\n"
        );
        if !times.commits.is_empty() {
            let commits: Vec<String> = times.commits.iter().map(|c| format!("`{c}`")).collect();
            md += &format!("The timed records of {basis} are of commit {}.\n", commits.join(", "));
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    /// Rows of a timed case, for tests.
    fn timed(hw: &str, case: &str, run_id: i64, secs: f64) -> Record {
        Record::new()
            .with("hw_id", hw)
            .with("record_kind", "measurement")
            .with("profile", "quick")
            .with("case_id", case)
            .with("run_id", run_id)
            .with(CASE_SECONDS, secs)
    }

    fn case(id: &str, weight: u64) -> Case {
        Case { id: id.into(), params: Record::new(), weight }
    }

    impl Case {
        fn with_param(mut self, key: &str, value: bool) -> Case {
            self.params = self.params.with(key, value);
            self
        }
    }

    fn claim(extra: &str) -> crate::spec::ClaimSpec {
        toml::from_str(&format!("id = \"c\"\nsource = \"s\"\ntext = \"t\"\ncheck = \"c\"\n{extra}")).unwrap()
    }

    /// Each reason a profile cannot decide a claim on a machine, from the claim's needs and the profile's cases.
    #[test]
    fn foresight_says_why_a_profile_cannot_decide_a_claim() {
        let run = |figure: &str, ell: i64, r: i64, generations: i64| Case {
            id: format!("{figure}/l{ell}/r{r}"),
            params: Record::new()
                .with("figure", figure)
                .with("ell", ell)
                .with("run", r)
                .with("generations", generations)
                .with("seed", 7 * r + ell),
            weight: 1,
        };
        let mut cases: Vec<Case> = (0..3).flat_map(|r| [run("table1", 30, r, 200), run("table1", 60, r, 200)]).collect();
        cases.push(run("speed", 190, 0, 200));
        let none = GpusHere { count: 0, absent: "libcuda not found".into() };
        let one = GpusHere { count: 1, absent: String::new() };
        let blocked = |extra: &str, smoke: bool, here: &GpusHere| foresee(&claim(extra), &cases, smoke, here).blocked.map(|b| b.label());
        assert_eq!(blocked("", false, &none), None);
        assert_eq!(blocked("needs = { gpus = 1 }", false, &none).as_deref(), Some("needs a GPU (none here: libcuda not found)"));
        assert_eq!(blocked("needs = { gpus = 1 }", false, &one), None);
        assert_eq!(blocked("needs = { gpus = 2 }", false, &one).as_deref(), Some("needs 2 GPUs (1 here)"));
        // Each filter must match a case: a value, a range, names.
        assert_eq!(blocked("needs = { cases = [{ figure = \"table1\", ell = [1, 50] }] }", false, &none), None);
        assert_eq!(
            blocked("needs = { cases = [{ figure = \"table1\" }, { figure = [\"fig5\", \"fig7\"], ell = [100, 500] }] }", false, &none)
                .as_deref(),
            Some("the profile plans none of its cases (ell in [100, 500], figure one of fig5, fig7)")
        );
        // A smoke profile decides no paper claim; the harness's own checks it does.
        assert_eq!(blocked("", true, &none).as_deref(), Some("smoke profile: it decides no paper claim"));
        assert_eq!(blocked("provenance = \"harness\"", true, &none), None);
        // Runs per point (the cases that differ only in `run` and `seed`) against the claim's min_n: the speed case's one run is not read.
        let runs = "needs = { cases = [{ figure = \"table1\" }], runs = \"run\" }\nparams = { min_n = ";
        assert_eq!(blocked(&format!("{runs}3 }}"), false, &none), None);
        assert_eq!(
            blocked(&format!("{runs}4 }}"), false, &none).as_deref(),
            Some("too few runs for its n (3 per point, it needs 4): inconclusive at best")
        );
        assert_eq!(
            blocked("needs = { runs = \"run\" }\nparams = { min_n = 2 }", false, &none).map(|_| ()),
            Some(()),
            "the speed case has one run"
        );
        // Below the paper's budget: gated unless the claim tolerates it, then decided and labelled.
        let budget = "needs = { budget = { of = [\"generations\", \"ell\"], paper = 20000 } }";
        assert_eq!(blocked(budget, false, &none).as_deref(), Some("reduced budget (6000 of the paper's 20000 generations × ell)"));
        let judged = claim(&format!("{budget}\nreduced_budget = \"judge\""));
        let f = foresee(&judged, &cases, false, &none);
        assert_eq!((f.blocked, f.reduced.map(|b| b.used)), (None, Some(6000.0)));
        // In the judge's order: the GPU before the smoke profile.
        assert_eq!(blocked("needs = { gpus = 1 }", true, &none).as_deref(), Some("needs a GPU (none here: libcuda not found)"));
        let claims = [claim(""), claim("needs = { gpus = 1 }"), claim("needs = { gpus = 3 }"), claim("provenance = \"harness\"")];
        let all: Vec<Foresight> = claims.iter().map(|c| foresee(c, &cases, true, &none)).collect();
        assert_eq!(foresight_line(&all), "decides 1 of 4 claims here; 1 smoke profile, 2 need a GPU");
        let table = foresight_table(&all);
        assert!(table.starts_with("decides 1 of 4 claims here;") && table.contains("| `c` | harness | decides |"), "{table}");
    }

    fn repeat(ell: i64, r: i64) -> Case {
        let params = Record::new().with("figure", "table1").with("ell", ell).with("run", r).with("seed", 11 * r + ell);
        Case { id: format!("table1/l{ell}/r{r}"), params, weight: 1 }
    }

    const TOTAL: Timing = Timing { method: "method", columns: &["total_ms"], only: None };

    fn timed_row(method: &str, ms: f64) -> Record {
        Record::new().with("method", method).with("total_ms", ms)
    }

    /// Repeats of a point (cases that differ only in run and seed) whose timings of one method spread past the
    /// factor are flagged with it; steady methods, a lone timing and sub-millisecond timings are not.
    #[test]
    fn repeated_timings_that_spread_are_flagged_with_their_factor() {
        let mut rep = Repeats::default();
        for (r, (slow, fast, tiny)) in [(100.0, 50.0, 0.01), (120.0, 52.0, 0.05), (170.0, 55.0, 0.02)].into_iter().enumerate() {
            let not_run = Record::new().with("method", "gboa").with("status", "not_run");
            let rows = [timed_row("sboa", slow), timed_row("pboa", fast), timed_row("pboa-mt", tiny), not_run];
            rep.add(&repeat(30, r as i64), &rows, &TOTAL);
        }
        rep.add(&repeat(60, 0), &[timed_row("sboa", 10.0)], &TOTAL);
        let spread = rep.spread();
        assert_eq!(spread.len(), 1, "{spread:?}");
        let s = &spread[0];
        assert_eq!((s.case.as_str(), s.cases, s.method.as_str(), s.timings), ("table1/l30/r0", 3, "sboa", 3));
        assert!((s.factor - 1.7).abs() < 1e-12, "{}", s.factor);
        let w = rep.warning().unwrap();
        let named = "case table1/l30/r0 (and 2 repeats of it), sboa `total_ms`: 3 timings, the slowest 1.70× the fastest";
        assert!(w.contains(named) && w.contains(&format!("more than {SPREAD_FACTOR}×")) && !w.contains("more case"), "{w}");
        // At the factor exactly, nothing; rows of one case repeat too, and seconds count as milliseconds.
        let mut at = Repeats::default();
        at.add(&repeat(30, 0), &[timed_row("sboa", 100.0), timed_row("sboa", 100.0 * SPREAD_FACTOR)], &TOTAL);
        assert_eq!(at.warning(), None);
        let mut secs = Repeats::default();
        let eval = |s: f64, phase: &str| Record::new().with("strategy", "serial").with("eval_s", s).with("phase", phase);
        let timing = Timing { method: "strategy", columns: &["total_ms", "eval_s"], only: Some(("phase", "timed")) };
        secs.add(&repeat(30, 0), &[eval(0.002, "timed"), eval(0.005, "timed"), eval(0.5, "search")], &timing);
        assert_eq!(secs.spread().first().map(|x| (x.column.as_str(), x.timings, x.factor)), Some(("eval_s", 2, 2.5)));
        // A sub-millisecond timing is left out alone; the others of its case still spread.
        let mut mixed = Repeats::default();
        mixed.add(&repeat(30, 0), &[timed_row("sboa", 0.5), timed_row("sboa", 2.0), timed_row("sboa", 5.0)], &TOTAL);
        assert_eq!(mixed.spread().first().map(|x| (x.timings, x.factor)), Some((2, 2.5)));
    }

    /// The report's note names the machine, the profile and commit, and the widest cases, from the stored rows.
    #[test]
    fn the_spread_note_names_machine_profile_and_cases() {
        let stored = |hw: &str, commit: &str, r: i64, ms: f64| {
            timed_row("sboa", ms)
                .with("hw_id", hw)
                .with("record_kind", "measurement")
                .with("profile", "cpu")
                .with("git_commit", commit)
                .with("case_id", format!("table1/l30/r{r}"))
        };
        let rows =
            vec![stored("m", "abc", 0, 100.0), stored("m", "abc", 1, 240.0), stored("n", "abc", 0, 100.0), stored("n", "abc", 1, 110.0)];
        let machines = crate::records::by_machine(rows, None);
        let planned = |p: &str| (p == "cpu").then(|| vec![repeat(30, 0), repeat(30, 1)]);
        let note = spread_note(&machines, planned, &TOTAL).unwrap();
        assert!(note.starts_with("**Spread repeats:** `m`, profile `cpu` at `abc`: 1 case whose"), "{note}");
        assert!(note.contains("the slowest 2.40× the fastest") && !note.contains("`n`"), "{note}");
        assert_eq!(spread_note(&machines, |_| None, &TOTAL), None);
    }

    #[test]
    fn batch_lines_say_cases_done_elapsed_and_left() {
        let log = BatchLog::new(true, 4, 100);
        assert_eq!(log.line("island", "grid/a", 1, 25, 30.0), "island: 1/4 cases, grid/a done; 30 s elapsed, about 2 min left");
        assert_eq!(log.line("island", "grid/d", 4, 100, 7200.0), "island: 4/4 cases, grid/d done; 2.0 h elapsed, about 0 s left");
    }

    #[test]
    fn estimates_prefer_the_basis_then_its_figure_rate_then_another_machine() {
        let rows = vec![
            timed("here", "grid/a", 1, 10.0),
            timed("here", "grid/a", 2, 12.0),
            timed("there", "grid/a", 1, 99.0),
            timed("there", "grid/b", 1, 30.0),
            timed("there", "speed/c", 1, 5.0),
        ];
        let machines = crate::records::by_machine(rows, Some("here"));
        let cases = [case("grid/a", 4), case("grid/b", 2), case("speed/c", 8), case("ring/d", 1)];
        let t = CaseTimes::new(&machines, "here", &cases, &[]);
        // The latest run of the basis, not another machine's.
        assert_eq!(t.estimate(&cases[0]), Estimate::Measured(12.0));
        // 12 s for weight 4 here: 3 s per unit of grid weight, × 2 (before `there`'s 30 s).
        assert_eq!(t.estimate(&cases[1]), Estimate::Model(6.0));
        // No speed case here: weights of another figure say nothing of it, so
        // the same case on another machine, named.
        assert_eq!(t.estimate(&cases[2]), Estimate::Elsewhere { seconds: 5.0, hw_id: "there".into() });
        // Far past the heaviest timed grid case (weight 4): no model estimate.
        assert_eq!(t.estimate(&case("grid/x", 4 * EXTRAPOLATION)), Estimate::Model(3.0 * (4 * EXTRAPOLATION) as f64));
        assert_eq!(t.estimate(&case("grid/x", 4 * EXTRAPOLATION + 1)), Estimate::Unknown);
        let there = CaseTimes::new(&machines, "there", &cases, &[]);
        assert_eq!(there.estimate(&cases[2]), Estimate::Measured(5.0));
        let none = CaseTimes::new(&[], "here", &cases, &[]);
        assert_eq!(none.estimate(&cases[2]), Estimate::Unknown);
        // A basis without rates: another machine's run of the same case, named.
        let lone = CaseTimes::new(&machines, "elsewhere", &cases, &[]);
        assert_eq!(lone.estimate(&cases[1]), Estimate::Elsewhere { seconds: 30.0, hw_id: "there".into() });
    }

    #[test]
    fn single_threaded_cases_of_a_figure_are_estimated_apart() {
        let one = |id: &str, weight: u64| Case { id: id.into(), params: Record::new().with("single_thread", true), weight };
        let rows = vec![
            timed("here", "fig5/a", 1, 10.0).with("single_thread", false),
            timed("here", "fig5/b", 1, 500.0).with("single_thread", true),
        ];
        let machines = crate::records::by_machine(rows, Some("here"));
        let timed_cases = [case("fig5/a", 10).with_param("single_thread", false), one("fig5/b", 10)];
        let t = CaseTimes::new(&machines, "here", &timed_cases, &[]);
        // 1 s per unit of weight for the multi-threaded runs, 50 s for the single-threaded ones.
        assert_eq!(t.estimate(&case("fig5/c", 20).with_param("single_thread", false)), Estimate::Model(20.0));
        assert_eq!(t.estimate(&one("fig5/d", 20)), Estimate::Model(1000.0));
    }

    #[test]
    fn a_case_of_another_profile_with_other_parameters_is_not_a_measurement() {
        let mut row = timed("here", "grid/a", 1, 10.0).with("generations", 100);
        let mut c = case("grid/a", 5);
        c.params = Record::new().with("generations", 500);
        let machines = crate::records::by_machine(vec![row.clone()], Some("here"));
        // The same id, 500 generations planned, 100 stored: not this case; the model scales by weight.
        let other = Case { params: Record::new().with("generations", 100), ..case("grid/a", 1) };
        let t = CaseTimes::new(&machines, "here", std::slice::from_ref(&c), std::slice::from_ref(&other));
        assert_eq!(t.estimate(&c), Estimate::Model(50.0));
        row.set("generations", 500.0);
        let machines = crate::records::by_machine(vec![row], Some("here"));
        let t = CaseTimes::new(&machines, "here", std::slice::from_ref(&c), &[]);
        assert_eq!(t.estimate(&c), Estimate::Measured(10.0));
    }

    #[test]
    fn the_basis_is_this_machine_the_named_one_or_the_one_with_most_times() {
        let rows = vec![
            timed("gpu-a", "grid/a", 1, 1.0),
            timed("gpu-a", "grid/b", 1, 1.0),
            timed("gpu-b", "grid/a", 1, 1.0),
            Record::new().with("hw_id", "gpu-c").with("record_kind", "measurement").with("case_id", "grid/a"),
        ];
        let machines = crate::records::by_machine(rows, Some("cpu"));
        let (b, said) = basis(&machines, "cpu", None).unwrap();
        assert_eq!(b, "gpu-a");
        assert!(said.unwrap().contains("No timed records of this machine"));
        assert_eq!(basis(&machines, "gpu-b", None).unwrap(), ("gpu-b".to_owned(), None));
        assert_eq!(basis(&machines, "cpu", Some("-b")).unwrap().0, "gpu-b");
        // Of the machines named, the one with the most times.
        assert_eq!(basis(&machines, "cpu", Some("gpu")).unwrap().0, "gpu-a");
        // Named, but without times: the nearest with records, said so.
        let (b, said) = basis(&machines, "cpu", Some("gpu-c")).unwrap();
        assert_eq!(b, "gpu-a");
        assert!(said.unwrap().contains("No timed records of `gpu-c`"));
        let e = basis(&machines, "cpu", Some("tpu")).unwrap_err();
        assert!(e.contains("names no machine") && e.contains("`gpu-a`"), "{e}");
    }

    /// A machine without records is estimated from the most similar one: the same GPU (or none) first, then the same CPU family.
    #[test]
    fn the_basis_of_a_new_machine_is_the_most_similar_with_records() {
        let (h100, epyc) = ("nvidia-h100__intel-xeon-family-6-model-207__16t", "cpu-only__amd-epyc-family-25-model-17__2t");
        let mut rows: Vec<Record> = (0..5).map(|i| timed(h100, &format!("grid/{i}"), 1, 1.0)).collect();
        rows.push(timed(epyc, "grid/a", 1, 9.0));
        let machines = crate::records::by_machine(rows, None);
        let (b, said) = basis(&machines, "cpu-only__amd-epyc-family-25-model-1__2t", None).unwrap();
        assert_eq!(b, epyc);
        assert!(said.unwrap().contains("most similar"));
        assert_eq!(basis(&machines, "nvidia-h200__intel-xeon-family-6-model-207__16t", None).unwrap().0, h100);
        // Another CPU-only machine of another family before any GPU host.
        assert_eq!(basis(&machines, "cpu-only__intel-xeon-family-6-model-85__4t", None).unwrap().0, epyc);
    }

    #[test]
    fn makespan_deals_longest_first_to_the_least_loaded() {
        // 7, 5, 4, 3, 3 on 2, each to the least loaded: 7 | 5, then 4 → 9, 3 → 7 + 3 = 10, 3 → 9 + 3 = 12.
        assert_eq!(makespan(&[3.0, 7.0, 4.0, 5.0, 3.0], 2), 12.0);
        assert_eq!(makespan(&[3.0, 7.0, 4.0, 5.0, 3.0], 1), 22.0);
        assert_eq!(makespan(&[3.0, 7.0], 8), 7.0);
        assert_eq!(makespan(&[], 8), 0.0);
    }

    #[test]
    fn the_hand_out_never_gives_a_gpu_case_to_a_rank_without_one() {
        use Resource::*;
        let resources = [Gpu, CpuThread, Gpu, CpuCores, CpuThread];
        // Longest last: case 2, then 3, 0, 4, 1.
        let mut queue = vec![1, 4, 0, 3, 2];
        // A CPU-only rank: the longest case that needs no GPU, never 2 or 0.
        assert_eq!(next_case(&mut queue, &resources, false), Some(3));
        // A GPU rank: the longest GPU case first, leaving the CPU cases to CPU ranks.
        assert_eq!(next_case(&mut queue, &resources, true), Some(2));
        assert_eq!(next_case(&mut queue, &resources, true), Some(0));
        // No GPU case left: a GPU rank takes CPU cases too.
        assert_eq!(next_case(&mut queue, &resources, true), Some(4));
        let mut gpu_only = vec![0, 2];
        assert_eq!(next_case(&mut gpu_only, &resources, false), None);
        assert_eq!(gpu_only, vec![0, 2]);
        assert_eq!(next_case(&mut queue, &resources, false), Some(1));
        assert_eq!(next_case(&mut queue, &resources, false), None);
    }
}
