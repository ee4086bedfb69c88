//! netCDF atomic types, typed value vectors, and their conversions
//! (`NC_ERANGE`, `NC_ECHAR`, `NC_EBADTYPE`). The numeric rules are those of
//! [`super::convert`], the one conversion engine.

use super::consts::*;
pub use super::convert::Num;
use super::convert::{from_nums, Elem};
use super::error::{NC_EBADTYPE, NC_ECHAR, NC_ERANGE};
use super::{NcError, NcResult};

/// Name of an atomic type as CDL spells it.
pub fn type_name(t: NcType) -> Option<&'static str> {
    Some(match t {
        NC_BYTE => "byte",
        NC_CHAR => "char",
        NC_SHORT => "short",
        NC_INT => "int",
        NC_FLOAT => "float",
        NC_DOUBLE => "double",
        NC_UBYTE => "ubyte",
        NC_USHORT => "ushort",
        NC_UINT => "uint",
        NC_INT64 => "int64",
        NC_UINT64 => "uint64",
        NC_STRING => "string",
        _ => return None,
    })
}

/// Size in bytes of one element in memory (a `char*` for strings).
pub fn type_size(t: NcType) -> Option<usize> {
    Some(match t {
        NC_BYTE | NC_CHAR | NC_UBYTE => 1,
        NC_SHORT | NC_USHORT => 2,
        NC_INT | NC_UINT | NC_FLOAT => 4,
        NC_DOUBLE | NC_INT64 | NC_UINT64 => 8,
        NC_STRING => std::mem::size_of::<usize>(),
        _ => return None,
    })
}

pub fn is_atomic(t: NcType) -> bool {
    (NC_BYTE..=NC_STRING).contains(&t)
}

/// A vector of values of one atomic type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Byte(Vec<i8>),
    Char(Vec<u8>),
    Short(Vec<i16>),
    Int(Vec<i32>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    UByte(Vec<u8>),
    UShort(Vec<u16>),
    UInt(Vec<u32>),
    Int64(Vec<i64>),
    UInt64(Vec<u64>),
    String(Vec<String>),
}

macro_rules! each_numeric {
    ($v:expr, $x:ident => $body:expr) => {
        match $v {
            Values::Byte($x) => $body,
            Values::Short($x) => $body,
            Values::Int($x) => $body,
            Values::Float($x) => $body,
            Values::Double($x) => $body,
            Values::UByte($x) => $body,
            Values::UShort($x) => $body,
            Values::UInt($x) => $body,
            Values::Int64($x) => $body,
            Values::UInt64($x) => $body,
            Values::Char(_) | Values::String(_) => unreachable!("not numeric"),
        }
    };
}

