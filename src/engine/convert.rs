//! The one conversion engine between netCDF's numeric types, with
//! netCDF-C's range rules: out-of-range values are converted as C casts do
//! and reported (`NC_ERANGE`). [`Elem::from_num`] holds the rules for one
//! value; [`convert`] runs them over native-endian buffers with loops
//! monomorphised per type pair (equal types are a plain copy), and
//! `types::Values` uses them for attributes and fill values.

use super::consts::*;

/// One number on its way between two types.
#[derive(Debug, Clone, Copy)]
pub enum Num {
    I(i128),
    F(f64),
}

/// One element type in native-endian bytes.
pub(crate) trait Elem: Copy {
    const SIZE: usize;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
    /// Converts with C cast semantics; `true` if the value was out of range.
    fn from_num(v: Num) -> (Self, bool);
    fn to_num(self) -> Num;
}

macro_rules! elem {
    ($kind:ident: $($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn get(b: &[u8]) -> Self { <$t>::from_ne_bytes(b[..Self::SIZE].try_into().unwrap()) }
            #[inline(always)]
            fn put(self, b: &mut [u8]) { b[..Self::SIZE].copy_from_slice(&self.to_ne_bytes()) }
            #[inline(always)]
            fn from_num(v: Num) -> (Self, bool) { elem!(@from $kind $t, v) }
            #[inline(always)]
            fn to_num(self) -> Num { elem!(@to $kind self) }
        }
    )*};
    (@from int $t:ty, $v:expr) => {
        match $v {
            Num::I(v) => (v as $t, v < <$t>::MIN as i128 || v > <$t>::MAX as i128),
            Num::F(v) => {
                let t = v.trunc();
                (v as $t, !(t >= <$t>::MIN as f64 && t <= <$t>::MAX as f64))
            }
        }
    };
    (@from float $t:ty, $v:expr) => {
        match $v {
            Num::I(v) => (v as $t, false),
            // only a finite value beyond the type's range (f32)
            Num::F(v) => (v as $t, v.is_finite() && v.abs() > <$t>::MAX as f64),
        }
    };
    (@to int $x:expr) => { Num::I($x as i128) };
    (@to float $x:expr) => { Num::F($x as f64) };
}
elem!(int: i8, u8, i16, u16, i32, u32, i64, u64);
elem!(float: f32, f64);

/// Converts numbers to `T` with [`Elem::from_num`]; `range` is set if one
/// was out of range.
pub(crate) fn from_nums<T: Elem>(nums: &[Num], range: &mut bool) -> Vec<T> {
    nums.iter()
        .map(|&n| {
            let (v, r) = T::from_num(n);
            *range |= r;
            v
        })
        .collect()
}

fn run<S: Elem, D: Elem>(src: &[u8], dst: &mut [u8], n: usize) -> bool {
    let mut range = false;
    for i in 0..n {
        let (v, r) = D::from_num(S::get(&src[i * S::SIZE..]).to_num());
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
