//! One machine's records indexed for the report and the claims: Table 5
//! bisections, Figure 5 runs and single model builds per scorer, Figure 6 runs
//! per search and population, Figure 7 runs, and the builds and counting-kernel
//! rows at the scalability point of Section 5.4.

use super::rows::{
    BUILD, Bisection, BuildCase, BuildRow, COUNT, CountRow, DeviceTimes, FIG5, FIG6, FIG7, Fig5Case, Generation, Phases, RunCase, RunRow,
    SCALE, ScaleRow, Scored, TABLE5, Table5Case, WHOLE, WholeBuild, WholeCase,
};
use super::spec::Published;
use super::{BASELINE, FASTCOUNT, GECGA, GECGA_DEVICE};
use crate::library::ecga::Search;
use crate::records::FingerprintRow;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::stats::Summary;
use std::collections::{BTreeMap, BTreeSet};

/// One run's model building and, for whole runs, the run's time (ms).
pub type RunTimes = (f64, Option<f64>);

/// The times of one scorer at one ℓ (ms), run by run.
#[derive(Default)]
pub struct ScorerTimes {
    pub model: Vec<f64>,
    pub total: Vec<f64>,
    /// Model building and whole run of each run, by case (runs of one case
    /// share their seed across scorers, so their ratios pair up).
    pub by_case: BTreeMap<String, RunTimes>,
    pub identical: usize,
    pub runs: usize,
    /// The harness runs (`run_id`) that recorded them.
    pub run_ids: BTreeSet<i64>,
    pub not_run: Option<String>,
    pub pairs: Vec<f64>,
    /// Device kernel time of the runs, and host time of the calls that
    /// launched them (gECGA only).
    pub kernel: Vec<f64>,
    pub calls: Vec<f64>,
    /// Alleles the kernels read (Σ loci × N over scored groups).
    pub alleles: Vec<f64>,
    /// The whole device run's phases (a [`Phases`] column → ms per run).
    pub phases: BTreeMap<&'static str, Vec<f64>>,
    /// Generations of each run.
    pub generations: Vec<f64>,
}

/// Which time a speedup divides: model building (m) or the whole run (w).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Model,
    Whole,
}

#[derive(Default, Clone, Copy)]
pub struct Speedups {
    pub spc_m: Option<f64>,
    pub spc_w: Option<f64>,
    pub spg_m: Option<f64>,
    pub spg_w: Option<f64>,
    pub spcg_m: Option<f64>,
    pub spcg_w: Option<f64>,
}

/// One whole run of Section 5.3 timed by saved generations (`whole` cases of
/// one seed): gECGA's runs, the device run, and each generation's model built
/// by the single-threaded scorers, several builds at once.
#[derive(Default)]
pub struct WholeRun {
    /// Generations of the greedy run (every case of the seed reruns it).
    pub generations: Option<usize>,
    /// gECGA's greedy whole runs: (model building, whole run) ms, one per case.
    pub gecga: Vec<(f64, f64)>,
    /// gECGA's whole runs with GM search (ms).
    pub gecga_gm: Vec<f64>,
    /// The whole run on the device (ms).
    pub device: Vec<f64>,
    /// Scorer → generation → its model build (ms).
    pub builds: BTreeMap<String, BTreeMap<usize, f64>>,
    /// Builds whose model equals the run's: (equal, compared).
    pub identical: (usize, usize),
    /// Scorer → the `build` case's selection built among the others (ms).
    pub calibration: BTreeMap<String, Vec<f64>>,
    /// Builds at once.
    pub concurrent: usize,
    /// The harness runs (`run_id`) that recorded it.
    pub run_ids: BTreeSet<i64>,
}

impl WholeRun {
    /// `scorer`'s whole run: (Σ of its builds over every generation, that plus
    /// the run's time outside model building, the same code whichever scorer
    /// counts, taken from gECGA's runs); None until every generation is built.
    pub fn whole(&self, scorer: &str) -> Option<(f64, f64)> {
        let g = self.generations?;
        let builds = self.builds.get(scorer)?;
        if g == 0 || (1..=g).any(|i| !builds.contains_key(&i)) {
            return None;
        }
        let model: f64 = builds.values().sum();
        let rest = self.gecga.iter().map(|(m, t)| t - m).sum::<f64>() / self.gecga.len() as f64;
        Some((model, model + rest))
    }

    /// gECGA's mean (model building, whole run) over this seed's runs (ms).
    pub fn gecga_mean(&self) -> Option<(f64, f64)> {
        let n = self.gecga.len() as f64;
        (n > 0.0).then(|| (self.gecga.iter().map(|g| g.0).sum::<f64>() / n, self.gecga.iter().map(|g| g.1).sum::<f64>() / n))
    }
}

/// The whole runs at one ℓ, by run.
pub type WholeRuns = BTreeMap<usize, WholeRun>;

