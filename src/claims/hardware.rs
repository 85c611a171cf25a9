//! Explanations by hardware: a quantity measured on this machine set against
//! the paper's hardware (datasheet values with their source, in the spec's
//! `[paper.hardware.datasheet]`), combined by a claim's [`Model`] into a
//! predicted ratio of this machine's result to the paper's.
//!
//! A model is the claim's statement of what bounds the workload, written in the
//! spec before the comparison (e.g. `model = { gpu_bandwidth = 1.0 }`: a speedup
//! that scales with device bandwidth; `{ gpu_int32 = 1.0, cpu_clock = -1.0 }`: a
//! GPU/CPU ratio that scales with the GPU's integer rate over one core's clock).
//! Two quantities belong to a point rather than a machine: a phase's share of
//! the run ([`Quantity::Amdahl`]: the whole run's gain Amdahl's law predicts
//! from it) and the GPU's occupancy ([`Quantity::Occupancy`]: resident warps per
//! SM over the card's maximum); the check supplies them per [`Point`].
//!
//! A model predicts the ratio at every matched point a result rests on
//! ([`Model::predict`]); [`super::judge::explained`] decides whether the predictions
//! explain it (each point's measured interval over its prediction wholly inside
//! the claim's band) or leave it undecided, with the runs that would clear it.
//! Every factor must be measured here and known for the paper: a model that
//! cannot predict explains nothing, and the result stays decided against the
//! paper. A measured ceiling (bandwidth, int32 rate, a core's clock) comes from
//! the runs whose records the point rests on
//! ([`Point::in_runs`]): the same kind of machine measures a core's clock at
//! 2.6 GHz in one run and 3.1 in another, and a point must not borrow its
//! prediction from a run it does not judge.

use super::estimate::Estimate;
use crate::hardware::Quantity;
use crate::records::MachineRecords;
use crate::spec::PaperHardware;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// How a claim's result scales with the hardware: quantity → exponent.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct Model(pub BTreeMap<Quantity, f64>);

/// One factor of a prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct Factor {
    pub quantity: Quantity,
    pub here: f64,
    pub paper: f64,
    pub exponent: f64,
    pub source: String,
    /// The runs whose measurements give `here` (their mean); 0 for a quantity of the fingerprint or of a point.
    pub runs: usize,
    /// `here / paper` with its interval, where the check computed both from
    /// runs' means ([`Factor::with_interval`]); None: exact (a fingerprint
    /// value, or a ceiling: one number of its repetitions, a median or, for a
    /// core's clock, the fastest, recorded without their spread).
    pub interval: Option<Estimate>,
}

impl Factor {
    /// A point's own factor (Amdahl's gain, occupancy) here and in the paper's setting.
    pub fn of_point(quantity: Quantity, here: f64, paper: f64, source: impl Into<String>) -> Factor {
        Factor { quantity, here, paper, exponent: 1.0, source: source.into(), runs: 0, interval: None }
    }

    /// The factor with the interval of its ratio `here / paper`, computed from the runs it rests on.
    pub fn with_interval(self, ratio: Estimate) -> Factor {
        Factor { interval: Some(ratio), ..self }
    }

    /// The same quantity and value (a factor every point shares).
    fn same(&self, other: &Factor) -> bool {
        self.quantity == other.quantity && self.here == other.here && self.exponent == other.exponent
    }

    fn ratio(&self) -> Estimate {
        match self.interval {
            Some(r) => r.powf(self.exponent),
            None => Estimate::exact((self.here / self.paper).powf(self.exponent)),
        }
    }
}

impl std::fmt::Display for Factor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = if self.quantity.unit().is_empty() { String::new() } else { format!(" {}", self.quantity.unit()) };
        let power = if self.exponent == 1.0 { String::new() } else { format!(" (power {})", crate::fmt::fmt_num(self.exponent)) };
        let by = match self.runs {
            0 => String::new(),
            1 => " (its run)".to_owned(),
            n => format!(" (mean of its {n} runs)"),
        };
        write!(
            f,
            "{} {}{unit} here{by} against {}{unit} ({}){power}",
            self.quantity.label(),
            crate::fmt::fmt_sig(self.here),
            crate::fmt::fmt_sig(self.paper),
            self.source
        )
    }
}

