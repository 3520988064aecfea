//! Every public error type formats a one-line message that carries the variant's values, and
//! errors that wrap another expose it through `Error::source` (and repeat its message).

use core::error::Error;

use costbo_core::dist::{DistError, MAX_DISCRETE_VALUES};
use costbo_core::driver::{BuildError, DriverError};
use costbo_core::expectation::BankError;
use costbo_core::feedback::controller::FeedbackError;
use costbo_core::feedback::query::QueryError;
use costbo_core::gp::time_varying::TimeVaryingError;
use costbo_core::gp::GpError;
use costbo_core::kernel::KernelError;
use costbo_core::policy::memo::{MemoError, MEMO_CAPACITY};
use costbo_core::policy::PolicySpecError;
use costbo_core::problem::ProblemError;
use costbo_core::qmc::{QmcError, Sobol, SOBOL_MAX_DIMENSIONS};
use costbo_core::special::improvement::ImprovementError;

/// The message of `e`, checked for the style every message follows: one line, not empty, no
/// capital first letter, no trailing period.
fn message<E: Error>(e: &E) -> String {
    let m = e.to_string();
    assert!(!m.is_empty(), "{e:?}: empty message");
    assert!(!m.contains('\n'), "{e:?}: {m:?} spans lines");
    assert!(!m.ends_with('.'), "{e:?}: {m:?} ends with a period");
    assert!(
        !m.starts_with(char::is_uppercase),
        "{e:?}: {m:?} starts with a capital"
    );
    m
}

/// `outer`'s message contains `inner`'s and its source is `inner` itself.
fn wraps<O: Error, I: Error + PartialEq + 'static>(outer: &O, inner: &I) {
    let m = message(outer);
    let i = message(inner);
    assert!(m.contains(&i), "{m:?} does not include {i:?}");
    assert_ne!(m, i, "{outer:?} adds no context to {inner:?}");
    let source = outer.source().expect("a wrapping error has a source");
    assert_eq!(source.downcast_ref::<I>(), Some(inner));
}

