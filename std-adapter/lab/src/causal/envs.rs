//! The five environments of paper 004 as structural causal models, each with its graph (from
//! `data/causal/`), a sampler that evaluates the equations in topological order and calls the
//! policy when an intervened variable is reached, and its optimum per scope.
//!
//! Equations are the paper's (App. A.1.1, A.1.2, §2 Fig. 1(b), A.2, A.3) with the typo fixes of
//! the implementation notes (`docs/notes/seed-004.md` §4): `N(a, b)` has standard deviation `b`; A.1.2's PSA
//! includes `+ Cancer`; A.2's `U2, U2` reads `U1, U2`; A.3's `C4 ~ N(C4, 0.1)` reads
//! `N(C3, 0.1)`.
//!
//! Values are `E[target]` in the target's own units; PSA is minimised, the others maximised.
//! An optimum is either closed form, a deterministic quadrature (Simpson, error far below the
//! digits printed), or a Monte Carlo mean with its standard error.

use std::sync::OnceLock;

use super::graph::CausalGraph;
use super::nodeset::NodeSet;
use super::scm::{monte_carlo, normal_expectation, sigmoid, simpson, Estimate, Rng};

/// A policy: given an intervened node and the values drawn so far (NaN where not yet drawn),
/// the value to set.
pub type PolicyFn<'a> = &'a mut dyn FnMut(usize, &[f64]) -> f64;

/// A sampler: one draw of every variable under `do(intervened = policy)`.
pub type Sampler = fn(&mut Rng, NodeSet, PolicyFn<'_>) -> Vec<f64>;

/// How an optimum was obtained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A closed form.
    Exact(f64),
    /// A one- or two-dimensional integral by Simpson's rule (deterministic).
    Quadrature(f64),
    /// A Monte Carlo mean with its standard error.
    MonteCarlo(Estimate),
}

impl Value {
    /// The number.
    pub fn value(&self) -> f64 {
        match self {
            Value::Exact(v) | Value::Quadrature(v) => *v,
            Value::MonteCarlo(e) => e.mean,
        }
    }

    fn describe(&self) -> String {
        match self {
            Value::Exact(v) => format!("{v:.6} (closed form)"),
            Value::Quadrature(v) => format!("{v:.6} (quadrature)"),
            Value::MonteCarlo(e) => format!(
                "{:.4} ± {:.4} (Monte Carlo, s.e., {} samples)",
                e.mean, e.se, e.samples
            ),
        }
    }
}

/// The best value of one scope, with a policy reaching it.
pub struct Optimum {
    /// What the scope is (POMPS, the CaBO or CoBO alternative, no intervention).
    pub label: &'static str,
    /// The scope: `(action, contexts)` by name; empty for no intervention.
    pub scope: Vec<(&'static str, Vec<&'static str>)>,
    /// Whether the scope is one of the paper's POMPS for this graph.
    pub is_pomps: bool,
    /// The best expected target value of the scope.
    pub value: Value,
    /// A policy reaching `value` (unused for no intervention).
    pub policy: fn(usize, &[f64]) -> f64,
}

/// One environment.
pub struct Environment {
    /// Short name (`psa-1`, `psa-2`, `fig1`, `a2`, `a3`).
    pub name: &'static str,
    /// Where it comes from.
    pub summary: &'static str,
    /// The graph file's text (`data/causal/…`).
    pub graph_toml: &'static str,
    /// Whether the target is minimised (PSA) rather than maximised.
    pub minimise: bool,
    /// One draw of the SCM.
    pub sample: Sampler,
    /// The optima per scope; Monte Carlo entries use `samples` draws from `seed`.
    pub optima: fn(u64, u64) -> Vec<Optimum>,
    /// The arm table of the POMPS when the graph is too large to enumerate them (A.3: the
    /// paper's two scopes, `data/causal/a3-arms.toml`); `None`: enumerate the graph's POMPS.
    pub arms_toml: Option<&'static str>,
    /// CoBO is given only the contexts that are not descendants of an intervenable variable
    /// (A.3: C5 and C6 lie downstream of the Xt plate, so a policy setting every action
    /// cannot read them first; the public code gives CoBO C0..C4 and the Ct). `false`: every
    /// context (the other environments, where that is the paper's CoBO).
    pub cobo_measured_first: bool,
    /// Contexts outside their boxes are clamped to them before the controller sees them (the
    /// outcome and the regret use the drawn values). A.3's chain contexts leave the public
    /// code's box [−2, 2] now and then (C6 about once in 10⁴ draws), which the core refuses;
    /// `false`: every context is handed over as drawn.
    pub clamp_contexts: bool,
}

