//! Per-seed share of the best growth reached by the demo's contenders (docs/performance.md,
//! "The demo"): `cargo run --release -p costbo-lab --example demo_seeds -- ours|paper|unaware
//! SEEDS [FIRST]` runs seeds FIRST..FIRST+SEEDS (FIRST defaults to 1) on 2 threads and prints
//! the mean, the runs at ≥ 90 % and, per seed, `s<seed>:<% of best>(<% of best seen>, <rounds>,
//! <seconds>)`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args[1].as_str();
    let seeds: u64 = args[2].parse().unwrap();
    let c = match which {
        "ours" => costbo_lab::demo::OURS,
        "paper" => costbo_lab::demo::PAPER,
        _ => costbo_lab::demo::COST_UNAWARE,
    };
    let start: u64 = args.get(3).map_or(1, |a| a.parse().unwrap());
    let next = std::sync::atomic::AtomicU64::new(start);
    let out = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let seed = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if seed >= start + seeds {
                    break;
                }
                let t = std::time::Instant::now();
                let r = costbo_lab::demo::simulate(&c, 200.0, seed, false).unwrap();
                let pct = 100.0 * r.recommended_expected / costbo_lab::demo::OPTIMUM;
                let best = r.rounds.iter().map(|x| x.expected).fold(f64::MIN, f64::max);
                out.lock().unwrap().push((
                    seed,
                    pct,
                    100.0 * best / costbo_lab::demo::OPTIMUM,
                    r.rounds.len(),
                    t.elapsed().as_secs_f64(),
                ));
            });
        }
    });
    let mut v = out.into_inner().unwrap();
    v.sort_by_key(|x| x.0);
    let mut line = String::new();
    for (seed, pct, best, n, t) in &v {
        line += &format!("s{seed}:{pct:.0}({best:.0},{n},{t:.0}s) ");
    }
    let m = v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64;
    let k = v.iter().filter(|x| x.1 >= 90.0).count();
    println!("{which} mean {m:.1}% ≥90: {k}/{} | {line}", v.len());
}
