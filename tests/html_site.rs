//! The committed HTML site under `reports/` (issue #41): current with the
//! Markdown it is rendered from, every local link and chart resolving, and, in
//! headless Chromium, every page loading with no error, every chart shown and
//! the claims tables filled. A screenshot of the index is kept under
//! `target/html-site/`.
//!
//! The browser is `$CHROMIUM` or `/usr/bin/chromium`; without one the browser
//! part is skipped with a note, unless `EVOREPRO_REQUIRE_BROWSER=1` (as `.ci/run`
//! sets, after installing Debian's `chromium`), where its absence fails.

use evorepro::report::html;
use std::path::{Path, PathBuf};
use std::process::Command;

fn reports() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("reports")
}

fn pages() -> Vec<PathBuf> {
    let sources = html::sources(&reports()).unwrap();
    assert!(sources.len() >= 12, "the index, the comparison and two pages a paper: {sources:?}");
    sources.iter().map(|md| html::page_path(md)).collect()
}

/// Every value of `attr="…"` in `html`, entities and percent-escapes decoded.
fn attrs(html: &str, attr: &str) -> Vec<String> {
    let key = format!(" {attr}=\"");
    html.split(&key).skip(1).map(|s| decode(&s[..s.find('"').unwrap()].replace("&amp;", "&"))).collect()
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn the_site_is_current_with_its_markdown() {
    for md in html::sources(&reports()).unwrap() {
        let page = html::page_path(&md);
        let committed = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(
            committed == html::page(&md).unwrap(),
            "{} is older than {}: `evorepro report <paper>` rewrites it",
            page.display(),
            md.display()
        );
    }
}

#[test]
fn every_local_link_and_chart_resolves() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        let ids = attrs(&text, "id");
        for url in attrs(&text, "href").into_iter().chain(attrs(&text, "src")) {
            if url.starts_with("https://") || url.starts_with("http://") {
                continue; // the papers' DOIs: not fetched here
            }
            let (path, fragment) = url.split_once('#').map_or((url.as_str(), None), |(p, f)| (p, Some(f)));
            let target = dir.join(path);
            assert!(path.is_empty() || target.exists(), "{}: link `{url}` leads nowhere ({})", page.display(), target.display());
            if let Some(f) = fragment {
                let there = if path.is_empty() { ids.clone() } else { attrs(&std::fs::read_to_string(&target).unwrap(), "id") };
                assert!(there.iter().any(|id| id == f), "{}: link `{url}`: no element with id `{f}`", page.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} links and charts checked");
}

fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("EVOREPRO_REQUIRE_BROWSER").as_deref() != Ok("1"),
        "EVOREPRO_REQUIRE_BROWSER=1 but no browser at {} (install Debian's chromium)",
        path.display()
    );
    eprintln!("skipped: no headless browser at {} (set CHROMIUM or install Debian's chromium)", path.display());
    None
}

/// Chromium, headless, with no network and a fresh profile, on `page`.
fn chromium(exe: &Path, profile: &Path, args: &[String], page: &Path) -> String {
    let out = Command::new(exe)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    assert!(out.status.success(), "chromium on {}: {}", page.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_page_loads_in_a_browser_without_errors() {
    let Some(exe) = browser() else { return };
    let profile = tempfile::tempdir().unwrap();
    for page in pages() {
        let dom = chromium(&exe, profile.path(), &["--dump-dom".into()], &page);
        let body = &dom[dom.find("<body").expect("a body")..];
        let body = &body[..body.find('>').unwrap()];
        let attr = |name: &str| attrs(body, name).into_iter().next();
        assert_eq!(attr("data-loaded").as_deref(), Some("yes"), "{}: did not finish loading: {body}", page.display());
        assert_eq!(attr("data-errors"), None, "{}: errors in the browser", page.display());
        let source = std::fs::read_to_string(&page).unwrap();
        let images = source.matches("<img ").count();
        assert_eq!(attr("data-images"), Some(images.to_string()), "{}: charts in the page", page.display());
        if page.ends_with("report.html") {
            assert!(images > 0, "{}: a report without a chart", page.display());
            let rows = source.matches("<tr data-verdict=").count();
            assert!(rows > 0, "{}: no claims in its table", page.display());
            assert_eq!(attr("data-claims"), Some(rows.to_string()), "{}: the claims table's script", page.display());
        }
    }
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("html-site");
    std::fs::create_dir_all(&shots).unwrap();
    let shot = shots.join("index.png");
    let _ = std::fs::remove_file(&shot);
    let args = [format!("--screenshot={}", shot.display()), "--window-size=1280,1600".into()];
    chromium(&exe, profile.path(), &args, &reports().join("index.html"));
    let png = std::fs::read(&shot).expect("the index's screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "the screenshot is not a picture of a page");
}
