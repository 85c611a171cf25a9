//! Job arrays: `reproduce --shard K/N` runs a deterministic 1/N of a profile's
//! cases into a records folder of its own, and `evorepro merge` combines the N
//! shards into the profile's ordinary records file.
//!
//! Shard K of N of profile P writes `records/_shards/P__shard-K-of-N/<hw_id>__P.parquet`
//! through an ordinary [`crate::records::RecordStore`]: each shard has its own
//! folder, hence its own writer lock and its own temporary files, so the N tasks
//! of an array can write to one (shared) records folder at once, and a shard's
//! `--resume` works as a whole run's does. Cases are dealt by weight, longest
//! first, each to the shard with the least weight so far (ties to the lowest
//! K): the same case list gives every task the same assignment.

use super::plan::Resource;
use super::{Case, records_dir};
use crate::records::col;
use crate::records::{self, Record};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One of N parts of a profile (`K/N`, 1 ≤ K ≤ N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// K, from 1.
    pub index: usize,
    /// N.
    pub count: usize,
    /// `--gpu-shards G`: shards 1..=G take the cases that need a GPU, the others
    /// those that need none (all N take both kinds when G = N).
    pub gpu_shards: Option<usize>,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = |why: &str| format!("--shard `{s}`: {why} (expected K/N with 1 ≤ K ≤ N, e.g. 2/8)");
        let (k, n) = s.split_once('/').ok_or_else(|| bad("no `/`"))?;
        let index: usize = k.trim().parse().map_err(|_| bad(&format!("K = `{k}` is not a whole number")))?;
        let count: usize = n.trim().parse().map_err(|_| bad(&format!("N = `{n}` is not a whole number")))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index == 0 || index > count {
            return Err(bad(&format!("K = {index} is outside 1..={count}")));
        }
        Ok(Shard { index, count, gpu_shards: None })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)?;
        match self.gpu_shards {
            Some(g) => write!(f, " (GPU cases on shards 1..={g})"),
            None => Ok(()),
        }
    }
}

impl Shard {
    /// This shard of a split whose first `g` shards take the cases that need a GPU.
    pub fn with_gpu_shards(self, g: usize) -> Result<Shard, String> {
        if g == 0 || g > self.count {
            return Err(format!("--gpu-shards {g}: must be in 1..={} (the N of --shard {self})", self.count));
        }
        Ok(Shard { gpu_shards: Some(g), ..self })
    }

    /// The cases of this shard, in the profile's order: the cases are dealt
    /// longest first (by weight, ties in the profile's order), each to the shard
    /// with the least weight so far (ties to the lowest K). With `--gpu-shards G`
    /// the cases that `needs` says need a GPU are dealt so over shards 1..=G, the
    /// others over G+1..=N (over all N when G = N).
    pub fn select(&self, cases: Vec<Case>, needs: impl Fn(&Case) -> Resource) -> Vec<Case> {
        let mut order: Vec<usize> = (0..cases.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(cases[i].weight));
        let mut load = vec![0u64; self.count];
        let mut mine = vec![false; cases.len()];
        for i in order {
            let lanes = match self.gpu_shards {
                Some(g) if g < self.count && needs(&cases[i]) != Resource::Gpu => g..self.count,
                Some(g) => 0..g,
                None => 0..self.count,
            };
            let k = lanes.min_by_key(|&k| (load[k], k)).expect("at least one shard");
            load[k] += cases[i].weight.max(1);
            mine[i] = k + 1 == self.index;
        }
        cases.into_iter().zip(mine).filter_map(|(c, m)| m.then_some(c)).collect()
    }

    /// The folder of this shard's records for `profile`, under a paper's
    /// records folder (where an older evorepro began this shard under
    /// `shards/`, and its parent folder has not moved it yet, that one).
    pub fn folder(&self, records: &Path, profile: &str) -> PathBuf {
        let gpu = self.gpu_shards.map_or(String::new(), |g| format!("-gpu-{g}"));
        let name = format!("{profile}__shard-{}-of-{}{gpu}", self.index, self.count);
        let (today, older) = (records.join(SHARDS).join(&name), records.join(records::LEGACY_SHARDS_DIR).join(&name));
        if !today.exists() && older.is_dir() { older } else { today }
    }
}

