//! Tests of the loaders (formats, malformed input, checksums, file checks), the generators and the folds.

use super::csv::names;
use super::files::read_content;
use super::named::checksum_of;
use super::*;
use std::io::Write;
use std::path::{Path, PathBuf};

fn vendored() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/biohel")
}

fn temp_file(name: &str, content: &[u8], gzip: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("evorepro-dataset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let bytes = if gzip {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(content).expect("gzip");
        enc.finish().expect("gzip")
    } else {
        content.to_vec()
    };
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

fn tiny_spec() -> CsvSpec {
    CsvSpec {
        name: "tiny".into(),
        columns: vec![
            ("x".into(), ColumnKind::Continuous),
            ("colour".into(), ColumnKind::NominalFromData),
            ("shape".into(), ColumnKind::Nominal(names(&["round", "square"]))),
            ("class".into(), ColumnKind::Nominal(names(&["no", "yes"]))),
        ],
        class_column: 3,
        header: false,
    }
}

#[test]
fn uci_csv_reads_plain_and_gzip_with_missing_values_and_class_periods() {
    let text = b"|comment line\n1.5, red, round, yes\n\n?, blue, square, no.\n-2, red, ?, yes.\n";
    for gzip in [false, true] {
        let path = temp_file(if gzip { "tiny.csv.gz" } else { "tiny.csv" }, text, gzip);
        let d = load_uci_csv(&[path], &tiny_spec()).expect("loads");
        assert_eq!((d.instances(), d.attribute_count(), d.classes.len()), (3, 3, 2));
        assert_eq!(d.labels, vec![1, 0, 1]);
        assert_eq!(d.row(0), &[1.5, 0.0, 0.0]);
        assert!(d.row(1)[0].is_nan() && d.row(1)[1] == 1.0 && d.row(1)[2] == 1.0);
        assert!(d.row(2)[2].is_nan());
        assert_eq!(d.attributes[1], Attribute::Nominal { name: "colour".into(), values: names(&["red", "blue"]) });
    }
}

#[test]
fn keel_reads_header_ranges_outputs_and_missing_values() {
    let text = "@relation toy\n@attribute Age real [0.0, 99.0]\n@attribute Kind {a,b,c}\n@attribute N integer [1,5]\n\
                @attribute Class {neg,pos}\n@inputs Age, Kind, N\n@outputs Class\n@data\n34, b, 3, pos\n?, c, 1, neg\n";
    let d = load_keel(&temp_file("toy.dat.gz", text.as_bytes(), true)).expect("loads");
    assert_eq!(d.name, "toy");
    assert_eq!((d.instances(), d.attribute_count(), d.nominal_count()), (2, 3, 1));
    assert_eq!(d.classes, names(&["neg", "pos"]));
    assert_eq!(d.labels, vec![1, 0]);
    assert_eq!(d.row(0), &[34.0, 1.0, 3.0]);
    assert!(d.row(1)[0].is_nan());
}

#[test]
fn arff_reads_comments_quoted_names_and_missing_values() {
    let text = "% a comment\n@RELATION weather\n@attribute 'out look' {sunny, rainy}\n@attribute temp numeric\n\
                @attribute play {yes, no}\n@data\n% another\nsunny, 20.5, yes\nrainy, ?, no\n";
    let d = load_arff(&temp_file("w.arff", text.as_bytes(), false)).expect("loads");
    assert_eq!(d.attributes[0].name(), "out look");
    assert_eq!((d.instances(), d.attribute_count()), (2, 2));
    assert_eq!(d.labels, vec![0, 1]);
    assert!(d.row(1)[1].is_nan());
}

fn parse_error(e: DatasetError) -> (String, usize, usize, String) {
    match e {
        DatasetError::Parse { path, line, column, text, .. } => {
            (path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), line, column, text)
        }
        other => panic!("expected a parse error, got {other}"),
    }
}

#[test]
fn malformed_input_is_an_error_with_file_line_and_column() {
    let bad_number = temp_file("bad-number.csv", b"1, red, round, yes\n2.5x, red, round, no\n", false);
    let e = load_uci_csv(&[bad_number], &tiny_spec()).expect_err("bad number");
    assert!(e.to_string().contains("bad-number.csv:2:1:"), "{e}");
    assert_eq!(parse_error(e), ("bad-number.csv".into(), 2, 1, "2.5x".into()));

    let short = temp_file("short.csv", b"1, red, round, yes\n\n3, red, round\n", false);
    let (_, line, column, _) = parse_error(load_uci_csv(&[short], &tiny_spec()).expect_err("too few"));
    assert_eq!((line, column), (3, 14));
    let long = temp_file("long.csv", b"1, red, round, yes, 7\n", false);
    let (_, line, column, _) = parse_error(load_uci_csv(&[long], &tiny_spec()).expect_err("too many"));
    assert_eq!((line, column), (1, 21));

    let unknown = temp_file("unknown.dat", b"@relation u\n@attribute K {a,b}\n@attribute C {x,y}\n@data\na, x\nb,  z\n", false);
    let e = load_keel(&unknown).expect_err("unknown value");
    assert_eq!(parse_error(e), ("unknown.dat".into(), 6, 5, "z".into()));

    let mut spec = tiny_spec();
    spec.class_column = 0;
    assert!(matches!(load_uci_csv(&[], &spec), Err(DatasetError::Spec { .. })));

    let arff = temp_file("bad.arff", b"@relation r\n@attribute a date\n@attribute c {x}\n@data\n", false);
    let (_, line, ..) = parse_error(load_arff(&arff).expect_err("unsupported type"));
    assert_eq!(line, 2);
}

