//! The HDF5 filter view of a variable's Zarr codecs: the ids and
//! parameters netCDF-C's filter API (`nc_inq_var_filter_ids`,
//! `nc_inq_var_filter_info`, `nc_inq_var_deflate`, ...) shows for them, as
//! its codec plugins map numcodecs' names.

use super::consts::*;
use super::error::*;
use super::model::{Dataset, Var};
use super::NcError;
use super::NcResult;
use serde_json::{json, Value};

/// The HDF5 filter id registered for LZ4 (numcodecs' `lz4`). netCDF-C has
/// no NCZarr codec for it; we give the id so the filter API reaches it.
pub const H5Z_FILTER_LZ4: u32 = 32004;

/// The filters this build encodes and decodes (`nc_inq_filter_avail`).
pub const AVAILABLE: [u32; 7] = [
    H5Z_FILTER_DEFLATE,
    H5Z_FILTER_SHUFFLE,
    H5Z_FILTER_FLETCHER32,
    H5Z_FILTER_BZIP2,
    H5Z_FILTER_ZSTD,
    H5Z_FILTER_BLOSC,
    H5Z_FILTER_LZ4,
];

/// HDF5 filter id of a Zarr codec (None: a codec netCDF-C has no id for).
pub fn filter_id(codec: &Value) -> Option<u32> {
    Some(match codec.get("id")?.as_str()? {
        "zlib" | "gzip" => H5Z_FILTER_DEFLATE,
        "shuffle" => H5Z_FILTER_SHUFFLE,
        "fletcher32" => H5Z_FILTER_FLETCHER32,
        "szip" => H5Z_FILTER_SZIP,
        "bz2" => H5Z_FILTER_BZIP2,
        "zstd" => H5Z_FILTER_ZSTD,
        "blosc" => H5Z_FILTER_BLOSC,
        "lz4" => H5Z_FILTER_LZ4,
        _ => return None,
    })
}

/// A numeric codec parameter (netCDF-C 4.9 writes them as strings).
fn num(codec: &Value, key: &str, default: i64) -> i64 {
    match codec.get(key) {
        Some(Value::Number(n)) => n.as_i64().unwrap_or(default),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(default),
        _ => default,
    }
}

/// The HDF5-style parameters of a filter: the level of the compressors
/// that have one (deflate, bzip2, zstd; a negative zstd level as its two's
/// complement, as HDF5 passes it; numcodecs' default when absent), Blosc's
/// seven (as netCDF-C's `nc_def_var_blosc` passes them: 0, 0, 0, block
/// size, level, shuffle, back end), LZ4's acceleration, none for the others
/// (shuffle, fletcher32).
pub fn filter_params(id: u32, codec: &Value) -> Vec<u32> {
    match id {
        H5Z_FILTER_DEFLATE | H5Z_FILTER_BZIP2 | H5Z_FILTER_ZSTD => vec![num(codec, "level", 1) as i32 as u32],
        H5Z_FILTER_LZ4 => vec![num(codec, "acceleration", 1) as i32 as u32],
        H5Z_FILTER_BLOSC => {
            let cname = codec.get("cname").and_then(Value::as_str).unwrap_or("lz4");
            let code = match cname {
                "snappy" => BLOSC_SNAPPY,
                _ => crate::codec::BLOSC_CNAMES.iter().find(|(n, _)| *n == cname).map_or(BLOSC_LZ4, |(_, c)| *c),
            };
            // numcodecs' AUTOSHUFFLE (-1) is reported as byte shuffle (it bit-shuffles one-byte elements)
            let shuffle = num(codec, "shuffle", 1);
            let shuffle = if shuffle < 0 { BLOSC_SHUFFLE } else { shuffle as u32 };
            vec![0, 0, 0, num(codec, "blocksize", 0) as u32, num(codec, "clevel", 5) as u32, shuffle, code]
        }
        _ => vec![],
    }
}

impl Dataset {
    /// `nc_def_var_filter` for the filters that are one numcodecs codec
    /// with netCDF-C's parameters: Fletcher-32 (3; parameters ignored, as
    /// netCDF-C's plugin does), bzip2 (307; the level, 1-9) and LZ4 (32004;
    /// optionally the acceleration, numcodecs' default 1). Others are
    /// `NC_ENOFILTER`; a wrong parameter count `NC_EFILTER`.
    pub fn def_var_codec_filter(&mut self, gid: usize, varid: i32, id: u32, params: &[u32]) -> NcResult<()> {
        let (codec, ok) = match (id, params) {
            (H5Z_FILTER_FLETCHER32, _) => (json!({"id": "fletcher32"}), true),
            (H5Z_FILTER_BZIP2, &[level]) => (json!({"id": "bz2", "level": level}), (1..=9).contains(&level)),
            (H5Z_FILTER_LZ4, &[]) => (json!({"id": "lz4", "acceleration": 1}), true),
            (H5Z_FILTER_LZ4, &[a]) => (json!({"id": "lz4", "acceleration": a as i32}), true),
            (H5Z_FILTER_BZIP2 | H5Z_FILTER_LZ4, _) => return Err(NcError::new(NC_EFILTER)),
            _ => return Err(NcError::new(NC_ENOFILTER)),
        };
        self.def_var_codec(gid, varid, codec, ok)
    }
}

impl Var {
    /// The variable's filters in codec order (filters, then compressor), as
    /// (HDF5 id, parameters); codecs without an id are left out.
    pub fn filters(&self) -> Vec<(u32, Vec<u32>)> {
        self.codecs.iter().filter_map(|c| filter_id(c).map(|id| (id, filter_params(id, c)))).collect()
    }

    /// The parameters of filter `id`, when the variable has it.
    pub fn filter(&self, id: u32) -> Option<Vec<u32>> {
        self.codecs.iter().find(|c| filter_id(c) == Some(id)).map(|c| filter_params(id, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netcdf_c_parameters() {
        assert_eq!(filter_params(H5Z_FILTER_DEFLATE, &json!({"id": "zlib", "level": "5"})), vec![5]);
        assert_eq!(filter_params(H5Z_FILTER_ZSTD, &json!({"id": "zstd", "level": -3})), vec![(-3i32) as u32]);
        let blosc = json!({"id": "blosc", "cname": "zstd", "clevel": 7, "shuffle": -1, "blocksize": 64});
        assert_eq!(filter_params(H5Z_FILTER_BLOSC, &blosc), vec![0, 0, 0, 64, 7, BLOSC_SHUFFLE, BLOSC_ZSTD]);
        assert_eq!(filter_id(&json!({"id": "gzip"})), Some(H5Z_FILTER_DEFLATE));
        assert_eq!(filter_id(&json!({"id": "lzma"})), None);
        assert_eq!(filter_params(H5Z_FILTER_BZIP2, &json!({"id": "bz2", "level": 9})), vec![9]);
        assert_eq!(filter_params(H5Z_FILTER_BZIP2, &json!({"id": "bz2"})), vec![1]);
        assert_eq!(filter_params(H5Z_FILTER_FLETCHER32, &json!({"id": "fletcher32"})), Vec::<u32>::new());
        assert_eq!(filter_id(&json!({"id": "lz4", "acceleration": 2})), Some(H5Z_FILTER_LZ4));
        assert_eq!(filter_params(H5Z_FILTER_LZ4, &json!({"id": "lz4", "acceleration": 2})), vec![2]);
    }
}
