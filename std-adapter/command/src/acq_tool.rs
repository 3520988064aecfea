//! `costbo acq`: paper 002's acquisition values from posterior moments in a CSV file, in `f64`
//! at full precision, so that they can be checked against high-precision references from
//! outside the project.
//!
//! - `costbo acq pbgi --input F.csv`: columns `mean,std,lambda_cost` (any order, other columns
//!   ignored) → the Pandora's Box Gittins index `index` of each row
//!   ([`gittins_index`]);
//! - `costbo acq log-ei --input F.csv`: columns `mean,std,best` → `log_ei`
//!   ([`log_expected_improvement`]);
//! - `costbo acq mes --input F.csv --max-values G.csv`: columns `mean,std` of F and
//!   `max_value` of G (the samples of the maximum, shared by every row of F) → `mes`
//!   ([`max_value_entropy`]).
//!
//! Values are printed with Rust's shortest round-trip formatting (17 significant digits at
//! most). A row whose value is not a finite `f64` is an error naming the row: LogEI is `-inf`
//! where no improvement is possible (std 0, mean ≤ best) and below the range of `f64` where
//! `(mean − best)/std` is.

use costbo_core::special::entropy::max_value_entropy;
use costbo_core::special::improvement::{
    gittins_index, log_expected_improvement, ImprovementError,
};
use costbo_objectives::csv_matrix::Table;

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
        ImprovementError::NonPositiveStd => "std is not positive",
        ImprovementError::NonPositivePrice => "lambda_cost is not positive",
        ImprovementError::BadMixture => "a mixture needs as many stds as means, at least one",
    }
}

/// Applies `f` to the named columns of each row; errors name the data row (1-based, header
/// excluded) and the reason. A value that is not finite is refused: the tool prints numbers a
/// program can read back, never a NaN or an infinity with a successful exit.
fn per_row<const K: usize>(
    table: &Table,
    names: [&str; K],
    f: impl Fn([f64; K]) -> Result<f64, ImprovementError>,
    infinite: impl Fn([f64; K]) -> &'static str,
) -> Result<Vec<f64>, String> {
    let cols = columns(table, names)?;
    table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let args = cols.map(|c| row[c]);
            let v = f(args).map_err(|e| format!("row {}: {}", i + 1, describe(e)))?;
            if !v.is_finite() {
                return Err(format!("row {}: {}", i + 1, infinite(args)));
            }
            Ok(v)
        })
        .collect()
}

/// Why a value came out beyond f64 when the inputs were finite.
const BEYOND_F64: &str = "the value is beyond the range of f64 (rescale the inputs)";

/// The Gittins index of each row of a table with columns `mean`, `std` and `lambda_cost`.
pub fn pbgi(table: &Table) -> Result<Vec<f64>, String> {
    per_row(
        table,
        ["mean", "std", "lambda_cost"],
        |[m, s, p]| gittins_index(m, s, p),
        |_| BEYOND_F64,
    )
}

/// LogEI of each row of a table with columns `mean`, `std` and `best`.
pub fn log_ei(table: &Table) -> Result<Vec<f64>, String> {
    per_row(
        table,
        ["mean", "std", "best"],
        |[m, s, b]| log_expected_improvement(m, s, b),
        |[m, s, b]| {
            if s == 0.0 && m <= b {
                "LogEI is -inf: with std 0 and mean <= best no improvement is possible"
            } else {
                "LogEI is below the range of f64 ((mean - best)/std is beyond it: rescale the \
                 inputs)"
            }
        },
    )
}

