//! The committed header must be what cbindgen generates from the source, and
//! every exported function must run inside the panic boundary.

use std::fs;
use std::path::Path;

#[test]
fn committed_header_is_current() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/nczarr_rs.h"));
    let committed = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/nczarr_rs.h")).unwrap();
    assert!(
        generated == committed,
        "include/nczarr_rs.h is stale: regenerate it with `NCZARR_RS_UPDATE_HEADER=1 cargo build` and commit it"
    );
}

/// The files `build.rs` generates into `$OUT_DIR` from
/// codegen/typed_exports.rs, which src/ffi/data.rs and src/ffi/atts.rs
/// include: the typed families (`nc_get_vara_float`, `nc_put_att_int`, ...).
const GENERATED: [&str; 2] = ["ffi_data_exports.rs", "ffi_atts_exports.rs"];

/// (function name, body) of every exported (`#[no_mangle]`) function under
/// src/ffi and in the generated files.
fn exported_functions() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    for entry in fs::read_dir(dir).unwrap() {
        out.extend(exports_in(&fs::read_to_string(entry.unwrap().path()).unwrap()));
    }
    out.extend(generated_exports());
    out.sort();
    out
}

/// (function name, body) of the exports in the generated files.
fn generated_exports() -> Vec<(String, String)> {
    GENERATED
        .iter()
        .flat_map(|f| exports_in(&fs::read_to_string(Path::new(env!("OUT_DIR")).join(f)).unwrap()))
        .collect()
}

/// (function name, body) of the `#[no_mangle]` functions of one source file.
fn exports_in(src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find("#[no_mangle]") {
        rest = &rest[i..];
        let Some(j) = rest.find("extern \"C\" fn ") else { break };
        rest = &rest[j + "extern \"C\" fn ".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // The body runs from the first '{' after the signature to the next
        // top-level `}` at column 0.
        let open = rest.find('{').unwrap();
        let close = rest[open..].find("\n}").unwrap() + open;
        out.push((name, rest[open..close].to_string()));
    }
    out
}

/// The names of the functions the header declares (one prototype starts on
/// a line at column 0: `int nc_close(int ncid);`, `const char *nc_inq_libvers(void);`).
fn header_functions(header: &str) -> Vec<&str> {
    header
        .lines()
        .filter(|l| {
            !l.starts_with(' ')
                && l.contains('(')
                && !l.starts_with('#')
                && !l.starts_with("//")
                && !l.starts_with(" *")
                && !l.starts_with("/*")
        })
        .map(|l| {
            let head = &l[..l.find('(').unwrap()];
            let start = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
            &head[start..]
        })
        .collect()
}

#[test]
fn every_export_runs_inside_the_panic_boundary() {
    let fns = exported_functions();
    assert!(fns.len() >= 13, "found only {} exported functions", fns.len());
    for (name, body) in &fns {
        if name == "nczarr_rs_test_inject_panic" {
            assert!(body.contains("catch_unwind"), "{name} must catch panics");
            continue;
        }
        let guarded = body.contains(&format!("guard(\"{name}\"")) || body.contains(&format!("guard_or(\"{name}\""));
        assert!(guarded, "{name} does not run its body inside guard(\"{name}\", ..)");
    }
}

#[test]
fn the_c_panic_test_covers_every_export() {
    // ctest/gen_panic_calls.py generates one armed call per prototype of the
    // header: run it on the header, and compare the functions it calls with
    // the exports, name by name.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let inc = out.path().join("panic_calls.inc");
    let python = std::env::var("NCZARR_RS_PYTHON").unwrap_or_else(|_| "python3".into());
    let run = std::process::Command::new(&python)
        .arg(root.join("ctest/gen_panic_calls.py"))
        .arg(concat!(env!("OUT_DIR"), "/nczarr_rs.h"))
        .arg(&inc)
        .output()
        .unwrap_or_else(|e| panic!("{python}: {e}"));
    assert!(run.status.success(), "gen_panic_calls.py: {}", String::from_utf8_lossy(&run.stderr));
    let calls = fs::read_to_string(&inc).unwrap();
    let mut armed: Vec<&str> = calls.lines().filter_map(|l| l.split("ARM(\"").nth(1)?.split('"').next()).collect();
    armed.sort();
    let expected_line = format!("#define PANIC_CALLS_EXPECTED {}", armed.len());
    assert!(calls.contains(&expected_line), "{expected_line} missing from:\n{calls}");
    // not armed by the C test: the hook itself, and nc_create_par/nc_open_par
    // (declared only with <mpi.h>; their Fortran twins are armed)
    let skipped = ["nczarr_rs_test_inject_panic", "nc_create_par", "nc_open_par"];
    let exports: Vec<String> = exported_functions().into_iter().map(|(n, _)| n).collect();
    for s in skipped {
        assert!(exports.iter().any(|e| e == s), "{s} is no longer exported: drop it from the skip lists");
    }
    let expected: Vec<&str> = exports.iter().map(String::as_str).filter(|n| !skipped.contains(n)).collect();
    let unarmed: Vec<_> = expected.iter().filter(|n| !armed.contains(n)).collect();
    let unknown: Vec<_> = armed.iter().filter(|n| !expected.contains(n)).collect();
    assert!(
        unarmed.is_empty() && unknown.is_empty(),
        "exports test_panic_boundary.c does not arm: {unarmed:?}; what it arms that is not exported: {unknown:?}"
    );
    assert_eq!(armed.len(), expected.len(), "a function armed twice");
}

#[test]
fn every_export_is_declared_in_the_header() {
    let header = include_str!(concat!(env!("OUT_DIR"), "/nczarr_rs.h"));
    for (name, _) in exported_functions() {
        assert!(header.contains(&format!(" {name}(")) || header.contains(&format!("*{name}(")), "{name} missing");
    }
}

#[test]
fn the_scan_finds_every_function_of_the_header() {
    // The header declares what cbindgen saw (the generated families
    // included): the scan above must find each of them, so that the panic
    // boundary check covers them all. nc_advise, in the trailer of
    // cbindgen.toml, is C (src/ffi/advise.c).
    let header = include_str!(concat!(env!("OUT_DIR"), "/nczarr_rs.h"));
    let found: std::collections::BTreeSet<String> = exported_functions().into_iter().map(|(n, _)| n).collect();
    let missing: Vec<&str> =
        header_functions(header).into_iter().filter(|n| !found.contains(*n) && *n != "nc_advise").collect();
    assert!(missing.is_empty(), "the scan of src/ffi and the generated files misses {missing:?}");
}

#[test]
fn the_typed_families_are_generated_whole() {
    // 5 access families (var1, vara, vars, varm, var) x get/put x 15 memory
    // types (untyped, text, schar, uchar, short, int, long, float, double,
    // ubyte, ushort, uint, longlong, ulonglong, string), and the attribute
    // get/put x the same 15.
    let fns = generated_exports();
    assert_eq!(fns.len(), 5 * 2 * 15 + 2 * 15, "generated exports");
    for (name, body) in &fns {
        // Routed first: a call on another libnetcdf's ncid goes there.
        assert!(
            body.trim_start_matches(['{', ' ', '\n']).starts_with(&format!("by_ncid!(ncid => {name}(")),
            "{name} does not start with by_ncid!"
        );
    }
    for needle in [
        "nc_get_vara_float",
        "nc_put_var1_int",
        "nc_get_varm_string",
        "nc_put_var_ulonglong",
        "nc_put_att_text",
        "nc_get_att_long",
    ] {
        assert!(fns.iter().any(|(n, _)| n == needle), "{needle} not generated");
    }
}
