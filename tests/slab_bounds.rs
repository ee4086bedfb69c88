//! Slabs at the far end of index space, through the C API and the engine:
//! starts near u64::MAX and 2^63, start + count and stride * count past a
//! u64, memory maps past the address space, for gets and puts on fixed and
//! unlimited dimensions. A read gets netCDF-C's code (`NC_EINVALCOORDS`,
//! `NC_EEDGE`, `NC_ESTRIDE`); a write whose end does not fit a dimension
//! (past i64::MAX, which a Zarr shape cannot hold, or past u64::MAX) is
//! `NC_ENOMEM`, as netCDF-C 4.10.1 answers, and writes nothing: no chunk
//! object, no dimension longer.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut, Slab};
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use nczarr_rs::map::{Driver, StoreKey};
use std::ffi::CString;
use std::os::raw::c_int;

const MAX: usize = usize::MAX;
const HALF: usize = 1 << 63; // i64::MAX + 1
const STRIDE: isize = i32::MAX as isize; // the largest stride netCDF allows

/// A dataset in memory: `u(t)` and `w(t, x)` on unlimited `t` (3 records
/// written), `f(x)` on fixed `x` of 6.
struct Ds {
    name: String,
    nc: c_int,
    t: c_int,
    x: c_int,
    u: c_int,
    w: c_int,
    f: c_int,
}

unsafe fn dataset(name: &str) -> Ds {
    let name = format!("slab_bounds/{name}");
    let p = CString::new(format!("mem://{name}")).unwrap();
    let (mut nc, mut t, mut x, mut u, mut w, mut f) = (0, 0, 0, 0, 0, 0);
    assert_eq!(nc_create(p.as_ptr(), NC_CLOBBER, &mut nc), 0);
    assert_eq!(nc_def_dim(nc, c"t".as_ptr(), NC_UNLIMITED as usize, &mut t), 0);
    assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 6, &mut x), 0);
    assert_eq!(nc_def_var(nc, c"u".as_ptr(), NC_INT, 1, [t].as_ptr(), &mut u), 0);
    assert_eq!(nc_def_var(nc, c"w".as_ptr(), NC_INT, 2, [t, x].as_ptr(), &mut w), 0);
    assert_eq!(nc_def_var(nc, c"f".as_ptr(), NC_INT, 1, [x].as_ptr(), &mut f), 0);
    assert_eq!(nc_enddef(nc), 0);
    let vals: Vec<c_int> = (0..18).collect();
    assert_eq!(nc_put_vara_int(nc, u, [0].as_ptr(), [3].as_ptr(), vals.as_ptr()), 0);
    assert_eq!(nc_put_vara_int(nc, w, [0, 0].as_ptr(), [3, 6].as_ptr(), vals.as_ptr()), 0);
    assert_eq!(nc_put_vara_int(nc, f, [0].as_ptr(), [6].as_ptr(), vals.as_ptr()), 0);
    assert_eq!(nc_sync(nc), 0);
    Ds { name, nc, t, x, u, w, f }
}

impl Ds {
    /// The store's objects, with their bytes, after a sync.
    unsafe fn objects(&self) -> Vec<(String, Vec<u8>)> {
        assert_eq!(nc_sync(self.nc), 0);
        let store = Driver::Memory.open(&self.name, false).unwrap();
        let mut out: Vec<(String, Vec<u8>)> = store
            .list_prefix(&StoreKey::root())
            .unwrap()
            .into_iter()
            .map(|k| (k.to_string(), store.get(&k).unwrap().unwrap()))
            .collect();
        out.sort();
        out
    }

    unsafe fn lens(&self) -> [usize; 2] {
        let (mut t, mut x) = (0, 0);
        assert_eq!(nc_inq_dimlen(self.nc, self.t, &mut t), 0);
        assert_eq!(nc_inq_dimlen(self.nc, self.x, &mut x), 0);
        [t, x]
    }

