//! Reading a region of an aggregated variable: only the partitions it
//! touches are opened and read, each conformed to the master array as the
//! NCA convention requires (and the CF forms as cfdm does):
//!
//! - dimensions matched by name (NCA `dimensions`) or, without names, in
//!   order once size-1 dimensions are set aside (a fragment may lack or
//!   add size-1 dimensions); matched dimensions may be in any order;
//! - `directions` that differ from the master's reverse a dimension;
//! - `part` selects the data array out of the sub-array;
//! - missing values (`_FillValue`, `missing_value`) become the master's
//!   fill value; packed fragments are unpacked (`scale_factor`,
//!   `add_offset`); units are converted to the master's (`units.rs`);
//! - the type is converted to the master's, then to the caller's memory
//!   type, with netCDF's range rules (`NC_ERANGE`).
//!
//! The partitions a request touches are read in parallel (rayon). A
//! partition's share of the request is read as one hyperslab of the
//! fragment (the box of the indices it needs, with the common stride),
//! split in pieces when larger than [`BOX_BYTES`], then placed in the
//! caller's buffer under a lock.

use super::parse::{Partition, Source};
use super::units;
use super::{Aggregated, FragVar};
use crate::engine::consts::*;
use crate::engine::convert::{convert, elem_size};
use crate::engine::data::MemOut;
use crate::engine::error::*;
use crate::engine::slab::Slab;
use crate::engine::types::{range_result, Values};
use crate::engine::{NcError, NcResult};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// A partition a request touches: its grid cell, its location, and the
/// range of request positions inside it, per master dimension.
type Touched = (usize, Vec<(u64, u64)>, Vec<(u64, u64)>);

/// The caller's buffer, shared by the partitions read in parallel: each
/// writes only the elements of its own master positions (distinct
/// positions go to distinct elements: partitions run in parallel only for a
/// memory map that does not alias, `Slab::disjoint`).
type Out = crate::engine::data::SharedMut<u8>;

/// A partition's piece is read in boxes of at most this many bytes (more
/// only when one element row needs it).
pub(crate) const BOX_BYTES: u64 = 64 << 20;

/// The request along the master dimensions.
struct Request<'a> {
    start: &'a [u64],
    count: &'a [u64],
    stride: &'a [u64],
    imap: &'a [u64],
    memtype: NcType,
}

/// Where each sub-array dimension of a fragment takes its index from.
#[derive(Debug, Clone)]
enum FDim {
    /// From master dimension `d`; `reverse`: the data array runs the
    /// other way.
    Master { d: usize, reverse: bool },
    /// A size-1 data-array dimension.
    Fixed,
}

/// A partition's fragment, matched to the master array.
struct Plan {
    frag: std::sync::Arc<dyn super::Fragment>,
    var: FragVar,
    fdims: Vec<FDim>,
    /// Per sub-array dimension, the data array's indices into it (`part`).
    part: Vec<Option<Vec<u64>>>,
    /// Data-array length per sub-array dimension.
    dlen: Vec<u64>,
    transform: Option<Transform>,
}

/// What is done to each value read, in doubles.
#[derive(Debug, Clone)]
struct Transform {
    missing: Vec<f64>,
    scale: Option<f64>,
    offset: Option<f64>,
    units: Option<units::Linear>,
    fill: f64,
}

impl Transform {
    fn apply(&self, x: f64) -> f64 {
        if self.missing.iter().any(|&m| m == x || (m.is_nan() && x.is_nan())) {
            return self.fill;
        }
        let mut y = x;
        if let Some(s) = self.scale {
            y *= s;
        }
        if let Some(o) = self.offset {
            y += o;
        }
        match &self.units {
            Some(l) => l.apply(y),
            None => y,
        }
    }
}

fn bad(p: &Partition, what: impl std::fmt::Display) -> NcError {
    NcError::with(NC_EINVAL, format!("{}: {what}", p.label))
}

impl crate::engine::model::VarSource for Aggregated {
    fn is_aggregation(&self) -> bool {
        true
    }

