//! libFuzzer entry of the `store` target; the body is `nczarr_rs_fuzz::store::run`
//! (shared with the stable corpus replay, tests/fuzz_corpus.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nczarr_rs_fuzz::store::run(data));
