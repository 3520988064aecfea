//! `costbo acq pbgi|log-ei|mes`: paper 002's acquisition values from posterior moments.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::read;

#[derive(Subcommand)]
pub enum AcqCommand {
    /// The Pandora's Box Gittins index: reads columns `mean,std,lambda_cost`, prints `index`.
    Pbgi(AcqArgs),
    /// Log expected improvement: reads columns `mean,std,best`, prints `log_ei`.
    LogEi(AcqArgs),
    /// Max-value entropy search: reads columns `mean,std` and the samples of the maximum
    /// (column `max_value` of --max-values), prints `mes` for each row.
    Mes(MesArgs),
}

#[derive(Args)]
pub struct MesArgs {
    /// CSV file with columns `mean` and `std` (one point per row).
    #[arg(long)]
    input: PathBuf,
    /// CSV file with a column `max_value`: the samples of the maximum, shared by every point.
    #[arg(long)]
    max_values: PathBuf,
}

#[derive(Args)]
pub struct AcqArgs {
    /// CSV file with a header row naming the columns.
    #[arg(long)]
    input: PathBuf,
}

/// Prints the acquisition value of each row.
pub fn run(c: AcqCommand) -> Result<(), String> {
    if let AcqCommand::Mes(a) = &c {
        let table = read(&a.input)?;
        let samples = read(&a.max_values)?;
        let values = costbo::acq_tool::mes(&table, &samples)
            .map_err(|e| format!("{} with {}: {e}", a.input.display(), a.max_values.display()))?;
        outln!("mes");
        for v in values {
            outln!("{v:?}");
        }
        return Ok(());
    }
    let (a, column) = match &c {
        AcqCommand::Pbgi(a) => (a, "index"),
        AcqCommand::LogEi(a) => (a, "log_ei"),
        AcqCommand::Mes(_) => return Ok(()),
    };
    let table = read(&a.input)?;
    let values = match c {
        AcqCommand::Pbgi(_) => costbo::acq_tool::pbgi(&table),
        AcqCommand::LogEi(_) => costbo::acq_tool::log_ei(&table),
        AcqCommand::Mes(_) => return Ok(()),
    }
    .map_err(|e| format!("{}: {e}", a.input.display()))?;
    outln!("{column}");
    for v in values {
        outln!("{v:?}");
    }
    Ok(())
}
