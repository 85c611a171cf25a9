//! Property tests of the parsers (issue #21): every paper's spec loader, the
//! data set loaders and the knapsack instance loader, fed mutations of real
//! input and random text, return Ok or an error naming the file, and never
//! panic. A run is a few seconds (128 cases a property; `PROPTEST_CASES=N`
//! runs N), so CI runs it every time.

use evorepro::experiments::{Experiment, registry};
use evorepro::library::dataset::{self, ColumnKind, CsvSpec, DatasetError};
use evorepro::library::knapsack::Instance;
use evorepro::spec::{SpecContext, SpecFile};
use proptest::prelude::*;
use proptest::sample::Index;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// 128 cases a property unless `PROPTEST_CASES` says otherwise; no regression files.
fn config() -> ProptestConfig {
    let default = ProptestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { default.cases } else { 128 };
    ProptestConfig { cases, failure_persistence: None, ..default }
}

// ---------------------------------------------------------------------------
// Mutations of a text
// ---------------------------------------------------------------------------

/// One change to a text; each index picks among the places it can apply.
#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(Index),
    DuplicateLine(Index),
    ReplaceNumber(Index, String),
    ExtendArray(Index, String),
    Insert(Index, String),
    Truncate(Index),
}

/// The byte ranges of the numbers in `text`: a digit run (with its sign, point,
/// exponent and separators) that does not continue a word.
fn numbers(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b"_.".contains(&b[i - 1])));
        if !starts {
            i += 1;
            continue;
        }
        let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b"._+-".contains(&b[i])) {
            i += 1;
        }
        out.push(start..i);
    }
    out
}

/// The offsets of the `]` closing each inline array value (`= [ … ]`), with
/// whether the array is empty.
fn array_ends(text: &str) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    for (open, _) in text.match_indices("= [") {
        let mut depth = 0;
        for (i, c) in text[open + 2..].char_indices() {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                let end = open + 2 + i;
                out.push((end, text[open + 3..end].trim().is_empty()));
                break;
            }
        }
    }
    out
}

impl Mutation {
    fn apply(&self, text: &str) -> String {
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() && matches!(self, Mutation::DeleteLine(_) | Mutation::DuplicateLine(_)) {
            return text.to_owned();
        }
        match self {
            Mutation::DeleteLine(at) => {
                let mut lines = lines;
                lines.remove(at.index(lines.len()));
                lines.join("\n")
            }
            Mutation::DuplicateLine(at) => {
                let mut lines = lines;
                let i = at.index(lines.len());
                lines.insert(i, lines[i]);
                lines.join("\n")
            }
            Mutation::ReplaceNumber(at, with) => {
                let found = numbers(text);
                if found.is_empty() {
                    return text.to_owned();
                }
                let r = found[at.index(found.len())].clone();
                format!("{}{with}{}", &text[..r.start], &text[r.end..])
            }
            Mutation::ExtendArray(at, with) => {
                let found = array_ends(text);
                if found.is_empty() {
                    return text.to_owned();
                }
                let (end, empty) = found[at.index(found.len())];
                format!("{}{}{with}{}", &text[..end], if empty { "" } else { ", " }, &text[end..])
            }
            Mutation::Insert(at, what) => {
                let i = char_boundary(text, at.index(text.len() + 1));
                format!("{}{what}{}", &text[..i], &text[i..])
            }
            Mutation::Truncate(at) => text[..char_boundary(text, at.index(text.len() + 1))].to_owned(),
        }
    }
}

/// The first char boundary at or after `i`.
fn char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// TOML spelling of a float.
fn toml_float(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v:?}")
    }
}

