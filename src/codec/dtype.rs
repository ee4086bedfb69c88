//! numpy data types as numcodecs' array filters name them (`"<f8"`,
//! `"|u1"`, `">i2"`, `"|b1"`, `"<U5"`), their elements, and numpy's rules
//! for them: casts (`ndarray.astype`), type promotion (`np.result_type`)
//! and arithmetic in a given type. numcodecs' filters run numpy code, and
//! reproducing what they store means reproducing numpy's arithmetic.

/// The kind of a numpy dtype (`dtype.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    UInt,
    Float,
    /// `U`: fixed-width UCS-4 text, `size` bytes (4 per character).
    Unicode,
    /// `S`: fixed-width bytes.
    Bytes,
    /// `O`: Python objects (a Zarr `|O` array, after its object codec).
    Object,
    Other,
}

/// A numpy dtype: kind, item size in bytes and byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataType {
    pub kind: Kind,
    pub size: usize,
    pub big_endian: bool,
}

/// One element's value: integers and booleans (0/1) exactly, floats as an
/// `f64` holding a value of the element's own precision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    I(i128),
    F(f64),
}

impl DataType {
    /// Raw bytes (`|u1`): what byte-oriented codecs produce.
    pub const fn bytes() -> DataType {
        DataType { kind: Kind::UInt, size: 1, big_endian: false }
    }

    pub const fn new(kind: Kind, size: usize, big_endian: bool) -> DataType {
        DataType { kind, size, big_endian }
    }

    /// Parses numpy's `dtype.str` (`<f8`, `|b1`, `>i4`, `<U5`, `|O`), a
    /// code without byte order (`f8`, `?`) or a type name (`float32`).
    /// No byte order, `=` and `|` mean little-endian (the platforms this
    /// library is built for).
    pub fn parse(s: &str) -> Option<DataType> {
        let named = match s {
            "bool" | "?" | "b1" => Some((Kind::Bool, 1)),
            "int8" => Some((Kind::Int, 1)),
            "int16" => Some((Kind::Int, 2)),
            "int32" => Some((Kind::Int, 4)),
            "int64" => Some((Kind::Int, 8)),
            "uint8" => Some((Kind::UInt, 1)),
            "uint16" => Some((Kind::UInt, 2)),
            "uint32" => Some((Kind::UInt, 4)),
            "uint64" => Some((Kind::UInt, 8)),
            "float16" => Some((Kind::Float, 2)),
            "float32" => Some((Kind::Float, 4)),
            "float64" => Some((Kind::Float, 8)),
            _ => None,
        };
        if let Some((kind, size)) = named {
            return Some(DataType::new(kind, size, false));
        }
        let (big_endian, body) = match s.as_bytes().first()? {
            b'>' => (true, &s[1..]),
            b'<' | b'|' | b'=' => (false, &s[1..]),
            _ => (false, s),
        };
        let kind = match body.as_bytes().first()? {
            b'b' | b'?' => Kind::Bool,
            b'i' => Kind::Int,
            b'u' => Kind::UInt,
            b'f' => Kind::Float,
            b'U' => Kind::Unicode,
            b'S' => Kind::Bytes,
            b'O' => Kind::Object,
            _ => Kind::Other,
        };
        // `get`: the first character may be a multi-byte one (found by
        // tests/fuzz_metadata.rs: "ခ")
        let digits = body.get(1..)?;
        let n: usize = match (kind, digits) {
            (Kind::Object, "") => 8,
            (Kind::Bool, "") => 1,
            _ => digits.parse().ok()?,
        };
        let size = if kind == Kind::Unicode { n.checked_mul(4)? } else { n };
        let dt = DataType::new(kind, size, big_endian && size > 1);
        match (kind, size) {
            (Kind::Bool, 1) | (Kind::Int | Kind::UInt, 1 | 2 | 4 | 8) | (Kind::Float, 2 | 4 | 8) => Some(dt),
            (Kind::Unicode | Kind::Bytes | Kind::Object | Kind::Other, _) => Some(dt),
            _ => None,
        }
    }

