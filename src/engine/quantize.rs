//! netCDF-C's quantization (`nc_def_var_quantize`): BitGroom, Granular
//! BitRound and BitRound applied to float and double values on write, with
//! netCDF-C 4.10's rules and the same stored bits (`nc4_convert_type` in
//! `libsrc4/nc4var.c`, the NCZarr side in `libnczarr/zvar.c`).
//!
//! Values equal to the fill value, zeros of either sign and NaNs are never
//! changed. BitGroom alternates by position in the values of one write call:
//! even positions are shaved (low bits zeroed), odd ones set (low bits one).

use super::consts::*;
use super::error::*;
use super::model::Att;
use super::types::Values;
use super::NcResult;

/// The attribute netCDF-C writes on a quantized variable, one per mode; its
/// value is the number of significant digits (bits for BitRound).
const BITGROOM_ATT: &str = "_QuantizeBitGroomNumberOfSignificantDigits";
const GRANULARBR_ATT: &str = "_QuantizeGranularBitRoundNumberOfSignificantDigits";
const BITROUND_ATT: &str = "_QuantizeBitRoundNumberOfSignificantBits";

/// A variable's quantization: mode (`NC_QUANTIZE_*`, or `NC_NOQUANTIZE`,
/// the default) and number of significant digits (bits for BitRound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Quantize {
    pub mode: i32,
    pub nsd: i32,
}

impl Quantize {
    /// Checks a setting for a variable of type `nctype` as netCDF-C's
    /// `ncz_def_var_extra` does: four modes; float/double only; nsd from 1
    /// to the type's maximum (digits, or bits for BitRound). Turning
    /// quantization off is allowed for any type and forgets nsd.
    pub fn new(nctype: NcType, mode: i32, nsd: i32) -> NcResult<Quantize> {
        let max = match (mode, nctype) {
            (NC_NOQUANTIZE, _) => return Ok(Quantize::default()),
            (NC_QUANTIZE_BITGROOM | NC_QUANTIZE_GRANULARBR, NC_FLOAT) => NC_QUANTIZE_MAX_FLOAT_NSD,
            (NC_QUANTIZE_BITGROOM | NC_QUANTIZE_GRANULARBR, NC_DOUBLE) => NC_QUANTIZE_MAX_DOUBLE_NSD,
            (NC_QUANTIZE_BITROUND, NC_FLOAT) => NC_QUANTIZE_MAX_FLOAT_NSB,
            (NC_QUANTIZE_BITROUND, NC_DOUBLE) => NC_QUANTIZE_MAX_DOUBLE_NSB,
            (NC_QUANTIZE_BITGROOM | NC_QUANTIZE_GRANULARBR | NC_QUANTIZE_BITROUND, _) => {
                return Err(NcError::with(NC_EINVAL, "only float and double variables can be quantized"))
            }
            _ => return Err(NcError::with(NC_EINVAL, format!("unknown quantize mode {mode}"))),
        };
        if nsd <= 0 || nsd > max {
            return Err(NcError::with(NC_EINVAL, format!("number of significant digits {nsd} is not in 1..={max}")));
        }
        Ok(Quantize { mode, nsd })
    }

    pub fn is_on(&self) -> bool {
        self.mode != NC_NOQUANTIZE
    }

    /// The attribute recording this setting (name, value), if any.
    pub fn attribute(&self) -> Option<(&'static str, i32)> {
        let name = match self.mode {
            NC_QUANTIZE_BITGROOM => BITGROOM_ATT,
            NC_QUANTIZE_GRANULARBR => GRANULARBR_ATT,
            NC_QUANTIZE_BITROUND => BITROUND_ATT,
            _ => return None,
        };
        Some((name, self.nsd))
    }

    /// The setting of a variable read from a store: its first quantize
    /// attribute readable as an `int` (netCDF-C's `NCZ_ensure_quantizer`
    /// looks for BitGroom, then Granular BitRound, then BitRound).
    pub fn from_atts(atts: &[Att]) -> Quantize {
        for (mode, name) in [
            (NC_QUANTIZE_BITGROOM, BITGROOM_ATT),
            (NC_QUANTIZE_GRANULARBR, GRANULARBR_ATT),
            (NC_QUANTIZE_BITROUND, BITROUND_ATT),
        ] {
            let Some(a) = atts.iter().find(|a| a.name == name) else { continue };
            if let Ok((Values::Int(v), false)) = a.values.convert(NC_INT) {
                if let Some(&nsd) = v.first() {
                    return Quantize { mode, nsd };
                }
            }
        }
        Quantize::default()
    }

