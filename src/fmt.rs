//! Every number and cell as the reports print it: one place, so that a value
//! reads the same in a verdict, a table and the index.

use crate::stats::Summary;

/// A number with as many digits as it needs (up to 3 decimals).
pub fn fmt_num(x: f64) -> String {
    if x == x.round() && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A ratio as "12.3×" with a sensible number of digits.
pub fn fmt_ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else if r >= 10.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}×")
    }
}

/// A ratio with its 95% interval, "25.0× [23.1×, 27.0×]": an exact one (no
/// spread) as "25.0×", an unbounded one (a single run) as "25.0× (no interval)".
pub fn fmt_ratio_interval(value: f64, low: f64, high: f64) -> String {
    if low == value && high == value {
        fmt_ratio(value)
    } else if low.is_finite() && high.is_finite() {
        format!("{} [{}, {}]", fmt_ratio(value), fmt_ratio(low.max(0.0)), fmt_ratio(high))
    } else {
        format!("{} (no interval)", fmt_ratio(value))
    }
}

/// "12.1 ± 0.4 (95% CI, n = 5)".
pub fn fmt_mean(xs: &[f64]) -> String {
    match Summary::of(xs) {
        Some(s) if s.n > 1 => format!("{} ± {} (95% CI, n = {})", fmt_sig(s.mean), fmt_sig(s.ci95()), s.n),
        Some(s) => format!("{} (n = 1)", fmt_sig(s.mean)),
        None => "—".into(),
    }
}

/// Three significant digits.
pub fn fmt_sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// An optional value with `digits` decimals, "—" when absent.
pub fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |v| format!("{v:.digits$}"))
}

/// An optional speedup with `digits` decimals and "×", "—" when absent.
pub fn times(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |v| format!("{v:.digits$}×"))
}

/// `num / den` as a speedup cell ([`times`]), "—" when either is absent.
pub fn quotient(num: Option<f64>, den: Option<f64>, digits: usize) -> String {
    times(num.zip(den).map(|(n, d)| n / d), digits)
}

/// The mark of a measurement above the ceiling it is compared with (as hyperfine warns): the ceiling was
/// measured under other work, or the measurement counts bytes a cache served, or its unit is not the ceiling's.
pub const ABOVE_CEILING: &str = "⚠";

/// `x` as a share of the ceiling `of` with `digits` decimals ("42.0%"), marked [`ABOVE_CEILING`] where what it
/// prints exceeds 100%; "—" where the ceiling is not a positive number or the share not finite.
pub fn share(x: f64, of: f64, digits: usize) -> String {
    let p = 100.0 * x / of;
    if of <= 0.0 || !p.is_finite() {
        return "—".into();
    }
    let printed = format!("{p:.digits$}");
    if printed.parse::<f64>().is_ok_and(|v| v > 100.0) { format!("{printed}% {ABOVE_CEILING}") } else { format!("{printed}%") }
}

/// A GPU as people name it: "H100 80GB HBM3" (the vendor's name dropped); "" for none.
pub fn gpu_name(gpu: &str) -> &str {
    gpu.trim().strip_prefix("NVIDIA ").unwrap_or(gpu.trim())
}

/// A machine as people name it: "H100 80GB HBM3 · 16-thread Intel Xeon (family 6 model 207)", or
/// "2-thread AMD EPYC (family 25 model 17), no GPU": the vendor's marks, "CPU", "Processor" and the clock
/// dropped, the CPU's generation kept (its id's signature).
pub fn machine_name(gpu: &str, cpu: &str, signature: Option<&str>, threads: Option<i64>) -> String {
    let cpu: Vec<&str> = cpu
        .split('@')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(|w| w.trim_end_matches("(R)").trim_end_matches("(TM)").trim_end_matches("(tm)"))
        .filter(|w| !w.is_empty() && !["CPU", "Processor", "processor"].contains(w))
        .collect();
    // A model named by the dropped words alone ("CPU") keeps its name.
    let mut host = if cpu.is_empty() { "CPU".to_owned() } else { cpu.join(" ") };
    if let Some(t) = threads {
        host = format!("{t}-thread {host}");
    }
    if let Some(s) = signature.filter(|s| !s.is_empty()) {
        host = format!("{host} ({s})");
    }
    match gpu_name(gpu) {
        "" => format!("{host}, no GPU"),
        g => format!("{g} · {host}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_with_the_digits_they_need() {
        assert_eq!(fmt_num(3.0), "3");
        assert_eq!(fmt_num(0.1250), "0.125");
        assert_eq!(fmt_ratio(123.4), "123×");
        assert_eq!(fmt_ratio(12.34), "12.3×");
        assert_eq!(fmt_ratio(1.234), "1.23×");
        assert_eq!(fmt_sig(0.0012345), "0.00123");
        assert_eq!(fmt_sig(1234.5), "1234");
        assert_eq!(fmt_mean(&[]), "—");
        assert_eq!(fmt_mean(&[2.0]), "2.00 (n = 1)");
        assert_eq!(fmt_mean(&[1.0, 2.0, 3.0]), "2.00 ± 2.48 (95% CI, n = 3)");
        assert_eq!(fmt_ratio(1161.0), "1161×");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_sig(0.012345), "0.0123");
        assert_eq!(opt(None, 2), "—");
        assert_eq!(opt(Some(1.0 / 3.0), 2), "0.33");
        assert_eq!(quotient(Some(3.0), Some(2.0), 1), "1.5×");
        assert_eq!(quotient(Some(3.0), None, 1), "—");
        assert_eq!(fmt_ratio_interval(25.0, 23.1, 27.04), "25.0× [23.1×, 27.0×]");
        assert_eq!(fmt_ratio_interval(1.5, 1.5, 1.5), "1.50×");
        assert_eq!(fmt_ratio_interval(41.2, -0.5, 90.0), "41.2× [0.00×, 90.0×]");
        assert_eq!(fmt_ratio_interval(41.2, f64::NEG_INFINITY, f64::INFINITY), "41.2× (no interval)");
    }

    #[test]
    fn a_share_past_its_ceiling_is_marked() {
        assert_eq!(share(1.0, 4.0, 1), "25.0%");
        assert_eq!(share(4.0, 4.0, 0), "100%");
        assert_eq!(share(5.0, 4.0, 0), format!("125% {ABOVE_CEILING}"));
        // Marked by what it prints: 100.04% at no decimals reads 100%, unmarked.
        assert_eq!(share(100.04, 100.0, 0), "100%");
        assert_eq!(share(100.04, 100.0, 2), format!("100.04% {ABOVE_CEILING}"));
        assert_eq!(share(1.0, 0.0, 1), "—");
        assert_eq!(share(1.0, f64::NAN, 1), "—");
    }

    #[test]
    fn machines_are_named_as_people_name_them() {
        let h100 = machine_name("NVIDIA H100 80GB HBM3", "Intel(R) Xeon(R) Processor", Some("family 6 model 207"), Some(16));
        assert_eq!(h100, "H100 80GB HBM3 · 16-thread Intel Xeon (family 6 model 207)");
        assert_eq!(machine_name("", "AMD EPYC", Some("family 25 model 17"), Some(2)), "2-thread AMD EPYC (family 25 model 17), no GPU");
        assert_eq!(machine_name("", "Intel(R) Xeon(R) CPU @ 2.20GHz", None, None), "Intel Xeon, no GPU");
        assert_eq!(machine_name("", "CPU", None, None), "CPU, no GPU");
    }
}
