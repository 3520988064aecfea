//! Paper 003, costly feedback on a drifting function: the synthetic study's generator and
//! trials ([`synthetic`]), the time-varying three-armed bandits and their classical baselines
//! ([`bandits`]), and the reproduction (`costbo reproduce costly-feedback`, [`study`]).

pub mod bandits;
pub mod study;
pub mod synthetic;
