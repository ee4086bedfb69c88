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
    // header; make sure its prototype pattern sees every exported function.
    let header = include_str!(concat!(env!("OUT_DIR"), "/nczarr_rs.h"));
    let prototypes = header
        .lines()
        .filter(|l| {
            !l.starts_with(' ')
                && l.contains('(')
                && !l.starts_with('#')
                && !l.starts_with("//")
                && !l.starts_with(" *")
                && !l.starts_with("/*")
        })
        .count();
    let exports = exported_functions().len();
    assert!(prototypes >= exports, "{prototypes} prototype lines for {exports} exports");
}

#[test]
fn every_export_is_declared_in_the_header() {
    let header = include_str!(concat!(env!("OUT_DIR"), "/nczarr_rs.h"));
    for (name, _) in exported_functions() {
        assert!(header.contains(&format!(" {name}(")) || header.contains(&format!("*{name}(")), "{name} missing");
    }
}
