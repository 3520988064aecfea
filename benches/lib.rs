//! Shared helpers of the benchmarks: reproducible inputs.

/// Deterministic points in the unit cube (a 64-bit LCG; quality is irrelevant here).
pub fn points<const D: usize>(n: usize, seed: u64) -> Vec<[f64; D]> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            core::array::from_fn(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 11) as f64 / (1u64 << 53) as f64
            })
        })
        .collect()
}

/// A smooth test function of the first three inputs.
pub fn objective<const D: usize>(x: &[f64; D]) -> f64 {
    (6.0 * x[0]).sin() + (4.0 * x[1 % D]).cos() * x[2 % D]
}

/// Centres of the Gaussian bumps of [`bumps5`].
const BUMP_CENTRES: [[f64; 5]; 4] = [
    [0.25, 0.70, 0.40, 0.55, 0.30],
    [0.80, 0.20, 0.65, 0.35, 0.75],
    [0.45, 0.50, 0.15, 0.80, 0.60],
    [0.60, 0.85, 0.75, 0.20, 0.45],
];

/// A plant-growth-like objective on `[0, 1]⁵`: four Gaussian bumps of heights 1, 0.8, 0.6 and
/// 0.5 and widths 0.25–0.35 (smooth, multimodal, every variable matters).
pub fn bumps5(x: &[f64; 5]) -> f64 {
    const HEIGHT: [f64; 4] = [1.0, 0.8, 0.6, 0.5];
    const WIDTH: [f64; 4] = [0.3, 0.25, 0.35, 0.3];
    (0..4)
        .map(|k| {
            let r2: f64 = (0..5).map(|l| (x[l] - BUMP_CENTRES[k][l]).powi(2)).sum();
            HEIGHT[k] * (-r2 / (2.0 * WIDTH[k] * WIDTH[k])).exp()
        })
        .sum()
}

