//! Generated sets (Section 4 and Table 1): ParMX, waveform, the sweeps' planted sets and the labelled stand-ins
//! for the sets that are not public.

use super::csv::names;
use super::{Attribute, Dataset};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// Bits per parity block and parity blocks of [`parmx`].
pub(super) const PARMX_BLOCK: usize = 3;
pub(super) const PARMX_BLOCKS: usize = 6;

/// ParMX, the hierarchical parity-multiplexer of Butz (2006, the paper's ref. [8]),
/// Table 1's "Par": 18 binary attributes in 6 blocks of 3; the parity of each block
/// gives one bit of a 6-bit multiplexer (the first two parity bits, most significant
/// first, address one of the other four, whose value is the class). All 2^18 =
/// 262,144 inputs are enumerated (instance `k` has attribute `j` = bit `17 − j` of
/// `k`), so the classes are exactly balanced. Ten-fold cross-validation gives
/// training sets of 262,144 − 26,215 = 235,929 (four folds) or 235,930 (six
/// folds); 0.9 × 262,144 = 235,929.6, and the paper's |T| is 235,929.
pub fn parmx() -> Dataset {
    let bits = PARMX_BLOCK * PARMX_BLOCKS;
    let n = 1usize << bits;
    let mut values = Vec::with_capacity(n * bits);
    let mut labels = Vec::with_capacity(n);
    for k in 0..n {
        let row: Vec<u8> = (0..bits).map(|j| ((k >> (bits - 1 - j)) & 1) as u8).collect();
        let parity: Vec<usize> = row.chunks(PARMX_BLOCK).map(|b| usize::from(b.iter().fold(0, |p, x| p ^ x))).collect();
        let address = parity[0] * 2 + parity[1];
        labels.push(parity[2 + address] as u16);
        values.extend(row.iter().map(|&b| f32::from(b)));
    }
    Dataset {
        name: "ParMX (synthetic 3-parity 6-multiplexer)".into(),
        attributes: (0..bits).map(|j| Attribute::Nominal { name: format!("b{j}"), values: names(&["0", "1"]) }).collect(),
        classes: names(&["0", "1"]),
        values,
        labels,
        synthetic: true,
    }
}

/// A standard normal draw (Box–Muller).
fn standard_normal(rng: &mut StdRng) -> f64 {
    let u1 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Breiman et al.'s waveform with 40 attributes (CART, 1984, pp. 49–55, as
/// `shared/data/SOURCES.md` states it): base waves h1, h2, h3 over i = 1..21
/// (triangles of height 6 centred at 7, 15, 11); a class uniform in {0, 1, 2} and
/// u ~ U(0, 1) mix two of them (0: h1, h2; 1: h1, h3; 2: h2, h3); N(0, 1) noise is
/// added to each of the 21 attributes and 19 pure N(0, 1) attributes follow.
pub fn waveform(n: usize, seed: u64) -> Dataset {
    let h = |centre: f64, i: usize| (6.0 - (i as f64 - centre).abs()).max(0.0);
    let waves = [[7.0, 15.0], [7.0, 11.0], [15.0, 11.0]];
    let mut rng = StdRng::seed_from_u64(seed);
    let mut values = Vec::with_capacity(n * 40);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let class = rng.random_range(0..3usize);
        let u = rng.random::<f64>();
        let [a, b] = waves[class];
        for i in 1..=21 {
            values.push((u * h(a, i) + (1.0 - u) * h(b, i) + standard_normal(&mut rng)) as f32);
        }
        for _ in 0..19 {
            values.push(standard_normal(&mut rng) as f32);
        }
        labels.push(class as u16);
    }
    Dataset {
        name: format!("waveform-40 (synthetic, Breiman et al., seed {seed})"),
        attributes: (1..=40).map(|i| Attribute::Continuous { name: format!("x{i}") }).collect(),
        classes: names(&["0", "1", "2"]),
        values,
        labels,
        synthetic: true,
    }
}

/// Values of each nominal attribute of [`scalable`] and [`synthetic_standin`].
const SYNTHETIC_NOMINAL_VALUES: usize = 4;

