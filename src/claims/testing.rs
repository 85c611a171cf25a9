//! Test helpers: synthetic machines, the paper's hardware and a check that
//! every claim of a spec can reach a verdict.

use super::{Claims, Ctx, Model, VerdictKind};
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::spec::PaperHardware;

/// A machine whose records hold only these ceilings (`gpu_int32` in 10⁹/s,
/// `cpu_clock` in GHz, the rest in GB/s).
pub fn machine(ceilings: &[(&str, f64)]) -> MachineRecords {
    let rows = ceilings
        .iter()
        .map(|&(name, v)| {
            let unit = match name {
                "gpu_int32" => crate::records::GOP_PER_S,
                "cpu_clock" => crate::records::CPU_CLOCK_GHZ,
                _ => crate::records::GB_PER_S,
            };
            Record::new()
                .with(col::HW_ID, "test")
                .with(col::RECORD_KIND, "ceiling")
                .with(col::CEILING, name)
                .with(col::RUN_ID, 1u64)
                .with(unit, v)
        })
        .collect();
    MachineRecords { hw_id: "test".into(), rows }
}

/// The verdict of too few runs: `n` of the `needs` a claim asks for.
pub fn too_few(n: usize, needs: usize) -> super::Verdict {
    super::Outcome::too_few(n, needs, "").verdict
}

/// A paper machine with a 100 GB/s, 500 G int32/s card and a 2 GHz core.
pub fn paper_hardware() -> PaperHardware {
    let text = r#"
        gpu = "test card"
        cpu = "test core"
        cuda = "1.0"
        gpu_bandwidth_gbs = 100.0
        [datasheet]
        gpu_bandwidth = { value = 100.0, source = "test sheet" }
        gpu_int32 = { value = 500.0, source = "test sheet" }
        cpu_clock = { value = 2.0, source = "test sheet" }
        gpu_threads_per_block = { value = 512.0, source = "test sheet" }
    "#;
    toml::from_str(text).expect("test hardware")
}

/// A model from (quantity, exponent) pairs.
pub fn model(pairs: &[(&str, f64)]) -> Model {
    let table: toml::Table = pairs.iter().map(|(k, v)| ((*k).to_owned(), toml::Value::Float(*v))).collect();
    toml::Value::Table(table).try_into().expect("test model")
}

/// Asserts that `cases` drive every claim of `claims` to `kind`: each claim id
/// must have a case, and each case must give that verdict.
pub fn every_claim_reaches<A>(claims: &Claims<A>, kind: VerdictKind, cases: &[(&str, A, MachineRecords)], paper: &PaperHardware) {
    for id in claims.ids() {
        assert!(cases.iter().any(|c| c.0 == id), "claim `{id}` has no test case that makes it {}", kind.label());
    }
    for (id, analysis, machine) in cases {
        let ctx = Ctx { machine, paper };
        let outcome = claims.judge_one(id, analysis, &ctx).unwrap_or_else(|| panic!("no claim `{id}` in the spec"));
        assert_eq!(outcome.verdict.kind(), kind, "claim `{id}`: {} — {}", outcome.verdict.label(), outcome.evidence);
    }
}
