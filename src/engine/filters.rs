//! The HDF5 filter view of a variable's Zarr codecs: the ids and
//! parameters netCDF-C's filter API (`nc_inq_var_filter_ids`,
//! `nc_inq_var_filter_info`, `nc_inq_var_deflate`, ...) shows for them,
//! and the definition of codecs through that API. Both come from the
//! codec registry (`codec::registry`), where each codec declares its HDF5
//! id and the mapping of its parameters; this file only adds netCDF's
//! rules (error codes, define mode, deflate and shuffle's placement).

use super::consts::*;
use super::error::*;
use super::model::{Dataset, Var};
use super::types::type_size;
use super::NcError;
use super::NcResult;
use crate::codec::{registry, CodecError, DataType, Kind, ParamError};

/// The dtype codecs defined through the filter API are built for: a
/// variable's element type (little-endian: the codecs the API defines
/// depend on the element size only). Strings are pointers, as netCDF-C's
/// type size for them.
pub fn codec_dtype(t: NcType) -> DataType {
    let size = type_size(t).unwrap_or(1);
    let kind = match t {
        NC_BYTE | NC_SHORT | NC_INT | NC_INT64 => Kind::Int,
        NC_UBYTE | NC_USHORT | NC_UINT | NC_UINT64 => Kind::UInt,
        NC_FLOAT | NC_DOUBLE => Kind::Float,
        NC_CHAR => Kind::Bytes,
        NC_STRING => Kind::Object,
        _ => Kind::Other,
    };
    DataType::new(kind, size, false)
}

/// The error data access gets when a variable's codecs cannot run: a
/// codec this build does not have is `NC_ENOFILTER` (netCDF-C without the
/// plugin), bad parameters `NC_EFILTER`.
pub fn pipeline_error(e: &CodecError) -> NcError {
    match e {
        CodecError::Unknown(_) => NcError::with(NC_ENOFILTER, e.to_string()),
        _ => NcError::with(NC_EFILTER, e.to_string()),
    }
}

/// Whether this build encodes and decodes HDF5 filter `id`.
pub fn available(id: u32) -> bool {
    registry::hdf5_available(id)
}

impl Dataset {
    /// `nc_def_var_filter` (and the helpers built on it): the codec the
    /// registry maps HDF5 filter `id` and netCDF-C's `params` to, appended
    /// to the chain in definition order or replacing the same codec in
    /// place, as netCDF-C's `NCZ_addfilter` does (shuffle and deflate
    /// through `nc_def_var_deflate`'s checks). No codec for `id` is `NC_ENOFILTER`, a wrong parameter
    /// count `NC_EFILTER`, a bad parameter `NC_EINVAL`.
    pub fn def_var_codec_filter(&mut self, gid: usize, varid: i32, id: u32, params: &[u32]) -> NcResult<()> {
        self.touch();
        match (id, params) {
            (H5Z_FILTER_SHUFFLE, _) => self.def_var_deflate(gid, varid, true, false, 0),
            (H5Z_FILTER_DEFLATE, &[level]) => self.def_var_deflate(gid, varid, false, true, level as i32),
            (H5Z_FILTER_DEFLATE, _) => Err(NcError::new(NC_EFILTER)),
            _ => {
                let dtype = codec_dtype(self.var(gid, varid)?.nctype);
                match registry::from_hdf5(id, params, dtype) {
                    None => Err(NcError::new(NC_ENOFILTER)),
                    Some(Err(ParamError::Count)) => Err(NcError::new(NC_EFILTER)),
                    Some(Err(ParamError::Value)) => self.def_var_codec(gid, varid, serde_json::Value::Null, false),
                    Some(Ok(codec)) => self.def_var_codec(gid, varid, codec, true),
                }
            }
        }
    }
}

impl Var {
    /// The variable's filters in codec order (filters, then compressor), as
    /// (HDF5 id, parameters); codecs without an id are left out.
    pub fn filters(&self) -> Vec<(u32, Vec<u32>)> {
        self.codecs.hdf5_filters()
    }

