//! Rendering: Markdown tables and the parts every paper's report shares
//! (header, hardware table, claims table). Reports are built from raw records
//! only, so `evorepro report` re-renders without rerunning.

pub mod chart;
pub mod generations;
pub mod index;

use crate::claims::ClaimResult;
use crate::records::{Record, Value};
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

/// Records of one machine (one `records/*.parquet` file or several of one hw_id).
#[derive(Clone, Debug)]
pub struct MachineRecords {
    pub hw_id: String,
    pub rows: Vec<Record>,
}

impl MachineRecords {
    /// Measurement rows only (not ceilings).
    pub fn measurements(&self) -> impl Iterator<Item = &Record> {
        self.rows.iter().filter(|r| r.str("record_kind") == "measurement")
    }

    /// Measurement rows where each timed configuration comes from one profile
    /// at one code version: among rows with the same `point` (e.g. figure and
    /// size), the run that measured it last (largest `run_id`) names a commit
    /// and a profile, and every run of that profile at that commit is kept
    /// (issue #44: runs are superseded by run, and runs of one profile at
    /// unchanged code are pooled). Rows without a point are all kept.
    pub fn latest_measurements<K: Ord>(&self, point: impl Fn(&Record) -> Option<K>) -> Vec<&Record> {
        self.latest_runs(point, |r| r.str("profile").to_owned())
    }

    /// As [`Self::latest_measurements`], pooling the runs of every profile at
    /// the latest commit whose `setting` (what changes the measurement beyond
    /// the point, e.g. the generations run) equals the latest run's, so that
    /// one profile's runs never hide another's of the same measurement.
    pub fn pooled_measurements<K: Ord, S: PartialEq>(
        &self,
        point: impl Fn(&Record) -> Option<K>,
        setting: impl Fn(&Record) -> S,
    ) -> Vec<&Record> {
        self.latest_runs(point, setting)
    }

    fn latest_runs<K: Ord, S: PartialEq>(&self, point: impl Fn(&Record) -> Option<K>, setting: impl Fn(&Record) -> S) -> Vec<&Record> {
        let version = |r: &Record| (r.str("git_commit").to_owned(), setting(r));
        let mut latest: BTreeMap<K, (i64, (String, S))> = BTreeMap::new();
        for r in self.measurements() {
            if let Some(k) = point(r) {
                let run = r.int("run_id").unwrap_or(0);
                if latest.get(&k).is_none_or(|(at, _)| *at < run) {
                    latest.insert(k, (run, version(r)));
                }
            }
        }
        self.measurements().filter(|r| point(r).is_none_or(|k| latest.get(&k).is_some_and(|l| l.1 == version(r)))).collect()
    }

    /// The latest measured value of a ceiling, if any: GB/s for bandwidths
    /// (column `gb_per_s`), 10⁹ instructions per second for rates (column
    /// `gop_per_s`), GHz for a core's clock (column `cpu_clock_ghz`).
    pub fn ceiling(&self, name: &str) -> Option<f64> {
        self.ceiling_where(name, |_| true)
    }

    /// The latest value of a ceiling measured by runs of `profile` (the runs
    /// whose measurements a report row compares with it), else the latest of any.
    pub fn ceiling_of_profile(&self, name: &str, profile: &str) -> Option<f64> {
        self.ceiling_where(name, |r| r.str("profile") == profile).or_else(|| self.ceiling(name))
    }

    /// A ceiling measured in this machine's runs, else by `evorepro hw --record`
    /// on the same machine (record kind `hw_ceiling`): for explanations, never
    /// for a kernel's share of a ceiling, which must come from its own run.
    pub fn ceiling_or_hw(&self, name: &str) -> Option<f64> {
        self.ceiling(name).or_else(|| self.latest_of(name, "hw_ceiling", |_| true))
    }

    /// Latest by the run's start time (`run_id`), not by the order the record
    /// files were read in.
    fn ceiling_where(&self, name: &str, keep: impl Fn(&Record) -> bool) -> Option<f64> {
        self.latest_of(name, "ceiling", keep)
    }