impl Environment {
    /// The environment's causal graph.
    pub fn graph(&self) -> CausalGraph {
        CausalGraph::from_toml(self.graph_toml).expect("the bundled graphs are valid")
    }

    /// The best value over all scopes (max, or min for PSA) and its entry.
    pub fn best(&self, samples: u64, seed: u64) -> (f64, &'static str) {
        let o = (self.optima)(samples, seed);
        let pick = o
            .iter()
            .max_by(|a, b| {
                let (x, y) = (a.value.value(), b.value.value());
                let by_value = if self.minimise {
                    y.total_cmp(&x)
                } else {
                    x.total_cmp(&y)
                };
                // On a tie name the POMPS (the scope the algorithm plays).
                by_value.then(a.is_pomps.cmp(&b.is_pomps))
            })
            .expect("every environment lists optima");
        (pick.value.value(), pick.label)
    }
}

/// All environments: the paper's five, and A.3 with the public code's coefficients.
pub fn all() -> [&'static Environment; 6] {
    [&PSA_1, &PSA_2, &FIG1, &A2, &A3, &A3_CODE]
}

/// The environment of a name.
pub fn by_name(name: &str) -> Option<&'static Environment> {
    all().into_iter().find(|e| e.name == name)
}

/// A draw in progress: values so far, the intervened set and the policy.
struct Draw<'a, 'p> {
    v: Vec<f64>,
    x: NodeSet,
    policy: &'a mut PolicyFn<'p>,
}

impl Draw<'_, '_> {
    fn new<'a, 'p>(len: usize, x: NodeSet, policy: &'a mut PolicyFn<'p>) -> Draw<'a, 'p> {
        Draw {
            v: vec![f64::NAN; len],
            x,
            policy,
        }
    }

    /// Sets `node` to its natural value, or to the policy's when intervened. The natural value
    /// is always computed (and its noise drawn) so that the random stream does not depend on
    /// the scope.
    fn set(&mut self, node: usize, natural: f64) -> f64 {
        let val = if self.x.contains(node) {
            (self.policy)(node, &self.v)
        } else {
            natural
        };
        self.v[node] = val;
        val
    }
}

fn no_policy(_: usize, _: &[f64]) -> f64 {
    f64::NAN
}

fn mc_observational(e: &Environment, samples: u64, seed: u64, target: usize) -> Value {
    let sample = e.sample;
    Value::MonteCarlo(monte_carlo(samples, seed, |rng| {
        sample(rng, NodeSet::EMPTY, &mut |_, _| f64::NAN)[target]
    }))
}

// ---------------------------------------------------------------------------------------------
// PSA (App. A.1). Nodes as in data/causal/psa.toml.

const AGE: usize = 0;
const BMI: usize = 1;
const ASPIRIN: usize = 2;
const STATIN: usize = 3;
const CANCER: usize = 4;
/// Index of PSA in the PSA environments' value vectors.
pub const PSA: usize = 5;

