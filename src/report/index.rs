//! Results at a glance: each paper's verdicts as JSON beside its report
//! (`<paper>/verdicts.json`), and from all of them `INDEX.md` and
//! `verdicts.json` at the root of the reports. All three come from the same
//! [`ClaimResult`]s as the report's own summary, so they cannot disagree.

use super::Table;
use crate::claims::{ClaimResult, Direction, Estimate, VerdictKind, counts};
use crate::records::MachineRecords;
use crate::records::col;
use crate::records::write_atomic;
use crate::spec::Provenance;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The version of the layout of `verdicts.json` (`docs/verdicts.schema.json`).
pub const SCHEMA_VERSION: u32 = 4;

/// One paper's verdicts, as written to `<paper>/verdicts.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaperVerdicts {
    pub schema_version: u32,
    pub paper: String,
    pub title: String,
    /// The report, relative to the reports' root.
    pub report: String,
    pub machines: Vec<MachineVerdicts>,
    pub claims: Vec<ClaimVerdict>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineVerdicts {
    pub hw_id: String,
    pub label: String,
    /// Other ids the same machine's records were written under.
    pub aliases: Vec<String>,
    /// The fingerprint's fields (CPU, memory, OS, GPU), as recorded.
    pub fingerprint: BTreeMap<String, String>,
    /// The commits the machine's records were measured at.
    pub commits: Vec<String>,
    /// Verdict kind (snake case) → claims, the paper's claims and the harness's checks apart.
    pub counts: ProvenanceCounts,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProvenanceCounts {
    pub paper: BTreeMap<String, usize>,
    pub harness: BTreeMap<String, usize>,
}

/// A value with its 95% interval, as the JSON gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub value: f64,
    /// None where the interval is unbounded (one run).
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub n: usize,
    /// Exact: no run-to-run spread (counts, deterministic values).
    pub exact: bool,
}

impl From<&Estimate> for Interval {
    fn from(e: &Estimate) -> Interval {
        let finite = |x: f64| x.is_finite().then_some(x);
        Interval { value: e.value, low: finite(e.low), high: finite(e.high), n: e.n, exact: e.is_exact() }
    }
}

/// A factor of an explanation: a quantity here and for the paper, with its exponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FactorJson {
    pub quantity: String,
    pub here: f64,
    pub paper: f64,
    pub exponent: f64,
    pub source: String,
    /// The runs whose mean measurement gives `here` (0: a quantity of the fingerprint or of the point).
    #[serde(default)]
    pub here_runs: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointJson {
    pub label: String,
    /// The measured ratio to the paper's at the point, with its interval.
    pub measured: Interval,
    /// The model's prediction there, with its interval where a factor has one.
    pub predicted: Interval,
    pub factors: Vec<FactorJson>,
}

/// The computed model behind "differs on this hardware".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExplanationJson {
    pub factors: Vec<FactorJson>,
    pub points: Vec<PointJson>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BudgetJson {
    pub used: f64,
    pub paper: f64,
    pub unit: String,
}

/// What the evidence stands on besides the paper's data at the paper's budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataFlags {
    pub stand_in: Option<String>,
    pub reduced_budget: Option<BudgetJson>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClaimVerdict {
    pub id: String,
    pub machine: String,
    /// `paper` or `harness`.
    pub provenance: Provenance,
    /// The verdict's kind: reproduced, not_reproduced, differs, inconclusive, not_run.
    pub verdict: String,
    /// The verdict as the report prints it (with its explanation or reason).
    pub label: String,
    /// Outside the band: falls_short or exceeds.
    pub direction: Option<Direction>,
    /// The runs the verdict rests on, and (inconclusive) the runs the observed spread would need.
    pub n: Option<usize>,
    pub n_needed: Option<usize>,
    /// Quantitative claims: the measured value, the paper's, the band on their ratio and the ratio.
    pub measured: Option<Interval>,
    pub paper_value: Option<f64>,
    /// Each edge None where the band is open on that side (at least, at most).
    pub band: Option<[Option<f64>; 2]>,
    pub ratio: Option<Interval>,
    pub explanation: Option<ExplanationJson>,
    pub data: DataFlags,
    pub evidence: String,
    pub beyond: Option<String>,
    pub source: String,
    pub text: String,
    pub quote: Option<String>,
    /// The claim's headline number on this machine where its spec declares one (never part of the verdict).
    #[serde(default)]
    pub headline: Option<HeadlineJson>,
}