    fn latest_of(&self, name: &str, kind: &str, keep: impl Fn(&Record) -> bool) -> Option<f64> {
        self.rows
            .iter()
            .filter(|r| r.str("record_kind") == kind && r.str("ceiling") == name && keep(r))
            .filter_map(|r| Some((r.int("run_id").unwrap_or(0), crate::records::ceiling_value(r)?)))
            .max_by_key(|&(run, _)| run)
            .map(|(_, v)| v)
    }

    pub fn has_gpu(&self) -> bool {
        self.rows.iter().any(|r| !r.str("gpu_name").is_empty())
    }

    fn first(&self) -> Option<&Record> {
        self.rows.first()
    }

    /// A short human name: GPU (if any) + CPU.
    pub fn label(&self) -> String {
        let r = match self.first() {
            Some(r) => r,
            None => return self.hw_id.clone(),
        };
        let gpu = r.str("gpu_name");
        if gpu.is_empty() { format!("{} (no GPU)", r.str("cpu_model")) } else { format!("{gpu} + {}", r.str("cpu_model")) }
    }
}

/// The fingerprint fields that make a machine, all but its id and the CPU's
/// signature (which older ids lack).
const FINGERPRINT: [&str; 12] = [
    "cpu_model",
    "cpu_physical_cores",
    "cpu_threads",
    "mem_gib",
    "os",
    "gpu_name",
    "gpu_cc",
    "gpu_sms",
    "gpu_mem_gib",
    "gpu_mem_bus_bits",
    "gpu_max_threads_per_block",
    "cuda_driver",
];

/// The column keeping a row's id as recorded when [`by_machine`] names its machine by another.
pub const HW_ID_RECORDED: &str = "hw_id_recorded";

/// One machine, one id: records from before the CPU's signature joined the id
/// (`…processor__16t`, no `cpu_signature`) belong to the one machine whose
/// fingerprint equals theirs in every other field they recorded (a field an
/// older evorepro did not record matches any value) and that has a signature
/// (`…processor-family-6-model-207__16t`). Old id → canonical id; an old id
/// that two signatures could claim, or one fingerprint of which no signed
/// machine has, keeps its own.
pub fn aliases(rows: &[Record]) -> BTreeMap<String, String> {
    type Key = Vec<Option<String>>;
    let key = |r: &Record| -> Key {
        FINGERPRINT.iter().map(|k| Some(r.get(k)).filter(|v| !matches!(v, Value::Null)).map(|v| v.to_string())).collect()
    };
    // A field an older evorepro did not record matches any value.
    let matches = |old: &Key, new: &Key| old.iter().zip(new).all(|(o, n)| o.is_none() || o == n);
    let mut signed: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    let mut unsigned: BTreeMap<String, BTreeSet<Key>> = BTreeMap::new();
    for r in rows.iter().filter(|r| matches!(r.str("record_kind"), "measurement" | "ceiling" | "hw_ceiling")) {
        if r.str("cpu_signature").is_empty() {
            unsigned.entry(r.str("hw_id").to_owned()).or_default().insert(key(r));
        } else {
            signed.entry(key(r)).or_default().insert(r.str("hw_id").to_owned());
        }
    }
    let mut out = BTreeMap::new();
    for (old, keys) in unsigned {
        // Every fingerprint the old id was recorded with must match a signed
        // machine's, and all of them the same one machine's.
        let per_key: Vec<BTreeSet<&String>> =
            keys.iter().map(|k| signed.iter().filter(|(s, _)| matches(k, s)).flat_map(|(_, ids)| ids).collect()).collect();
        let targets: BTreeSet<&String> = per_key.iter().flatten().copied().collect();
        if let ([new], true) = (targets.into_iter().collect::<Vec<_>>().as_slice(), per_key.iter().all(|t| !t.is_empty()))
            && **new != old
        {
            out.insert(old, (*new).clone());
        }
    }
    out
}

