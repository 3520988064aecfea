//! A box whose costs nobody knows in advance (paper 002's unknown costs): every round's cost is
//! measured and told, a model of ln(cost) learns it as a function of the values, and PBGI
//! prices each candidate by that model.
//!
//! ```sh
//! cargo run --release -p costbo-std --example learned_cost
//! ```
//!
//! The stand-in experiment: growth peaks at temperature 0.3 and light 0.7 (of their ranges),
//! and a run costs more the warmer it is, 1 + 9·temperature (say, heating). Nothing of the
//! cost is in the file.

use costbo_std::optimizer::Chance;
use costbo_std::Optimizer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut opt = Optimizer::builder("learned-cost", 60.0)
        .variable("temperature", "", 0.0, 1.0, Chance::Uniform)
        .variable("light", "", 0.0, 1.0, Chance::Uniform)
        .control_set_of_learned_cost(&["temperature", "light"])
        .rule("pbgi-d")
        .kernel("matern52", 0.3, 1.0)
        .fitted_as_botorch(1)
        .budget_rule("while-below")
        .seed(3)
        .build()?;
    // An initial design, with what each point cost: the cost model starts from it.
    for x in [[0.1, 0.2], [0.5, 0.9], [0.9, 0.4], [0.3, 0.6]] {
        opt.tell_prior_with_cost(&x, growth(&x), cost(&x))?;
    }
    while let Some(ask) = opt.ask()? {
        let x: Vec<f64> = ask.values.iter().map(|v| v.unwrap_or(0.0)).collect();
        let (y, paid) = (growth(&x), cost(&x));
        println!(
            "round {:>2}: temperature {:.2}, light {:.2}: expected cost {:.2}, paid {paid:.2}",
            opt.rounds() + 1,
            x[0],
            x[1],
            ask.cost
        );
        opt.tell(&x, y, paid)?;
    }
    let best = opt.recommend()?;
    println!(
        "spent {:.1} of {:.1}; recommended {:?}",
        opt.spent(),
        opt.budget(),
        best.values
    );
    Ok(())
}

fn growth(x: &[f64]) -> f64 {
    -((x[0] - 0.3).powi(2) + (x[1] - 0.7).powi(2))
}

fn cost(x: &[f64]) -> f64 {
    1.0 + 9.0 * x[0]
}
