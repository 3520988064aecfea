//! A lab script: run once per round by the lab's own scheduler, it reads the experiment file
//! and the CSV log of the rounds done so far (the doses as measured and the growth), and
//! prints the next dose.
//!
//! ```sh
//! cargo run --release -p costbo-std --example lab_script -- firmware/experiment.toml log.csv
//! ```
//!
//! The log has a header `set,<variable names in file order>,growth,cost` and one row per
//! round. The script needs no state of its own: the optimizer's decisions depend only on the
//! experiment and the data, so asking again for each logged round gives the decision that was
//! logged (a row whose set differs is refused: the log is not this experiment's), and the
//! decision after the last row is the next dose. Append the round's row once it is measured
//! and run the script again. (`Optimizer::to_json` saves the same state in one file.)

use std::error::Error;
use std::process::ExitCode;

use costbo_std::Optimizer;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [experiment, log] = args.as_slice() else {
        eprintln!("usage: lab_script EXPERIMENT.toml LOG.csv");
        return ExitCode::from(2);
    };
    match next_dose(experiment, log) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab_script: {e}");
            ExitCode::FAILURE
        }
    }
}

fn next_dose(experiment: &str, log: &str) -> Result<(), Box<dyn Error>> {
    let mut opt = Optimizer::from_file(experiment)?;
    let names: Vec<String> = opt.variables().iter().map(|v| v.name.clone()).collect();
    let text = match std::fs::read_to_string(log) {
        Ok(t) => t,
        // No log yet: the first round.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{log}: {e}").into()),
    };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    if let Some(header) = lines.next() {
        let want = format!("set,{},growth,cost", names.join(","));
        if header.trim() != want {
            return Err(format!("{log}: header is \"{header}\", expected \"{want}\"").into());
        }
    }
    for (i, line) in lines.enumerate() {
        let row = i + 2;
        let fields: Vec<f64> = line
            .split(',')
            .map(|f| f.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{log}:{row}: {e}"))?;
        if fields.len() != names.len() + 3 {
            return Err(format!(
                "{log}:{row}: {} fields, expected {}",
                fields.len(),
                names.len() + 3
            )
            .into());
        }
        let ask = opt
            .ask()?
            .ok_or_else(|| format!("{log}:{row}: the budget was spent before this round"))?;
        if fields[0] != ask.set as f64 {
            return Err(format!(
                "{log}:{row}: set {} was logged where the experiment decides set {}",
                fields[0], ask.set
            )
            .into());
        }
        let x = &fields[1..=names.len()];
        let (growth, cost) = (fields[names.len() + 1], fields[names.len() + 2]);
        opt.tell(x, growth, cost)
            .map_err(|e| format!("{log}:{row}: {e}"))?;
    }
    match opt.ask()? {
        None => println!(
            "the budget is spent ({:.3} of {}); recommended: {:?}",
            opt.spent(),
            opt.budget(),
            opt.recommend()?
        ),
        Some(ask) => {
            println!(
                "round {}: control set {} (cost {})",
                opt.rounds() + 1,
                ask.set,
                ask.cost
            );
            for (name, v) in names.iter().zip(&ask.values) {
                match v {
                    Some(v) => println!("  dose {name} to {v}"),
                    None => println!("  {name}: leave to the source water, and measure it"),
                }
            }
        }
    }
    Ok(())
}
