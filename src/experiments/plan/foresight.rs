//! Which of a paper's claims a profile can decide on a machine, and why not
//! ([`foresee`]), for the dry run and `list`.

use crate::experiments::Case;
use crate::report::Table;
use std::collections::BTreeMap;

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
