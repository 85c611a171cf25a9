//! Rendering: Markdown tables and the parts every paper's report shares
//! (header, hardware table, claims table). Reports are built from raw records
//! only, so `evorepro report` re-renders without rerunning.

pub mod chart;
pub mod generations;
pub mod glance;
pub mod html;
pub mod index;

use crate::claims::ClaimResult;
use crate::records::FingerprintRow;
use crate::records::MachineRecords;
use crate::records::col;
use crate::spec::PaperMeta;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// A Markdown table.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new<S: AsRef<str>>(header: &[S]) -> Table {
        Table { header: header.iter().map(|s| s.as_ref().to_owned()).collect(), rows: vec![] }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        assert_eq!(cells.len(), self.header.len(), "table row width");
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn render(&self) -> String {
        let esc = |s: &String| s.replace('|', "\\|").replace('\n', " ");
        let mut out = format!("| {} |\n", self.header.iter().map(esc).collect::<Vec<_>>().join(" | "));
        out += &format!("|{}\n", "---|".repeat(self.header.len()));
        for r in &self.rows {
            out += &format!("| {} |\n", r.iter().map(esc).collect::<Vec<_>>().join(" | "));
        }
        out
    }
}

/// The hardware table: the paper's machine, then every machine with records.
pub fn hardware_table(meta: &PaperMeta, machines: &[MachineRecords]) -> String {
    let mut t = Table::new(&[
        "machine",
        "GPU",
        "CC",
        "SMs",
        "GPU memory",
        "driver",
        "CPU",
        "cores/threads",
        "RAM",
        "OS",
        "profile",
        "commit",
        "rows",
    ]);
    let h = &meta.hardware;
    t.row(vec![
        "paper".into(),
        h.gpu.clone(),
        "—".into(),
        "—".into(),
        "—".into(),
        format!("CUDA {}", h.cuda),
        h.cpu.clone(),
        "—".into(),
        "—".into(),
        "—".into(),
        "—".into(),
        "—".into(),
        "—".into(),
    ]);
    for m in machines {
        let Some(r) = m.first() else { continue };
        let gpu = r.str(FingerprintRow::gpu_name);
        let mut profiles: Vec<&str> = m.rows.iter().map(|r| r.str(col::PROFILE)).collect();
        profiles.sort();
        profiles.dedup();
        let mut commits: Vec<&str> = m.rows.iter().map(|r| r.str(col::GIT_COMMIT)).collect();
        commits.sort();
        commits.dedup();
        t.row(vec![
            format!("`{}`", m.hw_id),
            if gpu.is_empty() { "none".into() } else { gpu.into() },
            r.str(FingerprintRow::gpu_cc).to_owned(),
            r.int(FingerprintRow::gpu_sms).map_or(String::new(), |v| v.to_string()),
            r.float(FingerprintRow::gpu_mem_gib).map_or(String::new(), |v| format!("{v} GiB")),
            r.str(FingerprintRow::cuda_driver).to_owned(),
            r.str(FingerprintRow::cpu_model).to_owned(),
            format!("{}/{}", r.int(FingerprintRow::cpu_physical_cores).unwrap_or(0), r.int(FingerprintRow::cpu_threads).unwrap_or(0)),
            crate::fmt::opt(r.float(FingerprintRow::mem_gib), 0) + " GiB",
            r.str(FingerprintRow::os).to_owned(),
            profiles.join(", "),
            commits.join(", "),
            m.rows.len().to_string(),
        ]);
    }
    t.render()
}

/// Distinct cases with measurements of one machine, per profile.
pub fn cases_stored(m: &MachineRecords) -> BTreeMap<String, BTreeSet<String>> {
    let mut cases: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in m.measurements() {
        cases.entry(r.str(col::PROFILE).to_owned()).or_default().insert(r.str(col::CASE_ID).to_owned());
    }
    cases
}