/// Whole-run gain by Amdahl's law when a phase of share `share` runs `speedup` times faster.
pub fn amdahl(share: f64, speedup: f64) -> f64 {
    1.0 / ((1.0 - share) + share / speedup)
}

/// A matched point a ratio rests on (same set, windows, size as the paper's):
/// the measured ratio to the paper there with its interval, the point's own
/// factors and the runs (`run_id`) whose records measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    pub measured: Estimate,
    pub factors: Vec<Factor>,
    pub runs: BTreeSet<i64>,
}

impl Point {
    pub fn new(label: impl Into<String>, measured: Estimate) -> Point {
        Point { label: label.into(), measured, factors: Vec::new(), runs: BTreeSet::new() }
    }

    pub fn with(mut self, factor: Factor) -> Point {
        self.factors.push(factor);
        self
    }

    /// The runs whose records the point's measurement pools: a model's measured ceilings come from them.
    pub fn in_runs(mut self, runs: impl IntoIterator<Item = i64>) -> Point {
        self.runs.extend(runs);
        self
    }
}

/// A point's prediction: the model's product over the machine's factors and its
/// own, with its interval where a factor has one ([`Estimate::times`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Predicted {
    pub label: String,
    pub measured: Estimate,
    pub predicted: Estimate,
    pub factors: Vec<Factor>,
}

impl Predicted {
    /// The measured ratio over the prediction, both intervals combined
    /// ([`Estimate::over`]); None: no prediction above zero.
    pub fn over_prediction(&self) -> Option<Estimate> {
        (self.predicted.value > 0.0 && self.predicted.value.is_finite()).then(|| self.measured.over(self.predicted))
    }

    /// "predicted 0.77× [0.70×, 0.85×], measured 0.97× [0.86×, 1.10×]".
    pub fn text(&self) -> String {
        let (p, m) = (&self.predicted, &self.measured);
        format!(
            "predicted {}, measured {}",
            crate::fmt::fmt_ratio_interval(p.value, p.low, p.high),
            crate::fmt::fmt_ratio_interval(m.value, m.low, m.high)
        )
    }
}

/// A computed explanation: the machine's factors every point shares, each
/// point's prediction (with the factors of its own, and the machine's where its
/// runs measured them apart) and the direction of the measured result from the
/// paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub factors: Vec<Factor>,
    pub points: Vec<Predicted>,
    pub direction: super::Direction,
}

impl Explanation {
    /// The first point's prediction (the only one for a single ratio).
    pub fn predicted(&self) -> f64 {
        self.points.first().map_or(f64::NAN, |p| p.predicted.value)
    }
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::fmt::fmt_ratio_interval;
        let factors: Vec<String> = self.factors.iter().map(|x| x.to_string()).collect();
        // The subject: the machine's shared factors, or (none shared) the points' own.
        match (factors.is_empty(), self.points.len()) {
            (false, _) => write!(f, "{}", factors.join(", "))?,
            (true, 1) => write!(f, "the model")?,
            (true, _) => write!(f, "the points' own factors")?,
        }
        match self.points.as_slice() {
            [p] if p.factors.is_empty() => {
                let (p, m) = (&p.predicted, &p.measured);
                write!(
                    f,
                    " predicts {} the paper's result; measured {}",
                    fmt_ratio_interval(p.value, p.low, p.high),
                    fmt_ratio_interval(m.value, m.low, m.high)
                )
            }
            points => {
                let each: Vec<String> = points
                    .iter()
                    .map(|p| {
                        let own: Vec<String> = p.factors.iter().map(|x| x.to_string()).collect();
                        let own = if own.is_empty() { String::new() } else { format!(", with {}", own.join(", ")) };
                        format!("{}: {}{own}", p.label, p.text())
                    })
                    .collect();
                let which = if points.len() == 1 { "the one point".to_owned() } else { format!("each of {} points", points.len()) };
                write!(f, " predict {which}: {}", each.join("; "))
            }
        }
    }
}