    /// Reads `slab` of the master array into the caller's memory.
    fn read(&self, slab: &Slab, out: MemOut) -> NcResult<()> {
        let MemOut::Bytes { memtype, buf } = out else {
            return Err(NcError::new(NC_EBADTYPE));
        };
        if slab.is_empty() {
            return Ok(());
        }
        let nd = self.agg.dims.len();
        let (start, count, stride, imap): (&[u64], &[u64], &[u64], &[u64]) =
            if nd == 0 { (&[], &[], &[], &[]) } else { (&slab.start, &slab.count, &slab.stride, &slab.imap) };
        let req = Request { start, count, stride, imap, memtype };
        // per dimension, the grid cells from the one holding the first
        // selected index to the one holding the last
        let mut cells: Vec<(usize, usize)> = Vec::with_capacity(nd);
        for d in 0..nd {
            let e = &self.agg.edges[d];
            let last = start[d] + (count[d] - 1) * stride[d];
            let cell = |i: u64| e.partition_point(|&x| x <= i) - 1;
            cells.push((cell(start[d]), cell(last) + 1));
        }
        let ncell = self.agg.edges.iter().map(|e| e.len() - 1).collect::<Vec<_>>();
        let mut pos: Vec<usize> = cells.iter().map(|c| c.0).collect();
        // the partitions the request touches, with its k ranges in each
        let mut touched: Vec<Touched> = Vec::new();
        loop {
            let loc = self.agg.location(&pos);
            let mut ks = Vec::with_capacity(nd);
            for d in 0..nd {
                let (a, z) = loc[d];
                let k0 = if a <= start[d] { 0 } else { (a - start[d]).div_ceil(stride[d]) };
                let k1 = if z <= start[d] { 0 } else { ((z - 1 - start[d]) / stride[d] + 1).min(count[d]) };
                ks.push((k0, k1.max(k0)));
            }
            if ks.iter().all(|&(a, z)| z > a) {
                let mut i = 0usize;
                for d in 0..nd {
                    i = i * ncell[d] + pos[d];
                }
                touched.push((i, loc, ks));
            }
            if !advance(&mut pos, &cells) {
                break;
            }
        }
        // Partitions are read in parallel, each into its own elements of the
        // caller's buffer (a memory map that may alias goes in order, so
        // that the last position written to an element stays).
        let out = Out::new(buf);
        let range = AtomicBool::new(false);
        let work = |(i, loc, ks): &Touched| -> NcResult<()> {
            let p = &self.agg.parts[*i];
            if self.read_partition(p, loc, ks, &req, &out).map_err(|e| e.context(&p.label))? {
                range.store(true, Ordering::Relaxed);
            }
            Ok(())
        };
        if touched.len() < 2 || !slab.disjoint() {
            touched.iter().try_for_each(work)?;
        } else {
            crate::engine::data::CPU_POOL.get().install(|| touched.par_iter().try_for_each(work))?;
        }
        range_result(range.load(Ordering::Relaxed))
    }
}

