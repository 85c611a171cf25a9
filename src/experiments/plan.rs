//! `evorepro reproduce --dry-run`: the cases a profile would run, grouped by
//! figure, with the memory each needs ([`Footprint`]) and a time estimated from
//! stored records, without running or writing anything.
//!
//! A case's time comes from its own earlier run on this machine, else from the
//! same case on another machine (named), else from this machine's seconds per
//! unit of case weight (the median over its timed cases: a stated rough model),
//! else it is unknown.

use super::{Case, Footprint, Paper};
use crate::report::{MachineRecords, Table};
use std::collections::BTreeMap;

/// Record column: seconds the whole case took (every row of the case carries it).
pub const CASE_SECONDS: &str = "case_s";

/// Where a case's estimated time comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Estimate {
    /// Its own earlier run on this machine.
    Measured(f64),
    /// The same case on another machine.
    Elsewhere {
        seconds: f64,
        hw_id: String,
    },
    /// This machine's seconds per unit of case weight × the case's weight.
    Model(f64),
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

/// Stored case times: per case id, per machine, the latest run's seconds.
struct CaseTimes {
    by_case: BTreeMap<String, BTreeMap<String, (i64, f64)>>,
    /// This machine's median seconds per unit of weight, from its timed cases of the plan.
    per_weight: Option<f64>,
}

impl CaseTimes {
    fn new(machines: &[MachineRecords], this_hw: &str, cases: &[Case]) -> CaseTimes {
        let mut by_case: BTreeMap<String, BTreeMap<String, (i64, f64)>> = BTreeMap::new();
        for m in machines {
            for r in m.measurements() {
                let Some(s) = r.float(CASE_SECONDS) else { continue };
                let run = r.int("run_id").unwrap_or(0);
                let e = by_case.entry(r.str("case_id").to_owned()).or_default().entry(m.hw_id.clone()).or_insert((run, s));
                if run > e.0 {
                    *e = (run, s);
                }
            }
        }
        let mut rates: Vec<f64> =
            cases.iter().filter_map(|c| by_case.get(&c.id)?.get(this_hw).map(|&(_, s)| s / c.weight.max(1) as f64)).collect();
        rates.sort_by(f64::total_cmp);
        let per_weight = (!rates.is_empty()).then(|| rates[rates.len() / 2]);
        CaseTimes { by_case, per_weight }
    }

    fn estimate(&self, case: &Case, this_hw: &str) -> Estimate {
        let runs = self.by_case.get(&case.id);
        if let Some(&(_, s)) = runs.and_then(|r| r.get(this_hw)) {
            return Estimate::Measured(s);
        }
        if let Some((hw, &(_, s))) = runs.and_then(|r| r.iter().next()) {
            return Estimate::Elsewhere { seconds: s, hw_id: hw.clone() };
        }
        self.per_weight.map_or(Estimate::Unknown, |k| Estimate::Model(k * case.weight.max(1) as f64))
    }
}

/// A profile in one line for `evorepro list`: its cases and the time they
/// would take, estimated as `--dry-run` does (cases with no estimate counted).
pub fn profile_line(cases: &[Case], machines: &[MachineRecords], this_hw: &str) -> String {
    let times = CaseTimes::new(machines, this_hw, cases);
    let known: Vec<f64> = cases.iter().filter_map(|c| times.estimate(c, this_hw).seconds()).collect();
    let n = cases.len();
    format!("{n} case{}, {}", if n == 1 { "" } else { "s" }, fmt_partial(known.iter().sum(), n - known.len(), n))
}

