//! Do decisions made with the default 128-point scrambled-Sobol bank match those made with the
//! paper's 1024-point i.i.d. bank?
//!
//! 50 GP states of the plant-like benchmark problem (n = 10, 20, …, 100 observations of
//! `bumps5` at random points, five data seeds each). For each state and each bank, every control
//! set's expected UCB (β = 2) is maximised with the default inner budget; two rules then choose:
//! ETC-Ada in its first phase (the best of the three 0.01-cost sets, which is what it plays for
//! its first 400 rounds), ETC-Ada in its second phase (the best of the three 0.1-cost sets) and
//! UCB-PSQ (the best of all seven). Reported: how often the chosen set
//! agrees, and the expected UCB of each chosen point under the 1024-point bank and under an
//! 8192-point scrambled-Sobol reference bank (a far more accurate expectation than either).
//!
//! Run: `cargo run --release -p costbo-benches --example bank_agreement [SIZE]`, SIZE the small
//! bank's size (default 128; the messages call it "128" whatever it is).

use costbo_benches::plant::{self, BankKind, D, M};
use costbo_core::expectation::{expected_bound, Bound, SampleBank};
use costbo_core::inner::{InnerConfig, InnerResult};
use costbo_core::policy::{score_sets, workspace_len};

type Bank = SampleBank<f64, D, Vec<[f64; D]>>;

/// The best set among `candidates` and its maximiser.
fn choose(
    scores: &[Option<InnerResult<f64, D>>],
    candidates: core::ops::Range<usize>,
) -> (usize, [f64; D]) {
    let i = candidates
        .max_by(|&a, &b| {
            let (va, vb) = (scores[a].unwrap().value, scores[b].unwrap().value);
            va.partial_cmp(&vb).unwrap()
        })
        .unwrap();
    (i, scores[i].unwrap().x)
}

fn main() {
    let size = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(128);
    let small = plant::bank::<f64>(size, BankKind::Sobol(1));
    println!("small bank: {size} scrambled-Sobol points");
    let paper = plant::bank::<f64>(1024, BankKind::Iid(1));
    let reference = plant::bank::<f64>(8192, BankKind::Sobol(2));
    let inner = InnerConfig::default();
    let sets = plant::sets();
    let beta = Bound::Upper(2.0);
    let mut ws = vec![0.0; workspace_len(100, 1024)];
    // Per rule: agreements, |ΔU| under the 1024 bank (relative), the same under the reference,
    // and how often the 128-bank choice is at least as good as the 1024-bank one under the
    // reference.
    let rules = [
        ("ETC-Ada, first phase (sets of cost 0.01)", 0..3),
        ("ETC-Ada, second phase (sets of cost 0.1)", 3..6),
        ("UCB-PSQ (all sets)", 0..M),
    ];
    let mut stats: [(usize, Vec<f64>, Vec<f64>, usize); 3] =
        core::array::from_fn(|_| (0, Vec::new(), Vec::new(), 0));
    let mut states = 0;
    for n in (10..=100).step_by(10) {
        for data_seed in 0..5u64 {
            let ctl = plant::controller::<f64, 128>(n, small.clone(), inner, 100 + data_seed, 3);
            let gp = ctl.gp();
            let score = |bank: &Bank, ws: &mut [f64]| {
                let mut out = [None; M];
                score_sets(
                    ctl.problem(),
                    gp,
                    bank,
                    beta,
                    &inner,
                    3,
                    &mut out,
                    ws,
                    |_| true,
                );
                out
            };
            let a = score(&small, &mut ws);
            let b = score(&paper, &mut ws);
            states += 1;
            for (k, (_, range)) in rules.iter().enumerate() {
                let (ia, xa) = choose(&a, range.clone());
                let (ib, xb) = choose(&b, range.clone());
                let u = |bank: &Bank, i: usize, x: &[f64; D]| {
                    expected_bound(gp, bank, sets[i], x, beta).unwrap().0
                };
                let (ua, ub) = (u(&paper, ia, &xa), u(&paper, ib, &xb));
                let (ra, rb) = (u(&reference, ia, &xa), u(&reference, ib, &xb));
                let s = &mut stats[k];
                s.0 += usize::from(ia == ib);
                s.1.push((ub - ua) / ub.abs());
                s.2.push((rb - ra) / rb.abs());
                s.3 += usize::from(ra >= rb);
            }
        }
    }
    println!("{states} GP states (n = 10..100), default inner budget, beta = 2");
    for ((name, _), (agree, d1024, dref, better)) in rules.iter().zip(stats.iter_mut()) {
        let summary = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            (mean, v[v.len() / 2], v[v.len() - 1], v[0])
        };
        let (m1, med1, max1, min1) = summary(d1024);
        let (m2, med2, max2, min2) = summary(dref);
        println!("{name}: same set in {agree}/{states}");
        println!(
            "  (U_1024(choice_1024) - U_1024(choice_128)) / U: mean {m1:.2e}, median {med1:.2e}, max {max1:.2e}, min {min1:.2e}"
        );
        println!(
            "  (U_ref(choice_1024) - U_ref(choice_128)) / U:   mean {m2:.2e}, median {med2:.2e}, max {max2:.2e}, min {min2:.2e}"
        );
        println!(
            "  128-bank choice at least as good under the 8192-point reference: {better}/{states}"
        );
    }
}
