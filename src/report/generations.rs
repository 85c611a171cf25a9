//! Hardware generations: each paper's headline workloads (`experiments/generations.toml`),
//! what bounds each one, its time on every machine with records, and predictions
//! across machines from the bounding quantity — the paper's card from a measured
//! machine, a measured machine from the paper's card, and cards nobody ran here
//! (H200, B200) from their datasheets.
//!
//! A prediction from machine A to machine B is `t_B = t_A × q_A / q_B` for the
//! workload's bounding quantity `q` (a latency-bound workload keeps its time).
//! Both `q` are measured (ceilings of the machines' runs) or both datasheet
//! values, never one of each. A prediction that misses the measured time by more
//! than [`WITHIN`] names the quantity whose ratio comes closest to what was
//! measured: the assumption that broke.

use super::Table;
use super::chart::{self, RegionChart};
use crate::hardware::Quantity;
use crate::records::MachineRecords;
use crate::spec::Datasheet;

/// A prediction across machines explains a measured ratio when they agree within this factor.
pub const WITHIN: f64 = 2.0;
use crate::fmt::{fmt_ratio, fmt_sig};
use crate::records::FingerprintRow;
use crate::records::col;
use crate::stats::median;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The shipped catalogue, used when `<root>/experiments/generations.toml` is missing.
const EMBEDDED: &str = include_str!("../../experiments/generations.toml");

/// `experiments/generations.toml`: the cards and each paper's workloads.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generations {
    pub cards: Vec<Card>,
    /// Cards nobody ran here that every comparison predicts for.
    pub predict: Vec<String>,
    pub papers: BTreeMap<String, PaperWorkloads>,
}

/// A GPU as its datasheet gives it.
#[derive(Clone, Debug, Deserialize)]
pub struct Card {
    pub name: String,
    /// Substrings of a record's `gpu_name` that are this card.
    pub gpu_names: Vec<String>,
    #[serde(flatten)]
    pub quantities: BTreeMap<Quantity, Datasheet>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperWorkloads {
    /// The paper's card (a name in `cards`).
    pub card: String,
    /// The paper's host core, turbo included.
    pub cpu_clock: Datasheet,
    pub workloads: Vec<Workload>,
}

/// What bounds a workload: a quantity, or a fixed cost (launches, synchronisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Latency,
    GpuBandwidth,
    GpuInt32,
    GpuSms,
    HostLink,
    CpuClock,
}

impl Bound {
    fn quantity(self) -> Option<Quantity> {
        match self {
            Bound::Latency => None,
            Bound::GpuBandwidth => Some(Quantity::GpuBandwidth),
            Bound::GpuInt32 => Some(Quantity::GpuInt32),
            Bound::GpuSms => Some(Quantity::GpuSms),
            Bound::HostLink => Some(Quantity::HostLink),
            Bound::CpuClock => Some(Quantity::CpuClock),
        }
    }

