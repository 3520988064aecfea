//! Do `f32` decisions made with the feature `fast-math` (micromath's `exp`) match those made
//! with libm's?
//!
//! The states are `bank_agreement`'s: 50 GP states of the plant-like benchmark problem
//! (n = 10, 20, …, 100 observations of `bumps5` at deterministic points, five data seeds each),
//! here in `f32` with the 64-point scrambled-Sobol bank that the firmware and the grids use and
//! the default inner budget. In each state four decisions are taken: `Controller::suggest()`
//! (ETC-Ada exploring its cheapest group, the stack path the firmware runs) and, from one
//! `score_sets` of all seven sets, ETC-Ada's first phase (best 0.01-cost set), its second
//! phase (best 0.1-cost set) and UCB-PSQ (best of all). The feature is chosen at build time,
//! so the example is run twice: once without it to save the libm decisions, once with it to
//! compare. Two decisions agree when they choose the same set and every controlled value lies
//! within `TOLERANCE` (the variables live on [0, 1]). Each choice's expected UCB is also
//! computed in `f64` (libm in both builds) under an 8192-point Sobol reference bank, to say how
//! much worse the fast-math choice is when it differs.
//!
//! Run:
//! ```sh
//! cargo run --release -p costbo-benches --example fast_math_agreement -- save /tmp/libm.txt
//! cargo run --release -p costbo-benches --features fast-math --example fast_math_agreement -- compare /tmp/libm.txt
//! ```

use costbo_benches::plant::{self, BankKind, Ctl, D, M};
use costbo_core::driver::{ControllerSpec, Settings};
use costbo_core::expectation::{expected_bound, Bound};
use costbo_core::gp::WhenFull;
use costbo_core::inner::{InnerConfig, InnerResult};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::{score_sets, PolicySpec};

/// Largest difference of a controlled value (on [0, 1]) for two decisions to agree.
const TOLERANCE: f64 = 0.05;
/// Capacity of the GP (n goes up to 100).
const N: usize = 128;
const RULES: [&str; 4] = [
    "suggest() (ETC-Ada exploring the 0.01 sets)",
    "ETC-Ada first phase (0.01 sets)",
    "ETC-Ada second phase (0.1 sets)",
    "UCB-PSQ (all sets)",
];

/// One decision: the set and the point in the unit cube, or why there is none.
type Outcome = Result<(usize, [f64; D]), String>;

/// `plant::controller` in f32, with its errors returned instead of unwrapped (with an
/// approximate `exp` the GP could, in principle, refuse an observation).
fn controller(n: usize, data_seed: u64) -> Result<Ctl<f32, N>, String> {
    let spec = ControllerSpec {
        problem: plant::problem::<f32>(),
        kernel: Kernel::squared_exponential([0.2f32; D], 1.0).map_err(|e| format!("{e:?}"))?,
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::Reject,
        bank_seed: 0,
        settings: Settings {
            inner: InnerConfig::default(),
            ..Settings::new(1000.0, 3)
        },
        policy: PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
    };
    let gp = spec
        .model(vec![0.0f32; tri_len(N)])
        .map_err(|e| format!("{e:?}"))?;
    let bank = plant::bank::<f32>(64, BankKind::Sobol(1));
    let mut ctl = spec
        .controller(gp, bank, spec.policy.build())
        .map_err(|e| format!("{e:?}"))?;
    for x in costbo_benches::points::<D>(n, data_seed) {
        ctl.observe_initial(&x.map(|v| v as f32), costbo_benches::bumps5(&x) as f32)
            .map_err(|e| format!("observe: {e:?}"))?;
    }
    Ok(ctl)
}

fn choose(scores: &[Option<InnerResult<f32, D>>], range: core::ops::Range<usize>) -> Outcome {
    let mut best: Option<(usize, InnerResult<f32, D>)> = None;
    for i in range {
        let s = scores[i].ok_or_else(|| format!("set {i} has no score"))?;
        if best.is_none_or(|(_, b)| s.value > b.value) {
            best = Some((i, s));
        }
    }
    best.map(|(i, s)| (i, s.x.map(f64::from)))
        .ok_or_else(|| "no set".into())
}

/// The four decisions of one state.
fn decide(n: usize, data_seed: u64) -> [Outcome; 4] {
    let mut ctl = match controller(n, data_seed) {
        Ok(c) => c,
        Err(e) => return core::array::from_fn(|_| Err(e.clone())),
    };
    let suggested = ctl.suggest().map_err(|e| format!("{e:?}")).map(|d| {
        // Back to the unit cube (the variables are on [0, 1]; the others hold ½).
        (d.set, d.values.map(|v| v.map_or(0.5, f64::from)))
    });
    let mut out = [None; M];
    score_sets(
        ctl.problem(),
        ctl.gp(),
        ctl.bank(),
        Bound::Upper(2.0),
        &InnerConfig::default(),
        3,
        &mut out,
        &mut [],
        |_| true,
    );
    [
        suggested,
        choose(&out, 0..3),
        choose(&out, 3..6),
        choose(&out, 0..M),
    ]
}

