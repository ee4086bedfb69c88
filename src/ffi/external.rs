//! The C libraries the aggregation engine (`engine::aggregate`) uses through
//! its traits, loaded at run time:
//!
//! - netCDF files (aggregation fragments) are read with the real libnetcdf:
//!   the one calls are forwarded to (`interpose`: `RTLD_NEXT`, an already
//!   loaded `libnetcdf*`, `NCZARR_RS_LIBNETCDF`), else `libnetcdf.so.19`
//!   or `libnetcdf.so` opened here. libnetcdf is not thread-safe: every
//!   call into it holds one lock.
//! - Units are converted with UDUNITS-2 (`libudunits2.so.0`, its default
//!   XML database or `UDUNITS2_XML_PATH`), also behind one lock.
//!
//! Neither is needed to build or load this library: without them, reading
//! a netCDF fragment or converting units is `NC_ENOTBUILT` with the reason.

use super::interpose::{reading_library, symbol_in};
use crate::engine::aggregate::{self, FragVar, Fragment, FragmentReader, Region, UnitSystem};
use crate::engine::consts::*;
use crate::engine::convert::{convert, elem_size};
use crate::engine::error::*;
use crate::engine::model::Att;
use crate::engine::ncfile::{DescDim, DescGroup, DescVar, Described};
use crate::engine::types::Values;
use crate::engine::{NcError, NcResult};
use std::collections::{HashMap, VecDeque};
use std::ffi::{c_void, CStr, CString};
use std::os::raw::{c_char, c_int};
use std::sync::{Arc, Mutex, Once, OnceLock};

/// Installs the reader and the units library into the engine (once).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| aggregate::install(Some(Box::new(NetcdfReader)), Some(Box::new(Udunits))));
}

/// Serialises calls into libnetcdf.
static NETCDF_LOCK: Mutex<()> = Mutex::new(());

/// Takes [`NETCDF_LOCK`], first turning off HDF5's printing of its error
/// stack on this thread: libnetcdf does so when it starts, on its first
/// thread only, and a thread-safe HDF5 keeps that setting per thread; the
/// reads of an aggregation run on worker threads, where every probe of a
/// missing attribute would otherwise print an "HDF5-DIAG" trace.
fn netcdf_lock() -> std::sync::MutexGuard<'static, ()> {
    thread_local!(static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    let guard = NETCDF_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !QUIET.with(|q| q.replace(true)) {
        if let Some(lib) = reading_library() {
            let p = symbol_in(lib, c"H5Eset_auto2");
            if p != 0 {
                // SAFETY: HDF5's `herr_t H5Eset_auto2(hid_t estack, H5E_auto2_t
                // func, void *client_data)`; `H5E_DEFAULT` is 0, and a NULL
                // function turns printing off.
                let set_auto: unsafe extern "C" fn(i64, *mut c_void, *mut c_void) -> c_int =
                    unsafe { std::mem::transmute::<usize, _>(p) };
                unsafe { set_auto(0, std::ptr::null_mut(), std::ptr::null_mut()) };
            }
        }
    }
    guard
}

