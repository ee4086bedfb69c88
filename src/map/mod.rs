//! The zmap layer: key/object stores ("maps") and their drivers.
//!
//! A driver knows nothing of netCDF, nor of Zarr: what marks a store as a
//! dataset ([`Markers`]) comes from the engine's formats. It stores byte
//! objects under `/`-separated keys (spec "NCZarr Map Implementation"):
//! only content-bearing objects exist, and no object's key is a prefix of
//! another object's key.
//!
//! The capability traits are split as in zarrs: [`ReadableStore`],
//! [`WritableStore`], [`ListableStore`], combined in [`Store`]. A missing key
//! is `Ok(None)`, never an error; the engine turns it into `NC_EEMPTY` where
//! the zmap API wants that code.
//!
//! Every driver must pass the suite in `conformance` (compiled with the
//! `test-support` feature only, which the crate's own tests turn on).
//!
//! Several writers (threads, handles, processes) may update one store:
//! [`ConditionalStore`] gives them versioned reads, compare-and-swap writes
//! and a store-wide lock, so that a read-merge-write loses nobody's update
//! (docs/RELIABILITY.md, "Multiple writers").

pub mod azure;
#[cfg(feature = "test-support")]
pub mod conformance;
pub mod file;
pub mod gcs;
pub mod http;
pub(crate) mod key;
pub mod memory;
pub mod object;
pub mod refs;
pub mod s3;
pub mod zip;

pub use key::StoreKey;

/// The names of the objects whose presence at the top of a store marks it
/// as a dataset, given by the caller (the engine's formats: the map layer
/// knows none): what a clobbering `create` may replace, and how the zip
/// driver tells a dataset at an archive's root from one nested in a
/// directory (netCDF-C's layout).
#[derive(Debug, Clone, Copy)]
pub struct Markers<'a>(pub &'a [&'a str]);

impl Markers<'_> {
    /// Whether `name` (one key segment, as bytes) is a marker.
    pub fn contains(&self, name: &[u8]) -> bool {
        self.0.iter().any(|m| m.as_bytes() == name)
    }
}

use std::sync::Arc;

/// Errors of the map layer. Missing keys are not errors (`Ok(None)`).
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error("invalid key {key:?}: {why}")]
    InvalidKey { key: String, why: &'static str },
    #[error("invalid store location {0:?}")]
    InvalidLocation(String),
    #[error("no dataset at {0}")]
    RootNotFound(String),
    #[error("prefix {0} does not exist")]
    PrefixNotFound(String),
    #[error("a dataset already exists at {0}")]
    AlreadyExists(String),
    #[error("refusing to replace {0}: it exists and is not a dataset")]
    NotAStore(String),
    #[error("key {0} conflicts with an existing object (an object key may not be a prefix of another)")]
    KeyConflict(String),
    #[error("the store is open read-only")]
    ReadOnly,
    #[error("not a readable store: {0}")]
    Corrupt(String),
    #[error("range {start}+{count} is outside object {key} of length {len}")]
    OutOfRange { key: String, start: u64, count: u64, len: u64 },
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// An object or buffer over a limit of [`crate::limits`], or an
    /// allocation that failed.
    #[error("{what}: {why}")]
    TooLarge { what: String, why: crate::limits::TooLarge },
    /// A FIFO, device or socket where an object should be: never opened for
    /// reading (it could block forever).
    #[error("{0} is not a regular file")]
    NotRegular(String),
    /// A symbolic link inside the store where a write would go through it.
    #[error("refusing to write through the symbolic link {0}")]
    Symlink(String),
    /// A conditional write found the object changed (or created, or
    /// removed) by another writer since it was read; or a whole-store
    /// medium (a zip archive) was replaced by another writer since opened.
    #[error("{0} was changed by another writer")]
    Conflict(String),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

pub type MapResult<T> = Result<T, MapError>;

/// Limitations of a driver (netCDF-C's `NCZM_FEATURES`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// Objects can be written only once (zip).
    pub write_once: bool,
    /// Writes must start at offset 0 (zip).
    pub zero_start: bool,
}

/// Reading objects.
pub trait ReadableStore: Send + Sync {
    /// The whole object, or `None` when `key` holds no content.
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>>;

