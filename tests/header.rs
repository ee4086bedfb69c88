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

/// (function name, body) of every exported (`#[no_mangle]`) function under
/// src/ffi.
fn exported_functions() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    for entry in fs::read_dir(dir).unwrap() {
        let src = fs::read_to_string(entry.unwrap().path()).unwrap();
        let mut rest = src.as_str();
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
    }
    out.sort();
    out
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
