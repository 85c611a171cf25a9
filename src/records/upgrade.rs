//! Upgrades of older record files: columns renamed to say their units, a
//! machine's records moved to its canonical id (`evorepro records upgrade`).

use super::col;
use super::files::*;
use crate::error::RecordError;
use polars::prelude::*;
use std::fmt;
use std::path::{Path, PathBuf};

/// What [`upgrade`] changed in one record file.
#[derive(Debug, Default, PartialEq)]
pub struct Upgrade {
    /// Old column names given their new ones ([`RENAMED_COLUMNS`]).
    pub renamed: Vec<&'static str>,
    /// Columns without a single value, left out.
    pub dropped: Vec<String>,
    /// Whether a CSV copy was rewritten (or, a stale `.ceilings.csv`, removed).
    pub csv: bool,
}

impl Upgrade {
    pub fn changed(&self) -> bool {
        !self.renamed.is_empty() || !self.dropped.is_empty() || self.csv
    }
}

impl fmt::Display for Upgrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self.renamed.iter().map(|old| format!("`{old}` renamed")).collect();
        parts.extend(self.dropped.iter().map(|c| format!("empty `{c}` left out")));
        if self.csv {
            parts.push("CSV copies rewritten".into());
        }
        f.write_str(&parts.join(", "))
    }
}

/// Brings one Parquet record file (checked against its checksum first) to
/// today's layout: the current column names ([`RENAMED_COLUMNS`]), no column
/// without a value, and CSV copies as [`write_csv`] writes them. The Parquet
/// file and its checksum are rewritten only when a column changed, every other
/// column (order, type, values) as it was; each file atomically.
pub fn upgrade(parquet: &Path) -> Result<Upgrade, RecordError> {
    certify(parquet)?;
    if let Some(tail) = live_tail(parquet) {
        certify(&tail)?;
        // A killed run's tail: folded into the file first, so no row is lost.
        write_parquet(&parquet.with_extension(""), &read_parquet(parquet)?)?;
    }
    let bytes = read_verified(parquet)?;
    let (mut df, renamed) = parse_frame(parquet, &bytes)?;
    let dropped: Vec<String> = df.columns().iter().filter(|c| c.null_count() == df.height()).map(|c| c.name().to_string()).collect();
    if df.height() > 0 {
        for c in &dropped {
            df.drop_in_place(c).map_err(|e| write_err(parquet, &e))?;
        }
    }
    let dropped = if df.height() > 0 { dropped } else { Vec::new() };
    if !renamed.is_empty() || !dropped.is_empty() {
        write_parquet_frame(parquet, &mut df)?;
    }
    let csv = write_csv_frames(&parquet.with_extension(""), &df)?;
    Ok(Upgrade { renamed, dropped, csv })
}

/// Rewrites one record file's machine id to `new_id` (the id recorded kept in
/// `hw_id_recorded`, every other column as it was) and names the file after it
/// (`<new_id>__<profile>`); where a file of that name exists, the file keeps
/// its name (both are read; the later run supersedes). Returns the file's path now.
pub fn rename_machine(parquet: &Path, old_id: &str, new_id: &str) -> Result<PathBuf, RecordError> {
    if live_tail(parquet).is_some() {
        write_parquet(&parquet.with_extension(""), &read_parquet(parquet)?)?;
    }
    let bytes = read_verified(parquet)?;
    let (mut df, _) = parse_frame(parquet, &bytes)?;
    let n = df.height();
    let err = |e: PolarsError| write_err(parquet, &e);
    df.with_column(Column::new("hw_id_recorded".into(), vec![old_id; n])).map_err(err)?;
    df.with_column(Column::new(col::HW_ID.into(), vec![new_id; n])).map_err(err)?;
    let name = parquet.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let target = match name.strip_prefix(&format!("{old_id}__")) {
        Some(rest) if !parquet.with_file_name(format!("{new_id}__{rest}")).exists() => parquet.with_file_name(format!("{new_id}__{rest}")),
        _ => parquet.to_owned(),
    };
    write_parquet_frame(&target, &mut df)?;
    write_csv_frames(&target.with_extension(""), &df)?;
    if target != parquet {
        remove_if_present(parquet)?;
        for f in companions(parquet).iter().chain(&legacy_companions(parquet)) {
            remove_if_present(f)?;
        }
    }
    Ok(target)
}

/// [`upgrade`]s every record file directly in `dir` (not its `_archive/`, kept
/// as it was taken), holding the folder's writer lock (which first moves the
/// files of an older layout, [`migrate_layout`]); returns each file changed with what changed.
pub fn upgrade_folder(dir: &Path) -> Result<Vec<(PathBuf, Upgrade)>, RecordError> {
    let _lock = WriterLock::take(dir)?;
    let mut upgraded = Vec::new();
    for f in record_files(dir) {
        let u = upgrade(&f)?;
        if u.changed() {
            upgraded.push((f, u));
        }
    }
    Ok(upgraded)
}
