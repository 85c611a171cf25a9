//! The six non-separable benchmark functions of Cárdenas-Montes & Vega-Rodríguez,
//! "Effect of Data Layout in the Evaluation Time of Non-Separable Functions on GPU",
//! Section 3.1, equations (1)–(6), with the paper's sequential CPU evaluation
//! (Section 3.3), a multi-threaded CPU evaluation, and an f64 reference that
//! every other evaluator (the CUDA strategies of `kernels/layout.cu` included) is
//! checked against.
//!
//! Each function is a sum over windows of `W` consecutive coordinates,
//! `f(x) = Σ_{i=0}^{D−W} term(x_i … x_{i+W−1})`. Populations are stored
//! individual-major (`x[ind * dim + j]`), the paper's layout for S1–S3 and the
//! sequential code; [`transpose`] gives the dimension-major layout of S4.

use rayon::prelude::*;
use std::fmt;

/// One of the paper's six functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Function {
    /// Equation (1).
    Rosenbrock,
    /// Equation (2).
    Rana,
    /// Equation (3).
    F2Light,
    /// Equation (4).
    F2Heavy,
    /// Equation (5).
    F4Light,
    /// Equation (6).
    F4Heavy,
}

impl Function {
    /// All six, in the paper's figure order.
    pub const ALL: [Function; 6] =
        [Function::Rosenbrock, Function::F2Light, Function::F2Heavy, Function::F4Light, Function::F4Heavy, Function::Rana];

