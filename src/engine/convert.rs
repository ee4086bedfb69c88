//! Element-wise conversion between the in-memory type of a caller's buffer
//! and the type of a variable, with netCDF-C's range rules. Runs of
//! native-endian bytes are converted by loops monomorphised per type pair;
//! equal types are a plain copy.

use super::consts::*;

/// One element type in native-endian bytes.
trait Elem: Copy {
    const SIZE: usize;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
    /// Converts with C cast semantics; `true` if the value was out of range.
    fn from_i128(v: i128) -> (Self, bool);
    fn from_f64(v: f64) -> (Self, bool);
    fn widen(self) -> Wide;
}

#[derive(Clone, Copy)]
enum Wide {
    I(i128),
    F(f64),
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn get(b: &[u8]) -> Self { <$t>::from_ne_bytes(b[..Self::SIZE].try_into().unwrap()) }
            #[inline(always)]
            fn put(self, b: &mut [u8]) { b[..Self::SIZE].copy_from_slice(&self.to_ne_bytes()) }
            #[inline(always)]
            fn from_i128(v: i128) -> (Self, bool) { (v as $t, v < <$t>::MIN as i128 || v > <$t>::MAX as i128) }
            #[inline(always)]
            fn from_f64(v: f64) -> (Self, bool) {
                let t = v.trunc();
                (v as $t, !(t >= <$t>::MIN as f64 && t <= <$t>::MAX as f64))
            }
            #[inline(always)]
            fn widen(self) -> Wide { Wide::I(self as i128) }
        }
    )*};
}
int_elem!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Elem for f32 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn get(b: &[u8]) -> Self {
        f32::from_ne_bytes(b[..4].try_into().unwrap())
    }
    #[inline(always)]
    fn put(self, b: &mut [u8]) {
        b[..4].copy_from_slice(&self.to_ne_bytes())
    }
    #[inline(always)]
    fn from_i128(v: i128) -> (Self, bool) {
        (v as f32, false)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> (Self, bool) {
        (v as f32, v.is_finite() && v.abs() > f32::MAX as f64)
    }
    #[inline(always)]
    fn widen(self) -> Wide {
        Wide::F(self as f64)
    }
}

impl Elem for f64 {
    const SIZE: usize = 8;
    #[inline(always)]
    fn get(b: &[u8]) -> Self {
        f64::from_ne_bytes(b[..8].try_into().unwrap())
    }
    #[inline(always)]
    fn put(self, b: &mut [u8]) {
        b[..8].copy_from_slice(&self.to_ne_bytes())
    }
    #[inline(always)]
    fn from_i128(v: i128) -> (Self, bool) {
        (v as f64, false)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> (Self, bool) {
        (v, false)
    }
    #[inline(always)]
    fn widen(self) -> Wide {
        Wide::F(self)
    }
}

fn run<S: Elem, D: Elem>(src: &[u8], dst: &mut [u8], n: usize) -> bool {
    let mut range = false;
    for i in 0..n {
        let (v, r) = match S::get(&src[i * S::SIZE..]).widen() {
            Wide::I(x) => D::from_i128(x),
            Wide::F(x) => D::from_f64(x),
        };
        range |= r;
        v.put(&mut dst[i * D::SIZE..]);
    }
    range
}

/// Size in bytes of one element of a numeric or char type.
pub fn elem_size(t: NcType) -> usize {
    match t {
        NC_BYTE | NC_UBYTE | NC_CHAR => 1,
        NC_SHORT | NC_USHORT => 2,
        NC_INT | NC_UINT | NC_FLOAT => 4,
        _ => 8,
    }
}

macro_rules! dispatch_dst {
    ($S:ty, $dt:expr, $src:expr, $dst:expr, $n:expr) => {
        match $dt {
            NC_BYTE => run::<$S, i8>($src, $dst, $n),
            NC_UBYTE | NC_CHAR => run::<$S, u8>($src, $dst, $n),
            NC_SHORT => run::<$S, i16>($src, $dst, $n),
            NC_USHORT => run::<$S, u16>($src, $dst, $n),
            NC_INT => run::<$S, i32>($src, $dst, $n),
            NC_UINT => run::<$S, u32>($src, $dst, $n),
            NC_INT64 => run::<$S, i64>($src, $dst, $n),
            NC_UINT64 => run::<$S, u64>($src, $dst, $n),
            NC_FLOAT => run::<$S, f32>($src, $dst, $n),
            NC_DOUBLE => run::<$S, f64>($src, $dst, $n),
            _ => unreachable!("not a numeric type"),
        }
    };
}

/// Converts `n` native-endian elements of type `st` at `src` into type `dt`
/// at `dst`. Returns `true` if some value was out of range for `dt` (it is
/// converted anyway, as C casts do). Char and numeric types must not mix
/// (the caller reports `NC_ECHAR`).
pub fn convert(st: NcType, src: &[u8], dt: NcType, dst: &mut [u8], n: usize) -> bool {
    if st == dt || (st == NC_CHAR && dt == NC_UBYTE) {
        let len = n * elem_size(st);
        dst[..len].copy_from_slice(&src[..len]);
        return false;
    }
    match st {
        NC_BYTE => dispatch_dst!(i8, dt, src, dst, n),
        NC_UBYTE | NC_CHAR => dispatch_dst!(u8, dt, src, dst, n),
        NC_SHORT => dispatch_dst!(i16, dt, src, dst, n),
        NC_USHORT => dispatch_dst!(u16, dt, src, dst, n),
        NC_INT => dispatch_dst!(i32, dt, src, dst, n),
        NC_UINT => dispatch_dst!(u32, dt, src, dst, n),
        NC_INT64 => dispatch_dst!(i64, dt, src, dst, n),
        NC_UINT64 => dispatch_dst!(u64, dt, src, dst, n),
        NC_FLOAT => dispatch_dst!(f32, dt, src, dst, n),
        NC_DOUBLE => dispatch_dst!(f64, dt, src, dst, n),
        _ => unreachable!("not a numeric type"),
    }
}

/// Reverses the byte order of each `size`-byte element in place.
pub fn swap_bytes(buf: &mut [u8], size: usize) {
    if size > 1 {
        for e in buf.chunks_exact_mut(size) {
            e.reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        let src: Vec<u8> = [1.5f64, -2.7, 300.0, f64::NAN].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let mut dst = vec![0u8; 4];
        assert!(convert(NC_DOUBLE, &src, NC_BYTE, &mut dst, 4));
        assert_eq!(&dst[..2], &[1u8, (-2i8) as u8]);
        let mut out = vec![0u8; 8];
        assert!(!convert(NC_DOUBLE, &src, NC_INT, &mut out, 2));
        assert_eq!(i32::from_ne_bytes(out[4..8].try_into().unwrap()), -2);
        let ints: Vec<u8> = [-1i32].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let mut u = vec![0u8; 4];
        assert!(convert(NC_INT, &ints, NC_UINT, &mut u, 1));
        let mut f = vec![0u8; 4];
        assert!(!convert(NC_INT, &ints, NC_FLOAT, &mut f, 1));
        assert_eq!(f32::from_ne_bytes(f[..4].try_into().unwrap()), -1.0);
        let mut b = [1u8, 2, 3, 4, 5, 6];
        swap_bytes(&mut b, 2);
        assert_eq!(b, [2, 1, 4, 3, 6, 5]);
    }
}