/// Messages of distinct variants differ (each says what is wrong, not just the type).
fn all_distinct(messages: &[String]) {
    for (i, a) in messages.iter().enumerate() {
        for b in &messages[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn gp_errors_carry_their_values() {
    let m = message(&GpError::StorageTooSmall {
        needed: 4711,
        got: 815,
    });
    assert!(m.contains("4711") && m.contains("815"), "{m}");
    let units = [
        GpError::NonFinite,
        GpError::Full,
        GpError::NotPositiveDefinite,
        GpError::InvalidHyperparameter,
        GpError::LengthMismatch,
        GpError::NoData,
        GpError::InvalidBounds,
    ];
    all_distinct(&units.map(|e| message(&e)));
    for e in units {
        assert!(e.source().is_none());
    }
}

#[test]
fn driver_errors_name_the_index_and_wrap_the_gp() {
    for e in [
        DriverError::OutOfBounds(4711),
        DriverError::InconsistentWithDecision(4711),
        DriverError::InvalidSet(4711),
        DriverError::InvalidContext(4711),
    ] {
        assert!(message(&e).contains("4711"), "{e:?}");
        assert!(e.source().is_none());
    }
    wraps(&DriverError::Gp(GpError::Full), &GpError::Full);
    all_distinct(
        &[
            DriverError::BudgetExhausted,
            DriverError::Stopped,
            DriverError::NoPendingDecision,
            DriverError::NonFinite,
            DriverError::InvalidCost,
            DriverError::RuleNeedsKnownCosts,
            DriverError::NoScore,
            DriverError::InvalidSnapshot,
            DriverError::InvalidMemo,
            DriverError::InvalidCostModel,
            DriverError::RuleNeedsFullSet,
            DriverError::InvalidParameter,
            DriverError::WorkspaceTooSmall,
            DriverError::NoMeasurementRule,
            DriverError::NotQueried,
            DriverError::MeasurementSkipped,
            DriverError::MeasurementDue,
        ]
        .map(|e| message(&e)),
    );
}

#[test]
fn build_errors_wrap_their_cause() {
    let gp = GpError::StorageTooSmall {
        needed: 4711,
        got: 815,
    };
    wraps(&BuildError::Gp(gp), &gp);
    assert!(message(&BuildError::Gp(gp)).contains("4711"));
    wraps(
        &BuildError::Bank(BankError::Dimension),
        &BankError::Dimension,
    );
    wraps(&BuildError::Bank(BankError::Empty), &BankError::Empty);
    let driver = DriverError::InvalidSet(4711);
    wraps(&BuildError::Driver(driver), &driver);
    // Two levels: the controller's error wraps the GP's.
    let nested = BuildError::Driver(DriverError::Gp(GpError::NoData));
    let inner = nested.source().and_then(Error::source);
    assert_eq!(
        inner.and_then(|e| e.downcast_ref::<GpError>()),
        Some(&GpError::NoData)
    );
}

#[test]
fn limits_appear_in_the_messages() {
    let limit = SOBOL_MAX_DIMENSIONS.to_string();
    assert!(message(&BankError::Dimension).contains(&limit));
    let too_many = Sobol::<22>::new(1).map(|_| ()).unwrap_err();
    let m = message(&too_many);
    assert!(m.contains("22") && m.contains(&limit), "{m}");
    let m = message(&QmcError::TooManyDimensions {
        requested: 4711,
        max: 815,
    });
    assert!(m.contains("4711") && m.contains("815"), "{m}");
    assert!(message(&DistError::TooManyValues).contains(&MAX_DISCRETE_VALUES.to_string()));
    assert!(message(&MemoError::Length).contains(&MEMO_CAPACITY.to_string()));
}

#[test]
fn problem_errors_name_the_variable_or_set() {
    for e in [
        ProblemError::Bounds(4711),
        ProblemError::Distribution(4711),
        ProblemError::EmptyControlSet(4711),
        ProblemError::ControlSetOutOfRange(4711),
        ProblemError::DuplicateControlSet(4711),
        ProblemError::Cost(4711),
        ProblemError::CostValue(4711),
    ] {
        assert!(message(&e).contains("4711"), "{e:?}");
    }
    all_distinct(
        &[
            ProblemError::NoControlSets,
            ProblemError::TooManyControlSets,
            ProblemError::CostCount,
            ProblemError::ContextOutOfRange,
        ]
        .map(|e| message(&e)),
    );
}

#[test]
fn unit_errors_have_distinct_messages() {
    all_distinct(&[KernelError::Lengthscale, KernelError::Outputscale].map(|e| message(&e)));
    all_distinct(
        &[
            DistError::NonFinite,
            DistError::NonPositiveScale,
            DistError::EmptyInterval,
            DistError::VarianceUnachievable,
            DistError::Degenerate,
            DistError::NoValues,
            DistError::TooManyValues,
            DistError::LengthMismatch,
            DistError::NegativeWeight,
            DistError::ZeroTotalWeight,
            DistError::ZeroScale,
        ]
        .map(|e| message(&e)),
    );
    all_distinct(
        &[
            PolicySpecError::UnknownName,
            PolicySpecError::BadEpsilon,
            PolicySpecError::BadPlays,
            PolicySpecError::BadLambda,
        ]
        .map(|e| message(&e)),
    );
    all_distinct(
        &[QueryError::Quota, QueryError::Kappa, QueryError::NonFinite].map(|e| message(&e)),
    );
    all_distinct(
        &[
            ImprovementError::NonFinite,
            ImprovementError::NegativeStd,
            ImprovementError::NonPositiveStd,
            ImprovementError::NonPositivePrice,
            ImprovementError::BadMixture,
        ]
        .map(|e| message(&e)),
    );
    all_distinct(&[MemoError::Length, MemoError::Tag].map(|e| message(&e)));
    all_distinct(&[BankError::Empty, BankError::Dimension].map(|e| message(&e)));
}

#[test]
fn feedback_errors_chain_to_the_gp() {
    let m = message(&FeedbackError::Diverged { round: 4711 });
    assert!(m.contains("4711"), "{m}");
    wraps(
        &TimeVaryingError::Gp(GpError::NotPositiveDefinite),
        &GpError::NotPositiveDefinite,
    );
    let model = TimeVaryingError::Gp(GpError::NonFinite);
    wraps(&FeedbackError::Model(model), &model);
    assert!(TimeVaryingError::Forgetting.source().is_none());
    assert!(FeedbackError::NoRound.source().is_none());
    message(&TimeVaryingError::RoundOverflow);
}

#[cfg(feature = "policy-unknown-cost")]
#[test]
fn unknown_cost_errors_format() {
    use costbo_core::policy::unknown_cost::UnknownCostError;
    all_distinct(
        &[
            UnknownCostError::LengthMismatch,
            UnknownCostError::NonFinite,
        ]
        .map(|e| message(&e)),
    );
}

#[cfg(feature = "causal")]
#[test]
fn causal_errors_name_arms_and_variables() {
    use costbo_core::causal::{ArmTableError, CausalError};
    for e in [
        CausalError::UnknownArm { arm: 4711 },
        CausalError::ContextMissing { variable: 4711 },
        CausalError::ContextOutOfBounds { variable: 4711 },
    ] {
        assert!(message(&e).contains("4711"), "{e:?}");
    }
    wraps(&CausalError::Model(GpError::Full), &GpError::Full);
    for e in [
        ArmTableError::InvalidBounds { variable: 4711 },
        ArmTableError::DuplicateVariable { variable: 4711 },
        ArmTableError::DuplicateArm { arm: 4711 },
    ] {
        assert!(message(&e).contains("4711"), "{e:?}");
    }
    all_distinct(&[ArmTableError::TooManyArms, ArmTableError::TooManyInputs].map(|e| message(&e)));
    all_distinct(
        &[
            CausalError::InvalidSnapshot,
            CausalError::NotFresh,
            CausalError::InvalidSetting,
            CausalError::RoundOpen,
        ]
        .map(|e| message(&e)),
    );
}

#[cfg(feature = "bandit-baselines")]
#[test]
fn bandit_errors_name_the_arm_and_the_count() {
    use costbo_core::bandit::BanditError;
    let m = message(&BanditError::ArmOutOfRange {
        arm: 4711,
        arms: 815,
    });
    assert!(m.contains("4711") && m.contains("815"), "{m}");
    all_distinct(
        &[
            BanditError::NoArms,
            BanditError::NonFinite,
            BanditError::OutsideUnitInterval,
            BanditError::NotChosen,
            BanditError::Gamma,
            BanditError::Alpha,
            BanditError::Epsilon,
            BanditError::Temperature,
        ]
        .map(|e| message(&e)),
    );
}

#[cfg(feature = "link")]
#[test]
fn link_errors_format() {
    use costbo_core::link::{ErrorCode, LinkError, MAX_PAYLOAD};
    assert!(message(&LinkError::BufferTooSmall).contains(&MAX_PAYLOAD.to_string()));
    all_distinct(
        &[
            LinkError::BufferTooSmall,
            LinkError::Overflow,
            LinkError::Cobs,
            LinkError::Crc,
            LinkError::Decode,
        ]
        .map(|e| message(&e)),
    );
    assert!(message(&ErrorCode::Other(4711)).contains("4711"));
    message(&ErrorCode::BadFrame);
}

#[cfg(feature = "journal")]
#[test]
fn journal_errors_format() {
    use costbo_core::journal::{JournalError, MAX_MEMO, MAX_UNIT, MAX_VARS};
    use embedded_storage::nor_flash::NorFlashErrorKind;
    let kind = NorFlashErrorKind::OutOfBounds;
    assert!(message(&JournalError::Flash(kind)).contains(&kind.to_string()));
    let m = message(&JournalError::Shape);
    assert!(
        m.contains(&MAX_VARS.to_string()) && m.contains(&MAX_MEMO.to_string()),
        "{m}"
    );
    assert!(message(&JournalError::Region).contains(&MAX_UNIT.to_string()));
}

#[cfg(feature = "serde")]
#[test]
fn restore_errors_wrap_the_decoder_error() {
    use costbo_core::feedback::snapshot::RestoreError;

    #[derive(Debug, PartialEq)]
    struct Undecodable(u32);
    impl core::fmt::Display for Undecodable {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            write!(f, "byte {} is not a tuple", self.0)
        }
    }
    impl Error for Undecodable {}

    wraps(&RestoreError::Decode(Undecodable(4711)), &Undecodable(4711));
    // The decoders' own errors qualify, so `restore`'s error is an `Error`.
    fn is_error<E: Error + 'static>() {}
    is_error::<RestoreError<postcard::Error>>();
    is_error::<RestoreError<serde_json::Error>>();
    let fresh: RestoreError<Undecodable> = RestoreError::NotFresh;
    assert!(fresh.source().is_none());
    message(&fresh);
}

/// An unknown rule name is answered with the names that parse: every one of them is in the
/// message, and each listed name is accepted by the parser (`EPS`, `LAMBDA` and `N` with a
/// number put in).
#[test]
fn an_unknown_rule_lists_the_rules() {
    use costbo_core::policy::{PolicySpec, RuleDefaults, RULES};
    let m = message(&PolicySpecError::UnknownName);
    let listed = m
        .split_once("; the rules are ")
        .expect("the message lists the rules")
        .1;
    let names: Vec<&str> = listed.split(", ").collect();
    assert_eq!(names, RULES.iter().map(|r| r.name).collect::<Vec<_>>());
    assert!(
        names.len() >= 10,
        "every rule of all-policies is listed: {names:?}"
    );
    for name in names {
        let written = name
            .replace("EPS", "0.1")
            .replace("LAMBDA", "0.01")
            .replace("BETA", "10")
            .replace("etc-N", "etc-7");
        let parsed = PolicySpec::<f64>::parse(&written, &RuleDefaults::new(0.0));
        assert!(parsed.is_ok(), "{written}: {:?}", parsed.err());
    }
    assert_eq!(
        PolicySpec::<f64>::parse("no-such-rule", &RuleDefaults::new(0.0)).err(),
        Some(PolicySpecError::UnknownName)
    );
}