/// Of the cases `stored`, those the profile plans now and those it no longer plans.
pub fn planned_and_not(stored: &BTreeSet<String>, planned: &BTreeSet<String>) -> (usize, usize) {
    let done = stored.intersection(planned).count();
    (done, stored.len() - done)
}

/// Every run of every machine: per profile, its commits and the cases stored
/// against the cases the profile plans now (`planned`, their ids; None for a
/// profile the spec no longer has), so an incomplete sweep shows as one, and
/// stored cases the profile no longer plans are counted apart.
pub fn runs_table(machines: &[MachineRecords], planned: impl Fn(&str) -> Option<BTreeSet<String>>) -> String {
    let mut t = Table::new(&["machine", "profile", "commits", "cases stored / planned"]);
    for m in machines {
        let mut profiles: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for r in m.rows.iter().filter(|r| matches!(r.str(col::RECORD_KIND), "measurement" | "ceiling")) {
            profiles.entry(r.str(col::PROFILE)).or_default().insert(r.str(col::GIT_COMMIT));
        }
        let stored = cases_stored(m);
        let none = BTreeSet::new();
        for (profile, commits) in profiles {
            let mine = stored.get(profile).unwrap_or(&none);
            let status = match planned(profile) {
                Some(plan) => {
                    let (done, others) = planned_and_not(mine, &plan);
                    let mut s = format!("{done} / {}", plan.len());
                    if done < plan.len() {
                        s += " (**incomplete**)";
                    }
                    if others > 0 {
                        s += &format!("; {others} stored case(s) the profile no longer plans");
                    }
                    s
                }
                None => format!("{} (profile no longer in the spec)", mine.len()),
            };
            t.row(vec![format!("`{}`", m.hw_id), profile.to_owned(), commits.into_iter().collect::<Vec<_>>().join(", "), status]);
        }
        for (profile, commit, by, rows) in m.superseded() {
            t.row(vec![format!("`{}`", m.hw_id), profile, commit, format!("{rows} rows superseded by the run at {by} (not in any table)")]);
        }
    }
    t.render()
}

/// Measured ceilings of every machine (GB/s).
pub fn ceilings_table(machines: &[MachineRecords]) -> String {
    let names = [
        ("gpu_d2d", "GPU device→device copy"),
        ("gpu_h2d_pinned", "pinned host→device"),
        ("gpu_d2h_pinned", "device→pinned host"),
        ("cpu_read_1t", "CPU read, 1 thread"),
        ("cpu_read_all", "CPU read, all threads"),
    ];
    let mut header = vec!["machine".to_owned()];
    header.extend(names.iter().map(|(_, l)| format!("{l} (GB/s)")));
    header.push("GPU int32 instructions (10⁹/s)".into());
    let mut t = Table::new(&header);
    for m in machines {
        let mut row = vec![format!("`{}`", m.hw_id)];
        row.extend(names.iter().map(|(k, _)| m.ceiling(k).map_or("not run here".into(), |v| format!("{v:.1}"))));
        row.push(match m.ceiling("gpu_int32") {
            Some(v) => format!("{v:.0}"),
            None if m.has_gpu() => "not in these records".into(),
            None => "not run here".into(),
        });
        t.row(row);
    }
    t.render()
}

/// "1.15× [1.02×, 1.31×]": measured over the paper's with its 95% interval.
pub fn ratio_cell(o: &crate::claims::Outcome) -> String {
    match (&o.quantity, o.ratio) {
        (Some(q), _) => ratio_of(&q.ratio),
        (None, Some(r)) => crate::fmt::fmt_ratio(r),
        (None, None) => "—".into(),
    }
}

/// Measured over the paper's with its 95% interval ("0.47× [0.37×, 0.60×]").
pub fn ratio_of(r: &crate::claims::Estimate) -> String {
    use crate::fmt::fmt_ratio;
    if r.is_exact() {
        fmt_ratio(r.value)
    } else if r.high.is_finite() {
        format!("{} [{}, {}]", fmt_ratio(r.value), fmt_ratio(r.low.max(0.0)), fmt_ratio(r.high))
    } else {
        format!("{} (no interval)", fmt_ratio(r.value))
    }
}