/// Section 5.3's speedups from whole runs timed by saved generations: ratios
/// of mean times over the runs whose every generation the slower scorer built.
#[derive(Clone, Copy, Debug, Default)]
pub struct WholeSpeedups {
    /// Runs with every generation built by the baseline.
    pub n: usize,
    pub spg_m: Option<f64>,
    pub spg_w: Option<f64>,
    pub spc_m: Option<f64>,
    pub spcg_m: Option<f64>,
    pub spcg_w: Option<f64>,
    /// The baseline's greedy whole run over gECGA's with GM search.
    pub spgm_w: Option<f64>,
    /// The baseline's whole run over the whole run on the device.
    pub device_w: Option<f64>,
}

/// The speedups of [`WholeSpeedups`] over `runs`.
pub fn whole_speedups(runs: &WholeRuns) -> WholeSpeedups {
    let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    // Means over the runs where `scorer` built every generation, of its time and of `other(run)`.
    // `whole`: the scorer's whole run, else its model building.
    let over = |scorer: &str, whole: bool, other: &dyn Fn(&WholeRun) -> Option<f64>| {
        let own = |r: &WholeRun| r.whole(scorer).map(|t| if whole { t.1 } else { t.0 });
        let pairs: Vec<(f64, f64)> = runs.values().filter_map(|r| Some((own(r)?, other(r)?))).collect();
        Some(mean(pairs.iter().map(|p| p.0).collect())? / mean(pairs.iter().map(|p| p.1).collect())?)
    };
    let gecga_m = |r: &WholeRun| r.gecga_mean().map(|g| g.0);
    let gecga_w = |r: &WholeRun| r.gecga_mean().map(|g| g.1);
    let gm_w = |r: &WholeRun| mean(r.gecga_gm.clone());
    let device_w = |r: &WholeRun| mean(r.device.clone());
    let (m, w) = (false, true);
    WholeSpeedups {
        n: runs.values().filter(|r| r.whole(BASELINE).is_some()).count(),
        spg_m: over(BASELINE, m, &gecga_m),
        spg_w: over(BASELINE, w, &gecga_w),
        spc_m: over(BASELINE, m, &|r| r.whole(FASTCOUNT).map(|t| t.0)),
        spcg_m: over(FASTCOUNT, m, &gecga_m),
        spcg_w: over(FASTCOUNT, w, &gecga_w),
        spgm_w: over(BASELINE, w, &gm_w),
        device_w: over(BASELINE, w, &device_w),
    }
}

/// Each run of `runs` whose every generation the baseline built: the
/// baseline's (Σ model building, whole run) and gECGA's mean (model building,
/// whole run) over the seed's runs (ms), the samples of Section 5.3's spg.
pub fn whole_pairs(runs: &WholeRuns) -> Vec<((f64, f64), (f64, f64))> {
    runs.values().filter_map(|r| Some((r.whole(BASELINE)?, r.gecga_mean()?))).collect()
}

/// Generation → (model quality, ratio of ones) over runs (Figure 6).
pub type PerGeneration = BTreeMap<usize, (Vec<f64>, Vec<f64>)>;

/// One Figure 6 run: its length, and the model quality and ratio of ones after
/// selection of each generation.
#[derive(Clone, Default)]
pub struct Fig6Run {
    pub generations: usize,
    pub quality: BTreeMap<usize, f64>,
    pub ones: BTreeMap<usize, f64>,
}

impl Fig6Run {
    /// The mean ratio of ones after selection over generations 1 to `horizon`
    /// (the area under the run's Figure 6(b) curve, per generation): a run that
    /// ended before the horizon keeps its last value (it ends when its
    /// population has converged, which then no longer changes). None without
    /// a ratio of ones.
    pub fn mean_ones_over(&self, horizon: usize) -> Option<f64> {
        let (&last, _) = self.ones.last_key_value()?;
        let horizon = horizon.max(last);
        let mut value = *self.ones.first_key_value()?.1;
        let mut sum = 0.0;
        for g in 1..=horizon {
            value = self.ones.get(&g).copied().unwrap_or(value);
            sum += value;
        }
        Some(sum / horizon as f64)
    }

    /// The run's last generation.
    pub fn last_generation(&self) -> usize {
        self.ones.keys().chain(self.quality.keys()).copied().max().unwrap_or(0)
    }

    /// Section 5.5's "overall" model quality: the mean over the run's
    /// generations but its last (where the paper says quality drops for both).
    pub fn overall_quality(&self) -> Option<f64> {
        let q: Vec<f64> = self.quality.values().copied().collect();
        (q.len() > 1).then(|| q[..q.len() - 1].iter().sum::<f64>() / (q.len() - 1) as f64)
    }
}

