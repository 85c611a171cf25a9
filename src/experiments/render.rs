//! From records to a paper's report: every machine's records judged and laid
//! out ([`render`]), the verdicts index, the side-by-side comparison and the
//! hardware generations.

use super::{
    Experiment, HARDWARE_DIR, Paper, Part, Section, SpecChoice, above_ceiling_note, compared_machines, load_paper, machines, plan,
    references, registry, shard, write_missing_copies,
};
use crate::claims::{ClaimResult, Outcome, Verdict};
use crate::hardware::Fingerprint;
use crate::records::col;
use crate::records::{self, MachineRecords};
use crate::report;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// What [`render`] wrote.
pub struct Rendered {
    pub report: PathBuf,
    pub verdicts: PathBuf,
    pub index: PathBuf,
    /// `out/<id>/COMPARE.md`, refreshed with the report.
    pub compare: PathBuf,
    /// `out/<id>/report.html`, the report's page of the HTML site (`out/index.html`).
    pub html: PathBuf,
    /// The claims judged, on every machine with records.
    pub claims: Vec<ClaimResult>,
    /// The same as `verdicts.json` holds them.
    pub judged: report::index::PaperVerdicts,
    /// The machine the command runs on.
    pub this_hw: Option<String>,
    /// The committed reference runs' verdicts (`<root>/reports/<id>/verdicts.json`)
    /// where the report was rendered elsewhere: the file and what it holds.
    pub references: Option<(PathBuf, report::index::PaperVerdicts)>,
}

impl Rendered {
    /// What this machine judged (its own claims' verdicts), then how every other
    /// machine stands: those with records beside it, then the committed reference
    /// runs on other hardware; then the files written.
    pub fn summary(&self, id: &str) -> String {
        let mut lines = Vec::new();
        let this = self.this_hw.as_deref().and_then(|hw| self.judged.machines.iter().find(|m| m.hw_id == hw));
        match this {
            Some(m) => lines.push(format!("{id} on this machine ({}): {}", m.label, self.judged.machine_line(&m.hw_id, true))),
            None => lines.push(format!("{id}: this machine has no records here")),
        }
        let others: Vec<_> = self.judged.machines.iter().filter(|m| this.is_none_or(|t| t.hw_id != m.hw_id)).collect();
        if !others.is_empty() {
            lines.push(format!("{id} on the other machines with records beside it:"));
            lines.extend(others.iter().map(|m| format!("  `{}` ({}): {}", m.hw_id, m.label, self.judged.machine_line(&m.hw_id, false))));
        }
        if let Some((file, refs)) = &self.references {
            lines.push(format!("{id} reference runs committed in {}:", file.display()));
            for m in &refs.machines {
                let mine = if self.this_hw.as_deref() == Some(m.hw_id.as_str()) { ", this machine" } else { "" };
                lines.push(format!("  `{}` ({}{mine}): {}", m.hw_id, m.label, refs.machine_line(&m.hw_id, false)));
            }
        }
        lines.push(format!(
            "{id}: {}, {}, {}, {}; in a browser: {}",
            self.report.display(),
            self.verdicts.display(),
            self.index.display(),
            self.compare.display(),
            self.html.display()
        ));
        lines.join("\n")
    }
}