/// The folder of shard records, under a paper's records folder.
pub const SHARDS: &str = records::SHARDS_DIR;

/// A shard folder's profile and shard, from its name (`P__shard-K-of-N`, or
/// `P__shard-K-of-N-gpu-G` with `--gpu-shards G`).
fn parse_folder(name: &str) -> Option<(String, Shard)> {
    let (profile, rest) = name.rsplit_once("__shard-")?;
    let (k, n) = rest.split_once("-of-")?;
    let (n, gpu) = match n.split_once("-gpu-") {
        Some((n, g)) => (n, Some(g.parse().ok()?)),
        None => (n, None),
    };
    let shard: Shard = format!("{k}/{n}").parse().ok()?;
    Some((
        profile.to_owned(),
        match gpu {
            Some(g) => shard.with_gpu_shards(g).ok()?,
            None => shard,
        },
    ))
}

/// The shard folders under `records/_shards/` (and `records/shards/`, an
/// older layout's): profile, shard and folder, sorted.
fn shard_folders(records: &Path) -> Vec<(String, Shard, PathBuf)> {
    let mut found: Vec<(String, Shard, PathBuf)> = [SHARDS, records::LEGACY_SHARDS_DIR]
        .iter()
        .flat_map(|d| std::fs::read_dir(records.join(d)))
        .flatten()
        .flatten()
        .filter_map(|e| {
            let (profile, shard) = parse_folder(e.file_name().to_str()?)?;
            Some((profile, shard, e.path()))
        })
        .collect();
    found.sort_by_key(|(p, s, _)| (p.clone(), s.count, s.index));
    found
}

/// Record files of shards not yet merged (each shard folder's `*.parquet`).
pub fn unmerged(out: &Path, id: &str) -> Vec<PathBuf> {
    shard_folders(&records_dir(out, id)).into_iter().flat_map(|(_, _, dir)| records::record_files(&dir)).collect()
}

/// One merged records file.
pub struct Merged {
    pub file: PathBuf,
    pub shards: usize,
    pub cases: usize,
    pub rows: usize,
    /// With `--partial`: the shards that had not stored all their cases (left in
    /// place, with every other shard of the profile, for `--resume` and a later merge).
    pub incomplete: Vec<String>,
}

/// A shard whose records lack some of the cases it plans.
struct Incomplete {
    shard: Shard,
    stored: usize,
    planned: usize,
    missing: Vec<String>,
}

impl std::fmt::Display for Incomplete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let more = if self.missing.len() > 3 { format!(", … {} more", self.missing.len() - 3) } else { String::new() };
        let first: Vec<&str> = self.missing.iter().take(3).map(String::as_str).collect();
        write!(f, "shard {} stored {} of its {} cases (missing {}{more})", self.shard, self.stored, self.planned, first.join(", "))
    }
}

