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
//! A model explains a result only when it predicts every matched point it uses
//! inside the claim's band (measured / predicted); every factor must be
//! measured here and known for the paper.

use crate::hardware::Quantity;
use crate::records::MachineRecords;
use crate::spec::PaperHardware;
use serde::Deserialize;
use std::collections::BTreeMap;

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
}

impl Factor {
    /// A point's own factor (Amdahl's gain, occupancy) here and in the paper's setting.
    pub fn of_point(quantity: Quantity, here: f64, paper: f64, source: impl Into<String>) -> Factor {
        Factor { quantity, here, paper, exponent: 1.0, source: source.into() }
    }

    fn ratio(&self) -> f64 {
        (self.here / self.paper).powf(self.exponent)
    }
}

impl std::fmt::Display for Factor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = if self.quantity.unit().is_empty() { String::new() } else { format!(" {}", self.quantity.unit()) };
        let power = if self.exponent == 1.0 { String::new() } else { format!(" (power {})", crate::fmt::fmt_num(self.exponent)) };
        write!(
            f,
            "{} {}{unit} here against {}{unit} ({}){power}",
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
/// the measured ratio to the paper there and the point's own factors.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    pub measured: f64,
    pub factors: Vec<Factor>,
}

impl Point {
    pub fn new(label: impl Into<String>, measured: f64) -> Point {
        Point { label: label.into(), measured, factors: Vec::new() }
    }

    pub fn with(mut self, factor: Factor) -> Point {
        self.factors.push(factor);
        self
    }
}

/// A point's prediction: the model's product over the machine's factors and its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Predicted {
    pub label: String,
    pub measured: f64,
    pub predicted: f64,
    pub factors: Vec<Factor>,
}

/// A computed explanation: the machine's factors, each point's prediction and
/// the direction of the measured result from the paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub factors: Vec<Factor>,
    pub points: Vec<Predicted>,
    pub direction: super::Direction,
}

impl Explanation {
    /// The first point's prediction (the only one for a single ratio).
    pub fn predicted(&self) -> f64 {
        self.points.first().map_or(f64::NAN, |p| p.predicted)
    }
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::fmt::fmt_ratio;
        let factors: Vec<String> = self.factors.iter().map(|x| x.to_string()).collect();
        write!(f, "{}", factors.join(", "))?;
        match self.points.as_slice() {
            [p] if p.factors.is_empty() => {
                write!(f, " predicts {} the paper's result; measured {}", fmt_ratio(p.predicted), fmt_ratio(p.measured))
            }
            points => {
                let each: Vec<String> = points
                    .iter()
                    .map(|p| {
                        let own: Vec<String> = p.factors.iter().map(|x| x.to_string()).collect();
                        let own = if own.is_empty() { String::new() } else { format!(", with {}", own.join(", ")) };
                        format!("{}: predicted {}, measured {}{own}", p.label, fmt_ratio(p.predicted), fmt_ratio(p.measured))
                    })
                    .collect();
                write!(f, " predict each of {} points: {}", points.len(), each.join("; "))
            }
        }
    }
}