/// Re-renders `out/<id>/REPORT.md` (and figures) from the stored records, with
/// `out/<id>/verdicts.json`, `out/INDEX.md` and `out/verdicts.json`.
pub fn render(exp: &Experiment, out: &Path, this_hw: Option<&str>, spec: &SpecChoice) -> Result<Rendered> {
    let paper = load_paper(exp, spec)?;
    write_missing_copies(out, exp.id)?;
    write_missing_copies(out, HARDWARE_DIR)?;
    let machines = machines(out, exp.id, this_hw)?;
    let dir = out.join(exp.id);
    std::fs::create_dir_all(dir.join("figures"))?;
    let mut body = paper.report(&machines, &dir)?;
    let (source, values) = paper.paper_values();
    report::write_paper_values(&dir, &paper.meta().id, source, &values)?;
    body.claims = gate_smoke(paper.as_ref(), &machines, body.claims)?;
    body.claims = mark_incomplete(paper.as_ref(), &machines, body.claims)?;
    let mut md = report::header(paper.meta(), exp.id);
    md += "## At a glance\n\n";
    md += &report::glance::glance(&body.claims, &machines);
    md += "\n## Verdicts\n\n";
    md += &report::verdict_summary(&body.claims, &machines);
    md += "\n";
    md += "## Hardware\n\n";
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n### Measured ceilings\n\nMeasured at the start of each run, in the same process as the experiment (median of repeats).\n\n";
    md += &report::ceilings_table(&machines);
    md +=
        "\n### Runs\n\nEach profile's records: the commits they were measured at and the cases stored against those the profile plans.\n\n";
    md += &report::runs_table(&machines, |profile| planned_ids(paper.as_ref(), profile));
    if let Some(note) = report::busy_note(&machines) {
        md += &format!("\n{note}\n");
    }
    if let Some(note) = plan::spread_note(&machines, |p| paper.cases(p).ok(), &paper.timing()) {
        md += &format!("\n{note}\n");
    }
    if let Some(note) = above_ceiling_note(&body.sections) {
        crate::say!("{}: warning: {note}", exp.id);
        md += &format!("\n{note}\n");
    }
    let unmerged = shard::unmerged(out, exp.id);
    if !unmerged.is_empty() {
        let names: Vec<String> = unmerged.iter().map(|f| format!("`{}`", f.display())).collect();
        let note = format!("**Unmerged shards, not in this report:** {} (`evorepro merge {}` combines them).", names.join(", "), exp.id);
        crate::say!("{}: {note}", exp.id);
        md += &format!("\n{note}\n");
    }
    md += "\n## How this was measured\n\n";
    md += body.method.trim_end();
    md += "\n\n";
    for s in &body.sections {
        md += &section(s, &machines);
    }
    md += "## Claims\n\n";
    md += &report::glance::claims_section(&body.claims, &machines);
    md += &machine_pages_line(&machines, &body.claims);
    if let Some(t) = report::not_run_table(&machines, paper.not_run_column()) {
        md += "\n## Not run here\n\n";
        md += &t;
    }
    let path = dir.join("REPORT.md");
    records::write_atomic(&path, md.as_bytes())?;
    write_machine_pages(&dir, paper.meta(), &machines, &body.sections, &body.claims)?;
    let judged = report::index::PaperVerdicts::new(exp.id, &paper.meta().title, &machines, &body.claims);
    let verdicts = judged.write(out)?;
    compare(exp, out, spec, &[])?;
    let index = write_index(out)?;
    report::html::write_site(out)?;
    Ok(Rendered {
        report: path,
        verdicts,
        index,
        compare: dir.join("COMPARE.md"),
        html: dir.join("report.html"),
        claims: body.claims,
        judged,
        this_hw: this_hw.map(str::to_owned),
        references: references(out, &spec.root, exp.id),
    })
}

/// A section of REPORT.md: its introduction, the part of the machine it
/// features ([`featured`]), links to the other machines' parts on their pages
/// ([`write_machine_pages`]), and one line for the machines without results,
/// those of one reason together.
fn section(s: &Section, machines: &[MachineRecords]) -> String {
    let label = |hw: &String| machines.iter().find(|m| &m.hw_id == hw).map_or_else(|| hw.clone(), |m| m.label());
    let mut md = format!("## {}\n\n", s.title);
    if !s.intro.trim().is_empty() {
        md += s.intro.trim_end();
        md += "\n\n";
    }
    let featured = featured(s, machines);
    let mut also = Vec::new();
    let mut not_run: Vec<(&str, Vec<String>)> = Vec::new();
    for (hw, part) in &s.machines {
        match part {
            Part::Shown(part) if featured == Some(hw.as_str()) => {
                md += &format!("### {}\n\nMachine `{hw}`.\n\n{}\n\n", label(hw), part.trim_end())
            }
            Part::Shown(_) => also.push(format!("[{}]({}#{})", label(hw), machine_page(hw), report::html::anchor(&s.title))),
            Part::NotRun(why) => match not_run.iter_mut().find(|(w, _)| w == why) {
                Some((_, on)) => on.push(label(hw)),
                None => not_run.push((why, vec![label(hw)])),
            },
        }
    }
    if !also.is_empty() {
        let on = if featured.is_some() { "Also measured on" } else { "Measured on" };
        md += &format!("**{on}** {} (each machine's page).\n\n", also.join(", "));
    }
    if !not_run.is_empty() {
        let lines: Vec<String> = not_run.iter().map(|(why, on)| format!("{}: {why}", on.join(", "))).collect();
        md += &format!("**Not run on** {}.\n\n", lines.join("; "));
    }
    md
}

