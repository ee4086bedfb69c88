//! The fuzz targets of `fuzz/` on stable Rust: every committed corpus file
//! (`fuzz/seeds/<target>/*`: seeds, and every input a fuzzing run found a
//! problem with) goes through the same target body libFuzzer runs
//! (`fuzz/src/`, included here by path), so the corpora are exercised by
//! every `cargo test`, with or without nightly and cargo-fuzz.
//! scripts/fuzz.sh runs the real fuzzers.
//!
//! `NCZARR_RS_WRITE_SEEDS=1 cargo test --release --test fuzz_corpus
//! write_seed_corpora` regenerates the hand-made seeds.

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};

fn seeds_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target)
}

/// Runs every corpus file of `target`; a panic names the file.
fn replay(target: &str) {
    let run = targets::TARGETS.iter().find(|(n, _)| *n == target).expect("a target").1;
    let mut files: Vec<PathBuf> = std::fs::read_dir(seeds_dir(target))
        .unwrap_or_else(|e| panic!("fuzz/seeds/{target}: {e}"))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "fuzz/seeds/{target} is empty");
    for f in &files {
        let data = std::fs::read(f).expect("a readable corpus file");
        if std::panic::catch_unwind(|| run(&data)).is_err() {
            panic!("fuzz target {target} fails on {}", f.display());
        }
    }
    println!("{target}: {} corpus files replayed", files.len());
}

macro_rules! replay_tests {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            replay(stringify!($name));
        }
    )*};
}
replay_tests!(metadata, codec, url, zip, attrs, store, zarr3, aggregate);

#[test]
fn every_target_has_a_replay_test() {
    let names: Vec<&str> = targets::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["metadata", "codec", "url", "zip", "attrs", "store", "zarr3", "aggregate"]);
    for n in names {
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fuzz/fuzz_targets/{n}.rs")).is_file(), "{n}");
    }
}

#[test]
fn write_seed_corpora() {
    if std::env::var("NCZARR_RS_WRITE_SEEDS").as_deref() != Ok("1") {
        return;
    }
    for (target, name, data) in targets::seeds::all() {
        let dir = seeds_dir(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), data).unwrap();
    }
}
