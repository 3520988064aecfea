//! costbo-core's integration tests: one module per subject, in one test binary, so that the
//! core's generic code they instantiate is compiled and linked once (as 18 binaries they took
//! 264 s of the CI machine's CPU to build, 2026-11-28). A module that needs optional features
//! of the core is compiled only when they are on.

#[cfg(feature = "test-functions")]
#[allow(dead_code)]
mod common;

#[cfg(feature = "bandit-baselines")]
mod bandit;
mod botorch_gumbel;
#[cfg(feature = "causal")]
mod causal;
#[cfg(all(feature = "causal", feature = "refit"))]
mod causal_fitted;
#[cfg(all(feature = "causal", feature = "refit", feature = "serde"))]
mod causal_snapshot;
#[cfg(feature = "policy-random-search")]
mod cost_model;
#[cfg(all(feature = "all-policies", feature = "test-functions"))]
mod driver;
mod error_messages;
mod expectation_fast;
mod feedback;
#[cfg(all(feature = "serde", feature = "link"))]
mod feedback_snapshot;
#[cfg(all(
    feature = "serde",
    feature = "policy-gittins-cvs",
    feature = "test-functions"
))]
mod gittins_cvs;
#[cfg(all(feature = "journal", feature = "policy-unknown-cost"))]
mod journal;
#[cfg(feature = "policy-kg")]
mod kg;
#[cfg(feature = "link")]
mod link;
#[cfg(all(
    feature = "journal",
    feature = "serde",
    feature = "policy-explore-then-commit",
    feature = "policy-unknown-cost",
    feature = "test-functions"
))]
mod measurement;
#[cfg(feature = "policy-mes")]
mod mes;
#[cfg(feature = "policy-msei")]
mod msei;
#[cfg(all(feature = "policy-pbgi", feature = "policy-log-ei"))]
mod pandora;
#[cfg(feature = "all-policies")]
mod policy;
#[cfg(all(feature = "all-policies", feature = "test-functions"))]
mod replay;
#[cfg(all(feature = "serde", feature = "all-policies"))]
mod snapshot;
#[cfg(all(feature = "serde", feature = "link", feature = "all-policies"))]
mod snapshot_bytes;
#[cfg(feature = "test-functions")]
mod thompson_factorised;
#[cfg(any(feature = "policy-kg", feature = "policy-mes", feature = "policy-msei"))]
#[allow(dead_code)]
mod unit_square;