fn psa_1_sample(rng: &mut Rng, x: NodeSet, mut policy: PolicyFn<'_>) -> Vec<f64> {
    let mut d = Draw::new(6, x, &mut policy);
    let age = d.set(AGE, rng.uniform(55.0, 75.0));
    let bmi = d.set(BMI, rng.normal(27.0 - 0.01 * age, 0.7));
    let asp = d.set(ASPIRIN, sigmoid(-8.0 + 0.10 * age + 0.03 * bmi));
    let sta = d.set(STATIN, sigmoid(-13.0 + 0.10 * age + 0.20 * bmi));
    let cancer = d.set(
        CANCER,
        sigmoid(2.2 - 0.05 * age + 0.01 * bmi - 0.04 * sta + 0.02 * asp),
    );
    let eps = rng.normal(0.0, 0.4);
    d.set(
        PSA,
        eps + 6.8 + 0.04 * age - 0.15 * bmi - 0.60 * sta + 0.55 * asp + cancer,
    );
    d.v
}

/// `E[g(Age, BMI)]` with Age ~ U(55, 75) and BMI ~ N(27 − 0.01 Age, sd).
fn psa_context_expectation(bmi_sd: f64, g: impl Fn(f64, f64) -> f64) -> f64 {
    simpson(55.0, 75.0, 400, |age| {
        normal_expectation(27.0 - 0.01 * age, bmi_sd, 400, |bmi| g(age, bmi)) / 20.0
    })
}

fn psa_1_optima(samples: u64, seed: u64) -> Vec<Optimum> {
    // ∂PSA/∂Statin = −0.60 − 0.04 ϱ' < 0 and ∂PSA/∂Aspirin = 0.55 + 0.02 ϱ' > 0 at every
    // context, so Aspirin = 0, Statin = 1 is optimal for each (Age, BMI) (A.1.1).
    let best = psa_context_expectation(0.7, |age, bmi| {
        6.8 + 0.04 * age - 0.15 * bmi - 0.60 + sigmoid(2.2 - 0.05 * age + 0.01 * bmi - 0.04)
    });
    fn corner(a: usize, _: &[f64]) -> f64 {
        if a == STATIN {
            1.0
        } else {
            0.0
        }
    }
    vec![
        Optimum {
            label: "POMPS {(Aspirin; Age, BMI), (Statin; Age, BMI)}",
            scope: vec![
                ("Aspirin", vec!["Age", "BMI"]),
                ("Statin", vec!["Age", "BMI"]),
            ],
            is_pomps: true,
            value: Value::Quadrature(best),
            policy: corner,
        },
        Optimum {
            label: "context-free (CaBO): do(Aspirin = 0, Statin = 1)",
            scope: vec![("Aspirin", vec![]), ("Statin", vec![])],
            is_pomps: false,
            value: Value::Quadrature(best),
            policy: corner,
        },
        Optimum {
            label: "no intervention",
            scope: vec![],
            is_pomps: false,
            value: mc_observational(&PSA_1, samples, seed, PSA),
            policy: no_policy,
        },
    ]
}

/// PSA-I (App. A.1.1): a context-free policy is optimal.
pub static PSA_1: Environment = Environment {
    name: "psa-1",
    summary: "PSA, configuration I (App. A.1.1): minimise PSA; Aspirin 0, Statin 1 everywhere",
    graph_toml: include_str!("../../../../data/causal/psa.toml"),
    minimise: true,
    sample: psa_1_sample,
    optima: psa_1_optima,
    arms_toml: None,
    cobo_measured_first: false,
    clamp_contexts: false,
};

fn age_bmi(age: f64, bmi: f64) -> f64 {
    ((age - 55.0) / 21.0) * ((bmi - 27.0) / 4.0).abs()
}