    /// `nc_put_varm_int` (`vars` when `imap` is None) must answer `want`
    /// and change nothing: no object written or changed, no length.
    unsafe fn refused_put(
        &self,
        v: c_int,
        start: &[usize],
        count: &[usize],
        stride: &[isize],
        imap: Option<&[isize]>,
        want: c_int,
    ) {
        let (before, lens) = (self.objects(), self.lens());
        let rc = self.put(v, start, count, stride, imap);
        let what = format!("put {v} start {start:?} count {count:?} stride {stride:?} imap {imap:?}");
        assert_eq!(rc, want, "{what}");
        assert_eq!(self.lens(), lens, "{what}: a dimension changed");
        let after = self.objects();
        let names = |o: &[(String, Vec<u8>)]| o.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
        assert_eq!(names(&after), names(&before), "{what}: objects written");
        assert!(after == before, "{what}: an object changed");
    }

    /// `nc_put_varm_int` (`vars` when `imap` is None) of 7s: its status.
    unsafe fn put(
        &self,
        v: c_int,
        start: &[usize],
        count: &[usize],
        stride: &[isize],
        imap: Option<&[isize]>,
    ) -> c_int {
        let buf = [7 as c_int; 64];
        match imap {
            Some(m) => {
                nc_put_varm_int(self.nc, v, start.as_ptr(), count.as_ptr(), stride.as_ptr(), m.as_ptr(), buf.as_ptr())
            }
            None => nc_put_vars_int(self.nc, v, start.as_ptr(), count.as_ptr(), stride.as_ptr(), buf.as_ptr()),
        }
    }

    unsafe fn get(
        &self,
        v: c_int,
        start: &[usize],
        count: &[usize],
        stride: &[isize],
        imap: Option<&[isize]>,
    ) -> c_int {
        let mut buf = [0 as c_int; 64];
        match imap {
            Some(m) => nc_get_varm_int(
                self.nc,
                v,
                start.as_ptr(),
                count.as_ptr(),
                stride.as_ptr(),
                m.as_ptr(),
                buf.as_mut_ptr(),
            ),
            None => nc_get_vars_int(self.nc, v, start.as_ptr(), count.as_ptr(), stride.as_ptr(), buf.as_mut_ptr()),
        }
    }
}

#[test]
fn puts_past_the_largest_length_are_refused_and_write_nothing() {
    unsafe {
        let ds = dataset("puts");
        let (u, w) = (ds.u, ds.w);
        // netCDF-C 4.10.1: NC_ENOMEM for SIZE_MAX (it writes nothing, but
        // takes the record count to 0)
        ds.refused_put(u, &[MAX], &[1], &[1], None, NC_ENOMEM);
        assert_eq!(nc_put_vara_int(ds.nc, u, [MAX].as_ptr(), [1].as_ptr(), [5].as_ptr()), NC_ENOMEM);
        assert_eq!(nc_put_var1_int(ds.nc, u, [MAX].as_ptr(), &5), NC_ENOMEM);
        // 2^63: netCDF-C 4.10.1 writes a length of 2^63 + 1 it cannot open
        ds.refused_put(u, &[HALF], &[1], &[1], None, NC_ENOMEM);
        ds.refused_put(u, &[HALF - 1], &[1], &[1], None, NC_ENOMEM);
        ds.refused_put(w, &[HALF, 0], &[1, 6], &[1, 1], None, NC_ENOMEM);
        // start + count past u64::MAX
        ds.refused_put(u, &[MAX - 1], &[4], &[1], None, NC_ENOMEM);
        ds.refused_put(w, &[MAX - 2, 1], &[4, 2], &[1, 1], None, NC_ENOMEM);
        // stride * count: past i64::MAX, past u64::MAX at the last
        // position, past u64::MAX in the product
        ds.refused_put(u, &[HALF - (1 << 31)], &[2], &[STRIDE], None, NC_ENOMEM);
        ds.refused_put(u, &[MAX - (1 << 31) + 1], &[2], &[STRIDE], None, NC_ENOMEM);
        ds.refused_put(u, &[0], &[1 << 34], &[STRIDE], None, NC_ENOMEM);
        ds.refused_put(w, &[1, 0], &[1 << 34, 1], &[STRIDE, 1], None, NC_ENOMEM);
        // a fixed dimension: netCDF-C's codes
        let f = ds.f;
        ds.refused_put(f, &[MAX], &[1], &[1], None, NC_EINVALCOORDS);
        ds.refused_put(f, &[HALF], &[1], &[1], None, NC_EINVALCOORDS);
        ds.refused_put(f, &[2], &[MAX], &[1], None, NC_EEDGE);
        ds.refused_put(f, &[0], &[2], &[STRIDE], None, NC_EEDGE);
        ds.refused_put(f, &[0], &[1 << 34], &[STRIDE], None, NC_EEDGE);
        ds.refused_put(w, &[0, 3], &[1, MAX - 1], &[1, 1], None, NC_EEDGE);
        // memory maps past the address space, on a write that would grow
        ds.refused_put(w, &[3, 0], &[2, 3], &[1, 1], Some(&[1 << 62, 1]), NC_EINVAL);
        ds.refused_put(w, &[3, 0], &[3, 2], &[1, 1], Some(&[isize::MAX, 1]), NC_EINVAL);
        ds.refused_put(u, &[3], &[2], &[1], Some(&[isize::MAX]), NC_EINVAL);
        // the limit itself: a length of i64::MAX is held, and read back
        let last = HALF - 2;
        assert_eq!(nc_put_vara_int(ds.nc, u, [last].as_ptr(), [1].as_ptr(), [42].as_ptr()), 0);
        assert_eq!(ds.lens(), [HALF - 1, 6]);
        let mut got = 0;
        assert_eq!(nc_get_var1_int(ds.nc, u, [last].as_ptr(), &mut got), 0);
        assert_eq!(got, 42);
        assert_eq!(nc_get_var1_int(ds.nc, u, [3].as_ptr(), &mut got), 0);
        assert_eq!(got, NC_FILL_INT);
        ds.refused_put(u, &[last + 1], &[1], &[1], None, NC_ENOMEM);
        assert_eq!(nc_close(ds.nc), 0);
    }
}

