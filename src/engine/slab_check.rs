//! Resolving and checking a request's hyperslab: netCDF's start, count,
//! stride and memory map (NULL ones given their defaults) checked against
//! the variable's dimensions with netCDF-C's error codes, the memory type
//! against the variable's type, and the caller's buffer against the slab.

use super::consts::*;
use super::convert::elem_size;
use super::error::*;
use super::model::{Dataset, Var};
use super::slab::{PerDim, Slab};
use super::{NcError, NcResult};

/// The longest a dimension may be, and so grow by a write: Zarr's shape is
/// JSON that numpy and other readers hold as i64 (`def_dim` refuses longer
/// ones, `NC_EDIMSIZE`).
/// (Crate-private: not a constant of the C header.)
pub(crate) const MAX_DIM_LEN: u64 = i64::MAX as u64;

/// The caller's buffer of `len` bytes (strings for `NC_STRING`) holds every
/// element the slab's memory map reaches (`NC_EINVAL` if not).
pub(super) fn check_buffer(slab: &Slab, len: usize, memtype: NcType) -> NcResult<()> {
    let size = if memtype == NC_STRING { 1 } else { elem_size(memtype) as u64 };
    match slab.mem_extent().and_then(|n| n.checked_mul(size)) {
        Some(need) if need <= len as u64 => Ok(()),
        _ => Err(NcError::with(NC_EINVAL, "the buffer is smaller than the slab's memory map")),
    }
}

pub(super) fn type_check(v: &Var, memtype: NcType) -> NcResult<()> {
    let (vs, ms) = (v.nctype == NC_STRING, memtype == NC_STRING);
    if vs != ms {
        return Err(NcError::new(NC_EBADTYPE));
    }
    if !(NC_BYTE..=NC_STRING).contains(&memtype) {
        return Err(NcError::new(NC_EBADTYPE));
    }
    if (v.nctype == NC_CHAR) != (memtype == NC_CHAR) {
        return Err(NcError::new(NC_ECHAR));
    }
    Ok(())
}

impl Dataset {
    /// Resolves and checks a hyperslab (netCDF-C's rules): NULL start is
    /// all zeros, NULL count the rest of each dimension, NULL stride ones,
    /// NULL map the dense C order of `count`. A write may extend unlimited
    /// dimensions (see [`Dataset::check_slab`]).
    #[allow(clippy::too_many_arguments)]
    pub fn slab(
        &self,
        gid: usize,
        varid: i32,
        start: Option<&[u64]>,
        count: Option<&[u64]>,
        stride: Option<&[i64]>,
        imap: Option<&[i64]>,
        for_write: bool,
    ) -> NcResult<Slab> {
        let v = self.var(gid, varid)?;
        if v.is_scalar() {
            let one = |x: u64| PerDim::from_elem(x, 1);
            return Ok(Slab { start: one(0), count: one(1), stride: one(1), imap: one(1), dense: true });
        }
        let nd = v.dimids.len();
        let wrong_rank = |n: Option<usize>| n.is_some_and(|n| n != nd);
        if wrong_rank(start.map(<[u64]>::len))
            || wrong_rank(count.map(<[u64]>::len))
            || wrong_rank(stride.map(<[i64]>::len))
            || wrong_rank(imap.map(<[i64]>::len))
        {
            return Err(NcError::with(NC_EINVAL, "one entry per dimension is needed"));
        }
        let start: PerDim<u64> = start.map_or_else(|| PerDim::from_elem(0, nd), PerDim::from_slice);
        let mut stride_v: PerDim<u64> = PerDim::from_elem(1, nd);
        if let Some(s) = stride {
            for d in 0..nd {
                if s[d] <= 0 || s[d] > i32::MAX as i64 {
                    return Err(NcError::new(NC_ESTRIDE));
                }
                stride_v[d] = s[d] as u64;
            }
        }
        let count: PerDim<u64> = match count {
            Some(c) => PerDim::from_slice(c),
            None => v.dimids.iter().zip(&start).map(|(&d, &s)| self.dims[d].len.saturating_sub(s)).collect(),
        };
        let (imap_v, dense) = match imap {
            Some(m) => {
                if m.iter().any(|&x| x < 0) {
                    return Err(NcError::with(NC_EINVAL, "negative memory map"));
                }
                (m.iter().map(|&x| x as u64).collect::<PerDim<_>>(), false)
            }
            None => (super::slab::dense_map(&count), true),
        };
        let slab = Slab { start, count, stride: stride_v, imap: imap_v, dense };
        self.check_slab(v, &slab, for_write)?;
        Ok(slab)
    }