/// A claim's headline number ([`crate::claims::Headline`]): what it is, measured, the paper's value and their ratio.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadlineJson {
    pub what: String,
    pub measured: Interval,
    pub paper: f64,
    pub ratio: Interval,
}

fn kind_key(k: VerdictKind) -> String {
    k.key().to_owned()
}

fn factor_json(f: &crate::claims::hardware::Factor) -> FactorJson {
    FactorJson {
        quantity: f.quantity.label().into(),
        here: f.here,
        paper: f.paper,
        exponent: f.exponent,
        source: f.source.clone(),
        here_runs: f.runs,
    }
}

impl ClaimVerdict {
    pub fn of(c: &ClaimResult) -> ClaimVerdict {
        let o = &c.outcome;
        let q = o.quantity.as_ref();
        let explanation = match &o.verdict {
            crate::claims::Verdict::Differs(e) => Some(ExplanationJson {
                factors: e.factors.iter().map(factor_json).collect(),
                points: e
                    .points
                    .iter()
                    .map(|p| PointJson {
                        label: p.label.clone(),
                        measured: Interval::from(&p.measured),
                        predicted: Interval::from(&p.predicted),
                        factors: p.factors.iter().map(factor_json).collect(),
                    })
                    .collect(),
            }),
            _ => None,
        };
        let reduced = match (&o.budget, &o.verdict) {
            (Some(b), _) if b.is_reduced() => Some(b.clone()),
            (_, crate::claims::Verdict::NotRun(crate::claims::NotRun::ReducedBudget(b))) => Some(b.clone()),
            _ => None,
        };
        let stand_in = match &o.verdict {
            crate::claims::Verdict::NotRun(crate::claims::NotRun::StandIn(w)) => Some(w.clone()),
            _ => o.stand_in.clone(),
        };
        ClaimVerdict {
            id: c.id.clone(),
            machine: c.machine.clone(),
            provenance: c.provenance,
            verdict: kind_key(o.verdict.kind()),
            label: o.label(),
            direction: o.verdict.direction(),
            n: o.n,
            n_needed: o.verdict.n_needed(),
            measured: q.map(|q| Interval::from(&q.measured)),
            paper_value: q.map(|q| q.paper),
            band: q.map(|q| [q.band.low, q.band.high].map(|x| x.is_finite().then_some(x))),
            ratio: q.map(|q| Interval::from(&q.ratio)).or(o.ratio.map(|r| Interval::from(&Estimate::exact(r)))),
            explanation,
            data: DataFlags { stand_in, reduced_budget: reduced.map(|b| BudgetJson { used: b.used, paper: b.paper, unit: b.unit }) },
            evidence: o.evidence.clone(),
            beyond: o.beyond.clone(),
            source: c.source.clone(),
            text: c.text.clone(),
            quote: c.quote.clone(),
            headline: c.headline.as_ref().map(|h| HeadlineJson {
                what: h.what.clone(),
                measured: Interval::from(&h.measured),
                paper: h.paper,
                ratio: Interval::from(&h.ratio),
            }),
        }
    }
}

fn counts_map(n: [usize; 5]) -> BTreeMap<String, usize> {
    VerdictKind::ALL.iter().zip(n).map(|(k, c)| (kind_key(*k), c)).collect()
}

impl PaperVerdicts {
    pub fn new(paper: &str, title: &str, machines: &[MachineRecords], claims: &[ClaimResult]) -> PaperVerdicts {
        let machines = machines
            .iter()
            .map(|m| {
                let mut commits: Vec<String> =
                    m.measurements().map(|r| r.str(col::GIT_COMMIT).to_owned()).filter(|c| !c.is_empty()).collect();
                commits.sort();
                commits.dedup();
                let mine = || claims.iter().filter(|c| c.machine == m.hw_id);
                let counts = ProvenanceCounts {
                    paper: counts_map(counts(mine().filter(|c| c.is_paper()))),
                    harness: counts_map(counts(mine().filter(|c| !c.is_paper()))),
                };
                MachineVerdicts {
                    hw_id: m.hw_id.clone(),
                    label: m.label(),
                    aliases: m.aliases(),
                    fingerprint: m.fingerprint(),
                    commits,
                    counts,
                }
            })
            .collect();
        let claims = claims.iter().map(ClaimVerdict::of).collect();
        PaperVerdicts {
            schema_version: SCHEMA_VERSION,
            paper: paper.into(),
            title: title.into(),
            report: format!("{paper}/REPORT.md"),
            machines,
            claims,
        }
    }