type OpenFn = unsafe extern "C" fn(*const c_char, c_int, *mut c_int) -> c_int;
type CloseFn = unsafe extern "C" fn(c_int) -> c_int;
type IdByNameFn = unsafe extern "C" fn(c_int, *const c_char, *mut c_int) -> c_int;
type InqVarFn =
    unsafe extern "C" fn(c_int, c_int, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int;
type DimLenFn = unsafe extern "C" fn(c_int, c_int, *mut usize) -> c_int;
type InqAttFn = unsafe extern "C" fn(c_int, c_int, *const c_char, *mut c_int, *mut usize) -> c_int;
type GetAttFn = unsafe extern "C" fn(c_int, c_int, *const c_char, *mut c_void) -> c_int;
type FreeStringFn = unsafe extern "C" fn(usize, *mut *mut c_char) -> c_int;
type InqFillFn = unsafe extern "C" fn(c_int, c_int, *mut c_int, *mut c_void) -> c_int;
type GetVarsFn = unsafe extern "C" fn(c_int, c_int, *const usize, *const usize, *const isize, *mut c_void) -> c_int;
type StrErrorFn = unsafe extern "C" fn(c_int) -> *const c_char;
type InqIdsFn = unsafe extern "C" fn(c_int, *mut c_int, *mut c_int) -> c_int;
type InqDimidsFn = unsafe extern "C" fn(c_int, *mut c_int, *mut c_int, c_int) -> c_int;
type InqNameFn = unsafe extern "C" fn(c_int, *mut c_char) -> c_int;
type InqDimFn = unsafe extern "C" fn(c_int, c_int, *mut c_char, *mut usize) -> c_int;
type InqAttNameFn = unsafe extern "C" fn(c_int, c_int, c_int, *mut c_char) -> c_int;
type InqVarNattsFn = unsafe extern "C" fn(c_int, c_int, *mut c_int) -> c_int;

/// The libnetcdf functions the reader calls.
struct Netcdf {
    open: OpenFn,
    close: CloseFn,
    inq_grp_ncid: IdByNameFn,
    inq_varid: IdByNameFn,
    inq_var: InqVarFn,
    inq_dimlen: DimLenFn,
    inq_att: InqAttFn,
    get_att_text: GetAttFn,
    get_att_string: GetAttFn,
    get_att_double: GetAttFn,
    free_string: FreeStringFn,
    inq_var_fill: InqFillFn,
    get_vars: GetVarsFn,
    strerror: StrErrorFn,
    inq_grps: InqIdsFn,
    inq_grpname: InqNameFn,
    inq_dimids: InqDimidsFn,
    inq_dim: InqDimFn,
    inq_unlimdims: InqIdsFn,
    inq_varids: InqIdsFn,
    inq_attname: InqAttNameFn,
    inq_varnatts: InqVarNattsFn,
    get_att: GetAttFn,
}

/// Loads the functions (each time until found: Python may load its
/// libnetcdf after this library's first call).
fn netcdf() -> NcResult<&'static Netcdf> {
    static FOUND: OnceLock<Netcdf> = OnceLock::new();
    if let Some(n) = FOUND.get() {
        return Ok(n);
    }
    let missing = || {
        NcError::with(NC_ENOTBUILT, "reading a netCDF fragment needs libnetcdf (libnetcdf.so.19), which was not found")
    };
    let lib = reading_library().ok_or_else(missing)?;
    macro_rules! sym {
        ($name:literal as $t:ty) => {{
            let p = symbol_in(lib, $name);
            if p == 0 {
                return Err(missing());
            }
            // SAFETY: the symbol is libnetcdf's function of that name, whose
            // C signature the type alias it is assigned to spells out.
            unsafe { std::mem::transmute::<usize, $t>(p) }
        }};
    }
    let n = Netcdf {
        open: sym!(c"nc_open" as OpenFn),
        close: sym!(c"nc_close" as CloseFn),
        inq_grp_ncid: sym!(c"nc_inq_grp_ncid" as IdByNameFn),
        inq_varid: sym!(c"nc_inq_varid" as IdByNameFn),
        inq_var: sym!(c"nc_inq_var" as InqVarFn),
        inq_dimlen: sym!(c"nc_inq_dimlen" as DimLenFn),
        inq_att: sym!(c"nc_inq_att" as InqAttFn),
        get_att_text: sym!(c"nc_get_att_text" as GetAttFn),
        get_att_string: sym!(c"nc_get_att_string" as GetAttFn),
        get_att_double: sym!(c"nc_get_att_double" as GetAttFn),
        free_string: sym!(c"nc_free_string" as FreeStringFn),
        inq_var_fill: sym!(c"nc_inq_var_fill" as InqFillFn),
        get_vars: sym!(c"nc_get_vars" as GetVarsFn),
        strerror: sym!(c"nc_strerror" as StrErrorFn),
        inq_grps: sym!(c"nc_inq_grps" as InqIdsFn),
        inq_grpname: sym!(c"nc_inq_grpname" as InqNameFn),
        inq_dimids: sym!(c"nc_inq_dimids" as InqDimidsFn),
        inq_dim: sym!(c"nc_inq_dim" as InqDimFn),
        inq_unlimdims: sym!(c"nc_inq_unlimdims" as InqIdsFn),
        inq_varids: sym!(c"nc_inq_varids" as InqIdsFn),
        inq_attname: sym!(c"nc_inq_attname" as InqAttNameFn),
        inq_varnatts: sym!(c"nc_inq_varnatts" as InqVarNattsFn),
        get_att: sym!(c"nc_get_att" as GetAttFn),
    };
    Ok(FOUND.get_or_init(|| n))
}

