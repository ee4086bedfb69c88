//! The bodies of nczarr-rs's fuzz targets, shared by the libFuzzer binaries
//! (`fuzz_targets/*.rs`, run by `cargo fuzz`, see scripts/fuzz.sh) and the
//! stable replay of the committed corpora (`tests/fuzz_corpus.rs`, which
//! includes this file by path).
//!
//! Each `run(data)` must return normally for every input: a panic, an abort
//! or a sanitizer report is a finding. Bad input is expected to come back as
//! an error; where a target can tell what the right answer is (a round trip,
//! data written then read back), a wrong answer panics too.

pub mod aggregate;
pub mod attrs;
pub mod codec;
pub mod input;
pub mod metadata;
pub mod seeds;
pub mod slab;
pub mod store;
pub mod url;
pub mod walk;
pub mod zarr3;
pub mod zip;

/// A target's body.
pub type Target = fn(&[u8]);

/// Every target: its name (the binary in `fuzz_targets/`, the folder under
/// `fuzz/seeds/`) and its body.
pub const TARGETS: &[(&str, Target)] = &[
    ("metadata", metadata::run),
    ("codec", codec::run),
    ("url", url::run),
    ("zip", zip::run),
    ("attrs", attrs::run),
    ("store", store::run),
    ("zarr3", zarr3::run),
    ("aggregate", aggregate::run),
    ("slab", slab::run),
];

/// Resource limits small enough that a hostile size is refused long before
/// libFuzzer's 2 GB memory limit (a refusal, `NC_ENOMEM`, is a correct
/// answer; an allocation the library's limits allow is not a finding).
/// Called first by every target; the limits are read once per process.
pub fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for (name, value) in [
            ("NCZARR_RS_MAX_CHUNK_BYTES", "16777216"),
            ("NCZARR_RS_MAX_OBJECT_BYTES", "16777216"),
            ("NCZARR_RS_MAX_METADATA_BYTES", "1048576"),
            ("NCZARR_RS_FSYNC", "0"),
        ] {
            if std::env::var_os(name).is_none() {
                std::env::set_var(name, value);
            }
        }
    });
}

/// A private scratch directory of this process for targets that need files
/// (removed and made again by each caller as it needs).
pub fn scratch_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nczarr-rs-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    dir
}

/// A name unique within this process, for stores of concurrent replays
/// (the stable tests run targets on several threads).
pub fn unique(prefix: &str) -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!("{prefix}-{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}
