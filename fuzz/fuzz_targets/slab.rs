//! libFuzzer entry of the `slab` target; the body is `nczarr_rs_fuzz::slab::run`
//! (shared with the stable corpus replay, tests/fuzz_corpus.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nczarr_rs_fuzz::slab::run(data));