impl Netcdf {
    /// A libnetcdf status as an error, with its text and `what`.
    fn check(&self, rc: c_int, what: impl FnOnce() -> String) -> NcResult<()> {
        if rc == NC_NOERR {
            return Ok(());
        }
        // SAFETY: nc_strerror returns a static NUL-terminated string.
        let text = unsafe { CStr::from_ptr((self.strerror)(rc)) }.to_string_lossy().into_owned();
        Err(NcError::with(rc, format!("{}: {text}", what())))
    }
}

/// Opens netCDF files with libnetcdf.
struct NetcdfReader;

impl FragmentReader for NetcdfReader {
    fn open(&self, path: &str) -> NcResult<Arc<dyn Fragment>> {
        let nc = netcdf()?;
        let c = CString::new(path).map_err(|_| NcError::with(NC_EINVAL, "a path with a NUL byte"))?;
        let mut ncid: c_int = 0;
        let _l = netcdf_lock();
        // SAFETY: valid NUL-terminated path and out pointer.
        nc.check(unsafe { (nc.open)(c.as_ptr(), NC_NOWRITE, &mut ncid) }, || format!("opening {path}"))?;
        Ok(Arc::new(NetcdfFile { nc, ncid, path: path.to_string() }))
    }
}

/// A netCDF file open in libnetcdf; closed when dropped.
struct NetcdfFile {
    nc: &'static Netcdf,
    ncid: c_int,
    path: String,
}

impl Drop for NetcdfFile {
    fn drop(&mut self) {
        let _l = netcdf_lock();
        // SAFETY: an ncid this value opened.
        unsafe { (self.nc.close)(self.ncid) };
    }
}

/// Whether the dataset libnetcdf has open as `ncid` says in its global
/// `Conventions` that it may hold aggregation variables (see
/// [`aggregate::conventions_aggregate`]).
pub(crate) fn may_aggregate(ncid: c_int) -> bool {
    let Ok(nc) = netcdf() else { return false };
    let _l = netcdf_lock();
    aggregate::dataset_conventions_aggregate(|n| text_att(nc, ncid, NC_GLOBAL, &CString::new(n).ok()?))
}

impl NetcdfFile {
    /// A text attribute (char or string), if there is one.
    fn text_att(&self, ncid: c_int, varid: c_int, name: &CStr) -> Option<String> {
        text_att(self.nc, ncid, varid, name)
    }
}

/// The strings libnetcdf allocated into `ptrs` (NULL: none), copied, then
/// freed with `nc_free_string` (the caller holds the lock).
///
/// # Safety
/// Each pointer is NULL or a NUL-terminated string libnetcdf allocated.
unsafe fn take_strings(nc: &Netcdf, ptrs: &mut [*mut c_char]) -> Vec<Option<String>> {
    let strings = ptrs
        .iter()
        // SAFETY: as the caller promises.
        .map(|&q| (!q.is_null()).then(|| unsafe { CStr::from_ptr(q) }.to_string_lossy().into_owned()))
        .collect();
    // SAFETY: as the caller promises.
    unsafe { (nc.free_string)(ptrs.len(), ptrs.as_mut_ptr()) };
    strings
}

/// A text attribute (char or string), if there is one (the caller holds
/// the lock).
fn text_att(nc: &Netcdf, ncid: c_int, varid: c_int, name: &CStr) -> Option<String> {
    let (mut t, mut len): (c_int, usize) = (0, 0);
    // SAFETY: valid name and out pointers.
    if unsafe { (nc.inq_att)(ncid, varid, name.as_ptr(), &mut t, &mut len) } != NC_NOERR || len == 0 {
        return None;
    }
    if len > 1 << 20 {
        return None;
    }
    match t {
        NC_CHAR => {
            let mut b = vec![0u8; len];
            // SAFETY: `b` holds `len` chars.
            let rc = unsafe { (nc.get_att_text)(ncid, varid, name.as_ptr(), b.as_mut_ptr() as *mut c_void) };
            (rc == NC_NOERR).then(|| String::from_utf8_lossy(&b).trim_end_matches('\0').to_string())
        }
        NC_STRING => {
            let mut p: Vec<*mut c_char> = vec![std::ptr::null_mut(); len];
            // SAFETY: `p` holds `len` string pointers, freed below.
            let rc = unsafe { (nc.get_att_string)(ncid, varid, name.as_ptr(), p.as_mut_ptr() as *mut c_void) };
            if rc != NC_NOERR {
                return None;
            }
            // SAFETY: libnetcdf filled `p` with its strings (or NULL).
            unsafe { take_strings(nc, &mut p) }.into_iter().next().flatten()
        }
        _ => None,
    }
}