/// A value to put where a number was: another integer or float, a negative, a
/// huge or boundary one, or a string.
fn replacement() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..5).prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        (-1000i64..0).prop_map(|v| v.to_string()),
        any::<f64>().prop_map(toml_float),
        (-2.0f64..2.0).prop_map(toml_float),
        prop::sample::select(vec![
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551616",
            "1000000000000",
            "4294967295",
            "4294967296",
            "65536",
            "1e308",
            "-1e308",
            "5e-324",
            "0.0",
            "-0.0",
        ])
        .prop_map(str::to_owned),
        prop::sample::select(vec!["\"x\"", "\"\"", "true", "[]", "[1, 2]", "{ a = 1 }"]).prop_map(str::to_owned),
    ]
}

/// Text to insert into a data file: separators, quotes, header keywords, odd
/// characters, or a random short string.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            ",",
            ",,",
            "?",
            "{",
            "}",
            "{}",
            "'",
            "\"",
            "@",
            "@data\n",
            "@attribute a real\n",
            "@attribute c {x}\n",
            "@inputs a\n",
            "@outputs c\n",
            "\n",
            "%",
            "|",
            " ",
            "\t",
            "é",
            "\u{0}",
            "-",
            ".",
            "e",
            "NaN",
            "inf",
        ])
        .prop_map(str::to_owned),
        "\\PC{0,12}",
        replacement(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::DeleteLine),
        any::<Index>().prop_map(Mutation::DuplicateLine),
        (any::<Index>(), replacement()).prop_map(|(i, v)| Mutation::ReplaceNumber(i, v)),
        (any::<Index>(), replacement()).prop_map(|(i, v)| Mutation::ExtendArray(i, v)),
        (any::<Index>(), fragment()).prop_map(|(i, v)| Mutation::Insert(i, v)),
        any::<Index>().prop_map(Mutation::Truncate),
    ]
}

/// `base` after one to three mutations.
fn mutated(base: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec(mutation(), 1..4).prop_map(move |ms| ms.iter().fold(base.to_owned(), |t, m| m.apply(&t)))
}

// ---------------------------------------------------------------------------
// Specs
// ---------------------------------------------------------------------------

/// An error that must name `path`.
fn names_file(e: impl std::fmt::Display, path: &Path) -> Result<(), TestCaseError> {
    let e = e.to_string();
    prop_assert!(e.contains(&*path.to_string_lossy()), "the error does not name {}: {e}", path.display());
    Ok(())
}

/// `text` read as a spec at `path` whose data paths resolve as for `experiments/` of this repository.
fn in_repository(path: &Path, text: String) -> SpecFile {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    SpecFile::from_text(path, text).with_context(SpecContext::new(&root.join("experiments"), root, false))
}

/// Loads `text` as `exp`'s spec and lists every profile's cases; an error must
/// name the spec file.
fn check_spec(exp: &Experiment, text: String) -> Result<(), TestCaseError> {
    let path = PathBuf::from(format!("fuzzed/{}.toml", exp.id));
    let file = in_repository(&path, text);
    match exp.load(&file) {
        Ok(paper) => {
            for profile in paper.profiles() {
                if let Err(e) = paper.cases(&profile) {
                    names_file(e, &path)?;
                }
            }
        }
        Err(e) => names_file(e, &path)?,
    }
    Ok(())
}

/// A paper of the registry and its shipped spec, mutated.
fn mutated_spec() -> impl Strategy<Value = (usize, String)> {
    (0..registry().len()).prop_flat_map(|i| (Just(i), mutated(registry()[i].embedded_spec)))
}

#[test]
fn shipped_specs_load() {
    for exp in registry() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments").join(format!("{}.toml", exp.id));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), exp.embedded_spec, "{} differs from the built-in copy", path.display());
        check_spec(exp, exp.embedded_spec.to_owned()).unwrap();
        exp.load(&in_repository(&path, exp.embedded_spec.into())).unwrap_or_else(|e| panic!("{e}"));
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn spec_loaders_never_panic_on_mutated_specs(
        (paper, text) in mutated_spec()
    ) {
        check_spec(registry()[paper], text)?;
    }
}