#[test]
fn gets_past_the_end_get_netcdf_c_codes() {
    unsafe {
        let ds = dataset("gets");
        for v in [ds.u, ds.f] {
            assert_eq!(ds.get(v, &[MAX], &[1], &[1], None), NC_EINVALCOORDS);
            assert_eq!(ds.get(v, &[HALF], &[1], &[1], None), NC_EINVALCOORDS);
            assert_eq!(ds.get(v, &[MAX - 1], &[4], &[1], None), NC_EINVALCOORDS);
            assert_eq!(ds.get(v, &[2], &[MAX], &[1], None), NC_EEDGE);
            assert_eq!(ds.get(v, &[1], &[MAX - 1], &[1], None), NC_EEDGE);
            assert_eq!(ds.get(v, &[0], &[2], &[STRIDE], None), NC_EEDGE);
            assert_eq!(ds.get(v, &[0], &[1 << 34], &[STRIDE], None), NC_EEDGE);
            assert_eq!(ds.get(v, &[0], &[2], &[0], None), NC_ESTRIDE);
            assert_eq!(ds.get(v, &[0], &[2], &[-1], None), NC_ESTRIDE);
            assert_eq!(ds.get(v, &[0], &[1], &[STRIDE + 1], None), NC_ESTRIDE);
            assert_eq!(ds.get(v, &[0], &[2], &[1], Some(&[isize::MAX])), NC_EINVAL);
            assert_eq!(ds.get(v, &[0], &[2], &[1], Some(&[1 << 62])), NC_EINVAL);
        }
        assert_eq!(ds.get(ds.w, &[0, 0], &[2, 3], &[1, 1], Some(&[1 << 61, isize::MAX])), NC_EINVAL);
        assert_eq!(ds.get(ds.w, &[0, 0], &[3, 6], &[1, 1], Some(&[1, 3])), 0);
        // at the end: nothing to read is fine, one past it is not
        assert_eq!(ds.get(ds.u, &[3], &[0], &[1], None), 0);
        assert_eq!(ds.get(ds.u, &[4], &[0], &[1], None), NC_EINVALCOORDS);
        assert_eq!(ds.get(ds.u, &[3], &[1], &[1], None), NC_EINVALCOORDS);
        assert_eq!(ds.get(ds.u, &[2], &[2], &[1], None), NC_EEDGE);
        assert_eq!(nc_close(ds.nc), 0);
    }
}

