//! numcodecs' object codecs `vlen-utf8` and `vlen-bytes` (Zarr v2 `|O`
//! arrays): a little-endian u32 item count, then per item a little-endian
//! u32 byte length and the bytes (UTF-8 text for `vlen-utf8`). They are the
//! first filter of an array; any other filters and the compressor work on
//! the bytes they produce.

use super::{CodecError, CodecResult};

/// numcodecs ids of the variable-length object codecs this build decodes.
pub const IDS: [&str; 2] = ["vlen-utf8", "vlen-bytes"];

/// numcodecs ids of object codecs (for `|O` arrays), known or not.
pub fn is_object_codec(id: &str) -> bool {
    matches!(id, "vlen-utf8" | "vlen-bytes" | "vlen-array" | "json2" | "json" | "msgpack2" | "pickle")
}

/// The items of an encoded buffer, as byte ranges into `data`. `expected`:
/// the number of items the chunk must hold.
pub fn decode(data: &[u8], expected: usize) -> CodecResult<Vec<std::ops::Range<usize>>> {
    let corrupt = CodecError::Corrupt("vlen");
    let u32_at = |pos: usize| -> CodecResult<usize> {
        let b = data.get(pos..pos + 4).ok_or(CodecError::Corrupt("vlen"))?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    };
    let n = u32_at(0)?;
    if n != expected {
        return Err(corrupt);
    }
    let mut items = Vec::new();
    items.try_reserve_exact(n).map_err(|_| CodecError::NoMemory(n))?;
    let mut pos = 4usize;
    for _ in 0..n {
        let len = u32_at(pos)?;
        let start = pos + 4;
        let end = start.checked_add(len).filter(|&e| e <= data.len()).ok_or(CodecError::Corrupt("vlen"))?;
        items.push(start..end);
        pos = end;
    }
    if pos != data.len() {
        return Err(corrupt);
    }
    Ok(items)
}

/// Encodes items as numcodecs does. `limit`: the most bytes the encoded
/// buffer may have (the lengths come from callers); beyond it, or when the
/// memory cannot be had, `NoMemory`, never an abort.
pub fn encode<'a, I>(items: I, limit: usize) -> CodecResult<Vec<u8>>
where
    I: ExactSizeIterator<Item = &'a [u8]> + Clone,
{
    let too_long = |n: usize| CodecError::BadConfig("vlen", format!("{n} items or bytes do not fit 32 bits"));
    let n = items.len();
    let total = items
        .clone()
        .try_fold(4usize, |acc, it| acc.checked_add(4)?.checked_add(it.len()))
        .ok_or(CodecError::NoMemory(usize::MAX))?;
    if total > limit {
        return Err(CodecError::NoMemory(total));
    }
    let mut out = Vec::new();
    crate::limits::try_reserve(&mut out, total).map_err(|_| CodecError::NoMemory(total))?;
    out.extend_from_slice(&u32::try_from(n).map_err(|_| too_long(n))?.to_le_bytes());
    for it in items {
        out.extend_from_slice(&u32::try_from(it.len()).map_err(|_| too_long(it.len()))?.to_le_bytes());
        out.extend_from_slice(it);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip_and_corrupt() {
        let items: Vec<&[u8]> = vec![b"a", b"", "h\u{e9}llo \u{1F600}".as_bytes()];
        let enc = super::encode(items.iter().copied(), usize::MAX).unwrap();
        assert_eq!(enc.len(), 4 + 3 * 4 + 1 + 11);
        assert!(matches!(super::encode(items.iter().copied(), enc.len() - 1), Err(super::CodecError::NoMemory(_))));
        assert_eq!(&enc[..8], &[3, 0, 0, 0, 1, 0, 0, 0]);
        let r = super::decode(&enc, 3).unwrap();
        let got: Vec<&[u8]> = r.iter().map(|r| &enc[r.clone()]).collect();
        assert_eq!(got, items);
        assert!(super::decode(&enc, 2).is_err());
        assert!(super::decode(&enc[..enc.len() - 1], 3).is_err());
        let mut long = enc.clone();
        long.push(0);
        assert!(super::decode(&long, 3).is_err());
        assert!(super::decode(&[1, 0], 1).is_err());
    }
}
