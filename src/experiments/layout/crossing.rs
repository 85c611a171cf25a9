//! Where the GPU overtakes sequential evaluation (Sections 4.1–4.3): the
//! number of coordinates at which the sequential time over the best GPU
//! strategy's reaches 1, interpolated on the log scale (ln ratio linear in ln
//! coordinates) between the two sizes that bracket the crossing.
//!
//! Sizes of as many coordinates (1000×1000, 500×2000, 2000×500) are one point
//! of the curve, their times summed. The best GPU strategy at a size is the one
//! of S1–S4 with the lowest mean there. Try k of every strategy at every size
//! is one replicate of the curve, and each replicate's crossing one sample: the
//! crossover carries the tries' spread (the 95% interval of its mean), and two
//! functions' crossovers compare by Welch's interval ([`judge::order`]).

use super::analysis::Analysis;
use super::spec::{GPU_CLASSES, Size};
use crate::claims::Estimate;
use crate::claims::estimate::Spread;
use crate::claims::judge::{self, Comparison, Finding};
use crate::fmt::fmt_num;
use crate::library::nonseparable::Function;

/// Where a function's curve reaches 1 over some sizes.
#[derive(Clone, Debug, PartialEq)]
pub enum Crossing {
    /// A GPU strategy is as fast already at the smallest size (its coordinates), in every one of n tries.
    Below(f64, usize),
    /// Each try's crossing (coordinates), and the sizes that bracket the curve of means' crossing.
    Inside { tries: Vec<f64>, between: (f64, f64) },
    /// Sequential is still faster at the largest size (its coordinates), in every one of n tries.
    Above(f64, usize),
    /// The tries disagree on which side of the sizes measured it lies.
    Split { below: usize, inside: usize, above: usize },
    /// Fewer than two sizes with sequential and a GPU strategy timed.
    Unknown,
}

/// Where one curve, (coordinates, ratio) by increasing coordinates, first reaches 1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Below,
    /// The interpolated coordinates and the index of the first point at or above 1.
    At(f64, usize),
    Above,
}

fn first_crossing(curve: &[(f64, f64)]) -> Side {
    match curve.iter().position(|&(_, r)| r >= 1.0) {
        None => Side::Above,
        Some(0) => Side::Below,
        Some(k) => {
            let ((e0, r0), (e1, r1)) = (curve[k - 1], curve[k]);
            let t = -r0.ln() / (r1.ln() - r0.ln());
            Side::At((e0.ln() + t * (e1.ln() - e0.ln())).exp(), k)
        }
    }
}

/// Sequential and best-GPU times summed over the sizes of one number of coordinates, try by try.
struct Sums {
    elements: f64,
    seq: Vec<f64>,
    gpu: Vec<f64>,
    /// Tries every size summed here has.
    n: usize,
}

impl Sums {
    fn ratio(&self, k: usize) -> f64 {
        self.seq[k] / self.gpu[k]
    }

    fn mean_ratio(&self) -> f64 {
        self.seq.iter().sum::<f64>() / self.gpu.iter().sum::<f64>()
    }
}

