//! One machine's records: rows grouped by machine (old ids joined to their
//! machine), superseded code versions marked, and the rules that pick which
//! runs a table pools.

use super::{Record, Value};
use crate::records::FingerprintRow;
use crate::records::col;
use std::collections::{BTreeMap, BTreeSet};

/// Records of one machine (one `records/*.parquet` file or several of one hw_id).
#[derive(Clone, Debug)]
pub struct MachineRecords {
    pub hw_id: String,
    pub rows: Vec<Record>,
}

impl MachineRecords {
    /// Measurement rows only (not ceilings).
    pub fn measurements(&self) -> impl Iterator<Item = &Record> {
        self.rows.iter().filter(|r| r.str(col::RECORD_KIND) == "measurement")
    }

    /// Measurement rows where each timed configuration comes from one profile
    /// at one code version: among rows with the same `point` (e.g. figure and
    /// size), the run that measured it last (largest `run_id`) names a commit
    /// and a profile, and every run of that profile at that commit is kept
    /// (issue #44: runs are superseded by run, and runs of one profile at
    /// unchanged code are pooled). Rows without a point are all kept.
    pub fn latest_measurements<K: Ord>(&self, point: impl Fn(&Record) -> Option<K>) -> Vec<&Record> {
        self.latest_runs(point, |r| r.str(col::PROFILE).to_owned())
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
        let version = |r: &Record| (r.str(col::GIT_COMMIT).to_owned(), setting(r));
        let mut latest: BTreeMap<K, (i64, (String, S))> = BTreeMap::new();
        for r in self.measurements() {
            if let Some(k) = point(r) {
                let run = r.int(col::RUN_ID).unwrap_or(0);
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
        self.ceiling_where(name, |r| r.str(col::PROFILE) == profile).or_else(|| self.ceiling(name))
    }

    /// The ceiling the run `run_id` measured (a kernel's share of a ceiling comes from its own run).
    pub fn ceiling_of_run(&self, name: &str, run_id: i64) -> Option<f64> {
        self.latest_of(name, "ceiling", |r| r.int(col::RUN_ID) == Some(run_id))
    }

    /// A ceiling measured in this machine's runs, else by `evorepro hw --record`
    /// on the same machine (record kind `hw_ceiling`): for explanations, never
    /// for a kernel's share of a ceiling, which must come from its own run.
    pub fn ceiling_or_hw(&self, name: &str) -> Option<f64> {
        self.ceiling(name).or_else(|| self.latest_of(name, "hw_ceiling", |_| true))
    }

    /// A ceiling measured by the runs `runs`: the mean over those runs of each
    /// run's latest value, and how many of them measured it (None: none did).
    pub fn ceiling_of_runs(&self, name: &str, runs: &BTreeSet<i64>) -> Option<(f64, usize)> {
        let values: Vec<f64> =
            runs.iter().filter_map(|&run| self.latest_of(name, "ceiling", |r| r.int(col::RUN_ID) == Some(run))).collect();
        (!values.is_empty()).then(|| (values.iter().sum::<f64>() / values.len() as f64, values.len()))
    }

    /// Latest by the run's start time (`run_id`), not by the order the record
    /// files were read in.
    fn ceiling_where(&self, name: &str, keep: impl Fn(&Record) -> bool) -> Option<f64> {
        self.latest_of(name, "ceiling", keep)
    }

    fn latest_of(&self, name: &str, kind: &str, keep: impl Fn(&Record) -> bool) -> Option<f64> {
        self.rows
            .iter()
            .filter(|r| r.str(col::RECORD_KIND) == kind && r.str(col::CEILING) == name && keep(r))
            .filter_map(|r| Some((r.int(col::RUN_ID).unwrap_or(0), crate::records::ceiling_value(r)?)))
            .max_by_key(|&(run, _)| run)
            .map(|(_, v)| v)
    }

    /// The run that measured last here (largest `run_id`), None without measurements.
    pub fn latest_run(&self) -> Option<i64> {
        self.measurements().filter_map(|r| r.int(col::RUN_ID)).max()
    }

    pub fn has_gpu(&self) -> bool {
        self.rows.iter().any(|r| !r.str(FingerprintRow::gpu_name).is_empty())
    }

    /// The first row, whose fingerprint names the machine.
    pub fn first(&self) -> Option<&Record> {
        self.rows.first()
    }

    /// The machine as people name it ([`crate::fmt::machine_name`]), with the
    /// folder its records came from where `compare --with` names it (`… @ folder`).
    pub fn label(&self) -> String {
        match self.hw_id.split_once(" @ ") {
            Some((_, folder)) => format!("{} @ {folder}", self.name()),
            None => self.name(),
        }
    }

    fn name(&self) -> String {
        let Some(r) = self.first() else { return self.hw_id.clone() };
        // Rows older than the signature column lack it; then the machine's later rows or its id (aliases) have it.
        let from_id = self.hw_id.split("__").nth(1).and_then(|cpu| {
            let at = cpu.find("family-").or_else(|| cpu.find("implementer-"))?;
            Some(cpu[at..].replace('-', " "))
        });
        let signature = self.rows.iter().map(|r| r.str(FingerprintRow::cpu_signature).to_owned()).find(|s| !s.is_empty()).or(from_id);
        crate::fmt::machine_name(
            r.str(FingerprintRow::gpu_name),
            r.str(FingerprintRow::cpu_model),
            signature.as_deref(),
            r.int(FingerprintRow::cpu_threads),
        )
    }
}

impl MachineRecords {
    /// The machine in a few words, for a table's column: its GPU and its host's
    /// threads ("H100 80GB HBM3, 16 threads"; "CPU only, 2 threads").
    pub fn short_label(&self) -> String {
        let Some(r) = self.first() else { return self.hw_id.clone() };
        let gpu = match crate::fmt::gpu_name(r.str(FingerprintRow::gpu_name)) {
            "" => "CPU only",
            g => g,
        };
        match r.int(FingerprintRow::cpu_threads) {
            Some(t) => format!("{gpu}, {t} threads"),
            None => gpu.to_owned(),
        }
    }
}

/// The fingerprint fields that make a machine, all but its id and the CPU's
/// signature (which older ids lack).
const FINGERPRINT: [&str; 12] = [
    FingerprintRow::cpu_model,
    FingerprintRow::cpu_physical_cores,
    FingerprintRow::cpu_threads,
    FingerprintRow::mem_gib,
    FingerprintRow::os,
    FingerprintRow::gpu_name,
    FingerprintRow::gpu_cc,
    FingerprintRow::gpu_sms,
    FingerprintRow::gpu_mem_gib,
    FingerprintRow::gpu_mem_bus_bits,
    FingerprintRow::gpu_max_threads_per_block,
    FingerprintRow::cuda_driver,
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
    // A field an older evorepro did not record matches any value; the host's memory as the OS reports
    // it moves by a fraction of a GiB from boot to boot (125.8 and 125.9 on one H200 host): within 1%.
    let mem = FINGERPRINT.iter().position(|k| *k == FingerprintRow::mem_gib).expect("mem_gib is a fingerprint field");
    let same = |i: usize, o: &str, n: &str| match (i == mem, o.parse::<f64>(), n.parse::<f64>()) {
        (true, Ok(a), Ok(b)) => (a - b).abs() <= 0.01 * a.abs().max(b.abs()),
        _ => o == n,
    };
    let matches = |old: &Key, new: &Key| {
        old.iter().zip(new).enumerate().all(|(i, (o, n))| match (o, n) {
            (None, _) => true,
            (Some(o), Some(n)) => same(i, o, n),
            (Some(_), None) => false,
        })
    };
    let mut signed: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    let mut unsigned: BTreeMap<String, BTreeSet<Key>> = BTreeMap::new();
    for r in rows.iter().filter(|r| matches!(r.str(col::RECORD_KIND), "measurement" | "ceiling" | "hw_ceiling")) {
        if r.str(FingerprintRow::cpu_signature).is_empty() {
            unsigned.entry(r.str(col::HW_ID).to_owned()).or_default().insert(key(r));
        } else {
            signed.entry(key(r)).or_default().insert(r.str(col::HW_ID).to_owned());
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
        let id = r.str(col::HW_ID).to_owned();
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
        if let Some(new) = alias.get(r.str(col::HW_ID)) {
            let old = r.str(col::HW_ID).to_owned();
            r.set(HW_ID_RECORDED, old);
            r.set(col::HW_ID, new.clone());
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
        for r in self.rows.iter().filter(|r| matches!(r.str(col::RECORD_KIND), "measurement" | "ceiling")) {
            let run = r.int(col::RUN_ID).unwrap_or(0);
            let e = latest.entry(r.str(col::PROFILE).to_owned()).or_insert((run, r.str(col::GIT_COMMIT).to_owned()));
            if run > e.0 {
                *e = (run, r.str(col::GIT_COMMIT).to_owned());
            }
        }
        for r in self.rows.iter_mut().filter(|r| matches!(r.str(col::RECORD_KIND), "measurement" | "ceiling")) {
            if let Some((_, commit)) = latest.get(r.str(col::PROFILE))
                && r.str(col::GIT_COMMIT) != commit
            {
                let by = commit.clone();
                r.set(col::RECORD_KIND, "superseded");
                r.set(col::SUPERSEDED_BY, by);
            }
        }
    }

    /// The fingerprint as recorded (the first row's fields that are set).
    pub fn fingerprint(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        if let Some(r) = self.rows.iter().find(|r| r.str(col::RECORD_KIND) == "measurement").or(self.rows.first()) {
            for k in FINGERPRINT.iter().chain(&[
                FingerprintRow::cpu_signature,
                FingerprintRow::gpu_sm_clock_mhz,
                FingerprintRow::gpu_mem_clock_mhz,
                FingerprintRow::gpu_max_smem_per_block_kib,
            ]) {
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
        for r in self.rows.iter().filter(|r| r.str(col::RECORD_KIND) == "superseded") {
            *n.entry((r.str(col::PROFILE).to_owned(), r.str(col::GIT_COMMIT).to_owned(), r.str(col::SUPERSEDED_BY).to_owned()))
                .or_default() += 1;
        }
        n.into_iter().map(|((p, c, b), k)| (p, c, b, k)).collect()
    }
}

/// A `gpu_int32` ceiling record of a run of `profile`, for tests.
#[cfg(test)]
pub(crate) fn int32_ceiling(profile: &str, run_id: u64, gop_per_s: f64) -> Record {
    Record::new()
        .with(col::RECORD_KIND, "ceiling")
        .with(col::CEILING, "gpu_int32")
        .with(col::PROFILE, profile)
        .with(col::RUN_ID, run_id)
        .with(super::GOP_PER_S, gop_per_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_id_joins_the_one_machine_its_fingerprint_matches() {
        let row = |hw: &str, sig: Option<&str>, gpu: &str, profile: &str, commit: &str, run: i64| {
            Record::new()
                .with(col::HW_ID, hw)
                .with(FingerprintRow::cpu_signature, sig.map(str::to_owned))
                .with(FingerprintRow::cpu_model, "Xeon")
                .with(FingerprintRow::cpu_threads, 16usize)
                .with(FingerprintRow::gpu_name, gpu)
                .with(col::RECORD_KIND, "measurement")
                .with(col::PROFILE, profile)
                .with(col::GIT_COMMIT, commit)
                .with(col::RUN_ID, run)
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
        // Named with the generation its later rows record, though its first row predates the signature.
        assert_eq!(m[0].label(), "H100 · 16-thread Xeon (family 6 model 207)");
        assert_eq!(m[1].label(), "H200 · 16-thread Xeon");
        let renamed = MachineRecords { hw_id: "h200__xeon-family-6-model-207__16t".into(), rows: vec![m[1].rows[0].clone()] };
        assert_eq!(renamed.label(), "H200 · 16-thread Xeon (family 6 model 207)", "the id's signature, where no row has one");
        // The same profile at an older commit is superseded by the later run; another profile stays.
        let kept: Vec<(&str, &str)> = m[0].measurements().map(|r| (r.str(col::PROFILE), r.str(col::GIT_COMMIT))).collect();
        assert_eq!(kept, vec![("cpu", "old"), ("speed", "new")]);
        assert_eq!(m[0].superseded(), vec![("speed".into(), "old".into(), "new".into(), 1)]);
        // An old id recorded with two fingerprints, each that of the one signed machine: that machine.
        let mut drift = rows.clone();
        for r in [
            row("h100__xeon__16t", None, "H100", "cpu", "old", 1),
            row("h100__xeon-family-6-model-207__16t", Some("family 6 model 207"), "H100", "cpu", "new", 2),
        ] {
            drift.push(r.with(FingerprintRow::cpu_threads, 32usize));
        }
        assert_eq!(aliases(&drift).get("h100__xeon__16t").map(String::as_str), Some("h100__xeon-family-6-model-207__16t"));
        // The host's memory as reported from boot to boot (within 1%) is the same machine; 10% more is not.
        let mem = |rows: &[Record], gib: f64| -> Vec<Record> {
            rows.iter()
                .cloned()
                .map(|r| {
                    if r.str(FingerprintRow::cpu_signature).is_empty() {
                        r.with(FingerprintRow::mem_gib, gib)
                    } else {
                        r.with(FingerprintRow::mem_gib, 125.8)
                    }
                })
                .collect()
        };
        assert_eq!(aliases(&mem(&drift, 125.9)).get("h100__xeon__16t").map(String::as_str), Some("h100__xeon-family-6-model-207__16t"));
        assert!(aliases(&mem(&drift, 138.4)).is_empty());
        // ...but one fingerprint no signed machine has keeps the old id its own.
        drift.push(row("h100__xeon__16t", None, "H100", "cpu", "old", 1).with(FingerprintRow::cpu_threads, 8usize));
        assert!(aliases(&drift).is_empty());
        // An old id two signed machines could claim keeps its own.
        let mut two = rows;
        two.push(row("h100__xeon-family-6-model-143__16t", Some("family 6 model 143"), "H100", "speed", "new", 3));
        assert!(aliases(&two).is_empty());
    }

    #[test]
    fn machines_group_with_this_one_first() {
        let r = |hw: &str| Record::new().with(col::HW_ID, hw);
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
        // A run's own, never another's; the runs a point pools: their mean and how many measured it.
        assert_eq!(m.ceiling_of_run("gpu_int32", 10), Some(2.0));
        assert_eq!(m.ceiling_of_run("gpu_int32", 11), None);
        assert_eq!(m.ceiling_of_runs("gpu_int32", &[10, 20, 11].into()), Some((2.5, 2)));
        assert_eq!(m.ceiling_of_runs("gpu_int32", &[11].into()), None);
    }

    #[test]
    fn each_point_keeps_the_latest_runs_profile_at_its_commit_or_pools_the_commit() {
        let row = |profile: &str, commit: &str, run_id: u64, size: u64| {
            Record::new()
                .with(col::RECORD_KIND, "measurement")
                .with(col::PROFILE, profile)
                .with(col::GIT_COMMIT, commit)
                .with(col::RUN_ID, run_id)
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
            kept.iter().map(|r| (r.str(col::PROFILE).to_owned(), r.int(col::RUN_ID).unwrap() as u64)).collect()
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