fn psa_2_sample(rng: &mut Rng, x: NodeSet, mut policy: PolicyFn<'_>) -> Vec<f64> {
    let mut d = Draw::new(6, x, &mut policy);
    let age = d.set(AGE, rng.uniform(55.0, 75.0));
    let bmi = d.set(BMI, rng.normal(27.0 - 0.01 * age, 0.1));
    let asp = d.set(ASPIRIN, sigmoid(-8.0 + 0.10 * age + 0.03 * bmi));
    let sta = d.set(STATIN, sigmoid(-13.0 + 0.10 * age + 0.20 * bmi));
    let ab = age_bmi(age, bmi);
    let cancer = d.set(CANCER, sta * sta + ab * ab + 0.5 * asp * asp);
    let eps = rng.normal(0.0, 0.01);
    d.set(
        PSA,
        eps + cancer + 0.5 * asp * asp + ab * ab - 2.0 * ab * (asp + sta),
    );
    d.v
}

fn psa_2_moments() -> (f64, f64) {
    static M: OnceLock<(f64, f64)> = OnceLock::new();
    *M.get_or_init(|| {
        let m1 = psa_context_expectation(0.1, age_bmi);
        let m2 = psa_context_expectation(0.1, |a, b| age_bmi(a, b).powi(2));
        (m1, m2)
    })
}

fn psa_2_optima(samples: u64, seed: u64) -> Vec<Optimum> {
    // PSA = (Asp − AgeBMI)² + (Sta − AgeBMI)² + ε (A.1.2): the contextual optimum is 0; the
    // best constant is Asp = Sta = E[AgeBMI], leaving 2 Var(AgeBMI).
    fn contextual(_: usize, v: &[f64]) -> f64 {
        age_bmi(v[AGE], v[BMI])
    }
    fn constant(_: usize, _: &[f64]) -> f64 {
        psa_2_moments().0
    }
    let (m1, m2) = psa_2_moments();
    vec![
        Optimum {
            label: "POMPS {(Aspirin; Age, BMI), (Statin; Age, BMI)}",
            scope: vec![
                ("Aspirin", vec!["Age", "BMI"]),
                ("Statin", vec!["Age", "BMI"]),
            ],
            is_pomps: true,
            value: Value::Exact(0.0),
            policy: contextual,
        },
        Optimum {
            label: "context-free (CaBO): Aspirin = Statin = E[AgeBMI]",
            scope: vec![("Aspirin", vec![]), ("Statin", vec![])],
            is_pomps: false,
            value: Value::Quadrature(2.0 * (m2 - m1 * m1)),
            policy: constant,
        },
        Optimum {
            label: "no intervention",
            scope: vec![],
            is_pomps: false,
            value: mc_observational(&PSA_2, samples, seed, PSA),
            policy: no_policy,
        },
    ]
}

/// PSA-II (App. A.1.2): the optimal dose depends on Age and BMI.
pub static PSA_2: Environment = Environment {
    name: "psa-2",
    summary: "PSA, configuration II (App. A.1.2): minimise PSA; dose = AgeBMI",
    graph_toml: include_str!("../../../../data/causal/psa.toml"),
    minimise: true,
    sample: psa_2_sample,
    optima: psa_2_optima,
    arms_toml: None,
    cobo_measured_first: false,
    clamp_contexts: false,
};

// ---------------------------------------------------------------------------------------------
// Fig. 1 and A.2 (same graph). Nodes as in data/causal/fig1.toml.

const C: usize = 0;
const X1: usize = 1;
const X2: usize = 2;
/// Index of Y in the Fig. 1 and A.2 environments' value vectors.
pub const Y: usize = 3;

fn fig1_sample(rng: &mut Rng, x: NodeSet, mut policy: PolicyFn<'_>) -> Vec<f64> {
    let mut d = Draw::new(4, x, &mut policy);
    let u1 = rng.uniform(-1.0, 1.0);
    let u2 = rng.uniform(-1.0, 1.0);
    let c = d.set(C, u1);
    let x1 = d.set(X1, u1);
    let x2 = d.set(X2, u2 * (-(x1 + c).powi(2)).exp());
    d.set(Y, u2 * x2 + c);
    d.v
}