impl Model {
    /// Quantities the model names that the paper's spec must give (a point's own are supplied by the check).
    pub fn quantities(&self) -> impl Iterator<Item = Quantity> + '_ {
        self.0.keys().copied().filter(|q| !q.of_point())
    }

    /// The machine's factors of the prediction (this machine against the paper's), or what is missing.
    pub fn machine_factors(&self, m: &MachineRecords, paper: &PaperHardware) -> Result<Vec<Factor>, String> {
        let mut factors = Vec::new();
        for (&q, &exponent) in self.0.iter().filter(|(q, _)| !q.of_point()) {
            let here = q.here(m).ok_or_else(|| format!("no hardware prediction: {} not measured on this machine", q.label()))?;
            let sheet =
                paper.datasheet.get(&q).ok_or_else(|| format!("no hardware prediction: the spec gives no {} for the paper", q.label()))?;
            factors.push(Factor { quantity: q, here, paper: sheet.value, exponent, source: sheet.source.clone() });
        }
        Ok(factors)
    }

    /// The machine's prediction alone (a model of machine quantities only): the
    /// product of its factors' ratios, and the factors.
    pub fn predict_machine(&self, m: &MachineRecords, paper: &PaperHardware) -> Result<(f64, Vec<Factor>), String> {
        let factors = self.machine_factors(m, paper)?;
        Ok((factors.iter().map(Factor::ratio).product(), factors))
    }

    /// The predicted ratio at one point: the machine's factors times the point's own.
    fn predict(&self, machine: &[Factor], point: &Point) -> Result<Predicted, String> {
        let mut own = Vec::new();
        for (&q, &exponent) in self.0.iter().filter(|(q, _)| q.of_point()) {
            let f = point
                .factors
                .iter()
                .find(|f| f.quantity == q)
                .ok_or_else(|| format!("no hardware prediction: the check gives no {} at {}", q.label(), point.label))?;
            own.push(Factor { exponent, ..f.clone() });
        }
        let predicted = machine.iter().chain(&own).map(Factor::ratio).product();
        Ok(Predicted { label: point.label.clone(), measured: point.measured, predicted, factors: own })
    }

    /// An explanation of a result outside the band, or why there is none: the
    /// model must predict every point inside `band` (measured / predicted).
    pub fn explain(
        &self,
        points: &[Point],
        band: &super::Band,
        direction: super::Direction,
        m: &MachineRecords,
        paper: &PaperHardware,
    ) -> Result<Explanation, String> {
        let factors = self.machine_factors(m, paper)?;
        let predicted: Vec<Predicted> = points.iter().map(|p| self.predict(&factors, p)).collect::<Result<_, _>>()?;
        let e = Explanation { factors, points: predicted, direction };
        let missed: Vec<&Predicted> = e.points.iter().filter(|p| !band.contains(p.measured / p.predicted)).collect();
        if missed.is_empty() && !e.points.is_empty() {
            return Ok(e);
        }
        let worst = missed.iter().map(|p| (p.measured / p.predicted).max(p.predicted / p.measured)).fold(1.0, f64::max);
        Err(format!(
            "the hardware model ({e}) misses {} of {} points outside the band {band}× (by up to {})",
            missed.len(),
            e.points.len(),
            crate::fmt::fmt_ratio(worst)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::claims::{Band, Direction};

    const BAND: Band = Band { low: 0.5, high: 2.0 };

    #[test]
    fn predictions_multiply_the_ratios_of_every_factor() {
        let m = testing::machine(&[("gpu_d2d", 3000.0), ("cpu_clock", 3.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("cpu_clock", -1.0)]);
        // (3000 / 100) / (3.0 / 2.0) = 20
        let e = model.explain(&[Point::new("x", 25.0)], &BAND, Direction::Exceeds, &m, &hw).unwrap();
        assert!((e.predicted() - 20.0).abs() < 1e-9 && e.factors.len() == 2);
        assert!(e.to_string().contains("predicts 20.0× the paper's result; measured 25.0×"), "{e}");
        let why = model.explain(&[Point::new("x", 100.0)], &BAND, Direction::Exceeds, &m, &hw).unwrap_err();
        assert!(why.contains("misses 1 of 1 points") && why.contains("by up to 5.00×"), "{why}");
        let missing = testing::model(&[("gpu_int32", 1.0)]).explain(&[Point::new("x", 1.0)], &BAND, Direction::Exceeds, &m, &hw);
        assert!(missing.unwrap_err().contains("GPU int32 rate not measured on this machine"));
        let unknown =
            testing::model(&[("gpu_sms", 1.0)]).explain(&[Point::new("x", 1.0)], &BAND, Direction::Exceeds, &testing::machine(&[]), &hw);
        assert!(unknown.unwrap_err().contains("not measured"));
    }

    #[test]
    fn a_model_explains_only_when_it_predicts_every_matched_point() {
        let m = testing::machine(&[("gpu_d2d", 3000.0), ("cpu_clock", 2.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("cpu_clock", -1.0)]);
        // Predicts 30× at every point: 25× and 40× lie inside 0.5–2× of it, 8× does not.
        let good = [Point::new("kdd, 1 window", 25.0), Point::new("adu, 1 window", 40.0)];
        assert!(model.explain(&good, &BAND, Direction::Exceeds, &m, &hw).is_ok());
        let bad = [Point::new("kdd, 1 window", 25.0), Point::new("pen, 1 window", 8.0)];
        let why = model.explain(&bad, &BAND, Direction::Exceeds, &m, &hw).unwrap_err();
        assert!(why.contains("misses 1 of 2 points") && why.contains("pen, 1 window: predicted 30.0×, measured 8.00×"), "{why}");
    }

    #[test]
    fn a_points_own_factors_join_the_machines() {
        let m = testing::machine(&[("gpu_int32", 5000.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_int32", 1.0), ("occupancy", 1.0)]);
        assert_eq!(model.quantities().collect::<Vec<_>>(), vec![Quantity::GpuInt32], "a point's quantity needs no datasheet value");
        // 10× the int32 rate, an eighth of the paper's occupancy: 1.25×.
        let p = Point::new("one island of 128", 1.3).with(Factor::of_point(
            Quantity::Occupancy,
            0.125,
            1.0,
            "3.9 of 64 warps here, 32 of 48 there",
        ));
        let e = model.explain(&[p], &BAND, Direction::FallsShort, &m, &hw).unwrap();
        assert!((e.predicted() - 1.25).abs() < 1e-9, "{e}");
        let without = model.explain(&[Point::new("one island", 1.3)], &BAND, Direction::FallsShort, &m, &hw).unwrap_err();
        assert!(without.contains("the check gives no occupancy"), "{without}");
        assert!((amdahl(0.74, 2.0) - 1.0 / 0.63).abs() < 1e-9);
    }
}
