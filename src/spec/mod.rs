//! Experiment specs: `experiments/<paper>.toml`, parsed into each paper's own
//! typed spec with errors that name the file, line and key; the repository root
//! they are found under, and the data paths they name ([`SpecFile::data_path`]).

use crate::error::SpecError;
use crate::hardware::Quantity;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

mod paper;
mod spanned;
pub use paper::{PaperSpec, ProfileAbout, SpecOutline};
pub use spanned::Spanned;

/// The most repetitions (runs, seeds, bisections, repeats inside a case) of one
/// configuration a spec may ask for: a profile's cases are all listed before any
/// work, and a case's repeats all run in one go (the papers ran at most 30).
pub const MAX_REPEATS: usize = 1000;

/// The rate the bounds' time estimates assume: a billion elementary steps (a
/// rule tested on an instance, an allele drawn, an individual scored) a second,
/// more than one core does, so that the estimate is a lower bound.
pub const STEPS_PER_SECOND: f64 = 1e9;

/// `bytes` for an error message: "512 B", "3.2 GiB", "88.0 TiB".
pub fn bytes_text(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let (mut v, mut u) = (bytes, 0);
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{v:.0} B") } else { format!("{v:.1} {}", units[u]) }
}

/// `seconds` for an error message: "40 s", "3.1 hours", "12.0 days", "3.2 years".
pub fn time_text(seconds: f64) -> String {
    const DAY: f64 = 86_400.0;
    match seconds {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7_200.0 => format!("{:.0} minutes", s / 60.0),
        s if s < 2.0 * DAY => format!("{:.1} hours", s / 3_600.0),
        s if s < 730.0 * DAY => format!("{:.1} days", s / DAY),
        s => format!("{:.1} years", s / (365.25 * DAY)),
    }
}

/// "about T" for `steps` elementary steps at [`STEPS_PER_SECOND`].
pub fn steps_time(steps: f64) -> String {
    format!("{steps:.1e} steps, at least {} at {STEPS_PER_SECOND:.0e} a second", time_text(steps / STEPS_PER_SECOND))
}

/// Whether `dir` looks like the repository root: it holds `experiments/` and `datasets/`.
fn is_root(dir: &Path) -> bool {
    dir.join("experiments").is_dir() && dir.join("datasets").is_dir()
}

/// The repository root: `explicit` (`--root`), else the current folder if it
/// holds `experiments/` and `datasets/`, else the nearest folder above the
/// running binary that holds both, else the folder the binary was built from
/// if it still exists, else the current folder.
pub fn find_root(explicit: Option<&Path>) -> Result<PathBuf, SpecError> {
    if let Some(dir) = explicit {
        if !dir.is_dir() {
            return Err(SpecError::Root { path: dir.to_owned() });
        }
        return Ok(resolve(dir));
    }
    let exe = std::env::current_exe().ok().map(|e| std::fs::canonicalize(&e).unwrap_or(e));
    Ok(discover_root(&resolve(Path::new("")), exe.as_deref(), Path::new(env!("CARGO_MANIFEST_DIR"))))
}

/// [`find_root`] without `--root`, from the current folder, the binary and the build's folder.
fn discover_root(cwd: &Path, exe: Option<&Path>, built: &Path) -> PathBuf {
    if is_root(cwd) {
        return cwd.to_owned();
    }
    if let Some(dir) = exe.and_then(|e| e.ancestors().skip(1).find(|d| is_root(d))) {
        return dir.to_owned();
    }
    if built.is_dir() { resolve(built) } else { cwd.to_owned() }
}

/// `path` made absolute with every `..` and symbolic link resolved: the longest
/// part that exists is canonicalized, the rest (which cannot hold a link) is
/// normalized by its names.
fn resolve(path: &Path) -> PathBuf {
    let path = std::env::current_dir().unwrap_or_default().join(path);
    for existing in path.ancestors() {
        let Ok(mut out) = std::fs::canonicalize(existing) else { continue };
        for c in path.strip_prefix(existing).expect("an ancestor of the path").components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(name) => out.push(name),
                _ => {}
            }
        }
        return out;
    }
    path
}

