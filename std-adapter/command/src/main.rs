//! The `costbo` command: one subcommand per file under `commands/`.

// `outln!`, `out!` and `errln!` in every subcommand, as `println!` would be.
#[macro_use]
extern crate costbo_eval;

mod commands;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "costbo",
    version,
    about = "Cost-aware Bayesian optimisation, desktop tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: a simulated nutrient-dosing experiment on the plant simulator (ETC-Ada),
    /// with progress, a summary of what was learned, a CSV and a plot.
    Demo(costbo_lab::demo::DemoArgs),
    /// Run an experiment grid from a TOML file (objective × costs × variance × algorithm ×
    /// seed), in parallel and resumably: one CSV per job and a summary.json. With --shard K/N,
    /// only machine K's share of the grid (see `costbo run --help`).
    Run(commands::run::RunArgs),
    /// Drive a costbo device (firmware, or QEMU) over its link, playing the plant simulator and
    /// checking every decision against the same controller run on the host.
    Device(costbo::device::DeviceArgs),
    /// Reproduce a paper's experiments on the runner and write a report with figures, a
    /// table of final simple regret and a verdict on each headline claim (resumable).
    Reproduce(commands::reproduce::ReproduceArgs),
    /// Gaussian-process regression on CSV data.
    #[command(subcommand)]
    Gp(commands::gp::GpCommand),
    /// Benchmark objectives on the unit cube (maximised).
    #[command(subcommand)]
    Objective(commands::objective::ObjectiveCommand),
    /// Causal graphs, possibly-optimal policy scopes and environments (paper 004).
    #[command(subcommand)]
    Causal(commands::causal::CausalCommand),
    /// Paper 002's acquisition values from posterior moments (f64, full precision).
    #[command(subcommand)]
    Acq(commands::acq::AcqCommand),
    /// One run of paper 002's loop over a box (initial Sobol design, then the rule while the
    /// budget lasts); prints a CSV of the rounds.
    Pandora(commands::pandora::PandoraArgs),
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Demo(a) => costbo_lab::demo::run(&a.options()?).map(|_| ()),
        Command::Device(a) => costbo::device::run(&a.options()?).map(|_| ()),
        Command::Run(a) => commands::run::run(a),
        Command::Reproduce(a) => commands::reproduce::run(a),
        Command::Gp(c) => commands::gp::run(c),
        Command::Objective(c) => commands::objective::run(c),
        Command::Causal(c) => commands::causal::run(c),
        Command::Acq(c) => commands::acq::run(c),
        Command::Pandora(a) => commands::pandora::run(a),
    }
}

fn main() -> std::process::ExitCode {
    costbo_eval::cli::finish("costbo", run(costbo_eval::cli::parse("costbo")))
}
