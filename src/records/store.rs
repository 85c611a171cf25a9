//! The record store of one paper's folder: appends a run's rows as they finish, under a writer lock.

use super::Record;
use super::files::{
    CSV_DIR, SHA256_DIR, TAIL_DIR, WriterLock, archive, read_main_and_tail, tail_path, to_frame, write_csv, write_err, write_frame_file,
    write_parquet,
};
use crate::error::RecordError;
use crate::records::col;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A [`RecordStore`]'s tail holds at most this share (1/8) of its file's rows.
pub const TAIL_SHARE: usize = 8;

/// The append-only record file of one paper on one machine and profile.
///
/// Nothing on disk changes until the first case finishes: a fresh run (no
/// `resume`) archives the earlier file and writes its own only then, so a run
/// that fails before any case (a missing data set, a bad instance) leaves the
/// earlier records where they were. One writer per records folder: the store
/// holds `<dir>/.lock` (the writer's pid) while it is open.
pub struct RecordStore {
    stem: PathBuf,
    rows: Vec<Record>,
    /// How many of `rows` the Parquet file itself holds; the rest are in its tail.
    main_rows: usize,
    done: HashSet<String>,
    /// An earlier file waits to be archived before this run's first write.
    archive_first: bool,
    /// Whether this run has written its file yet.
    written: bool,
    _lock: WriterLock,
}

impl RecordStore {
    /// Opens `<dir>/<name>.parquet`. With `resume`, keeps its rows and the set of
    /// finished cases, refusing records of another spec: rows whose `spec_hash`
    /// is none of `spec_hashes` (the spec's hash, then those it had under earlier
    /// definitions); without, an existing file is moved to `<dir>/_archive/` when
    /// the first case is stored, so nothing is lost. Fails while another run
    /// writes to `dir`.
    pub fn open(dir: &Path, name: &str, spec_hashes: &[&str], resume: bool) -> Result<RecordStore, RecordError> {
        let lock = WriterLock::take(dir)?;
        remove_orphan_temporaries(dir);
        let stem = dir.join(name);
        let parquet = stem.with_extension("parquet");
        let mut rows = Vec::new();
        let mut main_rows = 0;
        let exists = parquet.exists();
        if exists && resume {
            let (main, tail) = read_main_and_tail(&parquet)?;
            main_rows = main.len();
            rows = main;
            rows.extend(tail);
            if let Some(found) = rows.iter().map(|r| r.str(col::SPEC_HASH)).find(|h| !spec_hashes.contains(h)) {
                let expected = spec_hashes.first().copied().unwrap_or_default().to_owned();
                return Err(RecordError::SpecChanged { path: parquet, found: found.to_owned(), expected });
            }
        }
        let done = rows.iter().filter(|r| r.str(col::RECORD_KIND) == "measurement").map(|r| r.str(col::CASE_ID).to_owned()).collect();
        Ok(RecordStore { stem, rows, main_rows, done, archive_first: exists && !resume, written: exists && resume, _lock: lock })
    }

    pub fn is_done(&self, case_id: &str) -> bool {
        self.done.contains(case_id)
    }

    /// The Parquet file this store writes.
    pub fn file(&self) -> PathBuf {
        self.stem.with_extension("parquet")
    }

    pub fn finished_cases(&self) -> usize {
        self.done.len()
    }

    /// Adds rows: those of a finished case (`case_id`) are written at once,
    /// atomically, to the file's tail ([`tail_path`]) while the tail holds at
    /// most 1/[`TAIL_SHARE`] of the file's rows, else into the Parquet file
    /// itself, rewritten with every row (which empties the tail). Rewriting the
    /// whole file after every case made long sweeps quadratic in their output
    /// (the layout paper profile: about a second a case by its 600th); the CSV
    /// copy follows in [`RecordStore::finish`]. Rows of no case (the run's
    /// ceilings) wait for the first case.
    pub fn append(&mut self, case_id: Option<&str>, rows: Vec<Record>) -> Result<(), RecordError> {
        self.rows.extend(rows);
        let Some(id) = case_id else { return Ok(()) };
        if self.archive_first {
            archive(&self.stem).map_err(|e| RecordError::Write { path: self.stem.with_extension("parquet"), message: e.to_string() })?;
            self.archive_first = false;
        }
        let tail = &self.rows[self.main_rows..];
        if self.main_rows == 0 || tail.len() * TAIL_SHARE > self.main_rows {
            write_parquet(&self.stem, &self.rows)?;
            self.main_rows = self.rows.len();
        } else {
            let path = tail_path(&self.stem.with_extension("parquet"));
            let mut df = to_frame(tail).map_err(|e| write_err(&path, &e))?;
            write_frame_file(&path, &mut df)?;
        }
        self.written = true;
        self.done.insert(id.to_owned());
        Ok(())
    }

    pub fn rows(&self) -> &[Record] {
        &self.rows
    }

    /// Writes the CSV copy of everything stored (nothing when no case was).
    pub fn finish(&self) -> Result<(), RecordError> {
        if !self.written {
            return Ok(());
        }
        write_parquet(&self.stem, &self.rows)?;
        write_csv(&self.stem, &self.rows).map(|_| ())
    }
}

/// Removes the temporary files (`.tmp*`) a killed run left in `dir` and its
/// side folders: with the writer's lock held, no other run is writing one.
fn remove_orphan_temporaries(dir: &Path) {
    let tail = dir.join(TAIL_DIR);
    for d in [dir.to_owned(), dir.join(CSV_DIR), dir.join(SHA256_DIR), tail.join(SHA256_DIR), tail] {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            if e.file_name().to_string_lossy().starts_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