/// What the checks measured on machine `hw` outside the paper's range or settings, a row per claim.
pub fn beyond_table(claims: &[ClaimResult], hw: &str) -> Option<String> {
    let mut t = Table::new(&["claim", "measured beyond the paper's range"]);
    for c in claims.iter().filter(|c| c.machine == hw) {
        if let Some(b) = &c.outcome.beyond {
            t.row(vec![format!("`{}`", c.id), b.clone()]);
        }
    }
    (!t.is_empty()).then(|| t.render())
}

/// A note for each machine whose cases started while the 1-minute load average
/// exceeded its threads (as hyperfine warns): how many, and the highest load.
pub fn busy_note(machines: &[MachineRecords]) -> Option<String> {
    let mut lines = Vec::new();
    for m in machines {
        let mut busy: BTreeMap<&str, f64> = BTreeMap::new();
        let mut all = std::collections::BTreeSet::new();
        for r in m.measurements() {
            all.insert(r.str(col::CASE_ID));
            let threads = r.float(FingerprintRow::cpu_threads).unwrap_or(f64::INFINITY);
            if let Some(load) = r.float(crate::hardware::LOAD_AVG_1M).filter(|l| *l > threads) {
                let e = busy.entry(r.str(col::CASE_ID)).or_insert(load);
                *e = e.max(load);
            }
        }
        if let Some(top) = busy.values().copied().reduce(f64::max) {
            lines.push(format!(
                "**Busy machine:** `{}`: {} of {} cases started with the 1-minute load average above its threads (up to {top:.2}); \
                 their times may be slowed by other work.",
                m.hw_id,
                busy.len(),
                all.len()
            ));
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n\n"))
}

/// Verdict counts per machine, each machine linked to its page (`machines/<hw_id>.md`): the opening of every report.
pub fn verdict_summary(claims: &[ClaimResult], machines: &[MachineRecords]) -> String {
    let mut t = Table::new(&["machine (its page)", "claims", "verdicts"]);
    for m in machines {
        let mine: Vec<&ClaimResult> = claims.iter().filter(|c| c.machine == m.hw_id).collect();
        t.row(vec![
            format!("[{}]({MACHINES_DIR}/{}.md) (`{}`)", m.label(), m.hw_id, m.hw_id),
            mine.len().to_string(),
            crate::claims::counts_by_provenance(mine.iter().copied()),
        ]);
    }
    t.render()
}

/// Every "not run here" record of the machines: what (the paper's `column`) and why.
pub fn not_run_table(machines: &[MachineRecords], column: &str) -> Option<String> {
    let mut seen: BTreeMap<(String, String), std::collections::BTreeSet<String>> = BTreeMap::new();
    for m in machines {
        for r in m.measurements().filter(|r| r.str(col::STATUS) == "not_run") {
            let what = if r.str(column).is_empty() { "—" } else { r.str(column) };
            seen.entry((m.hw_id.clone(), r.str(col::REASON).to_owned())).or_default().insert(what.to_owned());
        }
    }
    let mut t = Table::new(&["machine", column, "reason"]);
    for ((hw, reason), what) in seen {
        t.row(vec![format!("`{hw}`"), what.into_iter().collect::<Vec<_>>().join(", "), reason]);
    }
    (!t.is_empty()).then(|| t.render())
}

/// One value the paper states, as `paper_values.csv` lists it.
pub struct PaperValue {
    /// The paper's table or figure ("Table 1", "Figure 5").
    pub figure: String,
    /// The row or curve (strategy, method, set, configuration).
    pub series: String,
    /// What the value is at: its name ("ℓ", "windows") and value ("500", "100×100").
    pub key_name: String,
    pub key: String,
    pub value: f64,
    /// The paper's spread, where it gives one.
    pub sd: Option<f64>,
    pub unit: String,
}

impl PaperValue {
    pub fn new(figure: &str, series: &str, key_name: &str, key: impl ToString, value: f64, unit: &str) -> PaperValue {
        PaperValue {
            figure: figure.into(),
            series: series.into(),
            key_name: key_name.into(),
            key: key.to_string(),
            value,
            sd: None,
            unit: unit.into(),
        }
    }

    pub fn with_sd(mut self, sd: f64) -> PaperValue {
        self.sd = Some(sd);
        self
    }
}

/// Writes `dir/paper_values.csv` beside the records: every value of `values`
/// with the paper's id and `source` (the spec they were read from), so the
/// paper's numbers can be plotted beside the records without reading TOML.
pub fn write_paper_values(dir: &std::path::Path, paper: &str, source: &str, values: &[PaperValue]) -> anyhow::Result<()> {
    let quote = |s: &str| if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() };
    let mut csv = String::from("paper,table_figure,series,key_name,key,value,sd,unit,source\n");
    for v in values {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{}",
            quote(paper),
            quote(&v.figure),
            quote(&v.series),
            quote(&v.key_name),
            quote(&v.key),
            v.value,
            v.sd.map_or(String::new(), |s| s.to_string()),
            quote(&v.unit),
            quote(source)
        );
    }
    Ok(crate::records::write_atomic(&dir.join("paper_values.csv"), csv.as_bytes())?)
}