/// Where a spec's relative data paths resolve and how far they may reach.
#[derive(Clone, Debug)]
pub struct SpecContext {
    /// The folder relative data paths are joined to: the spec file's (the
    /// built-in spec's is `<root>/experiments`). Absolute, links resolved.
    pub base_dir: PathBuf,
    /// The repository root. Absolute, links resolved.
    pub root: PathBuf,
    /// `--allow-outside`: data may lie anywhere.
    pub allow_outside: bool,
}

impl SpecContext {
    pub fn new(base_dir: &Path, root: &Path, allow_outside: bool) -> SpecContext {
        SpecContext { base_dir: resolve(base_dir), root: resolve(root), allow_outside }
    }

    /// The folder a data file at `path` (as [`SpecFile::data_path`] accepted
    /// it) must stay under once its links are followed: the spec's folder for
    /// a spec outside the root that names a file beside it, else the root;
    /// none with `--allow-outside`.
    pub fn confinement(&self, path: &Path) -> Option<&Path> {
        let beside = !self.base_dir.starts_with(&self.root) && path.starts_with(&self.base_dir);
        (!self.allow_outside).then_some(if beside { self.base_dir.as_path() } else { self.root.as_path() })
    }
}

/// A data file or folder a spec names, resolved against the spec's folder.
#[derive(Clone, Debug)]
pub struct DataPath {
    /// Absolute, links resolved where it exists.
    pub path: PathBuf,
    /// As reports show it: relative to the root when under it, else absolute.
    pub label: String,
}

/// A spec file's text, where it came from, its hash (recorded in every row)
/// and where its data paths resolve.
#[derive(Clone, Debug)]
pub struct SpecFile {
    pub path: PathBuf,
    pub text: String,
    /// First 16 hex digits of the SHA-256 of the spec's content: its TOML read
    /// and written back in one form, so that comments and layout do not count,
    /// and without its `[[claims]]`, which judge records but never change what
    /// is measured (a text that does not read as TOML: of the text itself).
    /// Every row records it.
    pub hash: String,
    /// First 16 hex digits of the SHA-256 of the text, comments included: the
    /// hash of records written before [`SpecFile::hash`] was of the content,
    /// still recognised as this spec's by `--resume`.
    pub text_hash: String,
    pub context: SpecContext,
}