    /// Checks a resolved slab against variable `v`'s dimensions, with
    /// netCDF-C's codes: a start past a dimension's end is
    /// `NC_EINVALCOORDS`, a last position past it `NC_EEDGE` (also when it
    /// does not fit a u64), a stride of 0 `NC_ESTRIDE`. A write may extend
    /// an unlimited dimension, up to [`MAX_DIM_LEN`]: a write reaching past
    /// that, or past the largest u64, is `NC_ENOMEM`, as netCDF-C 4.10.1
    /// answers a write whose end overflows (it accepts one that ends past
    /// `i64::MAX`, and then cannot open what it wrote). A slab of more
    /// elements than the address space holds is `NC_EEDGE`, a memory map
    /// that reaches past it `NC_EINVAL`. [`Dataset::get_slab`] and
    /// [`Dataset::put_slab`] check their slab again, so a slab made by hand
    /// gets the same answers, never a panic.
    pub(super) fn check_slab(&self, v: &Var, slab: &Slab, for_write: bool) -> NcResult<()> {
        // (a scalar is one element of a fixed dimension of length 1)
        let nd = v.dimids.len().max(1);
        let dim = |d: usize| v.dimids.get(d).map_or((1, false), |&id| (self.dims[id].len, self.dims[id].unlimited));
        if [&slab.start, &slab.count, &slab.stride, &slab.imap].iter().any(|x| x.len() != nd) {
            return Err(NcError::with(NC_EINVAL, "one entry per dimension is needed"));
        }
        if slab.stride.contains(&0) {
            return Err(NcError::new(NC_ESTRIDE));
        }
        for d in 0..nd {
            let (len, unlimited) = dim(d);
            if slab.start[d] > len && !(for_write && unlimited) {
                return Err(NcError::new(NC_EINVALCOORDS));
            }
        }
        for d in 0..nd {
            let (len, unlimited) = dim(d);
            if slab.count[d] == 0 {
                continue;
            }
            if for_write && unlimited {
                match slab.end(d) {
                    Some(end) if end <= MAX_DIM_LEN => {}
                    _ => {
                        return Err(NcError::with(
                            NC_ENOMEM,
                            format!(
                                "a write past index {MAX_DIM_LEN} of unlimited dimension {}: \
                                 longer than a dimension can be",
                                self.dims[v.dimids[d]].name
                            ),
                        ))
                    }
                }
                continue;
            }
            if slab.start[d] == len {
                return Err(NcError::new(NC_EINVALCOORDS));
            }
            if slab.end(d).is_none_or(|end| end > len) {
                return Err(NcError::new(NC_EEDGE));
            }
        }
        let total = slab.count.iter().try_fold(1u64, |a, &c| a.checked_mul(c)).ok_or(NcError::new(NC_EEDGE))?;
        if total > isize::MAX as u64 {
            return Err(NcError::new(NC_EEDGE));
        }
        // The caller's buffer (mem_elems elements of up to 8 bytes) must be
        // addressable: a memory map may not overflow it.
        match slab.mem_extent() {
            Some(n) if n <= (isize::MAX as u64) / 8 => Ok(()),
            _ => Err(NcError::with(NC_EINVAL, "the memory map addresses more than the address space")),
        }
    }
}