/// A synthetic set for the sweeps: `instances` × `attributes` (a share
/// `nominal_fraction` of them nominal with 4 values, spread evenly; the rest
/// continuous, uniform on [0, 1)) × `classes`. The class depends on two attributes
/// drawn from the seed: class = (bucket(a) + bucket(b)) mod classes, where a
/// continuous value x falls in bucket ⌊x · classes⌋ and nominal value v in
/// ⌊v · classes / 4⌋, so a set of interval / value-set rules describes it exactly.
pub fn scalable(instances: usize, attributes: usize, classes: usize, nominal_fraction: f64, seed: u64) -> Dataset {
    let nominal = ((attributes as f64 * nominal_fraction.clamp(0.0, 1.0)).round() as usize).min(attributes);
    let name = format!("scalable {instances}×{attributes}×{classes} ({nominal} nominal, synthetic, seed {seed})");
    planted(name, instances, attributes, nominal, classes, seed)
}

fn planted(name: String, instances: usize, attributes: usize, nominal: usize, classes: usize, seed: u64) -> Dataset {
    assert!(attributes >= 1 && classes >= 1, "a synthetic set needs an attribute and a class");
    let is_nominal: Vec<bool> = (0..attributes).map(|i| (i + 1) * nominal / attributes > i * nominal / attributes).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..attributes).collect();
    order.shuffle(&mut rng);
    let relevant = &order[..attributes.min(2)];
    let bucket = |att: usize, v: f32| {
        if is_nominal[att] {
            v as usize * classes / SYNTHETIC_NOMINAL_VALUES
        } else {
            ((v as f64 * classes as f64) as usize).min(classes - 1)
        }
    };
    let mut values = Vec::with_capacity(instances * attributes);
    let mut labels = Vec::with_capacity(instances);
    for _ in 0..instances {
        let start = values.len();
        for &nom in &is_nominal {
            values.push(if nom { rng.random_range(0..SYNTHETIC_NOMINAL_VALUES) as f32 } else { rng.random::<f32>() });
        }
        let row = &values[start..];
        labels.push((relevant.iter().map(|&a| bucket(a, row[a])).sum::<usize>() % classes) as u16);
    }
    let value_names: Vec<String> = (0..SYNTHETIC_NOMINAL_VALUES).map(|v| format!("v{v}")).collect();
    Dataset {
        name,
        attributes: is_nominal
            .iter()
            .enumerate()
            .map(|(i, &nom)| {
                let name = format!("a{i}");
                if nom { Attribute::Nominal { name, values: value_names.clone() } } else { Attribute::Continuous { name } }
            })
            .collect(),
        classes: (0..classes).map(|c| c.to_string()).collect(),
        values,
        labels,
        synthetic: true,
    }
}

/// The protein-structure sets of Table 1, which are not public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandIn {
    Cn,
    Ss,
    Sa,
}

/// The shape of a set: instances of the whole set and attribute counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub instances: usize,
    pub continuous: usize,
    pub nominal: usize,
    pub classes: usize,
}

impl StandIn {
    pub const ALL: [StandIn; 3] = [StandIn::Cn, StandIn::Ss, StandIn::Sa];

    pub fn label(self) -> &'static str {
        match self {
            StandIn::Cn => "CN",
            StandIn::Ss => "SS",
            StandIn::Sa => "SA",
        }
    }

    /// Table 1's shape; the whole set is |T| / 0.9 rounded (|T| is a ten-fold
    /// training set): CN 234,638 → 260,709 × 180 continuous, 2 classes; SS 75,583 →
    /// 83,981 × 300 continuous, 3 classes; SA 493,788 → 548,653 × (244 continuous +
    /// 26 nominal), 2 classes.
    pub fn paper_shape(self) -> Shape {
        match self {
            StandIn::Cn => Shape { instances: 260_709, continuous: 180, nominal: 0, classes: 2 },
            StandIn::Ss => Shape { instances: 83_981, continuous: 300, nominal: 0, classes: 3 },
            StandIn::Sa => Shape { instances: 548_653, continuous: 244, nominal: 26, classes: 2 },
        }
    }
}

/// A clearly labelled synthetic stand-in for CN, SS or SA with the attributes and
/// classes of Table 1 and `instances` instances (the paper's:
/// `set.paper_shape().instances`), generated as [`scalable`] does. Its name says
/// "synthetic stand-in"; its timings are not the real set's accuracy.
pub fn synthetic_standin(set: StandIn, instances: usize, seed: u64) -> Dataset {
    let s = set.paper_shape();
    let name = format!("{} (synthetic stand-in, seed {seed})", set.label());
    planted(name, instances, s.continuous + s.nominal, s.nominal, s.classes, seed)
}