/// A slab made by hand and given to the engine: every bad one is an
/// error, never a panic, and a refused write changes nothing.
#[test]
fn hand_made_slabs_are_checked_by_the_engine() {
    let url = "mem://slab_bounds/engine";
    let mut ds = file::create(url, NC_CLOBBER).unwrap();
    let t = ds.def_dim(0, "t", NC_UNLIMITED as u64).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_INT, &[t]).unwrap() as i32;
    ds.enddef().unwrap();
    let good = ds.slab(0, v, Some(&[0]), Some(&[2]), None, None, true).unwrap();
    let one = |start: u64, count: u64, stride: u64| Slab {
        start: vec![start].into(),
        count: vec![count].into(),
        stride: vec![stride].into(),
        imap: vec![1].into(),
        dense: true,
    };
    let bytes = [0u8; 64];
    // (slab, the put's code, the get's: the variable has no records)
    let cases: Vec<(Slab, i32, i32)> = vec![
        (one(u64::MAX, 1, 1), NC_ENOMEM, NC_EINVALCOORDS),
        (one(u64::MAX - 1, 3, 1), NC_ENOMEM, NC_EINVALCOORDS),
        (one(1 << 63, 1, 1), NC_ENOMEM, NC_EINVALCOORDS),
        (one(0, 1 << 34, 1 << 31), NC_ENOMEM, NC_EINVALCOORDS),
        (one(0, 2, 0), NC_ESTRIDE, NC_ESTRIDE),
        (one(0, 0, 0), NC_ESTRIDE, NC_ESTRIDE),
        (Slab { start: vec![0, 0].into(), ..good.clone() }, NC_EINVAL, NC_EINVAL),
        (Slab { imap: vec![u64::MAX].into(), dense: false, ..good.clone() }, NC_EINVAL, NC_EINVALCOORDS),
        // a buffer too small for the slab
        (one(0, 17, 1), NC_EINVAL, NC_EINVALCOORDS),
    ];
    for (slab, put, get) in &cases {
        let rc = ds.put_slab(0, v, slab, MemIn::Bytes { memtype: NC_INT, buf: &bytes }).map_err(|e| e.code());
        assert_eq!(rc, Err(*put), "put {slab:?}");
        assert_eq!(ds.dim(t).unwrap().len, 0, "put {slab:?}");
        let mut out = [0u8; 64];
        let rc = ds.get_slab(0, v, slab, MemOut::Bytes { memtype: NC_INT, buf: &mut out }).map_err(|e| e.code());
        assert_eq!(rc, Err(*get), "get {slab:?}");
    }
    ds.sync().unwrap();
    let store = Driver::Memory.open("slab_bounds/engine", false).unwrap();
    let keys: Vec<String> = store.list_prefix(&StoreKey::root()).unwrap().iter().map(|k| k.to_string()).collect();
    assert!(keys.iter().all(|k| !k.starts_with("v/") || k.contains(".z")), "chunks written: {keys:?}");
    // once there are records: a get with a short buffer, or a map past it
    let vals = [1i32, 2, 3, 4].iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
    let four = ds.slab(0, v, Some(&[0]), Some(&[4]), None, None, true).unwrap();
    ds.put_slab(0, v, &four, MemIn::Bytes { memtype: NC_INT, buf: &vals }).unwrap();
    let mut out = [0u8; 15];
    let rc = ds.get_slab(0, v, &four, MemOut::Bytes { memtype: NC_INT, buf: &mut out }).map_err(|e| e.code());
    assert_eq!(rc, Err(NC_EINVAL));
    let mut out = [0u8; 16];
    ds.get_slab(0, v, &four, MemOut::Bytes { memtype: NC_INT, buf: &mut out }).unwrap();
    assert_eq!(&out[..], &vals[..]);
    let mapped = Slab { imap: vec![2].into(), dense: false, ..four.clone() };
    let rc = ds.get_slab(0, v, &mapped, MemOut::Bytes { memtype: NC_INT, buf: &mut out }).map_err(|e| e.code());
    assert_eq!(rc, Err(NC_EINVAL));
    let mut strings = vec![String::new(); 4];
    let rc = ds.get_slab(0, v, &four, MemOut::Strings(&mut strings)).map_err(|e| e.code());
    assert_eq!(rc, Err(NC_EBADTYPE));
    assert_eq!(ds.dim(t).unwrap().len, 4);
    ds.close().unwrap();
}
