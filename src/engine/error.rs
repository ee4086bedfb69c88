//! netCDF error codes, their `nc_strerror` texts, and the engine's error type.

use std::fmt;

// ---- error codes (netCDF-C's exact values) -------------------------------
pub const NC_NOERR: i32 = 0;
pub const NC2_ERR: i32 = -1;
pub const NC_SYSERR: i32 = -31;
pub const NC_EXDR: i32 = -32;
pub const NC_EBADID: i32 = -33;
pub const NC_ENFILE: i32 = -34;
pub const NC_EEXIST: i32 = -35;
pub const NC_EINVAL: i32 = -36;
pub const NC_EPERM: i32 = -37;
pub const NC_ENOTINDEFINE: i32 = -38;
pub const NC_EINDEFINE: i32 = -39;
pub const NC_EINVALCOORDS: i32 = -40;
pub const NC_EMAXDIMS: i32 = -41;
pub const NC_ENAMEINUSE: i32 = -42;
pub const NC_ENOTATT: i32 = -43;
pub const NC_EMAXATTS: i32 = -44;
pub const NC_EBADTYPE: i32 = -45;
pub const NC_EBADDIM: i32 = -46;
pub const NC_EUNLIMPOS: i32 = -47;
pub const NC_EMAXVARS: i32 = -48;
pub const NC_ENOTVAR: i32 = -49;
pub const NC_EGLOBAL: i32 = -50;
pub const NC_ENOTNC: i32 = -51;
pub const NC_ESTS: i32 = -52;
pub const NC_EMAXNAME: i32 = -53;
pub const NC_EUNLIMIT: i32 = -54;
pub const NC_ENORECVARS: i32 = -55;
pub const NC_ECHAR: i32 = -56;
pub const NC_EEDGE: i32 = -57;
pub const NC_ESTRIDE: i32 = -58;
pub const NC_EBADNAME: i32 = -59;
pub const NC_ERANGE: i32 = -60;
pub const NC_ENOMEM: i32 = -61;
pub const NC_EVARSIZE: i32 = -62;
pub const NC_EDIMSIZE: i32 = -63;
pub const NC_ETRUNC: i32 = -64;
pub const NC_EAXISTYPE: i32 = -65;
pub const NC_EDAP: i32 = -66;
pub const NC_ECURL: i32 = -67;
pub const NC_EIO: i32 = -68;
pub const NC_ENODATA: i32 = -69;
pub const NC_EDAPSVC: i32 = -70;
pub const NC_EDAS: i32 = -71;
pub const NC_EDDS: i32 = -72;
pub const NC_EDATADDS: i32 = -73;
pub const NC_EDAPURL: i32 = -74;
pub const NC_EDAPCONSTRAINT: i32 = -75;
pub const NC_ETRANSLATION: i32 = -76;
pub const NC_EACCESS: i32 = -77;
pub const NC_EAUTH: i32 = -78;
pub const NC_ENOTFOUND: i32 = -90;
pub const NC_ECANTREMOVE: i32 = -91;
pub const NC_EINTERNAL: i32 = -92;
pub const NC_EPNETCDF: i32 = -93;
pub const NC_EHDFERR: i32 = -101;
pub const NC_ECANTREAD: i32 = -102;
pub const NC_ECANTWRITE: i32 = -103;
pub const NC_ECANTCREATE: i32 = -104;
pub const NC_EFILEMETA: i32 = -105;
pub const NC_EDIMMETA: i32 = -106;
pub const NC_EATTMETA: i32 = -107;
pub const NC_EVARMETA: i32 = -108;
pub const NC_ENOCOMPOUND: i32 = -109;
pub const NC_EATTEXISTS: i32 = -110;
pub const NC_ENOTNC4: i32 = -111;
pub const NC_ESTRICTNC3: i32 = -112;
pub const NC_ENOTNC3: i32 = -113;
pub const NC_ENOPAR: i32 = -114;
pub const NC_EPARINIT: i32 = -115;
pub const NC_EBADGRPID: i32 = -116;
pub const NC_EBADTYPID: i32 = -117;
pub const NC_ETYPDEFINED: i32 = -118;
pub const NC_EBADFIELD: i32 = -119;
pub const NC_EBADCLASS: i32 = -120;
pub const NC_EMAPTYPE: i32 = -121;
pub const NC_ELATEFILL: i32 = -122;
pub const NC_ELATEDEF: i32 = -123;
pub const NC_EDIMSCALE: i32 = -124;
pub const NC_ENOGRP: i32 = -125;
pub const NC_ESTORAGE: i32 = -126;
pub const NC_EBADCHUNK: i32 = -127;
pub const NC_ENOTBUILT: i32 = -128;
pub const NC_EDISKLESS: i32 = -129;
pub const NC_ECANTEXTEND: i32 = -130;
pub const NC_EMPI: i32 = -131;
pub const NC_EFILTER: i32 = -132;
pub const NC_ERCFILE: i32 = -133;
pub const NC_ENULLPAD: i32 = -134;
pub const NC_EINMEMORY: i32 = -135;
pub const NC_ENOFILTER: i32 = -136;
pub const NC_ENCZARR: i32 = -137;
pub const NC_ES3: i32 = -138;
pub const NC_EEMPTY: i32 = -139;
pub const NC_EOBJECT: i32 = -140;
pub const NC_ENOOBJECT: i32 = -141;
pub const NC_EPLUGIN: i32 = -142;
pub const NC_ENOTZARR: i32 = -143;
pub const NC_EZARRMETA: i32 = -144;
pub const NC_EDMR: i32 = NC_EDDS;
pub const NC_EDATADAP: i32 = NC_EDATADDS;
pub const NC_EURL: i32 = NC_EDAPURL;
pub const NC_ECONSTRAINT: i32 = NC_EDAPCONSTRAINT;
pub const NC_ENTOOL: i32 = NC_EMAXNAME;
pub const NC4_FIRST_ERROR: i32 = -100;
pub const NC4_LAST_ERROR: i32 = -144;

