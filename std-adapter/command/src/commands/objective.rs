//! `costbo objective eval|list`: the benchmark objectives on the unit cube.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use costbo_lab::objectives::{self, Options, CATALOGUE};

use super::read;

#[derive(Subcommand)]
pub enum ObjectiveCommand {
    /// Print the value (CSV `value`) at each row of a CSV file of unit-cube points.
    Eval(ObjectiveEvalArgs),
    /// List the objectives (CSV `name,dim,dims,optimum,summary`; `dim` is the default).
    List,
}

#[derive(Args)]
pub struct ObjectiveEvalArgs {
    /// Objective name (see `costbo objective list`).
    #[arg(long)]
    name: String,
    /// Input dimension, for objectives defined in several (default: the listed `dim`).
    #[arg(long)]
    dim: Option<usize>,
    /// Seed of gp-sample (default 0).
    #[arg(long)]
    seed: Option<u64>,
    /// Points CSV: a header row, then one point of the unit cube per row.
    #[arg(long)]
    points: PathBuf,
}

/// Prints the values at the points, or the list of objectives.
pub fn run(c: ObjectiveCommand) -> Result<(), String> {
    match c {
        ObjectiveCommand::Eval(a) => {
            let options = Options {
                dim: a.dim,
                seed: a.seed,
            };
            let f = objectives::build(&a.name, &options).map_err(|e| e.to_string())?;
            let points = read(&a.points)?;
            if points.width() != f.dim() {
                return Err(format!(
                    "{}: {} columns, but {} takes {} inputs",
                    a.points.display(),
                    points.width(),
                    a.name,
                    f.dim()
                ));
            }
            let values = objectives::eval_rows(f.as_ref(), &points.rows)
                .map_err(|e| format!("{}: {e}", a.points.display()))?;
            outln!("value");
            for v in values {
                outln!("{v:?}");
            }
        }
        ObjectiveCommand::List => {
            outln!("name,dim,dims,optimum,summary");
            for e in CATALOGUE {
                let f =
                    objectives::build(e.name, &Options::default()).map_err(|e| e.to_string())?;
                outln!(
                    "{},{},{},{:?},\"{}\"",
                    e.name,
                    e.default_dim,
                    e.dims,
                    f.optimum(),
                    e.summary
                );
            }
        }
    }
    Ok(())
}