impl SpecFile {
    pub fn read(path: &Path) -> Result<SpecFile, SpecError> {
        let bytes = std::fs::read(path).map_err(|source| SpecError::Read { path: path.to_owned(), source })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let before = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            SpecError::NotUtf8 { path: path.to_owned(), line, column: before.len() - line_start + 1 }
        })?;
        Ok(SpecFile::from_text(path, text))
    }

    /// A spec of this text at `path`; its data paths resolve in the folder of
    /// `path` and stay under it (see [`SpecFile::with_context`]).
    pub fn from_text(path: &Path, text: String) -> SpecFile {
        let hex = |bytes: &[u8]| Sha256::digest(bytes).iter().take(8).map(|b| format!("{b:02x}")).collect::<String>();
        let text_hash = hex(text.as_bytes());
        let content = toml::from_str::<toml::Table>(&text).ok().and_then(|mut t| {
            t.remove("claims");
            // What a profile is for ([`ProfileAbout`]) never changes what it measures either.
            for p in t.get_mut("profiles").and_then(toml::Value::as_table_mut).into_iter().flat_map(|p| p.iter_mut().map(|(_, v)| v)) {
                if let Some(p) = p.as_table_mut() {
                    p.remove("description");
                    p.remove("smoke");
                }
            }
            toml::to_string(&t).ok()
        });
        let hash = content.map_or_else(|| text_hash.clone(), |c| hex(c.as_bytes()));
        let dir = path.parent().unwrap_or(Path::new(""));
        SpecFile { path: path.to_owned(), text, hash, text_hash, context: SpecContext::new(dir, dir, false) }
    }

    pub fn with_context(self, context: SpecContext) -> SpecFile {
        SpecFile { context, ..self }
    }

    /// The data path `value` (of `key`) resolved against the spec's folder (an
    /// absolute one as written), refused unless it lies under the root (for a
    /// spec inside it), or under the spec's folder or the root (for a spec
    /// outside it), or `--allow-outside` was given. The path need not exist.
    pub fn data_path(&self, value: &Spanned<PathBuf>, key: &str) -> Result<DataPath, SpecError> {
        let ctx = &self.context;
        let path = resolve(&ctx.base_dir.join(&**value));
        let (inside, place) = if ctx.base_dir.starts_with(&ctx.root) {
            (path.starts_with(&ctx.root), format!("the repository root {}", ctx.root.display()))
        } else {
            (
                path.starts_with(&ctx.base_dir) || path.starts_with(&ctx.root),
                format!("the spec's folder {} and the repository root {}", ctx.base_dir.display(), ctx.root.display()),
            )
        };
        if !inside && !ctx.allow_outside {
            let written = value.display();
            let message = format!("`{written}` resolves to {}, outside {place}; --allow-outside permits it", path.display());
            return Err(self.invalid(value, key, message));
        }
        let label = path.strip_prefix(&ctx.root).map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
        Ok(DataPath { path, label })
    }

    /// Deserializes the whole file into `T`; errors carry line, column and key.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, SpecError> {
        toml::from_str(&self.text).map_err(|e| SpecError::Parse { path: self.path.clone(), message: e.to_string() })
    }

    /// 1-based line of a byte offset (from a `toml::Spanned` value).
    pub fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())].matches('\n').count() + 1
    }

    /// Profile `name` of `profiles` (a spec's `[profiles.*]` tables), or an error
    /// listing the known ones.
    pub fn profile<'p, P>(&self, profiles: &'p std::collections::BTreeMap<String, P>, name: &str) -> Result<&'p P, SpecError> {
        profiles.get(name).ok_or_else(|| SpecError::UnknownProfile {
            path: self.path.clone(),
            profile: name.into(),
            known: profiles.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    }

    /// 1-based line of `key = …` in table `[table]` (a dotted path such as
    /// `profiles.quick`; "" for the top level), for values read without a span;
    /// the table's header when the key is not written there, else line 1.
    pub fn line_of_key(&self, table: &str, key: &str) -> usize {
        let mut current = String::new();
        let mut header = None;
        for (i, line) in self.text.lines().enumerate() {
            let t = line.trim();
            // A header, not a line of an array's rows (`[100, 100], [200, 200],`).
            let header_name = t.strip_prefix('[').and_then(|r| r.split(']').next()).map(|n| n.trim_matches(|c| c == '[' || c == ' '));
            if let Some(name) = header_name.filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || "_-. \"".contains(c))) {
                current = name.to_owned();
                if current == table {
                    header = Some(i + 1);
                }
                continue;
            }
            let written = t.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='));
            if current == table && written {
                return i + 1;
            }
        }
        header.unwrap_or(1)
    }

    /// 1-based line of the header `[table]` (line 1 when it is not written).
    pub fn line_of_table(&self, table: &str) -> usize {
        self.line_of_key(table, "")
    }

    /// An [`SpecError::Invalid`] at the line of `key` in `[table]`.
    pub fn invalid_key(&self, table: &str, key: &str, message: impl Into<String>) -> SpecError {
        let dotted = if table.is_empty() { key.to_owned() } else { format!("{table}.{key}") };
        SpecError::Invalid { path: self.path.clone(), line: self.line_of_key(table, key), key: dotted, message: message.into() }
    }

    /// Refuses a repetition count above [`MAX_REPEATS`].
    pub fn check_repeats(&self, n: &Spanned<usize>, key: &str) -> Result<(), SpecError> {
        if **n > MAX_REPEATS {
            return Err(self.invalid(n, key, format!("{n} repetitions: at most {MAX_REPEATS} (the papers ran at most 30)")));
        }
        Ok(())
    }

    /// Refuses a size or count above `max`, saying what it would take:
    /// `cost(n)` names the memory or the time (`bytes_text`, `steps_time`).
    pub fn check_at_most<T: Copy + TryInto<u64>>(
        &self,
        n: &Spanned<T>,
        key: &str,
        max: u64,
        cost: impl FnOnce(f64) -> String,
    ) -> Result<(), SpecError> {
        let v: u64 = (**n).try_into().unwrap_or(u64::MAX);
        if v > max {
            return Err(self.invalid(n, key, format!("{v}: at most {max} ({})", cost(v as f64))));
        }
        Ok(())
    }

    /// The first of `values` that is not `ok`, as an error at its line naming `key` and `message(value)`.
    pub fn check_each<'a, T: 'a>(
        &self,
        values: impl IntoIterator<Item = &'a Spanned<T>>,
        key: &str,
        ok: impl Fn(&T) -> bool,
        message: impl Fn(&T) -> String,
    ) -> Result<(), SpecError> {
        match values.into_iter().find(|v| !ok(v)) {
            Some(v) => Err(self.invalid(v, key, message(v))),
            None => Ok(()),
        }
    }

    /// An [`SpecError::Invalid`] at the span of a value.
    pub fn invalid<T>(&self, at: &Spanned<T>, key: &str, message: impl Into<String>) -> SpecError {
        SpecError::Invalid { path: self.path.clone(), line: self.line_of(at.span().start), key: key.to_owned(), message: message.into() }
    }
}