    /// `count` bytes from `start`; `None` when `key` holds no content;
    /// [`MapError::OutOfRange`] when the range passes the object's end.
    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        let Some(all) = self.get(key)? else { return Ok(None) };
        let range = checked_range(key, start, count, all.len() as u64)?;
        Ok(Some(all[range].to_vec()))
    }

    /// Part of the object (`range`) and the object's length, in one
    /// request where the driver can (the last `n` bytes of an S3 object
    /// are one `GET` with a suffix range); `None` when `key` holds no
    /// content; [`MapError::OutOfRange`] when the range is not inside it.
    fn get_part(&self, key: &StoreKey, range: ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
        let Some(len) = self.size(key)? else { return Ok(None) };
        let (start, count) = range.resolve(key, len)?;
        Ok(self.get_range(key, start, count)?.map(|b| (b, len)))
    }

    /// The whole object, refused with [`MapError::TooLarge`] when it is
    /// longer than `max` bytes. Drivers that can tell the size first
    /// override this so that nothing larger is read.
    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        let v = self.get(key)?;
        if let Some(v) = &v {
            crate::limits::check(v.len() as u64, max).map_err(|why| too_large(key, why))?;
        }
        Ok(v)
    }

    /// The object's length, or `None` when `key` holds no content.
    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>>;

    /// The whole object into `buf` (reusing its allocation); `false` when
    /// `key` holds no content.
    fn get_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> MapResult<bool> {
        match self.get(key)? {
            Some(v) => {
                *buf = v;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The whole object into `dst`, if it is exactly `dst.len()` bytes
    /// long: into memory the caller placed (the application's own, or a
    /// page-aligned buffer), where [`get_into`](Self::get_into) fills a
    /// `Vec` wherever the allocator put it. An object of another length
    /// is [`ReadInto::Size`], and `dst` may then hold anything.
    fn read_exact_into(&self, key: &StoreKey, dst: &mut [u8]) -> MapResult<ReadInto> {
        let Some(v) = self.get(key)? else { return Ok(ReadInto::Absent) };
        if v.len() != dst.len() {
            return Ok(ReadInto::Size(v.len() as u64));
        }
        dst.copy_from_slice(&v);
        Ok(ReadInto::Done)
    }
}

/// What [`ReadableStore::read_exact_into`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadInto {
    /// The buffer holds the whole object.
    Done,
    /// `key` holds no content; the buffer is untouched.
    Absent,
    /// The object has this many bytes, not the buffer's length.
    Size(u64),
}

/// Writing objects.
pub trait WritableStore: Send + Sync {
    /// Replaces (or creates) the whole object. Creating intermediate
    /// "directories" is the driver's business, never the caller's.
    fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()>;

    /// Overwrites `value.len()` bytes at `offset`, keeping the rest of the
    /// object; the object grows (zero-filled) as needed and is created if
    /// missing.
    fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()>;

    /// Replaces the object with the concatenation of `parts` (drivers that
    /// can gather-write override this to avoid assembling the object).
    fn set_vectored(&self, key: &StoreKey, parts: &[&[u8]]) -> MapResult<()> {
        self.set(key, &parts.concat())
    }

    /// Replaces (or creates) each object of `items`, as [`set`] of each
    /// does, one after another; the first error stops it (the objects
    /// before it are written). Drivers may share work between them: the
    /// file driver opens a directory once for the objects in it.
    ///
    /// [`set`]: WritableStore::set
    fn set_all(&self, items: &[(StoreKey, Vec<u8>)]) -> MapResult<()> {
        items.iter().try_for_each(|(key, value)| self.set(key, value))
    }

    /// Removes the object; removing a missing key is not an error.
    fn erase(&self, key: &StoreKey) -> MapResult<()>;

    /// Removes every object at or below `prefix`.
    fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()>;
}

/// Listing keys.
pub trait ListableStore: Send + Sync {
    /// Names (single segments) of the immediate children of `prefix`,
    /// sorted bytewise: the zmap `search`. `Some(vec![])` when `prefix` is
    /// an object; `None` when nothing exists at or below `prefix`.
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>>;

    /// Every object key at or below `prefix`, sorted.
    fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>>;
}

/// The version of a stored object, as its driver tells it (a file's
/// identity, an S3 ETag, a generation number): equal versions of one key
/// mean the object did not change in between. Opaque otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version(String);

impl Version {
    pub fn new(v: impl Into<String>) -> Self {
        Version(v.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Something held until dropped (the guards behind a [`StoreLock`]).
trait Held {}
impl<T> Held for T {}

/// A store's writer lock, held until dropped (see [`ConditionalStore::lock`]).
#[must_use = "the lock is released when this is dropped"]
pub struct StoreLock<'a>(#[allow(dead_code)] Box<dyn Held + 'a>);

impl<'a> StoreLock<'a> {
    pub(crate) fn new<T: 'a>(held: T) -> Self {
        StoreLock(Box::new(held))
    }
}

/// Updates that several writers can make to one store without losing
/// each other's: versioned reads, compare-and-swap writes, a store lock.
pub trait ConditionalStore: Send + Sync {
    /// The whole object and its version, or `None` when `key` holds no
    /// content. The bytes are the content of exactly that version.
    fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, Version)>>;

    /// Replaces the object only if it is still at `expected` (`None`: only
    /// if it does not exist), atomically with respect to every other
    /// write of the same key, in this process or another; returns the new
    /// version. [`MapError::Conflict`] (nothing written) otherwise.
    fn put_if(&self, key: &StoreKey, value: &[u8], expected: Option<&Version>) -> MapResult<Version>;

    /// The store-wide writer lock, for an update that reads and writes
    /// several objects (the metadata). Exclusive among the holders of this
    /// lock, across processes where the driver can (file); per process
    /// elsewhere, where [`ConditionalStore::put_if`] is what makes such an
    /// update safe. Object writes do not take it.
    fn lock(&self) -> MapResult<StoreLock<'_>>;
}

/// A dataset's store: all capabilities plus dataset-level operations.
pub trait Store: ReadableStore + WritableStore + ListableStore + ConditionalStore {
    /// Where the dataset lives (a path, a name or a URL).
    fn location(&self) -> &str;
    fn is_writable(&self) -> bool;
    /// Every write and delete calls this first: [`MapError::ReadOnly`] on a
    /// read-only store. Drivers that track changes override it to note one.
    fn check_writable(&self) -> MapResult<()> {
        if self.is_writable() {
            Ok(())
        } else {
            Err(MapError::ReadOnly)
        }
    }
    /// True for stores whose requests wait on the network: chunk work on them
    /// runs with many more requests in flight than there are cores.
    fn io_bound(&self) -> bool {
        false
    }
    /// Whether the store's root exists: a directory (file), an archive
    /// (zip), a named store (memory), at least one object below the
    /// prefix (S3). Every driver but S3 checks this when it opens, which is
    /// where the default answer comes from; a store opened by
    /// [`Driver::open_unverified_with`] on S3 may have nothing there.
    fn root_exists(&self) -> MapResult<bool> {
        Ok(true)
    }
    /// Makes everything written so far durable (a no-op for most drivers).
    fn flush(&self) -> MapResult<()> {
        Ok(())
    }
    /// Deletes the whole dataset, root included.
    fn destroy(&self) -> MapResult<()>;
}

/// The drivers this build has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Driver {
    Memory,
    File,
    Zip,
    /// An object store (`object`): S3, Google Cloud Storage, Azure Blob
    /// Storage, or a web server.
    Cloud(object::Service),
    /// A kerchunk reference set (read-only; [`refs::RefStore`]).
    Refs,
}

