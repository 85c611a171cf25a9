//! Tests of gBOA's host side: launch shapes, layouts, the constants shared with
//! `kernels/boa.cu` and the memory pre-check.

use super::device_run::{STATS, TABLE, sample_launch};
use super::*;
use crate::library::ecga::Population;

#[test]
fn sampling_fits_four_children_a_block_in_shared_memory_and_refuses_a_child_that_does_not_fit() {
    // ℓ = 190, 2,400 offspring: four warps a block, 600 blocks, 760 bytes.
    let c = sample_launch(190, 2400).unwrap();
    assert_eq!((c.grid_dim.0, c.block_dim.0, c.shared_mem_bytes), (600, 128, 760));
    // ℓ = 20,000: two children fit 48 KiB; ℓ = 49,152: one.
    assert_eq!(sample_launch(20_000, 5).unwrap().block_dim.0, 64);
    assert_eq!(sample_launch(49_152, 5).unwrap().shared_mem_bytes, 49_152);
    let err = sample_launch(49_153, 5).unwrap_err().to_string();
    assert!(err.contains("ℓ = 49153") && err.contains("shared memory"), "{err}");
}

#[test]
fn locus_major_puts_one_locus_of_consecutive_individuals_together() {
    // 3 individuals × 2 loci, rows 10, 01, 11.
    let pop = Population::from_rows(3, 2, vec![1, 0, 0, 1, 1, 1]).unwrap();
    assert_eq!(locus_major(&pop), vec![1, 0, 1, 0, 1, 1]);
}

#[test]
fn constants_match_the_kernel() {
    assert!(BOA_CU.code.contains(&format!("#define BOA_MAX_K {MAX_K}\n")));
    assert!(BOA_CU.code.contains(&format!("#define BOA_MAX_WARPS {MAX_WARPS}\n")));
    assert!(BOA_CU.code.contains("#define BOA_OUT (BOA_MAX_K + 6)\n") && OUT == MAX_K + 6);
    assert!(BOA_CU.code.contains(&format!("#define BOA_MIN_GROUP {}\n", GROUPS[0])));
    for shape in shape_choices().into_iter().chain([SHAPE]) {
        assert!((1..=MAX_WARPS).contains(&shape.warps) && GROUPS.contains(&shape.group), "{shape:?}");
        assert!(BOA_CU.code.contains(&format!("BOA_NETWORK({})", shape.group)));
    }
    assert!(BOA_CU.code.contains(&format!("#define BOA_STATS {STATS}\n")));
    assert!(BOA_CU.code.contains(&format!("#define BOA_PAPER_THREADS {PAPER_THREADS}\n")));
    assert!(BOA_CU.code.contains("boa_pboa_network_paper("));
    assert!(BOA_CU.code.contains("#define BOA_TABLE (2 << BOA_MAX_K)\n") && TABLE == 2 << MAX_K);
}

#[test]
fn the_memory_precheck_names_n_ell_and_both_sizes() {
    // N = 4800, ℓ = 190, 2400 selected, 200 generations, term by term.
    let bytes = (4800 + 2400) * 190 + 4 * (2 * 4800 + 2400) + 8 * 190 * 38 + 8 * 2402 + (4 * 190 * (3 + 10 + 32) + 8) + 8 * 6 * 201;
    assert_eq!(device_run_bytes(4800, 190, 2400, 200), bytes);
    assert!(check_device_run_fits(4800, 190, 2400, 200, bytes as usize).is_ok());
    let err = check_device_run_fits(4800, 190, 2400, 200, bytes as usize - 1).unwrap_err().to_string();
    assert!(err.contains("N = 4800") && err.contains("ℓ = 190"), "{err}");
    assert!(err.contains(&format!("{bytes} bytes")) && err.contains(&format!("{} bytes", bytes - 1)), "{err}");
    // Sizes far past any device do not overflow the arithmetic.
    let huge = device_run_bytes(usize::MAX, usize::MAX, usize::MAX / 2, usize::MAX);
    assert!(huge > u64::MAX as u128);
    assert!(check_device_run_fits(usize::MAX, 4096, 1, 1, usize::MAX).is_err());
}
