//! KEEL `.dat` and ARFF files: an `@attribute` header, then comma-separated rows.

use super::files::read_text;
use super::table::{Column, Table, unquote};
use super::{ColumnKind, Dataset, DatasetError};
use std::path::Path;

/// Splits an `@attribute` declaration into its name and the rest (the type).
fn attribute_declaration(rest: &str) -> Option<(String, &str)> {
    let rest = rest.trim_start();
    if let Some(q) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let end = rest[1..].find(q)? + 1;
        Some((rest[1..end].to_string(), rest[end + 1..].trim()))
    } else {
        let end = rest.find(|c: char| c.is_whitespace() || c == '{')?;
        Some((rest[..end].to_string(), rest[end..].trim()))
    }
}

/// The kind of a KEEL or ARFF attribute type: `{v1, v2}`, or a numeric keyword
/// (`real`, `integer`, `numeric`) optionally followed by a KEEL range `[a, b]`.
fn attribute_kind(ty: &str) -> Option<ColumnKind> {
    if let Some(inner) = ty.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Some(ColumnKind::Nominal(inner.split(',').map(|v| unquote(v.trim()).to_string()).collect()));
    }
    let keyword = ty.split(|c: char| c.is_whitespace() || c == '[').next()?.to_ascii_lowercase();
    matches!(keyword.as_str(), "real" | "integer" | "numeric").then_some(ColumnKind::Continuous)
}

/// Which header dialect is being read: KEEL allows `@inputs`/`@outputs`, ARFF `%`
/// comments.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Dialect {
    Keel,
    Arff,
}

fn load_header_format(path: &Path, dialect: Dialect) -> Result<Dataset, DatasetError> {
    parse_header_format(path, &read_text(path)?, dialect)
}

/// A KEEL or ARFF file's `text` (read from `path`, which errors name).
pub(super) fn parse_header_format(path: &Path, text: &str, dialect: Dialect) -> Result<Dataset, DatasetError> {
    let err = |line: usize, text: &str, message: &str| DatasetError::Parse {
        path: path.to_path_buf(),
        line,
        column: 1,
        text: text.to_string(),
        message: message.to_string(),
    };
    let mut relation = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut declared: Vec<(String, ColumnKind)> = Vec::new();
    let mut inputs: Option<(usize, Vec<String>)> = None;
    let mut output: Option<(usize, String)> = None;
    let mut lines = text.lines().enumerate();
    let data_start = loop {
        let Some((i, line)) = lines.next() else { return Err(err(text.lines().count() + 1, "", "no @data section")) };
        let t = line.trim();
        if t.is_empty() || (dialect == Dialect::Arff && t.starts_with('%')) {
            continue;
        }
        let (keyword, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        match (keyword.to_ascii_lowercase().as_str(), dialect) {
            ("@relation", _) => relation = unquote(rest.trim()).to_string(),
            ("@attribute", _) => {
                let (name, ty) = attribute_declaration(rest).ok_or_else(|| err(i + 1, line, "malformed @attribute"))?;
                let kind = attribute_kind(ty).ok_or_else(|| err(i + 1, line, "unsupported attribute type"))?;
                declared.push((name, kind));
            }
            ("@inputs", Dialect::Keel) => inputs = Some((i + 1, rest.split(',').map(|s| s.trim().to_string()).collect())),
            ("@outputs" | "@output", Dialect::Keel) => output = Some((i + 1, rest.trim().to_string())),
            ("@data", _) => break i + 1,
            _ => return Err(err(i + 1, line, "unexpected header line")),
        }
    };
    if declared.len() < 2 {
        return Err(err(data_start, "@data", "need at least one input attribute and a class"));
    }
    let class_column = match &output {
        Some((line, name)) => {
            declared.iter().position(|(n, _)| n == name).ok_or_else(|| err(*line, name, "@outputs names no attribute"))?
        }
        None => declared.len() - 1,
    };
    if let Some((line, list)) = &inputs {
        let rest: Vec<&String> = declared.iter().enumerate().filter(|&(c, _)| c != class_column).map(|(_, (n, _))| n).collect();
        if list.len() != rest.len() || list.iter().zip(&rest).any(|(a, b)| a != *b) {
            return Err(err(*line, &list.join(", "), "@inputs must list every attribute but the output, in order"));
        }
    }
    if !matches!(declared[class_column].1, ColumnKind::Nominal(_)) {
        return Err(err(data_start, &declared[class_column].0, "the class attribute must be nominal"));
    }
    let mut table = Table {
        path: path.to_path_buf(),
        columns: declared.iter().map(|(n, k)| Column::new(n, k)).collect(),
        class_column,
        strip_class_period: false,
        values: Vec::new(),
        labels: Vec::new(),
    };
    for (i, line) in lines {
        let t = line.trim();
        if t.is_empty() || (dialect == Dialect::Arff && t.starts_with('%')) {
            continue;
        }
        if dialect == Dialect::Arff && t.starts_with('{') {
            return Err(table.error(i + 1, 1, line, "sparse ARFF rows are not supported".into()));
        }
        table.push_row(i + 1, line)?;
    }
    table.into_dataset(relation)
}

/// Loads a KEEL `.dat` file: `@relation`, `@attribute name real [a, b]` /
/// `integer [a, b]` / `{v1, v2, …}`, optional `@inputs` / `@outputs` (the class is
/// the output, else the last attribute), `@data`, then comma-separated rows with
/// `?` for missing values.
pub fn load_keel(path: &Path) -> Result<Dataset, DatasetError> {
    load_header_format(path, Dialect::Keel)
}

/// Loads an ARFF file (Weka): `@relation`, `@attribute name numeric|real|integer|{…}`,
/// `@data`, `%` comments, `?` missing; the class is the last attribute, nominal.
pub fn load_arff(path: &Path) -> Result<Dataset, DatasetError> {
    load_header_format(path, Dialect::Arff)
}
