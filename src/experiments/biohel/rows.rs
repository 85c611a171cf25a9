//! BioHEL's records, one typed row per kind ([`crate::record_row!`]): the
//! columns are named here once and shared by `cases`, `methods` and `scale`
//! (which write them), `analysis` (which reads them) and the test fixtures.
//! A record holds several rows: its case's, then what its method measured.

crate::record_row! {
    /// An evaluation or learning case (Section 4): `set` of Table 1, its
    /// training fold in `windows` ILAS strata, a GA of `iterations`, from `seed`.
    pub struct SetCase {
        set: String,
        windows: usize,
        iterations: usize,
        seed: u64,
    }
}

crate::record_row! {
    /// A learning case's GA beyond its iterations (Table 4): BioHEL's population
    /// and the rule limit of a reduced budget.
    pub struct LearnGa {
        population: usize,
        max_rules: Option<usize>,
    }
}

crate::record_row! {
    /// A case of the sweep beyond the paper ([`super::scale`]): the scalable
    /// synthetic set of `instances` × `attributes`, a simulated GA of `iterations`.
    pub struct ScaleCase {
        instances: usize,
        attributes: usize,
        classes: usize,
        nominal_fraction: f64,
        iterations: usize,
        seed: u64,
    }
}

crate::record_row! {
    /// An evaluator's time on a case's rule evaluations (s) and its threads.
    pub struct Evaluator {
        eval_s: f64,
        threads: usize,
    }
}

crate::record_row! {
    /// One evaluator's simulated GA (Tables 2–3, the sweep): its load of the
    /// instances (s, part of `eval_s`), the rule–instance pairs it evaluated and
    /// its device kernels (s, CUDA events; GPU records from v3 on).
    pub struct SimulatedGa {
        load_s: f64,
        pairs: usize,
        kernel_s: Option<f64>,
    }
}

crate::record_row! {
    /// The sweep's condition tests over its simulated GA (the match kernels'
    /// work against the integer-instruction ceiling).
    pub struct ConditionTests {
        condition_tests: u64,
    }
}

crate::record_row! {
    /// One evaluator's whole learning run (Table 4): its seconds and what its
    /// GAs did.
    pub struct LearnRun {
        learn_s: f64,
        loads: u64,
        calls: u64,
        rules_evaluated: u64,
        matches: u64,
        gas: usize,
        rejected_rules: usize,
    }
}

crate::record_row! {
    /// The training set a case evaluated or learned on (Table 1); its attribute
    /// type (rows written before it lack it).
    pub struct TrainingSet {
        instances: usize,
        attributes: usize,
        attribute_type: Option<String>,
    }
}

crate::record_row! {
    /// The rule list learned (Table 4's accuracy check), the same for every
    /// evaluator: its rules, its accuracies on fold 0's training and test sets,
    /// and the majority class's on the test set (rows written before it lack it).
    pub struct Model {
        rules: usize,
        train_accuracy: f64,
        test_accuracy: f64,
        majority_accuracy: Option<f64>,
        test_instances: usize,
    }
}
