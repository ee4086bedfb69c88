//! The fuzz targets of `fuzz/` on stable Rust: every committed corpus file
//! (`fuzz/seeds/<target>/*`: seeds, and every input a fuzzing run found a
//! problem with) goes through the same target body libFuzzer runs
//! (`fuzz/src/`, included here by path), so the corpora are exercised by
//! every `cargo test`, with or without nightly and cargo-fuzz.
//! scripts/fuzz.sh runs the real fuzzers.
//!
//! `NCZARR_RS_WRITE_SEEDS=1 cargo test --release --test fuzz_corpus
//! committed_seeds` regenerates the hand-made seeds; without it, that test
//! checks the committed ones are current.

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
replay_tests!(metadata, codec, url, zip, attrs, store, zarr3, aggregate, slab);

#[test]
fn every_target_has_a_replay_test() {
    let names: Vec<&str> = targets::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["metadata", "codec", "url", "zip", "attrs", "store", "zarr3", "aggregate", "slab"]);
    for n in names {
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fuzz/fuzz_targets/{n}.rs")).is_file(), "{n}");
    }
}

/// The `slab` target on pseudo-random inputs for `NCZARR_RS_FUZZ_SECONDS`
/// (default 2) seconds, from the seed `NCZARR_RS_FUZZ_SEED` (printed) or
/// the clock: a stable, bounded stand-in for libFuzzer's mutations.
#[test]
fn slab_random_inputs() {
    let seconds: f64 = std::env::var("NCZARR_RS_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let seed: u64 = std::env::var("NCZARR_RS_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    println!("slab_random_inputs: NCZARR_RS_FUZZ_SEED={seed}");
    let until = std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds);
    let mut n = 0u64;
    while std::time::Instant::now() < until {
        let input = targets::seeds::pseudo_random(16 + (n as usize * 7) % 240, seed.wrapping_add(n));
        if std::panic::catch_unwind(|| targets::slab::run(&input)).is_err() {
            panic!("slab fails on input {n} of NCZARR_RS_FUZZ_SEED={seed}: {input:?}");
        }
        n += 1;
    }
    println!("slab_random_inputs: {n} inputs");
}

/// The committed hand-made seeds (`fuzz/seeds/<target>/seed-*`) are exactly
/// what `fuzz/src/seeds.rs` makes: none changed, missing or left over
/// (`finding-*` files are fuzzing's, not made). With
/// `NCZARR_RS_WRITE_SEEDS=1` it writes them instead.
#[test]
fn committed_seeds_are_what_the_seed_writer_makes() {
    let made = targets::seeds::all();
    if std::env::var("NCZARR_RS_WRITE_SEEDS").as_deref() == Ok("1") {
        for (target, name, data) in &made {
            let dir = seeds_dir(target);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(name), data).unwrap();
        }
    }
    let regenerate = "regenerate: NCZARR_RS_WRITE_SEEDS=1 cargo test --release --test fuzz_corpus committed_seeds";
    let mut made_names: Vec<String> = Vec::new();
    for (target, name, data) in &made {
        assert!(name.starts_with("seed-"), "{target}/{name}: hand-made seeds are named seed-*");
        let path = seeds_dir(target).join(name);
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; {regenerate}", path.display()));
        assert!(committed == *data, "{} differs from what seeds.rs makes; {regenerate}", path.display());
        made_names.push(format!("{target}/{name}"));
    }
    let mut left_over: Vec<String> = Vec::new();
    for (target, _) in targets::TARGETS {
        for e in std::fs::read_dir(seeds_dir(target)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name.starts_with("seed-") {
                let name = format!("{target}/{name}");
                if !made_names.contains(&name) {
                    left_over.push(name);
                }
            } else {
                assert!(name.starts_with("finding-"), "fuzz/seeds/{target}/{name}: neither seed-* nor finding-*");
            }
        }
    }
    assert!(left_over.is_empty(), "committed seed-* files that seeds.rs does not make: {left_over:?}");
}
