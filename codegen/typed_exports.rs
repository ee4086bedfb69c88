//! The typed families of the C API, written by `build.rs` from one table.
//!
//! netCDF's data functions come in five access families (`var1`, `vara`,
//! `vars`, `varm`, `var`) times get/put times one function a memory type
//! (`nc_get_vara_float`, `nc_put_var1_int`, ...), and its attribute
//! functions in get/put times the same memory types (`nc_put_att_short`).
//! Each is two lines that differ only in names and types, so they are made
//! here, from [`MEM_TYPES`] and [`ACCESS`], as Rust source in `$OUT_DIR`:
//! `src/ffi/data.rs` and `src/ffi/atts.rs` `include!` it. The text is what
//! was written by hand before (doc comments included, since cbindgen copies
//! them into the header): every export routes with `by_ncid!` and runs its
//! body inside `guard("<its name>", ..)`.
//!
//! cbindgen does not expand `include!`, so `build.rs` also writes a copy of
//! `src/` with each `include!` line replaced by the text it includes
//! ([`splice`]) and hands that copy to cbindgen: the prototypes stand in the
//! header where the functions stand in the source, as before.

/// One memory type: the suffix of the C name (`""` for the untyped
/// functions), the C pointer argument of the put and get functions, and the
/// netCDF memory type passed to the engine (`NC_NAT`: the variable's or
/// attribute's own type).
pub struct MemType {
    pub suffix: &'static str,
    pub put: &'static str,
    pub get: &'static str,
    pub nc_type: &'static str,
    /// `nc_put_att_text` and `nc_put_att_string` take no `xtype`: the
    /// attribute's type is the memory type. They come right after the
    /// untyped `nc_put_att` / `nc_get_att`, as in netCDF-C's netcdf.h.
    pub fixed_att_type: bool,
}

const fn mem(suffix: &'static str, put: &'static str, get: &'static str, nc_type: &'static str) -> MemType {
    MemType { suffix, put, get, nc_type, fixed_att_type: false }
}

/// The memory types, in the order of the data exports (the attribute ones
/// take the two of fixed attribute type first). `schar` is
/// `NC_BYTE` and `uchar` `NC_UBYTE` as in netCDF-C; `long` is `LONG_TYPE`
/// (`NC_INT64` on LP64, `NC_INT` where `long` has 32 bits; defined in the
/// including module).
pub const MEM_TYPES: &[MemType] = &[
    mem("", "*const c_void", "*mut c_void", "NC_NAT"),
    MemType { fixed_att_type: true, ..mem("text", "*const c_char", "*mut c_char", "NC_CHAR") },
    mem("schar", "*const c_schar", "*mut c_schar", "NC_BYTE"),
    mem("uchar", "*const c_uchar", "*mut c_uchar", "NC_UBYTE"),
    mem("short", "*const c_short", "*mut c_short", "NC_SHORT"),
    mem("int", "*const c_int", "*mut c_int", "NC_INT"),
    mem("long", "*const c_long", "*mut c_long", "LONG_TYPE"),
    mem("float", "*const c_float", "*mut c_float", "NC_FLOAT"),
    mem("double", "*const c_double", "*mut c_double", "NC_DOUBLE"),
    mem("ubyte", "*const c_uchar", "*mut c_uchar", "NC_UBYTE"),
    mem("ushort", "*const c_ushort", "*mut c_ushort", "NC_USHORT"),
    mem("uint", "*const c_uint", "*mut c_uint", "NC_UINT"),
    mem("longlong", "*const c_longlong", "*mut c_longlong", "NC_INT64"),
    mem("ulonglong", "*const c_ulonglong", "*mut c_ulonglong", "NC_UINT64"),
    MemType { fixed_att_type: true, ..mem("string", "*mut *const c_char", "*mut *mut c_char", "NC_STRING") },
];

/// A C argument: name and Rust type.
type Arg = (&'static str, &'static str);

const INDEX: Arg = ("indexp", "*const usize");
const START: Arg = ("startp", "*const usize");
const COUNT: Arg = ("countp", "*const usize");
const STRIDE: Arg = ("stridep", "*const isize");
const IMAP: Arg = ("imapp", "*const isize");