/// Combines the shards of `profile` (every sharded profile when None) under
/// `out/<id>/records/_shards/` into `out/<id>/records/<hw_id>__<profile>.parquet`
/// (one file per machine name the shards wrote). Refused, with both files and
/// values named, when shards of one profile disagree on N, when one of 1..N has
/// no records, when two shards stored the same case, or when their rows carry
/// another spec hash or commit, and when a shard lacks some of the cases
/// `planned(profile, shard)` gives it (a shard killed before its end) unless
/// `partial`. A records file already there is archived (as a fresh run
/// archives it); the shard folders move to `records/_archive/shards/` only after the
/// merged file and its checksum are written, and only when every shard of the
/// profile stored all its cases: a partial merge leaves them for `--resume`.
pub fn merge(
    out: &Path,
    id: &str,
    profile: Option<&str>,
    planned: &dyn Fn(&str, &Shard) -> Result<Vec<String>>,
    partial: bool,
) -> Result<Vec<Merged>> {
    if let Some(p) = profile {
        crate::spec::check_name("profile", p)?;
    }
    let records = records_dir(out, id);
    let mut by_profile: BTreeMap<String, Vec<(Shard, PathBuf)>> = BTreeMap::new();
    for (p, shard, dir) in shard_folders(&records) {
        if profile.is_none_or(|want| want == p) {
            by_profile.entry(p).or_default().push((shard, dir));
        }
    }
    if by_profile.is_empty() {
        let which = profile.map_or(String::new(), |p| format!(" of profile `{p}`"));
        bail!("no shards{which} to merge under {}", records.join(SHARDS).display());
    }
    let mut merged = Vec::new();
    for (p, shards) in &by_profile {
        merged.extend(merge_profile(&records, p, shards, planned, partial)?);
    }
    Ok(merged)
}

/// The first value of `column` in a shard file's rows, with the file, for error messages.
struct Seen {
    value: String,
    file: PathBuf,
}

