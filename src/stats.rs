//! Summary statistics of repeated measurements: n, mean ± sd, median, 95%
//! intervals (Student's t), and Welch's comparison of two samples.

/// Summary of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for n = 1.
    pub sd: f64,
    pub median: f64,
    pub min: f64,
}

impl Summary {
    pub fn of(xs: &[f64]) -> Option<Summary> {
        if xs.is_empty() {
            return None;
        }
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = if n > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
        Some(Summary { n, mean, sd: var.sqrt(), median: median(xs), min: xs.iter().copied().fold(f64::INFINITY, f64::min) })
    }

    /// Half-width of the 95% confidence interval of the mean (Student's t with
    /// n − 1 degrees of freedom); 0 for n = 1.
    pub fn ci95(&self) -> f64 {
        if self.n < 2 { 0.0 } else { t975(self.n as f64 - 1.0) * self.sd / (self.n as f64).sqrt() }
    }
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (two-sided
/// 95%), fractional `df` (Welch's) as it is; infinite below one degree of
/// freedom. Past 10⁵ degrees of freedom (where t's quantile is within 3·10⁻⁵ of
/// the normal's, and statrs' inversion of t loses precision or, for infinite
/// `df`, does not end) the normal's.
pub fn t975(df: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
    if df.is_nan() || df < 1.0 {
        return f64::INFINITY;
    }
    if df > 1e5 {
        return Normal::new(0.0, 1.0).map_or(f64::INFINITY, |n| n.inverse_cdf(0.975));
    }
    StudentsT::new(0.0, 1.0, df).map_or(f64::INFINITY, |t| t.inverse_cdf(0.975))
}

/// Mean of `a` minus mean of `b` with the half-width of its 95% interval
/// (Welch: unequal variances, Welch–Satterthwaite degrees of freedom). None when
/// either sample has fewer than two values: its spread is unknown.
pub fn welch(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let (sa, sb) = (Summary::of(a)?, Summary::of(b)?);
    if sa.n < 2 || sb.n < 2 {
        return None;
    }
    let (va, vb) = (sa.sd * sa.sd / sa.n as f64, sb.sd * sb.sd / sb.n as f64);
    let se2 = va + vb;
    let diff = sa.mean - sb.mean;
    if se2 == 0.0 {
        return Some((diff, 0.0));
    }
    let df = se2 * se2 / (va * va / (sa.n as f64 - 1.0) + vb * vb / (sb.n as f64 - 1.0));
    Some((diff, t975(df) * se2.sqrt()))
}

/// Median (mean of the two middle values for even n); NaN for an empty slice.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 }
}

/// Least-squares slope and intercept of y on x.
pub fn linear_fit(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    let n = x.len() as f64;
    if x.len() < 2 || x.len() != y.len() {
        return None;
    }
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_sample() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert_eq!(s.mean, 5.0);
        assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.median, 4.5);
        assert_eq!(s.min, 2.0);
        assert!(Summary::of(&[]).is_none());
        assert_eq!(Summary::of(&[3.0]).unwrap().sd, 0.0);
    }

    #[test]
    fn t_quantiles_match_the_table_and_the_normal_limit() {
        // The printed table's values (three decimals), and Welch's fractional df between its neighbours.
        for (df, table) in [(1.0, 12.706), (2.0, 4.303), (9.0, 2.262), (10.0, 2.228), (30.0, 2.042), (60.0, 2.000)] {
            assert!((t975(df) - table).abs() < 5e-4, "t975({df}) = {}", t975(df));
        }
        assert!(t975(9.7) < t975(9.0) && t975(9.7) > t975(10.0), "fractional df is taken as it is");
        assert!((t975(1e9) - 1.959964).abs() < 1e-6 && t975(f64::INFINITY) == t975(1e9));
        assert!((t975(1e5) - t975(1e5 + 1.0)).abs() < 1e-4, "no step where the normal takes over");
        assert_eq!(t975(0.5), f64::INFINITY);
        let s = Summary::of(&[1.0, 2.0, 3.0]).unwrap();
        assert!((s.ci95() - t975(2.0) / 3f64.sqrt()).abs() < 1e-12, "n = 3 uses t with 2 df");
    }

    #[test]
    fn welch_separates_or_ties() {
        let (d, h) = welch(&[10.0, 10.2, 9.8, 10.1], &[5.0, 5.1, 4.9, 5.0]).unwrap();
        assert!((d - 5.025).abs() < 1e-9 && h < 0.5, "{d} ± {h}");
        let (d, h) = welch(&[10.0, 12.0, 8.0], &[10.5, 9.0, 11.5]).unwrap();
        assert!(d.abs() < h, "overlapping samples: {d} ± {h}");
        assert!(welch(&[1.0], &[2.0, 3.0]).is_none());
        assert_eq!(welch(&[2.0, 2.0], &[1.0, 1.0]), Some((1.0, 0.0)));
    }

    #[test]
    fn fit_recovers_a_line() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y: Vec<f64> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        let (m, b) = linear_fit(&x, &y).unwrap();
        assert!((m - 2.0).abs() < 1e-12 && (b - 1.0).abs() < 1e-12);
        assert!(linear_fit(&[1.0, 1.0], &[1.0, 2.0]).is_none());
    }
}