/// The access families of the data functions: the name part, the index
/// arrays the C function takes (passed to `data::get`/`data::put` as its
/// start, count, stride and map, NULL for the ones it does not take) and the
/// `data::Kind`.
pub const ACCESS: &[(&str, &[Arg], &str)] = &[
    ("var1", &[INDEX], "Var1"),
    ("vara", &[START, COUNT], "Vara"),
    ("vars", &[START, COUNT, STRIDE], "Vars"),
    ("varm", &[START, COUNT, STRIDE, IMAP], "Varm"),
    ("var", &[], "Var"),
];

/// The file `src/ffi/data.rs` includes.
pub const DATA_FILE: &str = "ffi_data_exports.rs";
/// The file `src/ffi/atts.rs` includes.
pub const ATTS_FILE: &str = "ffi_atts_exports.rs";

/// The `include!` line that stands for `file` in the source.
pub fn include_line(file: &str) -> String {
    format!("include!(concat!(env!(\"OUT_DIR\"), \"/{file}\"));")
}

fn name(base: &str, m: &MemType) -> String {
    if m.suffix.is_empty() {
        base.to_string()
    } else {
        format!("{base}_{}", m.suffix)
    }
}

/// One export: doc lines, `(name, C type)` arguments, and the body's call
/// (the routed call and the guard are the same for all).
fn export(out: &mut String, doc: &[&str], name: &str, args: &[Arg], call: &str) {
    for line in doc {
        if line.is_empty() {
            out.push_str("///\n");
        } else {
            out.push_str(&format!("/// {line}\n"));
        }
    }
    let params: Vec<String> = args.iter().map(|(a, t)| format!("{a}: {t}")).collect();
    let names: Vec<&str> = args.iter().map(|(a, _)| *a).collect();
    out.push_str("#[no_mangle]\n");
    out.push_str(&format!("pub unsafe extern \"C\" fn {name}({}) -> c_int {{\n", params.join(", ")));
    out.push_str(&format!("    by_ncid!(ncid => {name}({}));\n", names.join(", ")));
    out.push_str(&format!("    guard(\"{name}\", || {call})\n}}\n\n"));
}

/// `nc_{put,get}_{var1,vara,vars,varm,var}[_type]`, over `data::put` and
/// `data::get`.
pub fn data_exports() -> String {
    let mut out = String::new();
    for (access, index, kind) in ACCESS {
        for dir in ["put", "get"] {
            let base = format!("nc_{dir}_{access}");
            let untyped_doc = [
                "Untyped: the memory holds values of the variable's own type.",
                "",
                "# Safety",
                "The index arrays hold one entry per dimension (or are NULL where netCDF",
                "allows it); the data pointer is valid for the slab.",
            ];
            let typed_doc = format!("As the untyped `{base}`.");
            let mut slab: Vec<&str> = index.iter().map(|(a, _)| *a).collect();
            slab.resize(4, "null()");
            for m in MEM_TYPES {
                let (buf, ptr) = if dir == "put" { ("op", m.put) } else { ("ip", m.get) };
                let mut args = vec![("ncid", "c_int"), ("varid", "c_int")];
                args.extend_from_slice(index);
                args.push((buf, ptr));
                let call =
                    format!("{dir}(ncid, varid, Kind::{kind}, {}, {buf}.cast(), {})", slab.join(", "), m.nc_type);
                let doc: &[&str] = if m.suffix.is_empty() { &untyped_doc } else { &["# Safety", &typed_doc] };
                export(&mut out, doc, &name(&base, m), &args, &call);
            }
        }
    }
    out
}

