//! Every study of `costbo reproduce`, in the order of the command's help, and the one check of
//! a request against the study it names.

use crate::study::{Request, Setting, Study};

/// Every study: papers 000 to 004, then our variants against the papers' best methods.
pub static STUDIES: &[&dyn Study] = &[
    &crate::reproduce::cvs::UcbCvs,
    &crate::reproduce::unknown_cost::UnknownCost,
    &crate::pandora::study::Pandora,
    &crate::feedback::study::CostlyFeedback,
    &crate::causal::study::Causal,
    &crate::variants::Variants,
];

/// The study called `name`.
pub fn find(name: &str) -> Option<&'static dyn Study> {
    STUDIES.iter().copied().find(|s| s.name() == name)
}

/// Refuses an option the study does not take (it would be ignored): `--rounds applies only
/// to `reproduce causal`` when one study takes it, else `--quick does not apply to `reproduce
/// variants``.
pub fn check(study: &dyn Study, request: &Request) -> Result<(), String> {
    let Some(&setting) = Setting::ALL
        .iter()
        .find(|&&s| request.gives(s) && !study.takes().contains(&s))
    else {
        return Ok(());
    };
    let takers: Vec<&str> = STUDIES
        .iter()
        .filter(|s| s.takes().contains(&setting))
        .map(|s| s.name())
        .collect();
    Err(match takers[..] {
        [only] => format!("{} applies only to `reproduce {only}`", setting.flag()),
        _ => format!(
            "{} does not apply to `reproduce {}`",
            setting.flag(),
            study.name()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_study_is_found_by_its_name_once() {
        let names: Vec<&str> = STUDIES.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "ucb-cvs",
                "unknown-cost",
                "pandora",
                "costly-feedback",
                "causal",
                "variants"
            ]
        );
        for s in STUDIES {
            assert_eq!(find(s.name()).map(|f| f.name()), Some(s.name()));
            assert!(!s.help().is_empty());
        }
        assert!(find("nosuch").is_none());
    }

    #[test]
    fn an_option_a_study_does_not_take_is_refused_with_who_takes_it() {
        let get = |name| find(name).unwrap();
        let none = Request::default();
        for s in STUDIES {
            assert_eq!(check(*s, &none), Ok(()), "{}", s.name());
        }
        let rounds = Request {
            rounds: Some(5),
            ..Request::default()
        };
        assert_eq!(check(get("causal"), &rounds), Ok(()));
        assert_eq!(
            check(get("pandora"), &rounds),
            Err("--rounds applies only to `reproduce causal`".into())
        );
        let lengthscale = Request {
            lengthscale: Some(0.5),
            ..Request::default()
        };
        assert_eq!(
            check(get("causal"), &lengthscale),
            Err("--lengthscale applies only to `reproduce costly-feedback`".into())
        );
        let quick = Request {
            quick: true,
            ..Request::default()
        };
        assert_eq!(
            check(get("variants"), &quick),
            Err("--quick does not apply to `reproduce variants`".into())
        );
        // Options that were once taken and ignored: a shard of a study without shards, the
        // verdicts' seed count of a study whose verdicts fix it.
        let shard = Request {
            shard: Some(crate::experiment::Shard::WHOLE),
            ..Request::default()
        };
        assert_eq!(
            check(get("causal"), &shard),
            Err("--shard does not apply to `reproduce causal`".into())
        );
        let min_seeds = Request {
            min_seeds: Some(3),
            ..Request::default()
        };
        assert!(check(get("ucb-cvs"), &min_seeds).is_ok());
        assert_eq!(
            check(get("pandora"), &min_seeds),
            Err("--min-seeds does not apply to `reproduce pandora`".into())
        );
    }

    #[test]
    fn default_outputs_keep_smoke_runs_out_of_docs() {
        let s = find("costly-feedback").unwrap();
        let paper = s.outputs(&Request::default());
        assert_eq!(
            paper.out,
            std::path::Path::new("results/reproduce-costly-feedback")
        );
        assert_eq!(
            paper.report,
            std::path::Path::new("docs/results/costly-feedback.md")
        );
        let quick = s.outputs(&Request {
            quick: true,
            ..Request::default()
        });
        assert_eq!(
            quick.out,
            std::path::Path::new("results/reproduce-costly-feedback-quick")
        );
        assert_eq!(
            quick.report,
            std::path::Path::new("results/reproduce-costly-feedback-quick/costly-feedback.md")
        );
        let given = s.outputs(&Request {
            out: Some("x".into()),
            ..Request::default()
        });
        assert_eq!(given.report, std::path::Path::new("x/costly-feedback.md"));
        assert_eq!(find("causal").unwrap().min_seeds(), 3);
        assert_eq!(
            find("ucb-cvs").unwrap().min_seeds(),
            crate::study::MIN_SEEDS
        );
    }
}
