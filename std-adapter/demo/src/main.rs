//! `costbo-demo`: the simulated nutrient-dosing experiment of `costbo demo`, built without the
//! rest of the lab so that a fresh clone reaches its result in about two minutes.

use clap::Parser;

/// A simulated nutrient-dosing experiment: ETC-Ada on a refitted model, round by round, then a
/// comparison with paper 000's ETC-Ada and a cost-unaware rule on held-out seeds.
#[derive(Parser)]
#[command(name = "costbo-demo", version)]
struct Cli {
    #[command(flatten)]
    demo: costbo_demo::DemoArgs,
}

fn main() -> std::process::ExitCode {
    let cli: Cli = costbo_eval::cli::parse("costbo-demo");
    let result = cli
        .demo
        .options()
        .and_then(|options| costbo_demo::run(&options).map(|_| ()));
    costbo_eval::cli::finish("costbo-demo", result)
}
