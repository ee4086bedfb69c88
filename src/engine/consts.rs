//! netCDF-C's public constants (`netcdf.h`), with netCDF-C's exact values.
//!
//! These are netCDF semantics, so they live in the engine; the `ffi` layer
//! exports them to C through the generated header (cbindgen emits every
//! `pub const` of this module as a `#define`). Fill values and type ranges
//! need C casts and suffixes (`((short)-32767)`, `9.96...e+36f`) and are
//! therefore written verbatim into the header by `cbindgen.toml`; the Rust
//! values here carry the same numbers.

/// The netCDF type id (`nc_type` in C).
pub type NcType = i32;

// ---- atomic and user type classes --------------------------------------
pub const NC_NAT: NcType = 0;
pub const NC_BYTE: NcType = 1;
pub const NC_CHAR: NcType = 2;
pub const NC_SHORT: NcType = 3;
pub const NC_INT: NcType = 4;
pub const NC_LONG: NcType = NC_INT;
pub const NC_FLOAT: NcType = 5;
pub const NC_DOUBLE: NcType = 6;
pub const NC_UBYTE: NcType = 7;
pub const NC_USHORT: NcType = 8;
pub const NC_UINT: NcType = 9;
pub const NC_INT64: NcType = 10;
pub const NC_UINT64: NcType = 11;
pub const NC_STRING: NcType = 12;
pub const NC_MAX_ATOMIC_TYPE: NcType = NC_STRING;
pub const NC_VLEN: NcType = 13;
pub const NC_OPAQUE: NcType = 14;
pub const NC_ENUM: NcType = 15;
pub const NC_COMPOUND: NcType = 16;
pub const NC_FIRSTUSERTYPEID: NcType = 32;

// ---- fill values (C definitions are in cbindgen.toml) -------------------
pub const NC_FILL_BYTE: i8 = -127;
pub const NC_FILL_CHAR: u8 = 0;
pub const NC_FILL_SHORT: i16 = -32767;
pub const NC_FILL_INT: i32 = -2147483647;
#[allow(clippy::excessive_precision)] // netCDF-C's literal, digit for digit
pub const NC_FILL_FLOAT: f32 = 9.969_209_968_386_869e36;
pub const NC_FILL_DOUBLE: f64 = 9.969_209_968_386_869e36;
pub const NC_FILL_UBYTE: u8 = 255;
pub const NC_FILL_USHORT: u16 = 65535;
pub const NC_FILL_UINT: u32 = 4294967295;
pub const NC_FILL_INT64: i64 = -9223372036854775806;
pub const NC_FILL_UINT64: u64 = 18446744073709551614;

// ---- mode flags ----------------------------------------------------------
pub const NC_NOWRITE: i32 = 0x0000;
pub const NC_WRITE: i32 = 0x0001;
pub const NC_CLOBBER: i32 = 0x0000;
pub const NC_NOCLOBBER: i32 = 0x0004;
pub const NC_DISKLESS: i32 = 0x0008;
pub const NC_MMAP: i32 = 0x0010;
pub const NC_64BIT_DATA: i32 = 0x0020;
pub const NC_CDF5: i32 = NC_64BIT_DATA;
pub const NC_UDF0: i32 = 0x0040;
pub const NC_UDF1: i32 = 0x0080;
pub const NC_CLASSIC_MODEL: i32 = 0x0100;
pub const NC_64BIT_OFFSET: i32 = 0x0200;
pub const NC_LOCK: i32 = 0x0400;
pub const NC_SHARE: i32 = 0x0800;
pub const NC_NETCDF4: i32 = 0x1000;
pub const NC_MPIIO: i32 = 0x2000;
pub const NC_MPIPOSIX: i32 = 0x2000;
pub const NC_PNETCDF: i32 = 0x2000;
pub const NC_PERSIST: i32 = 0x4000;
pub const NC_INMEMORY: i32 = 0x8000;
pub const NC_NOATTCREORD: i32 = 0x20000;
pub const NC_NODIMSCALE_ATTACH: i32 = 0x40000;
pub const NC_MAX_MAGIC_NUMBER_LEN: i32 = 8;
pub const NC_FORMAT_ALL: i32 = NC_64BIT_OFFSET | NC_64BIT_DATA | NC_CLASSIC_MODEL | NC_NETCDF4 | NC_UDF0 | NC_UDF1;

// ---- format ids ----------------------------------------------------------
pub const NC_FORMAT_CLASSIC: i32 = 1;
pub const NC_FORMAT_64BIT_OFFSET: i32 = 2;
pub const NC_FORMAT_64BIT: i32 = NC_FORMAT_64BIT_OFFSET;
pub const NC_FORMAT_NETCDF4: i32 = 3;
pub const NC_FORMAT_NETCDF4_CLASSIC: i32 = 4;
pub const NC_FORMAT_64BIT_DATA: i32 = 5;
pub const NC_FORMAT_CDF5: i32 = NC_FORMAT_64BIT_DATA;

