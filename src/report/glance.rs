//! A report's first screen and its claims section (issue #41): each claim
//! under the paper's table or figure it rests on, a column per machine that
//! judged anything, and the evidence without the rows that only say "not run
//! here" (those machines are one line each).

use super::{Table, ratio_cell, ratio_of};
use crate::claims::{ClaimResult, Direction, Estimate, NotRun, Verdict};
use crate::records::MachineRecords;
use std::collections::BTreeMap;

/// The paper's table or figure a claim's `source` names first ("Section 5.5,
/// Figure 6(a)" → "Figure 6(a)", "Figures 3, 5, 6" stays whole), else its
/// section ("Section 4.4"), else "—".
pub fn figure_of(source: &str) -> String {
    let first = |words: &[&str]| words.iter().filter_map(|w| source.find(w)).min();
    let Some(at) = first(&["Table", "Figure"]).or_else(|| first(&["Section"])) else {
        // A short source naming neither ("Conclusion") names the place itself.
        let part = source.split(',').next().unwrap_or("").trim();
        return if part.is_empty() || part.chars().count() > 24 { "—".into() } else { part.to_owned() };
    };
    let rest = &source[at..];
    let word_end = rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len());
    let (word, tail) = rest.split_at(word_end);
    let number = |s: &str| s.find(|c: char| !(c.is_alphanumeric() || "().–-".contains(c))).unwrap_or(s.len());
    // The first number after a space, then more only as ", 5" or " and 5": `end` bytes of `tail`.
    let mut end = 0;
    let mut next = tail.strip_prefix(' ').filter(|s| s.starts_with(|c: char| c.is_ascii_digit() || "IVX".contains(c)));
    while let Some(s) = next {
        let n = number(s);
        end = tail.len() - s.len() + n;
        let rest = &s[n..];
        next = rest.strip_prefix(", ").or_else(|| rest.strip_prefix(" and ")).filter(|s| s.starts_with(|c: char| c.is_ascii_digit()));
    }
    // A sentence's full stop or an enclosing parenthesis is not part of the number.
    let mut number = tail[..end].trim_end_matches('.');
    if number.matches(')').count() > number.matches('(').count() {
        number = number.strip_suffix(')').unwrap_or(number);
    }
    format!("{word}{number}")
}

/// Each machine's name in a column or cell: its short label, the full name where
/// two machines share the short one, with the id where they share that too.
fn names(machines: &[MachineRecords]) -> BTreeMap<String, String> {
    let count = |labels: &[String], l: &String| labels.iter().filter(|x| *x == l).count();
    let short: Vec<String> = machines.iter().map(|m| m.short_label()).collect();
    let full: Vec<String> = machines.iter().map(|m| m.label()).collect();
    machines
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let name = match (count(&short, &short[i]), count(&full, &full[i])) {
                (1, _) => short[i].clone(),
                (_, 1) => full[i].clone(),
                _ => format!("{} (`{}`)", full[i], m.hw_id),
            };
            (m.hw_id.clone(), name)
        })
        .collect()
}

/// Where a table or figure sorts: tables, then figures, then sections, each by number.
fn figure_order(figure: &str) -> (u8, i64, String) {
    let kind = ["Table", "Figure", "Section"].iter().position(|w| figure.starts_with(w)).unwrap_or(3) as u8;
    let token = figure.split_whitespace().nth(1).unwrap_or("");
    let arabic: String = token.chars().take_while(char::is_ascii_digit).collect();
    let values: Vec<i64> = token
        .chars()
        .map_while(|c| match c {
            'I' => Some(1),
            'V' => Some(5),
            'X' => Some(10),
            _ => None,
        })
        .collect();
    let roman =
        || values.iter().enumerate().fold(0, |sum, (i, &v)| if values.get(i + 1).is_some_and(|&n| n > v) { sum - v } else { sum + v });
    let n = arabic.parse().unwrap_or_else(|_| roman());
    (kind, n, figure.to_owned())
}