impl Driver {
    /// The S3 driver.
    pub const S3: Driver = Driver::Cloud(object::Service::S3);
    /// The Google Cloud Storage driver.
    pub const GCS: Driver = Driver::Cloud(object::Service::Gcs);
    /// The Azure Blob Storage driver.
    pub const AZURE: Driver = Driver::Cloud(object::Service::Azure);
    /// The read-only HTTP driver.
    pub const HTTP: Driver = Driver::Cloud(object::Service::Http);

    pub fn features(self) -> Features {
        Features::default()
    }

    /// Creates a new dataset. With `clobber`, an existing dataset at the same
    /// location (one of the `markers` at its top, or nothing there) is
    /// replaced, anything else refused ([`MapError::NotAStore`]); without,
    /// anything there is [`MapError::AlreadyExists`].
    pub fn create_with(self, location: &str, clobber: bool, markers: Markers<'_>) -> MapResult<Arc<dyn Store>> {
        Ok(match self {
            Driver::Memory => Arc::new(memory::MemoryStore::create(location, clobber)?),
            Driver::File => Arc::new(file::FileStore::create(location, clobber, markers)?),
            Driver::Zip => Arc::new(zip::ZipStore::create(location, clobber)?),
            Driver::Cloud(s) => Arc::new(object::CloudStore::create(s, location, clobber, markers)?),
            Driver::Refs => return Err(MapError::ReadOnly),
        })
    }

    /// [`Driver::open_with`], leaving out the check that anything is there
    /// where that check costs a round trip (S3): the caller reads the
    /// objects it needs, and asks [`Store::root_exists`] only if it finds none.
    pub fn open_unverified_with(
        self,
        location: &str,
        writable: bool,
        markers: Markers<'_>,
    ) -> MapResult<Arc<dyn Store>> {
        match self {
            Driver::Cloud(s) => Ok(Arc::new(object::CloudStore::open_unverified(s, location, writable)?)),
            other => other.open_with(location, writable, markers),
        }
    }

