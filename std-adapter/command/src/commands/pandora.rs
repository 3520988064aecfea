//! `costbo pandora`: one run of paper 002's loop over a box, printed as a CSV of its rounds.

use clap::Args;
use costbo_lab::objectives::{self, Options};

use super::csv_number;

#[derive(Args)]
pub struct PandoraArgs {
    /// Objective name (see `costbo objective list`), or `external` for a program given by
    /// --command.
    #[arg(long)]
    objective: String,
    /// With `--objective external`: the program (split on whitespace, e.g. "python3
    /// sim.py"), which reads `{"x": [...]}` lines and answers `{"y": v, "cost": c}` lines
    /// (see costbo_lab::objectives::external); --dim is required.
    #[arg(long)]
    command: Option<String>,
    /// With `--objective external`: seconds to wait for each answer before giving up
    /// (default 600; a line on stderr every 30 s of waiting).
    #[arg(long)]
    timeout: Option<f64>,
    /// Input dimension.
    #[arg(long)]
    dim: Option<usize>,
    /// Seed of a random objective (gp-sample).
    #[arg(long)]
    objective_seed: Option<u64>,
    /// The rule (pbgi, pbgi-d, log-ei, log-eipc, log-eicc, gp-ucb, ts-psq, mes, mfmes,
    /// kg, msei, bmsei, random-search, ...).
    #[arg(long)]
    rule: String,
    /// Budget (rounds under uniform costs).
    #[arg(long)]
    budget: f64,
    /// Costs: uniform, linear (1 + 20·mean(u), known), linear-learned, pest-control (the
    /// plan's price, known), bump (paper 002's 1-D bump cost, known) or external (the
    /// program's reported cost, learned).
    #[arg(long, default_value = "uniform")]
    cost: String,
    /// Model: `fitted` (MAP refits every round) or `fixed:LENGTHSCALE`.
    #[arg(long, default_value = "fitted")]
    model: String,
    /// Seed of the initial design and the rule.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The inner optimiser's pool instead of the paper's 200d raw samples and 10d restarts.
    #[arg(long)]
    fast: bool,
}

/// Longest `costbo pandora --timeout` for an external program's answer: a day.
const MAX_EXTERNAL_TIMEOUT: f64 = 86_400.0;

/// Largest `costbo pandora --budget`: the run's GP holds at most 1 024 observations, so at
/// costs of at least 1 (uniform, linear) no more rounds fit.
const MAX_PANDORA_BUDGET: f64 = costbo_lab::pandora::run::CAPACITY as f64;

/// Runs the loop and prints its rounds.
pub fn run(a: PandoraArgs) -> Result<(), String> {
    use costbo_lab::pandora::{run_box_watched, BoxCost, BoxModel, BoxRun};
    // Before anything is built or spawned (an external objective is a process).
    if !(a.budget > 0.0 && a.budget <= MAX_PANDORA_BUDGET) {
        return Err(format!(
            "--budget {:?}: must be in (0, {MAX_PANDORA_BUDGET}] (the run's GP holds at \
                 most {MAX_PANDORA_BUDGET} observations)",
            a.budget
        ));
    }
    let options = Options {
        dim: a.dim,
        seed: a.objective_seed,
    };
    let f: Box<dyn objectives::Objective> = match (a.objective.as_str(), &a.command) {
        ("external", Some(command)) => {
            let Some(d) = a.dim else {
                return Err("--objective external needs --dim".into());
            };
            let timeout = match a.timeout {
                None => objectives::external::DEFAULT_TIMEOUT,
                Some(t) if t.is_finite() && t > 0.0 && t <= MAX_EXTERNAL_TIMEOUT => {
                    std::time::Duration::from_secs_f64(t)
                }
                Some(t) => {
                    return Err(format!(
                        "--timeout {t:?}: must be in (0, {MAX_EXTERNAL_TIMEOUT}] seconds"
                    ))
                }
            };
            Box::new(
                objectives::external::External::spawn(command, d)
                    .map_err(|e| e.to_string())?
                    .with_timeout(timeout),
            )
        }
        (_, None) if a.timeout.is_some() => {
            return Err("--timeout applies only to --objective external".into())
        }
        ("external", None) => return Err("--objective external needs --command".into()),
        (_, Some(_)) => return Err("--command applies only to --objective external".into()),
        (name, None) => objectives::build(name, &options).map_err(|e| e.to_string())?,
    };
    let model = match a.model.as_str() {
        "fitted" => BoxModel::Fitted,
        m => match m.strip_prefix("fixed:").map(str::parse::<f64>) {
            Some(Ok(l)) if l.is_finite() && l > 0.0 => BoxModel::Fixed {
                lengthscale: l,
                shape: costbo_core::kernel::Shape::Matern52,
            },
            _ => {
                return Err(format!(
                    "model `{m}`: expected fitted or fixed:LENGTHSCALE > 0"
                ))
            }
        },
    };
    let run = BoxRun {
        rule: a.rule,
        seed: a.seed,
        budget: a.budget,
        cost: BoxCost::parse(&a.cost)?,
        model,
        paper_optimiser: !a.fast,
    };
    // Each round is printed as it ends, so the rounds before a failure (an external
    // program that crashes) are kept.
    outln!("round,spent,y,best,regret,decide_seconds");
    // An objective whose optimum is unknown (an external program) has an empty regret
    // cell, not NaN.
    let optimum = f.optimum();
    let warned = std::sync::atomic::AtomicBool::new(false);
    let print = |i: usize, r: &costbo_lab::pandora::BoxRound| {
        // Costs far below the budget (a program reporting 1e-300) would need more
        // rounds than the model holds: said once, early, rather than discovered when
        // the model fills minutes later.
        let needed = a.budget / (r.spent / i as f64);
        if needed > MAX_PANDORA_BUDGET && !warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
            let rounds = if needed.is_finite() {
                format!("about {} rounds", csv_number(needed.round()))
            } else {
                "more rounds than an f64 counts".into()
            };
            errln!(
                "costbo: warning: at the mean cost so far ({}) the budget {} lasts \
                     {rounds}; the run ends when the model is full ({MAX_PANDORA_BUDGET} \
                     observations)",
                csv_number(r.spent / i as f64),
                a.budget,
            );
        }
        let regret = if optimum.is_finite() {
            csv_number(optimum - r.best)
        } else {
            String::new()
        };
        outln!(
            "{},{},{},{},{},{:.6}",
            i,
            csv_number(r.spent),
            csv_number(r.y),
            csv_number(r.best),
            regret,
            r.decide_seconds
        );
    };
    let trace = run_box_watched(f.as_ref(), &run, None, Some(&print))?;
    let spent = trace.rounds.last().map_or(0.0, |r| r.spent);
    if trace.model_full && spent < a.budget {
        errln!(
            "costbo: stopped after {} rounds with {spent} of the budget {} spent: the \
                 model holds at most {MAX_PANDORA_BUDGET} observations",
            trace.rounds.len(),
            a.budget
        );
    }
    Ok(())
}
