//! How a variable's strings are laid out in a decoded chunk, and their
//! encoding: `|Sn` (n bytes, NUL padded), `<Un`/`>Un` (n UCS-4 code units),
//! or variable-length (`|O`, cells pointing into the chunk's bytes).

/// How strings are laid out in a chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum StrKind {
    None,
    /// `|Sn`: n bytes, NUL padded.
    Fixed(usize),
    /// `<Un`: n UCS-4 code units.
    Ucs4(usize, bool),
    /// `|O` with `vlen-utf8`/`vlen-bytes`: a decoded chunk is one cell per
    /// element (see [`VLEN_CELL`]) followed by the bytes the cells point into.
    Vlen,
}

/// A decoded variable-length element: offset and length (native u64s) into
/// the bytes after the chunk's cells; offset `u64::MAX` is the fill value.
pub(super) const VLEN_CELL: usize = 16;
pub(super) const VLEN_FILL: u64 = u64::MAX;

pub(super) fn vlen_cell(off: u64, len: u64) -> [u8; VLEN_CELL] {
    let mut c = [0u8; VLEN_CELL];
    c[..8].copy_from_slice(&off.to_ne_bytes());
    c[8..].copy_from_slice(&len.to_ne_bytes());
    c
}

pub(super) fn decode_string(kind: StrKind, b: &[u8]) -> String {
    match kind {
        StrKind::Ucs4(_, big) => b
            .chunks_exact(4)
            .map(|c| {
                let a: [u8; 4] = c.try_into().expect("4 bytes");
                if big {
                    u32::from_be_bytes(a)
                } else {
                    u32::from_le_bytes(a)
                }
            })
            .take_while(|&u| u != 0)
            .map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
        _ => {
            let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        }
    }
}

pub(super) fn encode_string(kind: StrKind, s: &str, out: &mut [u8]) {
    out.fill(0);
    match kind {
        StrKind::Ucs4(n, big) => {
            for (i, ch) in s.chars().take(n).enumerate() {
                let b = if big { (ch as u32).to_be_bytes() } else { (ch as u32).to_le_bytes() };
                out[4 * i..4 * i + 4].copy_from_slice(&b);
            }
        }
        _ => {
            // Silent truncation (spec Appendix H), at a character boundary.
            let mut end = s.len().min(out.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            out[..end].copy_from_slice(&s.as_bytes()[..end]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings() {
        let mut b = [0u8; 4];
        encode_string(StrKind::Fixed(4), "héllo", &mut b);
        assert_eq!(&b, b"h\xc3\xa9l");
        assert_eq!(decode_string(StrKind::Fixed(4), &b), "hél");
        let mut u = [0u8; 12];
        encode_string(StrKind::Ucs4(3, false), "ab", &mut u);
        assert_eq!(decode_string(StrKind::Ucs4(3, false), &u), "ab");
    }
}