fn fig1_optima(_samples: u64, _seed: u64) -> Vec<Optimum> {
    fn minus_c(_: usize, v: &[f64]) -> f64 {
        -v[C]
    }
    fn cobo(a: usize, v: &[f64]) -> f64 {
        if a == X1 {
            -v[C]
        } else {
            v[C]
        }
    }
    fn zero(_: usize, _: &[f64]) -> f64 {
        0.0
    }
    // E[U2²] = 1/3; E[e^{−(x+U1)²}] and E[e^{−4U1²}] with U1 ~ U(−1, 1) by quadrature (§2).
    let do_x1 = simpson(-1.0, 1.0, 2000, |u| (-(u * u)).exp() / 2.0) / 3.0;
    let natural = simpson(-1.0, 1.0, 2000, |u| (-4.0 * u * u).exp() / 2.0) / 3.0;
    vec![
        Optimum {
            label: "POMPS (X1; C), π(c) = −c",
            scope: vec![("X1", vec!["C"])],
            is_pomps: true,
            value: Value::Exact(1.0 / 3.0),
            policy: minus_c,
        },
        Optimum {
            label: "POMPS (X2; C): E[U2 π(C) + C] = 0 for every π",
            scope: vec![("X2", vec!["C"])],
            is_pomps: true,
            value: Value::Exact(0.0),
            policy: minus_c,
        },
        Optimum {
            label: "CoBO {(X1; C), (X2; C)}: 0 for every policy",
            scope: vec![("X1", vec!["C"]), ("X2", vec!["C"])],
            is_pomps: false,
            value: Value::Exact(0.0),
            policy: cobo,
        },
        Optimum {
            label: "context-free (CaBO) best: do(X1 = 0)",
            scope: vec![("X1", vec![])],
            is_pomps: false,
            value: Value::Quadrature(do_x1),
            policy: zero,
        },
        Optimum {
            label: "no intervention: E[e^{−4U1²}]/3",
            scope: vec![],
            is_pomps: false,
            value: Value::Quadrature(natural),
            policy: no_policy,
        },
    ]
}

/// The SCM of Fig. 1(b) (§2): CoBO and CaBO cannot reach the optimum 1/3.
pub static FIG1: Environment = Environment {
    name: "fig1",
    summary: "Fig. 1(b) SCM (§2): maximise Y; optimum 1/3 via (X1; C), CoBO 0, CaBO < 1/4",
    graph_toml: include_str!("../../../../data/causal/fig1.toml"),
    minimise: false,
    sample: fig1_sample,
    optima: fig1_optima,
    arms_toml: None,
    cobo_measured_first: false,
    clamp_contexts: false,
};

/// The standard deviation of εY in A.2 before its factor 0.1 (the noise sweep of Fig. 5 varies
/// it; 0.1 in App. A.2).
pub const A2_EPS_Y_SD: f64 = 0.1;

/// The standard deviation of A.2's own noise term in `Y`, `0.1·ε_Y` (every environment's
/// noise level in the causal study but the sweep's).
pub const A2_Y_NOISE_SD: f64 = 0.1 * A2_EPS_Y_SD;

fn a2_sample(rng: &mut Rng, x: NodeSet, mut policy: PolicyFn<'_>) -> Vec<f64> {
    let mut d = Draw::new(4, x, &mut policy);
    let u1 = rng.uniform(-1.0, 1.0);
    let u2 = rng.uniform(-1.0, 1.0);
    let c = d.set(C, u1 + rng.normal(0.0, 0.1));
    let x1 = d.set(X1, u1 + rng.normal(0.0, 0.1));
    let x2 = d.set(X2, (c - x1).abs() + 0.2 * u2);
    let eps_y = rng.normal(0.0, A2_EPS_Y_SD);
    d.set(Y, (c - x2).cos() + 0.1 * u2 + 0.1 * eps_y);
    d.v
}