/// A verdict in a table cell: ✓ reproduced, ✗ not reproduced, ≠ differs,
/// ? inconclusive, – not run; ↓/↑ which way from the paper; the measured
/// value over the paper's with its 95% interval where the claim is quantitative.
pub fn verdict_cell(r: &ClaimResult) -> String {
    let o = &r.outcome;
    let mut cell = verdict_mark(r);
    let ratio = ratio_cell(o);
    if ratio != "—" {
        cell += if cell.starts_with('?') { "; " } else { " " };
        cell += &ratio;
    }
    if o.budget.as_ref().is_some_and(|b| b.is_reduced()) && !matches!(o.verdict, Verdict::NotRun(_)) {
        cell += " (reduced budget)";
    }
    cell
}

/// A verdict's mark alone (the legend's symbols, with the runs needed where inconclusive).
fn verdict_mark(r: &ClaimResult) -> String {
    let o = &r.outcome;
    let way = |d: Option<Direction>| match d {
        Some(Direction::FallsShort) => " ↓",
        Some(Direction::Exceeds) => " ↑",
        None => "",
    };
    match &o.verdict {
        Verdict::Reproduced => "✓".to_owned(),
        Verdict::NotReproduced(d) => format!("✗{}", way(*d)),
        Verdict::Differs(e) => format!("≠{}", way(Some(e.direction))),
        Verdict::Inconclusive { n, n_needed: Some(k), .. } => format!("? n = {n} of ≈ {k}"),
        Verdict::Inconclusive { n, n_needed: None, .. } => format!("? n = {n}"),
        Verdict::Incomplete { .. } => "? incomplete sweep".to_owned(),
        Verdict::NotRun(NotRun::Here(_)) => "–".to_owned(),
        Verdict::NotRun(NotRun::StandIn(_)) => "– stand-in".to_owned(),
        Verdict::NotRun(NotRun::ReducedBudget(_)) => "– reduced budget".to_owned(),
        Verdict::NotRun(NotRun::Smoke(_)) => "– smoke profile".to_owned(),
    }
}

/// A result that says only "not run here" (what it measured beyond the paper has its own table).
fn bare_not_run(r: &ClaimResult) -> bool {
    matches!(r.outcome.verdict, Verdict::NotRun(NotRun::Here(_))) && r.outcome.evidence.is_empty()
}

/// The claims in the order the glance lists them: paper claims, then the
/// harness's checks, each by table or figure; the first result of each claim.
fn claims_in_order(claims: &[ClaimResult]) -> Vec<(String, &ClaimResult)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut order: Vec<(String, &ClaimResult)> =
        claims.iter().filter(|c| seen.insert(c.id.as_str())).map(|c| (figure_of(&c.source), c)).collect();
    order.sort_by_key(|(f, c)| (!c.is_paper(), figure_order(f)));
    order
}

/// The machines that judged something: the columns of the glance.
fn judging<'m>(claims: &[ClaimResult], machines: &'m [MachineRecords]) -> Vec<&'m MachineRecords> {
    machines.iter().filter(|m| claims.iter().any(|c| c.machine == m.hw_id && !bare_not_run(c))).collect()
}

/// "**Not run on** …: reason (n claims)": one line per machine whose results all only say "not run here".
fn not_run_lines(claims: &[ClaimResult], machines: &[MachineRecords], judged: &[&MachineRecords]) -> Vec<String> {
    machines
        .iter()
        .filter(|m| !judged.iter().any(|j| j.hw_id == m.hw_id))
        .filter_map(|m| {
            let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
            for c in claims.iter().filter(|c| c.machine == m.hw_id) {
                *reasons.entry(c.outcome.label()).or_default() += 1;
            }
            let why: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} ({n} claim{})", if *n == 1 { "" } else { "s" })).collect();
            (!why.is_empty()).then(|| format!("**Not run on** {} (`{}`): {}.", m.label(), m.hw_id, why.join("; ")))
        })
        .collect()
}

