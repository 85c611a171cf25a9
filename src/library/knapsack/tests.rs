//! Tests of the knapsack: loading, the penalised fitness, Pisinger's generator, the exact solvers and the
//! certificates.

use super::*;
use std::path::PathBuf;

fn temp_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("evorepro-knapsack-{}-{name}.txt", std::process::id()));
    std::fs::write(&path, text).expect("write temp file");
    path
}

fn load_error(name: &str, text: &str) -> String {
    let path = temp_file(name, text);
    let error = Instance::load(&path, None).expect_err("malformed file must be rejected");
    std::fs::remove_file(&path).ok();
    format!("{error:#}")
}

/// A small deterministic pseudo-random instance (splitmix64).
fn random_instance(n: usize, seed: u64) -> Instance {
    let mut state = seed;
    let mut next = |m: u64| {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % m) as u32
    };
    let prices: Vec<u32> = (0..n).map(|_| next(100)).collect();
    let weights: Vec<u32> = (0..n).map(|_| next(60)).collect();
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let capacity = u64::from(next(total + 1));
    Instance { name: format!("random-{n}-{seed}"), prices, weights, capacity }
}

fn brute_force(instance: &Instance) -> u64 {
    let n = instance.item_count();
    (0u32..1 << n)
        .filter_map(|set| {
            let items: Vec<usize> = (0..n).filter(|i| set >> i & 1 == 1).collect();
            let e = instance.evaluate_items(&items);
            e.feasible.then_some(e.price)
        })
        .max()
        .unwrap_or(0)
}

fn pack(n: usize, items: &[usize]) -> Vec<u32> {
    let mut chromosome = vec![0u32; n.div_ceil(WORD_BITS)];
    for &i in items {
        chromosome[i / WORD_BITS] |= 1 << (i % WORD_BITS);
    }
    chromosome
}

#[test]
fn loads_the_papers_instances() {
    let small = paper_instance("jaros_knap_40.txt");
    assert_eq!((small.name.as_str(), small.item_count(), small.capacity), ("jaros_knap_40", 40, 600));
    assert_eq!((small.prices[0], small.prices[39], small.weights[0], small.weights[39]), (223, 72, 14, 17));
    assert_eq!((small.total_price(), small.total_weight(), small.penalty_ratio()), (4250, 900, 214));

    let large = paper_instance("jaros_knap_10000.txt");
    assert_eq!((large.item_count(), large.capacity), (10_000, 2_484_605));
    assert_eq!((large.total_price(), large.total_weight(), large.penalty_ratio()), (5_469_211, 4_969_211, 51));
    assert!(large.prices.iter().zip(&large.weights).all(|(&p, &w)| p == w + 50), "strongly correlated: p = w + 50");
}

#[test]
fn rejects_malformed_files() {
    let cases = [
        ("empty", "\n\n", "empty file"),
        ("count", "3 4\n1 2 3\n1 2 3\n5\n", ":1: expected the item count alone"),
        ("zero", "0\n\n5\n", "item count is 0"),
        ("short-prices", "3\n\n1 2\n1 2 3\n5\n", ":3: expected 3 prices (the item count), found 2"),
        ("long-weights", "3\n1 2 3\n\n1 2 3 4\n5\n", ":4: expected 3 weights (the item count), found 4"),
        ("token", "3\n1 x2 3\n1 2 3\n5\n", ":2: prices #2 \"x2\" is not an integer"),
        ("negative", "3\n1 2 3\n1 -2 3\n5\n", ":3: weights #2 \"-2\" is not an integer"),
        ("no-capacity", "3\n1 2 3\n1 2 3\n\n", "missing the capacity"),
        ("no-weights", "3\n1 2 3\n", "missing the weights line"),
        ("bad-capacity", "3\n1 2 3\n1 2 3\n5.5\n", ":4: the capacity \"5.5\" is not a non-negative integer"),
        ("extra", "3\n1 2 3\n1 2 3\n5\n\n7\n", ":6: unexpected content \"7\""),
    ];
    for (name, text, expected) in cases {
        let message = load_error(name, text);
        assert!(message.contains(expected), "{name}: {message:?} lacks {expected:?}");
        assert!(message.contains(&format!("evorepro-knapsack-{}-{name}", std::process::id())), "{name}: no file name in {message:?}");
    }
    let missing = format!("{:#}", Instance::load("/nonexistent/knap.txt", None).unwrap_err());
    assert!(missing.contains("/nonexistent/knap.txt"), "{missing}");
}