fn a2_optima(samples: u64, seed: u64) -> Vec<Optimum> {
    fn identity(_: usize, v: &[f64]) -> f64 {
        v[C]
    }
    // Under (X1; C): C − X2 = C − |C − x1| − 0.2 U2, and E cos(a − 0.2U2) = cos(a) sin(0.2)/0.2,
    // best at a closest to 0: a = 0 (x1 = 0) when c ≥ 0, a = c (x1 = c) otherwise.
    fn x1_best(_: usize, v: &[f64]) -> f64 {
        if v[C] >= 0.0 {
            0.0
        } else {
            v[C]
        }
    }
    let e_cos_min = simpson(-1.0, 1.0, 400, |u| {
        normal_expectation(u, 0.1, 200, |c| c.min(0.0).cos()) / 2.0
    });
    vec![
        Optimum {
            label: "POMPS (X2; C), π(c) = c",
            scope: vec![("X2", vec!["C"])],
            is_pomps: true,
            value: Value::Exact(1.0),
            policy: identity,
        },
        Optimum {
            label: "POMPS (X1; C), π(c) = min(c, 0)",
            scope: vec![("X1", vec!["C"])],
            is_pomps: true,
            value: Value::Quadrature((0.2f64.sin() / 0.2) * e_cos_min),
            policy: x1_best,
        },
        Optimum {
            label: "CoBO {(X1; C), (X2; C)}: X2 = C",
            scope: vec![("X1", vec!["C"]), ("X2", vec!["C"])],
            is_pomps: false,
            value: Value::Exact(1.0),
            policy: identity,
        },
        Optimum {
            label: "no intervention",
            scope: vec![],
            is_pomps: false,
            value: mc_observational(&A2, samples, seed, Y),
            policy: no_policy,
        },
    ]
}

/// The SCM of App. A.2: CoBO can reach the optimum 1.
pub static A2: Environment = Environment {
    name: "a2",
    summary: "App. A.2 SCM: maximise Y; optimum 1 via (X2; C), reachable by CoBO too",
    graph_toml: include_str!("../../../../data/causal/a2.toml"),
    minimise: false,
    sample: a2_sample,
    optima: a2_optima,
    arms_toml: None,
    cobo_measured_first: false,
    clamp_contexts: false,
};

// ---------------------------------------------------------------------------------------------
// A.3. Nodes as in data/causal/a3.toml: C0..C6, Ct1..Ct50, X1, X2, Xt1..Xt27, Y.

const A3_C: usize = 0; // C_i is A3_C + i
const A3_CT: usize = 7; // Ct_i is A3_CT + i − 1
const A3_X1: usize = 57;
const A3_X2: usize = 58;
const A3_XT: usize = 59; // Xt_j is A3_XT + j − 1
/// Index of Y in the A.3 environment's value vectors.
pub const A3_Y: usize = 86;

/// The coefficients in which the paper's A.3 and the public code's differ (`docs/notes/seed-004.md` §4.9).
struct A3Coefficients {
    /// Of U2 in Y (paper 0.1, code 0.01).
    u2_in_y: f64,
    /// Of the Xt plate's mean in C5 (paper 0.01, code 0.001).
    xt_mean_in_c5: f64,
    /// Of the Ct plate's mean in the Xt's upper bound `1 + k·C̄` (paper 0.1, code 0.01).
    ct_mean_in_xt: f64,
}

const A3_PAPER: A3Coefficients = A3Coefficients {
    u2_in_y: 0.1,
    xt_mean_in_c5: 0.01,
    ct_mean_in_xt: 0.1,
};

const A3_PUBLIC_CODE: A3Coefficients = A3Coefficients {
    u2_in_y: 0.01,
    xt_mean_in_c5: 0.001,
    ct_mean_in_xt: 0.01,
};