/// The first screen: a row per table or figure of the paper that a claim rests
/// on — the paper's value of its headline claim (the first of its paper claims
/// that states a value), what the GPU machine and the CPU-only machine that
/// judged the most claims (the one measured last of those that judged as many)
/// measured, each over the paper's with its 95% interval, and the verdict of
/// every claim it carries on those machines.
pub fn glance(claims: &[ClaimResult], machines: &[MachineRecords]) -> String {
    let judged = judging(claims, machines);
    let names = names(machines);
    // The machines of a kind, the one that judged the most claims first (then the one measured last).
    let decided = |m: &MachineRecords| claims.iter().filter(|c| c.machine == m.hw_id && !bare_not_run(c)).count();
    let by_kind = |gpu: bool| {
        let mut of: Vec<&MachineRecords> = judged.iter().copied().filter(|m| m.has_gpu() == gpu).collect();
        of.sort_by_key(|m| std::cmp::Reverse((decided(m), m.latest_run())));
        of
    };
    let kinds: Vec<Vec<&MachineRecords>> = [by_kind(true), by_kind(false)].into_iter().filter(|k| !k.is_empty()).collect();
    let mut header = vec!["table / figure".to_owned(), "headline".to_owned(), "paper".to_owned()];
    for kind in &kinds {
        header.push(format!("measured on {} ({})", names[&kind[0].hw_id], if kind[0].has_gpu() { "GPU" } else { "CPU only" }));
        header.push("over the paper [95%]".into());
    }
    let columns: Vec<&str> = kinds.iter().map(|k| names[&k[0].hw_id].as_str()).collect();
    header.push(format!("claims' verdicts ({})", columns.join(" / ")));
    let mut figures: Vec<(String, Vec<&ClaimResult>)> = Vec::new();
    for (figure, c) in claims_in_order(claims) {
        match figures.iter_mut().find(|(f, _)| *f == figure) {
            Some((_, of)) => of.push(c),
            None => figures.push((figure, vec![c])),
        }
    }
    let mut t = Table::new(&header);
    for (figure, of) in figures {
        let mut row = vec![figure];
        // The first paper claim that judges a paper value, else the first claim that declares a headline.
        let headline = of
            .iter()
            .find(|c| c.is_paper() && claims.iter().any(|r| r.id == c.id && r.outcome.quantity.is_some()))
            .or_else(|| of.iter().find(|c| claims.iter().any(|r| r.id == c.id && r.headline.is_some())));
        match headline {
            Some(h) => {
                let judged = claims.iter().any(|r| r.id == h.id && r.outcome.quantity.is_some());
                let paper = paper_values(claims, &h.id, judged);
                let what = if judged { None } else { claims.iter().filter(|r| r.id == h.id).find_map(|r| r.headline.as_ref()) };
                row.push(match what {
                    Some(w) => format!("{} (`{}`)", w.what, h.id),
                    None => format!("`{}`", h.id),
                });
                row.push(if paper.len() == 1 { paper.first().expect("one").clone() } else { "by machine".into() });
                for kind in &kinds {
                    // The column's machine, else the most recent of its kind that measured the headline.
                    let measured = kind.iter().find_map(|m| {
                        claims.iter().filter(|r| r.id == h.id && r.machine == m.hw_id).find_map(|r| Some((m, number(r, judged)?)))
                    });
                    let Some((m, (estimate, of_paper, ratio))) = measured else {
                        row.extend(["–".to_owned(), "–".to_owned()]);
                        continue;
                    };
                    let mut cell = estimate_cell(&estimate);
                    if m.hw_id != kind[0].hw_id {
                        cell += &format!(" (on {})", names[&m.hw_id]);
                    }
                    let mut ratio = ratio_of(&ratio);
                    if paper.len() > 1 {
                        ratio += &format!(" of the paper's {}", crate::fmt::fmt_num(of_paper));
                    }
                    row.extend([cell, ratio]);
                }
            }
            None => {
                row.extend(["—".to_owned(), "—".to_owned()]);
                row.extend(kinds.iter().flat_map(|_| ["—".to_owned(), "—".to_owned()]));
            }
        }
        let verdicts: Vec<String> = of
            .iter()
            .map(|c| {
                let marks: Vec<String> = kinds
                    .iter()
                    .map(|k| claims.iter().find(|r| r.id == c.id && r.machine == k[0].hw_id).map_or("–".into(), verdict_mark))
                    .collect();
                let whose = if c.is_paper() { "" } else { " (harness check)" };
                format!("`{}`{whose} {}", c.id, marks.join(" / "))
            })
            .collect();
        row.push(verdicts.join(", "));
        t.row(row);
    }
    let mut md = t.render();
    md += "\nA row per table or figure of the paper that a claim rests on: its headline number (that of the first of its paper \
           claims judged against a value of the paper, else the one a claim's spec names for it, never part of a verdict; \
           — where the paper states none), the value measured on the machine with a GPU and the one \
           without that judged the most claims (the one measured last of those that judged as many; another of the \
           kind, named, where that one did not measure it), over the paper's with its 95% interval, and the verdict of every claim it carries on those machines: ✓ reproduced · ✗ not reproduced \
           (↓ falls short of the paper, ↑ exceeds it) · ≠ differs on this hardware (a computed model predicts the points) \
           · ? inconclusive (n runs of the ≈ n the spread needs) · – not run. Every machine's verdicts are in \
           [Claims](#claims).\n";
    md
}

