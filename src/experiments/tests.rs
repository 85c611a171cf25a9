//! The runner's tests: specs, cases, running, rendering and judging over every paper of the registry.

use super::render::judge_machines;
use super::*;

#[test]
fn the_shipped_generations_catalogue_names_every_paper() {
    let text = include_str!("../../experiments/generations.toml");
    let g = report::generations::Generations::parse("generations.toml", text).unwrap();
    for exp in registry() {
        assert!(g.papers.get(exp.id).is_some_and(|p| !p.workloads.is_empty()), "{}", exp.id);
    }
}

#[test]
fn measurements_above_their_ceiling_are_counted_per_machine() {
    let mark = crate::fmt::share(5.0, 4.0, 0);
    let section = |title: &str, parts: &[(&str, &str)]| Section {
        title: title.into(),
        intro: String::new(),
        machines: parts.iter().map(|(h, p)| ((*h).into(), Part::Shown((*p).into()))).collect(),
    };
    let sections = [
        section("Rates", &[("a", &format!("| x | {mark} |\n| y | {mark} |")), ("b", "| x | 90% |")]),
        section("Kernel", &[("a", &format!("at {mark}"))]),
    ];
    let note = above_ceiling_note(&sections).unwrap();
    assert!(note.starts_with("**Above a ceiling:** `a`: 3 measurements above the ceiling"), "{note}");
    assert!(note.contains("(in *Rates*, *Kernel*)") && !note.contains("`b`"), "{note}");
    assert_eq!(above_ceiling_note(&sections[..1].iter().map(|s| section(&s.title, &[("b", "90%")])).collect::<Vec<_>>()), None);
}

/// Only the charts a report shows stay: a retired id's PNG and SVG go, a shown chart's SVG twin stays, and a
/// file that is not a chart is left alone.
#[test]
fn figures_no_report_shows_are_removed() {
    let out = tempfile::tempdir().unwrap();
    let figures = out.path().join("p").join("figures");
    std::fs::create_dir_all(&figures).unwrap();
    for f in ["new__fig5.png", "new__fig5.svg", "old__fig5.png", "old__fig5.svg", "gen.svg", "notes.txt", "new__fig5b.png"] {
        std::fs::write(figures.join(f), "x").unwrap();
    }
    std::fs::write(out.path().join("p").join("REPORT.md"), "![Figure 5](figures/new__fig5.png)\n").unwrap();
    std::fs::write(out.path().join("p").join("COMPARE.md"), "![](figures/gen.svg)\n").unwrap();
    let removed = prune_figures(out.path(), "p").unwrap();
    assert_eq!(removed, vec!["new__fig5b.png", "old__fig5.png", "old__fig5.svg"]);
    let mut left: Vec<String> =
        std::fs::read_dir(&figures).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, vec!["gen.svg", "new__fig5.png", "new__fig5.svg", "notes.txt"]);
}

const GIB: u64 = 1 << 30;

/// Every kernel file but the ceilings' (loaded by `hw` and every run) is
/// compiled before a run's timed cases by the paper that launches it.
#[test]
fn every_kernel_file_is_loaded_by_a_paper_before_timing() {
    let mut listed: Vec<&str> = registry().iter().flat_map(|e| e.kernels.iter().map(|k| k.file)).collect();
    listed.push(crate::gpu::ceilings::CEILINGS_CU.file);
    listed.sort_unstable();
    let mut on_disk: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".cu"))
        .collect();
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk);
}

/// Every shipped profile says what it is for, and every paper's `quick` profile is a smoke test (and only it).
#[test]
fn every_profile_has_a_description_and_quick_is_the_smoke_profile() {
    for e in registry() {
        let (_, paper) = loaded(e.id, str::to_owned);
        for p in paper.profiles() {
            let about = paper.about(&p);
            assert!(about.description.as_ref().is_some_and(|d| !d.trim().is_empty()), "{} {p}: no description", e.id);
            assert_eq!(about.smoke, p == "quick", "{} {p}", e.id);
        }
        assert_eq!(smoke_profiles(paper.as_ref()), vec!["quick".to_owned()], "{}", e.id);
    }
}