/// The folder of a paper's machine pages (`<paper>/machines/<hw_id>.md`): every
/// section's part of one machine, where REPORT.md shows one machine a section.
pub const MACHINES_DIR: &str = "machines";

/// The report's opening: title, citation, how it was made.
pub fn header(meta: &PaperMeta, paper_id: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {} — reproduction report\n", meta.title);
    let doi = meta.doi.as_ref().map_or(String::new(), |d| format!(" DOI [{d}](https://doi.org/{d})."));
    let _ = writeln!(s, "{} Published {}.{doi}\n", meta.citation, meta.year);
    let _ = writeln!(
        s,
        "Rendered by `evorepro report {paper_id}` from the raw records in `records/` (Parquet; CSV copies in `records/_csv/`) — \
         every number below was measured on the machine named beside it; the paper's values are quoted from the \
         paper only in columns marked *paper* and as hollow diamonds in the charts (all of them, read from the spec, in \
         [`paper_values.csv`](paper_values.csv)). Regenerate the measurements with `evorepro reproduce {paper_id}`.\n"
    );
    s
}

/// The runs' own ratios of a mean-of-times speedup: their range and n, and
/// how many reach `goal` — a goal met on the mean but not by every run is
/// within the runs' spread.
pub fn run_ratios(ratios: &[f64], goal: Option<f64>) -> String {
    if ratios.len() < 2 {
        return String::new();
    }
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &r| (l.min(r), h.max(r)));
    let reached =
        goal.map_or(String::new(), |g| format!("; {} of {} at or above {g}×", ratios.iter().filter(|&&r| r >= g).count(), ratios.len()));
    format!(" (runs {lo:.1}–{hi:.1}×, n = {}{reached})", ratios.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    /// A report notes the machines whose cases started under a load above their threads; records without the column
    /// (older ones) raise no note.
    #[test]
    fn busy_note_counts_cases_started_under_load() {
        let row = |case: &str, load: Option<f64>| {
            Record::new()
                .with(col::HW_ID, "m")
                .with(col::RECORD_KIND, "measurement")
                .with(col::CASE_ID, case)
                .with(FingerprintRow::cpu_threads, 2)
                .with(crate::hardware::LOAD_AVG_1M, load)
        };
        let machines = vec![MachineRecords {
            hw_id: "m".into(),
            rows: vec![row("a", Some(3.2)), row("a", Some(2.5)), row("b", Some(1.0)), row("c", None)],
        }];
        let note = busy_note(&machines).unwrap();
        assert!(note.contains("`m`: 1 of 3 cases") && note.contains("up to 3.20"), "{note}");
        let calm = vec![MachineRecords { hw_id: "m".into(), rows: vec![row("b", Some(1.0)), row("c", None)] }];
        assert_eq!(busy_note(&calm), None);
    }

    #[test]
    fn run_ratios_show_the_spread_and_the_runs_short_of_the_goal() {
        assert_eq!(run_ratios(&[103.0, 97.3, 107.6], Some(100.0)), " (runs 97.3–107.6×, n = 3; 2 of 3 at or above 100×)");
        assert_eq!(run_ratios(&[15.1, 16.9], None), " (runs 15.1–16.9×, n = 2)");
        assert_eq!(run_ratios(&[120.0], Some(100.0)), "", "one run has no spread to show");
        assert_eq!(run_ratios(&[1.4, 1.6], Some(1.5)), " (runs 1.4–1.6×, n = 2; 1 of 2 at or above 1.5×)");
    }

    #[test]
    fn runs_show_commits_and_incomplete_sweeps() {
        let row = |profile: &str, case: &str, commit: &str| {
            Record::new()
                .with(col::RECORD_KIND, "measurement")
                .with(col::PROFILE, profile)
                .with(col::CASE_ID, case)
                .with(col::GIT_COMMIT, commit)
        };
        let m = MachineRecords {
            hw_id: "m".into(),
            rows: vec![row("quick", "a", "c1"), row("quick", "b", "c1"), row("paper", "a", "c2"), row("old", "x", "c0")],
        };
        let ids = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>());
        let t = runs_table(std::slice::from_ref(&m), |p| match p {
            "quick" => ids(&["a", "b"]),
            "paper" => ids(&["a", "b", "c", "d", "e"]),
            _ => None,
        });
        assert!(t.contains("| `m` | quick | c1 | 2 / 2 |"), "{t}");
        assert!(t.contains("| `m` | paper | c2 | 1 / 5 (**incomplete**) |"), "{t}");
        assert!(t.contains("| `m` | old | c0 | 1 (profile no longer in the spec) |"), "{t}");
        // The profile changed: two cases stored, one of them no longer planned, one planned case missing.
        let t = runs_table(&[m], |p| if p == "quick" { ids(&["a", "z"]) } else { None });
        assert!(t.contains("| `m` | quick | c1 | 1 / 2 (**incomplete**); 1 stored case(s) the profile no longer plans |"), "{t}");
    }

    #[test]
    fn paper_values_quote_commas_and_leave_a_missing_sd_empty() {
        let dir = tempfile::tempdir().unwrap();
        let values = [
            PaperValue::new("Table 2", "sat: evaluation, serial", "windows", 1, 3.6, "s").with_sd(0.2),
            PaperValue::new("Table I", "1 GPU", "island size", 128, 10.7, "×"),
        ];
        write_paper_values(dir.path(), "p", "a.toml [t]", &values).unwrap();
        let csv = std::fs::read_to_string(dir.path().join("paper_values.csv")).unwrap();
        assert_eq!(
            csv,
            "paper,table_figure,series,key_name,key,value,sd,unit,source\n\
             p,Table 2,\"sat: evaluation, serial\",windows,1,3.6,0.2,s,a.toml [t]\n\
             p,Table I,1 GPU,island size,128,10.7,,×,a.toml [t]\n"
        );
    }

    #[test]
    fn table_renders_and_escapes_pipes() {
        let mut t = Table::new(&["a", "b"]);
        t.row(vec!["1".into(), "x|y".into()]);
        assert_eq!(t.render(), "| a | b |\n|---|---|\n| 1 | x\\|y |\n");
    }
}