    /// numpy's `dtype.str`.
    pub fn str(&self) -> String {
        let order = if self.size == 1 || matches!(self.kind, Kind::Bytes | Kind::Object) {
            '|'
        } else if self.big_endian {
            '>'
        } else {
            '<'
        };
        match self.kind {
            Kind::Bool => "|b1".into(),
            Kind::Int => format!("{order}i{}", self.size),
            Kind::UInt => format!("{order}u{}", self.size),
            Kind::Float => format!("{order}f{}", self.size),
            Kind::Unicode => format!("{order}U{}", self.size / 4),
            Kind::Bytes => format!("|S{}", self.size),
            Kind::Object => "|O".into(),
            Kind::Other => format!("{order}V{}", self.size),
        }
    }

    /// Booleans, integers and floats of numpy's sizes.
    pub fn is_number(&self) -> bool {
        matches!(self.kind, Kind::Bool | Kind::Int | Kind::UInt | Kind::Float)
    }

    pub fn is_float(&self) -> bool {
        self.kind == Kind::Float
    }

    /// The same type in native (little-endian) byte order.
    fn native(self) -> DataType {
        DataType { big_endian: false, ..self }
    }

    /// The number of elements in `n` bytes (`None` if `n` is not a whole
    /// number of them, where numpy's `view` fails).
    pub fn count(&self, n: usize) -> Option<usize> {
        if self.size == 0 || !n.is_multiple_of(self.size) {
            return None;
        }
        Some(n / self.size)
    }

    /// The unsigned integer bits of one element (sizes 1-8).
    fn load_bits(&self, b: &[u8]) -> u64 {
        let mut v = 0u64;
        if self.big_endian {
            for &x in &b[..self.size] {
                v = v << 8 | u64::from(x);
            }
        } else {
            for &x in b[..self.size].iter().rev() {
                v = v << 8 | u64::from(x);
            }
        }
        v
    }

    fn store_bits(&self, v: u64, out: &mut [u8]) {
        let le = v.to_le_bytes();
        let out = &mut out[..self.size];
        out.copy_from_slice(&le[..self.size]);
        if self.big_endian {
            out.reverse();
        }
    }

    /// Reads one element of a numeric type.
    pub fn load(&self, b: &[u8]) -> Val {
        let bits = self.load_bits(b);
        match self.kind {
            Kind::Bool => Val::I(i128::from(bits != 0)),
            Kind::UInt => Val::I(i128::from(bits)),
            Kind::Int => {
                let shift = 64 - 8 * self.size as u32;
                Val::I(i128::from(((bits << shift) as i64) >> shift))
            }
            Kind::Float => Val::F(match self.size {
                2 => f16_to_f64(bits as u16),
                4 => f64::from(f32::from_bits(bits as u32)),
                _ => f64::from_bits(bits),
            }),
            _ => Val::I(0),
        }
    }

    /// Writes one element, cast to this type first (numpy's `astype`).
    pub fn store(&self, v: Val, out: &mut [u8]) {
        let bits = match (self.kind, self.cast(v)) {
            (Kind::Float, Val::F(x)) => match self.size {
                2 => u64::from(f64_to_f16(x)),
                4 => u64::from((x as f32).to_bits()),
                _ => x.to_bits(),
            },
            (_, Val::I(i)) => i as u64,
            (_, Val::F(_)) => 0,
        };
        self.store_bits(bits, out);
    }