fn a3_sample_with(
    k: &A3Coefficients,
    rng: &mut Rng,
    x: NodeSet,
    mut policy: PolicyFn<'_>,
) -> Vec<f64> {
    let mut d = Draw::new(87, x, &mut policy);
    let u1 = rng.uniform(-1.0, 1.0);
    let u2 = rng.uniform(-1.0, 1.0);
    let c0 = d.set(A3_C, rng.normal(0.0, 0.2));
    // X1's noise is drawn here, its value set after C6: a policy for X1 reads C1 and C6.
    let x1_natural = rng.normal(u1, 0.1);
    let c1 = d.set(A3_C + 1, rng.normal(c0 - u1, 0.1));
    let c2 = d.set(A3_C + 2, rng.normal(c1, 0.1));
    let c3 = d.set(A3_C + 3, rng.normal(c2, 0.1));
    let c4 = d.set(A3_C + 4, rng.normal(c3, 0.1));
    let mut c_mean = 0.0;
    for i in 0..50 {
        c_mean += d.set(A3_CT + i, rng.normal(0.0, 0.2)) / 50.0;
    }
    let mut x_mean = 0.0;
    for j in 0..27 {
        x_mean += d.set(A3_XT + j, rng.uniform(-1.0, 1.0 + k.ct_mean_in_xt * c_mean)) / 27.0;
    }
    let c5 = d.set(A3_C + 5, rng.normal(c4 + k.xt_mean_in_c5 * x_mean, 0.1));
    let c6 = d.set(A3_C + 6, rng.normal(c5, 0.1));
    let x1 = d.set(A3_X1, x1_natural);
    let x2 = d.set(
        A3_X2,
        rng.normal(0.5 * (c1 + c6) + x1 + 0.3 * u2.abs(), 0.1),
    );
    let y = rng.normal((c1 - x2).cos() + k.u2_in_y * u2, 0.01);
    d.set(A3_Y, y);
    d.v
}

fn a3_sample(rng: &mut Rng, x: NodeSet, policy: PolicyFn<'_>) -> Vec<f64> {
    a3_sample_with(&A3_PAPER, rng, x, policy)
}

fn a3_code_sample(rng: &mut Rng, x: NodeSet, policy: PolicyFn<'_>) -> Vec<f64> {
    a3_sample_with(&A3_PUBLIC_CODE, rng, x, policy)
}

/// The phase `a*` maximising `E cos(a − W)`, `W = 0.3|U2| + ε`, and the maximum.
fn a3_x1_phase() -> (f64, f64) {
    // E cos(0.3|U|) = sin(0.3)/0.3, E sin(0.3|U|) = (1 − cos 0.3)/0.3 for |U| ~ U(0, 1);
    // ε ~ N(0, 0.1) multiplies both by E cos ε = e^{−0.005}.
    let (ec, es) = (0.3f64.sin() / 0.3, (1.0 - 0.3f64.cos()) / 0.3);
    (es.atan2(ec), (-0.005f64).exp() * (ec * ec + es * es).sqrt())
}

/// A.3's optima. The coefficients that differ between the paper and the public code leave
/// them unchanged: U2 enters Y linearly (mean 0 whatever the policy) and C5, the Xt plate and
/// its bound do not enter either optimal policy's value; only the observational mean moves.
fn a3_optima_of(env: &'static Environment, samples: u64, seed: u64) -> Vec<Optimum> {
    fn x2_best(_: usize, v: &[f64]) -> f64 {
        v[A3_C + 1]
    }
    // C1 − X2 = a − W with a = 0.5(c1 − c6) − x1: set x1 = 0.5(c1 − c6) − a*.
    fn x1_best(_: usize, v: &[f64]) -> f64 {
        0.5 * (v[A3_C + 1] - v[A3_C + 6]) - a3_x1_phase().0
    }
    vec![
        Optimum {
            label: "POMPS <X2 | C1>, π(c1) = c1",
            scope: vec![("X2", vec!["C1"])],
            is_pomps: true,
            value: Value::Exact(1.0),
            policy: x2_best,
        },
        Optimum {
            label: "POMPS <X1 | C1, C6>, π = (c1 − c6)/2 − a*",
            scope: vec![("X1", vec!["C1", "C6"])],
            is_pomps: true,
            value: Value::Exact(a3_x1_phase().1),
            policy: x1_best,
        },
        Optimum {
            label: "no intervention",
            scope: vec![],
            is_pomps: false,
            value: mc_observational(env, samples, seed, A3_Y),
            policy: no_policy,
        },
    ]
}