    /// The name used in specs, records and kernel names.
    pub fn name(self) -> &'static str {
        match self {
            Function::Rosenbrock => "rosenbrock",
            Function::Rana => "rana",
            Function::F2Light => "f2_light",
            Function::F2Heavy => "f2_heavy",
            Function::F4Light => "f4_light",
            Function::F4Heavy => "f4_heavy",
        }
    }

    /// Parses [`Function::name`].
    pub fn from_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Number of consecutive coordinates in one term.
    pub fn window(self) -> usize {
        match self {
            Function::F4Light | Function::F4Heavy => 4,
            _ => 2,
        }
    }

    /// Light functions move bytes; heavy ones (and Rana) compute.
    pub fn is_heavy(self) -> bool {
        matches!(self, Function::F2Heavy | Function::F4Heavy | Function::Rana)
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One term of a function, in f32 (as the paper and the kernels compute it) and
/// in f64 (the reference). The operations are those of `kernels/layout.cu`.
trait Term {
    const W: usize;
    fn t32(w: &[f32]) -> f32;
    fn t64(w: &[f64]) -> f64;
}

struct Rosenbrock;
struct Rana;
struct F2Light;
struct F2Heavy;
struct F4Light;
struct F4Heavy;

impl Term for Rosenbrock {
    const W: usize = 2;
    #[inline(always)]
    fn t32(w: &[f32]) -> f32 {
        let a = w[0] * w[0] - w[1];
        let b = w[0] - 1.0;
        100.0 * (a * a + b * b)
    }
    fn t64(w: &[f64]) -> f64 {
        let a = w[0] * w[0] - w[1];
        let b = w[0] - 1.0;
        100.0 * (a * a + b * b)
    }
}

impl Term for Rana {
    const W: usize = 2;
    #[inline(always)]
    fn t32(w: &[f32]) -> f32 {
        let (xi, xn) = (w[0], w[1]);
        let t1 = (xn + xi + 1.0).abs().sqrt();
        let t2 = (xn - xi + 1.0).abs().sqrt();
        (xn + 1.0) * t2.cos() * t1.sin() + t1.cos() * t2.sin() * xi
    }
    fn t64(w: &[f64]) -> f64 {
        let (xi, xn) = (w[0], w[1]);
        let t1 = (xn + xi + 1.0).abs().sqrt();
        let t2 = (xn - xi + 1.0).abs().sqrt();
        (xn + 1.0) * t2.cos() * t1.sin() + t1.cos() * t2.sin() * xi
    }
}

impl Term for F2Light {
    const W: usize = 2;
    #[inline(always)]
    fn t32(w: &[f32]) -> f32 {
        let s = w[0] + w[1];
        s * s
    }
    fn t64(w: &[f64]) -> f64 {
        let s = w[0] + w[1];
        s * s
    }
}

impl Term for F2Heavy {
    const W: usize = 2;
    #[inline(always)]
    fn t32(w: &[f32]) -> f32 {
        ((1.0 / w[0].sqrt()).ln() + (1.0 / w[1].sqrt()).ln()).sqrt().ln()
    }
    fn t64(w: &[f64]) -> f64 {
        ((1.0 / w[0].sqrt()).ln() + (1.0 / w[1].sqrt()).ln()).sqrt().ln()
    }
}

impl Term for F4Light {
    const W: usize = 4;
    #[inline(always)]
    fn t32(w: &[f32]) -> f32 {
        let s = w[0] + w[1] + w[2] + w[3];
        s * s
    }
    fn t64(w: &[f64]) -> f64 {
        let s = w[0] + w[1] + w[2] + w[3];
        s * s
    }
}

impl Term for F4Heavy {
    const W: usize = 4;
    #[inline(always)]
    fn t32(w: &[f32]) -> f32 {
        ((1.0 / w[0].sqrt()).ln() + (1.0 / w[1].sqrt()).ln() + (1.0 / w[2].sqrt()).ln() + (1.0 / w[3].sqrt()).ln()).sqrt().ln()
    }
    fn t64(w: &[f64]) -> f64 {
        ((1.0 / w[0].sqrt()).ln() + (1.0 / w[1].sqrt()).ln() + (1.0 / w[2].sqrt()).ln() + (1.0 / w[3].sqrt()).ln()).sqrt().ln()
    }
}

/// Consecutive terms of one individual summed side by side, each into its own
/// partial sum: a fixed-size array of lanes that the compiler turns into SIMD
/// arithmetic, with one unaligned vector load per window offset.
const LANES: usize = 8;

/// Individuals evaluated together, one from each quarter of the population. Their
/// rows are read as four interleaved memory streams, each running on through the
/// consecutive individuals of its quarter: this keeps one thread near its read
/// bandwidth on the light functions.
const ROWS: usize = 4;

/// Terms of one row taken before moving on to the next row of the group: short
/// enough to keep the four streams in step, and a loop of its own so that each
/// row's lanes vectorise without the other rows' arithmetic mixed in.
const SPAN: usize = 64;

/// Adds the terms of `x` (a whole number of `LANES` windows plus the `W − 1`
/// coordinates the last ones reach past them) into `acc`: lane `l` of chunk `c`
/// takes the window starting at `c · LANES + l`.
#[inline(always)]
fn lanes<T: Term>(x: &[f32], acc: &mut [f32; LANES]) {
    for c in 0..(x.len() + 1 - T::W) / LANES {
        let windows = x[c * LANES..c * LANES + LANES + T::W - 1].windows(T::W);
        for (a, w) in acc.iter_mut().zip(windows) {
            *a += T::t32(w);
        }
    }
}

/// f32 fitness of the `R` individuals `x` (all of one length), the inner loop of
/// the paper's sequential evaluation (Section 3.3): `SPAN` terms of each row in
/// turn, into that row's `LANES` partial sums, then the last `terms % LANES`
/// terms one by one. A row's result depends on that row alone, the same for any `R`.
#[inline(always)]
fn individuals<T: Term, const R: usize>(x: [&[f32]; R]) -> [f32; R] {
    let terms = (x[0].len() + 1).saturating_sub(T::W);
    let full = terms / LANES * LANES;
    let mut acc = [[0.0f32; LANES]; R];
    for start in (0..full).step_by(SPAN) {
        let end = (start + SPAN).min(full);
        for (a, row) in acc.iter_mut().zip(x) {
            lanes::<T>(&row[start..end + T::W - 1], a);
        }
    }
    std::array::from_fn(|r| acc[r].iter().sum::<f32>() + (full..terms).map(|i| T::t32(&x[r][i..i + T::W])).sum::<f32>())
}

/// The paper's sequential evaluation (Section 3.3) of an individual-major block:
/// individuals `i`, `q + i`, `2q + i` and `3q + i` together for `i < q = pop / ROWS`,
/// then the remaining `pop % ROWS` one by one.
fn sequential_impl<T: Term>(x: &[f32], dim: usize, out: &mut [f32]) {
    let q = out.len() / ROWS;
    for i in 0..q {
        let values = individuals::<T, ROWS>(std::array::from_fn(|r| &x[(r * q + i) * dim..][..dim]));
        for (r, v) in values.into_iter().enumerate() {
            out[r * q + i] = v;
        }
    }
    for (o, ind) in out[ROWS * q..].iter_mut().zip(x[ROWS * q * dim..].chunks_exact(dim)) {
        *o = individuals::<T, 1>([ind])[0];
    }
}

/// The sequential code on blocks of at least 64 individuals and about 4096
/// coordinates, one per rayon task.
fn parallel_impl<T: Term>(x: &[f32], dim: usize, out: &mut [f32]) {
    let n = ROWS * 16.max(1024 / dim.max(1));
    out.par_chunks_mut(n).zip(x.par_chunks(n * dim)).for_each(|(o, x)| sequential_impl::<T>(x, dim, o));
}

macro_rules! dispatch {
    ($f:expr, $impl:ident, $($arg:expr),*) => {
        match $f {
            Function::Rosenbrock => $impl::<Rosenbrock>($($arg),*),
            Function::Rana => $impl::<Rana>($($arg),*),
            Function::F2Light => $impl::<F2Light>($($arg),*),
            Function::F2Heavy => $impl::<F2Heavy>($($arg),*),
            Function::F4Light => $impl::<F4Light>($($arg),*),
            Function::F4Heavy => $impl::<F4Heavy>($($arg),*),
        }
    };
}

/// The paper's sequential evaluation (Section 3.3): one CPU thread, f32.
/// `x` is individual-major, `out` has one entry per individual.
pub fn evaluate_sequential(f: Function, x: &[f32], dim: usize, out: &mut [f32]) {
    assert_eq!(x.len(), out.len() * dim, "population shape");
    dispatch!(f, sequential_impl, x, dim, out)
}

/// The same evaluation spread over rayon's threads (an extra column the paper lacks).
pub fn evaluate_parallel(f: Function, x: &[f32], dim: usize, out: &mut [f32]) {
    assert_eq!(x.len(), out.len() * dim, "population shape");
    dispatch!(f, parallel_impl, x, dim, out)
}

/// f64 reference value of one individual, with the scale the f32 result is
/// allowed to differ by (see [`Reference::tolerance`]).
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    /// Σ term, in f64 from the f32 inputs.
    pub value: f64,
    /// Σ |term|.
    pub magnitude: f64,
    /// Σ |term(x·(1+2⁻²³)) − term(x)|: how much one f32 ulp of input moves the sum.
    pub ulp_sensitivity: f64,
}

