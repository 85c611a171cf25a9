//! The layout spec (`experiments/layout.toml`): settings, profiles, the paper's
//! Table 1 and Figures 1–6, and the sweep its claims are judged on.

use crate::error::SpecError;
use crate::gpu::layout::Strategy;
use crate::hardware::Quantity;
use crate::library::nonseparable::Function;
use crate::spec::{ClaimSpec, MAX_REPEATS, Pair, PaperMeta, Spanned, SpecFile};
use crate::svm::Features;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// Population × dimension.
pub type Size = (usize, usize);

/// "population×dimension", as Table 1 writes a size.
pub fn fmt_size((p, d): Size) -> String {
    format!("{p}×{d}")
}

/// The strategies the paper compares (the classes of its figures).
pub const PAPER_CLASSES: [&str; 5] = ["sequential", "S1", "S2", "S3", "S4"];
/// The paper's GPU strategies (Section 3.2).
pub const GPU_CLASSES: [&str; 4] = ["S1", "S2", "S3", "S4"];
/// Every column of the report: the paper's five plus two extras it lacks
/// (multi-threaded CPU, and S4-split for GPUs with far more threads than individuals).
pub const ALL_CLASSES: [&str; 7] = ["sequential", "cpu_mt", "S1", "S2", "S3", "S4", "S4-split"];

/// The largest population the harness accepts (2²⁸ coordinates = 1 GiB of f32).
pub const MAX_ELEMENTS: i64 = 1 << 28;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutSpec {
    pub paper: PaperMeta,
    pub settings: Settings,
    pub sweep: SweepSpec,
    pub profiles: BTreeMap<String, Profile>,
    pub table1: Vec<Table1Row>,
    pub figures: Vec<FigureSpec>,
    pub claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub seed: u64,
    pub block_sizes: Spanned<Vec<Spanned<u32>>>,
    pub block_search_tries: Spanned<usize>,
    pub svm_cost: Spanned<f64>,
    /// The plane the SVMs separate sizes in.
    pub svm_features: Features,
    pub table1_unit: String,
    /// Tries each strategy needs before its times decide a winner.
    pub min_n: Spanned<usize>,
    /// Tries behind each mean ± sd of the paper's Table 1.
    pub paper_tries: Spanned<usize>,
}

/// Sizes the paper names besides Table 1's (captions of Figures 2–6, Sections 4.2–4.4).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    pub named: Vec<Spanned<Pair<usize>>>,
}

/// Which of the paper's sizes a figure covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sweep {
    /// Table 1's sizes (Figure 1, Section 4.1).
    Table1,
    /// Table 1's and the named sizes (Figures 2–6).
    Named,
}

crate::paper_profile! {
    pub struct Profile {
        pub tries: Spanned<usize>,
        pub functions: Vec<Spanned<String>>,
        pub sizes: Vec<Spanned<Pair<i64>>>,
        #[serde(default)]
        pub grid_pops: Vec<i64>,
        #[serde(default)]
        pub grid_dims: Vec<i64>,
        pub max_elements: Option<i64>,
        /// GPU strategies to run (names of `gpu::layout::Strategy`); all when empty.
        #[serde(default)]
        pub gpu_strategies: Vec<Spanned<String>>,
    }
}

impl Profile {
    /// The explicit sizes plus the grid, deduplicated, by number of coordinates.
    pub fn sizes(&self) -> Vec<Size> {
        let mut set = BTreeSet::new();
        for s in &self.sizes {
            set.insert((s[0] as usize, s[1] as usize));
        }
        let cap = self.max_elements.unwrap_or(MAX_ELEMENTS).min(MAX_ELEMENTS);
        for &pop in &self.grid_pops {
            for &dim in &self.grid_dims {
                if pop >= 1 && dim >= 4 && pop.checked_mul(dim).is_some_and(|e| e <= cap) {
                    set.insert((pop as usize, dim as usize));
                }
            }
        }
        let mut v: Vec<_> = set.into_iter().collect();
        v.sort_by_key(|&(p, d)| (p * d, p));
        v
    }

    /// The GPU strategies the profile runs.
    pub fn strategies(&self) -> Vec<Strategy> {
        if self.gpu_strategies.is_empty() {
            return Strategy::ALL.to_vec();
        }
        self.gpu_strategies.iter().map(|s| Strategy::from_name(s).expect("validated")).collect()
    }
}

