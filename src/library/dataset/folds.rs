//! Ten-fold stratified cross-validation (Section 4).

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

/// Ten-fold (`k`-fold) stratified cross-validation (Section 4): the instances of
/// each class are shuffled with `seed`, the classes laid end to end, and position
/// p dealt to fold p mod k. Every index is in exactly one fold; fold sizes differ by
/// at most one and every class is split ⌊n_c / k⌋ or ⌈n_c / k⌉ per fold. Fold f
/// holds ⌊n / k⌋ + [f < n mod k] instances; indices are sorted within a fold.
pub fn stratified_folds(labels: &[u16], k: usize, seed: u64) -> Vec<Vec<usize>> {
    assert!(k >= 1, "at least one fold");
    let classes = labels.iter().map(|&l| usize::from(l) + 1).max().unwrap_or(0);
    let mut by_class = vec![Vec::new(); classes];
    for (i, &l) in labels.iter().enumerate() {
        by_class[usize::from(l)].push(i);
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for class in &mut by_class {
        class.shuffle(&mut rng);
    }
    let mut folds = vec![Vec::with_capacity(labels.len() / k + 1); k];
    for (p, i) in by_class.into_iter().flatten().enumerate() {
        folds[p % k].push(i);
    }
    folds.iter_mut().for_each(|f| f.sort_unstable());
    folds
}
