//! Knapsack instances (Section IV.C): the item data and the loader of the author's file format.

use std::{fmt, path::Path};

use super::{Evaluation, Fitness};
use crate::library::dataset::{SizeLimit, read_data_file};
use anyhow::{Context, Result, bail, ensure};

/// The most items of an instance file.
pub const MAX_INSTANCE_ITEMS: usize = 1_000_000;
/// The most bytes of an instance file: its count, two lines of [`MAX_INSTANCE_ITEMS`] numbers of up to 10
/// digits (u32) and a separator each, and the capacity (20 digits), with room for blank lines and CRs.
pub const MAX_INSTANCE_BYTES: u64 = 2 * 12 * MAX_INSTANCE_ITEMS as u64 + 4096;

/// A 0/1 knapsack instance: item `i` has price `prices[i]` and weight `weights[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// File stem or generator name.
    pub name: String,
    /// Item prices.
    pub prices: Vec<u32>,
    /// Item weights.
    pub weights: Vec<u32>,
    /// Knapsack capacity.
    pub capacity: u64,
}

/// A file position for error messages: `path:line`.
struct At<'a>(&'a Path, usize);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.0.display(), self.1)
    }
}

impl Instance {
    /// Loads the format of the author's loader: line 1 the item count `n`; a line of `n` prices; a line of `n`
    /// weights; the capacity on the last non-empty line. Blank lines are skipped; anything else is an error naming
    /// the file, the line and what was expected.
    /// The file is read as [`read_data_file`] reads it: a regular file (under `root` when given) of at most
    /// [`MAX_INSTANCE_BYTES`].
    pub fn load(path: impl AsRef<Path>, root: Option<&Path>) -> Result<Instance> {
        let path = path.as_ref();
        let limit = SizeLimit { raw: MAX_INSTANCE_BYTES, content: Some(MAX_INSTANCE_BYTES) };
        let bytes = read_data_file(path, root, limit).with_context(|| format!("reading knapsack instance {}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text after byte {}", path.display(), e.utf8_error().valid_up_to()))?;
        let name = path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned());
        Instance::parse(name, path, &text)
    }

    /// Parses the text of an instance file; `path` only labels error messages.
    pub fn parse(name: String, path: &Path, text: &str) -> Result<Instance> {
        let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line.trim())).filter(|(_, line)| !line.is_empty());
        let Some((count_line, count_text)) = lines.next() else {
            bail!("{}: empty file, expected the item count on line 1", path.display());
        };
        let n: usize = single_integer(At(path, count_line), count_text, "the item count")?;
        ensure!(n > 0, "{}: the item count is 0, expected at least one item", At(path, count_line));
        ensure!(n <= MAX_INSTANCE_ITEMS, "{}: {n} items, at most {MAX_INSTANCE_ITEMS} are accepted", At(path, count_line));

        let (prices_line, prices_text) = lines
            .next()
            .with_context(|| format!("{}: missing the prices line, expected {n} prices after line {count_line}", path.display()))?;
        let prices = integer_row(At(path, prices_line), prices_text, n, "prices")?;
        let (weights_line, weights_text) = lines
            .next()
            .with_context(|| format!("{}: missing the weights line, expected {n} weights after line {prices_line}", path.display()))?;
        let weights = integer_row(At(path, weights_line), weights_text, n, "weights")?;
        let (capacity_line, capacity_text) = lines
            .next()
            .with_context(|| format!("{}: missing the capacity, expected it on a line after line {weights_line}", path.display()))?;
        let capacity: u64 = single_integer(At(path, capacity_line), capacity_text, "the capacity")?;
        if let Some((extra_line, extra)) = lines.next() {
            bail!("{}: unexpected content {extra:?} after the capacity on line {capacity_line}", At(path, extra_line));
        }
        Ok(Instance { name, prices, weights, capacity })
    }

    /// Number of items.
    pub fn item_count(&self) -> usize {
        self.prices.len()
    }

    /// Sum of all prices.
    pub fn total_price(&self) -> u64 {
        self.prices.iter().map(|&p| u64::from(p)).sum()
    }

    /// Sum of all weights.
    pub fn total_weight(&self) -> u64 {
        self.weights.iter().map(|&w| u64::from(w)).sum()
    }

    /// The penalty ratio `max(1, max ⌊p_i / w_i⌋)` over items with nonzero weight (module documentation).
    pub fn penalty_ratio(&self) -> u64 {
        self.prices.iter().zip(&self.weights).filter(|(_, w)| **w > 0).map(|(&p, &w)| u64::from(p / w)).max().unwrap_or(0).max(1)
    }

    /// The penalised fitness of a solution with total `price` and `weight`, given the penalty `ratio`.
    pub fn fitness(&self, price: u64, weight: u64, ratio: u64) -> Fitness {
        match weight.checked_sub(self.capacity) {
            None | Some(0) => price,
            Some(excess) => price.saturating_sub(ratio.saturating_mul(excess)),
        }
    }

    /// Price, weight and fitness of a set of item indices (each at most once).
    pub fn evaluate_items(&self, items: &[usize]) -> Evaluation {
        let price = items.iter().map(|&i| u64::from(self.prices[i])).sum();
        let weight = items.iter().map(|&i| u64::from(self.weights[i])).sum();
        Evaluation { price, weight, fitness: self.fitness(price, weight, self.penalty_ratio()), feasible: weight <= self.capacity }
    }
}

/// Parses a line that must hold exactly one non-negative integer.
fn single_integer<T: std::str::FromStr>(at: At<'_>, text: &str, what: &str) -> Result<T> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    ensure!(tokens.len() == 1, "{at}: expected {what} alone on the line, found {} tokens: {text:?}", tokens.len());
    tokens[0].parse().map_err(|_| anyhow::anyhow!("{at}: {what} {:?} is not a non-negative integer in range", tokens[0]))
}

/// Parses a line that must hold exactly `n` unsigned 32-bit integers.
fn integer_row(at: At<'_>, text: &str, n: usize, what: &str) -> Result<Vec<u32>> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    ensure!(tokens.len() == n, "{at}: expected {n} {what} (the item count), found {}", tokens.len());
    tokens
        .iter()
        .enumerate()
        .map(|(i, token)| {
            token.parse().map_err(|_| anyhow::anyhow!("{at}: {what} #{} {token:?} is not an integer in 0..=4294967295", i + 1))
        })
        .collect()
}

/// Loads one of the paper's instance files vendored under `datasets/knapsack/`, for tests.
#[cfg(test)]
pub(crate) fn paper_instance(file: &str) -> Instance {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/knapsack").join(file);
    Instance::load(&path, None).unwrap_or_else(|e| panic!("{e:#}"))
}