    /// Writes `out/<paper>/verdicts.json`.
    pub fn write(&self, out: &Path) -> Result<PathBuf> {
        let path = out.join(&self.paper).join("verdicts.json");
        write_atomic(&path, (serde_json::to_string_pretty(self)? + "\n").as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    }
}

impl PaperVerdicts {
    /// One machine's verdicts in a line, the paper's claims and the harness's
    /// checks apart: "paper claims: 3 of 12 reproduced, 6 not reproduced, 3 not
    /// run here"; with `reasons`, why the claims not run were not ("12 not run
    /// here (libcuda not found)").
    pub fn machine_line(&self, hw_id: &str, reasons: bool) -> String {
        let mut parts = Vec::new();
        for (whose, provenance) in [("paper claims", Provenance::Paper), ("harness checks", Provenance::Harness)] {
            let mine: Vec<&ClaimVerdict> = self.claims.iter().filter(|c| c.machine == hw_id && c.provenance == provenance).collect();
            if mine.is_empty() {
                continue;
            }
            let of = |k: VerdictKind| mine.iter().filter(|c| c.verdict == k.key()).collect::<Vec<_>>();
            let mut kinds = vec![format!("{} of {} reproduced", of(VerdictKind::Reproduced).len(), mine.len())];
            for k in VerdictKind::ALL.into_iter().skip(1) {
                let these = of(k);
                if these.is_empty() {
                    continue;
                }
                let mut why: BTreeMap<&str, usize> = BTreeMap::new();
                for c in these.iter().filter(|_| reasons && k == VerdictKind::NotRun) {
                    *why.entry(c.label.strip_prefix("not run here (").and_then(|l| l.strip_suffix(')')).unwrap_or(&c.label))
                        .or_default() += 1;
                }
                let why: Vec<String> =
                    why.iter().map(|(r, n)| if *n == these.len() { (*r).to_owned() } else { format!("{n}: {r}") }).collect();
                let why = if why.is_empty() { String::new() } else { format!(" ({})", why.join("; ")) };
                kinds.push(format!("{} {}{why}", these.len(), k.label()));
            }
            parts.push(format!("{whose}: {}", kinds.join(", ")));
        }
        if parts.is_empty() { "no claims judged".into() } else { parts.join("; ") }
    }