/// The figure a case belongs to: its id up to the first `/`.
fn group(case: &Case) -> &str {
    case.id.split('/').next().unwrap_or(&case.id)
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
            eprintln!("{}", self.line(paper, case, self.done, done_weight, self.started.elapsed().as_secs_f64()));
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

/// The dry run's Markdown: one row per figure (cases, already stored here, the
/// largest case's memory, estimated time and where it comes from), then totals.
/// `stored` tells whether a case's rows are already in this machine's records
/// (skipped by `--resume`).
pub fn render(paper: &dyn Paper, cases: &[Case], machines: &[MachineRecords], this_hw: &str, stored: impl Fn(&Case) -> bool) -> String {
    let times = CaseTimes::new(machines, this_hw, cases);
    let mut groups: Vec<(&str, Vec<&Case>)> = Vec::new();
    for c in cases {
        match groups.iter_mut().find(|(g, _)| *g == group(c)) {
            Some((_, list)) => list.push(c),
            None => groups.push((group(c), vec![c])),
        }
    }
    let mut t = Table::new(&["figure", "cases", "stored here", "largest host memory", "largest device memory", "estimated time", "from"]);
    let (mut total, mut unknown, mut total_todo) = (0.0, 0, 0.0);
    for (name, list) in &groups {
        let mut largest = Footprint::default();
        let (mut secs, mut sources) = (0.0, BTreeMap::<String, usize>::new());
        let (mut done, mut missing) = (0, 0);
        for c in list {
            let f = paper.footprint(c);
            largest.host_bytes = largest.host_bytes.max(f.host_bytes);
            largest.device_bytes = largest.device_bytes.max(f.device_bytes);
            let e = times.estimate(c, this_hw);
            let source = match &e {
                Estimate::Measured(_) => "this machine".to_owned(),
                Estimate::Elsewhere { hw_id, .. } => format!("`{hw_id}`"),
                Estimate::Model(_) => "model".to_owned(),
                Estimate::Unknown => "unknown".to_owned(),
            };
            *sources.entry(source).or_default() += 1;
            match e.seconds() {
                Some(s) => {
                    secs += s;
                    if !stored(c) {
                        total_todo += s;
                    }
                }
                None => missing += 1,
            }
            done += usize::from(stored(c));
        }
        total += secs;
        unknown += missing;
        let from: Vec<String> = sources.into_iter().map(|(s, n)| format!("{s} ({n})")).collect();
        t.row(vec![
            (*name).to_owned(),
            list.len().to_string(),
            done.to_string(),
            fmt_bytes(largest.host_bytes),
            fmt_bytes(largest.device_bytes),
            fmt_partial(secs, missing, list.len()),
            from.join(", "),
        ]);
    }
    let stored_n = cases.iter().filter(|c| stored(c)).count();
    let mut md = t.render();
    md += &format!(
        "\n{} cases, {stored_n} already stored here; estimated time {} in all, {} for the cases not yet stored (`--resume`).\n",
        cases.len(),
        fmt_partial(total, unknown, cases.len()),
        fmt_partial(
            total_todo,
            cases.iter().filter(|c| !stored(c) && times.estimate(c, this_hw) == Estimate::Unknown).count(),
            cases.len() - stored_n
        ),
    );
    md += "Estimates: a case's own earlier run on this machine, else the same case on the machine named, else \
           this machine's median seconds per unit of case weight (model); times of records from before `case_s` \
           was recorded are unknown.\n";
    md
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

    #[test]
    fn batch_lines_say_cases_done_elapsed_and_left() {
        let log = BatchLog::new(true, 4, 100);
        assert_eq!(log.line("island", "grid/a", 1, 25, 30.0), "island: 1/4 cases, grid/a done; 30 s elapsed, about 2 min left");
        assert_eq!(log.line("island", "grid/d", 4, 100, 7200.0), "island: 4/4 cases, grid/d done; 2.0 h elapsed, about 0 s left");
    }

    #[test]
    fn estimates_prefer_this_machine_then_another_then_the_weight_model() {
        let rows = vec![
            timed("here", "grid/a", 1, 10.0),
            timed("here", "grid/a", 2, 12.0),
            timed("there", "grid/a", 1, 99.0),
            timed("there", "grid/b", 1, 30.0),
        ];
        let machines = crate::report::by_machine(rows, Some("here"));
        let cases = [case("grid/a", 4), case("grid/b", 4), case("speed/c", 8)];
        let t = CaseTimes::new(&machines, "here", &cases);
        // The latest run of this machine, not another machine's.
        assert_eq!(t.estimate(&cases[0], "here"), Estimate::Measured(12.0));
        assert_eq!(t.estimate(&cases[1], "here"), Estimate::Elsewhere { seconds: 30.0, hw_id: "there".into() });
        // 12 s for weight 4 here: 3 s per unit, × 8.
        assert_eq!(t.estimate(&cases[2], "here"), Estimate::Model(24.0));
        let none = CaseTimes::new(&[], "here", &cases);
        assert_eq!(none.estimate(&cases[2], "here"), Estimate::Unknown);
    }
}
