//! The reports as an HTML site (issue #41): `index.html` and `compare.html` over
//! all papers, and per paper `report.html` and `compare.html`, each rendered from
//! the Markdown file beside it (the one source), a paper's page with a claims
//! table from its `verdicts.json` that sorts and filters by verdict and machine.
//! Pages open from the file system: styles and script inline, charts as the SVG
//! written beside each PNG, links to other reports pointed at their pages; no
//! server, no network.

use crate::records::write_atomic;
use anyhow::{Context, Result};
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The file name of the page a report's Markdown file becomes, from its path
/// (`REPORT.md`, `ecga/COMPARE.md`, `machines/<hw_id>.md`; None: not a page).
pub fn page_name(markdown: &str) -> Option<String> {
    let (folder, file) = markdown.rsplit_once('/').map_or(("", markdown), |(d, f)| (d, f));
    match file {
        "REPORT.md" => Some("report.html".into()),
        "COMPARE.md" => Some("compare.html".into()),
        "INDEX.md" => Some("index.html".into()),
        _ if in_machines(folder) => file.strip_suffix(".md").map(|stem| format!("{stem}.html")),
        _ => None,
    }
}

/// The page beside a Markdown source of [`sources`].
pub fn page_path(md: &Path) -> PathBuf {
    let name = page_name(&md.to_string_lossy().replace('\\', "/")).expect("sources lists pages only");
    md.with_file_name(name)
}

/// A folder of machine pages (`machines`, or a path ending in it).
fn in_machines(folder: &str) -> bool {
    folder.rsplit('/').next() == Some(super::MACHINES_DIR)
}