/// Two values written as a two-element array (`[pop, dim]`, `[mean, sd]`). Any
/// other length is an error naming the line: serde's fixed-size arrays would
/// read `[10, 10, 10]` as `[10, 10]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair<T>(pub [T; 2]);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Pair<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Vec::<T>::deserialize(d)?;
        let n = values.len();
        <[T; 2]>::try_from(values).map(Pair).map_err(|_| serde::de::Error::custom(format!("{n} values where two belong")))
    }
}

impl<T> std::ops::Deref for Pair<T> {
    type Target = [T; 2];
    fn deref(&self) -> &[T; 2] {
        &self.0
    }
}

#[cfg(test)]
impl SpecFile {
    /// `text` at `name`, its data paths resolved as for `experiments/<name>` of this repository.
    pub fn in_repository(name: &str, text: String) -> SpecFile {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        SpecFile::from_text(Path::new(name), text).with_context(SpecContext::new(&root.join("experiments"), root, false))
    }
}

/// The `[paper]` table every spec starts with.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperMeta {
    pub id: String,
    pub title: String,
    /// The full citation: authors, title, venue, pages where known.
    pub citation: String,
    /// The year of publication.
    pub year: u16,
    /// The DOI, where the paper's text or a cited bibliographic record gives one.
    #[serde(default)]
    pub doi: Option<String>,
    /// The hardware the paper measured on.
    pub hardware: PaperHardware,
}

impl PaperMeta {
    /// Refuses a spec whose `[paper] id` is not the paper it is loaded as (`--spec` given another paper's file).
    pub fn check_id(&self, file: &SpecFile, paper: &str) -> Result<(), SpecError> {
        if self.id == paper {
            return Ok(());
        }
        Err(file.invalid_key("paper", "id", format!("`{}`: this is {paper}'s spec, its id must be `{paper}`", self.id)))
    }
}

/// The values of a spec's list, once its lines have served the checks at load.
pub fn values<T: Copy>(list: &[Spanned<T>]) -> impl Iterator<Item = T> + Clone + '_ {
    list.iter().map(|v| **v)
}

/// A datasheet number: finite and positive (`nan`, `inf` and 0 parse as TOML floats).
pub fn positive_finite<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v > 0.0 { Ok(v) } else { Err(serde::de::Error::custom(format!("{v}: must be a positive finite number"))) }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperHardware {
    pub gpu: String,
    pub cpu: String,
    pub cuda: String,
    /// Memory bandwidth of the paper's GPU, GB/s (datasheet).
    #[serde(deserialize_with = "positive_finite")]
    pub gpu_bandwidth_gbs: f64,
    /// Datasheet quantities of the paper's machine that claims' hardware models
    /// set against this machine's measurements, each with its source.
    #[serde(default)]
    pub datasheet: BTreeMap<Quantity, Datasheet>,
}

