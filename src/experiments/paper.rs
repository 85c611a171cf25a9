//! What a paper implements, and the one [`Paper`] the runner drives.
//!
//! A paper's folder holds its [`Experiment`] (its registry entry: spec,
//! kernels, self-check; `mod.rs`) and implements two traits, [`Plan`] (the cases of a
//! profile and how one runs; `cases.rs`) and [`Render`] (one analysis per
//! machine and the report's sections drawn from them; `render.rs`). Every
//! paper that has both is a [`Paper`], the one the runner holds: its report
//! judges every claim (bound once by [`load_spec`]) from the same analyses the
//! sections show, never from the rendered sections.

use super::plan;
use super::{Case, Footprint, PaperReport, RunEnv, Section};
use crate::claims::generic::{self, Series};
use crate::claims::{Check, ClaimResult, Claims};
use crate::error::SpecError;
use crate::gpu::{self, Gpu};
use crate::records::{MachineRecords, Record};
use crate::report;
use crate::spec::{PaperMeta, PaperSpec, SpecFile, SpecOutline};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// A paper's entry in the registry (each paper's `mod.rs`): its id, title and
/// shipped spec, how to load the spec into its [`Paper`], its kernels and their
/// self-check.
pub struct Experiment {
    /// Short id used on the command line (`layout`, `ecga`, …).
    pub id: &'static str,
    pub title: &'static str,
    /// The spec as shipped, used when `experiments/<id>.toml` is not on disk.
    pub embedded_spec: &'static str,
    /// Parses and validates the spec (one call to [`load_spec`]).
    pub load: fn(&SpecFile) -> Result<Box<dyn Paper>, SpecError>,
    /// The kernel files its GPU parts launch: compiled (NVRTC) and loaded when
    /// a run opens the GPU, so that no timed case pays for it.
    pub kernels: &'static [&'static gpu::KernelSource],
    /// Checks every GPU kernel of the paper against its CPU reference on fresh
    /// random inputs (few, small sizes when `small`), printing a line per
    /// configuration; returns the number that failed. Vendored inputs are read
    /// from `datasets` (`<root>/datasets`).
    pub selfcheck: fn(gpu: &Gpu, small: bool, seed: u64, datasets: &Path) -> Result<usize>,
}

impl Experiment {
    pub fn load(&self, spec: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        (self.load)(spec)
    }
}

/// A paper's cases: what a profile plans and how one case runs (each paper's `cases.rs`).
pub trait Plan {
    /// Its loaded spec ([`load_spec`]), whatever the paper.
    fn outline(&self) -> &dyn SpecOutline;
    /// The cases of a profile, in run order.
    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError>;
    /// Opens and checks every data set or instance `cases` use (a missing or
    /// malformed file fails here, naming it, before anything is written).
    fn prepare(&self, _cases: &[Case]) -> Result<()> {
        Ok(())
    }
    /// Runs one case; every returned row is one repetition (or one "not run here").
    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>>;
    /// What one case holds at its peak, estimated from its sizes (none by default).
    fn footprint(&self, _case: &Case) -> Footprint {
        Footprint::default()
    }
    /// The record column that names what a "not run here" row did not run.
    fn not_run_column(&self) -> &'static str {
        "method"
    }
    /// The methods of `case` that need a GPU under `profile`: on a run without one, `run_case` runs the others and
    /// the runner records each of these as not run here, with the run's reason ([`super::runner::run_one`]). None by
    /// default.
    fn gpu_methods(&self, _case: &Case, _profile: &str) -> Result<Vec<&'static str>> {
        Ok(Vec::new())
    }
    /// The row saying that `method` was not run here, and why: the method in [`Plan::not_run_column`], status
    /// `not_run`. The one way a paper or the runner writes such a row.
    fn not_run_row(&self, method: &str, reason: &str) -> Record {
        Record::not_run(self.not_run_column(), method, reason)
    }
    /// How its rows time one repetition of a method, whose spread over
    /// repeats a run warns of ([`plan::Repeats`]): `total_ms` by default.
    fn timing(&self) -> plan::Timing {
        plan::Timing { method: self.not_run_column(), columns: &["total_ms"], only: None }
    }
    /// The cases whose times per unit of weight estimate each other (`--dry-run`,
    /// `list`): the case's figure by default ([`plan::figure`]).
    fn group(&self, case: &Case) -> String {
        plan::figure(case)
    }
    /// What one case occupies while it runs ([`plan::Resource`]). One GPU by
    /// default: every case of the shipped papers runs its GPU method(s) where
    /// there is a GPU, beside the CPU baselines it times (a case run without one
    /// records its GPU methods as not run, so only a rank with a GPU may take it).
    /// A paper whose case needs no GPU says so here.
    fn resource(&self, _case: &Case) -> plan::Resource {
        plan::Resource::Gpu
    }
}

