//! Generates the C header from the Rust source with cbindgen.
//!
//! The header is written to `$OUT_DIR/nczarr_rs.h`. The copy committed in
//! `include/nczarr_rs.h` is checked against it by `tests/header.rs`; run
//! `NCZARR_RS_UPDATE_HEADER=1 cargo build` to refresh the committed copy.
//!
//! It also writes the typed families of the C API (`nc_get_vara_float`,
//! `nc_put_att_int`, ...) from the table in `codegen/typed_exports.rs` into
//! `$OUT_DIR`, where `src/ffi/data.rs` and `src/ffi/atts.rs` include them,
//! and gives cbindgen a copy of `src/` with those `include!`s expanded.

#[path = "codegen/typed_exports.rs"]
mod typed_exports;

use std::env;
use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=codegen");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=NCZARR_RS_UPDATE_HEADER");

    let (data, atts) = (typed_exports::data_exports(), typed_exports::att_exports());
    std::fs::write(out_dir.join(typed_exports::DATA_FILE), &data).expect("OUT_DIR is writable");
    std::fs::write(out_dir.join(typed_exports::ATTS_FILE), &atts).expect("OUT_DIR is writable");
    let cbindgen_src = out_dir.join("cbindgen-src");
    typed_exports::splice(
        &crate_dir.join("src"),
        &cbindgen_src,
        &[(typed_exports::DATA_FILE, &data), (typed_exports::ATTS_FILE, &atts)],
    );

    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is valid");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(cbindgen_src.join("lib.rs"))
        .generate()
        .expect("cbindgen can parse the crate");
    let mut raw = Vec::new();
    bindings.write(&mut raw);
    let header = parenthesize_negative_defines(&String::from_utf8(raw).expect("cbindgen writes UTF-8"));
    std::fs::write(out_dir.join("nczarr_rs.h"), &header).expect("OUT_DIR is writable");
    if env::var("NCZARR_RS_UPDATE_HEADER").as_deref() == Ok("1") {
        std::fs::write(crate_dir.join("include/nczarr_rs.h"), &header).expect("include/ is writable");
    }
    println!("cargo:include={}", crate_dir.join("include").display());
    build_advise_shim(&out_dir);
    if env::var_os("CARGO_FEATURE_MPI").is_some() {
        build_mpi_shim();
    }
    // A versioned SONAME, so that the installed library can follow the usual
    // libX.so -> libX.so.0 -> libX.so.0.1.0 layout.
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnczarr_rs.so.0");
        // Calls inside the library bind to the library's own functions, even
        // when a process also loads netCDF-C's libnetcdf (which exports the
        // same nc_* names): needed when netCDF-C dispatches to us as a UDF.
        println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    }
}

/// `nc_advise` is variadic, which stable Rust cannot define: it is a few
/// lines of C (src/ffi/advise.c) that format the message for the Rust
/// `nczarr_rs_advise`. rustc's version script hides the C symbols of a
/// cdylib, so a second one exports `nc_advise` (as `nc_advise@@NCZARR_RS_0`;
/// unversioned references bind to it).
fn build_advise_shim(out_dir: &std::path::Path) {
    println!("cargo:rerun-if-changed=src/ffi/advise.c");
    cc::Build::new()
        .file("src/ffi/advise.c")
        .warnings(true)
        .link_lib_modifier("+whole-archive")
        .compile("nczarr_rs_advise");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let script = out_dir.join("nczarr_rs_advise.map");
        std::fs::write(&script, "NCZARR_RS_0 { global: nc_advise; };\n").expect("OUT_DIR is writable");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", script.display());
    }
}

/// The MPI build (feature `mpi`): src/ffi/mpi_shim.c, compiled with the
/// system's MPI compiler wrapper (`$MPICC`, else `mpicc`), and the library
/// linked with the flags that wrapper gives: `mpicc -showme:link` (Open
/// MPI), else `mpicc -link_info` or `mpicc -show` (MPICH), whose first
/// word is the compiler. docs/PARALLEL.md, "Building with MPI".
fn build_mpi_shim() {
    println!("cargo:rerun-if-env-changed=MPICC");
    println!("cargo:rerun-if-changed=src/ffi/mpi_shim.c");
    let mpicc = env::var("MPICC").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "mpicc".to_string());
    let run = |args: &[&str]| -> Option<String> {
        let out = std::process::Command::new(&mpicc).args(args).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let flags = match run(&["-showme:link"]) {
        Some(open_mpi) => open_mpi,
        None => {
            let mpich = run(&["-link_info"]).or_else(|| run(&["-show"])).unwrap_or_else(|| {
                panic!("the `mpi` feature needs MPI's compiler wrapper: `{mpicc} -showme:link`, `-link_info` and `-show` all failed (set MPICC, or install libopenmpi-dev / libmpich-dev)")
            });
            // MPICH prints the whole command: the compiler first
            mpich.split_once(char::is_whitespace).map(|(_, rest)| rest.to_string()).unwrap_or_default()
        }
    };
    cc::Build::new().compiler(&mpicc).file("src/ffi/mpi_shim.c").warnings(true).compile("nczarr_rs_mpi");
    for flag in link_flags(&flags) {
        println!("{flag}");
    }
}

/// Cargo's instructions for a compiler driver's link flags: `-L` and `-l`
/// as search paths and libraries, linker options (`-Wl,..`, `-Xlinker ..`,
/// `-pthread`) as link arguments; compile flags (`-I`, `-D`, ...) are not
/// the linker's and are left out.
fn link_flags(flags: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = flags.split_whitespace();
    while let Some(w) = words.next() {
        if let Some(dir) = w.strip_prefix("-L") {
            out.push(format!("cargo:rustc-link-search=native={dir}"));
        } else if let Some(lib) = w.strip_prefix("-l") {
            out.push(format!("cargo:rustc-link-lib={lib}"));
        } else if w.starts_with("-Wl,") || w == "-pthread" {
            out.push(format!("cargo:rustc-link-arg={w}"));
        } else if w == "-Xlinker" {
            if let Some(arg) = words.next() {
                out.push("cargo:rustc-link-arg=-Xlinker".to_string());
                out.push(format!("cargo:rustc-link-arg={arg}"));
            }
        }
    }
    assert!(
        out.iter().any(|f| f.starts_with("cargo:rustc-link-lib=")),
        "MPI's compiler wrapper names no library to link: {flags:?}"
    );
    out
}

/// `#define NC_EBADID -33` becomes `#define NC_EBADID (-33)`, as in netCDF-C,
/// so that expressions such as `x-NC_EBADID` stay valid C.
fn parenthesize_negative_defines(header: &str) -> String {
    let mut out = String::with_capacity(header.len() + 256);
    for line in header.lines() {
        let mut parts = line.splitn(3, ' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("#define"), Some(name), Some(value))
                if value.starts_with('-') && value[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                out.push_str(&format!("#define {name} ({value})"));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}