    /// The parameters of filter `id`, when the variable has it.
    pub fn filter(&self, id: u32) -> Option<Vec<u32>> {
        self.codecs.hdf5_filter(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Pipeline;
    use serde_json::json;

    fn view(codecs: &[serde_json::Value]) -> Vec<(u32, Vec<u32>)> {
        Pipeline::from_zarr_v2(codecs, None, "<i4").hdf5_filters()
    }

    #[test]
    fn netcdf_c_parameters() {
        assert_eq!(view(&[json!({"id": "zlib", "level": "5"})]), vec![(1, vec![5])]);
        assert_eq!(view(&[json!({"id": "zlib"})]), vec![(1, vec![1])], "numcodecs' default level");
        assert_eq!(view(&[json!({"id": "zstd", "level": -3})]), vec![(32015, vec![(-3i32) as u32])]);
        let blosc = json!({"id": "blosc", "cname": "zstd", "clevel": 7, "shuffle": -1, "blocksize": 64});
        assert_eq!(view(&[blosc]), vec![(32001, vec![0, 0, 0, 64, 7, BLOSC_SHUFFLE, BLOSC_ZSTD])]);
        assert_eq!(view(&[json!({"id": "gzip"})]), vec![(H5Z_FILTER_DEFLATE, vec![1])]);
        assert_eq!(view(&[json!({"id": "lzma"}), json!({"id": "delta", "dtype": "<i4"})]), vec![]);
        assert_eq!(view(&[json!({"id": "bz2", "level": 9})]), vec![(307, vec![9])]);
        assert_eq!(view(&[json!({"id": "bz2"})]), vec![(307, vec![1])]);
        assert_eq!(view(&[json!({"id": "fletcher32"})]), vec![(3, vec![])]);
        assert_eq!(view(&[json!({"id": "lz4", "acceleration": 2})]), vec![(32004, vec![2])]);
        // szip: shown with netCDF-C's parameters, not available
        let szip = [json!({"id": "szip", "mask": 4, "pixels-per-block": 32})];
        assert_eq!(view(&szip), vec![(4, vec![4, 32])]);
        assert!(matches!(Pipeline::from_zarr_v2(&szip, None, "<i4").chain(), Err(CodecError::Unknown(_))));
        assert!(!available(H5Z_FILTER_SZIP) && available(H5Z_FILTER_DEFLATE));
    }

    #[test]
    fn definitions_as_before() {
        // the JSON the filter API writes (byte for byte what .zarray gets)
        let d = codec_dtype(NC_INT);
        let j = |id, p: &[u32]| registry::from_hdf5(id, p, d).unwrap().unwrap().to_string();
        assert_eq!(j(1, &[0]), r#"{"id":"zlib","level":0}"#);
        assert_eq!(j(2, &[]), r#"{"id":"shuffle","elementsize":4}"#);
        assert_eq!(j(3, &[7]), r#"{"id":"fletcher32"}"#);
        assert_eq!(j(307, &[9]), r#"{"id":"bz2","level":9}"#);
        assert_eq!(j(32004, &[]), r#"{"id":"lz4","acceleration":1}"#);
        assert_eq!(j(32015, &[(-5i32) as u32]), r#"{"id":"zstd","level":-5}"#);
        assert_eq!(
            j(32001, &[0, 0, 0, 0, 4, 1, 5]),
            r#"{"id":"blosc","cname":"zstd","clevel":4,"shuffle":1,"blocksize":0}"#
        );
        let e = |id, p: &[u32]| registry::from_hdf5(id, p, d).unwrap().unwrap_err();
        assert_eq!(e(1, &[10]), ParamError::Value);
        assert_eq!(e(1, &[]), ParamError::Count);
        assert_eq!(e(307, &[0]), ParamError::Value);
        assert_eq!(e(32001, &[0, 0, 0, 0, 4, 1, BLOSC_SNAPPY]), ParamError::Value);
        assert_eq!(e(32015, &[23]), ParamError::Value);
        assert!(registry::from_hdf5(H5Z_FILTER_SZIP, &[4, 32], d).is_none());
        assert_eq!(codec_dtype(NC_STRING).size, std::mem::size_of::<usize>());
    }
}