/// Relative tolerance on Σ|term| for f32 accumulation over up to ~10⁴ terms
/// (observed error grows as √D·2⁻²⁴ ≈ 6·10⁻⁶ at D = 8000).
pub const ACCUMULATION_RTOL: f64 = 2e-5;
/// f32 operations per term are each within a few ulp; 8 input ulps cover them.
pub const ULP_ALLOWANCE: f64 = 8.0;

impl Reference {
    /// The largest acceptable |f32 result − value|.
    pub fn tolerance(&self) -> f64 {
        ACCUMULATION_RTOL * self.magnitude + ULP_ALLOWANCE * self.ulp_sensitivity + 1e-30
    }
}

fn reference_impl<T: Term>(x: &[f32]) -> Reference {
    let w = T::W;
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let bumped: Vec<f64> = x64.iter().map(|&v| v * (1.0 + f32::EPSILON as f64)).collect();
    let mut r = Reference { value: 0.0, magnitude: 0.0, ulp_sensitivity: 0.0 };
    if x.len() < w {
        return r;
    }
    for i in 0..=x.len() - w {
        let t = T::t64(&x64[i..i + w]);
        r.value += t;
        r.magnitude += t.abs();
        r.ulp_sensitivity += (T::t64(&bumped[i..i + w]) - t).abs();
    }
    r
}

fn references_impl<T: Term>(x: &[f32], dim: usize) -> Vec<Reference> {
    x.par_chunks_exact(dim).map(reference_impl::<T>).collect()
}

/// f64 references for every individual of an individual-major population.
pub fn references(f: Function, x: &[f32], dim: usize) -> Vec<Reference> {
    dispatch!(f, references_impl, x, dim)
}

/// Outcome of comparing an evaluator's f32 fitness with the f64 references.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// max_i |got_i − ref_i| / tolerance_i; the check passes when ≤ 1.
    pub worst_ratio: f64,
    /// Individual where the worst ratio occurs.
    pub worst_index: usize,
    /// Its value and reference.
    pub got: f32,
    pub expected: f64,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.worst_ratio <= 1.0
    }
}

