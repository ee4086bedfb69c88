"""Compares two ncwalk outputs (reference library vs nczarr-rs).

Each option removes one documented difference of a reference library (see
docs/COMPATIBILITY.md); without options the comparison is exact.

  --drop-att NAME     drop attribute NAME (4.9.0 shows `_nczarr_attr`)
  --loose-int-atts    compare integer attributes by value, not width
                      (4.9.0 infers the smallest integer type)
  --loose-real-atts   compare float/double attributes at float precision
                      (4.9.0 reads float attributes as double)
  --dim-placement     compare the set of dimensions, not their group
                      (pure Zarr has no dimension scopes)
  --anon-dims         netCDF-C 4.9.0-4.9.2 name anonymous Zarr dimensions
                      `_zdim_N`; 4.9.3+ and nczarr-rs `_Anonymous_Dim_N`
  --one-byte-endian   ignore the byte order of one-byte and char variables
                      (4.9.0 reports little for `|i1` and `<U1`; 4.10 native)
"""
import argparse
import difflib
import re
import sys

INT_TYPES = {"byte", "ubyte", "short", "ushort", "int", "uint", "int64", "uint64"}
ONE_BYTE = {"byte", "ubyte", "char", "string"}


def normalise(lines, opts):
    out, dims = [], set()
    for line in lines:
        if opts.anon_dims:
            line = re.sub(r"\b_zdim_(\d+)", r"_Anonymous_Dim_\1", line)
        parts = line.split(" ", 4)
        if parts[0] == "att" and len(parts) >= 4:
            _, owner, name, typ = parts[:4]
            vals = parts[4] if len(parts) > 4 else ""
            if name in opts.drop_att:
                continue
            if opts.loose_int_atts and typ in INT_TYPES:
                typ = "integer"
            if opts.loose_real_atts and typ in ("float", "double"):
                typ = "real"
                vals = ",".join("%.6g" % float(v) for v in vals.split(","))
            line = " ".join(x for x in ("att", owner, name, typ, vals))
        if parts[0] == "var" and opts.one_byte_endian and len(parts) > 2 and parts[2] in ONE_BYTE:
            line = re.sub(r" endian=\d+$", "", line)
        if parts[0] == "dim" and opts.dim_placement:
            dims.add(line)
            continue
        out.append(line)
    return out + sorted(dims)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reference")
    ap.add_argument("ours")
    ap.add_argument("--label", default="")
    ap.add_argument("--drop-att", action="append", default=[])
    ap.add_argument("--loose-int-atts", action="store_true")
    ap.add_argument("--loose-real-atts", action="store_true")
    ap.add_argument("--dim-placement", action="store_true")
    ap.add_argument("--anon-dims", action="store_true")
    ap.add_argument("--one-byte-endian", action="store_true")
    opts = ap.parse_args()
    ref = normalise(open(opts.reference).read().splitlines(), opts)
    ours = normalise(open(opts.ours).read().splitlines(), opts)
    if ref == ours:
        return 0
    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in ref], [l + "\n" for l in ours],
                                               "reference " + opts.label, "nczarr-rs " + opts.label))
    return 1


if __name__ == "__main__":
    sys.exit(main())
