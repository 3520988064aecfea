//! Causal graphs, possibly-optimal mixed policy scopes and the benchmark structural causal
//! models of paper 004 (contextual causal BO), host side.
//!
//! - [`nodeset`]: node sets as bit masks;
//! - [`dag`]: mixed graphs (latent confounders as bidirected edges), do, d-separation;
//! - [`graph`]: causal graphs from TOML, with typed errors;
//! - [`scope`]: mixed policy scopes and the graphs they induce;
//! - [`pomps`]: POMPS enumeration and arms;
//! - [`pomis`]: POMIS on the latent projection (the CaBO baseline's sets);
//! - [`arms`]: the arm table, computed or hand-written;
//! - [`bandit`]: the core controller played on the environments, with regret per round;
//! - [`scm`]: random numbers and quadrature for the simulators;
//! - [`envs`]: the five environments with their optima;
//! - [`study`]: `costbo reproduce causal`, the report with figures and verdicts;
//!
//! See docs/causal.md.

pub mod arms;
pub mod bandit;
pub mod dag;
pub mod envs;
pub mod exact;
pub mod graph;
pub mod nodeset;
pub mod paired;
pub mod pomis;
pub mod pomps;
pub mod scm;
pub mod scope;
pub mod study;