impl NetcdfFile {
    /// A numeric attribute as doubles.
    fn num_att(&self, ncid: c_int, varid: c_int, name: &CStr) -> Vec<f64> {
        let nc = self.nc;
        let (mut t, mut len): (c_int, usize) = (0, 0);
        // SAFETY: valid name and out pointers.
        if unsafe { (nc.inq_att)(ncid, varid, name.as_ptr(), &mut t, &mut len) } != NC_NOERR
            || matches!(t, NC_CHAR | NC_STRING)
            || !(1..=4096).contains(&len)
        {
            return Vec::new();
        }
        let mut v = vec![0f64; len];
        // SAFETY: `v` holds `len` doubles.
        let rc = unsafe { (nc.get_att_double)(ncid, varid, name.as_ptr(), v.as_mut_ptr() as *mut c_void) };
        if rc != NC_NOERR && rc != NC_ERANGE {
            return Vec::new();
        }
        v
    }
}

/// Most entries one listing of a netCDF file may hold (groups, dimensions,
/// variables or attributes of one object): far above any real file, and a
/// bound on what a crafted one makes this library allocate.
const MAX_LISTED: c_int = 1 << 22;

impl NetcdfFile {
    /// The ids a `nc_inq_*ids`-style call lists (`f(count, ids)`, called
    /// with NULL first for the count).
    fn ids(&self, what: &str, f: impl Fn(*mut c_int, *mut c_int) -> c_int) -> NcResult<Vec<c_int>> {
        let mut n: c_int = 0;
        self.nc.check(f(&mut n, std::ptr::null_mut()), || format!("{what} in {}", self.path))?;
        if !(0..=MAX_LISTED).contains(&n) {
            return Err(NcError::with(NC_ENOTBUILT, format!("{}: {n} {what}", self.path)));
        }
        let mut ids = vec![0 as c_int; n as usize];
        if n > 0 {
            self.nc.check(f(&mut n, ids.as_mut_ptr()), || format!("{what} in {}", self.path))?;
        }
        ids.truncate(n.max(0) as usize);
        Ok(ids)
    }

    /// A name libnetcdf writes into a buffer of `NC_MAX_NAME + 1` bytes.
    fn name(&self, f: impl FnOnce(*mut c_char) -> c_int) -> NcResult<String> {
        let mut buf = [0 as c_char; NC_MAX_NAME as usize + 1];
        self.nc.check(f(buf.as_mut_ptr()), || format!("a name in {}", self.path))?;
        *buf.last_mut().expect("nonempty") = 0;
        // SAFETY: NUL-terminated (the last byte at least).
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
    }

    /// Every attribute of a variable (`NC_GLOBAL`: of the group).
    fn atts(&self, ncid: c_int, varid: c_int) -> NcResult<Vec<Att>> {
        let nc = self.nc;
        let mut natts: c_int = 0;
        // SAFETY: out pointer.
        nc.check(unsafe { (nc.inq_varnatts)(ncid, varid, &mut natts) }, || format!("attributes in {}", self.path))?;
        if !(0..=MAX_LISTED).contains(&natts) {
            return Err(NcError::with(NC_ENOTBUILT, format!("{}: {natts} attributes", self.path)));
        }
        let max = crate::limits::limits().max_metadata_bytes;
        let mut atts = Vec::with_capacity(natts as usize);
        for i in 0..natts {
            // SAFETY: a name buffer of NC_MAX_NAME + 1 bytes.
            let name = self.name(|p| unsafe { (nc.inq_attname)(ncid, varid, i, p) })?;
            let cname = CString::new(name.as_str()).map_err(|_| NcError::new(NC_EBADNAME))?;
            let what = || format!("attribute {name} in {}", self.path);
            let (mut t, mut len): (c_int, usize) = (0, 0);
            // SAFETY: valid name and out pointers.
            nc.check(unsafe { (nc.inq_att)(ncid, varid, cname.as_ptr(), &mut t, &mut len) }, what)?;
            let values = if t == NC_STRING {
                if len as u64 > max / 8 {
                    return Err(NcError::with(NC_ENOTBUILT, format!("{}: {len} strings", what())));
                }
                let mut p: Vec<*mut c_char> = vec![std::ptr::null_mut(); len];
                if len > 0 {
                    // SAFETY: `p` holds `len` string pointers, freed below.
                    let rc = unsafe { (nc.get_att_string)(ncid, varid, cname.as_ptr(), p.as_mut_ptr() as *mut c_void) };
                    nc.check(rc, what)?;
                }
                // SAFETY: libnetcdf filled `p` with its strings (or NULL).
                let strings = unsafe { take_strings(nc, &mut p) };
                Values::String(strings.into_iter().map(Option::unwrap_or_default).collect())
            } else {
                let size = crate::engine::types::type_size(t)
                    .ok_or_else(|| NcError::with(NC_ENOTBUILT, format!("{}: a user-defined type", what())))?;
                let bytes = (len as u64).checked_mul(size as u64).filter(|&b| b <= max).ok_or_else(|| {
                    NcError::with(NC_ENOTBUILT, format!("{}: {len} values, over the metadata limit", what()))
                })?;
                let mut b = vec![0u8; bytes as usize];
                if len > 0 {
                    // SAFETY: `b` holds `len` values of the attribute's type.
                    nc.check(
                        unsafe { (nc.get_att)(ncid, varid, cname.as_ptr(), b.as_mut_ptr() as *mut c_void) },
                        what,
                    )?;
                }
                Values::from_ne_bytes(t, &b)?
            };
            atts.push(Att { name, values });
        }
        Ok(atts)
    }
}