/// netCDF-C's `nc_strerror` text for a library error code (`code <= 0`).
/// Codes netCDF-C has no text for (-1, -31, -32, -143, -144 and unknown
/// codes) give `"Unknown Error"`, as in netCDF-C. Positive codes are system
/// `errno` values, which the caller renders itself.
pub fn error_text(code: i32) -> &'static str {
    match code {
        NC_NOERR => "No error",
        NC_EBADID => "NetCDF: Not a valid ID",
        NC_ENFILE => "NetCDF: Too many files open",
        NC_EEXIST => "NetCDF: File exists && NC_NOCLOBBER",
        NC_EINVAL => "NetCDF: Invalid argument",
        NC_EPERM => "NetCDF: Write to read only",
        NC_ENOTINDEFINE => "NetCDF: Operation not allowed in data mode",
        NC_EINDEFINE => "NetCDF: Operation not allowed in define mode",
        NC_EINVALCOORDS => "NetCDF: Index exceeds dimension bound",
        NC_EMAXDIMS => "NetCDF: NC_MAX_DIMS exceeded",
        NC_ENAMEINUSE => "NetCDF: String match to name in use",
        NC_ENOTATT => "NetCDF: Attribute not found",
        NC_EMAXATTS => "NetCDF: NC_MAX_ATTRS exceeded",
        NC_EBADTYPE => "NetCDF: Not a valid data type or _FillValue type mismatch",
        NC_EBADDIM => "NetCDF: Invalid dimension ID or name",
        NC_EUNLIMPOS => "NetCDF: NC_UNLIMITED in the wrong index",
        NC_EMAXVARS => "NetCDF: NC_MAX_VARS exceeded",
        NC_ENOTVAR => "NetCDF: Variable not found",
        NC_EGLOBAL => "NetCDF: Action prohibited on NC_GLOBAL varid",
        NC_ENOTNC => "NetCDF: Unknown file format",
        NC_ESTS => "NetCDF: In Fortran, string too short",
        NC_EMAXNAME => "NetCDF: NC_MAX_NAME exceeded",
        NC_EUNLIMIT => "NetCDF: NC_UNLIMITED size already in use",
        NC_ENORECVARS => "NetCDF: nc_rec op when there are no record vars",
        NC_ECHAR => "NetCDF: Attempt to convert between text & numbers",
        NC_EEDGE => "NetCDF: Start+count exceeds dimension bound",
        NC_ESTRIDE => "NetCDF: Illegal stride",
        NC_EBADNAME => "NetCDF: Name contains illegal characters",
        NC_ERANGE => "NetCDF: Numeric conversion not representable",
        NC_ENOMEM => "NetCDF: Memory allocation (malloc) failure",
        NC_EVARSIZE => "NetCDF: One or more variable sizes violate format constraints",
        NC_EDIMSIZE => "NetCDF: Invalid dimension size",
        NC_ETRUNC => "NetCDF: File likely truncated or possibly corrupted",
        NC_EAXISTYPE => "NetCDF: Illegal axis type",
        NC_EDAP => "NetCDF: DAP failure",
        NC_ECURL => "NetCDF: libcurl failure",
        NC_EIO => "NetCDF: I/O failure",
        NC_ENODATA => "NetCDF: Variable has no data",
        NC_EDAPSVC => "NetCDF: DAP server error",
        NC_EDAS => "NetCDF: Malformed or inaccessible DAP DAS",
        NC_EDDS => "NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response",
        NC_EDATADDS => "NetCDF: Malformed or inaccessible DAP2 DATADDS or DAP4 DAP response",
        NC_EDAPURL => "NetCDF: Malformed URL",
        NC_EDAPCONSTRAINT => "NetCDF: Malformed or unexpected Constraint",
        NC_ETRANSLATION => "NetCDF: Untranslatable construct",
        NC_EACCESS => "NetCDF: Access failure",
        NC_EAUTH => "NetCDF: Authorization failure",
        NC_ENOTFOUND => "NetCDF: file not found",
        NC_ECANTREMOVE => "NetCDF: cannot delete file",
        NC_EINTERNAL => "NetCDF: internal library error; Please contact Unidata support",
        NC_EPNETCDF => "NetCDF: PnetCDF error",
        NC_EHDFERR => "NetCDF: HDF error",
        NC_ECANTREAD => "NetCDF: Can't read file",
        NC_ECANTWRITE => "NetCDF: Can't write file",
        NC_ECANTCREATE => "NetCDF: Can't create file",
        NC_EFILEMETA => "NetCDF: Can't add HDF5 file metadata",
        NC_EDIMMETA => "NetCDF: Can't define dimensional metadata",
        NC_EATTMETA => "NetCDF: Can't open HDF5 attribute",
        NC_EVARMETA => "NetCDF: Problem with variable metadata.",
        NC_ENOCOMPOUND => "NetCDF: Can't create HDF5 compound type",
        NC_EATTEXISTS => "NetCDF: Attempt to create attribute that already exists",
        NC_ENOTNC4 => "NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
        NC_ESTRICTNC3 => "NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file",
        NC_ENOTNC3 => "NetCDF: Attempting netcdf-3 operation on netcdf-4 file",
        NC_ENOPAR => "NetCDF: Parallel operation on file opened for non-parallel access",
        NC_EPARINIT => "NetCDF: Error initializing for parallel access",
        NC_EBADGRPID => "NetCDF: Bad group ID",
        NC_EBADTYPID => "NetCDF: Bad type ID",
        NC_ETYPDEFINED => "NetCDF: Type has already been defined and may not be edited",
        NC_EBADFIELD => "NetCDF: Bad field ID",
        NC_EBADCLASS => "NetCDF: Bad class",
        NC_EMAPTYPE => "NetCDF: Mapped access for atomic types only",
        NC_ELATEFILL => "NetCDF: Attempt to define fill value when data already exists.",
        NC_ELATEDEF => "NetCDF: Attempt to define var properties, like deflate, after enddef.",
        NC_EDIMSCALE => "NetCDF: Problem with HDF5 dimscales.",
        NC_ENOGRP => "NetCDF: No group found.",
        NC_ESTORAGE => "NetCDF: Cannot specify both contiguous and chunking.",
        NC_EBADCHUNK => "NetCDF: Bad chunk sizes.",
        NC_ENOTBUILT => "NetCDF: Attempt to use feature that was not turned on when netCDF was built.",
        NC_EDISKLESS => "NetCDF: Error in using diskless access",
        NC_ECANTEXTEND => "NetCDF: Attempt to extend dataset during NC_INDEPENDENT I/O operation. Use nc_var_par_access to set mode NC_COLLECTIVE before extending variable.",
        NC_EMPI => "NetCDF: MPI operation failed.",
        NC_EFILTER => "NetCDF: Filter error: bad id or parameters or duplicate filter",
        NC_ERCFILE => "NetCDF: RC File Failure.",
        NC_ENULLPAD => "NetCDF: File fails strict Null-Byte Header check.",
        NC_EINMEMORY => "NetCDF: In-memory File operation failed.",
        NC_ENOFILTER => "NetCDF: Filter error: undefined filter encountered",
        NC_ENCZARR => "NetCDF: NCZarr error",
        NC_ES3 => "NetCDF: AWS S3 error",
        NC_EEMPTY => "NetCDF: Attempt to read empty NCZarr map key",
        NC_EOBJECT => "NetCDF: Some object exists when it should not",
        NC_ENOOBJECT => "NetCDF: Some object not found",
        NC_EPLUGIN => "NetCDF: Unclassified failure in accessing a dynamically loaded plugin",
        _ => "Unknown Error",
    }
}

