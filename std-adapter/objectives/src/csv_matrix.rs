//! Reading numeric CSV tables: a header row, then rows of numbers separated by commas.

use std::fmt;
use std::path::Path;

/// A numeric table read from CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Column names from the header row.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<f64>>,
}

/// Why a CSV file could not be read.
#[derive(Debug)]
pub enum CsvError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The file has no header row.
    Empty,
    /// A row does not have as many fields as the header.
    Width {
        /// 1-based line number.
        line: usize,
        /// Fields found.
        found: usize,
        /// Fields expected.
        expected: usize,
    },
    /// A field is not a finite number.
    Number {
        /// 1-based line number.
        line: usize,
        /// The offending text.
        field: String,
    },
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsvError::Io(e) => write!(f, "{e}"),
            CsvError::Empty => write!(f, "no header row"),
            CsvError::Width {
                line,
                found,
                expected,
            } => {
                write!(f, "line {line}: {found} fields, expected {expected}")
            }
            CsvError::Number { line, field } => {
                write!(
                    f,
                    "line {line}: `{}` is not a finite number",
                    crate::shown::Shown(field)
                )
            }
        }
    }
}

impl std::error::Error for CsvError {}

impl Table {
    /// Parses CSV text. Blank lines are skipped; fields are trimmed; a byte-order mark at the
    /// start (spreadsheets save one) is not part of the first column's name.
    pub fn parse(text: &str) -> Result<Table, CsvError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, head) = lines.next().ok_or(CsvError::Empty)?;
        let header: Vec<String> = head.split(',').map(|s| s.trim().to_string()).collect();
        let mut rows = Vec::new();
        for (i, line) in lines {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != header.len() {
                return Err(CsvError::Width {
                    line: i + 1,
                    found: fields.len(),
                    expected: header.len(),
                });
            }
            let row = fields
                .iter()
                .map(|f| match f.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(CsvError::Number {
                        line: i + 1,
                        field: f.to_string(),
                    }),
                })
                .collect::<Result<Vec<f64>, _>>()?;
            rows.push(row);
        }
        Ok(Table { header, rows })
    }

    /// Reads and parses a file of at most [`CSV_LIMIT`](crate::text_file::CSV_LIMIT) bytes.
    pub fn read(path: &Path) -> Result<Table, CsvError> {
        Table::parse(
            &crate::text_file::read(path, crate::text_file::CSV_LIMIT).map_err(CsvError::Io)?,
        )
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.header.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_header() {
        let t = Table::parse("\u{feff}mean,std\n1,2\n").unwrap();
        assert_eq!(t.header, ["mean", "std"]);
        assert_eq!(t.rows, [[1.0, 2.0]]);
    }

    #[test]
    fn parses_and_reports_errors() {
        let t = Table::parse("a, b\n1,2\n\n3.5,-4e-3\n").unwrap();
        assert_eq!(t.header, ["a", "b"]);
        assert_eq!(t.rows, [vec![1.0, 2.0], vec![3.5, -4e-3]]);
        assert!(matches!(
            Table::parse("a,b\n1\n"),
            Err(CsvError::Width { line: 2, .. })
        ));
        assert!(matches!(
            Table::parse("a\nnan\n"),
            Err(CsvError::Number { line: 2, .. })
        ));
        assert!(matches!(
            Table::parse("a\nx\n"),
            Err(CsvError::Number { .. })
        ));
        assert!(matches!(Table::parse(""), Err(CsvError::Empty)));
    }
}