    /// Quantizes native-endian values of the variable's type (float or
    /// double) in place. `fill` is the variable's fill value. The values
    /// stand at positions `first`, `first + 1`, ... of the write call;
    /// BitGroom alternates on the position.
    pub fn apply(&self, bytes: &mut [u8], fill: &Values, first: usize) {
        match fill {
            Values::Float(f) => self.apply_to::<f32>(bytes, f.first().copied().unwrap_or(NC_FILL_FLOAT), first),
            Values::Double(f) => self.apply_to::<f64>(bytes, f.first().copied().unwrap_or(NC_FILL_DOUBLE), first),
            _ => {}
        }
    }

    fn apply_to<T: Float>(&self, bytes: &mut [u8], fill: T, first: usize) {
        let n = bytes.len() / T::SIZE;
        let fixed = match self.mode {
            NC_QUANTIZE_BITGROOM | NC_QUANTIZE_BITROUND => Some(masks(T::WIDTH, T::MANT - self.fixed_bits())),
            NC_QUANTIZE_GRANULARBR => None,
            _ => return,
        };
        let mut one = |i: usize, pos: usize| {
            let b = &mut bytes[i * T::SIZE..(i + 1) * T::SIZE];
            let v = T::get(b);
            // netCDF-C's Granular BitRound compares a float as a double
            // with the float fill value promoted: the same test
            let d = v.wide();
            if v == fill || d == 0.0 || d.is_nan() {
                return;
            }
            let bits = v.bits();
            let q = match fixed {
                Some((zro, one, _)) if self.mode == NC_QUANTIZE_BITGROOM => {
                    if pos.is_multiple_of(2) {
                        bits & zro
                    } else {
                        bits | one
                    }
                }
                Some((zro, _, half)) => round(bits, zro, half, T::WIDTH),
                None => {
                    let (zro, _, half) = masks(T::WIDTH, T::MANT - granular_bits(d, self.nsd));
                    round(bits, zro, half, T::WIDTH)
                }
            };
            T::from_bits(q).put(b);
        };
        (0..n).for_each(|i| one(i, first + i));
    }

    /// Explicit significand bits BitGroom and BitRound keep: BitGroom
    /// rounds the decimal digits up to bits and adds one; BitRound's nsd
    /// is bits.
    fn fixed_bits(&self) -> i32 {
        if self.mode == NC_QUANTIZE_BITGROOM {
            // (unsigned short)ceil(nsd * log2(10)) + 1
            ((f64::from(self.nsd) * bits_per_digit()).ceil() as u16) as i32 + 1
        } else {
            self.nsd
        }
    }
}

fn bits_per_digit() -> f64 {
    std::f64::consts::LN_10 / std::f64::consts::LN_2
}

