//! Tables I and II's section: the speedups of one GPU over one CPU thread and
//! over all cores, from the same table runs, each beside the paper's, with a
//! chart of each.

use super::analysis::Analysis;
use super::render_common::{gpu_cell, write_chart};
use super::spec::IslandSpec;
use super::{CPU_1T, CPU_MT, CUDA};
use crate::experiments::Part;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart, PaperPoints};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

pub(super) const TABLES_INTRO: &str = "Table I: one CPU thread's time per generation over all threads' and over one GPU's (the paper's \
    kernels); Table II: all threads' over the GPU's (the paper: the 24 cores of its two servers). All three times come from \
    the same run of each case (`table` cases, profile `tables`): the same islands for the same generations, with \
    bit-identical populations (the case fails otherwise; each island is its own random stream). The paper's I GPUs held one \
    island each; here all I islands share one GPU, so only its 1-GPU rows are the paper's setting.";

/// Tables I and II from the table runs, each cell measured here against the paper's, and a chart of each.
pub(super) fn tables(spec: &IslandSpec, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<Part> {
    if a.table.is_empty() {
        return Ok(Part::NotRun("no table runs recorded (profile `tables`)".into()));
    }
    let (islands, sizes) = a.table_points();
    let threads = a.table_runs().filter(|r| r.method == CPU_MT).find_map(|r| r.threads).map_or("—".into(), |t| t.to_string());
    let per = |i: usize, n: usize, method: &str| a.table_per_generation(i, n, method);
    let paper = |t: &super::spec::SpeedupTable, config: &str, n: usize| t.at(config, n).map_or("—".into(), |v| format!("{v:.2}×"));
    let gpus = |i: usize| if i == 1 { "1 GPU".to_owned() } else { format!("{i} GPUs") };
    let header = |first: &str| {
        let mut h = vec![first.to_owned()];
        h.extend(sizes.iter().map(|n| format!("{n}: here / paper")));
        h
    };
    let mut times = Table::new(&{
        let mut h = vec!["islands".to_owned(), "generations".to_owned()];
        h.extend(sizes.iter().map(|n| format!("{n}: 1 thread / all threads / GPU (ms/gen.)")));
        h
    });
    let mut t1 = Table::new(&header("configuration (here; the paper's row)"));
    let mut t2 = Table::new(&header("islands on one GPU over all threads (the paper's row)"));
    let (mut s1, mut s2) = (BTreeMap::<String, Vec<(f64, f64)>>::new(), BTreeMap::<String, Vec<(f64, f64)>>::new());
    for &i in &islands {
        let name = format!("{} (here on 1 GPU)", plural_islands(i));
        let mut time_row = vec![i.to_string(), a.table_runs().find(|r| r.islands == i).map_or("—".into(), |r| r.generations.to_string())];
        let mut cpu_row = vec![format!("{}, all {threads} threads (24 CPUs)", plural_islands(i))];
        let mut gpu_row = vec![format!("{}, 1 GPU ({})", plural_islands(i), gpus(i))];
        let mut t2_row = vec![format!("{} ({})", plural_islands(i), gpus(i))];
        for &n in &sizes {
            let (one, all, gpu) = (per(i, n, CPU_1T), per(i, n, CPU_MT), per(i, n, CUDA));
            time_row.push(format!("{} / {} / {}", fmt::opt(one, 3), fmt::opt(all, 3), gpu_cell(a, CUDA, gpu)));
            cpu_row.push(format!("{} / {}", fmt::quotient(one, all, 1), paper(&spec.table1, "24 CPUs", n)));
            gpu_row.push(format!("{} / {}", fmt::quotient(one, gpu, 1), paper(&spec.table1, &gpus(i), n)));
            t2_row.push(format!("{} / {}", fmt::quotient(all, gpu, 1), paper(&spec.table2, &gpus(i), n)));
            if let Some((one, gpu)) = one.zip(gpu) {
                s1.entry(name.clone()).or_default().push((n as f64, one / gpu));
            }
            if let Some((all, gpu)) = all.zip(gpu) {
                s2.entry(name.clone()).or_default().push((n as f64, all / gpu));
            }
        }
        times.row(time_row);
        t1.row(cpu_row);
        t1.row(gpu_row);
        t2.row(t2_row);
    }
    let mut md = format!("Times per generation of each table case:\n\n{}", times.render());
    md += &format!("\nTable I — speedup over one CPU thread evolving the same islands:\n\n{}", t1.render());
    md += &format!("\nTable II — speedup of the GPU over all {threads} CPU threads evolving the same islands:\n\n{}", t2.render());
    let card = chart::card(&spec.paper.hardware.gpu).to_owned();
    for (figure, title, y_label, series, table) in [
        ("table1", "Table I: speedup over one CPU thread", "speedup", s1, &spec.table1),
        ("table2", "Table II: speedup over all CPU cores", "speedup over all cores", s2, &spec.table2),
    ] {
        if series.is_empty() {
            continue;
        }
        // The paper's "I GPUs" ran I islands, one per GPU: drawn in the colour of the I islands here.
        let mut paper = PaperPoints::new(&format!("{card}, one per island"));
        for (config, size, v) in table.values().filter(|v| v.0.ends_with("GPU") || v.0.ends_with("GPUs")) {
            let i: usize = config.split(' ').next().and_then(|i| i.parse().ok()).unwrap_or(0);
            let name = format!("{} (here on 1 GPU)", plural_islands(i));
            paper.push(if series.contains_key(&name) { &name } else { config }, (size as f64, v));
        }
        let hlines = if figure == "table2" { vec![("all CPU cores".into(), 1.0)] } else { vec![] };
        let chart = LineChart { paper, hlines, ..LineChart::new(title, ("island size", y_label), series, m.label()) };
        md += &write_chart(dir, m, figure, &chart)?;
    }
    Ok(Part::Shown(md))
}

/// "1 island", "14 islands".
fn plural_islands(i: usize) -> String {
    if i == 1 { "1 island".into() } else { format!("{i} islands") }
}

#[cfg(test)]
mod tests {
    use super::super::analysis::fixtures::*;
    use super::super::sustained_rate::sustained_rate;
    use super::*;

    fn spec() -> IslandSpec {
        let file = crate::spec::SpecFile::from_text(Path::new("island.toml"), include_str!("../../../experiments/island.toml").into());
        file.parse().unwrap()
    }

    #[test]
    fn tables_one_and_two_come_from_the_same_table_runs() {
        // 1 island of 128: one thread 10 ms, all threads 1 ms, the GPU 2 ms; 14 islands of 128: 140, 10 and 0.5 ms.
        let rows = vec![
            table(CPU_1T, 1, 128, 10.0, 0.0),
            table(CPU_MT, 1, 128, 1.0, 0.0),
            table(CUDA, 1, 128, 2.0, 1e9),
            table(CPU_1T, 14, 128, 140.0, 0.0),
            table(CPU_MT, 14, 128, 10.0, 0.0),
            table(CUDA, 14, 128, 0.5, 1.4e10),
        ];
        let m = machine(rows, Some(132), &[("gpu_int32", 29_415.0)]);
        let a = Analysis::of(&m).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let Part::Shown(text) = tables(&spec(), &m, &a, dir.path()).unwrap() else { panic!("no tables") };
        assert!(text.contains("| 1 | 100 | 10.000 / 1.000 / 2.000 |"), "{text}");
        assert!(text.contains("| 1 island, all 16 threads (24 CPUs) | 10.0× / 22.18× |"), "{text}");
        assert!(text.contains("| 1 island, 1 GPU (1 GPU) | 5.0× / 10.70× |"), "{text}");
        assert!(text.contains("| 14 islands, 1 GPU (14 GPUs) | 280.0× / 150.21× |"), "{text}");
        assert!(text.contains("| 1 island (1 GPU) | 0.5× / 0.48× |"), "{text}");
        assert!(text.contains("| 14 islands (14 GPUs) | 20.0× / 6.77× |"), "{text}");
        for figure in ["table1", "table2"] {
            assert!(dir.path().join(format!("figures/test__{figure}.png")).exists(), "{figure}");
        }
        // The sustained rate of the GPU rows: 10⁹ operations in 2 ms = 500 G/s, 1.7% of 29,415 G/s.
        let crate::experiments::Part::Shown(rate) = sustained_rate(&m, &a) else { panic!("GPU rows are shown") };
        assert!(rate.contains("| table | 1 × 128 | 1 | 1.000 | 2000.0 | 500 | 1.7% |"), "{rate}");
        assert!(rate.contains("| table | 14 × 128 | 1 | 14.000 | 500.0 | 28000 | 95.2% |"), "{rate}");
        let none = machine(vec![], None, &[]);
        assert!(
            matches!(tables(&spec(), &none, &Analysis::of(&none).unwrap(), dir.path()).unwrap(), Part::NotRun(why) if why.contains("profile `tables`"))
        );
    }
}