/// An error of the engine: a netCDF error code plus, for diagnostics, an
/// optional detail (which key, which byte, what was wrong). The C boundary
/// keeps the detail of a thread's last failing call for
/// `nczarr_rs_last_error`.
#[derive(Clone, PartialEq, Eq)]
pub struct NcError {
    code: i32,
    detail: Option<Box<str>>,
}

pub type NcResult<T> = Result<T, NcError>;

impl NcError {
    /// An error with the given `NC_E*` code and no detail.
    pub const fn new(code: i32) -> Self {
        NcError { code, detail: None }
    }

    /// An error with the given code and a human-readable detail.
    pub fn with(code: i32, detail: impl Into<String>) -> Self {
        NcError { code, detail: Some(detail.into().into_boxed_str()) }
    }

    /// The netCDF error code (always non-zero).
    pub fn code(&self) -> i32 {
        self.code
    }

    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The detail, taken out of the error.
    pub fn into_detail(self) -> Option<Box<str>> {
        self.detail
    }

    /// Names what the error is about, `what: detail`, unless the detail
    /// already begins with `what` (a store key names the objects below it:
    /// `/g/v/.zarray: ...` is already about `/g/v`). An error without a
    /// detail gets `what` as its detail.
    pub fn context(self, what: impl fmt::Display) -> Self {
        let what = what.to_string();
        let detail = match self.detail {
            Some(d) if d.starts_with(what.as_str()) => d,
            Some(d) => format!("{what}: {d}").into_boxed_str(),
            None => what.into_boxed_str(),
        };
        NcError { code: self.code, detail: Some(detail) }
    }
}