// ---------------------------------------------------------------------------
// Data sets and knapsack instances
// ---------------------------------------------------------------------------

const KEEL: &str = "@relation toy\n@attribute Age real [0.0, 99.0]\n@attribute Kind {a,b,c}\n@attribute N integer [1,5]\n\
                    @attribute Class {neg,pos}\n@inputs Age, Kind, N\n@outputs Class\n@data\n34, b, 3, pos\n?, c, 1, neg\n7.5, a, 5, neg\n";
const ARFF: &str = "% a comment\n@RELATION weather\n@attribute 'out look' {sunny, rainy}\n@attribute temp numeric\n\
                    @attribute play {yes, no}\n@data\n% another\nsunny, 20.5, yes\nrainy, ?, no\n'sunny', -3e2, no\n";
const CSV: &str = "|comment line\n1.5, red, round, yes\n\n?, blue, square, no.\n-2, red, ?, yes.\n";
const KNAPSACK: &str = "4\n10 20 30 40\n5 10 15 20\n30\n";

fn tiny_spec(header: bool) -> CsvSpec {
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    CsvSpec {
        name: "tiny".into(),
        columns: vec![
            ("x".into(), ColumnKind::Continuous),
            ("colour".into(), ColumnKind::NominalFromData),
            ("shape".into(), ColumnKind::Nominal(names(&["round", "square"]))),
            ("class".into(), ColumnKind::Nominal(names(&["no", "yes"]))),
        ],
        class_column: 3,
        header,
    }
}

/// Input for a file loader: `base` mutated, random text, or random bytes
/// (sometimes behind the gzip magic bytes).
fn file_content(base: &'static str) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => mutated(base).prop_map(String::into_bytes),
        1 => "\\PC{0,200}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..200),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| [&[0x1f, 0x8b][..], &b].concat()),
    ]
}

/// `content` in a fresh temporary folder as `name`.
fn written(name: &str, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    (dir, path)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn keel_loader_never_panics(content in file_content(KEEL)) {
        let (_dir, path) = written("set.dat", &content);
        if let Err(e) = dataset::load_keel(&path) {
            names_file(e, &path)?;
        }
    }

    #[test]
    fn arff_loader_never_panics(content in file_content(ARFF)) {
        let (_dir, path) = written("set.arff", &content);
        if let Err(e) = dataset::load_arff(&path) {
            names_file(e, &path)?;
        }
    }

    #[test]
    fn uci_csv_loader_never_panics(content in file_content(CSV), header in any::<bool>()) {
        let (_dir, path) = written("set.csv", &content);
        if let Err(e) = dataset::load_uci_csv(std::slice::from_ref(&path), &tiny_spec(header)) {
            names_file(e, &path)?;
        }
    }

    #[test]
    fn named_loader_never_panics(
        content in file_content(CSV),
        (name, file) in prop::sample::select(vec![
            ("adu", "adult.data"), ("kdd", "kddcup.data_10_percent"), ("wav", "waveform-5000.csv"), ("c-4", "connect-4.data"),
            ("sat", "satimage.dat"), ("pen", "penbased.dat"), ("far", "fars.dat"), ("xyz", "xyz.data"),
        ]),
    ) {
        let (dir, path) = written(file, &content);
        match dataset::load_named(dir.path(), name, None) {
            Err(DatasetError::UnknownSet(set)) => prop_assert_eq!(set, name),
            Err(e) => names_file(e, dir.path())?,
            Ok(d) => prop_assert!(false, "{} loaded from {} bytes of fuzz: {}", d.name, content.len(), path.display()),
        }
    }

    #[test]
    fn knapsack_loader_never_panics(content in file_content(KNAPSACK)) {
        let (_dir, path) = written("instance.txt", &content);
        if let Err(e) = Instance::load(&path, None) {
            names_file(format!("{e:#}"), &path)?;
        }
    }
}
