//! Hyperslabs and their walk over a chunk grid, computed rather than listed.
//!
//! A [`Slab`] is a resolved netCDF request: per dimension start, count,
//! stride, and the memory map (element steps of the caller's buffer).
//! [`Grid`] cuts it by a variable's chunk shape. The chunks it touches are
//! the product of one range per dimension, and the i-th of them (C order of
//! the chunk grid) is computed from i. Within a chunk, [`Runs`] walks the
//! touched elements as contiguous runs (memory offset, chunk offset,
//! length) with an odometer over the dimensions. Nothing here allocates
//! per element: a chunk costs O(rank), whatever the slab's size.

use super::error::NC_EEDGE;
use super::{NcError, NcResult};
use smallvec::SmallVec;

/// One value per dimension, inline up to rank 4 (no allocation for the
/// usual request: a loop of one-element calls allocates nothing for them).
pub type PerDim<T> = SmallVec<[T; 4]>;

/// A resolved hyperslab: per dimension start, count and stride, and the
/// memory map (element strides of the caller's buffer).
#[derive(Debug, Clone)]
pub struct Slab {
    pub start: PerDim<u64>,
    pub count: PerDim<u64>,
    pub stride: PerDim<u64>,
    pub imap: PerDim<u64>,
    /// The memory map is the plain C order of `count` (vara/vars).
    pub dense: bool,
}

impl Slab {
    /// Number of elements the caller's buffer must hold (`Dataset::slab`
    /// checked that it fits the address space).
    pub fn mem_elems(&self) -> usize {
        self.mem_extent().unwrap_or(u64::MAX) as usize
    }

    /// `mem_elems` with checked arithmetic (`None` on overflow).
    pub(crate) fn mem_extent(&self) -> Option<u64> {
        if self.count.contains(&0) {
            return Some(0);
        }
        self.count.iter().zip(&self.imap).try_fold(1u64, |acc, (&c, &m)| (c - 1).checked_mul(m)?.checked_add(acc))
    }

    pub fn is_empty(&self) -> bool {
        self.count.contains(&0)
    }

    /// One past the last position along dimension `d`:
    /// `start + (count - 1) * stride + 1`, or `start` when the count is 0.
    /// `None` when it does not fit a u64 (the slab reaches past any
    /// dimension).
    pub fn end(&self, d: usize) -> Option<u64> {
        match self.count[d] {
            0 => Some(self.start[d]),
            n => (n - 1).checked_mul(self.stride[d])?.checked_add(self.start[d])?.checked_add(1),
        }
    }

    /// Distinct positions of the slab go to distinct elements of memory: the
    /// map is dense, or its dimensions, taken by increasing step, each step
    /// past all the elements the smaller ones reach. (Sufficient, not
    /// necessary: a map that fails is treated as possibly aliasing.)
    pub fn disjoint(&self) -> bool {
        if self.dense {
            return true;
        }
        let mut dims: Vec<(u64, u64)> =
            self.count.iter().zip(&self.imap).filter(|(&c, _)| c > 1).map(|(&c, &m)| (m, c)).collect();
        dims.sort_unstable();
        let mut reach = 0u64; // the largest offset the smaller dimensions reach
        for (m, c) in dims {
            if m <= reach {
                return false;
            }
            match (c - 1).checked_mul(m).and_then(|x| x.checked_add(reach)) {
                Some(r) => reach = r,
                None => return false,
            }
        }
        true
    }

    /// The same positions in the dense C order of `count` (a buffer of
    /// exactly the slab's positions).
    pub fn densified(&self) -> Slab {
        let imap = dense_map(&self.count);
        Slab { start: self.start.clone(), count: self.count.clone(), stride: self.stride.clone(), imap, dense: true }
    }

