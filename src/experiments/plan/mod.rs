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

mod foresight;
mod repeats;

use super::{Case, Footprint, Paper};
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::report::Table;
use std::collections::BTreeMap;

pub use foresight::{Blocked, Foresight, GpusHere, foresee, foresight_line, foresight_table};
pub use repeats::{Repeats, SPREAD_FACTOR, SPREAD_MIN_MS, Spread, Timing, spread_note};

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
    row.str(col::CASE_ID) == case.id
        && case.params.cells().all(|(k, want)| match want {
            Value::Int(_) | Value::Float(_) => number(want) == row.float(k),
            _ => want == row.get(k),
        })
}

/// Stored case times: per case id, per machine, the latest run's seconds.
pub struct CaseTimes<'a> {
    by_case: BTreeMap<String, BTreeMap<String, (i64, f64)>>,
    /// The machine whose records estimate.
    pub basis: String,
    /// The basis machine's median seconds per unit of weight, per figure, and
    /// the heaviest timed case of the figure (the model is not stretched past
    /// [`EXTRAPOLATION`] times it).
    per_weight: BTreeMap<String, (f64, u64)>,
    /// The commits of the basis machine's timed cases.
    pub commits: std::collections::BTreeSet<String>,
    /// The paper's [`crate::experiments::Plan::group`].
    group: &'a dyn Fn(&Case) -> String,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[v.len() / 2])
}

impl<'a> CaseTimes<'a> {
    /// Times of `cases` from `machines`, estimated from `basis`'s records; `known`
    /// are the cases of every profile (their weights give the model its rates).
    /// `group` is the paper's [`crate::experiments::Plan::group`]: the cases whose times per unit of weight estimate each other.
    pub fn new(machines: &[MachineRecords], basis: &str, cases: &[Case], known: &[Case], group: &'a dyn Fn(&Case) -> String) -> Self {
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
                let Some(list) = ids.get(r.str(col::CASE_ID)) else { continue };
                let run = r.int(col::RUN_ID).unwrap_or(0);
                if let Some(c) = cases.iter().find(|c| c.id == r.str(col::CASE_ID) && same_case(r, c)) {
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
                    commits.insert(r.str(col::GIT_COMMIT).to_owned());
                }
            }
        }
        let per_weight =
            rates.into_iter().filter_map(|(g, r)| Some((g.clone(), (median(r.into_values().collect())?, heaviest[&g])))).collect();
        CaseTimes { by_case, basis: basis.to_owned(), per_weight, commits, group }
    }

    pub fn estimate(&self, case: &Case) -> Estimate {
        let runs = self.by_case.get(&case.id);
        if let Some(&(_, s)) = runs.and_then(|r| r.get(&self.basis)) {
            return Estimate::Measured(s);
        }
        // Weights are in each figure's own units, so a rate serves its figure
        // only, and only near the weights it was measured at.
        if let Some(&(k, heaviest)) = self.per_weight.get(&(self.group)(case))
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
pub fn profile_line(paper: &dyn Paper, cases: &[Case], known: &[Case], machines: &[MachineRecords], this_hw: &str) -> String {
    let (basis, _) = basis(machines, this_hw, None).expect("no machine named");
    let group = |c: &Case| paper.group(c);
    let times = CaseTimes::new(machines, &basis, cases, known, &group);
    let known: Vec<f64> = cases.iter().filter_map(|c| times.estimate(c).seconds()).collect();
    let n = cases.len();
    let from = if basis == this_hw || known.is_empty() { String::new() } else { format!(" (estimated from `{basis}`)") };
    format!("{n} case{}, {}{from}", if n == 1 { "" } else { "s" }, fmt_partial(known.iter().sum(), n - known.len(), n))
}

/// The figure a case belongs to: its id up to the first `/` (the default
/// [`crate::experiments::Plan::group`]).
pub fn figure(case: &Case) -> String {
    case.id.split('/').next().unwrap_or(&case.id).to_owned()
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
    pub times: &'a CaseTimes<'a>,
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
            let group = paper.group(c);
            match groups.iter_mut().find(|(g, _)| *g == group) {
                Some((_, list)) => list.push(c),
                None => groups.push((group, vec![c])),
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
mod tests;