    fn label(self) -> &'static str {
        self.quantity().map_or("launch and synchronisation latency", Quantity::label)
    }

    const ALL: [Bound; 6] = [Bound::Latency, Bound::GpuBandwidth, Bound::GpuInt32, Bound::GpuSms, Bound::HostLink, Bound::CpuClock];
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub id: String,
    pub label: String,
    /// Record columns and the values that select the workload's rows.
    pub rows: BTreeMap<String, toml::Value>,
    /// The time column: `…_ms` or `…_s`.
    pub time: String,
    pub bound: Bound,
    /// Bytes the workload moves, for its share of a bandwidth ceiling.
    pub bytes: Option<f64>,
    /// The paper's time on its card, where it prints one.
    pub paper: Option<PaperTime>,
    /// `cpu` for a workload of the host alone (any machine runs it); default: it needs a GPU.
    #[serde(default)]
    pub runs_on: RunsOn,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunsOn {
    #[default]
    Gpu,
    Cpu,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperTime {
    pub ms: f64,
    pub source: String,
}

impl Generations {
    /// `<root>/experiments/generations.toml`, else the shipped copy; checked.
    pub fn load(root: &Path) -> Result<Generations> {
        let path = root.join("experiments").join("generations.toml");
        let (shown, text) = if path.exists() {
            (path.display().to_string(), std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?)
        } else {
            ("<built-in>/experiments/generations.toml".to_owned(), EMBEDDED.to_owned())
        };
        Generations::parse(&shown, &text)
    }

    /// Parses and checks a catalogue; errors name the file, the line and the value.
    pub fn parse(shown: &str, text: &str) -> Result<Generations> {
        let g: Generations = toml::from_str(text).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
        let line = |needle: &str| text.find(needle).map_or(0, |at| text[..at].matches('\n').count() + 1);
        for name in g.predict.iter().chain(g.papers.values().map(|p| &p.card)) {
            if g.card(name).is_none() {
                bail!("{shown}:{}: card `{name}` is not among the [[cards]]", line(&format!("\"{name}\"")));
            }
        }
        for (paper, p) in &g.papers {
            for w in &p.workloads {
                let at = line(&format!("id = \"{}\"", w.id));
                if !(w.time.ends_with("_ms") || w.time.ends_with("_s")) {
                    bail!("{shown}:{at}: papers.{paper} workload `{}`: time column `{}` must end in _ms or _s", w.id, w.time);
                }
                let positive = |v: f64| v > 0.0 && v.is_finite();
                if w.bytes.is_some_and(|b| !positive(b)) || w.paper.as_ref().is_some_and(|t| !positive(t.ms)) {
                    bail!("{shown}:{at}: papers.{paper} workload `{}`: bytes and paper.ms must be positive", w.id);
                }
            }
        }
        Ok(g)
    }

    pub fn card(&self, name: &str) -> Option<&Card> {
        self.cards.iter().find(|c| c.name == name)
    }

    /// The card a machine's records name (its `gpu_name`), if the catalogue has it.
    fn card_of(&self, m: &MachineRecords) -> Option<&Card> {
        let gpu = m.rows.iter().map(|r| r.str(FingerprintRow::gpu_name)).find(|g| !g.is_empty())?;
        self.cards.iter().find(|c| c.gpu_names.iter().any(|n| gpu.contains(n.as_str())))
    }
}

/// One column of a comparison: the paper's machine, a machine with records, or a
/// card known only from its datasheet.
struct Side<'a> {
    name: String,
    measured: Option<&'a MachineRecords>,
    card: Option<&'a Card>,
    /// The paper's host core (the paper's machine only).
    cpu_clock: Option<f64>,
    kind: SideKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SideKind {
    Paper,
    Measured,
    Datasheet,
}

/// Where a quantity's values came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source {
    Measured,
    Datasheet,
}

impl Side<'_> {
    fn measured_q(&self, q: Quantity) -> Option<f64> {
        self.measured.and_then(|m| q.here(m))
    }

    fn datasheet_q(&self, q: Quantity) -> Option<f64> {
        if q == Quantity::CpuClock {
            // A core's clock: the datasheet's turbo clock and the measured one (turbo
            // included) are the same quantity.
            return self.cpu_clock.or_else(|| self.measured_q(q));
        }
        self.card.and_then(|c| c.quantities.get(&q)).map(|d| d.value)
    }

    /// The quantity on both sides, of one kind: measured if both were, else datasheet.
    fn pair(&self, other: &Side, q: Quantity) -> Option<(f64, f64, Source)> {
        if let (Some(a), Some(b)) = (self.measured_q(q), other.measured_q(q)) {
            return Some((a, b, Source::Measured));
        }
        Some((self.datasheet_q(q)?, other.datasheet_q(q)?, Source::Datasheet))
    }

    /// The ratio t_other / t_self that `bound` predicts.
    fn time_ratio(&self, other: &Side, bound: Bound) -> Option<(f64, Source)> {
        match bound.quantity() {
            None => Some((1.0, Source::Measured)),
            Some(q) => self.pair(other, q).map(|(a, b, s)| (a / b, s)),
        }
    }

    /// The value of `q` shown for this side, and where it came from.
    fn shown_q(&self, q: Quantity) -> Option<(f64, Source)> {
        self.measured_q(q).map(|v| (v, Source::Measured)).or_else(|| self.datasheet_q(q).map(|v| (v, Source::Datasheet)))
    }
}

/// A workload's rows on one machine: those matching its `rows` with a time, of
/// the latest profile (by run) that has them.
fn latest_rows<'m>(w: &Workload, m: &'m MachineRecords) -> Vec<&'m crate::records::Record> {
    let matches = |r: &crate::records::Record| {
        w.rows.iter().all(|(k, v)| {
            let want = match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            r.get(k).to_string() == want
        }) && r.float(&w.time).is_some()
            && matches!(r.str(col::STATUS), "" | "ok")
    };
    let rows: Vec<_> = m.measurements().filter(|r| matches(r)).collect();
    let Some(latest) = rows.iter().max_by_key(|r| r.int(col::RUN_ID).unwrap_or(0)).map(|r| r.str(col::PROFILE).to_owned()) else {
        return Vec::new();
    };
    rows.into_iter().filter(|r| r.str(col::PROFILE) == latest).collect()
}

