//! libFuzzer entry of the `zarr3` target; the body is `nczarr_rs_fuzz::zarr3::run`
//! (shared with the stable corpus replay, tests/fuzz_corpus.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nczarr_rs_fuzz::zarr3::run(data));