/// What `--dry-run` and `list` say a profile can decide on a machine without a GPU, against what the
/// judge then says of that profile's records: the committed runs of the CPU-only machine (the quick
/// profile of every paper, ECGA's `cpu` and `fig6`, gBOA's `cpu`), each judged alone as a run of it
/// would leave them. A claim the dry run says the profile cannot decide is not run there, and one with
/// too few runs for its n is not decided: the claims the judge does not mark "not run here" are among
/// those the dry run said it decides or has too few runs for. The dry run's "decides" is an upper bound
/// (so it says): where the records hold no sizes in the paper's range, rest on a stand-in data set or
/// spread too widely, the judge still leaves a claim undecided.
#[test]
fn the_dry_run_foresees_what_the_judge_decides_on_a_machine_without_a_gpu() {
    use plan::Blocked;
    let refs = Path::new(env!("CARGO_MANIFEST_DIR")).join(REFERENCES_DIR);
    let none = plan::GpusHere { count: 0, absent: "libcuda not found".into() };
    let (mut checked, mut wrong, mut decides) = (Vec::new(), Vec::new(), Vec::new());
    for e in registry() {
        let (_, paper) = loaded(e.id, str::to_owned);
        let rows: Vec<Record> =
            load_records(&refs, e.id).unwrap().into_iter().filter(|r| r.str(col::HW_ID).starts_with("cpu-only")).collect();
        let profiles: std::collections::BTreeSet<String> =
            rows.iter().filter(|r| r.str(col::RECORD_KIND) == "measurement").map(|r| r.str(col::PROFILE).to_owned()).collect();
        for profile in profiles.iter().filter(|p| paper.profiles().contains(p)) {
            let alone = rows.iter().filter(|r| r.str(col::RECORD_KIND) != "measurement" || r.str(col::PROFILE) == profile).cloned();
            let machines = crate::records::by_machine(alone.collect(), None);
            let judged = judge_machines(paper.as_ref(), &machines).unwrap();
            let cases = paper.cases(profile).unwrap();
            for f in paper.claim_specs().into_iter().map(|c| plan::foresee(c, &cases, paper.about(profile).smoke, &none)) {
                for j in judged.iter().filter(|j| j.id == f.claim.id) {
                    let v = &j.outcome.verdict;
                    let agrees = match &f.blocked {
                        None => true,
                        Some(Blocked::TooFewRuns { .. }) => !v.is_decided(),
                        Some(_) => v.kind() == crate::claims::VerdictKind::NotRun,
                    };
                    if !agrees {
                        wrong.push(format!("{} {profile} {}: dry run {:?}, judged {}", e.id, f.claim.id, f.blocked, v.label()));
                    }
                    if f.blocked.is_none() {
                        decides.push((format!("{} {profile} {}", e.id, f.claim.id), v.kind() != crate::claims::VerdictKind::NotRun));
                    }
                }
            }
            checked.push(format!("{} {profile}", e.id));
        }
    }
    assert!(wrong.is_empty(), "the dry run disagrees with the judge:\n{}", wrong.join("\n"));
    for want in ["layout quick", "gboa quick", "gboa cpu", "ecga quick", "ecga cpu", "ecga fig6", "island quick", "biohel quick"] {
        assert!(checked.iter().any(|c| c == want), "no committed CPU-only records of {want}: {checked:?}");
    }
    // On these records the sets are equal: what the dry run says these profiles decide here, the judge
    // judges (reproduced, or inconclusive by the spread it found), and nothing else.
    let want = [
        "ecga cpu gm_population_not_smaller",
        "ecga cpu population_growth",
        "ecga fig6 greedy_quality_higher",
        "ecga fig6 greedy_converges_earlier",
        "gboa cpu pboa_faster_than_sboa",
        "gboa cpu complexity",
        "gboa cpu quality_kept",
        "biohel quick windows_cut_serial_time",
    ];
    let ids: Vec<&str> = decides.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(ids, want);
    assert!(decides.iter().all(|(_, judged)| *judged), "decides, but not run here: {decides:?}");
}

/// A paper loaded from its shipped spec with `edit` applied, as from `experiments/`.
fn loaded(id: &str, edit: impl Fn(&str) -> String) -> (SpecFile, Box<dyn Paper>) {
    let exp = find(id).unwrap();
    let file = SpecFile::in_repository(&format!("{id}.toml"), edit(exp.embedded_spec));
    let paper = exp.load(&file).unwrap();
    (file, paper)
}