/// Names that become file or folder names (profiles, papers, shards): letters,
/// digits, `-` and `_`, 1 to 64 of them, so that no name leads outside `--out`.
pub fn check_name(what: &str, name: &str) -> Result<(), SpecError> {
    let ok = !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok { Ok(()) } else { Err(SpecError::Name { what: what.to_owned(), name: name.to_owned() }) }
}

/// Whose claim it is: the paper's (with its sentence quoted), or the
/// harness's own check (shown and counted apart from the paper's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    #[default]
    Paper,
    Harness,
}

impl Provenance {
    pub fn label(self) -> &'static str {
        match self {
            Provenance::Paper => "paper",
            Provenance::Harness => "harness",
        }
    }
}

/// What evidence below the paper's budget (generations, runs, iterations) does
/// to a claim: `gate` (default) leaves it not run here; `judge` judges it and
/// says "reduced budget (k of the paper's n)" in its label.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReducedBudget {
    #[default]
    Gate,
    Judge,
}

/// A claim of the paper, checked by the experiment's code named in `check`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    pub id: String,
    /// Where the paper says it (section, table, figure).
    pub source: String,
    /// The claim in the paper's words.
    pub text: String,
    /// The paper's claim, or the harness's own check.
    #[serde(default)]
    pub provenance: Provenance,
    /// The paper's sentence, verbatim (paper claims).
    #[serde(default)]
    pub quote: Option<String>,
    /// Whether a budget below the paper's gates the claim or is judged and labelled.
    #[serde(default)]
    pub reduced_budget: ReducedBudget,
    /// What its evidence needs of a profile and a machine, for `--dry-run`
    /// and `list` (never read by the judge).
    #[serde(default)]
    pub needs: ClaimNeeds,
    /// Which checker evaluates it.
    pub check: Spanned<String>,
    /// The check's parameters (an inline table), typed by the check.
    #[serde(default)]
    pub params: Option<Spanned<toml::Value>>,
    /// The number of the paper's table or figure that the first screen shows
    /// beside this claim, where the check itself judges no paper value.
    #[serde(default)]
    pub headline: Option<Spanned<HeadlineSpec>>,
}

/// A table or figure's headline number (`headline = { … }` of a claim): the
/// mean of series `a` at size `at` (every run where no size is given), or its
/// ratio to series `b`'s mean, against the value the paper states. Shown on the
/// first screen only; never part of a verdict.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadlineSpec {
    /// What the number is, in the paper's terms ("GM's population over greedy's, ℓ = 350").
    pub what: String,
    pub a: String,
    #[serde(default)]
    pub b: Option<String>,
    #[serde(default)]
    pub at: Option<usize>,
    /// The paper's value (its table, or computed from its table: the spec's comment says how).
    pub paper: f64,
}

impl ClaimSpec {
    /// The runs each point needs before its spread decides (`min_n` of its
    /// `params`, where the check takes one).
    pub fn min_n(&self) -> Option<usize> {
        let v = self.params.as_ref()?.get("min_n")?.as_integer()?;
        usize::try_from(v).ok()
    }
}

/// What a claim's evidence needs, as far as the spec tells before any run
/// (`needs = { … }` of a `[[claims]]` entry): `--dry-run` and `list` say from
/// it which claims a profile can decide on a machine
/// ([`crate::experiments::plan::foresee`]). The judge never reads it; a test
/// holds it to the judge's verdicts on the committed records.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimNeeds {
    /// GPUs its evidence is measured on (0: its methods run on the CPU).
    #[serde(default)]
    pub gpus: usize,
    /// The cases it reads, one filter per kind of case it needs (each must
    /// match a case of the profile): per case parameter, the value it must
    /// have, the `[low, high]` range it must lie in, or the strings it may be.
    #[serde(default)]
    pub cases: Vec<BTreeMap<String, Wanted>>,
    /// The case parameter that numbers a point's repetitions (`run`,
    /// `bisection`, `seed`): the cases it reads that differ only in it and in
    /// `seed` are one point's runs, set against the claim's `min_n`.
    #[serde(default)]
    pub runs: Option<String>,
    /// Its evidence's budget, where the check states one.
    #[serde(default)]
    pub budget: Option<NeedsBudget>,
}