#[test]
fn vendored_checksums_verify_and_a_corrupted_copy_fails() {
    for (file, hash, bytes) in CHECKSUMS {
        verify_sha256(&vendored().join(format!("{file}.gz")), hash).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_content(&vendored().join(format!("{file}.gz"))).unwrap().len() as u64, bytes, "{file}");
    }
    let content = read_content(&vendored().join("satimage.dat.gz")).expect("read");
    let mut corrupted = content.clone();
    corrupted[100] ^= 1;
    let path = temp_file("satimage.dat", &corrupted, false);
    let e = verify_sha256(&path, checksum_of("satimage.dat").expect("listed").0).expect_err("corrupted");
    assert!(matches!(e, DatasetError::Checksum { .. }) && e.to_string().contains("satimage.dat"), "{e}");
    // load_named refuses a corrupted file.
    let dir = path.parent().expect("dir");
    assert!(matches!(load_named(dir, "sat", None), Err(DatasetError::Checksum { .. })));
}

#[test]
fn data_files_are_regular_files_under_the_root_of_bounded_size() {
    let tmp = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(tmp.path()).unwrap();
    let (root, outside) = (top.join("root"), top.join("outside"));
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let read = |name: &str, limit| read_data_file(&root.join("data").join(name), Some(&root), limit);
    // A named pipe is refused by its type, before it is opened (opening it would block).
    let fifo = root.join("data/fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = read("fifo", SizeLimit::UNKNOWN).unwrap_err().to_string();
    assert!(e.contains("fifo") && e.contains("a named pipe"), "{e}");
    // A link to a device, or out of the root, is followed and refused.
    std::os::unix::fs::symlink("/dev/zero", root.join("data/zero")).unwrap();
    let e = read_data_file(&root.join("data/zero"), None, SizeLimit::UNKNOWN).unwrap_err().to_string();
    assert!(e.contains("data/zero") && e.contains("a device"), "{e}");
    std::fs::write(outside.join("o.dat"), "o").unwrap();
    std::os::unix::fs::symlink(outside.join("o.dat"), root.join("data/link.dat")).unwrap();
    let e = read("link.dat", SizeLimit::UNKNOWN).unwrap_err().to_string();
    assert!(e.contains("link.dat") && e.contains("outside the repository root"), "{e}");
    // A gzip bomb: 64 MiB of zeros in about 64 KiB stop at the limit, the file named.
    let zeros = vec![0u8; 64 << 20];
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(root.join("data/bomb.gz")).unwrap(), flate2::Compression::best());
    enc.write_all(&zeros).unwrap();
    enc.finish().unwrap();
    for limit in [SizeLimit::UNKNOWN, SizeLimit::expected(1_000_000)] {
        let e = read("bomb.gz", limit).unwrap_err().to_string();
        assert!(e.contains("bomb.gz") && e.contains("bytes decompressed"), "{e}");
    }
    // Larger on disk than expected; a truncated gzip stream says so once.
    std::fs::write(root.join("data/big.dat"), vec![b'1'; 10_000]).unwrap();
    let e = read("big.dat", SizeLimit::expected(100)).unwrap_err().to_string();
    assert!(e.contains("big.dat") && e.contains("bytes on disk"), "{e}");
    let whole = std::fs::read(temp_file("whole.dat", "1,2,3,a\n".repeat(1000).as_bytes(), true)).unwrap();
    std::fs::write(root.join("data/cut.gz"), &whole[..whole.len() / 2]).unwrap();
    let e = format!("{:#}", anyhow::Error::from(read("cut.gz", SizeLimit::UNKNOWN).unwrap_err()));
    assert!(e.contains("cut.gz: corrupt gzip stream: ") && e.matches("deflate").count() <= 1, "{e}");
    assert_eq!(read_data_file(&outside.join("o.dat"), None, SizeLimit::UNKNOWN).unwrap(), b"o");
}