fn merge_profile(
    records: &Path,
    profile: &str,
    shards: &[(Shard, PathBuf)],
    planned: &dyn Fn(&str, &Shard) -> Result<Vec<String>>,
    partial: bool,
) -> Result<Vec<Merged>> {
    let (n, g) = (shards[0].0.count, shards[0].0.gpu_shards);
    if let Some((other, dir)) = shards.iter().find(|(s, _)| (s.count, s.gpu_shards) != (n, g)) {
        bail!(
            "shards of profile `{profile}` split it differently: {} is {}, {} is {other} — merge shards of one split (remove the other)",
            shards[0].1.display(),
            shards[0].0,
            dir.display(),
        );
    }
    // No shard may be running: each folder's writer lock is held until the folders move.
    let shard_locks = shards.iter().map(|(_, dir)| records::WriterLock::take(dir)).collect::<Result<Vec<_>, _>>()?;
    // Rows of each machine's file name, with the file each row came from.
    let mut groups: BTreeMap<String, Vec<(PathBuf, Vec<Record>)>> = BTreeMap::new();
    let mut with_records = vec![false; n];
    let mut incomplete = Vec::new();
    for (shard, dir) in shards {
        let mut stored = std::collections::BTreeSet::new();
        for f in records::record_files(dir) {
            let rows = records::read_parquet(&f)?;
            with_records[shard.index - 1] = true;
            stored.extend(rows.iter().filter(|r| r.str(col::RECORD_KIND) == "measurement").map(|r| r.str(col::CASE_ID).to_owned()));
            let name = f.file_stem().and_then(|s| s.to_str()).context("a records file name")?.to_owned();
            groups.entry(name).or_default().push((f, rows));
        }
        let plan = planned(profile, shard).with_context(|| format!("the cases of shard {shard} of profile `{profile}`"))?;
        let missing: Vec<String> = plan.iter().filter(|c| !stored.contains(*c)).cloned().collect();
        if with_records[shard.index - 1] && !missing.is_empty() {
            incomplete.push(Incomplete { shard: *shard, stored: plan.len() - missing.len(), planned: plan.len(), missing });
        }
    }
    let missing: Vec<String> = (1..=n).filter(|k| !with_records[k - 1]).map(|k| format!("{k}/{n}")).collect();
    if !missing.is_empty() {
        bail!(
            "profile `{profile}`: no records from shard {} under {} — run it (`reproduce … --shard K/{n}`) before merging",
            missing.join(", "),
            records.join(SHARDS).display()
        );
    }
    if !incomplete.is_empty() && !partial {
        let list: Vec<String> = incomplete.iter().map(ToString::to_string).collect();
        let first = incomplete[0].shard;
        let gpu = first.gpu_shards.map_or(String::new(), |g| format!(" --gpu-shards {g}"));
        bail!(
            "profile `{profile}`: {} — finish it with `reproduce … --profile {profile} --shard {}/{}{gpu} --resume`, or merge what is stored with --partial (the shards stay for a later merge)",
            list.join("; "),
            first.index,
            first.count
        );
    }
    let incomplete: Vec<String> = incomplete.iter().map(ToString::to_string).collect();
    // Every check passes before anything is written.
    let mut plans = Vec::new();
    let mut plans_rows = Vec::new();
    for (name, files) in groups {
        let mut owner: BTreeMap<String, &Path> = BTreeMap::new();
        let mut first: BTreeMap<&str, Seen> = BTreeMap::new();
        let mut rows = Vec::new();
        for (file, shard_rows) in &files {
            let mut cases_here = std::collections::BTreeSet::new();
            for r in shard_rows {
                for column in [col::SPEC_HASH, col::GIT_COMMIT] {
                    let value = r.str(column);
                    match first.get(column) {
                        None => {
                            first.insert(column, Seen { value: value.to_owned(), file: file.clone() });
                        }
                        Some(seen) if seen.value != value => bail!(
                            "cannot merge: {} has {column} `{}`, {} has `{value}` — shards must come from one spec and one commit",
                            seen.file.display(),
                            seen.value,
                            file.display()
                        ),
                        Some(_) => {}
                    }
                }
                if r.str(col::RECORD_KIND) == "measurement" {
                    cases_here.insert(r.str(col::CASE_ID).to_owned());
                }
            }
            for case in cases_here {
                if let Some(other) = owner.insert(case.clone(), file) {
                    bail!("cannot merge: case `{case}` is stored by both {} and {}", other.display(), file.display());
                }
            }
            rows.extend(shard_rows.iter().cloned());
        }
        plans.push(Merged {
            file: records.join(format!("{name}.parquet")),
            shards: files.len(),
            cases: owner.len(),
            rows: rows.len(),
            incomplete: incomplete.clone(),
        });
        plans_rows.push(rows);
    }
    let _lock = records::WriterLock::take(records)?;
    for (m, rows) in plans.iter().zip(&plans_rows) {
        let stem = m.file.with_extension("");
        if m.file.exists() {
            records::archive(&stem).with_context(|| format!("archiving {}", m.file.display()))?;
        }
        records::write_records(&stem, rows)?;
    }
    drop(shard_locks);
    if !incomplete.is_empty() {
        return Ok(plans);
    }
    let archive = records.join(records::ARCHIVE_DIR).join("shards");
    std::fs::create_dir_all(&archive).with_context(|| format!("creating {}", archive.display()))?;
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    for (_, dir) in shards {
        let name = dir.file_name().and_then(|s| s.to_str()).unwrap_or("shard");
        let to = archive.join(format!("{name}.{stamp}"));
        std::fs::rename(dir, &to).with_context(|| format!("moving {} to {}", dir.display(), to.display()))?;
    }
    Ok(plans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str, weight: u64) -> Case {
        Case { id: id.into(), params: Record::new(), weight }
    }

    #[test]
    fn shard_values_are_checked_and_named() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3, gpu_shards: None }));
        for (bad, why) in
            [("0/3", "K = 0 is outside 1..=3"), ("4/3", "K = 4"), ("1/0", "N must be at least 1"), ("3", "no `/`"), ("a/2", "K = `a`")]
        {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains(&format!("--shard `{bad}`")) && e.contains(why), "{e}");
        }
    }

    #[test]
    fn shards_split_the_cases_exactly_once_longest_first() {
        let cases: Vec<Case> = [9, 1, 5, 5, 3, 8, 2, 2].iter().enumerate().map(|(i, &w)| case(&format!("c{i}"), w)).collect();
        let mut seen = Vec::new();
        let mut loads = Vec::new();
        for k in 1..=3 {
            let part = Shard { index: k, count: 3, gpu_shards: None }.select(cases.clone(), |_| Resource::Gpu);
            // In the profile's order.
            let at: Vec<usize> = part.iter().map(|c| cases.iter().position(|d| d.id == c.id).unwrap()).collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
            loads.push(part.iter().map(|c| c.weight).sum::<u64>());
            seen.extend(part.into_iter().map(|c| c.id));
        }
        seen.sort();
        let mut all: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
        all.sort();
        assert_eq!(seen, all);
        // 35 in all, dealt 9, 8, 5, 5, 3, 2, 2, 1 each to the least-loaded shard (ties
        // to the lowest): 9+2+1, 8+3, 5+5+2 → 12, 11, 12.
        assert_eq!(loads, vec![12, 11, 12]);
        assert_eq!(Shard { index: 1, count: 1, gpu_shards: None }.select(cases.clone(), |_| Resource::Gpu).len(), cases.len());
    }

    #[test]
    fn shard_folders_name_profile_and_shard() {
        let shard = Shard { index: 2, count: 8, gpu_shards: None };
        let dir = shard.folder(Path::new("r"), "paper");
        assert_eq!(dir, Path::new("r/_shards/paper__shard-2-of-8"));
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert_eq!(parse_folder(name), Some(("paper".into(), shard)));
        assert_eq!(parse_folder("paper__shard-9-of-8"), None);
        let split = shard.with_gpu_shards(1).unwrap();
        let dir = split.folder(Path::new("r"), "paper");
        assert_eq!(dir, Path::new("r/_shards/paper__shard-2-of-8-gpu-1"));
        assert_eq!(parse_folder(dir.file_name().unwrap().to_str().unwrap()), Some(("paper".into(), split)));
        assert_eq!(parse_folder("paper__shard-2-of-8-gpu-9"), None);
        // A shard an older evorepro began under `shards/` is resumed there, and found there to merge.
        let tmp = tempfile::tempdir().unwrap();
        let older = tmp.path().join("shards/paper__shard-2-of-8");
        std::fs::create_dir_all(&older).unwrap();
        assert_eq!(shard.folder(tmp.path(), "paper"), older);
        assert_eq!(shard_folders(tmp.path()), vec![("paper".to_owned(), shard, older)]);
    }

    #[test]
    fn gpu_shards_take_the_gpu_cases_and_the_others_the_rest() {
        // Cases 0, 2, 4 need a GPU (weights 9, 5, 3), 1, 3, 5 need none (weights 1, 5, 8).
        let cases: Vec<Case> = [9, 1, 5, 5, 3, 8].iter().enumerate().map(|(i, &w)| case(&format!("c{i}"), w)).collect();
        let needs =
            |c: &Case| if c.id.trim_start_matches('c').parse::<usize>().unwrap() % 2 == 0 { Resource::Gpu } else { Resource::CpuThread };
        let split = |k: usize, n: usize, g: usize| -> Vec<String> {
            Shard { index: k, count: n, gpu_shards: None }
                .with_gpu_shards(g)
                .unwrap()
                .select(cases.clone(), needs)
                .into_iter()
                .map(|c| c.id)
                .collect()
        };
        // One GPU shard takes every GPU case; the two others share the rest longest first: 8 | 5, 1.
        assert_eq!(split(1, 3, 1), ["c0", "c2", "c4"]);
        assert_eq!(split(2, 3, 1), ["c5"]);
        assert_eq!(split(3, 3, 1), ["c1", "c3"]);
        // G = N: every shard takes both kinds, each kind dealt on its own.
        let mut all: Vec<String> = (1..=2).flat_map(|k| split(k, 2, 2)).collect();
        all.sort();
        assert_eq!(all, ["c0", "c1", "c2", "c3", "c4", "c5"]);
        for bad in [0, 4] {
            let e = Shard { index: 1, count: 3, gpu_shards: None }.with_gpu_shards(bad).unwrap_err();
            assert!(e.contains(&format!("--gpu-shards {bad}")) && e.contains("1..=3"), "{e}");
        }
    }
}