    /// Reads `out/<paper>/verdicts.json`; None where it is missing or of another layout.
    pub fn read(out: &Path, paper: &str) -> Option<PaperVerdicts> {
        serde_json::from_str(&std::fs::read_to_string(out.join(paper).join("verdicts.json")).ok()?).ok()
    }
}

/// Every paper's verdicts found under `out/*/verdicts.json`, in `order` first
/// (the registry's), then any other by name.
pub fn read_all(out: &Path, order: &[&str]) -> Result<Vec<PaperVerdicts>> {
    let mut found = Vec::new();
    if let Ok(dir) = std::fs::read_dir(out) {
        for e in dir.flatten() {
            let path = e.path().join("verdicts.json");
            if path.is_file() {
                let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
                // A file of an older layout is rewritten at the paper's next render; until then it is left out.
                let parsed = serde_json::from_str::<PaperVerdicts>(&text);
                if let Ok(v) = parsed {
                    found.push(v);
                } else {
                    let old: serde_json::Value =
                        serde_json::from_str(&text).with_context(|| format!("{}: not a verdicts file", path.display()))?;
                    match old.get("schema_version").map(|v| v.as_u64()) {
                        None => {}
                        Some(Some(v)) if v < u64::from(SCHEMA_VERSION) => {
                            let paper = e.file_name().to_string_lossy().into_owned();
                            crate::say!(
                                "note: {} is of schema version {v}: left out of the index until `evorepro report {paper}` rewrites it",
                                path.display()
                            );
                        }
                        Some(_) => anyhow::bail!(
                            "{}: not a verdicts file of schema version {SCHEMA_VERSION} ({})",
                            path.display(),
                            parsed.err().map_or(String::new(), |e| e.to_string())
                        ),
                    }
                }
            }
        }
    }
    found.sort_by_key(|v| (order.iter().position(|p| *p == v.paper).unwrap_or(usize::MAX), v.paper.clone()));
    Ok(found)
}

/// Rewrites `out/INDEX.md` and `out/verdicts.json` from every paper's verdicts.
pub fn write_index(out: &Path, order: &[&str]) -> Result<PathBuf> {
    let papers = read_all(out, order)?;
    let json = serde_json::json!({ "schema_version": SCHEMA_VERSION, "papers": papers });
    write_atomic(&out.join("verdicts.json"), (serde_json::to_string_pretty(&json)? + "\n").as_bytes())?;
    let path = out.join("INDEX.md");
    write_atomic(&path, index_markdown(&papers, out).as_bytes())?;
    Ok(path)
}

/// The index of the reports under `out`: one row per paper × machine with verdict
/// counts (the machine linked to its page where `out` has one), then one line per claim.
pub fn index_markdown(papers: &[PaperVerdicts], out: &Path) -> String {
    let mut md = String::from(
        "# Verdicts at a glance\n\nEvery claim of every paper, judged on each machine with records (written by `evorepro report`, \
         `reproduce` and `compare` from the same results as each report; the same content for tools in `verdicts.json`).\n\n",
    );
    md += "Counts are of the paper's claims; the harness's own checks are counted in the last column.\n\n";
    let mut header = vec!["paper".to_owned(), "machine".to_owned(), "commits".to_owned()];
    header.extend(VerdictKind::ALL.iter().map(|k| k.label().to_owned()));
    header.push("harness checks".to_owned());
    let mut t = Table::new(&header);
    for p in papers {
        for m in &p.machines {
            let page = format!("{}/{}/{}.md", p.paper, super::MACHINES_DIR, m.hw_id);
            let machine = match out.join(&page).is_file() {
                true => format!("[{}]({page}) (`{}`)", m.label, m.hw_id),
                false => format!("`{}` ({})", m.hw_id, m.label),
            };
            let mut row = vec![format!("[{}]({})", p.paper, p.report), machine, m.commits.join(", ")];
            row.extend(VerdictKind::ALL.iter().map(|k| m.counts.paper.get(&kind_key(*k)).copied().unwrap_or(0).to_string()));
            let harness: Vec<String> = VerdictKind::ALL
                .iter()
                .filter_map(|k| m.counts.harness.get(&kind_key(*k)).filter(|n| **n > 0).map(|n| format!("{n} {}", k.label())))
                .collect();
            row.push(if harness.is_empty() { "—".into() } else { harness.join(", ") });
            t.row(row);
        }
    }
    md += &t.render();
    for p in papers {
        let _ = writeln!(md, "\n## [{}]({}) — {}\n", p.paper, p.report, p.title);
        // The claims a machine did not run, one line per machine and reason; every other verdict a line of its own.
        let mut not_run: Vec<((&str, &str), Vec<&str>)> = Vec::new();
        for c in &p.claims {
            if c.verdict == kind_key(VerdictKind::NotRun) {
                let key = (c.machine.as_str(), c.label.as_str());
                match not_run.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, ids)) => ids.push(&c.id),
                    None => not_run.push((key, vec![&c.id])),
                }
                continue;
            }
            let ratio = c.ratio.as_ref().map_or(String::new(), |r| format!(" ({} the paper's)", crate::fmt::fmt_ratio(r.value)));
            let whose = if c.provenance == Provenance::Harness { " (harness check)" } else { "" };
            let _ = writeln!(md, "- `{}`{whose} on `{}`: **{}**{ratio}", c.id, c.machine, c.label);
        }
        for ((machine, label), ids) in not_run {
            let ids: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
            let _ = writeln!(md, "- on `{machine}`, **{label}**: {}", ids.join(", "));
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::{Outcome, Verdict};
    use crate::records::FingerprintRow;
    use crate::records::{Record, col};
    use crate::spec::ClaimSpec;

    fn machine(hw: &str) -> MachineRecords {
        MachineRecords {
            hw_id: hw.into(),
            rows: vec![
                Record::new()
                    .with(col::HW_ID, hw)
                    .with(FingerprintRow::cpu_model, "CPU")
                    .with(col::GIT_COMMIT, "abc123")
                    .with(col::RECORD_KIND, "measurement"),
            ],
        }
    }

    #[test]
    fn index_and_json_agree_with_the_claims() {
        let dir = tempfile::tempdir().unwrap();
        let c = ClaimSpec::for_tests("fast");
        let claims = vec![
            ClaimResult::of(&c, "m1", Outcome::new(Verdict::Reproduced, "ok").with_ratio(1.2)),
            ClaimResult::of(&c, "m2", Outcome::new(Verdict::NotReproduced(Some(Direction::FallsShort)), "slow").with_ratio(0.1)),
        ];
        let v = PaperVerdicts::new("demo", "Demo paper", &[machine("m1"), machine("m2")], &claims);
        v.write(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("demo/machines")).unwrap();
        std::fs::write(dir.path().join("demo/machines/m1.md"), "# m1\n").unwrap();
        write_index(dir.path(), &["demo"]).unwrap();
        let all: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("verdicts.json")).unwrap()).unwrap();
        let back: Vec<PaperVerdicts> = serde_json::from_value(all["papers"].clone()).unwrap();
        assert_eq!(back, vec![v.clone()]);
        assert_eq!(v.machines[1].counts.paper["not_reproduced"], 1);
        assert_eq!(v.claims[1].direction, Some(Direction::FallsShort));
        assert_eq!(v.machines[1].commits, vec!["abc123"]);
        let md = std::fs::read_to_string(dir.path().join("INDEX.md")).unwrap();
        assert!(md.contains("| [demo](demo/REPORT.md) | `m2` (CPU, no GPU) | abc123 | 0 | 1 | 0 | 0 | 0 | — |"), "{md}");
        assert!(
            md.contains("| [demo](demo/REPORT.md) | [CPU, no GPU](demo/machines/m1.md) (`m1`) | abc123 |"),
            "a page where there is one: {md}"
        );
        assert!(md.contains("- `fast` on `m1`: **reproduced** (1.20× the paper's)"), "{md}");

        // Claims not run are one line per machine and reason.
        let slow = ClaimSpec::for_tests("slow");
        let claims = vec![
            ClaimResult::of(&c, "m1", Outcome::not_run("libcuda not found")),
            ClaimResult::of(&slow, "m1", Outcome::not_run("libcuda not found")),
            ClaimResult::of(&slow, "m2", Outcome::new(Verdict::Reproduced, "ok")),
        ];
        let v = PaperVerdicts::new("demo", "Demo paper", &[machine("m1"), machine("m2")], &claims);
        let md = index_markdown(&[v], dir.path());
        assert!(md.contains("- on `m1`, **not run here (libcuda not found)**: `fast`, `slow`\n"), "{md}");
        assert!(md.contains("- `slow` on `m2`: **reproduced**\n") && !md.contains("`fast` on `m1`"), "{md}");
    }

    /// A run's summary line: one machine's own verdicts, paper claims and harness checks apart, with why the claims not run were not.
    #[test]
    fn machine_line_counts_one_machine_and_names_why_claims_were_not_run() {
        let (paper, mut harness) = (ClaimSpec::for_tests("fast"), ClaimSpec::for_tests("check"));
        harness.provenance = Provenance::Harness;
        let claims = vec![
            ClaimResult::not_run(&paper, "cpu", "libcuda not found"),
            ClaimResult::not_run(&paper, "cpu", "libcuda not found"),
            ClaimResult::of(&harness, "cpu", Outcome::new(Verdict::Reproduced, "ok")),
            ClaimResult::of(&paper, "gpu", Outcome::new(Verdict::Reproduced, "ok")),
            ClaimResult::not_run(&paper, "gpu", "stand-in"),
        ];
        let v = PaperVerdicts::new("demo", "Demo paper", &[machine("cpu"), machine("gpu")], &claims);
        assert_eq!(
            v.machine_line("cpu", true),
            "paper claims: 0 of 2 reproduced, 2 not run here (libcuda not found); harness checks: 1 of 1 reproduced"
        );
        assert_eq!(v.machine_line("gpu", false), "paper claims: 1 of 2 reproduced, 1 not run here");
        assert_eq!(v.machine_line("gpu", true), "paper claims: 1 of 2 reproduced, 1 not run here (stand-in)");
        assert_eq!(v.machine_line("elsewhere", true), "no claims judged");
    }
}
