//! The open decision layer from the outside: a rule written outside the crate plugs into the
//! controller (and may stop), the registry of rule names, uniform random search, costs that
//! depend on the values chosen, contexts measured before deciding, and the "while below"
//! budget rule.

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{BudgetRule, Controller, ControllerSpec, DriverError, Settings, Step};
use costbo_core::gp::WhenFull;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::ucb_cvs::EpsilonSchedule;
use costbo_core::policy::{
    AnyPolicy, Choice, Outcome, Play, Policy, PolicySpec, PolicySpecError, Round, RuleDefaults,
    Selection, RULES,
};
use costbo_core::problem::{ControlSet, CostFunction, Costs, Problem, ProblemError, Variable};

const N: usize = 16;
const D: usize = 2;
const M: usize = 2;

fn problem(costs: Option<&[f64]>) -> Problem<f64, D, M> {
    let v = Variable {
        lower: 0.0,
        upper: 10.0,
        uncontrolled: Distribution::Uniform(Uniform::new(0.0, 10.0).unwrap()),
    };
    let sets = [ControlSet::of(&[0]), ControlSet::of(&[0, 1])];
    Problem::new(&[v; D], &sets, costs).unwrap()
}

fn spec(
    problem: Problem<f64, D, M>,
    budget: f64,
    rule: PolicySpec<f64>,
) -> ControllerSpec<f64, D, M> {
    ControllerSpec {
        problem,
        kernel: Kernel::squared_exponential([0.3; D], 1.0).unwrap(),
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: 2,
        settings: Settings::new(budget, 5),
        policy: rule,
    }
}

/// A rule from outside the crate: plays set 0 at the middle of its box and stops after
/// `stop_after` rounds, counting what it records.
#[derive(Debug, Default)]
struct MiddleThenStop {
    stop_after: usize,
    recorded: usize,
    initial: usize,
    last_round: Option<usize>,
}

impl Policy<f64, D, M> for MiddleThenStop {
    #[cfg(feature = "serde")]
    type Record = ();

    fn decide<const C: usize, S, B>(
        &mut self,
        round: &mut Round<'_, f64, C, D, M, S, B>,
    ) -> Result<Choice<f64, D>, DriverError>
    where
        S: AsRef<[f64]> + AsMut<[f64]>,
        B: AsRef<[[f64; D]]> + AsMut<[[f64; D]]>,
    {
        if round.number >= self.stop_after {
            return Ok(Choice::Stop);
        }
        Ok(Choice::Play(Play {
            set: 0,
            x: [0.5; D],
            score: 1.0,
            measure: true,
        }))
    }

