//! The committed record files are in today's layout (#22): every column name
//! says its unit where it has one, no column is empty in every row, and each
//! run's file has its CSV copies (measurements, and ceilings beside them).
//! A fresh run's files are checked the same way where the CLI tests run the
//! quick profiles (`common::reproduce_quick_cpu`).

mod common;

use std::path::Path;

#[test]
fn committed_record_files_name_their_units_and_have_no_empty_column() {
    // The H100 layout records' CSV copy is not committed (too large); the others are.
    let problems: Vec<String> = common::record_layout_problems(&Path::new(common::ROOT).join("reports"), true)
        .into_iter()
        .filter(|p| !(p.contains("layout/records/nvidia-") && p.ends_with("no CSV copy")))
        .collect();
    assert!(problems.is_empty(), "{} problems (`evorepro records upgrade` rewrites old files):\n{}", problems.len(), problems.join("\n"));
}