/// The plant-like decision problem of the decision benchmarks (paper 000's plant experiment
/// shape): d = 5 on `[0, 1]⁵`, every variable a normal at 0.5 truncated to `[0, 1]` with
/// truncated variance 0.04, the seven plant control sets with the cheap costs, an SE-ARD
/// kernel with lengthscale 0.2, outputscale 1 and noise 1e-4.
pub mod plant {
    use costbo_core::dist::{Distribution, TruncatedNormal};
    use costbo_core::driver::{Controller, ControllerSpec, Settings};
    use costbo_core::expectation::{Bound, SampleBank};
    use costbo_core::gp::WhenFull;
    use costbo_core::inner::{InnerConfig, InnerResult};
    use costbo_core::kernel::Kernel;
    use costbo_core::linalg::tri_len;
    use costbo_core::policy::explore_then_commit::PlaysPerGroup;
    use costbo_core::policy::{score_sets, AnyPolicy, PolicySpec};
    use costbo_core::problem::{ControlSet, Problem, Variable};
    use costbo_core::Real;
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Number of variables.
    pub const D: usize = 5;
    /// Number of control sets.
    pub const M: usize = 7;
    /// Paper 000's cheap costs, in control-set order.
    pub const COSTS: [f64; M] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];

    /// A controller with capacity `N`, `Vec` storage for the factor and the bank.
    pub type Ctl<R, const N: usize> =
        Controller<R, N, D, M, Vec<R>, Vec<[R; D]>, AnyPolicy<R, D, M, 1, N>>;

    /// The plant control sets {1,2},{3,4},{4,5},{1,2,3},{2,3,4},{3,4,5},{1,…,5} (0-based here).
    pub fn sets() -> [ControlSet; M] {
        [
            ControlSet::of(&[0, 1]),
            ControlSet::of(&[2, 3]),
            ControlSet::of(&[3, 4]),
            ControlSet::of(&[0, 1, 2]),
            ControlSet::of(&[1, 2, 3]),
            ControlSet::of(&[2, 3, 4]),
            ControlSet::of(&[0, 1, 2, 3, 4]),
        ]
    }

    /// The problem in precision `R`.
    pub fn problem<R: Real>() -> Problem<R, D, M> {
        let tn =
            TruncatedNormal::with_truncated_variance(R::HALF, R::from_f64(0.04), R::ZERO, R::ONE)
                .unwrap();
        let v = Variable {
            lower: R::ZERO,
            upper: R::ONE,
            uncontrolled: Distribution::TruncatedNormal(tn),
        };
        let costs = COSTS.map(R::from_f64);
        Problem::new(&[v; D], &sets(), Some(&costs)).unwrap()
    }

    /// How the bank is drawn.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum BankKind {
        /// Independent draws (the paper's choice), from this seed.
        Iid(u64),
        /// Scrambled Sobol points, with this scrambling seed.
        Sobol(u64),
    }

    /// A bank of `size` points.
    pub fn bank<R: Real>(size: usize, kind: BankKind) -> SampleBank<R, D, Vec<[R; D]>> {
        let problem = problem::<R>();
        match kind {
            BankKind::Iid(seed) => {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                SampleBank::iid(&problem, vec![[R::ZERO; D]; size], &mut rng).unwrap()
            }
            BankKind::Sobol(seed) => {
                SampleBank::quasi_random(&problem, vec![[R::ZERO; D]; size], seed).unwrap()
            }
        }
    }

    /// An ETC-Ada controller (β = 2, large budget) whose GP already holds `n` observations of
    /// [`crate::bumps5`] at deterministic points (`data_seed`).
    pub fn controller<R: Real, const N: usize>(
        n: usize,
        bank: SampleBank<R, D, Vec<[R; D]>>,
        inner: InnerConfig,
        data_seed: u64,
        seed: u64,
    ) -> Ctl<R, N> {
        let spec = ControllerSpec {
            problem: problem::<R>(),
            kernel: Kernel::squared_exponential([R::from_f64(0.2); D], R::ONE).unwrap(),
            mean: R::ZERO,
            noise: R::from_f64(1e-4),
            when_full: WhenFull::Reject,
            bank_seed: 0,
            settings: Settings {
                inner,
                ..Settings::new(R::from_f64(1000.0), seed)
            },
            policy: PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
        };
        let gp = spec.model(vec![R::ZERO; tri_len(N)]).unwrap();
        let mut ctl = spec.controller(gp, bank, spec.policy.build()).unwrap();
        for x in crate::points::<D>(n, data_seed) {
            ctl.observe_initial(&x.map(R::from_f64), R::from_f64(crate::bumps5(&x)))
                .unwrap();
        }
        ctl
    }

    /// The scoring `suggest` does with a workspace (expected UCB, β = 2, default inner
    /// optimiser, candidate streams from `seed`), for the control sets `i < sets`; `bank` is
    /// the controller's.
    pub fn score_first_sets<R: Real, const N: usize>(
        ctl: &Ctl<R, N>,
        bank: &SampleBank<R, D, Vec<[R; D]>>,
        sets: usize,
        seed: u64,
        workspace: &mut [R],
    ) -> [Option<InnerResult<R, D>>; M] {
        let mut out = [None; M];
        score_sets(
            ctl.problem(),
            ctl.gp(),
            bank,
            Bound::Upper(R::TWO),
            &InnerConfig::default(),
            seed,
            &mut out,
            workspace,
            |i| i < sets,
        );
        out
    }
}

/// Paper 002's negated Ackley on [−1, 1]^d (`x = 2u − 1`), maximum 0 at u = ½: the objective
/// of the pandora iteration bench and of the `fit_time` example.
pub fn negated_ackley<const D: usize>(u: &[f64; D]) -> f64 {
    let n = D as f64;
    let (mut sq, mut cos) = (0.0, 0.0);
    for v in u {
        let x = 2.0 * v - 1.0;
        sq += x * x;
        cos += (2.0 * std::f64::consts::PI * x).cos();
    }
    -(20.0 - 20.0 * (-0.2 * (sq / n).sqrt()).exp() - (cos / n).exp() + std::f64::consts::E)
}