impl Aggregated {
    /// Matches a partition's fragment to the master array.
    fn plan(&self, p: &Partition, loc: &[(u64, u64)]) -> NcResult<Plan> {
        let (frag, name) = self.dataset_of(p)?;
        let var = frag.var(&name)?;
        if matches!(var.nctype, NC_CHAR | NC_STRING) {
            return Err(bad(p, format!("variable {name} holds text, not numbers")));
        }
        let fshape = var.shape.clone();
        if let Some(s) = &p.shape {
            if s != &fshape {
                return Err(bad(p, format!("the metadata give shape {s:?}, variable {name} has shape {fshape:?}")));
            }
        }
        let rank = fshape.len();
        let mut part: Vec<Option<Vec<u64>>> = vec![None; rank];
        if let Some(sels) = &p.part {
            if sels.len() != rank {
                return Err(bad(p, format!("part has {} selections for {rank} dimensions", sels.len())));
            }
            for j in 0..rank {
                part[j] = Some(sels[j].indices(fshape[j]).map_err(|e| e.context(&p.label))?);
            }
        }
        let dlen: Vec<u64> = (0..rank).map(|j| part[j].as_ref().map_or(fshape[j], |l| l.len() as u64)).collect();
        let ext: Vec<u64> = loc.iter().map(|(a, z)| z - a).collect();
        let mdims = &self.agg.dims;
        let mut fdims = vec![FDim::Fixed; rank];
        let mut mapped = vec![false; mdims.len()];
        match &p.dims {
            Some(names) => {
                if names.len() != rank {
                    return Err(bad(p, format!("{} dimensions named for variable {name} of rank {rank}", names.len())));
                }
                for (j, n) in names.iter().enumerate() {
                    match mdims.iter().position(|m| m == n) {
                        Some(d) => {
                            if mapped[d] {
                                return Err(bad(p, format!("dimension {n} named twice")));
                            }
                            if dlen[j] != ext[d] {
                                return Err(bad(
                                    p,
                                    format!("{name} has {} along {n}, the location spans {}", dlen[j], ext[d]),
                                ));
                            }
                            mapped[d] = true;
                            fdims[j] = FDim::Master { d, reverse: p.reversed.contains(n) };
                        }
                        None if dlen[j] == 1 => {}
                        None => {
                            return Err(bad(
                                p,
                                format!("dimension {n} of {name} is not the master's and not of size 1"),
                            ))
                        }
                    }
                }
            }
            None => {
                let fj: Vec<usize> = (0..rank).filter(|&j| dlen[j] != 1).collect();
                let md: Vec<usize> = (0..mdims.len()).filter(|&d| ext[d] != 1).collect();
                if fj.len() != md.len() || fj.iter().zip(&md).any(|(&j, &d)| dlen[j] != ext[d]) {
                    return Err(bad(p, format!("variable {name} has shape {dlen:?}, the location spans {ext:?}")));
                }
                for (&j, &d) in fj.iter().zip(&md) {
                    mapped[d] = true;
                    fdims[j] = FDim::Master { d, reverse: p.reversed.contains(&mdims[d]) };
                }
            }
        }
        if let Some(d) = (0..mdims.len()).find(|&d| !mapped[d] && ext[d] != 1) {
            return Err(bad(p, format!("variable {name} has no dimension for {} (length {})", mdims[d], ext[d])));
        }
        // units: the partition's (NCA) or the fragment's own (CF forms)
        let (u, c) = if p.units_from_fragment {
            (var.units.clone(), var.calendar.clone())
        } else {
            (p.units.clone().or_else(|| self.units.clone()), p.calendar.clone().or_else(|| self.calendar.clone()))
        };
        let lin = units::plan(
            super::unit_system(),
            u.as_deref(),
            c.as_deref(),
            self.units.as_deref(),
            self.calendar.as_deref(),
        )
        .map_err(|e| e.context(&p.label))?;
        let fill = fill_f64(&self.fill);
        let missing: Vec<f64> = var.missing.iter().copied().filter(|&m| m != fill).collect();
        let (scale, offset) = match (var.scale_factor, var.add_offset) {
            (None, None) => (p.scale_factor, p.add_offset),
            own => own,
        };
        let transform = (lin.is_some() || scale.is_some() || offset.is_some() || !missing.is_empty())
            .then_some(Transform { missing, scale, offset, units: lin, fill });
        Ok(Plan { frag, var, fdims, part, dlen, transform })
    }

    /// Reads one partition's share of the request (`ks`: per master
    /// dimension the range of request positions inside it).
    fn read_partition(
        &self,
        p: &Partition,
        loc: &[(u64, u64)],
        ks: &[(u64, u64)],
        req: &Request,
        out: &Out,
    ) -> NcResult<bool> {
        let mtype = self.nctype;
        let msize = elem_size(mtype);
        let value = match &p.source {
            Source::Missing => Some(None),
            Source::Unique(v) => Some(*v),
            _ => None,
        };
        if let Some(v) = value {
            let mut one = vec![0u8; msize];
            let r = match v {
                Some(x) => convert(NC_DOUBLE, &x.to_ne_bytes(), mtype, &mut one, 1),
                None => {
                    one.copy_from_slice(&self.fill.to_ne_bytes()[..msize]);
                    false
                }
            };
            let offs: Vec<Vec<u64>> = ks.iter().map(|&(a, z)| vec![0; (z - a) as usize]).collect();
            return Ok(scatter(&one, 0, &offs, ks, req, mtype, out)? | r);
        }
        let plan = self.plan(p, loc)?;
        self.read_box(&plan, loc, ks, req, out)
    }