    fn record(&mut self, outcome: &Outcome<'_, f64, D, M>) {
        match outcome.set {
            Some(_) => self.recorded += 1,
            None => self.initial += 1,
        }
        self.last_round = Some(outcome.round);
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {}

    #[cfg(feature = "serde")]
    fn load(&mut self, _: &Self::Record) -> Result<(), DriverError> {
        Ok(())
    }
}

#[test]
fn an_outside_rule_plugs_in_and_may_stop() {
    let s = spec(problem(Some(&[0.5, 1.0])), 10.0, PolicySpec::RandomSearch);
    let gp = s.model::<N, _>(vec![0.0; tri_len(N)]).unwrap();
    let bank = s.bank(vec![[0.0; D]; 8]).unwrap();
    let rule = MiddleThenStop {
        stop_after: 3,
        ..Default::default()
    };
    let mut ctl = s.controller(gp, bank, rule).unwrap();
    ctl.observe_initial(&[1.0, 2.0], 0.3).unwrap();
    for r in 0..3 {
        let d = ctl.suggest().unwrap();
        assert_eq!((d.set, d.values), (0, [Some(5.0), None]));
        assert!(d.measure);
        ctl.observe(&[5.0, 7.0], 1.0 + r as f64, 0.5).unwrap();
        assert_eq!(
            ctl.policy().last_round,
            Some(r),
            "observations carry their round"
        );
    }
    assert_eq!(ctl.next(&[None; D], &mut []), Ok(Step::Stop));
    assert_eq!(ctl.suggest(), Err(DriverError::Stopped));
    assert_eq!((ctl.policy().recorded, ctl.policy().initial), (3, 1));
    assert_eq!((ctl.rounds(), ctl.spent()), (3, 1.5));
}

#[test]
fn every_registered_name_parses_and_bad_names_are_refused() {
    let defaults = RuleDefaults::new(0.25);
    for r in RULES {
        let name = r
            .name
            .replace("EPS", "0.5")
            .replace("-N", "-7")
            .replace("LAMBDA", "0.01")
            .replace("BETA", "10");
        let spec =
            PolicySpec::<f64>::parse(&name, &defaults).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        // Every rule builds, and starts on a problem with known costs.
        let mut rule: AnyPolicy<f64, D, M, 8, 4> = spec.build();
        assert_eq!(
            Policy::<f64, D, M>::start(&mut rule, &problem(Some(&[0.5, 1.0]))),
            Ok(())
        );
    }
    assert_eq!(
        PolicySpec::<f64>::parse("ucb-cvs", &defaults),
        Ok(PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.25)))
    );
    assert_eq!(
        PolicySpec::<f64>::parse("ucb-cvs:0.1", &defaults),
        Ok(PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.1)))
    );
    assert_eq!(
        PolicySpec::<f64>::parse("etc-7", &defaults),
        Ok(PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(7)))
    );
    assert_eq!(
        PolicySpec::<f64>::parse("ts-per-cost", &defaults),
        Ok(PolicySpec::Thompson(Selection::PerUnitCost))
    );
    for (bad, why) in [
        ("ucb-cvs:-1", PolicySpecError::BadEpsilon),
        ("ucb-cvs:nan", PolicySpecError::BadEpsilon),
        ("ucb-cvs:x", PolicySpecError::BadEpsilon),
        ("etc-0", PolicySpecError::BadPlays),
        ("etc", PolicySpecError::UnknownName),
        ("pbgi-x", PolicySpecError::UnknownName),
        ("", PolicySpecError::UnknownName),
    ] {
        assert_eq!(PolicySpec::<f64>::parse(bad, &defaults), Err(why), "{bad}");
    }
    // The registry's parameters survive a change of precision.
    let s = PolicySpec::<f64>::parse("ucb-cvs:0.5", &defaults).unwrap();
    assert_eq!(
        s.convert::<f32>(),
        PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.5f32))
    );
}