/// Figure 7's runs with GM search at one ℓ: its population, the scorer and
/// each run's model building and whole run (ms).
pub struct Fig7Runs {
    pub n: usize,
    pub scorer: String,
    pub model: Vec<f64>,
    pub total: Vec<f64>,
}

/// The per-trial rule and randomness of Table 5 bisections (rows written before
/// they were recorded: one run of one, the paper's randomness).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Table5Rule {
    pub runs_per_trial: usize,
    pub required_successes: usize,
    pub randomness: String,
}

impl Table5Rule {
    pub fn of(case: &Table5Case) -> Table5Rule {
        let at_least_one = |v: Option<usize>| v.map_or(1, |v| v.max(1));
        let randomness = case.randomness.as_deref().filter(|s| !s.is_empty()).unwrap_or("paper").to_owned();
        Table5Rule {
            runs_per_trial: at_least_one(case.runs_per_trial),
            required_successes: at_least_one(case.required_successes),
            randomness,
        }
    }

    /// The rule of a Table 5 row, None for another row.
    pub fn of_row(r: &Record) -> Option<Table5Rule> {
        (r.str(col::FIGURE) == TABLE5).then(|| r.row::<Table5Case>().ok()).flatten().map(|c| Table5Rule::of(&c))
    }

    /// The rule in words, for the report and the claims' evidence.
    pub fn describe(&self) -> String {
        let runs = if self.runs_per_trial == 1 {
            "one run per trial".to_owned()
        } else {
            format!("{} runs per trial, a size succeeding when {} or more of them do", self.runs_per_trial, self.required_successes)
        };
        format!("{runs}; {} randomness", self.randomness)
    }
}

/// One model build at the scalability point (a `scale` row that ran).
#[derive(Clone)]
pub struct ScaleBuild {
    pub search: String,
    pub ell: usize,
    pub n: usize,
    pub model_ms: f64,
    pub merges: usize,
    /// Fraction of the planted blocks found exactly as MPM groups.
    pub quality: f64,
}

/// One machine's records, indexed for the report.
pub struct Analysis {
    /// What the paper published, for the checks.
    pub published: Published,
    /// (search, ℓ) → bisection results under [`Analysis::table5_rule`] alone.
    pub table5: BTreeMap<(String, usize), Vec<f64>>,
    /// The rule of `table5`: of the rules in the records, the one with the
    /// most bisections (the latest run on a tie).
    pub table5_rule: Option<Table5Rule>,
    /// Bisections under other rules, left out of `table5`.
    pub table5_left_out: BTreeMap<Table5Rule, usize>,
    /// ℓ → (population, scorer → times).
    pub fig5: BTreeMap<usize, (usize, BTreeMap<String, ScorerTimes>)>,
    /// (search, n) → generation → (quality, ones ratio) over runs.
    pub fig6: BTreeMap<(String, usize), PerGeneration>,
    /// (search, n) → case → the run.
    pub fig6_runs: BTreeMap<(String, usize), BTreeMap<String, Fig6Run>>,
    /// ℓ → Figure 7's runs with GM search.
    pub fig7: BTreeMap<usize, Fig7Runs>,
    /// ℓ → (population, scorer → one model build of the first selection).
    pub build: BTreeMap<usize, (usize, BTreeMap<String, ScorerTimes>)>,
    /// The profile that timed each Figure 5 ℓ (its runs' ceilings apply).
    pub fig5_profile: BTreeMap<usize, String>,
    /// ℓ → gECGA's Figure 5 runs identical to the first CPU scorer's, and all
    /// its runs, in every profile (identity is evidence whichever profile ran it).
    pub gecga_identical: BTreeMap<usize, (usize, usize)>,
    /// Counting-kernel calls checked bit for bit against the CPU: (identical, all).
    pub count_identical: (usize, usize),
    /// (ℓ, builds at once) → (N, Section 5.3's whole runs timed by saved
    /// generations): each set of runs with its own sharing of the host's cores.
    pub whole: BTreeMap<(usize, usize), (usize, WholeRuns)>,
    /// The profile of each set of whole runs (its lone builds are that profile's).
    pub whole_profile: BTreeMap<(usize, usize), String>,
    /// (profile, ℓ) → scorer → lone builds of the first selection (the `build`
    /// cases of every profile: a set of whole runs is set against its own run's).
    pub lone: BTreeMap<(String, usize), BTreeMap<String, Vec<f64>>>,
    /// Model builds at the scalability point that ran.
    pub scale: Vec<ScaleBuild>,
    /// Why gECGA did not run here, where a record says so.
    pub gecga_absent: Option<String>,
}

/// A row that ran.
fn ok(r: &Record) -> bool {
    r.str(col::STATUS) == "ok"
}

/// How many builds a `whole` case ran at once: its `threads` setting, 0 meaning
/// the host's physical cores.
fn builds_at_once(case: &WholeCase, r: &Record) -> usize {
    match case.threads {
        0 => r.int(FingerprintRow::cpu_physical_cores).unwrap_or(0).max(0) as usize,
        t => t,
    }
}

