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
/// 95%): the table for df ≤ 30 (fractional df rounded down, which widens the
/// interval), Cornish–Fisher's expansion beyond (within 10⁻³ there).
pub fn t975(df: f64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    if df.is_nan() || df < 1.0 {
        return f64::INFINITY;
    }
    if df < 31.0 {
        return TABLE[(df.floor() as usize).min(30) - 1];
    }
    let z: f64 = 1.959964;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df.powi(3))
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
        assert_eq!(t975(1.0), 12.706);
        assert_eq!(t975(9.7), 2.262, "fractional df rounds down");
        assert!((t975(60.0) - 2.000).abs() < 1e-3);
        assert!((t975(1e9) - 1.96).abs() < 1e-3);
        assert_eq!(t975(0.5), f64::INFINITY);
        let s = Summary::of(&[1.0, 2.0, 3.0]).unwrap();
        assert!((s.ci95() - 4.303 / 3f64.sqrt()).abs() < 1e-12, "n = 3 uses t with 2 df");
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