/// [`NcError::context`] on results.
pub trait Context<T> {
    /// On error, names what the error is about (see [`NcError::context`]).
    fn context(self, what: impl fmt::Display) -> NcResult<T>;
}

impl<T> Context<T> for NcResult<T> {
    fn context(self, what: impl fmt::Display) -> NcResult<T> {
        self.map_err(|e| e.context(what))
    }
}

impl fmt::Display for NcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", error_text(self.code), self.code)?;
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for NcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for NcError {}

/// `ENOENT`, the system error netCDF-C reports for a missing dataset.
pub(crate) const ENOENT: i32 = 2;

impl From<crate::map::MapError> for NcError {
    /// The zmap error convention of the spec ("A Note on Error Codes"):
    /// missing content is `NC_EEMPTY`, an object that should not exist
    /// `NC_EOBJECT`, a missing dataset root or prefix `NC_ENOOBJECT`.
    fn from(e: crate::map::MapError) -> Self {
        use crate::map::MapError as M;
        let code = match &e {
            M::InvalidKey { .. } => NC_EINVAL,
            M::InvalidLocation(_) => NC_EURL,
            M::RootNotFound(_) => NC_ENOOBJECT,
            M::PrefixNotFound(_) => NC_ENOOBJECT,
            M::AlreadyExists(_) => NC_EOBJECT,
            M::NotAStore(_) => NC_EEXIST,
            M::KeyConflict(_) => NC_EOBJECT,
            M::ReadOnly => NC_EPERM,
            M::Corrupt(_) => NC_ENOTNC,
            M::OutOfRange { .. } => NC_EEDGE,
            M::PermissionDenied(_) => NC_EAUTH,
            M::TooLarge { .. } => NC_ENOMEM,
            M::NotRegular(_) => NC_EIO,
            M::Symlink(_) => NC_EPERM,
            M::Conflict(_) => NC_EIO,
            M::Io(e) if e.kind() == std::io::ErrorKind::OutOfMemory => NC_ENOMEM,
            M::Io(_) => NC_EIO,
        };
        NcError::with(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_names_the_object_once() {
        let e = NcError::with(NC_ENCZARR, "bad dtype \"x\"").context("/g/v");
        assert_eq!(e.detail(), Some("/g/v: bad dtype \"x\""));
        assert_eq!(e.code(), NC_ENCZARR);
        // already about /g/v (or an object below it): unchanged
        let e = NcError::with(NC_ENCZARR, "/g/v/.zarray: bad JSON").context("/g/v");
        assert_eq!(e.detail(), Some("/g/v/.zarray: bad JSON"));
        assert_eq!(NcError::new(NC_EINVAL).context("/x").detail(), Some("/x"));
        let r: NcResult<()> = Err(NcError::with(NC_ENCZARR, "no dtype"));
        assert_eq!(r.context("/v").unwrap_err().to_string(), "NetCDF: NCZarr error (-137): /v: no dtype");
        assert_eq!(Ok::<i32, NcError>(1).context("/v").unwrap(), 1);
    }
}
