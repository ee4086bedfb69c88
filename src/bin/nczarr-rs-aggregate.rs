//! `nczarr-rs-aggregate`: writes an aggregation of datasets along one
//! dimension (docs/AGGREGATION.md, "Building an aggregation").
//!
//!     nczarr-rs-aggregate [-d DIM] [--nca] [--absolute] -o OUT INPUT...
//!
//! INPUT: Zarr stores (paths or URLs) or netCDF files; OUT: a path or URL
//! this library creates (`file:///x/agg.zarr#mode=zarr,file`, or a plain
//! path for NCZarr in a directory). Exit status 0 on success, 1 on an
//! error (printed), 2 on a usage error.

use nczarr_rs::engine::aggregate::tool::{aggregate, Options};
use nczarr_rs::engine::aggregate::write::Form;

const USAGE: &str = "usage: nczarr-rs-aggregate [-d DIM] [--nca] [--absolute] -o OUT INPUT...
  -d DIM      the aggregation dimension (default: the first input's unlimited one)
  --nca       write NCA 0.1 (default: CF-1.13 aggregation variables)
  --absolute  refer to the inputs by absolute path (default: relative to OUT's directory when below it)
  -o OUT      the dataset to create (a path or URL, as nc_create takes)";

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut out, mut inputs) = (None, Vec::new());
    let mut opts = Options { dim: None, form: Form::Cf113, absolute: false };
    while let Some(a) = args.next() {
        match a.as_str() {
            "-d" => opts.dim = args.next(),
            "-o" => out = args.next(),
            "--nca" => opts.form = Form::Nca01,
            "--absolute" => opts.absolute = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                eprintln!("nczarr-rs-aggregate: unknown option {s}\n{USAGE}");
                std::process::exit(2);
            }
            _ => inputs.push(a),
        }
    }
    let Some(out) = out.filter(|_| !inputs.is_empty()) else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    nczarr_rs::ffi::load_runtime_libraries();
    match aggregate(&out, &inputs, &opts) {
        Ok(s) => {
            println!("{out}: {} = {} from {} inputs", s.dim, s.length, inputs.len());
            for (what, names) in
                [("aggregated", &s.aggregated), ("concatenated", &s.concatenated), ("copied", &s.copied)]
            {
                if !names.is_empty() {
                    println!("  {what}: {}", names.join(", "));
                }
            }
            for s in &s.skipped {
                println!("  left out: {s}");
            }
        }
        Err(e) => {
            eprintln!("nczarr-rs-aggregate: {}", e.detail().unwrap_or_default());
            eprintln!("  (status {})", e.code());
            std::process::exit(1);
        }
    }
}