/// Compares `got` with `refs`; a NaN or a missing value always fails.
pub fn check(got: &[f32], refs: &[Reference]) -> Check {
    assert_eq!(got.len(), refs.len());
    let mut worst = Check { worst_ratio: 0.0, worst_index: 0, got: f32::NAN, expected: f64::NAN };
    for (i, (&g, r)) in got.iter().zip(refs).enumerate() {
        let ratio = if g.is_finite() || !r.value.is_finite() { (g as f64 - r.value).abs() / r.tolerance() } else { f64::INFINITY };
        let ratio = if ratio.is_nan() { f64::INFINITY } else { ratio };
        if ratio > worst.worst_ratio || i == 0 {
            worst = Check { worst_ratio: ratio, worst_index: i, got: g, expected: r.value };
        }
    }
    worst
}

/// Dimension-major copy (`t[j * pop + ind]`) of an individual-major population:
/// the layout of strategy S4 (Section 3.2.4).
pub fn transpose(x: &[f32], pop: usize, dim: usize) -> Vec<f32> {
    let mut t = vec![0.0f32; x.len()];
    transpose_into(x, pop, dim, &mut t);
    t
}

/// [`transpose`] into `t` (pop·dim floats), on all of rayon's threads: each
/// task writes 32 whole dimensions of `t`, reading them from every individual
/// in tiles of 32 × 32, so that reads and writes both stay within cache lines.
pub fn transpose_into(x: &[f32], pop: usize, dim: usize, t: &mut [f32]) {
    use rayon::prelude::*;
    assert_eq!(x.len(), pop * dim);
    assert_eq!(t.len(), x.len());
    const TILE: usize = 32;
    if x.is_empty() {
        return;
    }
    t.par_chunks_mut(TILE * pop).enumerate().for_each(|(block, dims)| {
        let (j0, width) = (block * TILE, dims.len() / pop);
        for i0 in (0..pop).step_by(TILE) {
            for i in i0..(i0 + TILE).min(pop) {
                for (j, &v) in x[i * dim + j0..i * dim + j0 + width].iter().enumerate() {
                    dims[j * pop + i] = v;
                }
            }
        }
    });
}