    /// Calls `f` on consecutive boxes of the slab (each with the slab's
    /// memory map and the memory offset of its first position), in the
    /// slab's C order, each of at most `max` positions: the outer
    /// dimensions one index at a time, one dimension in ranges, the inner
    /// ones whole. Stops at the first error.
    pub fn for_pieces<E>(&self, max: u64, mut f: impl FnMut(&Slab, u64) -> Result<(), E>) -> Result<(), E> {
        let nd = self.count.len();
        if self.is_empty() || nd == 0 {
            return if self.is_empty() { Ok(()) } else { f(self, 0) };
        }
        let max = max.max(1);
        // the split dimension: the outermost whose inner dimensions fit
        let (mut split, mut inner) = (nd - 1, 1u64);
        while split > 0 {
            match inner.checked_mul(self.count[split]) {
                Some(n) if n <= max => {
                    inner = n;
                    split -= 1;
                }
                _ => break,
            }
        }
        let step = (max / inner).max(1);
        let mut k: PerDim<u64> = PerDim::from_elem(0, nd);
        loop {
            let take = step.min(self.count[split] - k[split]);
            let mut piece = self.clone();
            piece.dense = false;
            let mut base = 0u64;
            for d in 0..=split {
                piece.start[d] = self.start[d] + k[d] * self.stride[d];
                piece.count[d] = if d == split { take } else { 1 };
                base += k[d] * self.imap[d];
            }
            f(&piece, base)?;
            // the next box: dimension `split` advances by `take`, then the
            // outer ones as an odometer
            k[split] += take;
            let mut d = split;
            while k[d] >= self.count[d] {
                if d == 0 {
                    return Ok(());
                }
                k[d] = 0;
                d -= 1;
                k[d] += 1;
            }
        }
    }

    /// The memory offsets (in elements) of the slab's positions, in the
    /// slab's C order.
    pub fn offsets(&self) -> Offsets<'_> {
        Offsets { slab: self, pos: vec![0; self.count.len()], next: (!self.is_empty()).then_some(0) }
    }
}

/// The memory map of the plain C order of `count` (element steps, the last
/// dimension 1; saturating: a slab that large is refused by its checks).
pub(crate) fn dense_map(count: &[u64]) -> PerDim<u64> {
    let nd = count.len();
    let mut imap: PerDim<u64> = PerDim::from_elem(1, nd);
    for d in (0..nd.saturating_sub(1)).rev() {
        imap[d] = imap[d + 1].saturating_mul(count[d + 1]);
    }
    imap
}

/// The iterator of [`Slab::offsets`]: an odometer over the slab's positions.
pub struct Offsets<'a> {
    slab: &'a Slab,
    pos: Vec<u64>,
    next: Option<u64>,
}

impl Iterator for Offsets<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let cur = self.next?;
        let (count, imap) = (&self.slab.count, &self.slab.imap);
        let mut off = cur;
        self.next = None;
        for d in (0..self.pos.len()).rev() {
            if self.pos[d] + 1 < count[d] {
                self.pos[d] += 1;
                self.next = Some(off + imap[d]);
                break;
            }
            off -= self.pos[d] * imap[d];
            self.pos[d] = 0;
        }
        Some(cur as usize)
    }
}

/// The slab along one dimension, cut by the chunk size.
#[derive(Debug, Clone, Copy)]
struct DimCut {
    start: u64,
    count: u64,
    stride: u64,
    chunk: u64,
    /// The first chunk touched.
    first: u64,
    /// How many chunks are touched.
    n: u64,
}

/// The slab's share of one chunk along one dimension.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Part {
    /// The chunk's index along the dimension.
    pub chunk: u64,
    /// Slab index of the first position in the chunk.
    pub k: u64,
    /// Number of positions in the chunk (at least 1).
    pub n: u64,
    /// Index within the chunk of the first position (the next are `stride` apart).
    pub w: u64,
}

impl DimCut {
    /// `None` when the last position does not fit a u64 (then no position
    /// past the first is computed, and the parts below cannot overflow).
    fn new(start: u64, count: u64, stride: u64, chunk: u64) -> Option<DimCut> {
        let chunk = chunk.max(1);
        let first = start / chunk;
        let last = match count {
            0 => start,
            n => (n - 1).checked_mul(stride)?.checked_add(start)?,
        };
        let n = if count == 0 {
            0
        } else if stride >= chunk {
            // positions a chunk or more apart: one per chunk
            count
        } else {
            // positions closer than a chunk: every chunk between the first
            // and the last position holds some
            last / chunk - first + 1
        };
        Some(DimCut { start, count, stride, chunk, first, n })
    }

    /// The `i`-th chunk touched (`i < n`).
    fn part(&self, i: u64) -> Part {
        if self.stride >= self.chunk {
            let p = self.start + i * self.stride;
            return Part { chunk: p / self.chunk, k: i, n: 1, w: p % self.chunk };
        }
        let chunk = self.first + i;
        let lo = chunk * self.chunk;
        // the chunk's last index (u64::MAX at most: an index is a u64)
        let hi = lo.saturating_add(self.chunk - 1);
        let k = if lo <= self.start { 0 } else { (lo - self.start).div_ceil(self.stride) };
        let end = ((hi - self.start) / self.stride + 1).min(self.count);
        Part { chunk, k, n: end - k, w: self.start + k * self.stride - lo }
    }
}