impl Values {
    pub fn nc_type(&self) -> NcType {
        match self {
            Values::Byte(_) => NC_BYTE,
            Values::Char(_) => NC_CHAR,
            Values::Short(_) => NC_SHORT,
            Values::Int(_) => NC_INT,
            Values::Float(_) => NC_FLOAT,
            Values::Double(_) => NC_DOUBLE,
            Values::UByte(_) => NC_UBYTE,
            Values::UShort(_) => NC_USHORT,
            Values::UInt(_) => NC_UINT,
            Values::Int64(_) => NC_INT64,
            Values::UInt64(_) => NC_UINT64,
            Values::String(_) => NC_STRING,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Values::Char(v) => v.len(),
            Values::String(v) => v.len(),
            other => each_numeric!(other, v => v.len()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty vector of type `t`.
    pub fn empty(t: NcType) -> NcResult<Values> {
        Values::from_nums(t, &[]).map(|(v, _)| v)
    }

    /// The values as numbers (not for char or string).
    pub fn nums(&self) -> Vec<Num> {
        each_numeric!(self, v => v.iter().map(|x| x.to_num()).collect())
    }

    /// Builds values of numeric type `t` from numbers, with netCDF-C's range
    /// rules ([`super::convert`]): out-of-range values are still converted
    /// (C cast semantics) and reported by the returned flag.
    pub fn from_nums(t: NcType, nums: &[Num]) -> NcResult<(Values, bool)> {
        let mut r = false;
        let v = match t {
            NC_BYTE => Values::Byte(from_nums(nums, &mut r)),
            NC_SHORT => Values::Short(from_nums(nums, &mut r)),
            NC_INT => Values::Int(from_nums(nums, &mut r)),
            NC_UBYTE => Values::UByte(from_nums(nums, &mut r)),
            NC_USHORT => Values::UShort(from_nums(nums, &mut r)),
            NC_UINT => Values::UInt(from_nums(nums, &mut r)),
            NC_INT64 => Values::Int64(from_nums(nums, &mut r)),
            NC_UINT64 => Values::UInt64(from_nums(nums, &mut r)),
            NC_FLOAT => Values::Float(from_nums(nums, &mut r)),
            NC_DOUBLE => Values::Double(from_nums(nums, &mut r)),
            NC_CHAR | NC_STRING => return Err(NcError::new(NC_ECHAR)),
            _ => return Err(NcError::new(NC_EBADTYPE)),
        };
        Ok((v, r))
    }

    /// Converts to type `t` with netCDF-C's rules. Returns the converted
    /// values and whether some value was out of range (`NC_ERANGE`).
    pub fn convert(&self, t: NcType) -> NcResult<(Values, bool)> {
        if !is_atomic(t) {
            return Err(NcError::new(NC_EBADTYPE));
        }
        match (self, t) {
            (v, t) if v.nc_type() == t => Ok((v.clone(), false)),
            (Values::String(_), _) | (_, NC_STRING) => Err(NcError::new(NC_EBADTYPE)),
            (Values::Char(_), _) | (_, NC_CHAR) => Err(NcError::new(NC_ECHAR)),
            (v, t) => Values::from_nums(t, &v.nums()),
        }
    }

    /// Native-endian bytes of a numeric or char vector.
    pub fn to_ne_bytes(&self) -> Vec<u8> {
        match self {
            Values::Byte(v) => v.iter().map(|x| *x as u8).collect(),
            Values::Char(v) | Values::UByte(v) => v.clone(),
            Values::Short(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::Int(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::Float(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::Double(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::UShort(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::UInt(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::Int64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::UInt64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            Values::String(_) => panic!("strings have no byte form"),
        }
    }

    /// Values of numeric or char type `t` from native-endian bytes.
    pub fn from_ne_bytes(t: NcType, b: &[u8]) -> NcResult<Values> {
        macro_rules! chunks {
            ($variant:ident, $ty:ty) => {{
                const N: usize = std::mem::size_of::<$ty>();
                Values::$variant(b.chunks_exact(N).map(|c| <$ty>::from_ne_bytes(c.try_into().unwrap())).collect())
            }};
        }
        Ok(match t {
            NC_BYTE => Values::Byte(b.iter().map(|x| *x as i8).collect()),
            NC_CHAR => Values::Char(b.to_vec()),
            NC_UBYTE => Values::UByte(b.to_vec()),
            NC_SHORT => chunks!(Short, i16),
            NC_INT => chunks!(Int, i32),
            NC_FLOAT => chunks!(Float, f32),
            NC_DOUBLE => chunks!(Double, f64),
            NC_USHORT => chunks!(UShort, u16),
            NC_UINT => chunks!(UInt, u32),
            NC_INT64 => chunks!(Int64, i64),
            NC_UINT64 => chunks!(UInt64, u64),
            _ => return Err(NcError::new(NC_EBADTYPE)),
        })
    }

    /// The default fill value of type `t` (netCDF-C's `NC_FILL_*`).
    pub fn default_fill(t: NcType) -> NcResult<Values> {
        Ok(match t {
            NC_BYTE => Values::Byte(vec![NC_FILL_BYTE]),
            NC_CHAR => Values::Char(vec![NC_FILL_CHAR]),
            NC_SHORT => Values::Short(vec![NC_FILL_SHORT]),
            NC_INT => Values::Int(vec![NC_FILL_INT]),
            NC_FLOAT => Values::Float(vec![NC_FILL_FLOAT]),
            NC_DOUBLE => Values::Double(vec![NC_FILL_DOUBLE]),
            NC_UBYTE => Values::UByte(vec![NC_FILL_UBYTE]),
            NC_USHORT => Values::UShort(vec![NC_FILL_USHORT]),
            NC_UINT => Values::UInt(vec![NC_FILL_UINT]),
            NC_INT64 => Values::Int64(vec![NC_FILL_INT64]),
            NC_UINT64 => Values::UInt64(vec![NC_FILL_UINT64]),
            NC_STRING => Values::String(vec![String::new()]),
            _ => return Err(NcError::new(NC_EBADTYPE)),
        })
    }
}

/// `Err(NC_ERANGE)` if `range_err`, for callers that finish their work first.
pub fn range_result(range_err: bool) -> NcResult<()> {
    if range_err {
        Err(NcError::new(NC_ERANGE))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_ranges() {
        let (v, e) = Values::Int(vec![1, 300, -129]).convert(NC_BYTE).unwrap();
        assert!(e);
        assert_eq!(v, Values::Byte(vec![1, 300i32 as i8, -129i32 as i8]));
        let (v, e) = Values::Double(vec![1.9, -1.9]).convert(NC_INT).unwrap();
        assert!(!e);
        assert_eq!(v, Values::Int(vec![1, -1]));
        assert!(Values::Double(vec![1e40]).convert(NC_FLOAT).unwrap().1);
        assert!(Values::Double(vec![f64::NAN]).convert(NC_INT).unwrap().1);
        assert!(!Values::Double(vec![f64::NAN]).convert(NC_FLOAT).unwrap().1);
        assert!(Values::Int64(vec![-1]).convert(NC_UINT64).unwrap().1);
        assert!(!Values::UInt64(vec![u64::MAX]).convert(NC_DOUBLE).unwrap().1);
        assert_eq!(Values::Char(b"a".to_vec()).convert(NC_INT).unwrap_err().code(), NC_ECHAR);
        assert_eq!(Values::Int(vec![1]).convert(NC_CHAR).unwrap_err().code(), NC_ECHAR);
        assert_eq!(Values::String(vec![]).convert(NC_INT).unwrap_err().code(), NC_EBADTYPE);
    }

    #[test]
    fn byte_roundtrip() {
        let v = Values::Double(vec![1.5, -2.0]);
        assert_eq!(Values::from_ne_bytes(NC_DOUBLE, &v.to_ne_bytes()).unwrap(), v);
    }
}