/// Every name of the registry, with the rule and parameters it stands for and the properties
/// callers ask of it (caller memory, learned costs, costs priced per point), written out here
/// from the papers' settings rather than read from the registry.
#[test]
fn each_name_stands_for_its_rule_parameters_and_properties() {
    use costbo_core::acquisition::textbook::Form;
    use costbo_core::policy::gp_ucb::BetaSchedule;
    use costbo_core::policy::log_ei::CostUse;
    use costbo_core::policy::mes::Gain;
    use costbo_core::policy::pbgi::Lambda;
    use costbo_core::policy::unknown_cost::{Exploitation, Exploration, UnknownCostConfig};
    use costbo_core::policy::Maximiser;

    let defaults = RuleDefaults::papers(4).with_epsilon(0.25);
    let m = Maximiser::Pool;
    let paper_001 = UnknownCostConfig {
        exploration: Exploration::BudgetFraction(0.6),
        alpha: 0.1,
        halve_every: Some(4),
        exploitation: Exploitation::Paper,
    };
    let decaying = |initial: f64, factor: f64| Lambda::Decaying { initial, factor };
    // (name, rule, needs workspace, learns costs, prices points)
    let table: Vec<(&str, PolicySpec<f64>, bool, bool, bool)> = vec![
        (
            "ucb-psq",
            PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.0)),
            false,
            false,
            false,
        ),
        (
            "ucb-cvs",
            PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.25)),
            false,
            false,
            false,
        ),
        (
            "ucb-cvs:0.5",
            PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.5)),
            false,
            false,
            false,
        ),
        (
            "etc-50",
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(50)),
            false,
            false,
            false,
        ),
        (
            "etc-100",
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(100)),
            false,
            false,
            false,
        ),
        (
            "etc-7",
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(7)),
            false,
            false,
            false,
        ),
        (
            "etc-ada",
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
            false,
            false,
            false,
        ),
        (
            "unknown-cost",
            PolicySpec::UnknownCost(paper_001),
            false,
            true,
            false,
        ),
        (
            "unknown-cost-code",
            PolicySpec::UnknownCost(UnknownCostConfig {
                exploitation: Exploitation::AuthorsCode {
                    ucb_beta: 1.96,
                    lcb_beta: 0.3,
                },
                ..paper_001
            }),
            false,
            true,
            false,
        ),
        (
            "ts-psq",
            PolicySpec::Thompson(Selection::Argmax),
            false,
            false,
            false,
        ),
        (
            "ts-per-cost",
            PolicySpec::Thompson(Selection::PerUnitCost),
            false,
            false,
            false,
        ),
        (
            "ei-psq",
            PolicySpec::Ei(Selection::Argmax),
            false,
            false,
            false,
        ),
        (
            "ei-per-cost",
            PolicySpec::Ei(Selection::PerUnitCost),
            false,
            false,
            false,
        ),
        (
            "ucb-per-cost",
            PolicySpec::UcbPerUnitCost,
            false,
            false,
            false,
        ),
        (
            "random-search",
            PolicySpec::RandomSearch,
            false,
            false,
            false,
        ),
        (
            "gp-ucb",
            PolicySpec::GpUcb(
                BetaSchedule::Srinivas {
                    delta: 0.1,
                    scale: 0.2,
                },
                m,
            ),
            false,
            false,
            false,
        ),
        (
            "pbgi",
            PolicySpec::Pandora(Lambda::Fixed(1e-4), false, m),
            false,
            false,
            true,
        ),
        (
            "pbgi:0.01",
            PolicySpec::Pandora(Lambda::Fixed(0.01), false, m),
            false,
            false,
            true,
        ),
        (
            "pbgi-d",
            PolicySpec::Pandora(decaying(0.1, 2.0), false, m),
            false,
            false,
            true,
        ),
        (
            "pbgi-d:0.5:10",
            PolicySpec::Pandora(decaying(0.5, 10.0), false, m),
            false,
            false,
            true,
        ),
        (
            "pbgi-stop:0.01",
            PolicySpec::Pandora(Lambda::Fixed(0.01), true, m),
            false,
            false,
            true,
        ),
        (
            "gittins-cvs",
            PolicySpec::GittinsCvs(decaying(0.1, 2.0)),
            true,
            false,
            false,
        ),
        (
            "gittins-cvs:0.01",
            PolicySpec::GittinsCvs(Lambda::Fixed(0.01)),
            true,
            false,
            false,
        ),
        (
            "log-ei",
            PolicySpec::LogEi(CostUse::Ignore, m),
            false,
            false,
            false,
        ),
        (
            "log-eipc",
            PolicySpec::LogEi(CostUse::PerUnit, m),
            false,
            false,
            true,
        ),
        (
            "log-eicc",
            PolicySpec::LogEi(CostUse::Cooling, m),
            false,
            false,
            true,
        ),
        ("mes", PolicySpec::Mes(Gain::Total, m), true, false, false),
        (
            "mfmes",
            PolicySpec::Mes(Gain::PerUnitCost, m),
            true,
            false,
            true,
        ),
        ("kg", PolicySpec::Kg(m), true, false, false),
        ("msei", PolicySpec::Msei(false, m), true, false, false),
        ("bmsei", PolicySpec::Msei(true, m), true, false, false),
        (
            "ei-unstable",
            PolicySpec::Textbook(Form::Ei, m),
            false,
            false,
            false,
        ),
        (
            "log-ei-unstable",
            PolicySpec::Textbook(Form::LogOfEi, m),
            false,
            false,
            false,
        ),
        (
            "exp-log-ei",
            PolicySpec::Textbook(Form::ExpOfLogEi, m),
            false,
            false,
            false,
        ),
        (
            "pbgi-unstable",
            PolicySpec::Textbook(Form::BisectedGittins, m),
            false,
            false,
            true,
        ),
    ];
    for (name, rule, workspace, learns, prices) in &table {
        let parsed = PolicySpec::<f64>::parse(name, &defaults);
        assert_eq!(parsed, Ok(*rule), "{name}");
        assert_eq!(
            (
                rule.needs_workspace(),
                rule.learns_costs(),
                rule.prices_points()
            ),
            (*workspace, *learns, *prices),
            "{name}"
        );
        // The rule converted to f32 is the one the name gives in f32, with the same
        // properties.
        let narrow = rule.convert::<f32>();
        let defaults_f32 = RuleDefaults::<f32>::papers(4).with_epsilon(0.25);
        assert_eq!(
            Ok(narrow),
            PolicySpec::<f32>::parse(name, &defaults_f32),
            "{name}"
        );
        assert_eq!(narrow.needs_workspace(), *workspace, "{name}");
    }
    // The papers' names are all registered (a build may register more).
    let registered: Vec<&str> = RULES.iter().map(|r| r.name).collect();
    for (name, ..) in &table {
        let generic = match *name {
            "ucb-cvs:0.5" => "ucb-cvs:EPS",
            "etc-7" => "etc-N",
            "pbgi:0.01" | "gittins-cvs:0.01" | "pbgi-stop:0.01" => &name.replace("0.01", "LAMBDA"),
            "pbgi-d:0.5:10" => "pbgi-d:LAMBDA:BETA",
            other => other,
        };
        assert!(registered.contains(&generic), "{generic}");
    }
    for bad in [
        "pbgi:0",
        "pbgi:-1",
        "pbgi:x",
        "pbgi-stop:inf",
        "pbgi-d:0.1",
        "pbgi-d:0.1:1",
        "pbgi-d:x:2",
        "pbgi-d:0:2",
        "gittins-cvs:0",
        "gittins-cvs:nan",
    ] {
        assert_eq!(
            PolicySpec::<f64>::parse(bad, &defaults),
            Err(PolicySpecError::BadLambda),
            "{bad}"
        );
    }
}