#[test]
fn fitness_of_packed_chromosomes() {
    let instance = paper_instance("jaros_knap_40.txt");
    let evaluator = Evaluator::new(&instance);
    let zero = evaluator.evaluate(&[0; 32]);
    assert_eq!(zero, Evaluation { price: 0, weight: 0, fitness: 0, feasible: true });
    // Items 0, 1 and 33 (second word): prices 223 + 230 + 130, weights 14 + 38 + 26.
    let chosen = evaluator.evaluate(&pack(40, &[0, 1, 33]));
    assert_eq!(chosen, Evaluation { price: 583, weight: 78, fitness: 583, feasible: true });
    assert_eq!(chosen, instance.evaluate_items(&[0, 1, 33]));
    // Everything: weight 900 > 600, 4250 − 214·300 < 0 saturates to 0.
    let all = evaluator.evaluate(&pack(40, &(0..40).collect::<Vec<_>>()));
    assert_eq!(all, Evaluation { price: 4250, weight: 900, fitness: 0, feasible: false });
    // A mild overweight is penalised by ratio × excess.
    let tiny = Instance { name: "tiny".into(), prices: vec![10, 7, 3], weights: vec![4, 3, 2], capacity: 6 };
    assert_eq!(tiny.penalty_ratio(), 2);
    let over = Evaluator::new(&tiny).evaluate(&[0b111]);
    assert_eq!(over, Evaluation { price: 20, weight: 9, fitness: 20 - 2 * 3, feasible: false });
    assert_eq!(Evaluator::new(&tiny).evaluate(&[0b011]).fitness, 17 - 2);
    assert_eq!(Evaluator::new(&tiny).evaluate(&[0b101]).fitness, 13);
}

#[test]
fn pisinger_check_values() {
    let instance = pisinger(PisingerKind::Uncorrelated, 10_000, 1000, 1, 100);
    assert_eq!(instance.name, "knapPI_1_10000_1000_1");
    assert_eq!(instance.capacity, 49_877);
    let start = std::time::Instant::now();
    assert_eq!(optimum_dp(&instance), Some(563_647));
    let elapsed = start.elapsed();
    assert!(upper_bound_lp(&instance) >= 563_647);
    assert!(cfg!(debug_assertions) || elapsed.as_secs_f64() < 2.0, "DP took {elapsed:?}");
}

#[test]
fn pisinger_kinds_follow_their_definitions() {
    for kind in [PisingerKind::WeaklyCorrelated, PisingerKind::StronglyCorrelated, PisingerKind::SubsetSum] {
        let instance = pisinger(kind, 200, 1000, 3, 100);
        for (&p, &w) in instance.prices.iter().zip(&instance.weights) {
            assert!((1..=1000).contains(&w));
            match kind {
                PisingerKind::WeaklyCorrelated => assert!(p >= 1 && p.abs_diff(w) <= 100, "{p} {w}"),
                PisingerKind::StronglyCorrelated => assert_eq!(p, w + 100),
                _ => assert_eq!(p, w),
            }
        }
        assert_eq!(instance.capacity, 3 * instance.total_weight() / 101);
    }
}

#[test]
fn dp_matches_brute_force_and_lp_bounds_it() {
    for seed in 0..40 {
        let instance = random_instance(1 + seed as usize % 16, seed);
        let optimum = optimum_dp(&instance).unwrap();
        assert_eq!(optimum, brute_force(&instance), "{}", instance.name);
        assert!(upper_bound_lp(&instance) >= optimum, "{}", instance.name);
    }
    // Heavier weights exercise the vectorised blocks of the DP.
    for seed in 0..20 {
        let mut instance = random_instance(14, 100 + seed);
        instance.weights.iter_mut().for_each(|w| *w = *w * 7 + 16);
        instance.capacity *= 7;
        assert_eq!(optimum_dp(&instance).unwrap(), brute_force(&instance), "{}", instance.name);
    }
    let jaros40 = paper_instance("jaros_knap_40.txt");
    assert!(upper_bound_lp(&jaros40) >= optimum_dp(&jaros40).unwrap());
}