/// A claim's number on one machine — measured, the paper's, and measured over the
/// paper's: the paper value its check judged where it judges one on any machine
/// (`judged`), else its declared headline.
fn number(r: &ClaimResult, judged: bool) -> Option<(Estimate, f64, Estimate)> {
    if judged {
        r.outcome.quantity.as_ref().map(|q| (q.measured, q.paper, q.ratio))
    } else {
        r.headline.as_ref().map(|h| (h.measured, h.paper, h.ratio))
    }
}

/// The paper's values of a claim as printed ([`number`]'s): one, unless a check compares each machine at its own point.
fn paper_values(claims: &[ClaimResult], id: &str, judged: bool) -> std::collections::BTreeSet<String> {
    claims.iter().filter(|r| r.id == id).filter_map(|r| number(r, judged)).map(|(_, p, _)| crate::fmt::fmt_num(p)).collect()
}

/// A measured value with its 95% interval, as the first screen prints it.
fn estimate_cell(e: &crate::claims::Estimate) -> String {
    use crate::fmt::fmt_sig;
    if e.is_exact() || fmt_sig(e.low) == fmt_sig(e.high) {
        fmt_sig(e.value)
    } else if e.high.is_finite() {
        format!("{} [{}, {}]", fmt_sig(e.value), fmt_sig(e.low), fmt_sig(e.high))
    } else {
        format!("{} (n = {}, no interval)", fmt_sig(e.value), e.n)
    }
}

