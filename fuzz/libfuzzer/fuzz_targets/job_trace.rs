#![no_main]
//! cargo-fuzz entry of costbo_fuzz::job_trace (the properties are documented there).

libfuzzer_sys::fuzz_target!(|data: &[u8]| costbo_fuzz::job_trace(data));