#[test]
fn named_sets_have_the_shapes_of_sources() {
    for name in ["adu", "wav", "c-4", "sat", "pen", "far", "kdd"] {
        let s = named_shape(name).unwrap();
        let (n, a, nominal, classes) = (s.instances, s.continuous + s.nominal, s.nominal, s.classes);
        let start = std::time::Instant::now();
        let d = load_named(&vendored(), name, None).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{name}: loaded in {:.2?}", start.elapsed());
        assert_eq!((d.instances(), d.attribute_count(), d.nominal_count(), d.classes.len()), (n, a, nominal, classes), "{name}");
        assert_eq!(d.values.len(), n * a);
        assert!(!d.synthetic);
        assert!(d.class_counts().iter().all(|&c| c > 0), "{name}: every class occurs");
    }
    assert!(matches!(load_named(&vendored(), "xyz", None), Err(DatasetError::UnknownSet(_))));
    let (p, s) = (parmx(), named_shape("par").unwrap());
    assert_eq!((p.instances(), p.attribute_count(), p.nominal_count(), p.classes.len()), (s.instances, 18, s.nominal, s.classes));
}

#[test]
fn parmx_enumerates_all_inputs_balanced_with_the_papers_training_size() {
    let d = parmx();
    assert_eq!((d.instances(), d.attribute_count(), d.nominal_count()), (262_144, 18, 18));
    assert_eq!(d.class_counts(), vec![131_072, 131_072]);
    let k = 0b000_111_000_000_000_000usize; // parities 0,1,0,0,0,0 → address 1 → block 3: 0
    assert_eq!(d.labels[k], 0);
    let k = 0b000_111_000_111_000_000usize; // parities 0,1,0,1,0,0 → address 1 → block 3: 1
    assert_eq!(d.labels[k], 1);
    let k = 0b111_000_000_000_001_000usize; // parities 1,0,0,0,1,0 → address 2 → block 4: 1
    assert_eq!(d.labels[k], 1);
    let folds = stratified_folds(&d.labels, 10, 1);
    let training: Vec<usize> = folds.iter().map(|f| d.instances() - f.len()).collect();
    assert!(training.contains(&235_929) && training.iter().all(|&t| t == 235_929 || t == 235_930));
}

#[test]
fn waveform_has_forty_attributes_and_balanced_classes() {
    let d = waveform(6_000, 3);
    assert_eq!((d.instances(), d.attribute_count(), d.classes.len()), (6_000, 40, 3));
    assert!(d.class_counts().iter().all(|&c| (1_850..=2_150).contains(&c)), "{:?}", d.class_counts());
    // x7 (the peak of h1) has mean 3, 3 + 1 and 1 in classes 0, 1, 2 (h3(7) = 2): 8/3 overall.
    let mean = |att: usize| (0..d.instances()).map(|i| f64::from(d.row(i)[att])).sum::<f64>() / d.instances() as f64;
    assert!((mean(6) - 8.0 / 3.0).abs() < 0.15, "{}", mean(6));
    assert!(mean(30).abs() < 0.1);
    assert_eq!(waveform(10, 3), waveform(10, 3));
}

#[test]
fn standins_and_scalable_sets_have_the_requested_shapes() {
    for set in StandIn::ALL {
        let d = synthetic_standin(set, 500, 7);
        let s = set.paper_shape();
        assert_eq!((d.attribute_count(), d.nominal_count(), d.classes.len()), (s.continuous + s.nominal, s.nominal, s.classes));
        assert!(d.synthetic && d.name.contains("synthetic stand-in"));
    }
    let d = scalable(2_000, 10, 3, 0.3, 5);
    assert_eq!((d.instances(), d.attribute_count(), d.nominal_count(), d.classes.len()), (2_000, 10, 3, 3));
    assert!(d.class_counts().iter().all(|&c| c > 400), "{:?}", d.class_counts());
    assert_eq!(d, scalable(2_000, 10, 3, 0.3, 5));
}

#[test]
fn stratified_folds_partition_and_stratify() {
    let labels: Vec<u16> = (0..1_003).map(|i| if i % 7 == 0 { 2 } else { (i % 2) as u16 }).collect();
    let folds = stratified_folds(&labels, 10, 42);
    let mut all: Vec<usize> = folds.concat();
    all.sort_unstable();
    assert_eq!(all, (0..labels.len()).collect::<Vec<_>>());
    for c in 0..3 {
        let total = labels.iter().filter(|&&l| l == c).count();
        for f in &folds {
            let in_fold = f.iter().filter(|&&i| labels[i] == c).count();
            assert!(in_fold == total / 10 || in_fold == total.div_ceil(10), "class {c}: {in_fold} of {total}");
        }
    }
    assert!(folds.iter().all(|f| f.len() == 100 || f.len() == 101));
    assert_eq!(folds, stratified_folds(&labels, 10, 42));
    assert_ne!(folds, stratified_folds(&labels, 10, 43));
}

#[test]
fn impute_missing_uses_mean_and_mode_of_the_given_instances() {
    let path = temp_file("imp.csv", b"1, red, round, yes\n3, red, square, no\n?, ?, ?, yes\n100, blue, round, no\n", false);
    let mut d = load_uci_csv(&[path], &tiny_spec()).expect("loads");
    d.impute_missing(&[0, 1, 2]);
    assert_eq!(d.row(2), &[2.0, 0.0, 0.0]);
    assert_eq!(d.row(3), &[100.0, 1.0, 0.0]);
}
