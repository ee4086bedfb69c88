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