/// A workload's times on one machine, in ms: one per row of [`latest_rows`].
fn measured_times(w: &Workload, m: &MachineRecords) -> Vec<f64> {
    let scale = if w.time.ends_with("_ms") { 1.0 } else { 1000.0 };
    latest_rows(w, m).iter().filter_map(|r| r.float(&w.time)).map(|t| t * scale).collect()
}

/// A workload's time on one machine: the median of [`latest_rows`], in ms, and how many rows.
pub fn measured_ms(w: &Workload, m: &MachineRecords) -> Option<(f64, usize)> {
    let times = measured_times(w, m);
    (!times.is_empty()).then(|| (median(&times), times.len()))
}

/// The commits (7 characters) a machine's time of `w` comes from.
fn commit_list(w: &Workload, m: &MachineRecords) -> Vec<String> {
    let mut c: Vec<String> = latest_rows(w, m)
        .iter()
        .map(|r| r.str(col::GIT_COMMIT))
        .filter(|c| !c.is_empty())
        .map(|c| c[..c.len().min(7)].to_owned())
        .collect();
    c.sort_unstable();
    c.dedup();
    c
}

/// The commits the measured time comes from (", at abc1234"), so that a table
/// never hides that its machines ran different code.
fn commits(w: &Workload, s: &Side) -> String {
    let c = s.measured.map(|m| commit_list(w, m)).unwrap_or_default();
    if c.is_empty() { String::new() } else { format!(", at {}", c.join(", ")) }
}

/// A computed prediction from one side to another.
struct Prediction {
    ms: f64,
    source: Source,
}

fn predict(from: &Side, from_ms: f64, to: &Side, bound: Bound) -> Option<Prediction> {
    from.time_ratio(to, bound).map(|(ratio, source)| Prediction { ms: from_ms * ratio, source })
}

/// Why a prediction missed: the bound's ratio against the one that comes closest.
fn missed(from: &Side, from_ms: f64, to: &Side, to_ms: f64, bound: Bound) -> Option<String> {
    let (ratio, _) = from.time_ratio(to, bound)?;
    let actual = to_ms / from_ms;
    let off = actual / ratio;
    if (1.0 / WITHIN..=WITHIN).contains(&off) {
        return None;
    }
    let mut why = format!(
        "misses by {}: {} predicts the time × {} from {} to {}, measured × {}",
        fmt_ratio(off.max(1.0 / off)),
        bound.label(),
        fmt_sig(ratio),
        from.name,
        to.name,
        fmt_sig(actual)
    );
    if bound == Bound::CpuClock {
        why += "; the cores differ in more than their clock (instructions per clock, vector units, caches and memory)";
        return Some(why);
    }
    // Among the device-side bounds known on both machines, the one whose ratio comes closest.
    let closest = Bound::ALL
        .iter()
        .filter(|&&b| b != bound && b != Bound::CpuClock)
        .filter_map(|&b| from.time_ratio(to, b).map(|(r, _)| (b, r)))
        .min_by(|a, b| (a.1 / actual).ln().abs().total_cmp(&(b.1 / actual).ln().abs()));
    if let Some((b, r)) = closest {
        why += &format!(
            "; {} alone does not account for it — of the device's other bounds known on both, {} (× {}) comes closest",
            bound.label(),
            b.label(),
            fmt_sig(r)
        );
    }
    Some(why)
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 1000.0 { format!("{} s", fmt_sig(ms / 1000.0)) } else { format!("{} ms", fmt_sig(ms)) }
}

fn source_mark(s: Source) -> &'static str {
    match s {
        Source::Measured => "",
        Source::Datasheet => " (datasheet)",
    }
}

/// Everything one paper's comparison needs.
pub struct PaperGenerations<'a> {
    pub catalogue: &'a Generations,
    pub paper_id: &'a str,
    pub machines: &'a [MachineRecords],
}

