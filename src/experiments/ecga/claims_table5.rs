//! Table 5's claims are generic (`order_at_sizes` compares GM's populations
//! with greedy's, `exponent` fits their growth); what they say of the
//! bisections they judged is here.

use crate::experiments::ecga::analysis::Analysis;

/// The rule of the bisections a Table 5 claim judged, and what it left out.
pub(super) fn table5_rule(a: &Analysis) -> String {
    let rule = a.table5_rule.as_ref().map_or("no rule".into(), |r| r.describe());
    let left: Vec<String> = a.table5_left_out.iter().map(|(r, n)| format!("{n} under {}", r.describe())).collect();
    if left.is_empty() { format!("bisections with {rule}") } else { format!("bisections with {rule} (left out: {})", left.join(", ")) }
}