/// A case parameter's wanted value in [`ClaimNeeds::cases`].
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Wanted {
    /// `[low, high]`, both included.
    Range(Pair<f64>),
    /// One of these names.
    OneOf(Vec<String>),
    Number(f64),
    Text(String),
    Flag(bool),
}

impl Wanted {
    /// Whether a case's parameter `value` is the one wanted.
    pub fn admits(&self, value: &crate::records::Value) -> bool {
        use crate::records::Value;
        let number = match *value {
            Value::Int(x) => Some(x as f64),
            Value::Float(x) => Some(x),
            _ => None,
        };
        match (self, value) {
            (Wanted::Range(r), _) => number.is_some_and(|x| r[0] <= x && x <= r[1]),
            (Wanted::OneOf(names), Value::Str(s)) => names.contains(s),
            (Wanted::Number(want), _) => number == Some(*want),
            (Wanted::Text(want), Value::Str(s)) => want == s,
            (Wanted::Flag(want), Value::Bool(b)) => want == b,
            _ => false,
        }
    }
}

impl std::fmt::Display for Wanted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wanted::Range(r) => write!(f, "in [{}, {}]", r[0], r[1]),
            Wanted::OneOf(names) => write!(f, "one of {}", names.join(", ")),
            Wanted::Number(x) => write!(f, "= {x}"),
            Wanted::Text(s) => write!(f, "= {s}"),
            Wanted::Flag(b) => write!(f, "= {b}"),
        }
    }
}

/// The budget a claim's evidence is measured at: the product of these case
/// parameters (`["generations"]`, `["population", "iterations"]`) against the
/// paper's; below it the claim is gated unless `reduced_budget = "judge"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeedsBudget {
    pub of: Vec<String>,
    #[serde(deserialize_with = "positive_finite")]
    pub paper: f64,
}

#[cfg(test)]
impl ClaimSpec {
    /// A claim with this id and no parameters.
    pub fn for_tests(id: &str) -> ClaimSpec {
        let text = format!("id = \"{id}\"\nsource = \"s\"\ntext = \"t\"\ncheck = \"c\"\n");
        toml::from_str(&text).expect("test claim")
    }
}