#[test]
fn random_search_plays_affordable_sets_uniformly_and_reproducibly() {
    let run = |seed: u64| {
        let mut s = spec(problem(Some(&[0.5, 1.0])), 40.0, PolicySpec::RandomSearch);
        s.settings.seed = seed;
        let mut ctl = s
            .build::<N, 1, 1, _, _>(vec![0.0; tri_len(N)], vec![[0.0; D]; 8])
            .unwrap();
        let mut plays = vec![];
        while let Ok(d) = ctl.suggest() {
            let x = [d.values[0].unwrap(), d.values[1].unwrap_or(3.0)];
            ctl.observe(&x, 0.0, [0.5, 1.0][d.set]).unwrap();
            plays.push((d.set, x));
        }
        (plays, ctl.spent())
    };
    let (a, spent) = run(1);
    assert_eq!(a, run(1).0, "same seed, same plays");
    assert_ne!(a, run(2).0);
    assert!(spent <= 40.0, "never over budget");
    // Both sets are played, and the values cover the box (not a fixed point).
    let cheap = a.iter().filter(|(s, _)| *s == 0).count();
    assert!(cheap > 10 && cheap < a.len() - 10, "{cheap} of {}", a.len());
    let (lo, hi) = a.iter().fold((10.0f64, 0.0f64), |(lo, hi), (_, x)| {
        (lo.min(x[0]), hi.max(x[0]))
    });
    assert!(lo < 1.0 && hi > 9.0, "{lo}..{hi}");
}

fn dose_price(set: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    // 0.1 per set, plus 0.2 per unit of the first variable; the second is free.
    let _ = set;
    (0.1 + 0.2 * x[0], [0.2, 0.0])
}

fn free_at_zero(_: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    (x[0], [1.0, 0.0])
}