    /// numpy's unsafe cast of a value to this type: integers wrap, floats
    /// round to nearest even, floats become integers by truncation (and
    /// NaN, infinities and values out of range as numpy gives them on
    /// x86-64, through the 32- or 64-bit conversion its C casts compile
    /// to), anything non-zero (NaN too) is `True`.
    pub fn cast(&self, v: Val) -> Val {
        match self.kind {
            Kind::Bool => Val::I(i128::from(match v {
                Val::I(i) => i != 0,
                Val::F(x) => x != 0.0,
            })),
            Kind::Int | Kind::UInt => {
                let i = match v {
                    Val::I(i) => i,
                    Val::F(x) => float_to_int(x, self.kind, self.size),
                };
                Val::I(wrap(i, self.kind, self.size))
            }
            Kind::Float => {
                let x = match v {
                    Val::I(i) => match self.size {
                        4 => f64::from(i as f32),
                        _ => i as f64,
                    },
                    Val::F(x) => x,
                };
                Val::F(round_float(x, self.size))
            }
            _ => v,
        }
    }
}

/// An integer wrapped to `size` bytes, signed for `Int`.
fn wrap(i: i128, kind: Kind, size: usize) -> i128 {
    let bits = 8 * size as u32;
    let m = i as u128 & (u128::MAX >> (128 - bits));
    if kind == Kind::Int && m >> (bits - 1) & 1 == 1 {
        m as i128 - (1i128 << bits)
    } else {
        m as i128
    }
}

/// x86-64's truncating float-to-int conversions (`cvttsd2si`): out of
/// range and NaN give the "integer indefinite" value, the type's minimum.
fn cvtt32(x: f64) -> i64 {
    if x.is_nan() || x <= -2_147_483_649.0 || x >= 2_147_483_648.0 {
        i64::from(i32::MIN)
    } else {
        x as i64
    }
}

fn cvtt64(x: f64) -> i128 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if x.is_nan() || !(-TWO63..TWO63).contains(&x) {
        i128::from(i64::MIN)
    } else {
        i128::from(x as i64)
    }
}

/// numpy's float -> integer cast on x86-64 (C casts: exact truncation in
/// range; outside it what the compiled conversion yields).
fn float_to_int(x: f64, kind: Kind, size: usize) -> i128 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    match (kind, size) {
        (Kind::Int, 8) => cvtt64(x),
        (Kind::UInt, 8) => {
            if x >= TWO63 {
                (cvtt64(x - TWO63) as u64 ^ 1 << 63) as i128
            } else {
                i128::from(cvtt64(x) as u64)
            }
        }
        (Kind::UInt, 4) => cvtt64(x),
        _ => i128::from(cvtt32(x)),
    }
}

/// A float rounded to nearest even at `size` bytes' precision.
fn round_float(x: f64, size: usize) -> f64 {
    match size {
        2 => f16_to_f64(f64_to_f16(x)),
        4 => f64::from(x as f32),
        _ => x,
    }
}

/// IEEE half precision bits -> value (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from(h >> 10 & 0x1f);
    let man = f64::from(h & 0x3ff);
    sign * match exp {
        0 => man * 2f64.powi(-24),
        0x1f if man == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        e => (1024.0 + man) * 2f64.powi(e - 25),
    }
}

/// A value -> IEEE half precision bits, rounded to nearest even (as
/// numpy's `npy_double_to_half`: overflow to infinity, gradual underflow).
pub fn f64_to_f16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    if a < 2f64.powi(-14) {
        // subnormal (a result of 1024 is the smallest normal, encoded alike)
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mut q = (a * 2f64.powi(10 - e)).round_ties_even() as u16;
    let mut e = e;
    if q == 2048 {
        q = 1024;
        e += 1;
    }
    sign | ((e + 15) as u16) << 10 | (q - 1024)
}