impl PaperGenerations<'_> {
    fn sides(&self) -> Vec<Side<'_>> {
        let Some(p) = self.catalogue.papers.get(self.paper_id) else { return Vec::new() };
        let mut sides = vec![Side {
            name: format!("the paper's {}", p.card),
            measured: None,
            card: self.catalogue.card(&p.card),
            cpu_clock: Some(p.cpu_clock.value),
            kind: SideKind::Paper,
        }];
        for m in self.machines {
            sides.push(Side {
                name: m.label(),
                measured: Some(m),
                card: self.catalogue.card_of(m),
                cpu_clock: None,
                kind: SideKind::Measured,
            });
        }
        for name in &self.catalogue.predict {
            let card = self.catalogue.card(name);
            if !sides.iter().any(|s| s.card.is_some_and(|c| Some(c.name.as_str()) == card.map(|c| c.name.as_str()))) {
                sides.push(Side {
                    name: format!("{name} (not run here)"),
                    measured: None,
                    card,
                    cpu_clock: None,
                    kind: SideKind::Datasheet,
                });
            }
        }
        sides
    }

    /// Time of `w` on a side: the paper's printed time, or the median measured.
    fn time(&self, w: &Workload, s: &Side) -> Option<(f64, usize)> {
        match s.kind {
            SideKind::Paper => w.paper.as_ref().map(|t| (t.ms, 0)),
            SideKind::Measured => measured_ms(w, s.measured?),
            SideKind::Datasheet => None,
        }
    }

    /// The machine predictions start from besides the paper: the first GPU
    /// machine with a time, else the first machine with one.
    fn reference<'s>(&self, w: &Workload, sides: &'s [Side<'s>]) -> Option<(&'s Side<'s>, f64)> {
        let timed = |gpu: bool| {
            sides
                .iter()
                .filter(|s| s.kind == SideKind::Measured && s.measured.is_some_and(|m| m.has_gpu() == gpu))
                .find_map(|s| self.time(w, s).map(|(t, _)| (s, t)))
        };
        timed(true).or_else(|| timed(false))
    }

    /// The Markdown section and the chart of each workload (under `figures`).
    pub fn render(&self, figures: &Path) -> Result<String> {
        let Some(p) = self.catalogue.papers.get(self.paper_id) else { return Ok(String::new()) };
        let sides = self.sides();
        let mut md = String::from(
            "## Hardware generations: bounds, predictions and measurements\n\n\
             Each headline workload, what bounds it, and its time on every machine: measured, \
             the paper's own where it prints one, and predicted from the paper's card and from \
             a measured machine as `t × q_from / q_to` of the bounding quantity `q` (both \
             measured, or both datasheet values: `experiments/generations.toml` gives the \
             cards' values with their sources). A prediction off by more than 2× names the \
             quantity whose ratio comes closest to the measured one. Each time names the commits \
             it was measured at: machines measured at different commits ran different code, and are \
             not set against each other. Below each table, every measured machine's time predicted \
             from every other's: a test of the bound where both ran the same commit (inside or \
             outside the run-to-run spread), none where the code differs. In the charts a \
             predicted card sits on the model line through the machine it is predicted from, at the \
             quantity the prediction implies on that machine's measured scale.\n\n",
        );
        for w in &p.workloads {
            md += &self.workload_section(w, &sides, figures)?;
        }
        Ok(md)
    }

    fn workload_section(&self, w: &Workload, sides: &[Side], figures: &Path) -> Result<String> {
        let paper_side = &sides[0];
        let paper_ms = self.time(w, paper_side).map(|t| t.0);
        let reference = self.reference(w, sides);
        let qlabel = w.bound.quantity().map_or("—".to_owned(), |q| format!("{} ({})", q.label(), q.unit()));
        let mut md = format!("### {}\n\n{}; bound: **{}**.", w.id, w.label, w.bound.label());
        if let Some(t) = &w.paper {
            md += &format!(" The paper: {} ({}).", fmt_ms(t.ms), t.source);
        }
        md += "\n\n";
        let ref_name = reference.map_or("a measured machine".to_owned(), |(s, _)| s.name.clone());
        let mut table = Table::new(&[
            "machine".to_owned(),
            qlabel,
            "time".to_owned(),
            "share of the ceiling".to_owned(),
            "predicted from the paper's card".to_owned(),
            format!("predicted from {ref_name}"),
            "prediction against time".to_owned(),
        ]);
        let mut points: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        // The chart's x axis: the bounding quantity; for a latency-bound workload, the
        // device bandwidth (against which its time stays flat).
        let axis = w.bound.quantity().unwrap_or(Quantity::GpuBandwidth);
        for s in sides {
            let time = self.time(w, s);
            let q = w.bound.quantity().and_then(|q| s.shown_q(q));
            // A GPU workload is predicted only for machines with a GPU.
            let runs_here = w.runs_on == RunsOn::Cpu || s.measured.is_none_or(MachineRecords::has_gpu);
            let from_paper = paper_ms.filter(|_| s.kind != SideKind::Paper && runs_here).and_then(|t| predict(paper_side, t, s, w.bound));
            let from_ref = reference.filter(|(r, _)| !std::ptr::eq(*r, s) && runs_here).and_then(|(r, t)| predict(r, t, s, w.bound));
            if time.is_none() && from_ref.is_none() && from_paper.is_none() {
                continue;
            }
            let time_cell = match (time, s.kind) {
                (Some((t, _)), SideKind::Paper) => format!("{} (the paper)", fmt_ms(t)),
                (Some((t, n)), _) => format!("{} (n = {n}{})", fmt_ms(t), commits(w, s)),
                (None, _) => "—".into(),
            };
            let share = match (time, w.bytes, w.bound.quantity(), q) {
                (Some((t, _)), Some(bytes), Some(Quantity::GpuBandwidth | Quantity::HostLink), Some((ceiling, src))) => {
                    let gbs = bytes / (t / 1000.0) / 1e9;
                    format!("{} GB/s = {} of {}{}", fmt_sig(gbs), crate::fmt::share(gbs, ceiling, 0), fmt_sig(ceiling), source_mark(src))
                }
                _ => "—".into(),
            };
            let pred_cell =
                |p: &Option<Prediction>| p.as_ref().map_or("—".into(), |p| format!("{}{}", fmt_ms(p.ms), source_mark(p.source)));
            // The check: the time against the prediction from the paper, else from the reference.
            let check = match time {
                Some((t, _)) => {
                    let against = if s.kind == SideKind::Paper { reference } else { paper_ms.map(|pt| (paper_side, pt)) };
                    let against = against.or(reference.filter(|(r, _)| !std::ptr::eq(*r, s)));
                    let code = |side: &Side| side.measured.map(|m| commit_list(w, m));
                    match against.filter(|(from, _)| !std::ptr::eq(*from, s)) {
                        // Machines that ran different code: a difference of versions, not of hardware.
                        Some((from, _)) if code(from).is_some() && code(s).is_some() && code(from) != code(s) => format!(
                            "not compared: the code differs ({} → {})",
                            code(from).unwrap_or_default().join(", "),
                            code(s).unwrap_or_default().join(", ")
                        ),
                        Some((from, ft)) => match (predict(from, ft, s, w.bound), missed(from, ft, s, t, w.bound)) {
                            (Some(_), Some(why)) => why,
                            (Some(p), None) => format!("time / prediction from {} = {} (within 2×)", from.name, fmt_ratio(t / p.ms)),
                            (None, _) => "no prediction: the quantity is not known on both".into(),
                        },
                        None => "—".into(),
                    }
                }
                None => "—".into(),
            };
            table.row(vec![
                s.name.clone(),
                q.map_or("—".into(), |(v, src)| format!("{}{}", fmt_sig(v), source_mark(src))),
                time_cell,
                share,
                pred_cell(&from_paper),
                pred_cell(&from_ref),
                check,
            ]);
            if let Some((qv, _)) = s.shown_q(axis) {
                match (time, &from_ref) {
                    (Some((t, _)), _) => points.push((s.name.clone(), vec![(qv, t)])),
                    // A prediction sits on the reference's model line: at the quantity it implies on the
                    // reference's scale (the datasheets' ratio applied to the reference's measured value).
                    (None, Some(p)) => {
                        let on_line = reference.and_then(|(r, rt)| Some(r.shown_q(axis)?.0 * rt / p.ms));
                        let x = if w.bound.quantity().is_some() { on_line.unwrap_or(qv) } else { qv };
                        points.push((format!("{} (predicted)", s.name), vec![(x, p.ms)]));
                    }
                    (None, None) => {}
                }
            }
        }
        md += &table.render();
        if !points.is_empty() {
            let q = axis;
            let stem = figures.join(format!("generations-{}", w.id));
            // time ∝ q^-1, or flat (latency): slope a in a·log10 q + log10 t = c.
            let (a, model) = if w.bound == Bound::Latency { (0.0, "time independent of q") } else { (1.0, "time ∝ 1/q") };
            let mut lines = Vec::new();
            // time ∝ 1/q: log10 q + log10 t = log10 (q₀ t₀), through the paper's point and the reference's.
            if let (Some(t), Some((qv, _))) = (paper_ms, paper_side.shown_q(q)) {
                lines.push((format!("{model} through the paper's point"), [a, 1.0, a * qv.log10() + t.log10()]));
            }
            if let Some((r, t)) = reference
                && let Some((qv, _)) = r.shown_q(q)
            {
                lines.push((format!("{model} through {}", r.name), [a, 1.0, a * qv.log10() + t.log10()]));
            }
            let xs = points.iter().map(|p| p.1[0].0);
            let ys = points.iter().map(|p| p.1[0].1);
            let span = |v: &mut dyn Iterator<Item = f64>| {
                let (lo, hi) = v.fold((f64::INFINITY, 0f64), |(a, b), x| (a.min(x), b.max(x)));
                (lo / 3.0, hi * 3.0)
            };
            let title = format!("{}: time against {} (machines with records and datasheets)", w.id, q.label());
            let x_label = format!("{} ({})", q.label(), q.unit());
            chart::write_regions(
                &stem,
                &RegionChart {
                    title: &title,
                    x_label: &x_label,
                    y_label: "time (ms)",
                    x_range: span(&mut xs.into_iter()),
                    y_range: span(&mut ys.into_iter()),
                    classes: points,
                    lines,
                    rings: Vec::new(),
                    ..RegionChart::default()
                },
            )
            .map_err(|e| anyhow::anyhow!(e))?;
            md += &format!("\n![{}](figures/generations-{}.svg)\n", w.id, w.id);
        }
        md += &self.tested(w, sides);
        md += "\n";
        Ok(md)
    }

    /// Each measured machine's time predicted from each other one's and set against
    /// what it measured: a test of the bound where both ran the same commit (the
    /// prediction from every run of the one inside the range of the other's runs,
    /// or not); across commits the code differs and the row says so instead.
    fn tested(&self, w: &Workload, sides: &[Side]) -> String {
        let runs_here = |s: &Side| w.runs_on == RunsOn::Cpu || s.measured.is_some_and(MachineRecords::has_gpu);
        let timed: Vec<(&Side, Vec<f64>, Vec<String>)> = sides
            .iter()
            .filter(|s| s.kind == SideKind::Measured && runs_here(s))
            .filter_map(|s| {
                let m = s.measured?;
                let times = measured_times(w, m);
                (!times.is_empty()).then(|| (s, times, commit_list(w, m)))
            })
            .collect();
        if timed.len() < 2 {
            return String::new();
        }
        let range = |t: &[f64]| t.iter().fold((f64::INFINITY, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        let mut t = Table::new(&["prediction", "predicted", "measured: median (range, n)", "measured / predicted", "test"]);
        for (from, from_times, from_commits) in &timed {
            for (to, to_times, to_commits) in &timed {
                if std::ptr::eq(*from, *to) {
                    continue;
                }
                let from_ms = median(from_times);
                let Some(p) = predict(from, from_ms, to, w.bound) else { continue };
                let ((flo, fhi), (tlo, thi)) = (range(from_times), range(to_times));
                let test = if from_commits != to_commits {
                    format!("not a test of the hardware: the code differs ({} → {})", from_commits.join(", "), to_commits.join(", "))
                } else if from_times.len() < 2 || to_times.len() < 2 {
                    format!("no spread to test against: n = {} and {} (at {})", from_times.len(), to_times.len(), to_commits.join(", "))
                } else {
                    // The prediction from each run of `from` against the range of `to`'s runs.
                    let (plo, phi) = (p.ms * flo / from_ms, p.ms * fhi / from_ms);
                    let inside = plo <= thi && phi >= tlo;
                    format!(
                        "{} the run-to-run spread (predicted {}–{}; same commit {})",
                        if inside { "inside" } else { "outside" },
                        fmt_ms(plo),
                        fmt_ms(phi),
                        to_commits.join(", ")
                    )
                };
                t.row(vec![
                    format!("{} → {}", from.name, to.name),
                    format!("{}{}", fmt_ms(p.ms), source_mark(p.source)),
                    format!("{} ({}–{}, n = {})", fmt_ms(median(to_times)), fmt_ms(tlo), fmt_ms(thi), to_times.len()),
                    fmt_ratio(median(to_times) / p.ms),
                    test,
                ]);
            }
        }
        format!("\n**Predictions tested between measured machines** ({}):\n\n{}", w.bound.label(), t.render())
    }

    /// One row per machine of the paper's first workload with a time anywhere:
    /// its time, the speedup over the paper's card (the paper's time, else the
    /// time predicted for the card from the reference, said so), and the
    /// predictions for the cards nobody ran here.
    pub fn summary(&self) -> Option<String> {
        let p = self.catalogue.papers.get(self.paper_id)?;
        let sides = self.sides();
        let w = p.workloads.iter().find(|w| self.reference(w, &sides).is_some())?;
        let (reference, ref_ms) = self.reference(w, &sides)?;
        let paper_side = &sides[0];
        let (card_ms, card_how) = match self.time(w, paper_side) {
            Some((t, _)) => (Some(t), "the paper's time"),
            None => (predict(reference, ref_ms, paper_side, w.bound).map(|p| p.ms), "the card's time predicted from the reference"),
        };
        let mut t = Table::new(&["machine", "time", "× the paper's card", "how"]);
        for s in &sides[1..] {
            let (ms, how) = match self.time(w, s) {
                Some((ms, n)) => (ms, format!("measured, n = {n}{}", commits(w, s))),
                None if s.kind == SideKind::Datasheet => match predict(reference, ref_ms, s, w.bound) {
                    Some(p) => (p.ms, format!("predicted from {}{}", reference.name, source_mark(p.source))),
                    None => continue,
                },
                None => continue,
            };
            let speedup = card_ms.map_or("—".into(), |c| format!("{} ({card_how})", fmt_ratio(c / ms)));
            t.row(vec![s.name.clone(), fmt_ms(ms), speedup, how]);
        }
        Some(format!("**{}** — {}; bound: {}.\n\n{}", w.id, w.label, w.bound.label(), t.render()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    fn machine(hw: &str, gpu: &str, ceilings: &[(&str, f64)], rows: &[(&str, f64)]) -> MachineRecords {
        let base =
            Record::new().with(col::HW_ID, hw).with(FingerprintRow::gpu_name, gpu).with(col::RUN_ID, 1i64).with(col::PROFILE, "speed");
        let mut all: Vec<Record> = ceilings
            .iter()
            .map(|&(name, v)| {
                base.clone()
                    .with(col::RECORD_KIND, "ceiling")
                    .with(col::CEILING, name)
                    .with(if name == "cpu_clock" { crate::records::CPU_CLOCK_GHZ } else { crate::records::GB_PER_S }, v)
            })
            .collect();
        all.extend(
            rows.iter()
                .map(|&(strategy, ms)| base.clone().with(col::RECORD_KIND, "measurement").with("strategy", strategy).with("wall_ms", ms)),
        );
        MachineRecords { hw_id: hw.into(), rows: all }
    }

    const CATALOGUE: &str = r#"
predict = ["Fast"]
[[cards]]
name = "Old"
gpu_names = []
gpu_bandwidth = { value = 100.0, source = "sheet" }
[[cards]]
name = "New"
gpu_names = ["New GPU"]
gpu_bandwidth = { value = 2000.0, source = "sheet" }
[[cards]]
name = "Fast"
gpu_names = ["Fast GPU"]
gpu_bandwidth = { value = 4000.0, source = "sheet" }
[papers.p]
card = "Old"
cpu_clock = { value = 3.0, source = "sheet" }
[[papers.p.workloads]]
id = "w"
label = "a bandwidth-bound kernel"
rows = { strategy = "S4" }
time = "wall_ms"
bound = "gpu_bandwidth"
bytes = 1e8
paper = { ms = 40.0, source = "Table 1" }
"#;

    #[test]
    fn predictions_scale_time_by_the_bounding_quantity_and_name_what_broke() {
        let g = Generations::parse("g.toml", CATALOGUE).unwrap();
        // Measured 1500 GB/s here; 2 ms where the paper's 40 ms × 100/1500 predicts 2.67 ms (datasheets: 100/2000 → 2 ms).
        let new = machine("new", "New GPU", &[("gpu_d2d", 1500.0)], &[("S4", 2.0), ("S4", 2.2), ("S4", 1.8)]);
        let machines = [new];
        let pg = PaperGenerations { catalogue: &g, paper_id: "p", machines: &machines };
        let dir = tempfile::tempdir().unwrap();
        let md = pg.render(dir.path()).unwrap();
        // The paper's card against a measured machine: datasheet on both sides (100 → 2000 GB/s): 40 × 100/2000 = 2 ms.
        assert!(md.contains("| New GPU · CPU | 1.50e3 |") || md.contains("| New GPU · CPU | 1500 |"), "{md}");
        assert!(md.contains("2.00 ms (datasheet)"), "{md}");
        assert!(md.contains("2.00 ms (n = 3)"), "{md}");
        assert!(md.contains("within 2×"), "{md}");
        // 1e8 bytes in 2 ms = 50 GB/s of 1500 measured.
        assert!(md.contains("50.0 GB/s = 3% of"), "{md}");
        // A card nobody ran: predicted from the measured machine, datasheet to datasheet (2000 → 4000): 1 ms.
        assert!(md.contains("Fast (not run here)") && md.contains("1.00 ms (datasheet)"), "{md}");
        assert!(dir.path().join("generations-w.svg").exists());
        let summary = pg.summary().unwrap();
        assert!(summary.contains("20.0×"), "40 ms on the paper's card over 2 ms: {summary}");

        // The same machine 10× slower than bandwidth predicts: the miss names a closer bound.
        let slow = machine("slow", "New GPU", &[("gpu_d2d", 1500.0)], &[("S4", 40.0)]);
        let machines = [slow];
        let pg = PaperGenerations { catalogue: &g, paper_id: "p", machines: &machines };
        let md = pg.render(dir.path()).unwrap();
        assert!(md.contains("misses by 20.0×"), "{md}");
        assert!(
            md.contains("GPU memory bandwidth alone does not account for it")
                && md.contains("launch and synchronisation latency (× 1.00) comes closest"),
            "{md}"
        );
    }

    #[test]
    fn predictions_between_measured_machines_are_tested_against_the_spread_at_one_commit() {
        let g = Generations::parse("g.toml", CATALOGUE).unwrap();
        let at = |mut m: MachineRecords, commit: &str| {
            m.rows.iter_mut().for_each(|r| r.set(col::GIT_COMMIT, commit));
            m
        };
        let a = || at(machine("a", "New GPU", &[("gpu_d2d", 1500.0)], &[("S4", 2.0), ("S4", 2.2), ("S4", 1.8)]), "c1");
        // Twice the bandwidth: predicted 1.8–2.2 ms × 1/2 = 0.90–1.10 ms.
        let tested = |b: MachineRecords| {
            let machines = [a(), b];
            let pg = PaperGenerations { catalogue: &g, paper_id: "p", machines: &machines };
            pg.tested(&g.papers["p"].workloads[0], &pg.sides())
        };
        let fast = |times: &[(&str, f64)], commit: &str| at(machine("b", "Fast GPU", &[("gpu_d2d", 3000.0)], times), commit);
        let md = tested(fast(&[("S4", 1.0), ("S4", 1.05), ("S4", 0.95)], "c1"));
        assert!(md.contains("| New GPU · CPU → Fast GPU · CPU | 1.00 ms | 1.00 ms (0.950 ms–1.05 ms, n = 3) | 1.00× | inside"), "{md}");
        assert!(md.contains("| Fast GPU · CPU → New GPU · CPU |"), "both ways: {md}");
        let md = tested(fast(&[("S4", 1.6), ("S4", 1.7), ("S4", 1.8)], "c1"));
        assert!(md.contains("1.70× | outside the run-to-run spread"), "{md}");
        let md = tested(fast(&[("S4", 1.0), ("S4", 1.05), ("S4", 0.95)], "c2"));
        assert!(md.contains("not a test of the hardware: the code differs (c1 → c2)") && !md.contains("inside"), "{md}");
        let md = tested(fast(&[("S4", 1.0)], "c1"));
        assert!(md.contains("no spread to test against: n = 3 and 1"), "{md}");
    }

    #[test]
    fn a_catalogue_naming_an_unknown_card_or_a_bad_column_is_refused_with_its_line() {
        let e = Generations::parse("g.toml", &CATALOGUE.replace("card = \"Old\"", "card = \"Nowhere\"")).unwrap_err().to_string();
        assert!(e.contains("g.toml:") && e.contains("`Nowhere`"), "{e}");
        let e = Generations::parse("g.toml", &CATALOGUE.replace("time = \"wall_ms\"", "time = \"wall\"")).unwrap_err().to_string();
        assert!(e.contains("g.toml:19:") && e.contains("must end in _ms or _s"), "{e}");
        let e = Generations::parse("g.toml", &CATALOGUE.replace("bound = \"gpu_bandwidth\"", "bound = \"vibes\"")).unwrap_err().to_string();
        assert!(e.contains("g.toml") && e.contains("vibes"), "{e}");
    }
}
