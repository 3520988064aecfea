//! How accurately the regret judge's bank averages the grid's objectives: for each objective
//! of paper 000's Figure 2 and each variance, random decisions (a control set of the grid and
//! uniform values) are averaged over a scrambled Sobol bank and an i.i.d. bank of several
//! sizes, and compared with a reference average over 2^15 Sobol points scrambled with another
//! seed. Prints the RMS and largest absolute error of each bank.
//!
//! `cargo run --release -p costbo-lab --example judge_accuracy [DECISIONS]`

use costbo_core::random::uniform_open;
use costbo_lab::experiment::judge::Judge;
use costbo_lab::objectives::{self, Objective, Options};
use costbo_lab::reproduce::cvs;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const REFERENCE: usize = 1 << 15;

fn main() -> Result<(), String> {
    let decisions: usize = std::env::args()
        .nth(1)
        .map_or(Ok(24), |s| s.parse().map_err(|e| format!("{s}: {e}")))?;
    let part = cvs::grid(1).remove(0);
    println!(
        "{decisions} random decisions per objective and variance; reference: {REFERENCE} \
         scrambled Sobol points (other seed)\n"
    );
    println!("| objective | variance | bank | RMS error | max error |\n|---|---:|---|---:|---:|");
    for o in &part.settings.objectives {
        let f = objectives::build(
            &o.name,
            &Options {
                dim: o.dim,
                seed: o.seed,
            },
        )
        .map_err(|e| e.to_string())?;
        let sets = o.control_sets(f.dim())?;
        for &v in &part.settings.variances {
            macro_rules! go {
                ($d:literal) => {
                    table::<$d>(f.as_ref(), &o.label(), &sets, v, decisions)?
                };
            }
            match f.dim() {
                3 => go!(3),
                5 => go!(5),
                6 => go!(6),
                d => return Err(format!("{d} variables")),
            }
        }
    }
    Ok(())
}

fn table<const D: usize>(
    f: &dyn Objective,
    label: &str,
    sets: &[costbo_core::problem::ControlSet],
    variance: f64,
    decisions: usize,
) -> Result<(), String> {
    let key = format!("{label}|{variance}");
    let reference = Judge::<D>::sobol(variance, REFERENCE, &format!("{key}|reference"))?;
    let banks: Vec<(String, Judge<D>)> = vec![
        ("Sobol 256".into(), Judge::<D>::sobol(variance, 256, &key)?),
        ("Sobol 512".into(), Judge::<D>::sobol(variance, 512, &key)?),
        (
            "Sobol 1024".into(),
            Judge::<D>::sobol(variance, 1024, &key)?,
        ),
        ("i.i.d. 2048".into(), Judge::<D>::iid(variance, 2048, &key)?),
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut squares = vec![0.0; banks.len()];
    let mut worst = vec![0.0f64; banks.len()];
    // Sets holding every variable need no bank: skip them.
    let partial: Vec<_> = sets
        .iter()
        .copied()
        .filter(|s| (0..D).any(|l| !s.contains(l)))
        .collect();
    for i in 0..decisions {
        let set = partial[i % partial.len()];
        let u: [f64; D] = core::array::from_fn(|_| uniform_open(&mut rng));
        let truth = reference.expected(f, set, &u);
        for (b, (_, bank)) in banks.iter().enumerate() {
            let e = bank.expected(f, set, &u) - truth;
            squares[b] += e * e;
            worst[b] = worst[b].max(e.abs());
        }
    }
    for (b, (name, _)) in banks.iter().enumerate() {
        println!(
            "| {label} | {variance} | {name} | {:.2e} | {:.2e} |",
            (squares[b] / decisions as f64).sqrt(),
            worst[b]
        );
    }
    Ok(())
}