/// The chunks a slab touches.
pub struct Grid {
    cuts: PerDim<DimCut>,
    /// Added to each part's slab index (see [`Grid::within`]).
    koff: PerDim<u64>,
    len: usize,
}

/// A slab that reaches past the largest index (`Dataset::slab` refuses
/// those before any grid is made).
fn past_the_end() -> NcError {
    NcError::with(NC_EEDGE, "the slab reaches past the largest index")
}

impl Grid {
    /// `chunks`: the chunk shape (one entry per dimension of the slab).
    /// `NC_EEDGE` when the slab's last position does not fit a u64.
    pub fn new(slab: &Slab, chunks: &[u64]) -> NcResult<Grid> {
        let cuts: Option<PerDim<DimCut>> =
            (0..chunks.len()).map(|d| DimCut::new(slab.start[d], slab.count[d], slab.stride[d], chunks[d])).collect();
        Ok(Grid::of(cuts.ok_or_else(past_the_end)?, SmallVec::from_elem(0, chunks.len())))
    }

    /// The chunks of shape `chunks` touched by the positions of `slab`
    /// that lie in `outer`, one chunk of a coarser [`Grid`] of the same
    /// slab (a shard, whose shape is a multiple of `chunks`). Chunk indices
    /// are over the whole array, slab indices over the whole slab, so
    /// [`Runs`] of `slab` walk them.
    pub fn within(slab: &Slab, outer: &[Part], chunks: &[u64]) -> NcResult<Grid> {
        let cuts: Option<PerDim<DimCut>> = (0..chunks.len())
            .map(|d| {
                let start = outer[d].k.checked_mul(slab.stride[d])?.checked_add(slab.start[d])?;
                DimCut::new(start, outer[d].n, slab.stride[d], chunks[d])
            })
            .collect();
        Ok(Grid::of(cuts.ok_or_else(past_the_end)?, outer.iter().map(|p| p.k).collect()))
    }

    fn of(cuts: PerDim<DimCut>, koff: PerDim<u64>) -> Grid {
        // at most the number of elements, which `Dataset::slab` bounded
        let len = cuts.iter().try_fold(1u64, |a, c| a.checked_mul(c.n)).map_or(usize::MAX, |n| n as usize);
        Grid { cuts, koff, len }
    }

    /// Number of chunks touched.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th chunk touched (`i < len`), in the C order of the chunk
    /// grid: one [`Part`] per dimension.
    pub fn chunk(&self, i: usize) -> PerDim<Part> {
        let mut parts: PerDim<Part> = SmallVec::from_elem(Part::default(), self.cuts.len());
        let mut i = i as u64;
        for (d, cut) in self.cuts.iter().enumerate().rev() {
            parts[d] = cut.part(i % cut.n);
            parts[d].k += self.koff[d];
            i /= cut.n;
        }
        parts
    }
}

/// One contiguous run of touched elements: `n` elements at element offset
/// `mem` of the caller's buffer and `chunk` of the chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub mem: usize,
    pub chunk: usize,
    pub n: usize,
    /// Slab index along the last dimension of the run's first element
    /// (runs of a slab that is not dense never span two rows).
    pub k: u64,
}

/// The touched elements of one chunk as runs: the leading `outer`
/// dimensions are walked index by index, the rest form runs of `len`.
pub struct Runs<'a> {
    slab: &'a Slab,
    cstrides: &'a [u64],
    parts: &'a [Part],
    outer: usize,
    len: u64,
}