/// Groups rows by machine, this machine first, then by name: aliased ids
/// ([`aliases`]) join their machine (the id recorded kept in
/// [`HW_ID_RECORDED`]), and a profile measured at several commits on one
/// machine keeps the latest run's commit; the earlier commit's rows are
/// marked `superseded` (never measurements), so no table mixes code versions.
pub fn by_machine(mut rows: Vec<Record>, this_hw: Option<&str>) -> Vec<MachineRecords> {
    let alias = aliases(&rows);
    apply_aliases(&mut rows, &alias);
    let mut out: Vec<MachineRecords> = Vec::new();
    for r in rows {
        let id = r.str("hw_id").to_owned();
        match out.iter_mut().find(|m| m.hw_id == id) {
            Some(m) => m.rows.push(r),
            None => out.push(MachineRecords { hw_id: id, rows: vec![r] }),
        }
    }
    for m in &mut out {
        m.supersede();
    }
    out.sort_by_key(|m| (Some(m.hw_id.as_str()) != this_hw, m.hw_id.clone()));
    out
}

/// Names each row's machine by its canonical id (`alias`: old → canonical),
/// keeping the id recorded in [`HW_ID_RECORDED`].
pub fn apply_aliases(rows: &mut [Record], alias: &BTreeMap<String, String>) {
    for r in rows.iter_mut() {
        if let Some(new) = alias.get(r.str("hw_id")) {
            let old = r.str("hw_id").to_owned();
            r.set(HW_ID_RECORDED, old);
            r.set("hw_id", new.clone());
        }
    }
}

impl MachineRecords {
    /// The ids this machine's records were written under besides its own.
    pub fn aliases(&self) -> Vec<String> {
        let set: BTreeSet<&str> = self.rows.iter().map(|r| r.str(HW_ID_RECORDED)).filter(|s| !s.is_empty() && *s != self.hw_id).collect();
        set.into_iter().map(str::to_owned).collect()
    }

    /// Per profile, the rows of every commit but the latest run's become `superseded`.
    fn supersede(&mut self) {
        let mut latest: BTreeMap<String, (i64, String)> = BTreeMap::new();
        for r in self.rows.iter().filter(|r| matches!(r.str("record_kind"), "measurement" | "ceiling")) {
            let run = r.int("run_id").unwrap_or(0);
            let e = latest.entry(r.str("profile").to_owned()).or_insert((run, r.str("git_commit").to_owned()));
            if run > e.0 {
                *e = (run, r.str("git_commit").to_owned());
            }
        }
        for r in self.rows.iter_mut().filter(|r| matches!(r.str("record_kind"), "measurement" | "ceiling")) {
            if let Some((_, commit)) = latest.get(r.str("profile"))
                && r.str("git_commit") != commit
            {
                let by = commit.clone();
                r.set("record_kind", "superseded");
                r.set("superseded_by", by);
            }
        }
    }

    /// The fingerprint as recorded (the first row's fields that are set).
    pub fn fingerprint(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        if let Some(r) = self.rows.iter().find(|r| r.str("record_kind") == "measurement").or(self.rows.first()) {
            for k in FINGERPRINT.iter().chain(&["cpu_signature", "gpu_sm_clock_mhz", "gpu_mem_clock_mhz", "gpu_max_smem_per_block_kib"]) {
                let v = r.get(k).to_string();
                if !v.is_empty() {
                    out.insert((*k).to_owned(), v);
                }
            }
        }
        out
    }