    /// [`Driver::create_with`], a zip archive's dataset below one directory
    /// named after the archive (`x.zip` holds `x/`, `x/.zgroup`, ...), the
    /// layout netCDF-C's NCZarr writes and reads; the other drivers as
    /// `create_with`.
    pub fn create_nested_with(self, location: &str, clobber: bool, markers: Markers<'_>) -> MapResult<Arc<dyn Store>> {
        match self {
            Driver::Zip => Ok(Arc::new(zip::ZipStore::create_nested(location, clobber)?)),
            other => other.create_with(location, clobber, markers),
        }
    }

    /// A dataset another handle has just created, opened for writing by a
    /// handle that writes only what every handle agreed on (the other ranks
    /// of a parallel create): [`Driver::open_unverified_with`], and on S3
    /// what [`object::CloudStore::open_joined`] says.
    pub fn open_joined_with(self, location: &str, markers: Markers<'_>) -> MapResult<Arc<dyn Store>> {
        match self {
            Driver::Cloud(s) => Ok(Arc::new(object::CloudStore::open_joined(s, location)?)),
            other => other.open_unverified_with(location, true, markers),
        }
    }

    /// Opens an existing dataset ([`MapError::RootNotFound`] if none);
    /// `markers` say where a zip archive's dataset is (at its root if they
    /// are there, else netCDF-C's layout is looked for).
    pub fn open_with(self, location: &str, writable: bool, markers: Markers<'_>) -> MapResult<Arc<dyn Store>> {
        Ok(match self {
            Driver::Memory => Arc::new(memory::MemoryStore::open(location, writable)?),
            Driver::File => Arc::new(file::FileStore::open(location, writable)?),
            Driver::Zip => Arc::new(zip::ZipStore::open(location, writable, markers)?),
            Driver::Cloud(s) => Arc::new(object::CloudStore::open(s, location, writable)?),
            Driver::Refs if writable => return Err(MapError::ReadOnly),
            Driver::Refs => Arc::new(refs::RefStore::open(location)?),
        })
    }
}

/// Which bytes of an object [`ReadableStore::get_part`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRange {
    /// `count` bytes from `start`.
    At { start: u64, count: u64 },
    /// The last `n` bytes.
    Last(u64),
}

impl ByteRange {
    /// `(start, count)` in an object of `len` bytes, checked.
    pub fn resolve(self, key: &StoreKey, len: u64) -> MapResult<(u64, u64)> {
        let (start, count) = match self {
            ByteRange::At { start, count } => (start, count),
            ByteRange::Last(n) => {
                (len.checked_sub(n).ok_or(MapError::OutOfRange { key: key.to_string(), start: 0, count: n, len })?, n)
            }
        };
        checked_range(key, start, count, len)?;
        Ok((start, count))
    }
}

/// Checks that `start..start+count` lies inside an object of length `len`.
pub(crate) fn checked_range(key: &StoreKey, start: u64, count: u64, len: u64) -> MapResult<std::ops::Range<usize>> {
    match start.checked_add(count) {
        Some(end) if end <= len => Ok(start as usize..end as usize),
        _ => Err(MapError::OutOfRange { key: key.to_string(), start, count, len }),
    }
}

/// Applies a ranged update to an object's bytes (shared by drivers whose
/// medium cannot update in place).
pub(crate) fn splice(key: &StoreKey, old: Option<Vec<u8>>, offset: u64, value: &[u8]) -> MapResult<Vec<u8>> {
    let mut buf = old.unwrap_or_default();
    let end = ranged_write_end(key, offset, value.len())?;
    if buf.len() < end {
        let more = end - buf.len();
        crate::limits::try_reserve(&mut buf, more).map_err(|why| too_large(key, why))?;
        buf.resize(end, 0);
    }
    buf[offset as usize..end].copy_from_slice(value);
    Ok(buf)
}

/// The end of a ranged write of `len` bytes at `offset`, checked against
/// [`crate::limits::Limits::max_object_bytes`].
pub(crate) fn ranged_write_end(key: &StoreKey, offset: u64, len: usize) -> MapResult<usize> {
    let end = offset.saturating_add(len as u64);
    crate::limits::check(end, crate::limits::limits().max_object_bytes).map_err(|why| too_large(key, why))
}

pub(crate) fn too_large(what: impl std::fmt::Display, why: crate::limits::TooLarge) -> MapError {
    MapError::TooLarge { what: what.to_string(), why }
}