#[test]
fn a_profile_too_big_for_the_machine_names_line_key_case_and_memory() {
    let (file, paper) = loaded("island", |t| {
        t.replacen("grid_islands = [1, 2, 4]\ngrid_sizes = [128, 256]", "grid_islands = [1024]\ngrid_sizes = [65536]", 1)
    });
    let line = file.text[..file.text.find("grid_sizes = [65536]").unwrap()].matches('\n').count() + 1;
    let cases = paper.cases("quick").unwrap();
    let e = check_footprints(&file, "quick", paper.as_ref(), &cases, 128 * GIB, None).unwrap_err().to_string();
    for needle in [format!("island.toml:{line}:"), "profiles.quick.grid_sizes".into(), "grid/i1024/n65536/r0".into(), "host memory".into()]
    {
        assert!(e.contains(&needle), "`{needle}` not in: {e}");
    }
    // Room on the host, not on the device.
    let e = check_footprints(&file, "quick", paper.as_ref(), &cases, 1024 * GIB, Some(80 * GIB)).unwrap_err().to_string();
    assert!(e.contains("GiB of device memory") && e.contains("80.0 GiB"), "{e}");
    assert!(check_footprints(&file, "quick", paper.as_ref(), &cases, 1024 * GIB, None).is_ok());
}

#[test]
fn every_shipped_profile_fits_the_gpu_machine_and_has_an_estimate() {
    for exp in registry() {
        let (file, paper) = loaded(exp.id, str::to_owned);
        let mut largest = Footprint::default();
        for profile in paper.profiles() {
            let cases = paper.cases(&profile).unwrap();
            check_footprints(&file, &profile, paper.as_ref(), &cases, 120 * GIB, Some(78 * GIB))
                .unwrap_or_else(|e| panic!("{}: {e}", exp.id));
            for c in &cases {
                let f = paper.footprint(c);
                largest.host_bytes = largest.host_bytes.max(f.host_bytes);
                largest.device_bytes = largest.device_bytes.max(f.device_bytes);
            }
        }
        assert!(largest.host_bytes > 1 << 20 && largest.device_bytes > 1 << 20, "{}: {largest:?}", exp.id);
    }
}

use crate::records::col;
use crate::spec::MAX_REPEATS;

/// `exp`'s shipped spec with `field` set to `n` on the first line starting
/// with `prefix` after the table `header`; and that line's number.
fn with_repeats(exp: &Experiment, header: &str, prefix: &str, field: &str, n: usize) -> (String, usize) {
    let mut lines: Vec<String> = exp.embedded_spec.lines().map(str::to_owned).collect();
    let h = lines.iter().position(|l| l == header).expect("the table is in the spec");
    let i = h + lines[h..].iter().position(|l| l.starts_with(prefix)).expect("the line is in the table");
    let at = lines[i].find(&format!("{field} = ")).expect("the field is on the line") + field.len() + 3;
    let end = at + lines[i][at..].find(|c: char| !c.is_ascii_digit()).unwrap_or(lines[i].len() - at);
    lines[i].replace_range(at..end, &n.to_string());
    (lines.join("\n"), i + 1)
}

#[test]
fn repetition_counts_past_the_limit_are_refused_with_file_line_and_key() {
    // Each listed every case before: 4294967295 runs or seeds ran out of memory.
    let counts = [
        ("gboa", "[profiles.quick]", "runs", "runs", "profiles.quick.runs"),
        ("island", "[profiles.quick]", "runs", "runs", "profiles.quick.runs"),
        ("island", "[profiles.gpu]", "full_length", "runs", "profiles.gpu.full_length.runs"),
        ("ecga", "[profiles.quick]", "table5_bisections", "table5_bisections", "profiles.quick.table5_bisections"),
        ("ecga", "[profiles.quick]", "fig5_runs", "fig5_runs", "profiles.quick.fig5_runs"),
        ("ecga", "[profiles.quick]", "fig6_runs", "fig6_runs", "profiles.quick.fig6_runs"),
        ("ecga", "[profiles.quick]", "fig7_runs", "fig7_runs", "profiles.quick.fig7_runs"),
        ("biohel", "[profiles.quick]", "seeds", "seeds", "profiles.quick.seeds"),
        ("biohel", "[profiles.quick.learn]", "seeds", "seeds", "profiles.quick.learn.seeds"),
        ("biohel", "[profiles.quick.scale]", "seeds", "seeds", "profiles.quick.scale.seeds"),
    ];
    for (id, header, prefix, field, key) in counts {
        let exp = find(id).unwrap();
        let load = |n| {
            let (text, line) = with_repeats(exp, header, prefix, field, n);
            (exp.load(&SpecFile::in_repository("x.toml", text)), line)
        };
        let (loaded, line) = load(MAX_REPEATS + 1);
        let e = loaded.err().unwrap_or_else(|| panic!("{key} = {} accepted", MAX_REPEATS + 1)).to_string();
        assert!(e.starts_with(&format!("x.toml:{line}: `{key}`: {} repetitions", MAX_REPEATS + 1)), "{e}");
        if let Err(e) = load(MAX_REPEATS).0 {
            panic!("{key} = {MAX_REPEATS} refused: {e}");
        }
    }
}