#[test]
fn costs_that_depend_on_the_values_are_priced_and_validated() {
    let p = problem(None);
    // Dosed: base per set plus a rate per unit of each controlled variable.
    let dosed = p
        .clone()
        .with_costs(Costs::Dosed {
            base: [0.1, 0.3],
            rate: [0.2, 0.05],
        })
        .unwrap();
    assert_eq!(
        dosed.cost_at(0, &[4.0, 8.0]),
        Ok(Some((0.1 + 0.8, [0.2, 0.0])))
    );
    assert_eq!(
        dosed.cost_at(1, &[4.0, 8.0]),
        Ok(Some((0.3 + 0.8 + 0.4, [0.2, 0.05])))
    );
    assert_eq!(dosed.known_cost(0), None, "not a per-set price");
    // A price that can reach zero inside the bounds, or a negative rate, is refused.
    let bad = p.clone().with_costs(Costs::Dosed {
        base: [0.0, 0.3],
        rate: [0.2, 0.05],
    });
    assert_eq!(bad.err(), Some(ProblemError::Cost(0)));
    let bad = p.clone().with_costs(Costs::Dosed {
        base: [0.1, 0.3],
        rate: [-0.2, 0.05],
    });
    assert_eq!(bad.err(), Some(ProblemError::Cost(0)));
    let bad = p.clone().with_costs(Costs::Known([1.0, f64::NAN]));
    assert_eq!(bad.err(), Some(ProblemError::Cost(1)));
    // A function: priced where played; a non-positive price is an error, never a charge.
    let f = p
        .clone()
        .with_costs(Costs::Function(CostFunction(dose_price)))
        .unwrap();
    assert_eq!(f.cost_at(0, &[5.0, 0.0]), Ok(Some((1.1, [0.2, 0.0]))));
    let zero = p
        .clone()
        .with_costs(Costs::Function(CostFunction(free_at_zero)))
        .unwrap();
    assert_eq!(
        zero.cost_at(0, &[0.0, 1.0]),
        Err(ProblemError::CostValue(0))
    );
    assert_eq!(
        zero.cost_at(0, &[-1.0, 1.0]),
        Err(ProblemError::CostValue(0))
    );
    assert_eq!(
        p.cost_at(0, &[1.0, 1.0]),
        Ok(None),
        "learned costs have no price"
    );
    assert_eq!(p.cost_at(9, &[1.0, 1.0]), Ok(None));

    // The controller refuses a decision it cannot pay for at the values chosen: the middle of
    // variable 0's box (5.0) costs 0.1 + 1.0 under the function.
    let mut s = spec(f, 1.0, PolicySpec::RandomSearch);
    let gp = s.model::<N, _>(vec![0.0; tri_len(N)]).unwrap();
    let bank = s.bank(vec![[0.0; D]; 8]).unwrap();
    let rule = MiddleThenStop {
        stop_after: 9,
        ..Default::default()
    };
    let mut ctl = s.controller(gp, bank, rule).unwrap();
    assert_eq!(ctl.suggest(), Err(DriverError::BudgetExhausted));
    assert!(ctl.pending().is_none());
    // With the budget rule of paper 002 it decides while the spending is below the budget.
    s.settings.budget_rule = BudgetRule::WhileBelow;
    let gp = s.model::<N, _>(vec![0.0; tri_len(N)]).unwrap();
    let bank = s.bank(vec![[0.0; D]; 8]).unwrap();
    let rule = MiddleThenStop {
        stop_after: 9,
        ..Default::default()
    };
    let mut ctl = s.controller(gp, bank, rule).unwrap();
    let d = ctl.suggest().unwrap();
    assert_eq!(d.values[0], Some(5.0));
    ctl.observe(&[5.0, 2.0], 0.0, 1.1).unwrap();
    assert_eq!(
        ctl.suggest(),
        Err(DriverError::BudgetExhausted),
        "1.1 spent of 1.0"
    );
    // A price of zero at the values chosen is refused as an invalid cost.
    let z = spec(
        problem(None)
            .with_costs(Costs::Function(CostFunction(free_at_zero)))
            .unwrap(),
        5.0,
        PolicySpec::RandomSearch,
    );
    let gp = z.model::<N, _>(vec![0.0; tri_len(N)]).unwrap();
    let bank = z.bank(vec![[0.0; D]; 8]).unwrap();
    let mut ctl = z.controller(gp, bank, ZeroDose).unwrap();
    assert_eq!(ctl.suggest(), Err(DriverError::InvalidCost));
    assert!(ctl.pending().is_none());
}