/// The claims' table: a row per claim under its table or figure, a column per
/// machine that judged any claim (its verdict and measured / paper), and a
/// line per machine that judged none.
pub fn claims_table(claims: &[ClaimResult], machines: &[MachineRecords]) -> String {
    let judged = judging(claims, machines);
    let names = names(machines);
    // The paper's value where any claim is quantitative.
    let quantified = claims.iter().any(|r| r.outcome.quantity.is_some());
    let mut header = vec!["table / figure".to_owned(), "claim".to_owned()];
    if quantified {
        header.push("paper".into());
    }
    header.extend(judged.iter().map(|m| names[&m.hw_id].clone()));
    let mut t = Table::new(&header);
    for (figure, c) in claims_in_order(claims) {
        let whose = if c.is_paper() { "" } else { " (harness check)" };
        let mut row = vec![figure, format!("`{}`{whose}", c.id)];
        let paper = paper_values(claims, &c.id, true);
        if quantified {
            row.push(match paper.len() {
                0 => "—".into(),
                1 => paper.first().expect("one").clone(),
                _ => "by machine".into(),
            });
        }
        for m in &judged {
            let cell = claims.iter().find(|r| r.id == c.id && r.machine == m.hw_id).map(|r| {
                let of = r
                    .outcome
                    .quantity
                    .as_ref()
                    .filter(|_| paper.len() > 1)
                    .map(|q| format!(" of the paper's {}", crate::fmt::fmt_num(q.paper)));
                verdict_cell(r) + &of.unwrap_or_default()
            });
            row.push(cell.unwrap_or_else(|| "–".into()));
        }
        t.row(row);
    }
    let mut md = t.render();
    md += "\n✓ reproduced · ✗ not reproduced (↓ falls short of the paper, ↑ exceeds it) · ≠ differs on this hardware \
           (a computed model predicts the points) · ? inconclusive (n runs of the ≈ n the spread needs) · – not run; \
           beside a verdict, the measured value over the paper's with its 95% interval. Each claim's evidence is below.\n";
    for line in not_run_lines(claims, machines, &judged) {
        md += &format!("\n{line}\n");
    }
    md
}

/// The claims section: each claim's verdict on every machine ([`claims_table`]),
/// what each claim says (once) and its evidence on each machine that judged it.
pub fn claims_section(claims: &[ClaimResult], machines: &[MachineRecords]) -> String {
    let names = names(machines);
    let label = |hw: &str| names.get(hw).cloned().unwrap_or_else(|| format!("`{hw}`"));
    let mut says = Table::new(&["claim", "whose", "paper says (source)"]);
    for (_, c) in claims_in_order(claims) {
        let text = match &c.quote {
            Some(q) => format!("{} ({}: “{q}”)", c.text, c.source),
            None => format!("{} ({})", c.text, c.source),
        };
        says.row(vec![format!("`{}`", c.id), c.provenance.label().to_owned(), text]);
    }
    let mut evidence = Table::new(&["claim", "machine", "verdict", "measured / paper [95%]", "evidence"]);
    for (_, first) in claims_in_order(claims) {
        for c in claims.iter().filter(|c| c.id == first.id && !bare_not_run(c)) {
            evidence.row(vec![
                format!("`{}`", c.id),
                label(&c.machine),
                format!("**{}**", c.outcome.label()),
                ratio_cell(&c.outcome),
                c.outcome.evidence.clone(),
            ]);
        }
    }
    let mut md = claims_table(claims, machines);
    md += "\n";
    md += &says.render();
    if !evidence.is_empty() {
        md += "\n### Evidence\n\nEach claim on each machine that judged it (the machines' full names and ids are in [Verdicts](#verdicts)).\n\n";
        md += &evidence.render();
    }
    md
}

