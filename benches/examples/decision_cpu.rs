//! CPU time of one decision's scoring (ETC-Ada, plant-like problem, d = 5, 7 control sets,
//! n = 100, default inner budget; the set-up of `benches/decision.rs`), measured as the
//! thread's CPU time rather than wall time, so that the figures hold on a busy machine.
//!
//! ```text
//! cargo run --profile bench -p costbo-benches --example decision_cpu [REPS]
//! ```
//!
//! Prints, per configuration, the median over REPS (default 5) of: all seven sets scored with
//! the workspace (what UCB-CVS with ε > 0 needs), and the first cost group's three sets (what
//! ETC-Ada needs while it explores that group); and a fingerprint of the scores' bits, equal
//! between two builds exactly when they score identically (compare a `target-cpu=native` build
//! with `RUSTFLAGS="-C target-cpu=x86-64"`).

use costbo_benches::plant::{self, BankKind, Ctl, M};
use costbo_core::inner::InnerConfig;
use costbo_core::policy::workspace_len;
use costbo_core::Real;
use cpu_time::ThreadTime;
use std::hint::black_box;

const SEED: u64 = 3;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// FNV-1a over the bits of every score and maximiser.
fn fingerprint<R: Real>(out: &[Option<costbo_core::inner::InnerResult<R, 5>>]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in out.iter().flatten() {
        for v in r.x.iter().chain(core::iter::once(&r.value)) {
            h = (h ^ v.to_f64().to_bits()).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Median CPU seconds of scoring the sets `i < sets`, and the scores' fingerprint.
fn scoring<R: Real>(
    ctl: &Ctl<R, 128>,
    size: usize,
    kind: BankKind,
    sets: usize,
    reps: usize,
) -> (f64, u64) {
    let bank = plant::bank::<R>(size, kind);
    let mut ws = vec![R::ZERO; workspace_len(ctl.gp().len(), bank.len())];
    let mut print = 0;
    let times = (0..reps)
        .map(|_| {
            let start = ThreadTime::now();
            let out = plant::score_first_sets(ctl, &bank, sets, SEED, &mut ws);
            let t = start.elapsed().as_secs_f64();
            print = fingerprint(black_box(&out));
            t
        })
        .collect();
    (median(times), print)
}

fn report<R: Real>(name: &str, size: usize, kind: BankKind, reps: usize) {
    let ctl = plant::controller::<R, 128>(
        100,
        plant::bank(size, kind),
        InnerConfig::default(),
        7,
        SEED,
    );
    let (all, print) = scoring(&ctl, size, kind, M, reps);
    let (group, _) = scoring(&ctl, size, kind, 3, reps);
    println!(
        "{name:<22} all 7 sets {all:>8.4} s   first group {group:>8.4} s   scores {print:016x}"
    );
}

fn main() {
    let reps = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    println!("CPU seconds per decision's scoring, n = 100, median of {reps}");
    report::<f64>("f64, 1024 i.i.d. bank", 1024, BankKind::Iid(1), reps);
    report::<f32>("f32, 1024 i.i.d. bank", 1024, BankKind::Iid(1), reps);
    report::<f64>("f64, 128 Sobol bank", 128, BankKind::Sobol(1), reps);
    report::<f32>("f32, 128 Sobol bank", 128, BankKind::Sobol(1), reps);
}