impl Fragment for NetcdfFile {
    fn describe(&self) -> NcResult<Described> {
        let nc = self.nc;
        let _l = netcdf_lock();
        let max_groups = crate::limits::limits().max_groups;
        let mut d = Described::default();
        let mut dim_index: HashMap<c_int, usize> = HashMap::new();
        let mut queue: VecDeque<(c_int, Option<usize>)> = VecDeque::from([(self.ncid, None)]);
        while let Some((gid, parent)) = queue.pop_front() {
            let gi = d.groups.len();
            if gi >= max_groups {
                return Err(NcError::with(NC_ENOTBUILT, format!("{}: over {max_groups} groups", self.path)));
            }
            // SAFETY (each call below): out pointers and buffers of the sizes
            // libnetcdf writes (counts from the call before, names of
            // NC_MAX_NAME + 1 bytes).
            let name =
                if parent.is_none() { "/".to_string() } else { self.name(|p| unsafe { (nc.inq_grpname)(gid, p) })? };
            let unlimited = self.ids("unlimited dimensions", |n, p| unsafe { (nc.inq_unlimdims)(gid, n, p) })?;
            for id in self.ids("dimensions", |n, p| unsafe { (nc.inq_dimids)(gid, n, p, 0) })? {
                let mut len = 0usize;
                let dname = self.name(|p| unsafe { (nc.inq_dim)(gid, id, p, &mut len) })?;
                dim_index.insert(id, d.dims.len());
                d.dims.push(DescDim { name: dname, len: len as u64, unlimited: unlimited.contains(&id), group: gi });
            }
            let atts = self.atts(gid, NC_GLOBAL)?;
            let mut vars = Vec::new();
            for varid in self.ids("variables", |n, p| unsafe { (nc.inq_varids)(gid, n, p) })? {
                let (mut t, mut nd, mut natts) = (0, 0, 0);
                let what = || format!("variable {varid} in {}", self.path);
                let (null_name, null_ids) = (std::ptr::null_mut(), std::ptr::null_mut());
                nc.check(unsafe { (nc.inq_var)(gid, varid, null_name, &mut t, &mut nd, null_ids, &mut natts) }, what)?;
                if !(0..=NC_MAX_VAR_DIMS).contains(&nd) {
                    return Err(NcError::with(NC_ENOTBUILT, format!("{}: rank {nd}", what())));
                }
                let mut ids = vec![0 as c_int; nd.max(1) as usize];
                let vname =
                    self.name(|p| unsafe { (nc.inq_var)(gid, varid, p, &mut t, &mut nd, ids.as_mut_ptr(), null_ids) })?;
                let dimids = ids[..nd as usize]
                    .iter()
                    .map(|id| dim_index.get(id).copied())
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(|| NcError::with(NC_ENOTBUILT, format!("{}: a dimension not seen", what())))?;
                let mut no_fill: c_int = 0;
                let rc = unsafe { (nc.inq_var_fill)(gid, varid, &mut no_fill, std::ptr::null_mut()) };
                let no_fill = rc == NC_NOERR && no_fill != 0;
                vars.push(DescVar {
                    name: vname,
                    nctype: t,
                    dimids,
                    atts: self.atts(gid, varid)?,
                    no_fill,
                    handle: (gid as i64, varid as i64),
                });
            }
            d.groups.push(DescGroup { name, parent, atts, vars });
            for child in self.ids("groups", |n, p| unsafe { (nc.inq_grps)(gid, n, p) })? {
                queue.push_back((child, Some(gi)));
            }
        }
        Ok(d)
    }

