//! Paper 003, costly feedback on a drifting function: the synthetic study's generator and
//! trials ([`synthetic`]) and the reproduction (`costbo reproduce costly-feedback`,
//! [`study`]).

pub mod study;
pub mod synthetic;