/// The claims `hw` did not judge, those of one reason together, a line each
/// (`**not run here (libcuda not found)**: `fast`, `grows``); None where it judged all.
pub fn not_run_on(claims: &[ClaimResult], hw: &str) -> Option<String> {
    let mut not_run: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, first) in claims_in_order(claims) {
        for c in claims.iter().filter(|c| c.id == first.id && c.machine == hw && bare_not_run(c)) {
            not_run.entry(c.outcome.label()).or_default().push(format!("`{}`", c.id));
        }
    }
    let lines: Vec<String> = not_run.iter().map(|(why, ids)| format!("- **{why}**: {}\n", ids.join(", "))).collect();
    (!lines.is_empty()).then(|| lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::FingerprintRow;
    use crate::records::col;

    #[test]
    fn a_claim_sits_under_the_first_table_or_figure_its_source_names() {
        for (source, figure) in [
            ("Figure 6(a), Section 5.5", "Figure 6(a)"),
            ("Section 5.1, Table 3, Abstract", "Table 3"),
            ("Sections 4.2–4.4, Figures 3, 5, 6", "Figures 3, 5, 6"),
            ("Section 5.2, Tables 3–4", "Tables 3–4"),
            ("Table II's baseline", "Table II"),
            ("Section 5.1, Table 3 (the claims index)", "Table 3"),
            ("Captions of Figures 1–6", "Figures 1–6"),
            ("Section 4.3 and Conclusion", "Section 4.3"),
            ("Sections 4.1 and 4.3", "Sections 4.1 and 4.3"),
            ("none: the paper reports no solution quality (Section III motivates the check)", "Section III"),
            ("Conclusion", "Conclusion"),
            ("as the paper says (see Section 4.2)", "Section 4.2"),
            ("Table 3.", "Table 3"),
            ("the harness's own reading of several sentences of the paper", "—"),
        ] {
            assert_eq!(figure_of(source), figure, "{source}");
        }
        let mut figures = vec!["Figure 7", "Section 4.4", "Table II", "Figure 4", "Table I", "Figure 10", "Table IV"];
        figures.sort_by_key(|f| figure_order(f));
        assert_eq!(figures, ["Table I", "Table II", "Table IV", "Figure 4", "Figure 7", "Figure 10", "Section 4.4"]);
    }

    fn result(id: &str, source: &str, paper: bool, machine: &str, outcome: crate::claims::Outcome) -> ClaimResult {
        use crate::spec::Provenance;
        ClaimResult {
            id: id.into(),
            source: source.into(),
            text: format!("claim {id}"),
            provenance: if paper { Provenance::Paper } else { Provenance::Harness },
            quote: None,
            machine: machine.into(),
            outcome,
            headline: None,
        }
    }

    /// A machine with a GPU judges; one that ran nothing is a line, its claims listed once under "Not run".
    #[test]
    fn machines_that_judged_nothing_are_one_line_and_paper_claims_come_first() {
        use crate::claims::{Band, Estimate, Outcome, Quantified};
        use crate::records::Record;
        let machine = |hw: &str, gpu: &str, threads: i64| MachineRecords {
            hw_id: hw.into(),
            rows: vec![
                Record::new()
                    .with(col::HW_ID, hw)
                    .with(FingerprintRow::gpu_name, gpu)
                    .with(FingerprintRow::cpu_threads, threads)
                    .with(FingerprintRow::cpu_model, "Xeon"),
            ],
        };
        let machines = [machine("gpu-host", "NVIDIA H100", 16), machine("cpu-host", "", 2)];
        let quantity = Quantified {
            measured: Estimate::exact(110.0),
            paper: 100.0,
            band: Band { low: 0.5, high: 2.0 },
            ratio: Estimate::from_spread(1.1, 0.05, 5),
        };
        let mut fast = Outcome::new(Verdict::Reproduced, "measured 110 (n = 5)");
        fast.quantity = Some(quantity);
        let claims = [
            result("grows", "Section 4, Table 1", false, "gpu-host", Outcome::too_few(2, 5, "2 runs")),
            result("grows", "Section 4, Table 1", false, "cpu-host", Outcome::not_run("libcuda not found")),
            result("fast", "Figure 5, Section 5", true, "gpu-host", fast),
            result("fast", "Figure 5, Section 5", true, "cpu-host", Outcome::not_run("libcuda not found")),
        ];
        let md = claims_table(&claims, &machines);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "| table / figure | claim | paper | H100, 16 threads |", "{md}");
        assert!(lines[2].starts_with("| Figure 5 | `fast` | 100 | ✓ 1.10× ["), "the paper's claim first: {md}");
        assert_eq!(lines[3], "| Table 1 | `grows` (harness check) | — | ? n = 2 of ≈ 5 |", "{md}");
        assert!(md.contains("**Not run on** 2-thread Xeon, no GPU (`cpu-host`): not run here (libcuda not found) (2 claims)."), "{md}");
        let section = claims_section(&claims, &machines);
        let evidence = section.split("### Evidence").nth(1).expect("evidence");
        assert_eq!(evidence.matches("| H100, 16 threads |").count(), 2, "{section}");
        assert!(!evidence.contains("cpu-host") && !evidence.contains("CPU only"), "{section}");
        assert_eq!(not_run_on(&claims, "cpu-host").as_deref(), Some("- **not run here (libcuda not found)**: `fast`, `grows`\n"));
        assert_eq!(not_run_on(&claims, "gpu-host"), None);
    }

    /// Two machines of one short name are told apart by their full names, or by their ids where those agree too.
    #[test]
    fn machines_sharing_a_short_name_are_named_in_full() {
        use crate::records::Record;
        let machine = |hw: &str, cpu: &str| MachineRecords {
            hw_id: hw.into(),
            rows: vec![
                Record::new()
                    .with(col::HW_ID, hw)
                    .with(FingerprintRow::gpu_name, "")
                    .with(FingerprintRow::cpu_threads, 2i64)
                    .with(FingerprintRow::cpu_model, cpu),
            ],
        };
        let n = names(&[machine("a", "AMD EPYC"), machine("b", "Intel Xeon"), machine("c", "Intel Xeon"), machine("d", "Arm")]);
        assert_eq!(n["a"], "2-thread AMD EPYC, no GPU");
        assert_eq!(n["b"], "2-thread Intel Xeon, no GPU (`b`)");
        assert_eq!(n["d"], "2-thread Arm, no GPU");
        let one = names(&[machine("a", "AMD EPYC")]);
        assert_eq!(one["a"], "CPU only, 2 threads");
    }

    /// A check that compares each machine at its own point has a paper value per machine: each cell names its own.
    #[test]
    fn paper_values_that_differ_by_machine_are_named_in_each_cell() {
        use crate::claims::{Band, Estimate, Outcome, Quantified};
        use crate::records::Record;
        let machine = |hw: &str, gpu: &str| MachineRecords {
            hw_id: hw.into(),
            rows: vec![
                Record::new()
                    .with(col::HW_ID, hw)
                    .with(FingerprintRow::gpu_name, gpu)
                    .with(FingerprintRow::cpu_threads, 16i64)
                    .with(FingerprintRow::cpu_model, "Xeon"),
            ],
        };
        let at = |paper: f64| {
            let mut o = Outcome::new(Verdict::Reproduced, "measured");
            let ratio = Estimate::exact(1.0);
            o.quantity = Some(Quantified { measured: Estimate::exact(paper), paper, band: Band { low: 0.5, high: 2.0 }, ratio });
            o
        };
        let claims = [result("k", "Table 2", true, "h100", at(100.0)), result("k", "Table 2", true, "h200", at(50.0))];
        let md = claims_table(&claims, &[machine("h100", "NVIDIA H100"), machine("h200", "NVIDIA H200")]);
        let row = md.lines().find(|l| l.contains("`k`")).expect("a row");
        assert_eq!(row, "| Table 2 | `k` | by machine | ✓ 1.00× of the paper's 100 | ✓ 1.00× of the paper's 50 |", "{md}");
    }

    /// The first screen: a row per table or figure, the headline measured on the GPU machine that judged the most
    /// claims, not the one measured last (another GPU machine's value, named, where it did not measure it) and on the
    /// CPU machine, and every verdict.
    #[test]
    fn the_first_screen_has_a_row_per_figure_with_the_machines_that_judged_most() {
        use crate::claims::{Band, Estimate, Outcome, Quantified};
        use crate::records::Record;
        let machine = |hw: &str, gpu: &str, run: i64| MachineRecords {
            hw_id: hw.into(),
            rows: vec![
                Record::new()
                    .with(col::HW_ID, hw)
                    .with(col::RECORD_KIND, "measurement")
                    .with(col::RUN_ID, run)
                    .with(FingerprintRow::gpu_name, gpu)
                    .with(FingerprintRow::cpu_threads, 16i64)
                    .with(FingerprintRow::cpu_model, "Xeon"),
            ],
        };
        let machines = [machine("h100", "NVIDIA H100", 5), machine("h200", "NVIDIA H200", 2), machine("cpu", "", 3)];
        let quantified = |value: f64, verdict: Verdict| {
            let mut o = Outcome::new(verdict, "measured");
            let measured = Estimate::from_spread(value, 1.0, 5);
            o.quantity = Some(Quantified { measured, paper: 10.0, band: Band { low: 0.5, high: 2.0 }, ratio: measured.scale(0.1) });
            o
        };
        let claims = [
            result("speedup", "Table 1", true, "h100", quantified(12.0, Verdict::Reproduced)),
            result("speedup", "Table 1", true, "h200", Outcome::not_run("not in this profile")),
            result("speedup", "Table 1", true, "cpu", quantified(3.0, Verdict::NotReproduced(Some(Direction::FallsShort)))),
            result("order", "Table 1", true, "h200", Outcome::new(Verdict::Reproduced, "faster")),
            result("order", "Table 1", true, "cpu", Outcome::not_run("libcuda not found")),
            result("shape", "Figure 2", true, "h200", Outcome::too_few(2, 9, "2 runs")),
        ];
        let md = glance(&claims, &machines);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[0],
            "| table / figure | headline | paper | measured on H200, 16 threads (GPU) | over the paper [95%] \
             | measured on CPU only, 16 threads (CPU only) | over the paper [95%] | claims' verdicts (H200, 16 threads / CPU only, 16 threads) |",
            "{md}"
        );
        let table1: Vec<&str> = lines[2].split(" | ").collect();
        assert_eq!(table1[..3], ["| Table 1", "`speedup`", "10"], "{md}");
        assert!(table1[3].starts_with("12.0 [") && table1[3].ends_with("] (on H100, 16 threads)"), "the H100's value, named: {md}");
        assert!(table1[4].starts_with("1.20× ["), "{md}");
        assert!(table1[5].starts_with("3.00 [") && !table1[5].contains("(on"), "{md}");
        assert_eq!(table1[7], "`speedup` – / ✗ ↓, `order` ✓ / – |", "{md}");
        assert_eq!(lines[3], "| Figure 2 | — | — | — | — | — | — | `shape` ? n = 2 of ≈ 9 / – |", "{md}");

        // A headline a claim's spec names fills a row no quantified paper claim fills, named; a quantified claim comes first.
        let headline = |value: f64| crate::claims::Headline {
            what: "GM over greedy".into(),
            measured: Estimate::from_spread(value, 0.1, 5),
            paper: 1.06,
            ratio: Estimate::from_spread(value / 1.06, 0.1, 5),
        };
        let mut named = claims.to_vec();
        for r in named.iter_mut().filter(|r| r.id != "order") {
            r.headline = Some(headline(2.12));
        }
        let md = glance(&named, &machines);
        let lines: Vec<&str> = md.lines().collect();
        assert!(lines[2].starts_with("| Table 1 | `speedup` | 10 | 12.0 ["), "the quantified claim, not the headline: {md}");
        let figure2: Vec<&str> = lines[3].split(" | ").collect();
        assert_eq!(figure2[..3], ["| Figure 2", "GM over greedy (`shape`)", "1.06"], "{md}");
        assert!(figure2[3].starts_with("2.12 [") && figure2[4].starts_with("2.00× ["), "{md}");
        assert_eq!(figure2[5..7], ["–", "–"], "the CPU machine measured none: {md}");
    }
}
