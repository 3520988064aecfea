//! `costbo acq`: paper 002's acquisition values from posterior moments in a CSV file, in `f64`
//! at full precision, so that they can be checked against high-precision references from
//! outside the project.
//!
//! - `costbo acq pbgi --input F.csv`: columns `mean,std,lambda_cost` (any order, other columns
//!   ignored) → the Pandora's Box Gittins index `index` of each row
//!   ([`gittins_index`]);
//! - `costbo acq log-ei --input F.csv`: columns `mean,std,best` → `log_ei`
//!   ([`log_expected_improvement`]).
//!
//! Values are printed with Rust's shortest round-trip formatting (17 significant digits at
//! most, `-inf` for LogEI of a point with no improvement possible).

use crate::csv_matrix::Table;
use costbo_core::special::improvement::{
    gittins_index, log_expected_improvement, ImprovementError,
};

/// The index of each of `names` in `table`'s header, or an error naming the first missing one.
fn columns<const K: usize>(table: &Table, names: [&str; K]) -> Result<[usize; K], String> {
    let mut out = [0; K];
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = table
            .header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| {
                format!(
                    "no column `{name}` (the header must name {})",
                    names.join(", ")
                )
            })?;
    }
    Ok(out)
}

fn describe(e: ImprovementError) -> &'static str {
    match e {
        ImprovementError::NonFinite => "a value is not finite",
        ImprovementError::NegativeStd => "std is negative",
        ImprovementError::NonPositivePrice => "lambda_cost is not positive",
        ImprovementError::BadMixture => "a mixture needs as many stds as means, at least one",
    }
}

/// Applies `f` to the named columns of each row; errors name the data row (1-based, header
/// excluded) and the reason.
fn per_row<const K: usize>(
    table: &Table,
    names: [&str; K],
    f: impl Fn([f64; K]) -> Result<f64, ImprovementError>,
) -> Result<Vec<f64>, String> {
    let cols = columns(table, names)?;
    table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            f(cols.map(|c| row[c])).map_err(|e| format!("row {}: {}", i + 1, describe(e)))
        })
        .collect()
}

/// The Gittins index of each row of a table with columns `mean`, `std` and `lambda_cost`.
pub fn pbgi(table: &Table) -> Result<Vec<f64>, String> {
    per_row(table, ["mean", "std", "lambda_cost"], |[m, s, p]| {
        gittins_index(m, s, p)
    })
}

/// LogEI of each row of a table with columns `mean`, `std` and `best`.
pub fn log_ei(table: &Table) -> Result<Vec<f64>, String> {
    per_row(table, ["mean", "std", "best"], |[m, s, b]| {
        log_expected_improvement(m, s, b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_name_in_any_order_and_errors_name_the_row() {
        let t = Table::parse("lambda_cost,extra,std,mean\n1e-4,9,1,0\n0.5,9,0,3\n").unwrap();
        let v = pbgi(&t).unwrap();
        // mpmath: h⁻¹(1e-4) = −3.3630153259270826 (seed-002 §2.4); σ = 0 gives mean − λc.
        assert!((v[0] - 3.3630153259270826).abs() < 1e-15);
        assert_eq!(v[1], 2.5);
        let bad = Table::parse("mean,std,lambda_cost\n0,1,1\n0,-1,1\n").unwrap();
        assert_eq!(pbgi(&bad).unwrap_err(), "row 2: std is negative");
        let missing = Table::parse("mean,std\n0,1\n").unwrap();
        assert!(log_ei(&missing).unwrap_err().contains("no column `best`"));
        let zero = Table::parse("mean,std,lambda_cost\n0,1,0\n").unwrap();
        assert_eq!(
            pbgi(&zero).unwrap_err(),
            "row 1: lambda_cost is not positive"
        );
    }
}
