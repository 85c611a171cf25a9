//! Summary statistics of repeated measurements: n, mean ± sd, median, 95% CI.

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

    /// Half-width of the 95% confidence interval of the mean (normal approximation).
    pub fn ci95(&self) -> f64 {
        if self.n < 2 { 0.0 } else { 1.96 * self.sd / (self.n as f64).sqrt() }
    }
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
    fn fit_recovers_a_line() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y: Vec<f64> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        let (m, b) = linear_fit(&x, &y).unwrap();
        assert!((m - 2.0).abs() < 1e-12 && (b - 1.0).abs() < 1e-12);
        assert!(linear_fit(&[1.0, 1.0], &[1.0, 2.0]).is_none());
    }
}
