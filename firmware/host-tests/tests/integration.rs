//! The firmware's host tests: one module per subject, in one test binary, so that the
//! firmware's controllers are compiled and linked into one test program instead of nine.

mod app;
mod causal;
mod causal_dosing;
mod costly_measurement;
mod drivers;
mod experiment;
mod feedback;
mod flash;
mod pandora;