/// Small instances of any shape: weights and prices up to 80 (zeros included), capacity up to the total weight
/// and beyond; every fourth a subset-sum instance.
fn small_instance() -> impl proptest::strategy::Strategy<Value = Instance> {
    use proptest::prelude::*;
    (prop::collection::vec((0u32..80, 0u32..80), 1..14), 0u64..1200, any::<bool>()).prop_map(|(items, capacity, subset)| {
        let weights: Vec<u32> = items.iter().map(|i| i.1).collect();
        let prices = if subset { weights.clone() } else { items.iter().map(|i| i.0).collect() };
        Instance { name: "proptest".into(), prices, weights, capacity }
    })
}

proptest::proptest! {
    #[test]
    fn certificates_bracket_the_brute_force_optimum(instance in small_instance()) {
        let optimum = brute_force(&instance);
        let c = certify(&instance);
        proptest::prop_assert!(c.feasible <= optimum && optimum <= c.bound, "{c:?} against {optimum}");
        proptest::prop_assert_eq!(c.optimum.clone().map(|o| o.0), Ok(optimum));
        proptest::prop_assert_eq!(c.reference(), (optimum, "optimum"));
        let greedy = instance.evaluate_items(&greedy(&instance));
        proptest::prop_assert!(greedy.feasible && greedy.price == c.feasible);
        proptest::prop_assert_eq!(optimum_dp(&instance), Some(optimum));
        if instance.prices == instance.weights {
            proptest::prop_assert_eq!(subset_sum_bitset(&instance), Some(optimum));
        }
        proptest::prop_assert!(c.check(optimum).is_ok());
        proptest::prop_assert!(c.check(optimum + 1).is_err());
    }
}

#[test]
fn the_bitset_crosses_word_boundaries() {
    // Weights around the 64-bit words, every capacity up to past the total: 191 is not reachable (130 is the best),
    // 192 = 63 + 64 + 65 is.
    let weights = vec![63, 64, 65, 130, 1];
    for capacity in 0..=340 {
        let instance = Instance { name: "words".into(), prices: weights.clone(), weights: weights.clone(), capacity };
        assert_eq!(subset_sum_bitset(&instance), Some(brute_force(&instance)), "capacity {capacity}");
    }
    let at = |capacity| subset_sum_bitset(&Instance { name: "w".into(), prices: weights.clone(), weights: weights.clone(), capacity });
    assert_eq!((at(190), at(192), at(62)), (Some(131), Some(192), Some(1)));
    // Not subset sum: no answer.
    assert_eq!(subset_sum_bitset(&Instance { name: "p".into(), prices: vec![2], weights: vec![1], capacity: 1 }), None);
}

#[test]
fn the_papers_instances_are_certified() {
    let small = certify(&paper_instance("jaros_knap_40.txt"));
    assert_eq!(small.optimum, Ok((4068, Exact::DenseDp)));
    assert!(small.check(4068).is_ok());
    assert!(small.check(4069).unwrap_err().contains("the exact optimum is 4068"));
    let large = certify(&paper_instance("jaros_knap_10000.txt"));
    let why = large.optimum.clone().unwrap_err();
    assert!(why.starts_with("bound only") && why.contains("2.5e10 cells"), "{why}");
    assert!(large.feasible <= JAROS_KNAP_10000_OPTIMUM && JAROS_KNAP_10000_OPTIMUM <= large.bound, "{large:?}");
    assert!(large.check(JAROS_KNAP_10000_OPTIMUM).is_ok());
    assert!(large.check(large.bound + 1).unwrap_err().contains("exceeds Dantzig's linear-relaxation bound"));
    assert!(large.check(large.feasible - 1).unwrap_err().contains("a feasible solution worth"));
    assert_eq!(large.reference(), (large.bound, "bound"));
}

#[test]
fn empty_knapsacks_are_certified_as_zero() {
    // Zero capacity, and a capacity below every weight: the optimum is 0 and any positive claim is refused.
    for capacity in [0, 3] {
        let instance = Instance { name: "none fits".into(), prices: vec![5, 6], weights: vec![4, 9], capacity };
        let c = certify(&instance);
        assert_eq!((c.bound, c.feasible, c.optimum.clone()), (0, 0, Ok((0, Exact::GreedyMeetsBound))));
        assert!(c.check(1).unwrap_err().contains("no item of positive price fits the capacity"));
        assert!(c.check(0).is_ok());
    }
}