impl Crossing {
    /// The crossing of `f` over `sizes`; sizes without sequential and a GPU strategy timed are left out.
    pub fn of(a: &Analysis, f: Function, sizes: &[Size]) -> Crossing {
        let mut points: Vec<Sums> = Vec::new();
        for &s in sizes {
            let Some(seq) = a.timed(f, s, "sequential") else { continue };
            let best = GPU_CLASSES.iter().filter_map(|c| a.timed(f, s, c)).min_by(|x, y| x.summary.mean.total_cmp(&y.summary.mean));
            let Some(gpu) = best else { continue };
            let elements = (s.0 * s.1) as f64;
            let n = seq.walls.len().min(gpu.walls.len());
            match points.iter_mut().find(|p| p.elements == elements) {
                Some(p) => {
                    p.seq.iter_mut().zip(&seq.walls).for_each(|(x, y)| *x += y);
                    p.gpu.iter_mut().zip(&gpu.walls).for_each(|(x, y)| *x += y);
                    p.n = p.n.min(n);
                }
                None => points.push(Sums { elements, seq: seq.walls.clone(), gpu: gpu.walls.clone(), n }),
            }
        }
        let n = points.iter().map(|p| p.n).min().unwrap_or(0);
        if points.len() < 2 || n == 0 {
            return Crossing::Unknown;
        }
        points.sort_by(|x, y| x.elements.total_cmp(&y.elements));
        let (first, last) = (points[0].elements, points[points.len() - 1].elements);
        let sides: Vec<Side> =
            (0..n).map(|k| first_crossing(&points.iter().map(|p| (p.elements, p.ratio(k))).collect::<Vec<_>>())).collect();
        let count = |want: fn(&Side) -> bool| sides.iter().filter(|s| want(s)).count();
        let (below, above) = (count(|s| *s == Side::Below), count(|s| *s == Side::Above));
        let tries: Vec<f64> = sides.iter().filter_map(|s| if let Side::At(x, _) = s { Some(*x) } else { None }).collect();
        match (below, tries.len(), above) {
            (b, 0, 0) if b == n => Crossing::Below(first, n),
            (0, 0, a) if a == n => Crossing::Above(last, n),
            (0, _, 0) => {
                let means: Vec<(f64, f64)> = points.iter().map(|p| (p.elements, p.mean_ratio())).collect();
                let between = match first_crossing(&means) {
                    Side::At(_, k) => (means[k - 1].0, means[k].0),
                    _ => (first, last),
                };
                Crossing::Inside { tries, between }
            }
            (below, inside, above) => Crossing::Split { below, inside, above },
        }
    }

    /// The crossover as an estimate: the mean of the tries' crossings with its
    /// 95% interval; a crossing outside the sizes measured is bounded by them
    /// (no more tries at these sizes would place it); None when the tries disagree.
    pub fn estimate(&self) -> Option<Estimate> {
        match *self {
            Crossing::Inside { ref tries, .. } => Estimate::mean_of(tries),
            Crossing::Below(e, n) => Some(Estimate { value: e, low: 0.0, high: e, n, spread: Spread::Exact }),
            Crossing::Above(e, n) => Some(Estimate { value: e, low: e, high: f64::INFINITY, n, spread: Spread::Exact }),
            Crossing::Split { .. } | Crossing::Unknown => None,
        }
    }

    /// Tries behind it.
    pub fn n(&self) -> usize {
        match self {
            Crossing::Inside { tries, .. } => tries.len(),
            Crossing::Below(_, n) | Crossing::Above(_, n) => *n,
            Crossing::Split { below, inside, above } => below + inside + above,
            Crossing::Unknown => 0,
        }
    }

    /// Below, inside, above the sizes measured (a crossing outside them is known only by side).
    fn rank(&self) -> Option<f64> {
        match self {
            Crossing::Below(..) => Some(0.0),
            Crossing::Inside { .. } => Some(1.0),
            Crossing::Above(..) => Some(2.0),
            Crossing::Split { .. } | Crossing::Unknown => None,
        }
    }

    /// "1.27·10⁶ [1.25·10⁶, 1.29·10⁶] coordinates (n = 20), between 10⁶ and 2.25·10⁶".
    pub fn describe(&self) -> String {
        match self {
            Crossing::Inside { between, .. } => format!(
                "{} coordinates, between {} and {}",
                self.estimate().map_or("—".into(), |e| e.to_string()),
                fmt_num(between.0),
                fmt_num(between.1)
            ),
            Crossing::Below(e, n) => {
                format!("below {} coordinates (a GPU strategy as fast at the smallest size in all {n} tries)", fmt_num(*e))
            }
            Crossing::Above(e, n) => format!("above {} coordinates (sequential faster at the largest size in all {n} tries)", fmt_num(*e)),
            Crossing::Split { below, inside, above } => {
                format!("tries disagree: {below} cross below the sizes measured, {inside} inside, {above} above")
            }
            Crossing::Unknown => "fewer than two sizes with sequential and a GPU strategy timed".into(),
        }
    }
}

