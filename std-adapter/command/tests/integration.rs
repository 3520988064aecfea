//! costbo-lab's integration tests (most run the `costbo` command): one module per subject, in
//! one test binary, so that the lab is linked into one test program instead of eighteen.

#[allow(dead_code)]
mod common;

mod bad_inputs;
mod box2d;
mod causal;
mod causal_study;
mod costly_feedback;
mod device_fake;
mod durable;
mod durable_studies;
mod experiment;
mod gp_cli;
mod hostile;
mod objectives;
mod optimizer_runner;
mod output;
mod pandora;
mod pandora_loop;
mod pandora_objectives;
mod reproduce;
mod shard;