#[test]
fn every_family_follows_its_definition_and_capacity_ratio() {
    for kind in [
        PisingerKind::Uncorrelated,
        PisingerKind::WeaklyCorrelated,
        PisingerKind::StronglyCorrelated,
        PisingerKind::InverseStronglyCorrelated,
        PisingerKind::SubsetSum,
    ] {
        let instance = pisinger_with_ratio(kind, 500, 1000, 0.05, 7);
        assert_eq!(instance, pisinger_with_ratio(kind, 500, 1000, 0.05, 7), "deterministic from the seed");
        assert_ne!(instance.weights, pisinger_with_ratio(kind, 500, 1000, 0.05, 8).weights);
        assert_eq!(instance.capacity, (0.05 * instance.total_weight() as f64).floor() as u64);
        for (&p, &w) in instance.prices.iter().zip(&instance.weights) {
            let ok = match kind {
                PisingerKind::Uncorrelated => (1..=1000).contains(&p) && (1..=1000).contains(&w),
                PisingerKind::WeaklyCorrelated => (1..=1000).contains(&w) && p >= 1 && p.abs_diff(w) <= 100,
                PisingerKind::StronglyCorrelated => (1..=1000).contains(&w) && p == w + 100,
                PisingerKind::InverseStronglyCorrelated => (1..=1000).contains(&p) && w == p + 100,
                PisingerKind::SubsetSum => (1..=1000).contains(&w) && p == w,
            };
            assert!(ok, "{kind:?}: p {p}, w {w}");
        }
        let c = certify(&instance);
        let (optimum, _) = c.optimum.clone().unwrap();
        assert!(c.feasible <= optimum && optimum <= c.bound, "{kind:?} {c:?}");
    }
    // A ratio so small that no item fits is raised to the largest weight.
    let tiny = pisinger_with_ratio(PisingerKind::Uncorrelated, 50, 1000, 1e-6, 1);
    assert_eq!(tiny.capacity, u64::from(*tiny.weights.iter().max().unwrap()));
}

#[test]
fn dp_refuses_huge_tables() {
    let large = paper_instance("jaros_knap_10000.txt");
    assert_eq!(optimum_dp(&large), None);
}

fn weight_of(instance: &Instance, items: impl Iterator<Item = usize>) -> u64 {
    items.map(|i| u64::from(instance.weights[i])).sum()
}

#[test]
fn jaros_10000_optimum_is_attained() {
    let instance = paper_instance("jaros_knap_10000.txt");
    // The k lightest items are the most that fit.
    let mut order: Vec<usize> = (0..instance.item_count()).collect();
    order.sort_by_key(|&i| instance.weights[i]);
    let mut weight = 0u64;
    let k = order.iter().take_while(|&&i| {
        weight += u64::from(instance.weights[i]);
        weight <= instance.capacity
    });
    let k = k.count();
    let bound = instance.capacity + 50 * k as u64;
    assert_eq!(bound, JAROS_KNAP_10000_OPTIMUM);
    // Raise the weight of the k lightest to exactly the capacity by swapping a packed item for a heavier unused
    // one, the largest raise that still fits first. Items are kept in buckets by weight (0..1000).
    let mut packed: Vec<Vec<usize>> = vec![Vec::new(); 1000];
    let mut unused: Vec<Vec<usize>> = vec![Vec::new(); 1000];
    for (rank, &i) in order.iter().enumerate() {
        let buckets = if rank < k { &mut packed } else { &mut unused };
        buckets[instance.weights[i] as usize].push(i);
    }
    let mut room = instance.capacity - weight_of(&instance, order[..k].iter().copied());
    while room > 0 {
        let (light, raise) = (1..=room.min(999) as usize)
            .rev()
            .find_map(|raise| (0..1000 - raise).find(|&w| !packed[w].is_empty() && !unused[w + raise].is_empty()).map(|w| (w, raise)))
            .expect("a swap that adds weight exists");
        let (out, into) = (packed[light].pop().unwrap(), unused[light + raise].pop().unwrap());
        packed[light + raise].push(into);
        unused[light].push(out);
        room -= raise as u64;
    }
    let chosen: Vec<usize> = packed.concat();
    assert_eq!(chosen.len(), k);
    let e = instance.evaluate_items(&chosen);
    assert_eq!((e.price, e.weight, e.feasible), (JAROS_KNAP_10000_OPTIMUM, instance.capacity, true));
    assert!(upper_bound_lp(&instance) >= JAROS_KNAP_10000_OPTIMUM);
}