impl<'a> Runs<'a> {
    /// `cstrides`: element strides within a chunk (C or Fortran order);
    /// `parts`: one chunk of a [`Grid`] of the same slab.
    pub fn new(slab: &'a Slab, cstrides: &'a [u64], parts: &'a [Part]) -> Runs<'a> {
        let nd = parts.len();
        let last = nd - 1;
        let (mut outer, mut len) = (nd, 1u64);
        if slab.stride[last] == 1 && cstrides[last] == 1 && slab.imap[last] == 1 {
            (outer, len) = (last, parts[last].n);
            // A dense slab whose rows continue each other in memory and in
            // the chunk (the chunk is covered across): longer runs, up to
            // the whole chunk in one.
            while slab.dense && outer > 0 {
                let d = outer - 1;
                if slab.imap[d] != len || slab.stride[d].checked_mul(cstrides[d]) != Some(len) {
                    break;
                }
                len *= parts[d].n;
                outer = d;
            }
        }
        Runs { slab, cstrides, parts, outer, len }
    }

    /// Number of runs.
    pub fn count(&self) -> u64 {
        self.parts[..self.outer].iter().map(|p| p.n).product()
    }

    /// Number of touched elements.
    pub fn elements(&self) -> u64 {
        self.parts.iter().map(|p| p.n).product()
    }

    /// Calls `f` with every run, in the slab's C order within the chunk.
    pub fn for_each(&self, mut f: impl FnMut(Run)) {
        let (slab, parts, cstrides) = (self.slab, self.parts, self.cstrides);
        let last = parts.len() - 1;
        let mut mem: u64 = parts.iter().zip(&slab.imap).map(|(p, m)| p.k * m).sum();
        let mut coff: u64 = parts.iter().zip(cstrides).map(|(p, s)| p.w * s).sum();
        let mut j = vec![0u64; self.outer];
        let n = self.len as usize;
        loop {
            let k = parts[last].k + if self.outer == parts.len() { j[last] } else { 0 };
            f(Run { mem: mem as usize, chunk: coff as usize, n, k });
            // odometer over the outer dimensions
            let mut d = self.outer;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                // steps of one index (they stay inside the chunk and the
                // caller's buffer when there is a next index)
                if j[d] + 1 < parts[d].n {
                    j[d] += 1;
                    mem += slab.imap[d];
                    coff += slab.stride[d] * cstrides[d];
                    break;
                }
                if j[d] > 0 {
                    mem -= j[d] * slab.imap[d];
                    coff -= j[d] * slab.stride[d] * cstrides[d];
                    j[d] = 0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_map() {
        let s = Slab {
            start: vec![0; 2].into(),
            count: vec![2, 3].into(),
            stride: vec![1; 2].into(),
            imap: vec![1, 2].into(),
            dense: false,
        };
        assert_eq!(s.offsets().collect::<Vec<_>>(), vec![0, 2, 4, 1, 3, 5]);
        let e = Slab { count: vec![2, 0].into(), ..s.clone() };
        assert_eq!(e.offsets().count(), 0);
    }

    #[test]
    fn cuts_by_dimension() {
        // start 3, count 5, stride 1, chunk 4: [3] in chunk 0, [4..8) in chunk 1
        let c = DimCut::new(3, 5, 1, 4).unwrap();
        assert_eq!(c.n, 2);
        assert_eq!(c.part(0), Part { chunk: 0, k: 0, n: 1, w: 3 });
        assert_eq!(c.part(1), Part { chunk: 1, k: 1, n: 4, w: 0 });
        // stride 3 over chunk 4: 0, 3 | 6 | 9 (chunk 2, w 1)
        let c = DimCut::new(0, 4, 3, 4).unwrap();
        assert_eq!(c.n, 3);
        assert_eq!(c.part(0), Part { chunk: 0, k: 0, n: 2, w: 0 });
        assert_eq!(c.part(1), Part { chunk: 1, k: 2, n: 1, w: 2 });
        assert_eq!(c.part(2), Part { chunk: 2, k: 3, n: 1, w: 1 });
        // stride past the chunk: chunks skipped
        let c = DimCut::new(1, 3, 10, 4).unwrap();
        assert_eq!(c.n, 3);
        assert_eq!(c.part(2), Part { chunk: 5, k: 2, n: 1, w: 1 });
    }

    #[test]
    fn dense_rows_merge_into_one_run() {
        // 4x4 chunk, slab the whole 8x4 array: one run per chunk
        let s = Slab {
            start: vec![0, 0].into(),
            count: vec![8, 4].into(),
            stride: vec![1, 1].into(),
            imap: vec![4, 1].into(),
            dense: true,
        };
        let cs = [4, 1];
        let g = Grid::new(&s, &[4, 4]).unwrap();
        assert_eq!(g.len(), 2);
        let p = g.chunk(1);
        let r = Runs::new(&s, &cs, &p);
        assert_eq!(r.count(), 1);
        let mut runs = vec![];
        r.for_each(|x| runs.push(x));
        assert_eq!(runs, vec![Run { mem: 16, chunk: 0, n: 16, k: 0 }]);
    }

    #[test]
    fn chunks_within_a_shard() {
        // 1-D: start 3, count 10, stride 1; shards of 8, chunks of 2
        let s = Slab {
            start: vec![3].into(),
            count: vec![10].into(),
            stride: vec![1].into(),
            imap: vec![1].into(),
            dense: true,
        };
        let shards = Grid::new(&s, &[8]).unwrap();
        assert_eq!(shards.len(), 2);
        let second = shards.chunk(1); // positions 8..13, slab indices 5..10
        assert_eq!(second[0], Part { chunk: 1, k: 5, n: 5, w: 0 });
        let inner = Grid::within(&s, &second, &[2]).unwrap();
        assert_eq!(inner.len(), 3);
        assert_eq!(inner.chunk(0)[0], Part { chunk: 4, k: 5, n: 2, w: 0 });
        assert_eq!(inner.chunk(2)[0], Part { chunk: 6, k: 9, n: 1, w: 0 });
        // the same chunks as a grid of the whole slab by chunks
        let all = Grid::new(&s, &[2]).unwrap();
        assert_eq!(all.chunk(5)[0], inner.chunk(2)[0]);
    }

    #[test]
    fn ends_past_u64_are_refused() {
        let s = |start: u64, count: u64, stride: u64| Slab {
            start: vec![start].into(),
            count: vec![count].into(),
            stride: vec![stride].into(),
            imap: vec![1].into(),
            dense: true,
        };
        assert_eq!(s(u64::MAX - 1, 1, 1).end(0), Some(u64::MAX));
        assert_eq!(s(u64::MAX, 1, 1).end(0), None);
        assert_eq!(s(u64::MAX, 0, 1).end(0), Some(u64::MAX));
        assert_eq!(s(0, 1 << 33, 1 << 31).end(0), Some(u64::MAX - (1 << 31) + 2));
        assert_eq!(s(0, (1 << 33) + 1, 1 << 31).end(0), None);
        for bad in [s(u64::MAX - 1, 3, 1), s(1, (1 << 33) + 1, 1 << 31)] {
            assert_eq!(Grid::new(&bad, &[4]).err().map(|e| e.code()), Some(NC_EEDGE));
        }
        // the last position is u64::MAX: its chunk is the grid's last
        let g = Grid::new(&s(u64::MAX - 2, 3, 1), &[2]).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g.chunk(1)[0], Part { chunk: u64::MAX / 2, k: 1, n: 2, w: 0 });
    }

    #[test]
    fn disjoint_maps() {
        let s = |count: Vec<u64>, imap: Vec<u64>| Slab {
            start: vec![0; count.len()].into(),
            stride: vec![1; count.len()].into(),
            count: count.into(),
            imap: imap.into(),
            dense: false,
        };
        assert!(s(vec![3, 4], vec![1, 3]).disjoint()); // transposed
        assert!(!s(vec![3, 4], vec![1, 2]).disjoint()); // 2 == 0 + 2*1
        assert!(!s(vec![3], vec![0]).disjoint());
        assert!(s(vec![1, 5], vec![0, 1]).disjoint());
    }

    /// Positions (variable indices) and memory offsets of a slab, C order.
    fn walk(s: &Slab, base: u64) -> Vec<(Vec<u64>, u64)> {
        let nd = s.count.len();
        let mut k = vec![0u64; nd];
        let mut out = Vec::new();
        for off in s.offsets() {
            out.push(((0..nd).map(|d| s.start[d] + k[d] * s.stride[d]).collect(), base + off as u64));
            for d in (0..nd).rev() {
                k[d] += 1;
                if k[d] < s.count[d] {
                    break;
                }
                k[d] = 0;
            }
        }
        out
    }

    #[test]
    fn pieces_cover_the_slab_in_c_order() {
        let slab = Slab {
            start: vec![1, 0, 2].into(),
            count: vec![3, 4, 5].into(),
            stride: vec![2, 1, 3].into(),
            imap: vec![4, 1, 2].into(), // aliasing
            dense: false,
        };
        let whole = walk(&slab, 0);
        for max in [0, 1, 2, 3, 4, 5, 7, 19, 20, 21, 59, 60, 61, 1000] {
            let mut got = Vec::new();
            slab.for_pieces(max, |p, base| {
                assert!(p.count.iter().product::<u64>() <= max.max(1), "max {max}: {:?}", p.count);
                got.extend(walk(p, base));
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(got, whole, "max {max}");
        }
    }
}
