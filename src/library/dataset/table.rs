//! Columns and rows, shared by the three formats: values looked up per column, rows collected into a [`Dataset`].

use super::{Attribute, Dataset, DatasetError, MAX_NOMINAL_VALUES};
use std::collections::HashMap;
use std::path::PathBuf;

/// The type of one column of a UCI CSV file ([`CsvSpec`]).
///
/// [`CsvSpec`]: super::CsvSpec
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnKind {
    Continuous,
    /// Nominal with a declared list of values: any other value is an error.
    Nominal(Vec<String>),
    /// Nominal with values taken from the file, in order of first appearance.
    NominalFromData,
}

/// A column while rows are parsed: nominal values are looked up in `index`.
pub(super) struct Column {
    name: String,
    nominal: Option<NominalColumn>,
}

struct NominalColumn {
    values: Vec<String>,
    index: HashMap<String, u16>,
    open: bool,
}

impl Column {
    pub(super) fn new(name: &str, kind: &ColumnKind) -> Column {
        let nominal = |values: &[String], open| NominalColumn {
            values: values.to_vec(),
            index: values.iter().enumerate().map(|(i, v)| (v.clone(), i as u16)).collect(),
            open,
        };
        Column {
            name: name.to_string(),
            nominal: match kind {
                ColumnKind::Continuous => None,
                ColumnKind::Nominal(values) => Some(nominal(values, false)),
                ColumnKind::NominalFromData => Some(nominal(&[], true)),
            },
        }
    }

    /// The value of `token` (trimmed, not missing): a number or a value index.
    fn value(&mut self, token: &str) -> Result<f32, String> {
        match &mut self.nominal {
            None => token.parse::<f32>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("attribute `{}`: not a number", self.name)),
            Some(n) => match n.index.get(token) {
                Some(&i) => Ok(f32::from(i)),
                None if n.open && n.values.len() < usize::from(u16::MAX) => {
                    n.index.insert(token.to_string(), n.values.len() as u16);
                    n.values.push(token.to_string());
                    Ok((n.values.len() - 1) as f32)
                }
                None => Err(format!("attribute `{}`: value not among the declared {{{}}}", self.name, n.values.join(", "))),
            },
        }
    }
}

/// Rows being collected: `columns` in file order, one of them the class.
pub(super) struct Table {
    pub(super) path: PathBuf,
    pub(super) columns: Vec<Column>,
    pub(super) class_column: usize,
    pub(super) strip_class_period: bool,
    pub(super) values: Vec<f32>,
    pub(super) labels: Vec<u16>,
}

impl Table {
    pub(super) fn error(&self, line: usize, column: usize, text: &str, message: String) -> DatasetError {
        DatasetError::Parse { path: self.path.clone(), line, column, text: text.to_string(), message }
    }

    /// Parses one comma-separated data row (`line_no` 1-based) and appends it.
    pub(super) fn push_row(&mut self, line_no: usize, line: &str) -> Result<(), DatasetError> {
        let expected = self.columns.len();
        let mut offset = 0;
        let mut fields = 0;
        for (c, field) in line.split(',').enumerate() {
            let column = offset + field.len() - field.trim_start().len() + 1;
            offset += field.len() + 1;
            fields += 1;
            if c >= expected {
                return Err(self.error(line_no, column, line, format!("{} fields, expected {expected}", line.split(',').count())));
            }
            let token = unquote(field.trim());
            if c == self.class_column {
                let token = if self.strip_class_period { token.strip_suffix('.').unwrap_or(token) } else { token };
                if token == "?" {
                    return Err(self.error(line_no, column, token, "the class is missing".into()));
                }
                let label = self.columns[c].value(token).map_err(|m| self.error(line_no, column, token, m))?;
                self.labels.push(label as u16);
            } else if token == "?" {
                self.values.push(f32::NAN);
            } else {
                let v = self.columns[c].value(token).map_err(|m| self.error(line_no, column, token, m))?;
                self.values.push(v);
            }
        }
        if fields < expected {
            return Err(self.error(line_no, line.len() + 1, line, format!("{fields} fields, expected {expected}")));
        }
        Ok(())
    }

    pub(super) fn into_dataset(self, name: String) -> Result<Dataset, DatasetError> {
        let mut attributes = Vec::with_capacity(self.columns.len() - 1);
        let mut classes = Vec::new();
        for (c, column) in self.columns.into_iter().enumerate() {
            match column.nominal {
                Some(n) if c == self.class_column => classes = n.values,
                Some(n) if n.values.len() > MAX_NOMINAL_VALUES => {
                    return Err(DatasetError::TooManyValues { path: self.path, attribute: column.name, count: n.values.len() });
                }
                Some(n) => attributes.push(Attribute::Nominal { name: column.name, values: n.values }),
                None => attributes.push(Attribute::Continuous { name: column.name }),
            }
        }
        Ok(Dataset { name, attributes, classes, values: self.values, labels: self.labels, synthetic: false })
    }
}

pub(super) fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    s
}
