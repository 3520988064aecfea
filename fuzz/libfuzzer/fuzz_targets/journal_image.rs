#![no_main]
//! cargo-fuzz entry of costbo_fuzz::journal_image (the properties are documented there).

libfuzzer_sys::fuzz_target!(|data: &[u8]| costbo_fuzz::journal_image(data));