    fn global_text(&self, name: &str) -> Option<String> {
        let c = CString::new(name).ok()?;
        let _l = netcdf_lock();
        text_att(self.nc, self.ncid, NC_GLOBAL, &c)
    }

    fn read_strings(&self, var: &FragVar, region: &Region, out: &mut [String]) -> NcResult<()> {
        let nc = self.nc;
        if var.nctype != NC_STRING {
            return Err(NcError::new(NC_EBADTYPE));
        }
        let mut ptrs: Vec<*mut c_char> = vec![std::ptr::null_mut(); out.len()];
        self.get_vars(var, region, ptrs.as_mut_ptr() as *mut c_void)?;
        let _l = netcdf_lock();
        // SAFETY: libnetcdf filled `ptrs` with its strings (or NULL).
        for (s, t) in out.iter_mut().zip(unsafe { take_strings(nc, &mut ptrs) }) {
            *s = t.unwrap_or_default();
        }
        Ok(())
    }

    fn var(&self, name: &str) -> NcResult<FragVar> {
        let nc = self.nc;
        let _l = netcdf_lock();
        let what = || format!("{} in {}", name, self.path);
        let path = name.trim_start_matches('/');
        let mut parts: Vec<&str> = path.split('/').collect();
        let vname = parts.pop().unwrap_or_default();
        let mut gid = self.ncid;
        for g in parts {
            let c = CString::new(g).map_err(|_| NcError::new(NC_EINVAL))?;
            let mut child = 0;
            // SAFETY: valid name and out pointer.
            nc.check(unsafe { (nc.inq_grp_ncid)(gid, c.as_ptr(), &mut child) }, what)?;
            gid = child;
        }
        let c = CString::new(vname).map_err(|_| NcError::new(NC_EINVAL))?;
        let mut varid = 0;
        // SAFETY: valid name and out pointer.
        nc.check(unsafe { (nc.inq_varid)(gid, c.as_ptr(), &mut varid) }, what)?;
        let (mut t, mut nd, mut natts) = (0, 0, 0);
        // SAFETY: NULL for the outputs not wanted (name, dimids) is allowed.
        nc.check(
            unsafe {
                (nc.inq_var)(gid, varid, std::ptr::null_mut(), &mut t, &mut nd, std::ptr::null_mut(), &mut natts)
            },
            what,
        )?;
        if !(0..=NC_MAX_VAR_DIMS).contains(&nd) {
            return Err(NcError::with(NC_EINVAL, format!("{}: rank {nd}", what())));
        }
        let mut dimids = vec![0 as c_int; nd.max(1) as usize];
        // SAFETY: `dimids` holds `nd` ints.
        nc.check(
            unsafe { (nc.inq_var)(gid, varid, std::ptr::null_mut(), &mut t, &mut nd, dimids.as_mut_ptr(), &mut natts) },
            what,
        )?;
        let mut shape = Vec::with_capacity(nd as usize);
        for &d in &dimids[..nd as usize] {
            let mut len = 0usize;
            // SAFETY: out pointer.
            nc.check(unsafe { (nc.inq_dimlen)(gid, d, &mut len) }, what)?;
            shape.push(len as u64);
        }
        let mut missing = Vec::new();
        if !matches!(t, NC_CHAR | NC_STRING) && (NC_BYTE..=NC_UINT64).contains(&t) {
            let mut no_fill: c_int = 0;
            let mut fill = [0u8; 8];
            // SAFETY: `fill` holds one value of any numeric type.
            if unsafe { (nc.inq_var_fill)(gid, varid, &mut no_fill, fill.as_mut_ptr() as *mut c_void) } == NC_NOERR
                && no_fill == 0
            {
                let mut d = [0u8; 8];
                convert(t, &fill, NC_DOUBLE, &mut d, 1);
                missing.push(f64::from_ne_bytes(d));
            }
        }
        missing.extend(self.num_att(gid, varid, c"missing_value"));
        Ok(FragVar {
            handle: (gid as i64, varid as i64),
            nctype: t,
            shape,
            units: self.text_att(gid, varid, c"units"),
            calendar: self.text_att(gid, varid, c"calendar"),
            missing,
            scale_factor: self.num_att(gid, varid, c"scale_factor").first().copied(),
            add_offset: self.num_att(gid, varid, c"add_offset").first().copied(),
        })
    }