/// A paper's report: one analysis of each machine's records, and the sections
/// drawn from them (each paper's `render.rs`). The claims are judged from the
/// same analyses ([`Paper::report`]), never from the rendered sections.
pub trait Render {
    /// One machine's records indexed for the sections and the claims (the paper's `analysis.rs`).
    type Analysis: Series + 'static;
    /// The spec's claims bound to their checks ([`load_spec`]).
    fn claims(&self) -> &Claims<Self::Analysis>;
    fn analysis(&self, machine: &MachineRecords) -> Result<Self::Analysis>;
    /// How it was measured (Markdown).
    fn method(&self) -> Result<String>;
    /// The paper's tables and figures, writing figures under `dir/figures/`.
    fn sections(&self, machines: &[MachineRecords], analyses: &Analyses<Self::Analysis>, dir: &Path) -> Result<Vec<Section>>;
    /// The values the paper states (`paper_values.csv` beside the report), and
    /// the spec tables they are read from.
    fn paper_values(&self) -> (&'static str, Vec<report::PaperValue>);
    /// Side-by-side of every machine and the paper's hardware.
    fn compare(&self, machines: &[MachineRecords]) -> String;
}

/// One analysis of each machine, by its hardware id.
pub struct Analyses<A>(BTreeMap<String, A>);

impl<A> Analyses<A> {
    /// `machine`'s analysis (every machine the report shows has one).
    pub fn of(&self, machine: &MachineRecords) -> &A {
        &self.0[&machine.hw_id]
    }
    /// Every machine's analysis, by hardware id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &A)> {
        self.0.iter().map(|(hw, a)| (hw.as_str(), a))
    }
}

/// A loaded paper as the runner holds it: its [`Plan`], and its report and
/// verdicts from its [`Render`] (written once, here, for every paper).
pub trait Paper: Plan {
    fn meta(&self) -> &PaperMeta {
        self.outline().meta()
    }
    fn profiles(&self) -> Vec<String> {
        self.outline().profile_names()
    }
    /// What a profile is for: its description, and whether it is a smoke test.
    fn about(&self, profile: &str) -> crate::spec::ProfileAbout {
        self.outline().about(profile)
    }
    /// The spec's claims, in its order.
    fn claim_specs(&self) -> Vec<&crate::spec::ClaimSpec> {
        self.outline().claim_specs()
    }
    /// The report's content from every machine's records, writing figures under
    /// `dir/figures/`; the runner lays it out ([`super::render`]).
    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<PaperReport>;
    /// Every claim judged on every machine, from the analyses alone (no report,
    /// no figure): what the incomplete-sweep marking and the verdict tests call;
    /// the report's claims are these. A machine's claims rest on its own records
    /// alone, so judging it alone gives the same outcomes.
    fn judge(&self, machines: &[MachineRecords]) -> Result<Vec<ClaimResult>>;
    /// The series the analysis lists ([`Series::NAMES`]) that no machine's
    /// records measure ([`generic::measures`]): on the committed records, a name
    /// listed but answered by none of the analysis's methods.
    fn unmeasured(&self, machines: &[MachineRecords]) -> Result<Vec<&'static str>>;
    /// [`Render::paper_values`].
    fn paper_values(&self) -> (&'static str, Vec<report::PaperValue>);
    /// [`Render::compare`].
    fn compare(&self, machines: &[MachineRecords]) -> String;
}

impl<P: Plan + Render> Paper for P {
    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<PaperReport> {
        let mut analyses = BTreeMap::new();
        for m in machines {
            analyses.insert(m.hw_id.clone(), self.analysis(m)?);
        }
        let analyses = Analyses(analyses);
        let sections = self.sections(machines, &analyses, dir)?;
        let claims = self.claims().judge_machines(machines, &self.meta().hardware, |m| Ok(analyses.of(m)))?;
        Ok(PaperReport { method: self.method()?, sections, claims })
    }
    fn judge(&self, machines: &[MachineRecords]) -> Result<Vec<ClaimResult>> {
        self.claims().judge_machines(machines, &self.meta().hardware, |m| self.analysis(m))
    }
    fn unmeasured(&self, machines: &[MachineRecords]) -> Result<Vec<&'static str>> {
        let analyses = machines.iter().map(|m| self.analysis(m)).collect::<Result<Vec<_>>>()?;
        let names = <<Self as Render>::Analysis as Series>::NAMES.iter().copied();
        Ok(names.filter(|n| !analyses.iter().any(|a| generic::measures(a, n))).collect())
    }
    fn paper_values(&self) -> (&'static str, Vec<report::PaperValue>) {
        Render::paper_values(self)
    }
    fn compare(&self, machines: &[MachineRecords]) -> String {
        Render::compare(self, machines)
    }
}

/// Loads a paper's spec: parses it as `S`, checks that it is paper `id`'s and
/// that its values can run, and binds its claims to their checks: the generic
/// shapes every paper has ([`crate::claims::generic::checks`]) or the paper's `own`.
pub fn load_spec<S: PaperSpec, A: Series + 'static>(file: &SpecFile, id: &str, own: &[Check<A>]) -> Result<(S, Claims<A>), SpecError> {
    let spec: S = file.parse()?;
    spec.paper().check_id(file, id)?;
    spec.validate(file)?;
    let claims = Claims::bind(file, spec.claims(), &spec.paper().hardware, own)?;
    Ok((spec, claims))
}