/// The machine whose part a section shows in REPORT.md: of the machines with
/// results for it, a GPU machine before a CPU-only one, then the one measured
/// last (the latest start of its runs); the others' parts are on their pages.
/// None for a section beyond the paper: every machine's part is on its page.
fn featured<'a>(s: &'a Section, machines: &[MachineRecords]) -> Option<&'a str> {
    // A GPU machine first, then the fullest part (its table rows), then the machine measured last.
    let rank = |hw: &String, shown: &str| {
        let m = machines.iter().find(|m| &m.hw_id == hw);
        let rows = shown.lines().filter(|l| l.starts_with('|')).count();
        (m.is_some_and(MachineRecords::has_gpu), rows, m.and_then(MachineRecords::latest_run))
    };
    if s.title.starts_with(BEYOND_THE_PAPER) {
        return None;
    }
    s.machines
        .iter()
        .filter_map(|(hw, p)| match p {
            Part::Shown(shown) => Some((hw, rank(hw, shown))),
            Part::NotRun(_) => None,
        })
        .max_by(|a, b| a.1.cmp(&b.1))
        .map(|(hw, _)| hw.as_str())
}

/// How the title of a section beyond the paper's tables and figures begins.
const BEYOND_THE_PAPER: &str = "Beyond the paper";

/// A machine's page, relative to its paper's folder.
fn machine_page(hw_id: &str) -> String {
    format!("{}/{hw_id}.md", report::MACHINES_DIR)
}

