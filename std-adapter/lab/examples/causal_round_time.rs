//! Time per round of one run of paper 004's study (docs/results/causal.md, A.3 cost):
//! `cargo run --release -p costbo-lab --example causal_round_time -- ENV METHOD ROUNDS [SEED]
//! [BACKEND]` with METHOD one of cocabo, cocabo-ucb1, cobo, cabo, oracle, random,
//! cocabo-no-context and BACKEND one of se (default), matern52, f32, fitted. Prints the mean wall time
//! per round over windows of 100 rounds (the last window is the cost "at" its end), the
//! total and the final time-normalised regret. Runs on the calling thread with a large stack
//! (CoBO on A.3 holds an 86-input GP of 704 points).
use costbo_lab::causal::bandit::{run, Backend, BanditOptions, Method};
use costbo_lab::causal::envs;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let env = envs::by_name(&args[1]).expect("environment name");
    let method = Method::from_key(&args[2]).expect("method key");
    let rounds: usize = args[3].parse().expect("rounds");
    let seed: u64 = args.get(4).map_or(0, |s| s.parse().expect("seed"));
    let backend = Backend::from_key(args.get(5).map_or("se", |s| s.as_str())).expect("backend key");
    let o = BanditOptions {
        rounds,
        seed,
        backend,
        ..BanditOptions::default()
    };
    let trace = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(env, method, &o))
        .expect("thread")
        .join()
        .expect("run")
        .expect("run failed");
    let w = 100.min(rounds).max(1);
    for (k, chunk) in trace.seconds.chunks(w).enumerate() {
        println!(
            "rounds {:>4}..{:<4} {:>10.3} ms/round",
            k * w + 1,
            k * w + chunk.len(),
            1e3 * chunk.iter().sum::<f64>() / chunk.len() as f64
        );
    }
    let total: f64 = trace.seconds.iter().sum();
    let regret = trace.normalised_regret();
    println!(
        "{} {} {rounds} rounds, seed {seed}, {}: {total:.1} s in all, {:.3} ms/round on average; \
         normalised regret at T {:.4}",
        env.name,
        args[2],
        backend.name(),
        1e3 * total / rounds as f64,
        regret.last().copied().unwrap_or(f64::NAN)
    );
}