/// A datasheet value of the paper's hardware, with where it comes from.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Datasheet {
    #[serde(deserialize_with = "positive_finite")]
    pub value: f64,
    pub source: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct T {
        a: u32,
        b: Spanned<String>,
    }

    #[test]
    fn parse_errors_name_file_line_and_key() {
        let f = SpecFile::from_text(Path::new("x.toml"), "a = 1\nb = \"ok\"\nc = 3\n".into());
        let e = f.parse::<T>().unwrap_err().to_string();
        assert!(e.contains("x.toml") && e.contains("line 3") && e.contains("`c`"), "{e}");
        let f = SpecFile::from_text(Path::new("y.toml"), "a = \"one\"\nb = \"ok\"\n".into());
        let e = f.parse::<T>().unwrap_err().to_string();
        assert!(e.contains("y.toml") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn invalid_values_report_their_line() {
        let f = SpecFile::from_text(Path::new("z.toml"), "a = 1\n\nb = \"bad\"\n".into());
        let t: T = f.parse().unwrap();
        let e = f.invalid(&t.b, "b", "not allowed").to_string();
        assert_eq!(e, "z.toml:3: `b`: not allowed");
    }

    #[test]
    fn keys_read_without_a_span_are_found_in_their_table() {
        let text = "runs = 1\n[profiles.quick]\nruns = 2\ntries = 3\n[profiles.paper]\nruns = 4\n".to_owned();
        let f = SpecFile::from_text(Path::new("k.toml"), text);
        assert_eq!(f.line_of_key("", "runs"), 1);
        assert_eq!(f.line_of_key("profiles.quick", "runs"), 3);
        assert_eq!(f.line_of_key("profiles.paper", "runs"), 6);
        // Not written: the table's header; no such table: line 1.
        assert_eq!(f.line_of_key("profiles.paper", "tries"), 5);
        assert_eq!(f.line_of_key("profiles.none", "tries"), 1);
        let e = f.invalid_key("profiles.paper", "runs", "too many").to_string();
        assert_eq!(e, "k.toml:6: `profiles.paper.runs`: too many");
        // Rows of an array that start a line are not table headers.
        let f = SpecFile::from_text(Path::new("k.toml"), "[profiles.paper]\nsizes = [\n  [1, 2], [3, 4],\n]\nmax = 5\n".into());
        assert_eq!(f.line_of_key("profiles.paper", "max"), 5);
    }

    #[test]
    fn a_spec_that_is_not_utf8_names_its_line_and_column() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("bad.toml");
        std::fs::write(&path, b"a = 1\nb = \"ok\xff\"\n").unwrap();
        let e = SpecFile::read(&path).unwrap_err().to_string();
        assert_eq!(e, format!("{}:2:8: not UTF-8 text; save the spec as UTF-8", path.display()));
        let f = SpecFile::from_text(Path::new("t.toml"), "x = 1\n\n[profiles.quick]\nruns = 2\n".into());
        assert_eq!((f.line_of_table("profiles.quick"), f.line_of_table("profiles.none")), (3, 1));
    }

    #[test]
    fn hash_depends_on_content_not_comments() {
        let spec = |text: &str| SpecFile::from_text(Path::new("a"), text.into());
        let a = spec("# about 3 minutes\nx = 1\n[t]\ny = [1, 2]\n");
        let commented = spec("# 20 s on 2 cores\nx   = 1 # one\n\n[t]\ny = [ 1,\n  2 ]\n");
        assert_eq!(a.hash.len(), 16);
        assert_eq!(a.hash, commented.hash, "comments and layout changed the hash");
        assert_ne!(a.hash, spec("x = 2\n[t]\ny = [1, 2]\n").hash);
        assert_ne!(a.hash, spec("x = 1\n[t]\ny = [1, 3]\n").hash);
        // Claims judge records; they never change what a run measures.
        assert_eq!(a.hash, spec("x = 1\n[t]\ny = [1, 2]\n[[claims]]\nid = \"c\"\n").hash);
        // Nor does what a profile is for: its description and smoke flag.
        let p = spec("[profiles.quick]\nruns = 2\n");
        assert_eq!(p.hash, spec("[profiles.quick]\ndescription = \"a smoke test\"\nsmoke = true\nruns = 2\n").hash);
        assert_ne!(p.hash, spec("[profiles.quick]\nruns = 3\n").hash);
        // The hash of records written before: the text's, comments included.
        assert_eq!(a.text_hash, sha_prefix("# about 3 minutes\nx = 1\n[t]\ny = [1, 2]\n"));
        assert_ne!(a.text_hash, commented.text_hash);
        // Text that is not TOML hashes as text (the spec is refused later, by line).
        let broken = spec("x = = 1");
        assert_eq!(broken.hash, broken.text_hash);
    }

    fn sha_prefix(text: &str) -> String {
        Sha256::digest(text.as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// `root/experiments/`, `root/datasets/d.txt` and `outside/o.txt` in a fresh folder.
    fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        let (root, outside) = (top.join("root"), top.join("outside"));
        for d in [root.join("experiments"), root.join("datasets"), outside.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join("datasets/d.txt"), "d").unwrap();
        std::fs::write(outside.join("o.txt"), "o").unwrap();
        (tmp, root, outside)
    }

    #[derive(Debug, Deserialize)]
    struct Data {
        data: Spanned<PathBuf>,
    }

    /// `data = "<written>"` on line 2 of `spec`, resolved in `context`.
    fn data_path(spec: &Path, context: SpecContext, written: &Path) -> Result<DataPath, SpecError> {
        let file = SpecFile::from_text(spec, format!("# data\ndata = {:?}\n", written.display().to_string())).with_context(context);
        file.data_path(&file.parse::<Data>().unwrap().data, "settings.data")
    }

    #[test]
    fn data_paths_resolve_against_the_spec_folder_and_stay_under_the_root() {
        let (_tmp, root, outside) = tree();
        let spec = root.join("experiments/x.toml");
        let inside = SpecContext::new(&root.join("experiments"), &root, false);
        let d = data_path(&spec, inside.clone(), Path::new("../datasets/d.txt")).unwrap();
        assert_eq!((d.path.clone(), d.label.as_str()), (root.join("datasets/d.txt"), "datasets/d.txt"));
        // An absolute path is taken as written; one that does not exist yet resolves too.
        assert_eq!(data_path(&spec, inside.clone(), &root.join("datasets/d.txt")).unwrap().path, d.path);
        let missing = data_path(&spec, inside.clone(), Path::new("../datasets/new/../none.txt")).unwrap();
        assert_eq!((missing.path, missing.label.as_str()), (root.join("datasets/none.txt"), "datasets/none.txt"));
        // Outside the root: refused with file, line, key and the resolved path, unless allowed.
        for written in [Path::new("../../outside/o.txt"), &outside.join("o.txt"), Path::new("../../../../../../etc/passwd")] {
            let e = data_path(&spec, inside.clone(), written).unwrap_err().to_string();
            let resolved = resolve(&root.join("experiments").join(written));
            let want = format!("{}:2: `settings.data`: `{}` resolves to {}", spec.display(), written.display(), resolved.display());
            assert!(e.starts_with(&want) && e.contains("--allow-outside") && e.contains(&root.display().to_string()), "{e}");
        }
        let allowed = SpecContext { allow_outside: true, ..inside.clone() };
        let o = data_path(&spec, allowed, Path::new("../../outside/o.txt")).unwrap();
        assert_eq!((o.path.clone(), o.label), (outside.join("o.txt"), outside.join("o.txt").display().to_string()));
        // A link inside the root that leads out of it is followed, and refused.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, root.join("datasets/link")).unwrap();
            let e = data_path(&spec, inside, Path::new("../datasets/link/o.txt")).unwrap_err().to_string();
            assert!(e.contains(&format!("resolves to {}", outside.join("o.txt").display())), "{e}");
        }
    }

    #[test]
    fn a_spec_outside_the_root_reaches_its_own_folder_and_the_root() {
        let (_tmp, root, outside) = tree();
        let spec = outside.join("x.toml");
        let context = SpecContext::new(&outside, &root, false);
        assert_eq!(data_path(&spec, context.clone(), Path::new("o.txt")).unwrap().path, outside.join("o.txt"));
        assert_eq!(data_path(&spec, context.clone(), &root.join("datasets/d.txt")).unwrap().label, "datasets/d.txt");
        let e = data_path(&spec, context, Path::new("../elsewhere.txt")).unwrap_err().to_string();
        assert!(e.contains(&format!("the spec's folder {}", outside.display())) && e.contains("--allow-outside"), "{e}");
    }

    #[test]
    fn the_root_is_the_option_the_current_folder_the_binary_s_or_the_build_s() {
        let (_tmp, root, outside) = tree();
        let exe = root.join("target/release/evorepro");
        let built = outside.join("built");
        assert_eq!(find_root(Some(&outside)).unwrap(), outside);
        let e = find_root(Some(&outside.join("none"))).unwrap_err().to_string();
        assert!(e.contains("--root") && e.contains("none"), "{e}");
        assert_eq!(discover_root(&root, None, &built), root);
        assert_eq!(discover_root(&outside, Some(&exe), &built), root);
        assert_eq!(discover_root(&outside, Some(&outside.join("bin/evorepro")), &built), outside, "no root anywhere: the current folder");
        std::fs::create_dir(&built).unwrap();
        assert_eq!(discover_root(&outside, None, &built), built);
    }
}
