//! The `s3_limit` check: the first Table 1 dimension S3 cannot run at here,
//! against the paper's, explained by the limits of [`super::limits`].

use super::analysis::{Analysis, Cell};
use super::limits::{Limit, S3Limits};
use super::points::{list, size};
use super::spec::Func;
use crate::claims::hardware::{Explanation, Factor, Model, Predicted};
use crate::claims::judge::{self, Band};
use crate::claims::{Ctx, Direction, Estimate, Outcome, Params, Verdict};
use crate::hardware::Quantity;
use crate::spec::Datasheet;
use serde::Deserialize;

/// S3 cannot run from `paper_dimension` on (Section 4.1, Table 1's NAN): the
/// first Table 1 dimension S3 could not run at here over the paper's, by
/// [`judge::ratio`] (the same dimension: band [1, 1]). Outside it, the limits
/// explain the difference (differs on this hardware) only when they predict
/// both: the paper's dimension from its card's threads per block (datasheet)
/// and shared memory per block (params), and this machine's from its own.
///
/// The paper blames shared memory alone for 1000×1000 ("due to the depletion
/// of the shared memory"); threads per block limit S3 only above 1024 on its
/// card. Evidence and explanation name the limit that binds on each card.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct S3Limit {
    pub function: Func,
    pub paper_dimension: usize,
    pub paper_shared_memory_bytes: Datasheet,
    /// Threads per block of the paper's card, required in its datasheet (checked at load).
    #[serde(skip, default = "threads_per_block")]
    threads: Model,
}

fn threads_per_block() -> Model {
    Model([(Quantity::GpuThreadsPerBlock, 1.0)].into_iter().collect())
}

impl Params for S3Limit {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.paper_shared_memory_bytes.value < 8.0 {
            return Err((
                "paper_shared_memory_bytes".into(),
                format!("{} B is no block's shared memory", self.paper_shared_memory_bytes.value),
            ));
        }
        if self.paper_dimension == 0 { Err(("paper_dimension".into(), "must be at least 1".into())) } else { Ok(()) }
    }

    fn model(&self) -> Option<&Model> {
        Some(&self.threads)
    }
}

/// The same first dimension as the paper's.
const SAME: Band = Band { low: 1.0, high: 1.0 };

/// "1024 threads per block (…), 49152 B … → S3 runs up to dimension 1024 (bound by threads per block), first of these Table 1 dimensions it cannot: 1500".
fn predicted(l: &S3Limits, dims: &[usize]) -> String {
    let (d, by) = l.largest();
    let first = l.first_blocked(dims).map_or("none".into(), |d| d.to_string());
    format!("{} → S3 runs up to dimension {d} (bound by {by}), first of these Table 1 dimensions it cannot: {first}", l.describe())
}

/// The limits' predictions of a first blocked dimension `b` here against the
/// paper's, or why they give none: they must predict the paper's dimension on
/// its card, and this machine's limits give the point [`judge::explained_by`]
/// judges (`b` measured over its prediction, inside the band).
fn explain(here: &S3Limits, paper: &S3Limits, dims: &[usize], b: usize, p: &S3Limit, direction: Direction) -> Result<Explanation, String> {
    let paper_dim = p.paper_dimension as f64;
    let on_paper = paper.first_blocked(dims);
    if on_paper != Some(p.paper_dimension) {
        return Err(format!(
            "no hardware explanation: the paper's card's limits predict {}, not its {}",
            on_paper.map_or("none".into(), |d| d.to_string()),
            p.paper_dimension
        ));
    }
    if !here.exact() {
        return Err(format!("no hardware explanation: this machine's {} is only a lower bound", here.largest().1));
    }
    let Some(predicted) = here.first_blocked(dims) else {
        return Err("no hardware explanation: this machine's limits predict none".into());
    };
    let point = Predicted {
        label: format!(
            "first Table 1 dimension S3 cannot run at (bound by {} here, by {} on the paper's card)",
            here.largest().1,
            paper.largest().1
        ),
        measured: Estimate::exact(b as f64 / paper_dim),
        predicted: Estimate::exact(predicted as f64 / paper_dim),
        factors: vec![],
    };
    let threads = Factor {
        quantity: Quantity::GpuThreadsPerBlock,
        here: here.threads.value as f64,
        paper: paper.threads.value as f64,
        exponent: 1.0,
        source: paper.threads.source.clone(),
        runs: 0,
        interval: None,
    };
    Ok(Explanation { factors: vec![threads], points: vec![point], direction })
}

