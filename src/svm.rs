//! Linear-SVM decision regions over (population, dimension), as the layout
//! paper draws them (Section 4, Figures 1–6): the winning strategy of each
//! size is a class; classes are ordered by problem size, and each pair of
//! consecutive classes gets its own binary linear SVM (the paper's footnote 7:
//! "two simple and consecutive binary classifications"). Features are
//! population and dimension as they are, or their log10 ([`Features`]).

use linfa::prelude::*;
use linfa_svm::Svm;
use ndarray::{Array1, Array2};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// One labelled size.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub pop: f64,
    pub dim: f64,
    pub class: String,
}

/// The plane the SVMs separate sizes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Features {
    /// Population and dimension as they are (a straight boundary on linear axes).
    Linear,
    /// log10(population) and log10(dimension) (a straight boundary on log axes).
    Log10,
}

impl Features {
    pub fn of(self, v: f64) -> f64 {
        match self {
            Features::Linear => v,
            Features::Log10 => v.log10(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Features::Linear => "population and dimension",
            Features::Log10 => "log₁₀ population and log₁₀ dimension",
        }
    }
}

/// A fitted boundary between two consecutive classes:
/// `w0·φ(pop) + w1·φ(dim) − rho = 0` with φ the [`Features`], positive side = `upper`.
#[derive(Clone, Debug)]
pub struct Boundary {
    pub lower: String,
    pub upper: String,
    pub features: Features,
    pub w: [f64; 2],
    pub rho: f64,
    /// Support vectors of each side, as (pop, dim): the points on or inside the
    /// margin (see [`MARGIN_TOLERANCE`]).
    pub support_lower: Vec<(f64, f64)>,
    pub support_upper: Vec<(f64, f64)>,
    /// Training points of the pair on the wrong side.
    pub misclassified: usize,
}

impl Boundary {
    pub fn decision(&self, pop: f64, dim: f64) -> f64 {
        self.w[0] * self.features.of(pop) + self.w[1] * self.features.of(dim) - self.rho
    }
}

/// A point whose functional margin y·f is within this of 1 lies on the margin
/// and is a support vector, whatever the solver's multiplier: where several
/// points lie on the margin (a regular grid, Table 1's sizes) the multipliers
/// are one choice among equally valid ones, and the margin is not.
pub const MARGIN_TOLERANCE: f64 = 1e-3;

/// Classes in order of the geometric-mean problem size (pop·dim) of their points.
pub fn class_order(points: &[Point]) -> Vec<String> {
    let mut classes: Vec<(String, f64)> = Vec::new();
    for c in points.iter().map(|p| &p.class) {
        if classes.iter().all(|(k, _)| k != c) {
            let members: Vec<f64> = points.iter().filter(|p| &p.class == c).map(|p| (p.pop * p.dim).log10()).collect();
            classes.push((c.clone(), members.iter().sum::<f64>() / members.len() as f64));
        }
    }
    classes.sort_by(|a, b| a.1.total_cmp(&b.1));
    classes.into_iter().map(|(c, _)| c).collect()
}

/// Fits one linear SVM per consecutive pair of classes on log10 features, with cost `c`.
pub fn fit_regions(points: &[Point], c: f64) -> Result<Vec<Boundary>, String> {
    fit_regions_in(points, c, Features::Log10)
}

/// Fits one linear SVM per consecutive pair of classes in `features`, with cost `c`.
/// A fit is deterministic, so each is made once per process: a report, its claims
/// and the side-by-side page ask for the same regions.
pub fn fit_regions_in(points: &[Point], c: f64, features: Features) -> Result<Vec<Boundary>, String> {
    type Key = (Vec<(u64, u64, String)>, u64, Features);
    type Fits = Mutex<HashMap<Key, Result<Vec<Boundary>, String>>>;
    static FITS: OnceLock<Fits> = OnceLock::new();
    let key = (points.iter().map(|p| (p.pop.to_bits(), p.dim.to_bits(), p.class.clone())).collect(), c.to_bits(), features);
    let fits = FITS.get_or_init(Default::default);
    if let Some(fit) = fits.lock().expect("no fit panicked holding the lock").get(&key) {
        return fit.clone();
    }
    let fit = fit_uncached(points, c, features);
    fits.lock().expect("no fit panicked holding the lock").insert(key, fit.clone());
    fit
}

fn fit_uncached(points: &[Point], c: f64, features: Features) -> Result<Vec<Boundary>, String> {
    let order = class_order(points);
    let mut out = Vec::new();
    for pair in order.windows(2) {
        let (lo, hi) = (&pair[0], &pair[1]);
        let members: Vec<&Point> = points.iter().filter(|p| &p.class == lo || &p.class == hi).collect();
        let mut x = Array2::<f64>::zeros((members.len(), 2));
        let mut y = Array1::<bool>::from_elem(members.len(), false);
        for (i, p) in members.iter().enumerate() {
            x[[i, 0]] = features.of(p.pop);
            x[[i, 1]] = features.of(p.dim);
            y[i] = &p.class == hi;
        }
        let data = Dataset::new(x.clone(), y.clone());
        let model: Svm<f64, bool> =
            Svm::<f64, bool>::params().pos_neg_weights(c, c).linear_kernel().fit(&data).map_err(|e| format!("SVM {lo} vs {hi}: {e}"))?;
        let w = [model.weighted_sum(&ndarray::arr1(&[1.0, 0.0])), model.weighted_sum(&ndarray::arr1(&[0.0, 1.0]))];
        let mut b = Boundary {
            lower: lo.clone(),
            upper: hi.clone(),
            features,
            w,
            rho: model.rho,
            support_lower: vec![],
            support_upper: vec![],
            misclassified: 0,
        };
        for (i, p) in members.iter().enumerate() {
            let d = b.decision(p.pop, p.dim);
            if model.alpha[i].abs() > 1e-8 || (if y[i] { d } else { -d }) <= 1.0 + MARGIN_TOLERANCE {
                let side = if y[i] { &mut b.support_upper } else { &mut b.support_lower };
                side.push((p.pop, p.dim));
            }
            if (d >= 0.0) != y[i] {
                b.misclassified += 1;
            }
        }
        out.push(b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(classify: impl Fn(f64, f64) -> &'static str) -> Vec<Point> {
        let sizes = [10.0, 20.0, 40.0, 100.0, 200.0, 400.0, 1000.0, 2000.0, 4000.0];
        let mut v = vec![];
        for &p in &sizes {
            for &d in &sizes {
                v.push(Point { pop: p, dim: d, class: classify(p, d).into() });
            }
        }
        v
    }

    #[test]
    fn separable_two_class_grid_is_split_where_it_should_be() {
        let pts = grid(|p, d| if p * d <= 1e5 { "sequential" } else { "S4" });
        assert_eq!(class_order(&pts), vec!["sequential", "S4"]);
        let b = fit_regions(&pts, 100.0).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].misclassified, 0);
        assert!(b[0].decision(10.0, 10.0) < 0.0 && b[0].decision(4000.0, 4000.0) > 0.0);
        // The boundary is the anti-diagonal pop·dim = const: equal weights.
        assert!((b[0].w[0] - b[0].w[1]).abs() < 0.05 * b[0].w[0].abs(), "{:?}", b[0].w);
        assert!(!b[0].support_lower.is_empty() && !b[0].support_upper.is_empty());
        // Support vectors sit next to the boundary.
        for &(p, d) in b[0].support_lower.iter().chain(&b[0].support_upper) {
            assert!((4e4..=4e5).contains(&(p * d)), "{p}x{d}");
        }
    }

    #[test]
    fn three_classes_give_two_consecutive_boundaries() {
        let pts = grid(|p, d| {
            if p * d <= 400.0 {
                "sequential"
            } else if p * d <= 1e5 {
                "S3"
            } else {
                "S4"
            }
        });
        let b = fit_regions(&pts, 100.0).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].lower.as_str(), b[0].upper.as_str()), ("sequential", "S3"));
        assert_eq!((b[1].lower.as_str(), b[1].upper.as_str()), ("S3", "S4"));
    }
}
