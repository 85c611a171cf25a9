//! The spread of a run's repeated timings ([`Repeats`]), which a run warns of
//! and a report notes ([`spread_note`]).

use crate::experiments::Case;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use std::collections::BTreeMap;

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
            let key = (r.str(col::PROFILE).to_owned(), r.str(col::GIT_COMMIT).to_owned());
            runs.entry(key).or_default().entry(r.str(col::CASE_ID).to_owned()).or_default().push(r);
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
