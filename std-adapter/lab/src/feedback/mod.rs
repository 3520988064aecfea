//! Paper 003, costly feedback on a drifting function: the synthetic study's generator and
//! trials ([`synthetic`]), the time-varying three-armed bandits and their classical baselines
//! ([`bandits`]), the reproduction (`costbo reproduce costly-feedback`, [`study`]), and online
//! learning-rate tuning with paid validations, the CPU analogue of the paper's STN and SimCLR
//! studies ([`tuning`]).

pub mod bandits;
pub mod study;
pub mod synthetic;
pub mod temporal;
pub mod tuning;
pub mod tuning_study;
