//! What Algorithm 2 compares across arms, measured: for one environment, method and model,
//! over seeds `0..SEEDS`, per arm its share of the rounds, its mean outcome, and the two parts
//! of the UCB values its running average `Ū` is made of — the posterior mean `μ` and the width
//! `√β·σ` — averaged over the rounds it was played, and its model after the last round
//! (geometric means over seeds of the lengthscales, outputscale and noise variance; the mean's
//! arithmetic mean) (docs/results/causal.discussion.md):
//! `cargo run --release -p costbo-lab --example causal_ucb_parts -- ENV METHOD BACKEND SEEDS
//! [ROUNDS]` with METHOD and BACKEND as in `causal_round_time`.
use costbo_lab::causal::bandit::{run, Backend, BanditOptions, Method};
use costbo_lab::causal::envs;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let env = envs::by_name(&args[1]).expect("environment name");
    let method = Method::from_key(&args[2]).expect("method key");
    let backend = Backend::from_key(&args[3]).expect("backend key");
    let seeds: u64 = args[4].parse().expect("seeds");
    let rounds: usize = args.get(5).map_or(700, |s| s.parse().expect("rounds"));
    // Per arm: rounds played, Σ outcome, Σ μ, Σ √β·σ; and Σ ln ℓ per input, Σ ln outputscale,
    // Σ ln noise, Σ mean over seeds.
    let mut sums: Vec<[f64; 4]> = Vec::new();
    let mut models: Vec<(Vec<f64>, f64, f64, f64)> = Vec::new();
    let mut labels = Vec::new();
    for seed in 0..seeds {
        let o = BanditOptions {
            rounds,
            seed,
            backend,
            ..BanditOptions::default()
        };
        let tr = run(env, method, &o).expect("run");
        if sums.is_empty() {
            sums = vec![[0.0; 4]; tr.arms.len()];
            labels = tr.arms.iter().map(|a| a.label.clone()).collect();
            models = tr
                .models
                .iter()
                .map(|m| (vec![0.0; m.lengthscales.len()], 0.0, 0.0, 0.0))
                .collect();
        }
        for (acc, m) in models.iter_mut().zip(&tr.models) {
            for (a, l) in acc.0.iter_mut().zip(&m.lengthscales) {
                *a += l.ln();
            }
            acc.1 += m.outputscale.ln();
            acc.2 += m.noise.ln();
            acc.3 += m.mean;
        }
        for t in 0..tr.chosen.len() {
            let width = tr.beta[t].sqrt() * tr.std[t];
            let s = &mut sums[tr.chosen[t]];
            s[0] += 1.0;
            s[1] += tr.outcomes[t];
            s[2] += tr.ucb[t] - width;
            s[3] += width;
        }
    }
    let total: f64 = sums.iter().map(|s| s[0]).sum();
    println!(
        "{} {} [{}], {seeds} seeds x {rounds} rounds",
        env.name,
        args[2],
        backend.name()
    );
    println!(
        "arm | share of rounds | mean outcome | mean posterior mean | mean width √β·σ | \
         lengthscales | outputscale | noise variance | mean"
    );
    let k = seeds.max(1) as f64;
    for ((l, s), m) in labels.iter().zip(&sums).zip(&models) {
        let n = s[0].max(1.0);
        let ls: Vec<String> =
            m.0.iter()
                .map(|x| format!("{:.3}", (x / k).exp()))
                .collect();
        println!(
            "{l} | {:.3} | {:.4} | {:.4} | {:.4} | {} | {:.4} | {:.2e} | {:.4}",
            s[0] / total,
            s[1] / n,
            s[2] / n,
            s[3] / n,
            ls.join(", "),
            (m.1 / k).exp(),
            (m.2 / k).exp(),
            m.3 / k
        );
    }
}
