//! Paper 003, costly feedback on a drifting function: the time-varying bandit study's
//! environments and its classical baselines with Bernoulli feedback ([`bandits`]).

pub mod bandits;