/// The doc comment of an attribute export (the untyped, text and string
/// ones say more).
fn att_doc(dir: &str, suffix: &str) -> &'static [&'static str] {
    match (dir, suffix) {
        ("put", "") => &[
            "Untyped put: the memory holds values of `xtype`.",
            "",
            "# Safety",
            "`name` is a NUL-terminated string; `op` holds `len` values of `xtype`.",
        ],
        ("put", "text") => &[
            "A text (`NC_CHAR`) attribute of `len` characters.",
            "",
            "# Safety",
            "`name` is a NUL-terminated string; `op` holds `len` characters.",
        ],
        ("put", "string") => &[
            "An `NC_STRING` attribute of `len` strings.",
            "",
            "# Safety",
            "`name` is a NUL-terminated string; `op` holds `len` string pointers.",
        ],
        ("put", _) => &["# Safety", "`name` is a NUL-terminated string; `op` holds `len` values."],
        ("get", "") => &[
            "Untyped get: the values in the attribute's own type.",
            "",
            "# Safety",
            "`name` is a NUL-terminated string; `ip` has room for the values.",
        ],
        ("get", "text") => &[
            "# Safety",
            "`name` is a NUL-terminated string; `ip` has room for the characters (no",
            "NUL is added, as in netCDF-C).",
        ],
        ("get", "string") => &[
            "The strings are `malloc`ed: release them with `nc_free_string`.",
            "",
            "# Safety",
            "`name` is a NUL-terminated string; `ip` has room for the pointers.",
        ],
        _ => &["# Safety", "`name` is a NUL-terminated string; `ip` has room for the attribute's length."],
    }
}

/// `nc_{put,get}_att[_type]`, over `atts::put_att` and `atts::get_att`.
pub fn att_exports() -> String {
    // The untyped functions, then those whose attribute type is fixed, then
    // the rest, each group in table order.
    let mut order: Vec<&MemType> = MEM_TYPES.iter().filter(|m| m.suffix.is_empty()).collect();
    order.extend(MEM_TYPES.iter().filter(|m| m.fixed_att_type));
    order.extend(MEM_TYPES.iter().filter(|m| !m.suffix.is_empty() && !m.fixed_att_type));
    let mut out = String::new();
    for dir in ["put", "get"] {
        for m in &order {
            let mut args = vec![("ncid", "c_int"), ("varid", "c_int"), ("name", "*const c_char")];
            let call = if dir == "put" {
                // The untyped put's memory holds values of `xtype`.
                let (xtype, memtype) = match (m.suffix, m.fixed_att_type) {
                    ("", _) => ("xtype", "xtype"),
                    (_, true) => (m.nc_type, m.nc_type),
                    (_, false) => ("xtype", m.nc_type),
                };
                if !m.fixed_att_type {
                    args.push(("xtype", "nc_type"));
                }
                args.extend([("len", "usize"), ("op", m.put)]);
                format!("put_att(ncid, varid, name, {xtype}, len, op.cast(), {memtype})")
            } else {
                args.push(("ip", m.get));
                format!("get_att(ncid, varid, name, ip.cast(), {})", m.nc_type)
            };
            export(&mut out, att_doc(dir, m.suffix), &name(&format!("nc_{dir}_att"), m), &args, &call);
        }
    }
    out
}

/// Copies the `.rs` files under `src` to `dst`, with each line that is the
/// `include!` of one of `generated` (file name, text) replaced by its text:
/// the crate as cbindgen, which does not expand macros, must see it. Every
/// generated file must be included exactly once.
pub fn splice(src: &std::path::Path, dst: &std::path::Path, generated: &[(&str, &str)]) {
    let mut used = vec![0; generated.len()];
    let _ = std::fs::remove_dir_all(dst);
    copy_tree(src, dst, generated, &mut used);
    for ((file, _), n) in generated.iter().zip(used) {
        assert_eq!(n, 1, "{file} must be included exactly once under src/ (it is {n} times)");
    }
}

fn copy_tree(src: &std::path::Path, dst: &std::path::Path, generated: &[(&str, &str)], used: &mut [usize]) {
    std::fs::create_dir_all(dst).expect("OUT_DIR is writable");
    for entry in std::fs::read_dir(src).expect("src/ is readable") {
        let path = entry.expect("src/ is readable").path();
        let to = dst.join(path.file_name().expect("a directory entry has a name"));
        if path.is_dir() {
            copy_tree(&path, &to, generated, used);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("sources are UTF-8");
            let mut out = String::with_capacity(text.len());
            for line in text.lines() {
                match generated.iter().position(|(file, _)| line.trim() == include_line(file)) {
                    Some(i) => {
                        used[i] += 1;
                        out.push_str(generated[i].1);
                    }
                    None => {
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
            std::fs::write(&to, out).expect("OUT_DIR is writable");
        }
    }
}