/// Doses nothing: variable 0 at its lower bound.
struct ZeroDose;

impl Policy<f64, D, M> for ZeroDose {
    #[cfg(feature = "serde")]
    type Record = ();

    fn decide<const C: usize, S, B>(
        &mut self,
        _: &mut Round<'_, f64, C, D, M, S, B>,
    ) -> Result<Choice<f64, D>, DriverError>
    where
        S: AsRef<[f64]> + AsMut<[f64]>,
        B: AsRef<[[f64; D]]> + AsMut<[[f64; D]]>,
    {
        Ok(Choice::Play(Play {
            set: 0,
            x: [0.0; D],
            score: 0.0,
            measure: true,
        }))
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {}

    #[cfg(feature = "serde")]
    fn load(&mut self, _: &Self::Record) -> Result<(), DriverError> {
        Ok(())
    }
}

/// Sees the context it was given.
#[derive(Default)]
struct EchoContext {
    seen: Option<[Option<f64>; D]>,
}

impl Policy<f64, D, M> for EchoContext {
    #[cfg(feature = "serde")]
    type Record = ();

    fn decide<const C: usize, S, B>(
        &mut self,
        round: &mut Round<'_, f64, C, D, M, S, B>,
    ) -> Result<Choice<f64, D>, DriverError>
    where
        S: AsRef<[f64]> + AsMut<[f64]>,
        B: AsRef<[[f64; D]]> + AsMut<[[f64; D]]>,
    {
        self.seen = Some(*round.context);
        Ok(Choice::Play(Play {
            set: 0,
            x: [0.5; D],
            score: 0.0,
            measure: true,
        }))
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {}

    #[cfg(feature = "serde")]
    fn load(&mut self, _: &Self::Record) -> Result<(), DriverError> {
        Ok(())
    }
}

#[test]
fn contexts_are_validated_and_reach_the_rule_in_unit_coordinates() {
    let p = problem(Some(&[0.5, 1.0]))
        .with_contexts(ControlSet::of(&[1]))
        .unwrap();
    assert_eq!(p.contexts(), ControlSet::of(&[1]));
    assert_eq!(
        problem(None).with_contexts(ControlSet::of(&[2])).err(),
        Some(ProblemError::ContextOutOfRange)
    );
    let s = spec(p, 10.0, PolicySpec::RandomSearch);
    let gp = s.model::<N, _>(vec![0.0; tri_len(N)]).unwrap();
    let bank = s.bank(vec![[0.0; D]; 8]).unwrap();
    let mut ctl: Controller<f64, N, D, M, _, _, EchoContext> =
        s.controller(gp, bank, EchoContext::default()).unwrap();
    for (bad, why) in [
        ([None, None], DriverError::InvalidContext(1)),
        ([Some(1.0), Some(2.0)], DriverError::InvalidContext(0)),
        ([None, Some(f64::NAN)], DriverError::NonFinite),
        ([None, Some(11.0)], DriverError::OutOfBounds(1)),
    ] {
        assert_eq!(ctl.next(&bad, &mut []), Err(why), "{bad:?}");
        assert!(ctl.pending().is_none() && ctl.policy().seen.is_none());
    }
    // `suggest` gives no context, which a problem with contexts refuses.
    assert_eq!(ctl.suggest(), Err(DriverError::InvalidContext(1)));
    let step = ctl.next(&[None, Some(2.5)], &mut []).unwrap();
    assert!(matches!(step, Step::Play(_)));
    assert_eq!(ctl.policy().seen, Some([None, Some(0.25)]));
}