#[test]
fn sizes_and_counts_past_their_bounds_are_refused_with_line_key_and_cost() {
    // Each passed validation before: the BioHEL ones aborted on a failed allocation, the rest ran until killed.
    let huge = "1000000000000";
    let cases = [
        ("biohel", "rules_per_iteration = 500", "settings.rules_per_iteration", "TiB of memory"),
        ("biohel", "population = 150", "profiles.quick.learn.population", "iB of rules"),
        ("biohel", "population = 150\niterations = 30", "profiles.quick.learn.iterations", "years at 1e9 a second"),
        ("biohel", "windows = [1, 2, 4, 10]\niterations = 10", "profiles.quick.iterations", "iB of rules"),
        ("biohel", "nominal_fraction = 0.33\niterations = 3", "profiles.quick.scale.iterations", "iB of rules"),
        ("biohel", "folds = 10", "settings.folds", "instances"),
        ("gboa", "generations = 40", "profiles.quick.generations", "years at 1e9 a second"),
        ("ecga", "bisection_n0 = 16", "settings.bisection_n0", "PiB"),
        // Island's generations are u32: 10¹² fails to parse (naming its line), 4·10⁹ parses.
        ("island", "generations = 200", "profiles.quick.generations", "at 1e9 a second"),
        ("island", "table_generations = 20", "profiles.quick.table_generations", "at 1e9 a second"),
        ("layout", "min_n = 10", "settings.min_n", "repetitions: at most"),
    ];
    let mut wrong = Vec::new();
    for (id, from, key, cost) in cases {
        let huge = if id == "island" { "4000000000" } else { huge };
        let exp = find(id).unwrap();
        let shipped = exp.embedded_spec;
        assert!(shipped.contains(from), "{id}: no `{from}`");
        // The last number of `from` becomes `huge`.
        let at = from.rfind(" = ").unwrap() + 3;
        let text = shipped.replacen(from, &format!("{}{huge}", &from[..at]), 1);
        let line = text[..text.find(&format!("{}{huge}", &from[..at])).unwrap()].matches('\n').count() + 1 + from.matches('\n').count();
        match exp.load(&SpecFile::in_repository("x.toml", text)) {
            Ok(_) => wrong.push(format!("{id}: {key} = {huge} accepted")),
            Err(e)
                if !(e.to_string().starts_with(&format!("x.toml:{line}: `{key}`: {huge}"))
                    && e.to_string().contains("at most")
                    && e.to_string().contains(cost)) =>
            {
                wrong.push(format!("{id}: {e} (wanted line {line} and `{cost}`)"))
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Bounds read without spans name the key's line.
    for (id, from, to, key) in [
        ("ecga", "whole_runs = 3", "whole_runs = 1000000", "profiles.whole.whole_runs"),
        ("layout", "max_elements = 16000000", "max_elements = -1", "profiles.paper.max_elements"),
    ] {
        let exp = find(id).unwrap();
        let text = exp.embedded_spec.replacen(from, to, 1);
        let line = text[..text.find(to).unwrap()].matches('\n').count() + 1;
        let e = exp.load(&SpecFile::in_repository("x.toml", text)).err().unwrap_or_else(|| panic!("{to} accepted")).to_string();
        assert!(e.starts_with(&format!("x.toml:{line}: `{key}`: ")), "{e}");
    }
}

#[test]
fn a_nan_datasheet_value_and_another_paper_s_id_are_refused() {
    let exp = find("biohel").unwrap();
    for (from, to) in
        [("gpu_bandwidth = { value = 102.0", "gpu_bandwidth = { value = nan"), ("gpu_bandwidth_gbs = 102.0", "gpu_bandwidth_gbs = inf")]
    {
        let text = exp.embedded_spec.replacen(from, to, 1);
        let line = text[..text.find(to).unwrap()].matches('\n').count() + 1;
        let e = exp.load(&SpecFile::in_repository("x.toml", text)).err().unwrap_or_else(|| panic!("`{to}` accepted")).to_string();
        assert!(e.contains(&format!("line {line}")) && e.contains(": must be a positive finite number"), "{e}");
    }
    let exp = find("gboa").unwrap();
    let text = exp.embedded_spec.replacen("id = \"gboa\"", "id = \"ecga\"", 1);
    let line = text[..text.find("id = \"ecga\"").unwrap()].matches('\n').count() + 1;
    let e = exp.load(&SpecFile::in_repository("x.toml", text)).err().expect("another paper's id accepted").to_string();
    assert!(e.starts_with(&format!("x.toml:{line}: `paper.id`: `ecga`: this is gboa's spec")), "{e}");
}

#[test]
fn a_profile_without_cases_names_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("gboa.toml");
    let empty = "[profiles.empty]\ntable1_ells = []\ngenerations = 1\nruns = 1\ncomplexity_ells = []\ncomplexity_pops = []\ncomplexity_ell = 30\n\n";
    let text = find("gboa").unwrap().embedded_spec.replacen("[profiles.quick]", &format!("{empty}[profiles.quick]"), 1);
    let line = text[..text.find("[profiles.empty]").unwrap()].matches('\n').count() + 1;
    std::fs::write(&spec, &text).unwrap();
    let opts = RunOptions {
        profile: "empty".into(),
        backend: BackendChoice::Cpu,
        device: 0,
        out: tmp.path().join("out"),
        resume: false,
        spec: SpecChoice { file: Some(spec.clone()), root: Path::new(env!("CARGO_MANIFEST_DIR")).into(), allow_outside: false },
        shard: None,
        max_cases: None,
    };
    let e = preflight(find("gboa").unwrap(), &opts).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:{line}: `profiles.empty`: profile `empty` of gboa has no cases", spec.display())), "{e}");
}

#[test]
fn biohel_s_footprint_counts_the_rules_it_holds() {
    // 10,000 iterations of 100,000 rules: within each bound, but 10⁹ rules held at once.
    let (file, paper) = loaded("biohel", |t| {
        t.replacen("rules_per_iteration = 500", "rules_per_iteration = 100000", 1).replacen(
            "windows = [1, 2, 4, 10]\niterations = 10",
            "windows = [1, 2, 4, 10]\niterations = 10000",
            1,
        )
    });
    let cases = paper.cases("quick").unwrap();
    let e = check_footprints(&file, "quick", paper.as_ref(), &cases, 16 * GIB, None).unwrap_err().to_string();
    assert!(e.contains("`profiles.quick.sets`") && e.contains("eval/sat/w1/s0") && e.contains("host memory"), "{e}");
    // A learning GA holds its population and its offspring, each rule 40 bytes or more.
    let learn_bytes = |population: &str| {
        let (_, paper) = loaded("biohel", |t| t.replacen("population = 150", population, 1));
        let case = paper.cases("quick").unwrap().into_iter().find(|c| c.id.starts_with("learn/")).unwrap();
        paper.footprint(&case).host_bytes
    };
    assert!(learn_bytes("population = 100000") >= learn_bytes("population = 150") + 2 * (100_000 - 150) * 40);
}

#[test]
fn a_band_of_three_values_is_an_error_not_a_panic() {
    // biohel once read its peak claims' bands a second time and panicked where the two reads disagreed.
    let exp = find("biohel").unwrap();
    let text = exp.embedded_spec.replacen("evaluation = [25000.0, 50000.0]", "evaluation = [25000.0, 50000.0, 0]", 1);
    let line = text.lines().position(|l| l.contains("50000.0, 0]")).unwrap() + 1;
    let e = exp.load(&SpecFile::from_text(Path::new("x.toml"), text)).err().expect("refused").to_string();
    assert!(e.contains("x.toml") && e.contains(&format!("line {line}")) && e.contains("3 values"), "{e}");
}

#[test]
fn each_resource_warms_up_once_on_its_lightest_case() {
    let case = |id: &str, weight: u64| Case { id: id.into(), params: Record::new(), weight };
    let cases = [case("gpu-big", 9), case("cpu-a", 5), case("gpu-small", 2), case("cpu-b", 1), case("gpu-mid", 4)];
    let todo: Vec<&Case> = cases.iter().collect();
    let resource = |c: &Case| if c.id.starts_with("gpu") { plan::Resource::Gpu } else { plan::Resource::CpuCores };
    let ids: Vec<&str> = warm_ups(&todo, resource).iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, vec!["cpu-b", "gpu-small"]);
    assert!(warm_ups(&[], resource).is_empty());
}

#[test]
fn run_ids_are_unique_and_grow() {
    let (a, b) = (new_run_id(), new_run_id());
    assert!(b > a, "{a} then {b}");
    // Nanoseconds since the epoch: after 2020, and still an i64 in the records.
    assert!(a > 1_577_836_800_000_000_000 && i64::try_from(b).is_ok(), "{a}");
}
