//! Section 5.4's claim: gECGA at the paper's scalability point fits one C2050
//! and builds models that find the planted blocks.

use super::ScaleParams;
use crate::claims::judge;
use crate::claims::{Ctx, Estimate, Outcome};
use crate::experiments::ecga::GECGA;
use crate::experiments::ecga::analysis::Analysis;
use crate::experiments::ecga::scale::{harness_bytes, paper_usable_bytes, table4_bytes};
use crate::fmt::fmt_num;

/// Section 5.4, Table 4: one C2050 holds gECGA at ℓ = 9,800, N = 1,912,315 —
/// by the paper's own memory formula at most the memory a CUDA program may
/// use on that card (the spec's datasheet), and by model builds at that point
/// on this machine that find at least `min_quality` of the planted blocks;
/// exact values, all of them by [`judge::all_of`].
pub(super) fn scale(p: &ScaleParams, a: &Analysis, ctx: &Ctx) -> Outcome {
    let s = &a.published.scale;
    let need = table4_bytes(s.n, s.ell, a.published.max_l);
    let Some((usable, source)) = paper_usable_bytes(ctx.paper) else {
        return Outcome::not_run("the spec's datasheet gives no memory for the paper's GPU");
    };
    let memory = format!(
        "Table 4 at ℓ = {}, N = {}: {:.3} GB needed of the {:.3} GB usable on the paper's GPU ({source}): {:.1}%",
        s.ell,
        s.n,
        need / 1e9,
        usable / 1e9,
        100.0 * need / usable
    );
    let fits = judge::at_most(&Estimate::exact(need), usable);
    if fits.fails() {
        return Outcome::decided(fits, 1, format!("{memory} — does not fit"));
    }
    let (mut parts, mut findings) = (Vec::new(), vec![fits]);
    for search in &p.searches {
        let Some(b) = a.scale.iter().find(|b| &b.search == search && b.ell == s.ell && b.n == s.n) else {
            let why = a.gecga_absent.as_ref().map_or(String::new(), |r| format!("; {GECGA}: {r}"));
            return Outcome::not_run(format!(
                "no model build with {search} search at ℓ = {}, N = {} in these records (profile `gpu-scale`){why}",
                s.ell, s.n
            ));
        };
        findings.push(judge::at_least(&Estimate::exact(b.quality), p.min_quality));
        parts.push(format!(
            "{search} search built the model in {:.1} s, {} merges, {}% of the planted blocks exact",
            b.model_ms / 1e3,
            b.merges,
            fmt_num(100.0 * b.quality)
        ));
    }
    let evidence = format!(
        "{memory}; on this GPU {} (needed: {}%; this harness's layout takes {:.3} GB)",
        parts.join("; "),
        fmt_num(100.0 * p.min_quality),
        harness_bytes(s.n, s.ell, a.published.max_l) / 1e9
    );
    Outcome::decided(judge::all_of(&findings), 1, evidence)
}
