#![no_main]
//! cargo-fuzz entry of costbo_fuzz::run_config (the properties are documented there).

libfuzzer_sys::fuzz_target!(|data: &[u8]| costbo_fuzz::run_config(data));