fn a3_optima(samples: u64, seed: u64) -> Vec<Optimum> {
    a3_optima_of(&A3, samples, seed)
}

fn a3_code_optima(samples: u64, seed: u64) -> Vec<Optimum> {
    a3_optima_of(&A3_CODE, samples, seed)
}

/// The large SCM of App. A.3 (57 contexts, 29 actions), the paper's equations: the one the
/// study runs (`docs/notes/seed-004.md` derives its optima from them, and every other environment follows the
/// paper too).
pub static A3: Environment = Environment {
    name: "a3",
    summary: "App. A.3 SCM (57 contexts, 29 actions): maximise Y; optimum 1 via <X2 | C1>",
    graph_toml: include_str!("../../../../data/causal/a3.toml"),
    minimise: false,
    sample: a3_sample,
    optima: a3_optima,
    arms_toml: Some(include_str!("../../../../data/causal/a3-arms.toml")),
    cobo_measured_first: true,
    clamp_contexts: true,
};

/// A.3 with the public code's coefficients (U2/100 in Y, 0.001·X̄ in C5, Xt ≤ 1 + 0.01·C̄;
/// `docs/notes/seed-004.md` §4.9): the same graph, arms and optima, a different observational law.
pub static A3_CODE: Environment = Environment {
    name: "a3-code",
    summary:
        "App. A.3 SCM with the public code's coefficients: maximise Y; optimum 1 via <X2 | C1>",
    graph_toml: include_str!("../../../../data/causal/a3.toml"),
    minimise: false,
    sample: a3_code_sample,
    optima: a3_code_optima,
    arms_toml: Some(include_str!("../../../../data/causal/a3-arms.toml")),
    cobo_measured_first: true,
    clamp_contexts: true,
};

/// The text of `costbo causal envs`.
pub fn render_all(samples: u64, seed: u64) -> String {
    let mut out = String::new();
    for e in all() {
        let g = e.graph();
        out.push_str(&format!(
            "{} — {}\n  target {} ({}), {} variables, {} intervenable, {} contexts\n",
            e.name,
            e.summary,
            g.name(g.target()),
            if e.minimise { "minimised" } else { "maximised" },
            g.names().len(),
            g.intervenable().len(),
            g.contexts().len()
        ));
        let boxes: Vec<String> = g
            .intervenable()
            .union(g.contexts())
            .iter()
            .filter_map(|v| g.bounds(v).map(|(lo, hi)| (v, lo, hi)))
            .take(8)
            .map(|(v, lo, hi)| format!("{} ∈ [{lo}, {hi}]", g.name(v)))
            .collect();
        if !boxes.is_empty() {
            let more = if g.intervenable().union(g.contexts()).len() > 8 {
                ", …"
            } else {
                ""
            };
            out.push_str(&format!("  boxes: {}{more}\n", boxes.join(", ")));
        }
        for o in (e.optima)(samples, seed) {
            out.push_str(&format!(
                "  {} {:<58} {}\n",
                if o.is_pomps { "*" } else { " " },
                o.label,
                o.value.describe()
            ));
        }
        let (best, label) = e.best(samples, seed);
        out.push_str(&format!(
            "  optimum E[{}] = {best:.6} ({label})\n",
            g.name(g.target())
        ));
    }
    out.push_str("(* = a POMPS listed by the paper)\n");
    out
}
