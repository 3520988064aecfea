//! `costbo gp`: Gaussian-process prediction and fitting on CSV data, through the desktop
//! adapter's GP ([`costbo_std::gp`], the core's GP with its sizes chosen at run time).

pub use costbo_std::gp::{FitOptions, FitSummary, GpSpec, MAX_DIM, MAX_POINTS};
pub use costbo_std::Precision;

use costbo_objectives::csv_matrix::Table;

/// Splits a training table into the output, the column named `y`, and the inputs, every other
/// column in order.
fn split_train(train: &Table) -> Result<(Vec<Vec<f64>>, Vec<f64>), String> {
    let named_y: Vec<usize> = (0..train.width())
        .filter(|&c| train.header[c] == "y")
        .collect();
    let y = match named_y[..] {
        [y] => y,
        [] => {
            return Err(
                "training data have no column `y` (the output; every other column is an input)"
                    .into(),
            )
        }
        _ => return Err("training data have more than one column `y`".into()),
    };
    if train.width() < 2 {
        return Err("training data need at least one input column beside `y`".into());
    }
    let xs = train
        .rows
        .iter()
        .map(|r| (0..r.len()).filter(|&c| c != y).map(|c| r[c]).collect())
        .collect();
    let ys = train.rows.iter().map(|r| r[y]).collect();
    Ok((xs, ys))
}

/// Posterior mean and latent variance at each test row.
pub fn predict(
    spec: &GpSpec,
    train: &Table,
    test: &Table,
    precision: Precision,
) -> Result<Vec<(f64, f64)>, String> {
    // The settings are named as the command's options.
    spec.check().map_err(|e| format!("--{e}"))?;
    let (xs, ys) = split_train(train)?;
    let d = train.width() - 1;
    if test.width() != d {
        return Err(format!(
            "test data have {} columns, training data {d} inputs",
            test.width()
        ));
    }
    costbo_std::gp::predict(spec, &xs, &ys, &test.rows, precision).map_err(|e| e.to_string())
}

/// Fits the hyperparameters by maximum likelihood, starting from `spec`.
pub fn fit(
    spec: &GpSpec,
    train: &Table,
    precision: Precision,
    options: FitOptions,
) -> Result<FitSummary, String> {
    spec.check().map_err(|e| format!("--{e}"))?;
    options.check().map_err(|e| format!("--{e}"))?;
    let (xs, ys) = split_train(train)?;
    if xs.is_empty() {
        return Err("no training rows".into());
    }
    costbo_std::gp::fit(spec, &xs, &ys, precision, options).map_err(|e| e.to_string())
}