    /// (profile, commit, superseding commit, rows) of every superseded run.
    pub fn superseded(&self) -> Vec<(String, String, String, usize)> {
        let mut n: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for r in self.rows.iter().filter(|r| r.str("record_kind") == "superseded") {
            *n.entry((r.str("profile").to_owned(), r.str("git_commit").to_owned(), r.str("superseded_by").to_owned())).or_default() += 1;
        }
        n.into_iter().map(|((p, c, b), k)| (p, c, b, k)).collect()
    }
}

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |v| format!("{v:.digits$}"))
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
        let gpu = r.str("gpu_name");
        let mut profiles: Vec<&str> = m.rows.iter().map(|r| r.str("profile")).collect();
        profiles.sort();
        profiles.dedup();
        let mut commits: Vec<&str> = m.rows.iter().map(|r| r.str("git_commit")).collect();
        commits.sort();
        commits.dedup();
        t.row(vec![
            format!("`{}`", m.hw_id),
            if gpu.is_empty() { "none".into() } else { gpu.into() },
            r.str("gpu_cc").to_owned(),
            r.int("gpu_sms").map_or(String::new(), |v| v.to_string()),
            r.float("gpu_mem_gib").map_or(String::new(), |v| format!("{v} GiB")),
            r.str("cuda_driver").to_owned(),
            r.str("cpu_model").to_owned(),
            format!("{}/{}", r.int("cpu_physical_cores").unwrap_or(0), r.int("cpu_threads").unwrap_or(0)),
            fmt_opt(r.float("mem_gib"), 0) + " GiB",
            r.str("os").to_owned(),
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
        cases.entry(r.str("profile").to_owned()).or_default().insert(r.str("case_id").to_owned());
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
        for r in m.rows.iter().filter(|r| matches!(r.str("record_kind"), "measurement" | "ceiling")) {
            profiles.entry(r.str("profile")).or_default().insert(r.str("git_commit"));
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

/// The claims table: every claim on every machine, with the measured value over
/// the paper's where the claim is quantitative.
pub fn claims_table(claims: &[ClaimResult]) -> String {
    let mut t = Table::new(&["claim", "whose", "paper says (source)", "machine", "verdict", "measured / paper [95%]", "evidence"]);
    for c in claims {
        let says = match &c.quote {
            Some(q) => format!("{} ({}: “{q}”)", c.text, c.source),
            None => format!("{} ({})", c.text, c.source),
        };
        t.row(vec![
            format!("`{}`", c.id),
            c.provenance.label().to_owned(),
            says,
            format!("`{}`", c.machine),
            format!("**{}**", c.outcome.label()),
            ratio_cell(&c.outcome),
            c.outcome.evidence.clone(),
        ]);
    }
    t.render()
}

/// "1.15× [1.02×, 1.31×]": measured over the paper's with its 95% interval.
pub fn ratio_cell(o: &crate::claims::Outcome) -> String {
    use crate::claims::judge::fmt_ratio;
    match (&o.quantity, o.ratio) {
        (Some(q), _) if q.ratio.is_exact() => fmt_ratio(q.ratio.value),
        (Some(q), _) if q.ratio.high.is_finite() => {
            format!("{} [{}, {}]", fmt_ratio(q.ratio.value), fmt_ratio(q.ratio.low.max(0.0)), fmt_ratio(q.ratio.high))
        }
        (Some(q), _) => format!("{} (no interval)", fmt_ratio(q.ratio.value)),
        (None, Some(r)) => fmt_ratio(r),
        (None, None) => "—".into(),
    }
}

/// What the checks measured outside the paper's range or settings.
pub fn beyond_table(claims: &[ClaimResult]) -> Option<String> {
    let mut t = Table::new(&["claim", "machine", "measured beyond the paper's range"]);
    for c in claims {
        if let Some(b) = &c.outcome.beyond {
            t.row(vec![format!("`{}`", c.id), format!("`{}`", c.machine), b.clone()]);
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
            all.insert(r.str("case_id"));
            let threads = r.float("cpu_threads").unwrap_or(f64::INFINITY);
            if let Some(load) = r.float(crate::hardware::LOAD_AVG_1M).filter(|l| *l > threads) {
                let e = busy.entry(r.str("case_id")).or_insert(load);
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

/// Verdict counts per machine, the opening of every report.
pub fn verdict_summary(claims: &[ClaimResult], machines: &[MachineRecords]) -> String {
    let mut t = Table::new(&["machine", "claims", "verdicts"]);
    for m in machines {
        let mine: Vec<&ClaimResult> = claims.iter().filter(|c| c.machine == m.hw_id).collect();
        t.row(vec![
            format!("`{}` ({})", m.hw_id, m.label()),
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
        for r in m.measurements().filter(|r| r.str("status") == "not_run") {
            let what = if r.str(column).is_empty() { "—" } else { r.str(column) };
            seen.entry((m.hw_id.clone(), r.str("reason").to_owned())).or_default().insert(what.to_owned());
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

/// The report's opening: title, citation, how it was made.
pub fn header(meta: &PaperMeta, paper_id: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {} — reproduction report\n", meta.title);
    let doi = meta.doi.as_ref().map_or(String::new(), |d| format!(" DOI [{d}](https://doi.org/{d})."));
    let _ = writeln!(s, "{} Published {}.{doi}\n", meta.citation, meta.year);
    let _ = writeln!(
        s,
        "Rendered by `evorepro report {paper_id}` from the raw records in `records/` (Parquet, with CSV copies) — \
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
        goal.map_or(String::new(), |g| format!("; {} of {} at or above {g:.0}×", ratios.iter().filter(|&&r| r >= g).count(), ratios.len()));
    format!(" (runs {lo:.1}–{hi:.1}×, n = {}{reached})", ratios.len())
}

/// A `gpu_int32` ceiling record of a run of `profile`, for tests.
#[cfg(test)]
pub(crate) fn int32_ceiling(profile: &str, run_id: u64, gop_per_s: f64) -> Record {
    Record::new()
        .with("record_kind", "ceiling")
        .with("ceiling", "gpu_int32")
        .with("profile", profile)
        .with("run_id", run_id)
        .with(crate::records::GOP_PER_S, gop_per_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report notes the machines whose cases started under a load above their threads; records without the column
    /// (older ones) raise no note.
    #[test]
    fn busy_note_counts_cases_started_under_load() {
        let row = |case: &str, load: Option<f64>| {
            Record::new()
                .with("hw_id", "m")
                .with("record_kind", "measurement")
                .with("case_id", case)
                .with("cpu_threads", 2)
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
    }

    #[test]
    fn runs_show_commits_and_incomplete_sweeps() {
        let row = |profile: &str, case: &str, commit: &str| {
            Record::new().with("record_kind", "measurement").with("profile", profile).with("case_id", case).with("git_commit", commit)
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

    #[test]
    fn an_old_id_joins_the_one_machine_its_fingerprint_matches() {
        let row = |hw: &str, sig: Option<&str>, gpu: &str, profile: &str, commit: &str, run: i64| {
            Record::new()
                .with("hw_id", hw)
                .with("cpu_signature", sig.map(str::to_owned))
                .with("cpu_model", "Xeon")
                .with("cpu_threads", 16usize)
                .with("gpu_name", gpu)
                .with("record_kind", "measurement")
                .with("profile", profile)
                .with("git_commit", commit)
                .with("run_id", run)
        };
        let rows = vec![
            row("h100__xeon__16t", None, "H100", "speed", "old", 1),
            row("h100__xeon__16t", None, "H100", "cpu", "old", 1),
            row("h100__xeon-family-6-model-207__16t", Some("family 6 model 207"), "H100", "speed", "new", 2),
            row("h200__xeon__16t", None, "H200", "speed", "old", 1),
        ];
        assert_eq!(
            aliases(&rows).into_iter().collect::<Vec<_>>(),
            vec![("h100__xeon__16t".into(), "h100__xeon-family-6-model-207__16t".into())]
        );
        let m = by_machine(rows.clone(), None);
        assert_eq!(m.iter().map(|m| m.hw_id.as_str()).collect::<Vec<_>>(), vec!["h100__xeon-family-6-model-207__16t", "h200__xeon__16t"]);
        assert_eq!(m[0].aliases(), vec!["h100__xeon__16t"]);
        // The same profile at an older commit is superseded by the later run; another profile stays.
        let kept: Vec<(&str, &str)> = m[0].measurements().map(|r| (r.str("profile"), r.str("git_commit"))).collect();
        assert_eq!(kept, vec![("cpu", "old"), ("speed", "new")]);
        assert_eq!(m[0].superseded(), vec![("speed".into(), "old".into(), "new".into(), 1)]);
        // An old id recorded with two fingerprints, each that of the one signed machine: that machine.
        let mut drift = rows.clone();
        for r in [
            row("h100__xeon__16t", None, "H100", "cpu", "old", 1),
            row("h100__xeon-family-6-model-207__16t", Some("family 6 model 207"), "H100", "cpu", "new", 2),
        ] {
            drift.push(r.with("cpu_threads", 32usize));
        }
        assert_eq!(aliases(&drift).get("h100__xeon__16t").map(String::as_str), Some("h100__xeon-family-6-model-207__16t"));
        // ...but one fingerprint no signed machine has keeps the old id its own.
        drift.push(row("h100__xeon__16t", None, "H100", "cpu", "old", 1).with("cpu_threads", 8usize));
        assert!(aliases(&drift).is_empty());
        // An old id two signed machines could claim keeps its own.
        let mut two = rows;
        two.push(row("h100__xeon-family-6-model-143__16t", Some("family 6 model 143"), "H100", "speed", "new", 3));
        assert!(aliases(&two).is_empty());
    }

    #[test]
    fn machines_group_with_this_one_first() {
        let r = |hw: &str| Record::new().with("hw_id", hw);
        let m = by_machine(vec![r("a"), r("b"), r("a")], Some("b"));
        assert_eq!(m.iter().map(|m| m.hw_id.as_str()).collect::<Vec<_>>(), vec!["b", "a"]);
        assert_eq!(m[1].rows.len(), 2);
    }

    #[test]
    fn the_latest_ceiling_is_the_latest_run_not_the_last_file_read() {
        let m = MachineRecords {
            hw_id: "m".into(),
            rows: vec![int32_ceiling("gpu-scale", 30, 1.0), int32_ceiling("gpu", 10, 2.0), int32_ceiling("speed", 20, 3.0)],
        };
        assert_eq!(m.ceiling("gpu_int32"), Some(1.0));
        assert_eq!(m.ceiling_of_profile("gpu_int32", "speed"), Some(3.0));
        assert_eq!(m.ceiling_of_profile("gpu_int32", "none"), Some(1.0), "falls back to the latest of any profile");
    }

    #[test]
    fn each_point_keeps_the_latest_runs_profile_at_its_commit_or_pools_the_commit() {
        let row = |profile: &str, commit: &str, run_id: u64, size: u64| {
            Record::new()
                .with("record_kind", "measurement")
                .with("profile", profile)
                .with("git_commit", commit)
                .with("run_id", run_id)
                .with("size", size)
        };
        let rows = vec![
            row("a", "c1", 1, 10),
            row("b", "c2", 2, 10),
            row("a", "c2", 3, 10),
            row("a", "c1", 4, 10),
            row("a", "c1", 1, 20),
            row("b", "c2", 2, 30).with("untimed", true),
            row("b", "c1", 4, 40),
            row("b", "c2", 5, 40),
            row("b", "c2", 6, 40),
        ];
        let m = MachineRecords { hw_id: "m".into(), rows };
        let point = |r: &Record| (r.get("untimed") != &crate::records::Value::Bool(true)).then(|| r.int("size"));
        let got = |kept: Vec<&Record>| -> Vec<(String, u64)> {
            kept.iter().map(|r| (r.str("profile").to_owned(), r.int("run_id").unwrap() as u64)).collect()
        };
        // size 10: the latest run is a's at c1, so a's runs of c1 (runs 1 and 4), not a's of c2 nor b's;
        // size 40: b's two runs of c2 supersede its run of c1.
        assert_eq!(
            got(m.latest_measurements(point)),
            vec![("a".into(), 1), ("a".into(), 4), ("a".into(), 1), ("b".into(), 2), ("b".into(), 5), ("b".into(), 6)]
        );
        // Pooled over profiles of the latest commit with the same setting: a profile no longer
        // hides another's, but a run of another setting (generations) stays apart.
        let rows = vec![
            row("gpu", "c3", 7, 50).with("generations", 200u64),
            row("speed", "c3", 6, 50).with("generations", 200u64),
            row("quick", "c3", 5, 50).with("generations", 20u64),
            row("speed", "c2", 4, 50).with("generations", 200u64),
        ];
        let m = MachineRecords { hw_id: "m".into(), rows };
        assert_eq!(got(m.pooled_measurements(point, |r| r.int("generations"))), vec![("gpu".into(), 7), ("speed".into(), 6)]);
        assert_eq!(got(m.latest_measurements(point)), vec![("gpu".into(), 7)]);
    }
}