    /// Reads the box of fragment indices the request positions `ks` need,
    /// splitting it while it is larger than [`BOX_BYTES`].
    fn read_box(&self, plan: &Plan, loc: &[(u64, u64)], ks: &[(u64, u64)], req: &Request, out: &Out) -> NcResult<bool> {
        let rank = plan.var.shape.len();
        let mtype = self.nctype;
        let rtype = if plan.transform.is_some() { NC_DOUBLE } else { mtype };
        // the sub-array indices needed along each fragment dimension
        let mut subs: Vec<Vec<u64>> = Vec::with_capacity(rank);
        for j in 0..rank {
            let data_idx: Vec<u64> = match plan.fdims[j] {
                FDim::Fixed => vec![0],
                FDim::Master { d, reverse } => (ks[d].0..ks[d].1)
                    .map(|k| {
                        let r = req.start[d] + k * req.stride[d] - loc[d].0;
                        if reverse {
                            plan.dlen[j] - 1 - r
                        } else {
                            r
                        }
                    })
                    .collect(),
            };
            subs.push(match &plan.part[j] {
                Some(l) => data_idx.iter().map(|&q| l[q as usize]).collect(),
                None => data_idx,
            });
        }
        let mut bstart = vec![0u64; rank];
        let mut bstride = vec![1u64; rank];
        let mut bcount = vec![1u64; rank];
        for j in 0..rank {
            let lo = *subs[j].iter().min().expect("not empty");
            let hi = *subs[j].iter().max().expect("not empty");
            let g = subs[j].iter().fold(0u64, |g, &s| gcd(g, s - lo));
            bstart[j] = lo;
            bstride[j] = g.max(1);
            bcount[j] = (hi - lo) / bstride[j] + 1;
        }
        let elems = bcount.iter().try_fold(1u64, |a, &c| a.checked_mul(c)).unwrap_or(u64::MAX);
        let bytes = elems.saturating_mul(elem_size(rtype) as u64);
        if bytes > BOX_BYTES {
            // split the first master dimension that has several positions
            if let Some(d) = (0..ks.len()).find(|&d| ks[d].1 - ks[d].0 > 1) {
                let mid = ks[d].0 + (ks[d].1 - ks[d].0) / 2;
                let (mut lo, mut hi) = (ks.to_vec(), ks.to_vec());
                lo[d].1 = mid;
                hi[d].0 = mid;
                let r = self.read_box(plan, loc, &lo, req, out)?;
                return Ok(self.read_box(plan, loc, &hi, req, out)? | r);
            }
        }
        if let Some((off, n)) = self.direct_target(plan, ks, req, &subs, &bcount) {
            let es = elem_size(req.memtype);
            let (off, len) = (off.checked_mul(es), n.checked_mul(es));
            let (off, len) = off
                .zip(len)
                .filter(|&(o, l)| o.checked_add(l).is_some_and(|e| e <= out.len()))
                .ok_or_else(|| NcError::with(NC_EINTERNAL, "aggregation: an offset outside a buffer"))?;
            // SAFETY: in bounds (checked), and these elements are this
            // partition's alone (see `Out`).
            let dst = unsafe { out.slice(off, len) };
            let region = super::Region { start: &bstart, count: &bcount, stride: &bstride };
            return plan.frag.read(&plan.var, &region, req.memtype, dst);
        }
        let limit = crate::limits::limits().max_chunk_bytes;
        let mut tmp = crate::limits::try_zeroed(bytes, limit)
            .map_err(|e| NcError::with(NC_ENOMEM, format!("reading {} values of a fragment: {e}", elems)))?;
        let mut range = plan.frag.read(
            &plan.var,
            &super::Region { start: &bstart, count: &bcount, stride: &bstride },
            rtype,
            &mut tmp,
        )?;
        let msize = elem_size(mtype);
        let data = if let Some(t) = &plan.transform {
            let mut conv = crate::limits::try_zeroed(elems.saturating_mul(msize as u64), limit)
                .map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
            for (i, x) in tmp.chunks_exact_mut(8).enumerate() {
                let y = t.apply(f64::from_ne_bytes(x.try_into().expect("8 bytes")));
                range |= convert(NC_DOUBLE, &y.to_ne_bytes(), mtype, &mut conv[i * msize..], 1);
            }
            conv
        } else {
            tmp
        };
        // box strides (C order) and each master position's offset in the box
        let mut bst = vec![1u64; rank];
        for j in (0..rank.saturating_sub(1)).rev() {
            bst[j] = bst[j + 1] * bcount[j + 1];
        }
        let mut offs: Vec<Vec<u64>> = ks.iter().map(|&(a, z)| vec![0; (z - a) as usize]).collect();
        let mut base = 0u64;
        for j in 0..rank {
            match plan.fdims[j] {
                FDim::Fixed => base += (subs[j][0] - bstart[j]) / bstride[j] * bst[j],
                FDim::Master { d, .. } => {
                    for (i, s) in subs[j].iter().enumerate() {
                        offs[d][i] = (s - bstart[j]) / bstride[j] * bst[j];
                    }
                }
            }
        }
        Ok(scatter(&data, base, &offs, ks, req, mtype, out)? | range)
    }