/// `dir/machines/<hw_id>.md` for every machine with records: its fingerprint and
/// ceilings, then its part of every section that has one, then the sections it
/// has no results for and why. Pages of machines no longer in the records go.
fn write_machine_pages(
    dir: &Path,
    meta: &crate::spec::PaperMeta,
    machines: &[MachineRecords],
    sections: &[Section],
    claims: &[ClaimResult],
) -> Result<()> {
    let pages = dir.join(report::MACHINES_DIR);
    std::fs::create_dir_all(&pages)?;
    for m in machines {
        let one = std::slice::from_ref(m);
        let mut md = format!("# {} — {}\n\n", meta.title, m.label());
        md += &format!(
            "Every section of [the report](REPORT.md) with results measured on this machine (`{}`); the verdicts of its \
             claims are in the report's [claims](REPORT.md#claims).\n\n## Hardware\n\n",
            m.hw_id
        );
        md += &report::hardware_table(meta, one);
        md += "\n### Measured ceilings\n\n";
        md += &report::ceilings_table(one);
        let mut not_run = Vec::new();
        for s in sections {
            match s.machines.iter().find(|(hw, _)| hw == &m.hw_id).map(|(_, p)| p) {
                Some(Part::Shown(part)) => {
                    md += &format!("\n## {}\n\n", s.title);
                    if !s.intro.trim().is_empty() {
                        md += &format!("{}\n\n", s.intro.trim_end());
                    }
                    md += &format!("{}\n", part.trim_end());
                }
                Some(Part::NotRun(why)) => not_run.push(format!("*{}*: {why}", s.title)),
                None => {}
            }
        }
        if !not_run.is_empty() {
            md += &format!("\n## Not run on this machine\n\n{}.\n", not_run.join("; "));
        }
        if let Some(list) = report::glance::not_run_on(claims, &m.hw_id) {
            md += &format!("\n## {CLAIMS_NOT_JUDGED}\n\n{list}");
        }
        if let Some(t) = report::beyond_table(claims, &m.hw_id) {
            md += &format!("\n## {CLAIMS_BEYOND}\n\nMeasured outside the paper's range or settings; not part of any verdict.\n\n{t}");
        }
        records::write_atomic(&pages.join(format!("{}.md", m.hw_id)), one_folder_down(&md).as_bytes())?;
    }
    for entry in std::fs::read_dir(&pages)? {
        let path = entry?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if !machines.iter().any(|m| m.hw_id == stem) {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    Ok(())
}

const CLAIMS_NOT_JUDGED: &str = "Claims not judged on this machine";
const CLAIMS_BEYOND: &str = "Claims beyond the paper";

/// After the claims' evidence: the machine pages that list the claims a machine
/// did not judge and what its checks measured beyond the paper's range.
fn machine_pages_line(machines: &[MachineRecords], claims: &[ClaimResult]) -> String {
    let link = |m: &MachineRecords, title: &str| format!("[{}]({}#{})", m.label(), machine_page(&m.hw_id), report::html::anchor(title));
    let mut md = String::new();
    let not_judged: Vec<String> =
        machines.iter().filter(|m| report::glance::not_run_on(claims, &m.hw_id).is_some()).map(|m| link(m, CLAIMS_NOT_JUDGED)).collect();
    if !not_judged.is_empty() {
        md += &format!("\n**Claims not judged**, with the reasons, on the pages of {}.\n", not_judged.join(", "));
    }
    let beyond: Vec<String> =
        machines.iter().filter(|m| report::beyond_table(claims, &m.hw_id).is_some()).map(|m| link(m, CLAIMS_BEYOND)).collect();
    if !beyond.is_empty() {
        md += &format!(
            "\n**Beyond the paper**: what the checks measured outside the paper's range or settings (not part of any verdict), \
             on the pages of {}.\n",
            beyond.join(", ")
        );
    }
    md
}

/// Markdown written for a paper's folder with its relative links and images
/// pointed one folder up, for a page in `machines/`.
fn one_folder_down(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(at) = rest.find("](") {
        out += &rest[..at + 2];
        rest = &rest[at + 2..];
        let target = &rest[..rest.find(')').unwrap_or(rest.len())];
        if !(target.starts_with('#') || target.starts_with('/') || target.contains("://")) {
            out += "../";
        }
    }
    out + rest
}

/// The ids of the cases a profile plans now; None for a profile the spec no longer has.
fn planned_ids(paper: &dyn Paper, profile: &str) -> Option<std::collections::BTreeSet<String>> {
    paper.cases(profile).ok().map(|c| c.into_iter().map(|c| c.id).collect())
}

/// The paper's smoke profiles (`smoke = true`).
pub fn smoke_profiles(paper: &dyn Paper) -> Vec<String> {
    paper.profiles().into_iter().filter(|p| paper.about(p).smoke).collect()
}

/// The smoke gate ([`crate::claims::smoke_gate`]) on each machine with records
/// of a smoke profile: its claims judged again without them.
fn gate_smoke(paper: &dyn Paper, machines: &[MachineRecords], mut claims: Vec<ClaimResult>) -> Result<Vec<ClaimResult>> {
    let smoke = smoke_profiles(paper);
    for m in machines {
        let used: std::collections::BTreeSet<String> =
            m.measurements().map(|r| r.str(col::PROFILE).to_owned()).filter(|p| smoke.contains(p)).collect();
        if used.is_empty() {
            continue;
        }
        let mut without = m.clone();
        without.rows.retain(|r| !(r.str(col::RECORD_KIND) == "measurement" && used.contains(r.str(col::PROFILE))));
        let judged = paper.judge(std::slice::from_ref(&without))?;
        let names: Vec<String> = used.iter().map(|p| format!("`{p}`")).collect();
        claims = crate::claims::smoke_gate(claims, &judged, &m.hw_id, &names.join(", "));
    }
    Ok(claims)
}

/// Claims that rest on an incomplete sweep. For each machine and profile with
/// fewer cases stored than the profile plans, the claims are judged again
/// without that profile's measurements: a claim whose outcome (but what it measured
/// beyond the paper, never part of a verdict) changes rests on
/// the profile, so it cannot be decided until the missing cases run. Its
/// verdict becomes "too few runs" (cases stored of planned) and its evidence
/// keeps what the stored cases say.
fn mark_incomplete(paper: &dyn Paper, machines: &[MachineRecords], mut claims: Vec<ClaimResult>) -> Result<Vec<ClaimResult>> {
    for m in machines {
        for (profile, stored) in report::cases_stored(m) {
            let Some(plan) = planned_ids(paper, &profile) else { continue };
            let (done, _) = report::planned_and_not(&stored, &plan);
            let planned = plan.len();
            if done >= planned {
                continue;
            }
            // A machine's claims rest on its records alone: judge it alone, without the profile.
            let mut without = m.clone();
            without.rows.retain(|r| !(r.str(col::RECORD_KIND) == "measurement" && r.str(col::PROFILE) == profile));
            let judged = paper.judge(std::slice::from_ref(&without))?;
            for c in claims.iter_mut().filter(|c| c.machine == m.hw_id && c.outcome.verdict.is_decided()) {
                let same =
                    judged.iter().find(|j| j.id == c.id && j.machine == c.machine).is_some_and(|j| same_verdict(&j.outcome, &c.outcome));
                if !same {
                    let o = &c.outcome;
                    let evidence = format!("on the {done} cases stored: {}; {}", o.verdict.label(), o.evidence);
                    let verdict = Verdict::Incomplete { profile: profile.clone(), stored: done, planned };
                    // The numbers measured on the stored cases stay (the first screen shows them beside "incomplete").
                    c.outcome = Outcome { verdict, evidence, ratio: None, ..o.clone() };
                }
            }
        }
    }
    Ok(claims)
}

/// Whether two outcomes of a claim agree on everything a verdict rests on: what
/// the checks measured beyond the paper is never part of it (and may lack an
/// incomplete profile's rows).
fn same_verdict(a: &Outcome, b: &Outcome) -> bool {
    let verdict_part = |o: &Outcome| Outcome { beyond: None, ..o.clone() };
    verdict_part(a) == verdict_part(b)
}

/// Every claim of a paper judged on every machine with records under `out`
/// (incomplete sweeps marked), without writing anything: the verdicts a
/// [`render`] would show.
pub fn judge(exp: &Experiment, out: &Path, spec: &SpecChoice) -> Result<Vec<ClaimResult>> {
    let paper = load_paper(exp, spec)?;
    let machines = machines(out, exp.id, None)?;
    judge_machines(paper.as_ref(), &machines)
}

/// The series a paper's analysis lists that none of its machines' records under `out` measure ([`Paper::unmeasured`]).
pub fn unmeasured(exp: &Experiment, out: &Path, spec: &SpecChoice) -> Result<Vec<&'static str>> {
    let paper = load_paper(exp, spec)?;
    paper.unmeasured(&machines(out, exp.id, None)?)
}

/// Every claim judged on `machines` as a report judges them: smoke profiles gated, incomplete sweeps marked.
pub(super) fn judge_machines(paper: &dyn Paper, machines: &[MachineRecords]) -> Result<Vec<ClaimResult>> {
    let claims = gate_smoke(paper, machines, paper.judge(machines)?)?;
    mark_incomplete(paper, machines, claims)
}

/// Rewrites `out/INDEX.md` and `out/verdicts.json` from every paper's verdicts.
pub fn write_index(out: &Path) -> Result<PathBuf> {
    let order: Vec<&str> = registry().iter().map(|e| e.id).collect();
    report::index::write_index(out, &order)
}

/// Writes `out/<id>/COMPARE.md` (the paper's tables, then the hardware
/// generations: bounds, predictions and measurements, with charts) and the
/// cross-paper `out/COMPARE.md`; returns a few lines for the terminal: the paper's
/// headline workload on each machine and where the whole comparison is. `with` adds the
/// records of other report folders (a user's run beside the committed ones); a
/// machine found in two folders appears twice, named with its folder.
pub fn compare(exp: &Experiment, out: &Path, spec: &SpecChoice, with: &[PathBuf]) -> Result<String> {
    let paper = load_paper(exp, spec)?;
    if let Some(f) = with.iter().find(|f| !f.join(exp.id).join("records").is_dir()) {
        bail!("{}: no records of {} in this folder (expected {})", f.display(), exp.id, f.join(exp.id).join("records").display());
    }
    let this = Fingerprint::this_machine(None).hw_id;
    let machines = compared_machines(out, exp.id, Some(&this), with)?;
    if machines.is_empty() {
        bail!("no records under {} — run `evorepro reproduce {}` first", out.join(exp.id).join("records").display(), exp.id);
    }
    let catalogue = report::generations::Generations::load(&spec.root)?;
    let dir = out.join(exp.id);
    std::fs::create_dir_all(dir.join("figures"))?;
    let mut md = format!("# {} — hardware generations\n\n", paper.meta().title);
    if !with.is_empty() {
        let folders: Vec<String> =
            std::iter::once(out).chain(with.iter().map(PathBuf::as_path)).map(|p| format!("`{}`", p.display())).collect();
        md += &format!("Records from {}.\n\n", folders.join(", "));
    }
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n";
    md += &paper.compare(&machines);
    md += "\n";
    let generations = report::generations::PaperGenerations { catalogue: &catalogue, paper_id: exp.id, machines: &machines };
    md += &generations.render(&dir.join("figures"))?;
    let path = dir.join("COMPARE.md");
    records::write_atomic(&path, md.as_bytes())?;
    write_generations_summary(out, this.as_str(), &catalogue, with)?;
    write_index(out)?;
    prune_figures(out, exp.id)?;
    report::html::write_site(out)?;
    let headline = generations.summary().unwrap_or_else(|| "No workload of `experiments/generations.toml` has records here.\n".into());
    Ok(format!(
        "## {}\n\n{headline}\nEvery table, workload, bound and prediction on {} machine{}: {}\n",
        exp.id,
        machines.len(),
        if machines.len() == 1 { "" } else { "s" },
        path.display()
    ))
}

/// Removes the charts under `out/<id>/figures/` that neither the paper's
/// REPORT.md, COMPARE.md and machine pages nor `out/COMPARE.md` show in any format (a retired
/// machine id's, a figure a report no longer draws; a chart's PNG and SVG go
/// together), so that every figure file belongs to a report. Returns the names
/// removed.
pub fn prune_figures(out: &Path, id: &str) -> Result<Vec<String>> {
    let dir = out.join(id);
    let mut shown = String::new();
    let pages = std::fs::read_dir(dir.join(report::MACHINES_DIR)).into_iter().flatten().filter_map(|e| e.ok().map(|e| e.path()));
    let pages = pages.filter(|p| p.extension().is_some_and(|e| e == "md"));
    for md in [dir.join("REPORT.md"), dir.join("COMPARE.md"), out.join("COMPARE.md")].into_iter().chain(pages) {
        match std::fs::read_to_string(&md) {
            Ok(text) => shown += &text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(anyhow::Error::new(e).context(format!("reading {}", md.display()))),
        }
    }
    let figures = dir.join("figures");
    let Ok(entries) = std::fs::read_dir(&figures) else { return Ok(vec![]) };
    let mut removed = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let (Some(name), Some(stem)) = (path.file_name().and_then(|n| n.to_str()), path.file_stem().and_then(|n| n.to_str())) else {
            continue;
        };
        let name = name.to_owned();
        let chart = path.extension().is_some_and(|e| e == "png" || e == "svg");
        if chart && !shown.contains(&format!("figures/{stem}.")) {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// `out/COMPARE.md`: per paper with records, its headline workload on every
/// machine, the speedup over the paper's card and the predictions for cards
/// nobody ran here.
fn write_generations_summary(out: &Path, this_hw: &str, catalogue: &report::generations::Generations, with: &[PathBuf]) -> Result<()> {
    let mut md = String::from(
        "# Hardware generations\n\nPer paper, the headline workload (the first of `experiments/generations.toml` with \
         records) on every machine with records, its speedup over the paper's card, and the time the workload's \
         bound predicts for cards not run here (predictions, not measurements). Each paper's `COMPARE.md` has every \
         workload with its bound, the predictions both ways and charts.\n\n",
    );
    for exp in registry() {
        let machines = compared_machines(out, exp.id, Some(this_hw), with)?;
        let g = report::generations::PaperGenerations { catalogue, paper_id: exp.id, machines: &machines };
        if let Some(s) = g.summary() {
            md += &format!("## [{}]({}/COMPARE.md)\n\n{s}\n", exp.id, exp.id);
        }
    }
    records::write_atomic(&out.join("COMPARE.md"), md.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{FingerprintRow, Record};

    fn machine(hw: &str, gpu: &str, run: i64) -> MachineRecords {
        let row = Record::new().with(col::RECORD_KIND, "measurement").with(col::RUN_ID, run).with(FingerprintRow::gpu_name, gpu);
        MachineRecords { hw_id: hw.into(), rows: vec![row] }
    }

    /// A GPU machine first, then the fullest part, then the machine measured last; the others linked.
    #[test]
    fn a_section_shows_the_fullest_then_latest_gpu_machine_and_links_the_others() {
        let machines =
            [machine("cpu", "", 30), machine("old-gpu", "H100", 10), machine("new-gpu", "H200", 20), machine("idle", "H200", 40)];
        let part = |s: &str| Part::Shown(s.into());
        let parts = vec![
            ("cpu".into(), part("cpu table")),
            ("old-gpu".into(), part("h100 table")),
            ("new-gpu".into(), part("h200 table")),
            ("idle".into(), Part::NotRun("no grid runs recorded".into())),
        ];
        let s = Section { title: "Figure 4 — best fitness".into(), intro: "Intro.".into(), machines: parts.clone() };
        let md = section(&s, &machines);
        assert!(md.contains("h200 table") && !md.contains("h100 table") && !md.contains("cpu table"), "{md}");
        assert!(
            md.contains(
                "**Also measured on** [CPU, no GPU](machines/cpu.md#figure-4--best-fitness), [H100 · CPU](machines/old-gpu.md#figure-4--best-fitness)"
            ),
            "{md}"
        );
        assert!(md.contains("**Not run on** H200 · CPU: no grid runs recorded."), "{md}");
        let mut fuller = parts.clone();
        fuller[1].1 = part("| ℓ | time |\n|---|---|\n| 50 | 1 ms |\n| 100 | 2 ms |");
        fuller[2].1 = part("| ℓ | time |\n|---|---|\n| 500 | 9 ms |");
        let md = section(&Section { title: "Figure 5".into(), intro: String::new(), machines: fuller }, &machines);
        assert!(md.contains("| 100 | 2 ms |") && !md.contains("| 500 | 9 ms |"), "the H100's fuller part: {md}");
        let beyond = Section { title: format!("{BEYOND_THE_PAPER} — families"), intro: String::new(), machines: parts };
        let md = section(&beyond, &machines);
        assert!(!md.contains("table") && md.contains("**Measured on** [CPU, no GPU]"), "beyond the paper: every machine on its page: {md}");
    }

    /// An incomplete profile marks a claim only where leaving it out changes what the verdict rests on.
    #[test]
    fn beyond_the_paper_never_makes_a_sweep_incomplete() {
        let o = Outcome::new(Verdict::Reproduced, "measured 12 (n = 5)").with_ratio(1.2);
        assert!(same_verdict(&o, &o.clone().with_beyond("speed rows: 3 of 25 cases")));
        assert!(!same_verdict(&o, &Outcome::new(Verdict::Reproduced, "measured 11 (n = 4)").with_ratio(1.2)));
        assert!(!same_verdict(&o, &o.clone().with_ratio(1.1)));
    }

    #[test]
    fn a_machine_page_points_its_links_one_folder_up() {
        let md = "![chart](figures/a.png) [report](REPORT.md#claims) [doi](https://doi.org/1) [here](#x)";
        assert_eq!(one_folder_down(md), "![chart](../figures/a.png) [report](../REPORT.md#claims) [doi](https://doi.org/1) [here](#x)");
    }
}