/// One of the paper's six functions, by its spec name.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(try_from = "String")]
pub struct Func(pub Function);

impl TryFrom<String> for Func {
    type Error = String;
    fn try_from(s: String) -> Result<Func, String> {
        let known: Vec<&str> = Function::ALL.iter().map(|f| f.name()).collect();
        Function::from_name(&s).map(Func).ok_or_else(|| format!("unknown function `{s}` (known: {})", known.join(", ")))
    }
}

/// One of the paper's five columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Class(pub &'static str);

impl<'de> Deserialize<'de> for Class {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Class, D::Error> {
        let s = String::deserialize(d)?;
        let known = PAPER_CLASSES.join(", ");
        PAPER_CLASSES
            .iter()
            .find(|c| **c == s)
            .map(|c| Class(c))
            .ok_or_else(|| serde::de::Error::custom(format!("unknown strategy `{s}` (known: {known})")))
    }
}

/// A row of the paper's Table 1: (mean, sd) per strategy; None = NAN.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table1Row {
    pub size: Pair<usize>,
    pub s1: Option<Pair<f64>>,
    pub s2: Option<Pair<f64>>,
    pub s3: Option<Pair<f64>>,
    pub s4: Option<Pair<f64>>,
    pub sequential: Pair<f64>,
}

impl Table1Row {
    pub fn size(&self) -> Size {
        (self.size[0], self.size[1])
    }