/// `heavier`'s crossover lies below `lighter`'s: by Welch over the tries when
/// both cross inside the sizes measured, else by which side of them each lies.
pub fn earlier(heavier: &Crossing, lighter: &Crossing) -> Finding {
    if let (Crossing::Inside { tries: h, .. }, Crossing::Inside { tries: l, .. }) = (heavier, lighter) {
        return judge::order(h, l, Comparison::Less);
    }
    match (heavier.rank(), lighter.rank()) {
        (Some(h), Some(l)) => judge::order_exact(h, l, Comparison::Less),
        _ => Finding::undecided(None, "the tries disagree on where a crossover lies"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Fake;
    use super::*;

    #[test]
    fn the_crossing_is_interpolated_on_the_log_scale() {
        // ln ratio linear in ln coordinates: the crossing is exact.
        let curve = [(1e4, 0.1), (1e6, (1e6f64 / 2e6).sqrt()), (4e6, (4e6f64 / 2e6).sqrt())];
        let Side::At(x, 2) = first_crossing(&curve) else { panic!() };
        assert!((x - 2e6).abs() < 1.0, "{x}");
        assert_eq!(first_crossing(&[(1.0, 1.0), (2.0, 3.0)]), Side::Below);
        assert_eq!(first_crossing(&[(1.0, 0.5), (2.0, 0.9)]), Side::Above);
    }

    /// Sequential `ratio(coordinates)` times S4's at each size, the other strategies far slower.
    fn fake(ratio: impl Fn(f64) -> f64, sizes: &[Size]) -> Fake {
        let mut fake = Fake::new();
        for &s in sizes {
            let gpu = 1e-6 * (s.0 * s.1) as f64;
            let seq = gpu * ratio((s.0 * s.1) as f64);
            fake = fake.size("rosenbrock", s, &[("sequential", seq), ("S1", 3.0 * gpu), ("S2", 3.0 * gpu), ("S3", 3.0 * gpu), ("S4", gpu)]);
        }
        fake
    }

    #[test]
    fn sizes_of_as_many_coordinates_are_one_point_and_each_try_one_sample() {
        let sizes = [(100, 100), (1000, 1000), (500, 2000), (2000, 500), (1500, 1500)];
        // S4 takes 1 ms at 10⁶ coordinates; sequential 0.9, 0.8 and 1.0 ms at its three sizes, 1.2× S4 above.
        let fake = fake(
            |e| {
                if e < 1e5 {
                    0.1
                } else if e < 2e6 {
                    0.9
                } else {
                    1.2
                }
            },
            &sizes,
        )
        .walls("rosenbrock", (500, 2000), "sequential", &[0.8; 20])
        .walls("rosenbrock", (2000, 500), "sequential", &[1.0; 20]);
        let c = Crossing::of(&fake.analysis(), Function::Rosenbrock, &sizes);
        let Crossing::Inside { tries, between } = &c else { panic!("{c:?}") };
        assert_eq!((tries.len(), *between), (20, (1e6, 2.25e6)));
        // Summed: (0.9 + 0.8 + 1.0) / 3 = 0.9 at 10⁶.
        let expected = (1e6f64.ln() + 0.9f64.ln().abs() / (1.2f64.ln() - 0.9f64.ln()) * 2.25f64.ln()).exp();
        assert!((c.estimate().unwrap().value / expected - 1.0).abs() < 1e-2, "{c:?} against {expected}");
    }

    #[test]
    fn a_crossing_outside_the_sizes_is_bounded_by_them() {
        let sizes = [(100, 100), (1000, 1000)];
        let below = Crossing::of(&fake(|_| 2.0, &sizes).analysis(), Function::Rosenbrock, &sizes);
        assert_eq!(below, Crossing::Below(1e4, 20));
        let e = below.estimate().unwrap();
        assert_eq!((e.low, e.high), (0.0, 1e4));
        let above = Crossing::of(&fake(|_| 0.5, &sizes).analysis(), Function::Rosenbrock, &sizes);
        assert_eq!(above, Crossing::Above(1e6, 20));
        // The heavier below the sizes, the lighter inside them: earlier, whatever the tries.
        let inside = Crossing::of(&fake(|e| e / 1e5, &sizes).analysis(), Function::Rosenbrock, &sizes);
        assert!(matches!(inside, Crossing::Inside { .. }));
        assert_eq!(earlier(&below, &inside), Finding::Holds);
        assert!(earlier(&above, &inside).fails());
        assert!(matches!(earlier(&below, &below), Finding::Undecided { n_needed: None, .. }));
        assert_eq!(Crossing::of(&fake(|_| 2.0, &sizes[..1]).analysis(), Function::Rosenbrock, &sizes), Crossing::Unknown);
    }
}