    fn read(&self, var: &FragVar, region: &Region, memtype: NcType, out: &mut [u8]) -> NcResult<bool> {
        let n = region.count.iter().try_fold(1u64, |a, &c| a.checked_mul(c)).ok_or_else(|| NcError::new(NC_EEDGE))?;
        let need = n.checked_mul(elem_size(memtype) as u64).ok_or_else(|| NcError::new(NC_EEDGE))?;
        if (out.len() as u64) < need {
            return Err(NcError::with(NC_EINTERNAL, "fragment read: buffer too small"));
        }
        if memtype == var.nctype {
            self.get_vars(var, region, out.as_mut_ptr() as *mut c_void)?;
            return Ok(false);
        }
        let fsize = elem_size(var.nctype) as u64;
        let mut tmp = crate::limits::try_zeroed(n.saturating_mul(fsize), crate::limits::limits().max_chunk_bytes)
            .map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
        self.get_vars(var, region, tmp.as_mut_ptr() as *mut c_void)?;
        Ok(convert(var.nctype, &tmp, memtype, out, n as usize))
    }
}

impl NetcdfFile {
    /// `nc_get_vars` of `region` into `buf`, which holds the region's
    /// values in the variable's own type.
    fn get_vars(&self, var: &FragVar, region: &Region, buf: *mut c_void) -> NcResult<()> {
        let nc = self.nc;
        let Region { start, count, stride } = *region;
        let conv = |v: &[u64]| -> Vec<usize> { v.iter().map(|&x| x as usize).collect() };
        let (s, c) = (conv(start), conv(count));
        let st: Vec<isize> = stride.iter().map(|&x| isize::try_from(x).unwrap_or(isize::MAX)).collect();
        let (zero, one, one_s) = ([0usize; 1], [1usize; 1], [1isize; 1]);
        let (sp, cp, tp) = if s.is_empty() {
            (zero.as_ptr(), one.as_ptr(), one_s.as_ptr())
        } else {
            (s.as_ptr(), c.as_ptr(), st.as_ptr())
        };
        let _l = netcdf_lock();
        // SAFETY: start/count/stride hold one entry per dimension of the
        // variable (its rank, from nc_inq_var) and the caller's `buf` holds
        // the `count` product of elements of the variable's own type.
        let rc = unsafe { (nc.get_vars)(var.handle.0 as c_int, var.handle.1 as c_int, sp, cp, tp, buf) };
        nc.check(rc, || format!("reading {}", self.path))
    }
}

// ---- UDUNITS-2 --------------------------------------------------------------------

type ReadXmlFn = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type ParseFn = unsafe extern "C" fn(*const c_void, *const c_char, c_int) -> *mut c_void;
type ConvertibleFn = unsafe extern "C" fn(*const c_void, *const c_void) -> c_int;
type ConverterFn = unsafe extern "C" fn(*mut c_void, *mut c_void) -> *mut c_void;
type ConvertFn = unsafe extern "C" fn(*const c_void, f64) -> f64;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type SetHandlerFn = unsafe extern "C" fn(*mut c_void) -> *mut c_void;

/// UDUNITS-2's functions and its unit system.
struct Ud {
    parse: ParseFn,
    convertible: ConvertibleFn,
    converter: ConverterFn,
    convert: ConvertFn,
    cv_free: FreeFn,
    ut_free: FreeFn,
    system: usize,
}

/// UDUNITS-2 is not thread-safe: one caller at a time.
static UD: Mutex<Option<Result<Ud, String>>> = Mutex::new(None);