/// Inputs uniform in the open interval (0, 1), as the paper draws them
/// (Section 4.1): `k / 2²⁴` for k in 1..2²⁴, never 0 (the heavy functions take
/// log(1/√x)).
pub fn random_population(pop: usize, dim: usize, seed: u64) -> Vec<f32> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..pop * dim).map(|_| rng.random_range(1u32..(1 << 24)) as f32 / (1u32 << 24) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval1(f: Function, x: &[f32]) -> f32 {
        let mut out = [0.0];
        evaluate_sequential(f, x, x.len(), &mut out);
        out[0]
    }

    #[test]
    fn known_values() {
        // Rosenbrock's minimum is 0 at (1, …, 1); at 0 each term is 100·(0 + 1).
        assert_eq!(eval1(Function::Rosenbrock, &[1.0; 10]), 0.0);
        assert_eq!(eval1(Function::Rosenbrock, &[0.0; 10]), 900.0);
        // (x_i + x_{i+1})² with x = 0.5: 9 terms of 1.
        assert_eq!(eval1(Function::F2Light, &[0.5; 10]), 9.0);
        // f4-light with x = 0.25: 7 terms of 1.
        assert_eq!(eval1(Function::F4Light, &[0.25; 10]), 7.0);
        // f2-heavy at x = e^-2: log(1/√x) = 1, so each term is log √2.
        let x = (-2.0f32).exp();
        let expect = 9.0 * (2.0f32.sqrt()).ln();
        assert!((eval1(Function::F2Heavy, &[x; 10]) - expect).abs() < 1e-5);
        // f4-heavy: each term is log √4 = log 2.
        let expect = 7.0 * 2.0f32.ln();
        assert!((eval1(Function::F4Heavy, &[x; 10]) - expect).abs() < 1e-5);
        // Rana at x = 0: t1 = t2 = 1, term = cos 1 · sin 1.
        let expect = 9.0 * (1.0f32.cos() * 1.0f32.sin());
        assert!((eval1(Function::Rana, &[0.0; 10]) - expect).abs() < 1e-5);
    }

    #[test]
    fn too_short_individuals_sum_no_terms() {
        assert_eq!(eval1(Function::F4Light, &[1.0, 2.0, 3.0]), 0.0);
        assert_eq!(eval1(Function::Rosenbrock, &[3.0]), 0.0);
    }

    #[test]
    fn names_round_trip() {
        for f in Function::ALL {
            assert_eq!(Function::from_name(f.name()), Some(f));
        }
        assert_eq!(Function::from_name("sphere"), None);
    }

    #[test]
    fn cpu_evaluators_match_f64_reference_on_fresh_inputs() {
        for (k, f) in Function::ALL.into_iter().enumerate() {
            for &(pop, dim) in &[(7, 3), (33, 10), (100, 100), (13, 2049)] {
                let x = random_population(pop, dim, 1000 + k as u64 * 7 + dim as u64);
                let refs = references(f, &x, dim);
                let mut seq = vec![f32::NAN; pop];
                let mut par = vec![f32::NAN; pop];
                evaluate_sequential(f, &x, dim, &mut seq);
                evaluate_parallel(f, &x, dim, &mut par);
                let c = check(&seq, &refs);
                assert!(c.passed(), "{f} {pop}x{dim} sequential: {c:?}");
                assert_eq!(seq, par, "{f}: parallel evaluates each individual alike");
            }
        }
    }

    #[test]
    fn sequential_remainders_match_f64_reference_and_single_rows() {
        // Dims around W, LANES and SPAN (+ W − 1) and pops around ROWS cover every
        // remainder path: too short, lane tails, partial spans, single rows.
        let dims = (1..=20).chain([63, 64, 65, 66, 67, 71, 72, 73, 130, 1001]);
        for (k, f) in Function::ALL.into_iter().enumerate() {
            for dim in dims.clone() {
                for pop in [1, 3, 4, 6, 9] {
                    let x = random_population(pop, dim, 77 + k as u64 * 1000 + dim as u64 * 10 + pop as u64);
                    let mut seq = vec![f32::NAN; pop];
                    evaluate_sequential(f, &x, dim, &mut seq);
                    let c = check(&seq, &references(f, &x, dim));
                    assert!(c.passed(), "{f} {pop}x{dim}: {c:?}");
                    let alone: Vec<f32> = x.chunks(dim).map(|ind| eval1(f, ind)).collect();
                    assert_eq!(seq, alone, "{f} {pop}x{dim}: a row's value does not depend on its group");
                }
            }
        }
    }

    #[test]
    fn check_catches_a_wrong_term_and_nan() {
        let f = Function::Rosenbrock;
        let (pop, dim) = (4, 100);
        let x = random_population(pop, dim, 5);
        let refs = references(f, &x, dim);
        let mut out = vec![0.0; pop];
        evaluate_sequential(f, &x, dim, &mut out);
        assert!(check(&out, &refs).passed());
        // Drop one term: the sum is off by one term's value.
        let mut wrong = out.clone();
        wrong[2] -= Rosenbrock::t32(&x[2 * dim + 50..2 * dim + 52]);
        let c = check(&wrong, &refs);
        assert!(!c.passed());
        assert_eq!(c.worst_index, 2);
        out[1] = f32::NAN;
        assert!(!check(&out, &refs).passed());
    }

    #[test]
    fn transpose_is_dimension_major() {
        let x: Vec<f32> = (0..6).map(|v| v as f32).collect(); // 2 individuals × 3
        assert_eq!(transpose(&x, 2, 3), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        // Sizes off the 32 × 32 tiles, one of each side and none at all, against the definition.
        for (pop, dim) in [(1, 1), (33, 65), (65, 31), (100, 1), (1, 100), (0, 7), (7, 0)] {
            let x: Vec<f32> = (0..pop * dim).map(|k| k as f32).collect();
            let want: Vec<f32> = (0..dim).flat_map(|j| (0..pop).map(move |i| (i * dim + j) as f32)).collect();
            assert_eq!(transpose(&x, pop, dim), want, "{pop}×{dim}");
        }
    }

    #[test]
    fn random_population_is_seeded_and_open_unit() {
        let a = random_population(10, 10, 42);
        assert_eq!(a, random_population(10, 10, 42));
        assert_ne!(a, random_population(10, 10, 43));
        assert!(a.iter().all(|&v| v > 0.0 && v < 1.0));
    }
}
