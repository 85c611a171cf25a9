//! Results at a glance: each paper's verdicts as JSON beside its report
//! (`<paper>/verdicts.json`), and from all of them `INDEX.md` and
//! `verdicts.json` at the root of the reports. All three come from the same
//! [`ClaimResult`]s as the report's own summary, so they cannot disagree.

use super::{MachineRecords, Table};
use crate::claims::{ClaimResult, VerdictKind, counts};
use crate::records::write_atomic;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// One paper's verdicts, as written to `<paper>/verdicts.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaperVerdicts {
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
    /// The commits the machine's records were measured at.
    pub commits: Vec<String>,
    /// Verdict kind (snake case) → claims.
    pub counts: BTreeMap<String, usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClaimVerdict {
    pub id: String,
    pub machine: String,
    /// The verdict's kind: reproduced, not_reproduced, differs, too_few_runs, not_run.
    pub verdict: String,
    /// The verdict as the report prints it (with its explanation or reason).
    pub label: String,
    /// Measured value over the paper's (quantitative claims).
    pub ratio: Option<f64>,
    pub evidence: String,
    pub source: String,
    pub text: String,
}

fn kind_key(k: VerdictKind) -> String {
    serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

impl PaperVerdicts {
    pub fn new(paper: &str, title: &str, machines: &[MachineRecords], claims: &[ClaimResult]) -> PaperVerdicts {
        let machines = machines
            .iter()
            .map(|m| {
                let mut commits: Vec<String> = m.rows.iter().map(|r| r.str("git_commit").to_owned()).filter(|c| !c.is_empty()).collect();
                commits.sort();
                commits.dedup();
                let n = counts(claims.iter().filter(|c| c.machine == m.hw_id));
                let counts = VerdictKind::ALL.iter().zip(n).map(|(k, c)| (kind_key(*k), c)).collect();
                MachineVerdicts { hw_id: m.hw_id.clone(), label: m.label(), commits, counts }
            })
            .collect();
        let claims = claims
            .iter()
            .map(|c| ClaimVerdict {
                id: c.id.clone(),
                machine: c.machine.clone(),
                verdict: kind_key(c.outcome.verdict.kind()),
                label: c.outcome.verdict.label(),
                ratio: c.outcome.ratio,
                evidence: c.outcome.evidence.clone(),
                source: c.source.clone(),
                text: c.text.clone(),
            })
            .collect();
        PaperVerdicts { paper: paper.into(), title: title.into(), report: format!("{paper}/REPORT.md"), machines, claims }
    }

    /// Writes `out/<paper>/verdicts.json`.
    pub fn write(&self, out: &Path) -> Result<PathBuf> {
        let path = out.join(&self.paper).join("verdicts.json");
        write_atomic(&path, (serde_json::to_string_pretty(self)? + "\n").as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
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
                let v: PaperVerdicts = serde_json::from_str(&text).with_context(|| format!("{}: not a verdicts file", path.display()))?;
                found.push(v);
            }
        }
    }
    found.sort_by_key(|v| (order.iter().position(|p| *p == v.paper).unwrap_or(usize::MAX), v.paper.clone()));
    Ok(found)
}

/// Rewrites `out/INDEX.md` and `out/verdicts.json` from every paper's verdicts.
pub fn write_index(out: &Path, order: &[&str]) -> Result<PathBuf> {
    let papers = read_all(out, order)?;
    let json = serde_json::json!({ "papers": papers });
    write_atomic(&out.join("verdicts.json"), (serde_json::to_string_pretty(&json)? + "\n").as_bytes())?;
    let path = out.join("INDEX.md");
    write_atomic(&path, index_markdown(&papers).as_bytes())?;
    Ok(path)
}

/// The index: one row per paper × machine with verdict counts, then one line per claim.
pub fn index_markdown(papers: &[PaperVerdicts]) -> String {
    let mut md = String::from(
        "# Verdicts at a glance\n\nEvery claim of every paper, judged on each machine with records (written by `evorepro report`, \
         `reproduce` and `compare` from the same results as each report; the same content for tools in `verdicts.json`).\n\n",
    );
    let mut header = vec!["paper".to_owned(), "machine".to_owned(), "commits".to_owned()];
    header.extend(VerdictKind::ALL.iter().map(|k| k.label().to_owned()));
    let mut t = Table::new(&header);
    for p in papers {
        for m in &p.machines {
            let mut row = vec![format!("[{}]({})", p.paper, p.report), format!("`{}` ({})", m.hw_id, m.label), m.commits.join(", ")];
            row.extend(VerdictKind::ALL.iter().map(|k| m.counts.get(&kind_key(*k)).copied().unwrap_or(0).to_string()));
            t.row(row);
        }
    }
    md += &t.render();
    for p in papers {
        let _ = writeln!(md, "\n## [{}]({}) — {}\n", p.paper, p.report, p.title);
        for c in &p.claims {
            let ratio = c.ratio.map_or(String::new(), |r| format!(" ({} the paper's)", crate::claims::judge::fmt_ratio(r)));
            let _ = writeln!(md, "- `{}` on `{}`: **{}**{ratio}", c.id, c.machine, c.label);
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::{Outcome, Verdict};
    use crate::records::Record;
    use crate::spec::ClaimSpec;

    fn machine(hw: &str) -> MachineRecords {
        MachineRecords {
            hw_id: hw.into(),
            rows: vec![Record::new().with("hw_id", hw).with("cpu_model", "CPU").with("git_commit", "abc123")],
        }
    }

    #[test]
    fn index_and_json_agree_with_the_claims() {
        let dir = tempfile::tempdir().unwrap();
        let c = ClaimSpec::for_tests("fast");
        let claims = vec![
            ClaimResult::of(&c, "m1", Outcome::new(Verdict::Reproduced, "ok").with_ratio(1.2)),
            ClaimResult::of(&c, "m2", Outcome::new(Verdict::NotReproduced, "slow").with_ratio(0.1)),
        ];
        let v = PaperVerdicts::new("demo", "Demo paper", &[machine("m1"), machine("m2")], &claims);
        v.write(dir.path()).unwrap();
        write_index(dir.path(), &["demo"]).unwrap();
        let all: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("verdicts.json")).unwrap()).unwrap();
        let back: Vec<PaperVerdicts> = serde_json::from_value(all["papers"].clone()).unwrap();
        assert_eq!(back, vec![v.clone()]);
        assert_eq!(v.machines[1].counts["not_reproduced"], 1);
        assert_eq!(v.machines[1].commits, vec!["abc123"]);
        let md = std::fs::read_to_string(dir.path().join("INDEX.md")).unwrap();
        assert!(md.contains("| [demo](demo/REPORT.md) | `m2` (CPU (no GPU)) | abc123 | 0 | 1 | 0 | 0 | 0 |"), "{md}");
        assert!(md.contains("- `fast` on `m1`: **reproduced** (1.20× the paper's)"), "{md}");
    }
}