/// MES of each row of a table with columns `mean` and `std`, given the samples of the maximum in
/// the column `max_value` of `samples`.
pub fn mes(table: &Table, samples: &Table) -> Result<Vec<f64>, String> {
    let [column] = columns(samples, ["max_value"])?;
    let max_values: Vec<f64> = samples.rows.iter().map(|r| r[column]).collect();
    if max_values.is_empty() {
        return Err("no samples of the maximum (the max_value column is empty)".into());
    }
    per_row(
        table,
        ["mean", "std"],
        |[m, s]| max_value_entropy(m, s, &max_values),
        |_| BEYOND_F64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)] // the reference's digits, as mpmath gave them
    fn mes_reads_points_and_shared_samples_by_column_name() {
        // mpmath at 60 digits (tools/reference/mes_reference.py): mean 0, std 1, samples
        // 1, 2 and 0.5 give 0.29701702008296909408; mean 1.5, std 0.3, samples 1.2, 1.6, 2.5,
        // 3 give 0.41058905043692146497.
        let t = Table::parse("std,mean\n1,0\n0.3,1.5\n").unwrap();
        let first = Table::parse("max_value\n1\n2\n0.5\n").unwrap();
        let v = mes(&t, &first).unwrap();
        assert!((v[0] - 0.29701702008296909408).abs() < 1e-15, "{}", v[0]);
        let second = Table::parse("other,max_value\n9,1.2\n9,1.6\n9,2.5\n9,3\n").unwrap();
        let v = mes(&t, &second).unwrap();
        assert!((v[1] - 0.41058905043692146497).abs() < 1e-15, "{}", v[1]);
        assert!(mes(&t, &Table::parse("y\n1\n").unwrap())
            .unwrap_err()
            .contains("no column `max_value`"));
        assert!(mes(&t, &Table::parse("max_value\n").unwrap())
            .unwrap_err()
            .contains("no samples"));
        let zero = Table::parse("mean,std\n0,0\n").unwrap();
        assert_eq!(
            mes(&zero, &first).unwrap_err(),
            "row 1: std is not positive"
        );
    }

    #[test]
    fn values_beyond_f64_are_refused_and_log_ei_is_finite_at_the_edge() {
        // LogEI of mean 1e308, best −1e308: ln(2e308) = 709.889355822726 (ln 2 + 308 ln 10).
        let t = Table::parse("mean,std,best\n1e308,1,-1e308\n").unwrap();
        let v = log_ei(&t).unwrap();
        assert!((v[0] - 709.889355822726).abs() < 1e-9, "{}", v[0]);
        // The Gittins index mean − σ·u* of mean 1e308, σ 1e308 at a tiny price exceeds f64.
        let t = Table::parse("mean,std,lambda_cost\n1e308,1e308,1e-300\n").unwrap();
        let e = pbgi(&t).unwrap_err();
        assert!(
            e.starts_with("row 1: the value is beyond the range of f64"),
            "{e}"
        );
    }

    #[test]
    fn log_ei_without_a_finite_value_is_an_error_naming_the_row_and_why() {
        // ln(σ·φ(0)) = ln(1e-308) − ln(2π)/2 = −709.1962086421661 − 0.9189385332046728.
        let t = Table::parse("mean,std,best\n0,1e-308,0\n").unwrap();
        assert!((log_ei(&t).unwrap()[0] + 710.1151471753708).abs() < 1e-9);
        let none = Table::parse("mean,std,best\n1,1,0\n0,0,0\n").unwrap();
        assert_eq!(
            log_ei(&none).unwrap_err(),
            "row 2: LogEI is -inf: with std 0 and mean <= best no improvement is possible"
        );
        let far = Table::parse("mean,std,best\n-1e308,1,1e308\n").unwrap();
        assert!(log_ei(&far)
            .unwrap_err()
            .starts_with("row 1: LogEI is below the range of f64"));
        // σ = 0 and mean above best: EI is the gap, ln 2.
        let gap = Table::parse("mean,std,best\n2,0,0\n").unwrap();
        assert!((log_ei(&gap).unwrap()[0] - std::f64::consts::LN_2).abs() < 1e-15);
    }

    #[test]
    fn columns_by_name_in_any_order_and_errors_name_the_row() {
        let t = Table::parse("lambda_cost,extra,std,mean\n1e-4,9,1,0\n0.5,9,0,3\n").unwrap();
        let v = pbgi(&t).unwrap();
        // mpmath: h⁻¹(1e-4) = −3.3630153259270826 (`docs/notes/seed-002.md` §2.4); σ = 0 gives mean − λc.
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