/// numpy's type promotion of two numeric types (`np.result_type`), in
/// native byte order.
pub fn promote(a: DataType, b: DataType) -> DataType {
    use Kind::*;
    let (a, b) = (a.native(), b.native());
    match (a.kind, b.kind) {
        (Bool, _) => b,
        (_, Bool) => a,
        (Float, Float) | (Int, Int) | (UInt, UInt) => DataType { size: a.size.max(b.size), ..a },
        (Int, UInt) | (UInt, Int) => {
            let (s, u) = if a.kind == Int { (a, b) } else { (b, a) };
            if s.size > u.size {
                s
            } else if u.size < 8 {
                DataType::new(Int, u.size * 2, false)
            } else {
                DataType::new(Float, 8, false)
            }
        }
        (Float, _) | (_, Float) => {
            let (f, i) = if a.kind == Float { (a, b) } else { (b, a) };
            let need = match i.size {
                1 => 2,
                2 => 4,
                _ => 8,
            };
            DataType::new(Float, f.size.max(need), false)
        }
        _ => a,
    }
}

/// The four arithmetic operations numcodecs' filters use.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// `a op b` computed in type `t` (both already values of `t`), as numpy
/// does it: integers wrap, floats round once to `t`'s precision (an
/// operation in `f64` rounded to `f32` or `f16` is exactly the operation
/// in that precision).
pub fn arith(t: DataType, op: Op, a: Val, b: Val) -> Val {
    let f = |v: Val| match v {
        Val::I(i) => i as f64,
        Val::F(x) => x,
    };
    let i = |v: Val| match v {
        Val::I(i) => i,
        Val::F(x) => x as i128,
    };
    match t.kind {
        Kind::Float => {
            let (x, y) = (f(a), f(b));
            Val::F(round_float(
                match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => x / y,
                },
                t.size,
            ))
        }
        _ => {
            let (x, y) = (i(a), i(b));
            let r = match op {
                Op::Add => x.wrapping_add(y),
                Op::Sub => x.wrapping_sub(y),
                Op::Mul => x.wrapping_mul(y),
                Op::Div => x.checked_div(y).unwrap_or(0),
            };
            t.cast(Val::I(r))
        }
    }
}

/// numpy's `around` (half to even) of a value of type `t`.
pub fn around(v: Val) -> Val {
    match v {
        Val::F(x) => Val::F(x.round_ties_even()),
        i => i,
    }
}

/// Maps every element of `data` (an array of `from`) to an element of `to`
/// through `f`, stored with numpy's cast to `to`. `expect`: the output
/// size decoding must produce (checked before allocating, so that corrupt
/// input cannot make a larger buffer than the chunk).
pub(super) fn map_elements(
    data: &[u8],
    from: DataType,
    to: DataType,
    codec: &'static str,
    expect: Option<usize>,
    mut f: impl FnMut(Val) -> Val,
) -> super::CodecResult<Vec<u8>> {
    let corrupt = super::CodecError::Corrupt(codec);
    let n = from.count(data.len()).ok_or(corrupt.clone())?;
    let len = n.checked_mul(to.size).ok_or(corrupt.clone())?;
    if expect.is_some_and(|e| e != len) {
        return Err(corrupt);
    }
    let mut out = super::out_buf(len)?;
    for (i, o) in data.chunks_exact(from.size).zip(out.chunks_exact_mut(to.size)) {
        to.store(f(from.load(i)), o);
    }
    Ok(out)
}