pub const NC_FORMATX_UNDEFINED: i32 = 0;
pub const NC_FORMATX_NC3: i32 = 1;
pub const NC_FORMATX_NC_HDF5: i32 = 2;
pub const NC_FORMATX_NC4: i32 = NC_FORMATX_NC_HDF5;
pub const NC_FORMATX_NC_HDF4: i32 = 3;
pub const NC_FORMATX_PNETCDF: i32 = 4;
pub const NC_FORMATX_DAP2: i32 = 5;
pub const NC_FORMATX_DAP4: i32 = 6;
pub const NC_FORMATX_UDF0: i32 = 8;
pub const NC_FORMATX_UDF1: i32 = 9;
pub const NC_FORMATX_NCZARR: i32 = 10;
pub const NC_FORMATX_ZARR: i32 = NC_FORMATX_NCZARR;

pub const NC_FORMAT_NC3: i32 = NC_FORMATX_NC3;
pub const NC_FORMAT_NC_HDF5: i32 = NC_FORMATX_NC_HDF5;
pub const NC_FORMAT_NC4: i32 = NC_FORMATX_NC4;
pub const NC_FORMAT_NC_HDF4: i32 = NC_FORMATX_NC_HDF4;
pub const NC_FORMAT_PNETCDF: i32 = NC_FORMATX_PNETCDF;
pub const NC_FORMAT_DAP2: i32 = NC_FORMATX_DAP2;
pub const NC_FORMAT_DAP4: i32 = NC_FORMATX_DAP4;
pub const NC_FORMAT_UNDEFINED: i32 = NC_FORMATX_UNDEFINED;

// ---- misc ----------------------------------------------------------------
pub const NC_SIZEHINT_DEFAULT: i32 = 0;
pub const NC_UNLIMITED: i32 = 0;
pub const NC_GLOBAL: i32 = -1;
pub const NC_MAX_DIMS: i32 = 1024;
pub const NC_MAX_ATTRS: i32 = 8192;
pub const NC_MAX_VARS: i32 = 8192;
pub const NC_MAX_NAME: i32 = 256;
pub const NC_MAX_VAR_DIMS: i32 = 1024;
pub const NC_MAX_HDF4_NAME: i32 = NC_MAX_NAME;
pub const NC_FILL: i32 = 0;
pub const NC_NOFILL: i32 = 0x100;

pub const NC_ENDIAN_NATIVE: i32 = 0;
pub const NC_ENDIAN_LITTLE: i32 = 1;
pub const NC_ENDIAN_BIG: i32 = 2;

pub const NC_CHUNKED: i32 = 0;
pub const NC_CONTIGUOUS: i32 = 1;
pub const NC_COMPACT: i32 = 2;
pub const NC_UNKNOWN_STORAGE: i32 = 3;
pub const NC_VIRTUAL: i32 = 4;

pub const NC_NOCHECKSUM: i32 = 0;
pub const NC_FLETCHER32: i32 = 1;
pub const NC_NOSHUFFLE: i32 = 0;
pub const NC_SHUFFLE: i32 = 1;
pub const NC_MIN_DEFLATE_LEVEL: i32 = 0;
pub const NC_MAX_DEFLATE_LEVEL: i32 = 9;
pub const NC_SZIP_NN: i32 = 32;
pub const NC_SZIP_EC: i32 = 4;

pub const NC_NOQUANTIZE: i32 = 0;
pub const NC_QUANTIZE_BITGROOM: i32 = 1;
pub const NC_QUANTIZE_GRANULARBR: i32 = 2;
pub const NC_QUANTIZE_BITROUND: i32 = 3;
pub const NC_QUANTIZE_MAX_FLOAT_NSD: i32 = 6;
pub const NC_QUANTIZE_MAX_FLOAT_NSB: i32 = 23;
pub const NC_QUANTIZE_MAX_DOUBLE_NSD: i32 = 15;
pub const NC_QUANTIZE_MAX_DOUBLE_NSB: i32 = 52;

pub const NC_INDEPENDENT: i32 = 0;
pub const NC_COLLECTIVE: i32 = 1;

pub const NC_FATAL: i32 = 1;
pub const NC_VERBOSE: i32 = 2;

// HDF5 filter ids as netCDF-C names them (netcdf_filter.h).
pub const H5Z_FILTER_DEFLATE: u32 = 1;
pub const H5Z_FILTER_SHUFFLE: u32 = 2;
pub const H5Z_FILTER_FLETCHER32: u32 = 3;
pub const H5Z_FILTER_SZIP: u32 = 4;
pub const H5Z_FILTER_BZIP2: u32 = 307;
pub const H5Z_FILTER_ZSTD: u32 = 32015;
pub const H5Z_FILTER_BLOSC: u32 = 32001;

// Blosc back ends and shuffle modes for nc_def_var_blosc (netcdf_filter.h).
pub const BLOSC_LZ: u32 = 0;
pub const BLOSC_LZ4: u32 = 1;
pub const BLOSC_LZ4HC: u32 = 2;
pub const BLOSC_SNAPPY: u32 = 3;
pub const BLOSC_ZLIB: u32 = 4;
pub const BLOSC_ZSTD: u32 = 5;
pub const BLOSC_NOSHUFFLE: u32 = 0;
pub const BLOSC_SHUFFLE: u32 = 1;
pub const BLOSC_BITSHUFFLE: u32 = 2;