/// C's `(int)x` as x86-64 computes it (`cvttsd2si`): truncation, and
/// `INT_MIN` for NaN and values out of range (infinities reach here).
fn c_int(x: f64) -> i32 {
    if x > -2147483649.0 && x < 2147483648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`; zero, infinities and
/// NaN come back as they are with exponent 0.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // subnormal: scale into the normal range first
        let (m, e) = frexp(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    (f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52)), exp - 1022)
}

/// Granular BitRound's explicit bits for one value (netCDF-C's formula,
/// with its integer widths: an `unsigned short` decremented once).
fn granular_bits(val: f64, nsd: i32) -> i32 {
    let bit_per_dgt = bits_per_digit();
    let dgt_per_bit = std::f64::consts::LN_2 / std::f64::consts::LN_10;
    let (mnt, xpn) = frexp(val);
    let mnt_fabs = mnt.abs();
    let mnt_log10_fabs = mnt_fabs.log10();
    let dgt_nbr = c_int((f64::from(xpn) * dgt_per_bit + mnt_log10_fabs).floor()).wrapping_add(1);
    let qnt_pwr = c_int((bit_per_dgt * f64::from(dgt_nbr.wrapping_sub(nsd))).floor());
    let prc: u16 = if mnt_fabs == 0.0 {
        0
    } else {
        c_int((f64::from(xpn) - bit_per_dgt * mnt_log10_fabs).floor()).wrapping_sub(qnt_pwr).wrapping_abs() as u16
    };
    i32::from(prc.wrapping_sub(1))
}

/// (shave mask, set mask, rounding bit) zeroing `zero_bits` low bits of
/// a `width`-bit value. A shift count outside the width wraps as x86-64's
/// shift instructions do (netCDF-C's C shifts compile to them).
fn masks(width: u32, zero_bits: i32) -> (u64, u64, u64) {
    let all = u64::MAX >> (64 - width);
    let zro = (all << ((zero_bits as u32) & (width - 1))) & all;
    let one = !zro & all;
    (zro, one, one & (zro >> 1))
}

/// BitRound: add the rounding bit (carrying into the exponent, wrapping in
/// the width as C's unsigned addition does), then shave.
fn round(bits: u64, zro: u64, half: u64, width: u32) -> u64 {
    (bits.wrapping_add(half) & (u64::MAX >> (64 - width))) & zro
}

/// float and double as quantization sees them.
trait Float: Copy + PartialEq {
    const SIZE: usize;
    const WIDTH: u32;
    /// Explicit significand bits.
    const MANT: i32;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
    fn wide(self) -> f64;
    fn bits(self) -> u64;
    fn from_bits(b: u64) -> Self;
}

macro_rules! float {
    ($t:ty, $mant:expr) => {
        impl Float for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const WIDTH: u32 = 8 * std::mem::size_of::<$t>() as u32;
            const MANT: i32 = $mant;
            fn get(b: &[u8]) -> Self {
                <$t>::from_ne_bytes(b.try_into().expect("one value"))
            }
            fn put(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_ne_bytes())
            }
            fn wide(self) -> f64 {
                f64::from(self)
            }
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn from_bits(b: u64) -> Self {
                <$t>::from_bits(b as _)
            }
        }
    };
}
float!(f32, 23);
float!(f64, 52);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert!(Quantize::new(NC_INT, NC_QUANTIZE_BITGROOM, 3).is_err());
        assert_eq!(Quantize::new(NC_INT, NC_NOQUANTIZE, 99).unwrap(), Quantize::default());
        assert!(Quantize::new(NC_FLOAT, NC_QUANTIZE_BITGROOM, 7).is_err());
        assert!(Quantize::new(NC_FLOAT, NC_QUANTIZE_BITGROOM, 6).is_ok());
        assert!(Quantize::new(NC_FLOAT, NC_QUANTIZE_BITROUND, 23).is_ok());
        assert!(Quantize::new(NC_DOUBLE, NC_QUANTIZE_GRANULARBR, 16).is_err());
        assert!(Quantize::new(NC_DOUBLE, NC_QUANTIZE_BITROUND, 0).is_err());
        assert!(Quantize::new(NC_DOUBLE, 4, 1).is_err());
    }

    #[test]
    fn frexp_matches_c() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-0.75), (-0.75, 0));
        assert_eq!(frexp(f64::from_bits(1)), (0.5, -1073));
    }

    #[test]
    fn bitgroom_and_bitround() {
        let q = Quantize::new(NC_FLOAT, NC_QUANTIZE_BITGROOM, 3).unwrap();
        let mut v = [1.1f32, 1.1, 0.0, f32::NAN, NC_FILL_FLOAT];
        let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        q.apply(&mut b, &Values::Float(vec![NC_FILL_FLOAT]), 0);
        for (x, c) in v.iter_mut().zip(b.chunks_exact(4)) {
            *x = f32::from_ne_bytes(c.try_into().unwrap());
        }
        // 3 digits keep 11 explicit bits: 12 are shaved, then set
        assert_eq!(v[0].to_bits(), 1.1f32.to_bits() & !0xfff);
        assert_eq!(v[1].to_bits(), 1.1f32.to_bits() | 0xfff);
        assert_eq!(v[2], 0.0);
        assert!(v[3].is_nan());
        assert_eq!(v[4], NC_FILL_FLOAT);
        let q = Quantize::new(NC_DOUBLE, NC_QUANTIZE_BITROUND, 52).unwrap();
        let mut d = std::f64::consts::PI.to_ne_bytes();
        q.apply(&mut d, &Values::Double(vec![0.5]), 0);
        assert_eq!(f64::from_ne_bytes(d), std::f64::consts::PI);
        // BitRound rounds: 1 bit of 1.75 (1.11b) is 2.0
        let q = Quantize::new(NC_DOUBLE, NC_QUANTIZE_BITROUND, 1).unwrap();
        let mut d = 1.75f64.to_ne_bytes();
        q.apply(&mut d, &Values::Double(vec![0.5]), 0);
        assert_eq!(f64::from_ne_bytes(d), 2.0);
        // BitGroom alternates on the position it is given
        let q = Quantize::new(NC_FLOAT, NC_QUANTIZE_BITGROOM, 3).unwrap();
        let mut b = 1.1f32.to_ne_bytes();
        q.apply(&mut b, &Values::Float(vec![NC_FILL_FLOAT]), 7);
        assert_eq!(f32::from_ne_bytes(b).to_bits(), 1.1f32.to_bits() | 0xfff);
    }
}
