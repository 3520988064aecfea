#![no_main]
//! cargo-fuzz entry of costbo_fuzz::external_answer (the properties are documented there).

libfuzzer_sys::fuzz_target!(|data: &[u8]| costbo_fuzz::external_answer(data));