/// The size an array of `from` has as an array of `to` (`None` if `n` is
/// not a whole number of `from` elements).
pub(super) fn resized(n: usize, from: DataType, to: DataType) -> Option<usize> {
    from.count(n)?.checked_mul(to.size)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    #[test]
    fn parse_and_str() {
        for s in ["<f8", ">i2", "|u1", "|b1", "<U5", "|S3", "|O", "<f2", ">u8"] {
            assert_eq!(dt(s).str(), s);
        }
        assert_eq!(dt("f4"), dt("<f4"));
        assert_eq!(dt("float64"), dt("<f8"));
        assert_eq!(dt(">i1"), dt("|i1"));
        assert_eq!(dt("<U5").size, 20);
        for bad in ["", "<", "<f3", "<i16", "<fx", "<b2", "ခ", "<ခ1", ">ā"] {
            assert_eq!(DataType::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn numpy_casts() {
        // as numpy 2 on x86-64 (values from numpy: see tests/interop/codecs.py's
        // filter checks for the in-range ones)
        let f = |x: f64, t: &str| match dt(t).cast(Val::F(x)) {
            Val::I(i) => i,
            Val::F(_) => unreachable!(),
        };
        let cases: [(&str, [f64; 7], [i128; 7]); 3] = [
            ("<i2", [f64::NAN, f64::INFINITY, -1e300, 1e10, 70000.0, -1.5, 2.5], [0, 0, 0, 0, 4464, -1, 2]),
            ("|u1", [f64::NAN, f64::INFINITY, -1e300, 1e10, 70000.0, -1.5, 300.7], [0, 0, 0, 0, 112, 255, 44]),
            (
                "<u8",
                [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e20, -1.0, 9.223_372_036_854_776e18, 3.9],
                [1 << 63, 0, 1 << 63, 0, u64::MAX as i128, 1 << 63, 3],
            ),
        ];
        for (t, xs, want) in cases {
            for (x, w) in xs.iter().zip(want) {
                assert_eq!(f(*x, t), w, "{x} as {t}");
            }
        }
        assert_eq!(f(f64::NAN, "<i4"), i32::MIN as i128);
        assert_eq!(f(5e9, "<u4"), 705032704);
        assert_eq!(f(-1.0, "<u4"), u32::MAX as i128);
        assert_eq!(f(f64::NAN, "|b1"), 1);
        assert_eq!(f(-0.0, "|b1"), 0);
        assert_eq!(dt("|i1").cast(Val::I(200)), Val::I(-56));
        assert_eq!(dt("<f4").cast(Val::I(16777217)), Val::F(16777216.0));
    }

    #[test]
    fn half_precision() {
        // numpy: np.array([...], 'f8').astype('f2').view('u2')
        let xs = [1e300, 65520.0, 65519.99, 5.96e-8, 2.98e-8, 2.9802322387695312e-08, 1e-8, 1.0, -2.5, 0.1];
        let want = [31744u16, 31744, 31743, 1, 0, 0, 0, 0x3c00, 0xc100, 0x2e66];
        for (x, w) in xs.iter().zip(want) {
            assert_eq!(f64_to_f16(*x), w, "{x}");
        }
        for h in 0..=u16::MAX {
            let x = f16_to_f64(h);
            if !x.is_nan() {
                assert_eq!(f64_to_f16(x), h, "{h:#x}");
            }
        }
    }

    #[test]
    fn promotion() {
        let p = |a: &str, b: &str| promote(dt(a), dt(b)).str();
        assert_eq!(p("|i1", "<i4"), "<i4");
        assert_eq!(p("|u1", "|i1"), "<i2");
        assert_eq!(p("<u4", "<i4"), "<i8");
        assert_eq!(p("<u8", "<i8"), "<f8");
        assert_eq!(p("<i4", "<f4"), "<f8");
        assert_eq!(p("<i2", "<f4"), "<f4");
        assert_eq!(p("|u1", "<f2"), "<f2");
        assert_eq!(p("<i2", "<f2"), "<f4");
        assert_eq!(p(">f8", "|b1"), "<f8");
    }

    #[test]
    fn elements() {
        let t = dt(">i2");
        assert_eq!(t.load(&[0xff, 0xfe]), Val::I(-2));
        let mut b = [0u8; 2];
        t.store(Val::I(-2), &mut b);
        assert_eq!(b, [0xff, 0xfe]);
        let f = dt("<f4");
        let mut b = [0u8; 4];
        f.store(Val::F(0.1), &mut b);
        assert_eq!(b, 0.1f32.to_le_bytes());
        assert_eq!(arith(f, Op::Sub, Val::F(1.0), f.cast(Val::F(0.1))), Val::F(f64::from(1f32 - 0.1f32)));
        assert_eq!(arith(dt("|u1"), Op::Add, Val::I(250), Val::I(10)), Val::I(4));
    }
}