/// The profile whose Figure 5 runs a machine's report shows: the most ℓ measured, the latest run on a tie.
fn fig5_profile(m: &MachineRecords) -> Option<String> {
    let mut per: BTreeMap<String, (std::collections::BTreeSet<usize>, i64)> = BTreeMap::new();
    for r in m.measurements().filter(|r| r.str(col::FIGURE) == FIG5) {
        let e = per.entry(r.str(col::PROFILE).to_owned()).or_default();
        e.0.extend(r.row::<Fig5Case>().map(|c| c.ell));
        e.1 = e.1.max(r.int(col::RUN_ID).unwrap_or(0));
    }
    per.into_iter().max_by_key(|(_, (ells, run))| (ells.len(), *run)).map(|(p, _)| p)
}

impl Analysis {
    /// Figure 5 comes from one profile, the one that measured the most of its ℓ
    /// (the latest on a tie), so that its table never mixes code versions (the
    /// `speed` profile's ℓ = 500 goals read that profile alone, in
    /// `performance.rs`); other timings of one ℓ come from the profile that
    /// measured it last, at its commit, so that each ratio compares scorers of one code version.
    pub fn of(m: &MachineRecords, published: &Published) -> Analysis {
        let fig5 = fig5_profile(m);
        let rows = m.rows.iter().filter(|r| r.str(col::FIGURE) != FIG5 || Some(r.str(col::PROFILE)) == fig5.as_deref()).cloned().collect();
        let one = MachineRecords { hw_id: m.hw_id.clone(), rows };
        // Figures 6 and 7 per population as well: two profiles' runs of one case id are two runs, never one.
        let run_point = |figure: &'static str, r: &Record| {
            let case = r.row::<RunCase>().ok();
            Some((figure, case.as_ref().map(|c| c.ell), case.map(|c| c.n)))
        };
        let timed = |r: &Record| match r.str(col::FIGURE) {
            FIG5 => Some((FIG5, r.row::<Fig5Case>().ok().map(|c| c.ell), None)),
            BUILD => Some((BUILD, r.row::<BuildCase>().ok().map(|c| c.ell), None)),
            FIG6 => run_point(FIG6, r),
            FIG7 => run_point(FIG7, r),
            _ => None,
        };
        let mut a = Analysis::of_rows(one.latest_measurements(timed).into_iter(), published);
        // Every profile's lone builds, not only the latest (one collection point).
        for r in m.measurements().filter(|r| r.str(col::FIGURE) == BUILD && ok(r)) {
            a.lone_build(r);
        }
        for r in m.measurements().filter(|r| r.str(col::FIGURE) == FIG5 && r.str(Scored::scorer) == GECGA && ok(r)) {
            let (Ok(case), Ok(run)) = (r.row::<Fig5Case>(), r.row::<RunRow>()) else { continue };
            let e = a.gecga_identical.entry(case.ell).or_default();
            e.0 += usize::from(run.identical == Some(true));
            e.1 += 1;
        }
        a
    }

    /// Every row as it comes (the `speed` profile's goals read one profile
    /// alone); lone builds are [`Analysis::of`]'s, from every profile.
    pub fn of_rows<'r>(rows: impl Iterator<Item = &'r Record>, published: &Published) -> Analysis {
        let mut a = Analysis {
            published: published.clone(),
            table5: BTreeMap::new(),
            table5_rule: None,
            table5_left_out: BTreeMap::new(),
            fig5: BTreeMap::new(),
            fig6: BTreeMap::new(),
            fig6_runs: BTreeMap::new(),
            fig7: BTreeMap::new(),
            build: BTreeMap::new(),
            whole: BTreeMap::new(),
            whole_profile: BTreeMap::new(),
            lone: BTreeMap::new(),
            fig5_profile: BTreeMap::new(),
            gecga_identical: BTreeMap::new(),
            count_identical: (0, 0),
            scale: Vec::new(),
            gecga_absent: None,
        };
        let rows: Vec<&Record> = rows.collect();
        let mut rules: BTreeMap<Table5Rule, (usize, i64)> = BTreeMap::new();
        for r in rows.iter().filter(|r| ok(r)) {
            let Some(rule) = Table5Rule::of_row(r) else { continue };
            let e = rules.entry(rule).or_default();
            e.0 += 1;
            e.1 = e.1.max(r.int(col::RUN_ID).unwrap_or(0));
        }
        a.table5_rule = rules.iter().max_by_key(|(_, (n, run))| (*n, *run)).map(|(rule, _)| rule.clone());
        a.table5_left_out =
            rules.into_iter().filter(|(rule, _)| Some(rule) != a.table5_rule.as_ref()).map(|(rule, (n, _))| (rule, n)).collect();
        // A case's seed comes from its id, so a Table 5 or Figure 6 case stored by two
        // profiles (`quick` and `cpu`, `gpu` and `fig6`) is the same run twice: counted once.
        let mut seen = std::collections::BTreeSet::new();
        for r in rows {
            let (figure, scorer) = (r.str(col::FIGURE), r.str(Scored::scorer));
            if matches!(figure, TABLE5 | FIG6)
                && !r.str(col::CASE_ID).is_empty()
                && !seen.insert((r.str(col::CASE_ID), r.int(Generation::generation), scorer, Table5Rule::of_row(r)))
            {
                continue;
            }
            let ok = ok(r);
            if !ok && scorer == GECGA {
                a.gecga_absent.get_or_insert_with(|| r.str(col::REASON).to_owned());
            }
            match figure {
                TABLE5 if ok => {
                    let (Ok(case), Ok(b)) = (r.row::<Table5Case>(), r.row::<Bisection>()) else { continue };
                    if Some(&Table5Rule::of(&case)) == a.table5_rule.as_ref() {
                        a.table5.entry((case.search, case.ell)).or_default().push(b.n_min as f64);
                    }
                }
                FIG5 | BUILD => {
                    let size = match figure {
                        FIG5 => r.row::<Fig5Case>().map(|c| (c.ell, c.n)),
                        _ => r.row::<BuildCase>().map(|c| (c.ell, c.n)),
                    };
                    let Ok((ell, n)) = size else { continue };
                    if figure == FIG5 {
                        a.fig5_profile.insert(ell, r.str(col::PROFILE).to_owned());
                    }
                    let runs = if figure == FIG5 { &mut a.fig5 } else { &mut a.build };
                    let entry = runs.entry(ell).or_insert_with(|| (n, BTreeMap::new()));
                    let t = entry.1.entry(scorer.to_owned()).or_default();
                    if !ok {
                        t.not_run = Some(r.str(col::REASON).to_owned());
                        continue;
                    }
                    // A Figure 5 run, or one build of the first selection.
                    let (model, total, pairs, identical) = if figure == FIG5 {
                        let Ok(run) = r.row::<RunRow>() else { continue };
                        t.generations.push(run.generations as f64);
                        (run.model_ms, Some(run.total_ms), run.pairs_scored, run.identical)
                    } else {
                        let Ok(build) = r.row::<BuildRow>() else { continue };
                        (build.model_ms, None, build.pairs_scored, Some(build.identical))
                    };
                    t.model.push(model);
                    t.total.extend(total);
                    t.by_case.insert(r.str(col::CASE_ID).to_owned(), (model, total));
                    t.run_ids.extend(r.int(col::RUN_ID));
                    t.pairs.push(pairs as f64);
                    if let Ok(d) = r.row::<DeviceTimes>() {
                        t.kernel.extend(d.kernel_ms);
                        t.calls.extend(d.device_calls_ms);
                        t.alleles.extend(d.alleles_counted);
                    }
                    if let Ok(p) = r.row::<Phases>() {
                        for (phase, ms) in p.each().into_iter().chain(p.setup_ms.map(|ms| (Phases::setup_ms, ms))) {
                            t.phases.entry(phase).or_default().push(ms);
                        }
                    }
                    t.runs += 1;
                    t.identical += usize::from(identical == Some(true));
                }
                FIG6 => {
                    let (Ok(case), Ok(g)) = (r.row::<RunCase>(), r.row::<Generation>()) else { continue };
                    let key = (case.search, case.n);
                    let e = a.fig6.entry(key.clone()).or_default().entry(g.generation).or_default();
                    e.0.push(g.model_quality);
                    e.1.push(g.ones_ratio);
                    let run = a.fig6_runs.entry(key).or_default().entry(r.str(col::CASE_ID).to_owned()).or_default();
                    run.generations = g.generations;
                    run.quality.insert(g.generation, g.model_quality);
                    run.ones.insert(g.generation, g.ones_ratio);
                }
                FIG7 if ok => {
                    let (Ok(case), Ok(run)) = (r.row::<RunCase>(), r.row::<RunRow>()) else { continue };
                    let e = a.fig7.entry(case.ell).or_insert_with(|| Fig7Runs {
                        n: case.n,
                        scorer: scorer.to_owned(),
                        model: Vec::new(),
                        total: Vec::new(),
                    });
                    e.model.push(run.model_ms);
                    e.total.push(run.total_ms);
                }
                WHOLE if ok => {
                    let Ok(case) = r.row::<WholeCase>() else { continue };
                    let key = (case.ell, builds_at_once(&case, r));
                    a.whole_profile.insert(key, r.str(col::PROFILE).to_owned());
                    let set = a.whole.entry(key).or_insert_with(|| (case.n, BTreeMap::new()));
                    let run = set.1.entry(case.run).or_default();
                    run.run_ids.extend(r.int(col::RUN_ID));
                    // gECGA's and the device's whole runs, else a single-threaded build.
                    match (scorer, r.row::<RunRow>(), r.row::<WholeBuild>()) {
                        (GECGA, Ok(g), _) if case.search == Search::Greedy.name() => {
                            run.generations = Some(g.generations);
                            run.gecga.push((g.model_ms, g.total_ms));
                        }
                        (GECGA, Ok(g), _) => run.gecga_gm.push(g.total_ms),
                        (GECGA_DEVICE, Ok(d), _) => run.device.push(d.total_ms),
                        (scorer, _, Ok(b)) if b.calibration => {
                            run.calibration.entry(scorer.to_owned()).or_default().push(b.model_ms);
                            run.concurrent = b.concurrent;
                        }
                        (scorer, _, Ok(b)) => {
                            if let Some(g) = b.generation {
                                run.builds.entry(scorer.to_owned()).or_default().insert(g, b.model_ms);
                            }
                            run.identical.0 += usize::from(b.identical == Some(true));
                            run.identical.1 += 1;
                        }
                        _ => {}
                    }
                }
                SCALE if ok => {
                    let (Ok(case), Ok(b)) = (r.row::<BuildCase>(), r.row::<ScaleRow>()) else { continue };
                    let (search, ell, n) = (case.search, case.ell, case.n);
                    a.scale.push(ScaleBuild { search, ell, n, model_ms: b.model_ms, merges: b.merges, quality: b.model_quality });
                }
                COUNT if ok => {
                    let Ok(count) = r.row::<CountRow>() else { continue };
                    a.count_identical.0 += usize::from(count.identical);
                    a.count_identical.1 += 1;
                }
                _ => {}
            }
        }
        a
    }

    pub fn times(&self, ell: usize, scorer: &str) -> Option<&ScorerTimes> {
        self.fig5.get(&ell).and_then(|(_, m)| m.get(scorer)).filter(|t| t.runs > 0)
    }

    /// Why `scorer` has no Figure 5 runs at `ell`, where a record says so.
    pub fn not_run_reason(&self, ell: usize, scorer: &str) -> Option<&str> {
        self.fig5.get(&ell).and_then(|(_, m)| m.get(scorer)).and_then(|t| t.not_run.as_deref())
    }

    pub fn mean(&self, ell: usize, scorer: &str, model: bool) -> Option<f64> {
        self.times(ell, scorer).and_then(|t| Summary::of(if model { &t.model } else { &t.total })).map(|s| s.mean)
    }

    /// `over`'s time divided by `under`'s, run by run (the runs of one case share
    /// their seed, so both scorers built the same models): one speedup per run.
    pub fn paired_speedups(&self, ell: usize, over: &str, under: &str, phase: Phase) -> Vec<f64> {
        let (Some(a), Some(b)) = (self.times(ell, over), self.times(ell, under)) else { return vec![] };
        let time = |t: &RunTimes| if phase == Phase::Model { Some(t.0) } else { t.1 };
        a.by_case.iter().filter_map(|(case, ta)| Some(time(ta)? / time(b.by_case.get(case)?)?)).filter(|s| s.is_finite()).collect()
    }

    /// Stores a `build` case's row among its profile's lone builds.
    fn lone_build(&mut self, r: &Record) {
        let (Ok(case), Ok(build)) = (r.row::<BuildCase>(), r.row::<BuildRow>()) else { return };
        let key = (r.str(col::PROFILE).to_owned(), case.ell);
        self.lone.entry(key).or_default().entry(r.str(Scored::scorer).to_owned()).or_default().push(build.model_ms);
    }

    /// The lone build time (ms) of `scorer` on the `build` case's selection at
    /// `ell` (the `build` case of the same profile as the set of whole runs
    /// with `at_once` builds at once), and the mean of its builds among the
    /// others in that set's cases: what sharing the cores cost a build (the
    /// method allows 5%).
    pub fn concurrency_cost(&self, ell: usize, at_once: usize, scorer: &str) -> Option<(f64, f64)> {
        let profile = self.whole_profile.get(&(ell, at_once))?;
        let lone = Summary::of(self.lone.get(&(profile.clone(), ell))?.get(scorer)?)?.mean;
        let shared: Vec<f64> =
            self.whole.get(&(ell, at_once))?.1.values().flat_map(|r| r.calibration.get(scorer).into_iter().flatten().copied()).collect();
        Some((lone, Summary::of(&shared)?.mean))
    }

    /// The sets of whole runs at ℓ timed by saved generations, fewest builds at once first.
    pub fn whole_sets(&self, ell: usize) -> impl Iterator<Item = (usize, &WholeRuns)> {
        self.whole.range((ell, 0)..=(ell, usize::MAX)).map(|(&(_, at_once), (_, runs))| (at_once, runs))
    }

    /// The set of whole runs at ℓ whose baseline builds lost the least to sharing
    /// the cores (where no cost is known, the one with the fewest builds at once).
    pub fn least_shared_whole(&self, ell: usize) -> Option<(usize, &WholeRuns)> {
        let cost = |at_once: usize| self.concurrency_cost(ell, at_once, BASELINE).map_or(f64::INFINITY, |(lone, shared)| shared / lone);
        self.whole_sets(ell).min_by(|x, y| cost(x.0).total_cmp(&cost(y.0)))
    }

    /// Speedups as the paper defines them (ratios of mean times).
    pub fn speedups(&self, ell: usize) -> Speedups {
        let ratio = |a: &str, b: &str, model: bool| Some(self.mean(ell, a, model)? / self.mean(ell, b, model)?);
        Speedups {
            spc_m: ratio(BASELINE, FASTCOUNT, true),
            spc_w: ratio(BASELINE, FASTCOUNT, false),
            spg_m: ratio(BASELINE, GECGA, true),
            spg_w: ratio(BASELINE, GECGA, false),
            spcg_m: ratio(FASTCOUNT, GECGA, true),
            spcg_w: ratio(FASTCOUNT, GECGA, false),
        }
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::experiments::ecga::rows::ran;
    use crate::experiments::ecga::spec::{EcgaSpec, Published};
    use crate::spec::SpecFile;

    /// The shipped spec's published values.
    pub fn published() -> Published {
        let file = SpecFile::from_text(std::path::Path::new("ecga.toml"), include_str!("../../../experiments/ecga.toml").into());
        file.parse::<EcgaSpec>().expect("the shipped spec parses").published()
    }

    /// `r` as the runner stores it: a measurement of `figure` by `profile`'s run `run_id`.
    pub fn stored(r: Record, figure: &str, profile: &str, run_id: u64) -> Record {
        r.with(col::RECORD_KIND, "measurement").with(col::FIGURE, figure).with(col::PROFILE, profile).with(col::RUN_ID, run_id)
    }

    /// A Figure 5 case at ℓ (N = 100).
    pub fn fig5_case(ell: usize, run: usize) -> Fig5Case {
        Fig5Case { search: Search::Greedy.name().into(), ell, n: 100, run, ..Fig5Case::default() }
    }

    /// A Figure 5 row of one scorer in one run.
    pub fn fig5(profile: &str, run_id: u64, ell: usize, run: usize, scorer: &str, model_ms: f64, total_ms: f64) -> Record {
        let times = RunRow { model_ms, total_ms, identical: Some(true), ..RunRow::default() };
        let r = stored(ran(scorer), FIG5, profile, run_id).with(col::CASE_ID, format!("fig5/l{ell}/r{run}"));
        r.with_row(&fig5_case(ell, run)).with_row(&times)
    }

    /// A Figure 5 row of a scorer not run here at ℓ.
    pub fn fig5_not_run(ell: usize, scorer: &str, reason: &str) -> Record {
        stored(Record::not_run(Scored::scorer, scorer, reason), FIG5, "test", 1).with_row(&fig5_case(ell, 0))
    }

    #[test]
    fn figure_5_comes_from_the_profile_that_measured_most_of_it() {
        let rows = vec![
            fig5("gpu", 10, 500, 0, GECGA, 1200.0, 2000.0),
            fig5("speed", 20, 500, 0, GECGA, 770.0, 1000.0),
            fig5("speed", 21, 500, 1, GECGA, 780.0, 1000.0),
            fig5("gpu", 10, 400, 0, GECGA, 500.0, 700.0),
        ];
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows }, &published());
        assert_eq!(a.mean(500, GECGA, true), Some(1200.0), "ℓ = 500 from `gpu`, which measured two ℓ; `speed` one");
        assert_eq!(a.mean(400, GECGA, true), Some(500.0));
        assert_eq!(a.times(500, GECGA).map(|t| t.runs), Some(1));
        assert_eq!(a.gecga_identical.get(&500), Some(&(3, 3)), "identity counts every profile's runs");
        // With the ℓ counts equal, the later profile's runs.
        let rows = vec![fig5("gpu", 10, 500, 0, GECGA, 1200.0, 2000.0), fig5("speed", 20, 500, 0, GECGA, 770.0, 1000.0)];
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows }, &published());
        assert_eq!(a.mean(500, GECGA, true), Some(770.0));
    }

    #[test]
    fn speedups_pair_the_runs_of_one_case() {
        let rows = vec![
            fig5("gpu", 1, 100, 0, BASELINE, 100.0, 120.0),
            fig5("gpu", 1, 100, 0, GECGA, 2.0, 6.0),
            fig5("gpu", 1, 100, 1, BASELINE, 300.0, 330.0),
            fig5("gpu", 1, 100, 1, GECGA, 3.0, 11.0),
            fig5("gpu", 1, 100, 2, BASELINE, 200.0, 200.0),
        ];
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows }, &published());
        assert_eq!(a.paired_speedups(100, BASELINE, GECGA, Phase::Model), vec![50.0, 100.0], "run 2 has no gECGA run to pair with");
        assert_eq!(a.paired_speedups(100, BASELINE, GECGA, Phase::Whole), vec![20.0, 30.0]);
        assert!(a.paired_speedups(100, BASELINE, FASTCOUNT, Phase::Model).is_empty());
    }

    #[test]
    fn a_runs_overall_quality_leaves_out_its_last_generation() {
        let run = Fig6Run { generations: 3, quality: [(1, 0.2), (2, 0.6), (3, 0.0)].into_iter().collect(), ..Fig6Run::default() };
        assert!((run.overall_quality().unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(Fig6Run { generations: 1, quality: [(1, 0.5)].into_iter().collect(), ..Fig6Run::default() }.overall_quality(), None);
    }

    #[test]
    fn a_runs_mean_ratio_of_ones_keeps_its_last_value_past_its_end() {
        let run = Fig6Run { generations: 3, ones: [(1, 0.6), (2, 0.9), (3, 1.0)].into_iter().collect(), ..Fig6Run::default() };
        assert!((run.mean_ones_over(3).unwrap() - 2.5 / 3.0).abs() < 1e-12);
        assert!((run.mean_ones_over(5).unwrap() - 4.5 / 5.0).abs() < 1e-12, "generations 4 and 5 at 1.0");
        assert!((run.mean_ones_over(1).unwrap() - 2.5 / 3.0).abs() < 1e-12, "never shorter than the run");
        assert_eq!(run.last_generation(), 3);
        assert_eq!(Fig6Run::default().mean_ones_over(4), None);
    }

    #[test]
    fn two_profiles_runs_of_one_figure_6_case_are_not_mixed() {
        let fig6 = |profile: &str, run_id: u64, g: usize, ones: f64| {
            let case = RunCase { search: "greedy".into(), ell: 50, n: 2400, ..RunCase::default() };
            let generation = Generation { generation: g, ones_ratio: ones, ..Generation::default() };
            let r = stored(ran(GECGA), FIG6, profile, run_id).with(col::CASE_ID, "fig6/greedy/n2400/r0");
            r.with_row(&case).with_row(&generation)
        };
        let rows =
            vec![fig6("gpu", 1, 1, 0.5), fig6("gpu", 1, 2, 0.7), fig6("gpu", 1, 3, 0.8), fig6("fig6", 2, 1, 0.6), fig6("fig6", 2, 2, 1.0)];
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows }, &published());
        let run = &a.fig6_runs[&("greedy".to_owned(), 2400)]["fig6/greedy/n2400/r0"];
        assert_eq!(run.ones.values().copied().collect::<Vec<f64>>(), vec![0.6, 1.0], "the later profile's run alone");
    }

    #[test]
    fn table_5_keeps_the_rule_with_the_most_bisections_and_counts_the_others() {
        let t5 = |n_min: usize, runs: Option<usize>, randomness: &str| {
            let case = Table5Case {
                search: "greedy".into(),
                ell: 50,
                runs_per_trial: runs,
                required_successes: runs.map(|_| 3),
                randomness: runs.map(|_| randomness.into()),
                ..Table5Case::default()
            };
            let r = ran(GECGA_DEVICE).with(col::RECORD_KIND, "measurement").with(col::FIGURE, TABLE5);
            r.with_row(&case).with_row(&Bisection { n_min, ..Bisection::default() })
        };
        let rows = vec![t5(2000, None, ""), t5(2500, Some(5), "counter"), t5(2600, Some(5), "counter"), t5(9, Some(5), "paper")];
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows }, &published());
        let rule = a.table5_rule.clone().unwrap();
        assert_eq!((rule.runs_per_trial, rule.required_successes, rule.randomness.as_str()), (5, 3, "counter"));
        assert_eq!(a.table5[&("greedy".to_owned(), 50)], vec![2500.0, 2600.0]);
        let old = Table5Rule { runs_per_trial: 1, required_successes: 1, randomness: "paper".into() };
        assert_eq!(a.table5_left_out.get(&old), Some(&1), "rows without the columns: one run of one, the paper's randomness");
        assert_eq!(a.table5_left_out.len(), 2);
        // The same case stored by two profiles is one bisection.
        let twice = |p: &str| t5(2500, Some(5), "counter").with(col::CASE_ID, "table5/greedy/l50/b0").with(col::PROFILE, p);
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows: vec![twice("cpu"), twice("quick")] }, &published());
        assert_eq!(a.table5[&("greedy".to_owned(), 50)], vec![2500.0]);
        assert!(rule.describe().contains("5 runs per trial") && old.describe().starts_with("one run per trial"), "{}", rule.describe());
    }
}
