//! What Algorithm 2 compares across arms, measured: for one environment, method and model,
//! over seeds `0..SEEDS`, per arm its share of the rounds, its mean outcome, and the two parts
//! of the UCB values its running average `Ū` is made of — the posterior mean `μ` and the width
//! `√β·σ` — averaged over the rounds it was played (docs/results/causal.discussion.md):
//! `cargo run --release -p costbo-lab --example causal_ucb_parts -- ENV METHOD BACKEND SEEDS
//! [ROUNDS]` with METHOD and BACKEND as in `causal_round_time`.
use costbo_lab::causal::bandit::{run, Backend, BanditOptions, Method};
use costbo_lab::causal::envs;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let env = envs::by_name(&args[1]).expect("environment name");
    let method = match args[2].as_str() {
        "cocabo" => Method::CocaBo,
        "cocabo-ucb1" => Method::CocaBoUcb1,
        "cabo" => Method::CaBo,
        "oracle" => Method::Oracle,
        "cocabo-no-context" => Method::CocaBoNoContext,
        m => panic!("unknown method {m}"),
    };
    let backend = match args[3].as_str() {
        "se" => Backend::SquaredExponential,
        "fitted" => Backend::Fitted,
        b => panic!("unknown backend {b}"),
    };
    let seeds: u64 = args[4].parse().expect("seeds");
    let rounds: usize = args.get(5).map_or(700, |s| s.parse().expect("rounds"));
    // Per arm: rounds played, Σ outcome, Σ μ, Σ √β·σ.
    let mut sums: Vec<[f64; 4]> = Vec::new();
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
    println!("arm | share of rounds | mean outcome | mean posterior mean | mean width √β·σ");
    for (l, s) in labels.iter().zip(&sums) {
        let n = s[0].max(1.0);
        println!(
            "{l} | {:.3} | {:.4} | {:.4} | {:.4}",
            s[0] / total,
            s[1] / n,
            s[2] / n,
            s[3] / n
        );
    }
}