pub(super) fn s3_limit(p: &S3Limit, a: &Analysis, ctx: &Ctx) -> Outcome {
    if !a.gpu_ran {
        return Outcome::not_run(a.gpu_absent.clone());
    }
    let f = p.function.0;
    let (mut ran, mut blocked) = (Vec::new(), Vec::new());
    for &s in &a.table1 {
        match a.get(f, s, "S3") {
            Some(Cell::Ok(_)) => ran.push(s),
            Some(Cell::CannotRun(why)) => blocked.push((s, why.clone())),
            Some(Cell::NotRun(why)) => return Outcome::not_run(why.clone()),
            None => {}
        }
    }
    if ran.is_empty() && blocked.is_empty() {
        return Outcome::not_run("no S3 records at Table 1's sizes");
    }
    let sheet = &ctx.paper.datasheet[&Quantity::GpuThreadsPerBlock];
    let paper = S3Limits {
        threads: Limit { value: sheet.value as usize, source: sheet.source.clone(), at_least: false },
        shared_bytes: Limit {
            value: p.paper_shared_memory_bytes.value as usize,
            source: p.paper_shared_memory_bytes.source.clone(),
            at_least: false,
        },
    };
    // Table 1's dimensions S3 has records at here: predictions and measurement on the same ones.
    let mut dims: Vec<usize> = ran.iter().chain(blocked.iter().map(|(s, _)| s)).map(|s| s.1).collect();
    dims.sort_unstable();
    dims.dedup();
    let largest_ran = ran.iter().map(|s| s.1).max();
    let first = blocked.iter().min_by_key(|(s, _)| s.1);
    let mut ev = vec![match first {
        Some((at, why)) => format!(
            "S3 ran here at Table 1's dimensions up to {} and could not from {} ({}: {why})",
            largest_ran.map_or("none".into(), |d| d.to_string()),
            at.1,
            size(*at)
        ),
        None => "S3 ran here at every Table 1 dimension".to_owned(),
    }];
    if let (Some((at, _)), Some(r)) = (first, largest_ran)
        && r > at.1
    {
        ev.push(format!("yet it ran at dimension {r} too, above {}", at.1));
    }
    ev.push(format!("the paper's card: {}", predicted(&paper, &dims)));
    match &a.s3_here {
        Ok(h) => ev.push(format!("this machine: {}", predicted(h, &dims))),
        Err(why) => ev.push(format!("this machine: {why}")),
    }
    let unexplained: Vec<String> = a.paper_s3_nan.iter().filter(|s| paper.runs_at(s.1)).map(|s| size(*s)).collect();
    if !unexplained.is_empty() {
        let per = paper.shared_bytes.value as f64 / p.paper_dimension as f64;
        ev.push(format!(
            "the paper's S3 NAN at {} is not what its card's limits predict for this kernel (({} + 1) · 4 B of shared memory and {} threads at \
             dimension {}); the paper blames shared memory, so its kernel needed more than {per:.0} B per coordinate",
            list(&unexplained),
            p.paper_dimension,
            p.paper_dimension,
            p.paper_dimension
        ));
    }
    if let Some(at) = a.paper_s3_nan.iter().min_by_key(|s| s.1).filter(|s| s.1 != p.paper_dimension) {
        ev.push(format!("the paper's own Table 1 has S3 NAN from dimension {} ({})", at.1, size(*at)));
    }
    // Running at every dimension: the first it cannot lies above the largest.
    let measured = match first {
        Some((at, _)) => Estimate::exact(at.1 as f64),
        None => {
            let top = largest_ran.unwrap_or(0) as f64;
            Estimate { low: top, high: f64::INFINITY, ..Estimate::exact(top) }
        }
    };
    let what = "first Table 1 dimension S3 cannot run at";
    let mut o = judge::ratio(what, measured, p.paper_dimension as f64, &SAME, None, &[], ctx);
    o.evidence = format!("{}; {}", ev.join("; "), o.evidence);
    if let (Verdict::NotReproduced(Some(direction)), Some((at, _)), Ok(h)) = (o.verdict.clone(), first, &a.s3_here) {
        o = judge::explained_by(o, explain(h, &paper, &dims, at.1, p, direction), &SAME);
    }
    let grid: Vec<(usize, bool)> = a
        .sizes(f)
        .into_iter()
        .filter(|s| !a.table1.contains(s))
        .filter_map(|s| match a.get(f, s, "S3") {
            Some(Cell::Ok(_)) => Some((s.1, true)),
            Some(Cell::CannotRun(_)) => Some((s.1, false)),
            _ => None,
        })
        .collect();
    let beyond = match (grid.iter().filter(|g| g.1).map(|g| g.0).max(), grid.iter().filter(|g| !g.1).map(|g| g.0).min()) {
        (None, None) => String::new(),
        (Some(r), Some(b)) => format!("the other {} sizes measured: S3 ran up to dimension {r} and could not from {b}", grid.len()),
        (Some(r), None) => format!("the other {} sizes measured: S3 ran at every one (dimensions up to {r})", grid.len()),
        (None, Some(b)) => format!("the other {} sizes measured: S3 ran at none (dimensions from {b})", grid.len()),
    };
    o.with_beyond(beyond)
}