fn line(state: usize, rule: usize, o: &Outcome) -> String {
    match o {
        Ok((set, x)) => {
            let xs: Vec<String> = x.iter().map(|v| format!("{v:?}")).collect();
            format!("{state} {rule} {set} {}", xs.join(" "))
        }
        Err(e) => format!("{state} {rule} error {}", e.replace(' ', "_")),
    }
}

fn parse(l: &str) -> (usize, usize, Outcome) {
    let f: Vec<&str> = l.split_whitespace().collect();
    let (state, rule) = (f[0].parse().unwrap(), f[1].parse().unwrap());
    if f[2] == "error" {
        return (state, rule, Err(f[3..].join(" ")));
    }
    let x: [f64; D] = core::array::from_fn(|l| f[3 + l].parse().unwrap());
    (state, rule, Ok((f[2].parse().unwrap(), x)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, path) = match args.as_slice() {
        [_, m, p] if m == "save" || m == "compare" => (m.as_str(), p.as_str()),
        _ => {
            eprintln!("usage: fast_math_agreement save|compare FILE");
            std::process::exit(2);
        }
    };
    let fast = cfg!(feature = "fast-math");
    println!(
        "f32 exp from {}",
        if fast {
            "micromath (fast-math)"
        } else {
            "libm"
        }
    );
    let states: Vec<(usize, u64)> = (10..=100)
        .step_by(10)
        .flat_map(|n| (0..5u64).map(move |s| (n, 100 + s)))
        .collect();
    let decisions: Vec<[Outcome; 4]> = states.iter().map(|&(n, s)| decide(n, s)).collect();
    if mode == "save" {
        let text: String = decisions
            .iter()
            .enumerate()
            .flat_map(|(k, ds)| {
                ds.iter()
                    .enumerate()
                    .map(move |(r, o)| line(k, r, o) + "\n")
            })
            .collect();
        std::fs::write(path, text).unwrap();
        println!("{} states, decisions saved to {path}", states.len());
        return;
    }
    let saved = std::fs::read_to_string(path).unwrap();
    let mut reference: Vec<[Outcome; 4]> = (0..states.len())
        .map(|_| core::array::from_fn(|_| Err("missing".into())))
        .collect();
    for l in saved.lines() {
        let (k, r, o) = parse(l);
        reference[k][r] = o;
    }
    // f64 judges (libm in both builds): each state's GP in f64 and the 8192-point bank.
    let judge_bank = plant::bank::<f64>(8192, BankKind::Sobol(2));
    let sets = plant::sets();
    println!(
        "{} states (n = 10..100), 64-point Sobol bank, default inner budget, beta = 2; agree = same set and every controlled value within {TOLERANCE}",
        states.len()
    );
    for (r, name) in RULES.iter().enumerate() {
        let (mut agree, mut same_set, mut errors) = (0, 0, 0);
        let mut dx_max: f64 = 0.0;
        let mut worse: Vec<f64> = Vec::new();
        for (k, &(n, seed)) in states.iter().enumerate() {
            let (a, b) = (&reference[k][r], &decisions[k][r]);
            let ((sa, xa), (sb, xb)) = match (a, b) {
                (Ok(a), Ok(b)) => (a, b),
                _ => {
                    errors += 1;
                    println!("  state {k}: libm {a:?}, fast-math {b:?}");
                    continue;
                }
            };
            let dx = (0..D)
                .filter(|&l| sets[*sa].contains(l))
                .map(|l| (xa[l] - xb[l]).abs())
                .fold(0.0, f64::max);
            same_set += usize::from(sa == sb);
            if sa == sb {
                dx_max = dx_max.max(dx);
            }
            if sa == sb && dx <= TOLERANCE {
                agree += 1;
            } else {
                let judge = plant::controller::<f64, N>(
                    n,
                    judge_bank.clone(),
                    InnerConfig::default(),
                    seed,
                    3,
                );
                let u = |set: usize, x: &[f64; D]| {
                    expected_bound(judge.gp(), &judge_bank, sets[set], x, Bound::Upper(2.0))
                        .unwrap()
                        .0
                };
                let (ua, ub) = (u(*sa, xa), u(*sb, xb));
                worse.push((ua - ub) / ua.abs());
                println!(
                    "  state {k} (n = {n}, data seed {seed}): libm set {sa}, fast-math set {sb}, max |dx| {dx:.3e}, reference U {ua:.6} vs {ub:.6}"
                );
            }
        }
        println!("{name}: agree {agree}/{}, same set {same_set}/{}, errors {errors}, largest |dx| with the same set {dx_max:.3e}", states.len(), states.len());
        if !worse.is_empty() {
            let mean = worse.iter().sum::<f64>() / worse.len() as f64;
            let max = worse.iter().cloned().fold(f64::MIN, f64::max);
            println!(
                "  where they differ: (U_ref(libm choice) - U_ref(fast-math choice)) / U: mean {mean:.2e}, max {max:.2e}"
            );
        }
    }
}