impl Model {
    /// Quantities the model names that the paper's spec must give (a point's own are supplied by the check).
    pub fn quantities(&self) -> impl Iterator<Item = Quantity> + '_ {
        self.0.keys().copied().filter(|q| !q.of_point())
    }

    /// The machine's factors of the prediction (this machine against the paper's)
    /// as the runs `runs` measured them, or what is missing.
    fn machine_factors(&self, m: &MachineRecords, paper: &PaperHardware, runs: &BTreeSet<i64>) -> Result<Vec<Factor>, String> {
        let mut factors = Vec::new();
        for (&q, &exponent) in self.0.iter().filter(|(q, _)| !q.of_point()) {
            let (here, by) = q.in_runs(m, runs).ok_or_else(|| match (q.ceiling(), runs.len()) {
                (None, _) => format!("no hardware prediction: {} not known on this machine", q.label()),
                (Some(_), 0) => format!("no hardware prediction: {} is measured by a run, and the point names none", q.label()),
                (Some(_), 1) => format!("no hardware prediction: {} not measured by the run judged", q.label()),
                (Some(_), n) => format!("no hardware prediction: {} not measured by any of the {n} runs judged", q.label()),
            })?;
            let sheet =
                paper.datasheet.get(&q).ok_or_else(|| format!("no hardware prediction: the spec gives no {} for the paper", q.label()))?;
            factors.push(Factor {
                quantity: q,
                here,
                paper: sheet.value,
                exponent,
                source: sheet.source.clone(),
                runs: by,
                interval: None,
            });
        }
        Ok(factors)
    }

    /// The machine's prediction alone (a model of the fingerprint's quantities
    /// only, which no run measures): the product of its factors' ratios, and the factors.
    pub fn predict_machine(&self, m: &MachineRecords, paper: &PaperHardware) -> Result<(f64, Vec<Factor>), String> {
        let factors = self.machine_factors(m, paper, &BTreeSet::new())?;
        Ok((factors.iter().map(|f| f.ratio().value).product(), factors))
    }

    /// The predicted ratio at one point: the machine's factors as its runs measured them, times the point's own.
    fn predict_point(&self, m: &MachineRecords, paper: &PaperHardware, point: &Point) -> Result<(Predicted, Vec<Factor>), String> {
        let machine = self.machine_factors(m, paper, &point.runs)?;
        let mut own = Vec::new();
        for (&q, &exponent) in self.0.iter().filter(|(q, _)| q.of_point()) {
            let f = point
                .factors
                .iter()
                .find(|f| f.quantity == q)
                .ok_or_else(|| format!("no hardware prediction: the check gives no {} at {}", q.label(), point.label))?;
            own.push(Factor { exponent, ..f.clone() });
        }
        let predicted = machine.iter().chain(&own).map(Factor::ratio).fold(Estimate::exact(1.0), Estimate::times);
        Ok((Predicted { label: point.label.clone(), measured: point.measured, predicted, factors: own }, machine))
    }

    /// The model's prediction at every one of `points` (a result measured in
    /// `direction` from the paper's), or why it predicts nothing: a factor not
    /// known here or for the paper, or no point. Whether the predictions
    /// explain the result is [`super::judge::explained`]'s to decide.
    pub fn predict(
        &self,
        points: &[Point],
        direction: super::Direction,
        m: &MachineRecords,
        paper: &PaperHardware,
    ) -> Result<Explanation, String> {
        let each: Vec<(Predicted, Vec<Factor>)> = points.iter().map(|p| self.predict_point(m, paper, p)).collect::<Result<_, _>>()?;
        // The machine's factors every point's runs measured alike are shown once; a point lists its others.
        let shared: Vec<Factor> = each
            .first()
            .map(|(_, first)| first.iter().filter(|f| each.iter().all(|(_, o)| o.iter().any(|g| g.same(f)))).cloned().collect())
            .unwrap_or_default();
        let predicted = each
            .into_iter()
            .map(|(mut p, machine)| {
                let apart: Vec<Factor> = machine.into_iter().filter(|f| !shared.iter().any(|s| s.same(f))).collect();
                p.factors.splice(0..0, apart);
                p
            })
            .collect();
        let e = Explanation { factors: shared, points: predicted, direction };
        if e.points.is_empty() {
            return Err(format!("the hardware model ({e}) has no point to predict"));
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::claims::Direction;
    use crate::records::{CPU_CLOCK_GHZ, Record, col};

    #[test]
    fn predictions_multiply_the_ratios_of_every_factor() {
        let m = testing::machine(&[("gpu_d2d", 3000.0), ("cpu_clock", 3.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("cpu_clock", -1.0)]);
        // (3000 / 100) / (3.0 / 2.0) = 20
        let e = model.predict(&[Point::new("x", Estimate::exact(25.0)).in_runs([1])], Direction::Exceeds, &m, &hw).unwrap();
        assert!((e.predicted() - 20.0).abs() < 1e-9 && e.factors.len() == 2);
        assert!(e.to_string().contains("predicts 20.0× the paper's result; measured 25.0×"), "{e}");
        let missing = testing::model(&[("gpu_int32", 1.0)]).predict(
            &[Point::new("x", Estimate::exact(1.0)).in_runs([1])],
            Direction::Exceeds,
            &m,
            &hw,
        );
        assert!(missing.unwrap_err().to_string().contains("GPU int32 rate not measured by the run judged"));
        let unknown = testing::model(&[("gpu_sms", 1.0)]).predict(
            &[Point::new("x", Estimate::exact(1.0)).in_runs([1])],
            Direction::Exceeds,
            &testing::machine(&[]),
            &hw,
        );
        assert!(unknown.unwrap_err().to_string().contains("GPU SMs not known on this machine"));
    }

    /// Each point reads the ceilings its own runs measured, never the machine's latest of another run.
    #[test]
    fn a_points_ceilings_come_from_its_own_runs() {
        let run = |id: u64, clock: f64| {
            Record::new().with(col::RECORD_KIND, "ceiling").with(col::CEILING, "cpu_clock").with(col::RUN_ID, id).with(CPU_CLOCK_GHZ, clock)
        };
        let mut m = testing::machine(&[("gpu_d2d", 3000.0)]);
        m.rows.extend([run(1, 2.0), run(2, 3.0), run(3, 6.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("cpu_clock", -1.0)]);
        // Run 1: 30 / (2 / 2) = 30×; runs 1 and 2 pooled: a clock of 2.5, 24×; run 3 (the latest) would predict 10×.
        let points = [Point::new("a", Estimate::exact(30.0)).in_runs([1]), Point::new("b", Estimate::exact(24.0)).in_runs([1, 2])];
        let e = model.predict(&points, Direction::Exceeds, &m, &hw).unwrap();
        assert!((e.points[0].predicted.value - 30.0).abs() < 1e-9 && (e.points[1].predicted.value - 24.0).abs() < 1e-9, "{e}");
        assert_eq!(e.factors.len(), 1, "the bandwidth, measured alike, is shared; each point names its clock: {e}");
        assert!(e.to_string().contains("one core's clock 2.50 GHz here (mean of its 2 runs)"), "{e}");
        let alone = model.predict(&[Point::new("c", Estimate::exact(30.0)).in_runs([1])], Direction::Exceeds, &m, &hw).unwrap();
        assert!(alone.to_string().contains("one core's clock 2.00 GHz here (its run)"), "{alone}");
        let unnamed = model.predict(&[Point::new("d", Estimate::exact(30.0))], Direction::Exceeds, &m, &hw).unwrap_err().to_string();
        assert!(unnamed.contains("measured by a run, and the point names none"), "{unnamed}");
        let elsewhere =
            model.predict(&[Point::new("e", Estimate::exact(30.0)).in_runs([7, 8])], Direction::Exceeds, &m, &hw).unwrap_err().to_string();
        assert!(elsewhere.contains("not measured by any of the 2 runs judged"), "{elsewhere}");
    }

    #[test]
    fn a_points_own_factors_join_the_machines() {
        let m = testing::machine(&[("gpu_int32", 5000.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_int32", 1.0), ("occupancy", 1.0)]);
        assert_eq!(model.quantities().collect::<Vec<_>>(), vec![Quantity::GpuInt32], "a point's quantity needs no datasheet value");
        // 10× the int32 rate, an eighth of the paper's occupancy: 1.25×.
        let p = Point::new("one island of 128", Estimate::exact(1.3)).in_runs([1]).with(Factor::of_point(
            Quantity::Occupancy,
            0.125,
            1.0,
            "3.9 of 64 warps here, 32 of 48 there",
        ));
        let e = model.predict(&[p], Direction::FallsShort, &m, &hw).unwrap();
        assert!((e.predicted() - 1.25).abs() < 1e-9, "{e}");
        let without = model
            .predict(&[Point::new("one island", Estimate::exact(1.3)).in_runs([1])], Direction::FallsShort, &m, &hw)
            .unwrap_err()
            .to_string();
        assert!(without.contains("the check gives no occupancy"), "{without}");
        assert!((amdahl(0.74, 2.0) - 1.0 / 0.63).abs() < 1e-9);
    }
}