    /// Where the fragment box of `ks` lands in the caller's buffer, when it
    /// can be read straight there: `(offset, elements)` of one contiguous
    /// run. That is when the values need no conversion of their own (no
    /// units, packing or missing values to change; the memory type is the
    /// master's, or the fragment's type is), the fragment's dimensions run
    /// in the master's order and sense without `part`, the memory map is C
    /// order, and the partition's positions span whole rows of the request
    /// past their first dimension of more than one position (as a read of
    /// whole partitions along the outer dimension does).
    fn direct_target(
        &self,
        plan: &Plan,
        ks: &[(u64, u64)],
        req: &Request,
        subs: &[Vec<u64>],
        bcount: &[u64],
    ) -> Option<(usize, usize)> {
        if plan.transform.is_some() || (req.memtype != self.nctype && plan.var.nctype != self.nctype) {
            return None;
        }
        let mut last_d = None;
        for (j, f) in plan.fdims.iter().enumerate() {
            if plan.part[j].is_some() || bcount[j] != subs[j].len() as u64 {
                return None;
            }
            if let FDim::Master { d, reverse } = *f {
                if reverse || last_d.is_some_and(|l| d <= l) {
                    return None;
                }
                last_d = Some(d);
            }
        }
        let nd = ks.len();
        // C-order memory map of the request
        let mut expect = 1u64;
        for d in (0..nd).rev() {
            if req.imap[d] != expect {
                return None;
            }
            expect = expect.checked_mul(req.count[d])?;
        }
        let first = (0..nd).find(|&d| ks[d].1 - ks[d].0 > 1);
        if let Some(p) = first {
            if (p + 1..nd).any(|d| ks[d] != (0, req.count[d])) {
                return None;
            }
        }
        let off = (0..nd).try_fold(0u64, |a, d| a.checked_add(ks[d].0.checked_mul(req.imap[d])?))?;
        let n = ks.iter().try_fold(1u64, |a, &(x, y)| a.checked_mul(y - x))?;
        Some((usize::try_from(off).ok()?, usize::try_from(n).ok()?))
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn fill_f64(v: &Values) -> f64 {
    match v.nums().first() {
        Some(crate::engine::convert::Num::I(i)) => *i as f64,
        Some(crate::engine::convert::Num::F(f)) => *f,
        None => f64::NAN,
    }
}

/// Copies the elements of `src` (master type) at `base + Σ offs[d][k_d - ks[d].0]`
/// to the caller's memory at `Σ k_d imap[d]`, converting to the memory
/// type. Rows whose source and destination are both contiguous go in one
/// conversion.
fn scatter(
    src: &[u8],
    base: u64,
    offs: &[Vec<u64>],
    ks: &[(u64, u64)],
    req: &Request,
    mtype: NcType,
    out: &Out,
) -> NcResult<bool> {
    let (ms, os) = (elem_size(mtype), elem_size(req.memtype));
    let nd = ks.len();
    let oob = || NcError::with(NC_EINTERNAL, "aggregation: an offset outside a buffer");
    let copy = |s: u64, d: u64, n: usize| -> NcResult<bool> {
        let s = usize::try_from(s).map_err(|_| oob())? * ms;
        let d = usize::try_from(d).map_err(|_| oob())? * os;
        let src = src.get(s..s + n * ms).ok_or_else(oob)?;
        if d.checked_add(n * os).is_none_or(|e| e > out.len()) {
            return Err(oob());
        }
        // SAFETY: in bounds (checked), and these elements are this
        // partition's alone (see `Out`).
        let dst = unsafe { out.slice(d, n * os) };
        Ok(convert(mtype, src, req.memtype, dst, n))
    };
    if nd == 0 {
        return copy(base, 0, 1);
    }
    let last = nd - 1;
    let row = (ks[last].1 - ks[last].0) as usize;
    let contiguous = req.imap[last] == 1 && offs[last].windows(2).all(|w| w[1] == w[0] + 1);
    let mut k: Vec<u64> = ks.iter().map(|r| r.0).collect();
    let mut range = false;
    loop {
        let mut s = base;
        let mut d = 0u64;
        for i in 0..last {
            s += offs[i][(k[i] - ks[i].0) as usize];
            d += k[i] * req.imap[i];
        }
        if contiguous {
            range |= copy(s + offs[last][0], d + ks[last].0 * req.imap[last], row)?;
        } else {
            for (i, o) in offs[last].iter().enumerate() {
                range |= copy(s + o, d + (ks[last].0 + i as u64) * req.imap[last], 1)?;
            }
        }
        // next row
        if !advance(&mut k[..last], &ks[..last]) {
            return Ok(range);
        }
    }
}

/// The next position of an odometer whose digit `d` runs over
/// `bounds[d].0..bounds[d].1` (the last digit fastest); false after the last.
fn advance<T: Copy + PartialOrd + std::ops::AddAssign + From<u8>>(pos: &mut [T], bounds: &[(T, T)]) -> bool {
    for d in (0..pos.len()).rev() {
        pos[d] += T::from(1u8);
        if pos[d] < bounds[d].1 {
            return true;
        }
        pos[d] = bounds[d].0;
    }
    false
}