    /// The paper's (mean, sd) of one of its five columns; None = NAN.
    pub fn paper(&self, class: &str) -> Option<[f64; 2]> {
        match class {
            "S1" => self.s1.map(|p| p.0),
            "S2" => self.s2.map(|p| p.0),
            "S3" => self.s3.map(|p| p.0),
            "S4" => self.s4.map(|p| p.0),
            "sequential" => Some(self.sequential.0),
            _ => None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    pub figure: String,
    pub function: Spanned<String>,
    pub sweep: Sweep,
    pub classes: Vec<Spanned<String>>,
    pub support_vectors: Spanned<BTreeMap<String, Vec<Pair<usize>>>>,
}

impl FigureSpec {
    pub fn function(&self) -> Function {
        Function::from_name(&self.function).expect("validated")
    }

    pub fn classes(&self) -> Vec<String> {
        self.classes.iter().map(|c| String::clone(c)).collect()
    }

    /// The caption's support vectors per class.
    pub fn support(&self) -> BTreeMap<String, Vec<Size>> {
        self.support_vectors.iter().map(|(c, v)| (c.clone(), v.iter().map(|s| (s[0], s[1])).collect())).collect()
    }
}

impl LayoutSpec {
    /// Table 1's sizes, in the table's order.
    pub fn table1_sizes(&self) -> Vec<Size> {
        self.table1.iter().map(Table1Row::size).collect()
    }

    /// The sizes of a sweep, by number of coordinates.
    pub fn sweep_sizes(&self, sweep: Sweep) -> Vec<Size> {
        let mut set: BTreeSet<Size> = self.table1_sizes().into_iter().collect();
        if sweep == Sweep::Named {
            set.extend(self.sweep.named.iter().map(|s| (s[0], s[1])));
        }
        let mut v: Vec<Size> = set.into_iter().collect();
        v.sort_by_key(|&(p, d)| (p * d, p));
        v
    }
}

crate::paper_spec!(LayoutSpec, Profile, validate);

/// Checks what the types cannot: known functions and strategies, runnable sizes,
/// figures that name the paper's classes and support vectors inside their sweep.
pub fn validate(file: &SpecFile, spec: &LayoutSpec) -> Result<(), SpecError> {
    let blocks = &spec.settings.block_sizes;
    if blocks.is_empty() {
        return Err(file.invalid(blocks, "settings.block_sizes", "no block size: every GPU strategy needs at least one"));
    }
    let why = |c: &f64| format!("the SVM's cost {c} must be positive");
    file.check_each([&spec.settings.svm_cost], "settings.svm_cost", |c| c.is_finite() && *c > 0.0, why)?;
    let why = |b: &u32| format!("{b} is not a multiple of 32 in 32..=1024");
    file.check_each(&**blocks, "settings.block_sizes", |b| (32..=1024).contains(b) && b % 32 == 0, why)?;
    for (key, n, least) in
        [("settings.block_search_tries", &spec.settings.block_search_tries, 1), ("settings.paper_tries", &spec.settings.paper_tries, 2)]
    {
        file.check_repeats(n, key)?;
        file.check_each([n], key, |n| *n >= least, |n| format!("{n} repetitions: at least {least}"))?;
    }
    file.check_each([&spec.settings.min_n], "settings.min_n", |n| *n >= 2, |_| "a 95% interval needs at least 2 tries".into())?;
    file.check_repeats(&spec.settings.min_n, "settings.min_n")?;
    for s in &spec.sweep.named {
        let Pair([pop, dim]) = **s;
        if pop < 1 || dim < 4 {
            return Err(file.invalid(s, "sweep.named", format!("{pop}×{dim}: population must be ≥ 1 and dimension ≥ 4")));
        }
        if pop.saturating_mul(dim) as u64 > MAX_ELEMENTS as u64 {
            return Err(file.invalid(s, "sweep.named", elements_over(pop as u128 * dim as u128)));
        }
    }
    for (name, p) in &spec.profiles {
        validate_profile(file, name, p)?;
    }
    for f in &spec.figures {
        validate_figure(file, spec, f)?;
    }
    if !spec.paper.hardware.datasheet.contains_key(&Quantity::GpuThreadsPerBlock) {
        return Err(SpecError::Invalid {
            path: file.path.clone(),
            line: 1,
            key: "paper.hardware.datasheet.gpu_threads_per_block".into(),
            message: "the `s3-limit` claim needs the paper's card's threads per block".into(),
        });
    }
    Ok(())
}

fn validate_profile(file: &SpecFile, name: &str, p: &Profile) -> Result<(), SpecError> {
    let key = |k: &str| format!("profiles.{name}.{k}");
    file.check_each([&p.tries], &key("tries"), |n| (1..=MAX_REPEATS).contains(n), |n| format!("{n} tries: must be in 1..={MAX_REPEATS}"))?;
    let known: Vec<&str> = Function::ALL.iter().map(|f| f.name()).collect();
    let why = |f: &String| format!("unknown function `{f}` (known: {})", known.join(", "));
    file.check_each(&p.functions, &key("functions"), |f| Function::from_name(f).is_some(), why)?;
    let known: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
    let why = |s: &String| format!("unknown strategy `{s}` (known: {})", known.join(", "));
    file.check_each(&p.gpu_strategies, &key("gpu_strategies"), |s| Strategy::from_name(s).is_some(), why)?;
    for s in &p.sizes {
        let Pair([pop, dim]) = **s;
        if pop < 1 || dim < 4 {
            return Err(file.invalid(s, &key("sizes"), format!("{pop}×{dim}: population must be ≥ 1 and dimension ≥ 4")));
        }
        if pop.saturating_mul(dim) > MAX_ELEMENTS {
            let message = format!("{pop}×{dim}: {}", elements_over(pop as u128 * dim as u128));
            return Err(file.invalid(s, &key("sizes"), message));
        }
    }
    if let Some(m) = p.max_elements
        && !(1..=MAX_ELEMENTS).contains(&m)
    {
        let table = format!("profiles.{name}");
        return Err(file.invalid_key(&table, "max_elements", format!("{m} coordinates: must be in 1..={MAX_ELEMENTS}")));
    }
    Ok(())
}

/// Why a size of `elements` coordinates is refused, with the memory its population takes (f32 coordinates).
fn elements_over(elements: u128) -> String {
    let memory = crate::spec::bytes_text(elements as f64 * 4.0);
    format!("{elements} coordinates exceeds the limit of {MAX_ELEMENTS} (the population alone would take {memory})")
}

fn validate_figure(file: &SpecFile, spec: &LayoutSpec, f: &FigureSpec) -> Result<(), SpecError> {
    file.check_each([&f.function], "figures.function", |f| Function::from_name(f).is_some(), |f| format!("unknown function `{f}`"))?;
    let why = |c: &String| format!("`{c}` is not one of the paper's strategies ({})", PAPER_CLASSES.join(", "));
    file.check_each(&f.classes, "figures.classes", |c| PAPER_CLASSES.contains(&c.as_str()), why)?;
    let sizes = spec.sweep_sizes(f.sweep);
    for (class, vs) in &*f.support_vectors {
        if !f.classes.iter().any(|c| &**c == class) {
            return Err(file.invalid(
                &f.support_vectors,
                "figures.support_vectors",
                format!("`{class}` is not one of the figure's classes"),
            ));
        }
        if let Some(v) = vs.iter().find(|v| !sizes.contains(&(v[0], v[1]))) {
            return Err(file.invalid(
                &f.support_vectors,
                "figures.support_vectors",
                format!("{}×{} is not in the figure's sweep ({:?})", v[0], v[1], f.sweep),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;

    pub const SHIPPED: &str = include_str!("../../../experiments/layout.toml");

    /// The shipped spec, parsed and validated.
    pub fn shipped() -> (SpecFile, LayoutSpec) {
        let file = SpecFile::from_text(Path::new("experiments/layout.toml"), SHIPPED.into());
        let spec: LayoutSpec = file.parse().unwrap();
        validate(&file, &spec).unwrap();
        (file, spec)
    }

    fn error_of(edit: impl Fn(&str) -> String) -> String {
        let text = edit(SHIPPED);
        assert_ne!(text, SHIPPED, "the edit changed nothing");
        let file = SpecFile::from_text(Path::new("l.toml"), text);
        match file.parse::<LayoutSpec>() {
            Ok(spec) => validate(&file, &spec).unwrap_err().to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn sweeps_hold_table1_and_the_named_sizes() {
        let (_, spec) = shipped();
        let t1 = spec.sweep_sizes(Sweep::Table1);
        assert_eq!(t1.len(), 12);
        let named = spec.sweep_sizes(Sweep::Named);
        assert_eq!(named.len(), 21);
        assert_eq!(named[0], (10, 10));
        assert!(named.contains(&(500, 8000)) && !named.contains(&(200, 800)));
        // The paper profile measures every size of the paper's sweep.
        let paper = spec.profiles["paper"].sizes();
        assert!(named.iter().all(|s| paper.contains(s)));
    }

    #[test]
    fn figures_and_settings_are_checked_at_load() {
        let e = error_of(|t| t.replace("min_n = 10", "min_n = 1"));
        assert!(e.contains("l.toml:") && e.contains("settings.min_n"), "{e}");
        let e = error_of(|t| t.replace("classes = [\"sequential\", \"S4\"]", "classes = [\"sequential\", \"S5\"]"));
        assert!(e.contains("figures.classes") && e.contains("S5"), "{e}");
        let e = error_of(|t| t.replace("S4 = [[1500, 1500]]", "S4 = [[1600, 1600]]"));
        assert!(e.contains("figures.support_vectors") && e.contains("1600×1600"), "{e}");
        let e = error_of(|t| t.replace("sweep = \"table1\"", "sweep = \"all\""));
        assert!(e.contains("sweep") && e.contains("all"), "{e}");
        let e = error_of(|t| t.replace("gpu_threads_per_block = {", "gpu_sms = {"));
        assert!(e.contains("gpu_threads_per_block"), "{e}");
    }

    #[test]
    fn sizes_pairs_repeats_and_table1_rows_are_checked() {
        // A size is a pair: a third element is an error, not ignored.
        let e = error_of(|t| t.replacen("[10, 10], [16, 16]", "[10, 10, 10], [16, 16]", 1));
        assert!(e.contains("l.toml") && e.contains("line"), "{e}");
        let e = error_of(|t| t.replacen("s1 = [0.237, 0.005]", "s1 = [0.237, 0.005, 0.1]", 1));
        assert!(e.contains("l.toml") && e.contains("s1"), "{e}");
        let e = error_of(|t| t.replacen("s1 = [0.237, 0.005]", "s1 = [0.237]", 1));
        assert!(e.contains("l.toml") && e.contains("s1"), "{e}");
        // The message's product does not overflow.
        let e = error_of(|t| {
            t.replacen("[8000, 2000],\n  # figure captions", "[8000, 2000], [1000000000000, 1000000000000],\n  # figure captions", 1)
        });
        assert!(e.contains("1000000000000000000000000 coordinates"), "{e}");
        let e = error_of(|t| t.replacen("\ntries = 20", "\ntries = 1000000000000", 1));
        assert!(e.contains("profiles.paper.tries") && e.contains("1000000000000 tries"), "{e}");
        let e = error_of(|t| t.replacen("paper_tries = 20", "paper_tries = 1", 1));
        assert!(e.contains("l.toml:50:") && e.contains("settings.paper_tries"), "{e}");
    }
}