fn load_udunits() -> Result<Ud, String> {
    let mut lib = std::ptr::null_mut();
    for name in [c"libudunits2.so.0", c"libudunits2.so"] {
        // SAFETY: dlopen of a NUL-terminated soname; never closed.
        lib = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
        if !lib.is_null() {
            break;
        }
    }
    if lib.is_null() {
        return Err("UDUNITS-2 (libudunits2.so.0) was not found".into());
    }
    let sym = |name: &CStr| -> Result<usize, String> {
        // SAFETY: dlsym on a handle from dlopen.
        let p = unsafe { libc::dlsym(lib, name.as_ptr()) } as usize;
        if p == 0 {
            Err(format!("UDUNITS-2 has no {}", name.to_string_lossy()))
        } else {
            Ok(p)
        }
    };
    // SAFETY (each transmute): the symbol is UDUNITS-2's function of that
    // name, with the C signature of the type alias.
    unsafe {
        let read_xml: ReadXmlFn = std::mem::transmute::<usize, ReadXmlFn>(sym(c"ut_read_xml")?);
        let set_handler: SetHandlerFn =
            std::mem::transmute::<usize, SetHandlerFn>(sym(c"ut_set_error_message_handler")?);
        // UDUNITS prints its errors on stderr unless told to ignore them
        set_handler(sym(c"ut_ignore")? as *mut c_void);
        let system = read_xml(std::ptr::null()) as usize;
        if system == 0 {
            return Err("UDUNITS-2 could not read its units database (UDUNITS2_XML_PATH)".into());
        }
        Ok(Ud {
            parse: std::mem::transmute::<usize, ParseFn>(sym(c"ut_parse")?),
            convertible: std::mem::transmute::<usize, ConvertibleFn>(sym(c"ut_are_convertible")?),
            converter: std::mem::transmute::<usize, ConverterFn>(sym(c"ut_get_converter")?),
            convert: std::mem::transmute::<usize, ConvertFn>(sym(c"cv_convert_double")?),
            cv_free: std::mem::transmute::<usize, FreeFn>(sym(c"cv_free")?),
            ut_free: std::mem::transmute::<usize, FreeFn>(sym(c"ut_free")?),
            system,
        })
    }
}

/// Units through UDUNITS-2.
struct Udunits;

/// `UT_UTF8`.
const UT_UTF8: c_int = 2;

impl UnitSystem for Udunits {
    fn linear(&self, from: &str, to: &str) -> NcResult<(f64, f64)> {
        let mut guard = UD.lock().unwrap_or_else(|e| e.into_inner());
        let ud = match guard.get_or_insert_with(load_udunits) {
            Ok(u) => u,
            Err(why) => return Err(NcError::with(NC_ENOTBUILT, format!("converting {from:?} to {to:?}: {why}"))),
        };
        let parse = |s: &str| -> NcResult<*mut c_void> {
            let c = CString::new(s.trim()).map_err(|_| NcError::with(NC_EINVAL, "units with a NUL byte"))?;
            // SAFETY: the system from ut_read_xml and a NUL-terminated string.
            let u = unsafe { (ud.parse)(ud.system as *const c_void, c.as_ptr(), UT_UTF8) };
            if u.is_null() {
                Err(NcError::with(NC_EINVAL, format!("units {s:?} are not understood by UDUNITS-2")))
            } else {
                Ok(u)
            }
        };
        let a = parse(from)?;
        let b = match parse(to) {
            Ok(b) => b,
            Err(e) => {
                // SAFETY: a unit from ut_parse.
                unsafe { (ud.ut_free)(a) };
                return Err(e);
            }
        };
        // SAFETY: units from ut_parse, freed once below; the converter
        // likewise.
        let result = unsafe {
            if (ud.convertible)(a, b) == 0 {
                Err(NcError::with(NC_EINVAL, format!("units {from:?} cannot be converted to {to:?}")))
            } else {
                let cv = (ud.converter)(a, b);
                if cv.is_null() {
                    Err(NcError::with(NC_EINVAL, format!("units {from:?} cannot be converted to {to:?}")))
                } else {
                    let (y0, y1, y2) = ((ud.convert)(cv, 0.0), (ud.convert)(cv, 1.0), (ud.convert)(cv, 2.0));
                    (ud.cv_free)(cv);
                    let (a1, a2) = (y1 - y0, y2 - y1);
                    if (a1 - a2).abs() > 1e-9 * a1.abs().max(1.0) || !y0.is_finite() || !a1.is_finite() {
                        Err(NcError::with(NC_ENOTBUILT, format!("{from:?} -> {to:?} is not a linear conversion")))
                    } else {
                        Ok((a1, y0))
                    }
                }
            }
        };
        // SAFETY: units from ut_parse.
        unsafe {
            (ud.ut_free)(a);
            (ud.ut_free)(b);
        }
        result
    }
}