/// The Markdown files under `out` that are pages: the index and comparison
/// over all papers, then each paper folder's report, comparison and machine pages.
pub fn sources(out: &Path) -> Result<Vec<PathBuf>> {
    let mut papers: Vec<PathBuf> = std::fs::read_dir(out)
        .with_context(|| format!("reading {}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("REPORT.md").is_file())
        .collect();
    papers.sort();
    let top = [out.join("INDEX.md"), out.join("COMPARE.md")];
    let mut each = Vec::new();
    for p in &papers {
        each.extend([p.join("REPORT.md"), p.join("COMPARE.md")]);
        let mut machines: Vec<PathBuf> = std::fs::read_dir(p.join(super::MACHINES_DIR))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|m| m.extension().is_some_and(|e| e == "md"))
            .collect();
        machines.sort();
        each.extend(machines);
    }
    Ok(top.into_iter().chain(each).filter(|p| p.is_file()).collect())
}

/// Writes every page of the site under `out` (atomically, each beside its
/// Markdown); returns the pages written.
pub fn write_site(out: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for md in sources(out)? {
        let path = page_path(&md);
        write_atomic(&path, page(&md)?.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// One page: the Markdown at `md` as HTML, and on a paper's report its claims table.
pub fn page(md: &Path) -> Result<String> {
    let text = std::fs::read_to_string(md).with_context(|| format!("reading {}", md.display()))?;
    let dir = md.parent().unwrap_or(Path::new("."));
    let title = text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or("evorepro").to_owned();
    let is_report = md.file_name().is_some_and(|n| n == "REPORT.md");
    let is_top = dir.join("INDEX.md").is_file();
    // A machine page sits one folder below its paper's.
    let (paper, up) = if in_machines(&dir.to_string_lossy()) { (dir.parent().unwrap_or(dir), "../") } else { (dir, "") };
    let mut nav = vec![];
    if is_top {
        nav.extend([link("index.html", "verdicts of every paper"), link("compare.html", "hardware generations")]);
    } else {
        nav.extend([
            link(&format!("{up}../index.html"), "all papers"),
            link(&format!("{up}report.html"), "report"),
            link(&format!("{up}compare.html"), "hardware generations"),
        ]);
        nav.extend(paper.join("records").is_dir().then(|| link(&format!("{up}records/"), "raw records")));
    }
    let mut body = markdown_html(&text, dir);
    if is_report {
        let verdicts = dir.join("verdicts.json");
        if let Ok(json) = std::fs::read_to_string(&verdicts) {
            let json: Json = serde_json::from_str(&json).with_context(|| format!("{}: not JSON", verdicts.display()))?;
            nav.push(link("#claims-table", "claims table"));
            body += &claims_table(&json);
        }
    }
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<script>{WATCH}</script>\n<nav>{}</nav>\n<main>\n{body}</main>\n<script>{TABLES}</script>\n</body>\n</html>\n",
        escape(&title),
        nav.join(" · ")
    ))
}

fn link(href: &str, text: &str) -> String {
    format!("<a href=\"{href}\">{text}</a>")
}

/// The Markdown as HTML: headings with GitHub's anchors (the reports link to
/// them), links to a report's Markdown pointed at its page, charts at their SVG.
fn markdown_html(text: &str, dir: &Path) -> String {
    let mut events: Vec<Event> = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH).collect();
    let mut taken: HashMap<String, usize> = HashMap::new();
    for i in 0..events.len() {
        let slug = matches!(events[i], Event::Start(Tag::Heading { .. })).then(|| {
            let text: String = events[i + 1..]
                .iter()
                .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_))))
                .filter_map(|e| if let Event::Text(t) | Event::Code(t) = e { Some(t.as_ref()) } else { None })
                .collect();
            let base = anchor(&text);
            let seen = taken.entry(base.clone()).or_insert(0);
            *seen += 1;
            if *seen == 1 { base } else { format!("{base}-{}", *seen - 1) }
        });
        match &mut events[i] {
            Event::Start(Tag::Heading { id, .. }) => *id = slug.map(CowStr::from),
            Event::Start(Tag::Link { dest_url, .. }) => *dest_url = page_link(dest_url).into(),
            Event::Start(Tag::Image { dest_url, .. }) => *dest_url = svg_of(dest_url, dir).into(),
            _ => {}
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, punctuation dropped.
pub fn anchor(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A link to another report's Markdown (`ecga/REPORT.md#claims`) pointed at its page.
fn page_link(url: &str) -> String {
    if url.contains("://") || url.starts_with('#') {
        return url.to_owned();
    }
    let (path, fragment) = url.split_once('#').map_or((url, None), |(p, f)| (p, Some(f)));
    let Some(page) = page_name(path) else { return url.to_owned() };
    let folder = path.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/"));
    format!("{folder}{page}{}", fragment.map_or(String::new(), |f| format!("#{f}")))
}

/// A chart's SVG where one was written beside its PNG (sharp at any zoom).
fn svg_of(url: &str, dir: &Path) -> String {
    match url.strip_suffix(".png") {
        Some(stem) if !url.contains("://") && dir.join(format!("{stem}.svg")).is_file() => format!("{stem}.svg"),
        _ => url.to_owned(),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Every claim on every machine of a paper's `verdicts.json`, one row each, with
/// a filter by verdict and by machine and headers that sort.
fn claims_table(v: &Json) -> String {
    let str_of = |j: &Json, k: &str| j.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
    let machines: HashMap<String, String> = v
        .get("machines")
        .and_then(Json::as_array)
        .map(|ms| ms.iter().map(|m| (str_of(m, "hw_id"), str_of(m, "label"))).collect())
        .unwrap_or_default();
    let mut rows = String::new();
    for c in v.get("claims").and_then(Json::as_array).into_iter().flatten() {
        let hw = str_of(c, "machine");
        let machine = machines.get(&hw).cloned().unwrap_or(hw);
        let verdict = str_of(c, "verdict");
        rows += &format!(
            "<tr data-verdict=\"{}\" data-machine=\"{}\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&verdict),
            escape(&machine),
            escape(&str_of(c, "id")),
            escape(&str_of(c, "provenance")),
            escape(&str_of(c, "text")),
            escape(&machine),
            escape(&verdict.replace('_', " ")),
            escape(&str_of(c, "label")),
        );
    }
    format!(
        "<h2 id=\"claims-table\">Claims table</h2>\n<p>Every claim on every machine, from <a href=\"verdicts.json\">verdicts.json</a>: \
         filter by verdict and machine, click a header to sort.</p>\n<p class=\"filters\">verdict <select data-filter=\"verdict\"></select> \
         machine <select data-filter=\"machine\"></select></p>\n<table class=\"claims\">\n<thead><tr><th>claim</th><th>kind</th>\
         <th>statement</th><th>machine</th><th>verdict</th><th>measured</th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n"
    )
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 1em 3em;color:#222}\
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:.5em 0;z-index:1}\
table{border-collapse:collapse;margin:.5em 0;font-size:13px;display:block;overflow-x:auto}\
th,td{border:1px solid #ddd;padding:3px 6px;vertical-align:top}th{background:#f4f4f4;text-align:left}\
table.claims th{cursor:pointer}img{max-width:100%}code{font-size:90%;background:#f6f6f6;padding:0 2px}\
h2{border-bottom:1px solid #eee;margin-top:2em}";

/// Before anything loads: every error the page meets (a script's, a chart that
/// fails to load, a console error) goes into `<body data-errors>`, which the
/// browser test reads; `data-loaded` says the page finished loading.
const WATCH: &str = "(function(){var errs=[];function note(m){errs.push(String(m));document.body.dataset.errors=errs.join(' | ');}\
addEventListener('error',function(e){note(e.message||('failed to load '+(e.target&&(e.target.src||e.target.href))));},true);\
var ce=console.error;console.error=function(){note(Array.prototype.join.call(arguments,' '));ce.apply(console,arguments);};\
addEventListener('load',function(){var bad=Array.prototype.filter.call(document.images,function(i){return !i.complete||i.naturalWidth===0;});\
bad.forEach(function(i){note('chart not shown: '+i.getAttribute('src'));});document.body.dataset.images=document.images.length;\
document.body.dataset.loaded='yes';});})();";

/// The claims table's filters (one select per `data-filter`, its options the
/// values present) and sorting by a header's column.
const TABLES: &str = "(function(){var t=document.querySelector('table.claims');if(!t)return;var rows=Array.prototype.slice.call(t.tBodies[0].rows);\
var sels=document.querySelectorAll('select[data-filter]');function apply(){rows.forEach(function(r){var show=true;\
sels.forEach(function(s){if(s.value&&r.dataset[s.dataset.filter]!==s.value)show=false;});r.style.display=show?'':'none';});}\
sels.forEach(function(s){var vals={};rows.forEach(function(r){vals[r.dataset[s.dataset.filter]]=1;});s.add(new Option('all',''));\
Object.keys(vals).sort().forEach(function(v){s.add(new Option(v.replace(/_/g,' '),v));});s.addEventListener('change',apply);});\
Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){th.addEventListener('click',function(){var up=th.dataset.sort!=='up';\
th.dataset.sort=up?'up':'down';rows.sort(function(a,b){var x=a.cells[i].textContent,y=b.cells[i].textContent;return up?x.localeCompare(y):y.localeCompare(x);});\
rows.forEach(function(r){t.tBodies[0].appendChild(r);});});});document.body.dataset.claims=rows.length;})();";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_reports_point_at_their_pages_and_anchors_follow_github() {
        assert_eq!(page_link("ecga/REPORT.md"), "ecga/report.html");
        assert_eq!(page_link("layout/COMPARE.md#hardware"), "layout/compare.html#hardware");
        assert_eq!(page_link("../INDEX.md"), "../index.html");
        assert_eq!(page_link("machines/h200__xeon__16t.md#figure-4"), "machines/h200__xeon__16t.html#figure-4");
        assert_eq!(page_link("notes.md"), "notes.md", "only reports and machine pages are pages");
        assert_eq!(page_link("paper_values.csv"), "paper_values.csv");
        assert_eq!(page_link("https://doi.org/10.1/REPORT.md"), "https://doi.org/10.1/REPORT.md");
        assert_eq!(anchor("Table 5 — population sizes (ℓ)"), "table-5--population-sizes-ℓ");
        assert_eq!(anchor("Beyond the paper"), "beyond-the-paper");
    }

    #[test]
    fn a_report_page_has_its_headings_charts_and_claims() {
        let dir = tempfile::tempdir().unwrap();
        let paper = dir.path().join("p");
        std::fs::create_dir_all(paper.join("figures")).unwrap();
        std::fs::write(paper.join("figures/a.svg"), "<svg/>").unwrap();
        std::fs::write(
            paper.join("REPORT.md"),
            "# P\n\n## At a glance\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![A](figures/a.png) ![B](figures/b.png)\n\n## Claims\n\n[back](#at-a-glance)\n",
        )
        .unwrap();
        let verdicts = serde_json::json!({
            "machines": [{"hw_id": "m1", "label": "H200 · 16 threads"}],
            "claims": [{"id": "speedup", "machine": "m1", "verdict": "reproduced", "provenance": "paper", "text": "x < y", "label": "1.2×"}]
        });
        std::fs::write(paper.join("verdicts.json"), verdicts.to_string()).unwrap();
        let html = page(&paper.join("REPORT.md")).unwrap();
        assert!(html.contains("<h2 id=\"at-a-glance\">At a glance</h2>"), "{html}");
        assert!(html.contains("src=\"figures/a.svg\"") && html.contains("src=\"figures/b.png\""), "SVG only where written");
        assert!(html.contains("<td>1</td>"), "tables rendered");
        assert!(html.contains("data-verdict=\"reproduced\" data-machine=\"H200 · 16 threads\""));
        assert!(html.contains("x &lt; y"), "text escaped");
        assert!(html.contains("href=\"../index.html\""));
        assert!(!html.contains("http://") && !html.contains("https://"), "nothing fetched from a network");
    }
}
