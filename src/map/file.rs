//! The `file` driver: a dataset is a directory tree, one file per object.
//!
//! * Keys are validated ([`StoreKey`]) before they touch the file system, so
//!   no key can leave the dataset root.
//! * Objects are written atomically: the bytes go to a hidden temporary file
//!   in the target directory, which is then renamed over the object. A crash
//!   mid-write leaves the old object (or none), never a torn one. Stray
//!   temporary files are invisible to every read and listing.
//! * Intermediate directories are created as needed and removed again when
//!   the last object below them is erased.
//! * `create` with clobber replaces an existing dataset, but refuses to delete
//!   a non-empty directory without any of the caller's markers of a
//!   dataset at its top ([`Markers`]: the engine's formats name them), so a
//!   wrong path never costs a user their data.
//!
//! The file system is treated as an adversary (docs/RELIABILITY.md):
//! * Temporary files are created `O_CREAT|O_EXCL|O_NOFOLLOW`, so a planted
//!   file or symlink under a temporary name is never written through.
//! * Writes never follow a symbolic link inside the store: the object's
//!   directory is opened relative to the root with `openat2`
//!   (`RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; one `O_NOFOLLOW` step per
//!   directory where the kernel has no `openat2`), and the temporary file is
//!   created and renamed relative to that descriptor, so no symlink swapped
//!   in meanwhile can redirect it. A symlink on the way refuses the write
//!   ([`MapError::Symlink`]); an object that is a symlink is replaced by the
//!   rename, its target untouched. Reads follow symlinks (stores may share
//!   chunks that way); listings do not descend into symlinked directories.
//! * Deletes never follow one either: the directory deleted in is opened
//!   the same way (a symlink on the way refuses the delete as it refuses a
//!   write) and entries are removed with `unlinkat` relative to it; a tree
//!   is removed through descriptors opened `O_NOFOLLOW` ([`remove_tree`]),
//!   so a symlink in it is unlinked, never entered.
//! * Only regular files are read: a FIFO, socket or device where an object
//!   should be is [`MapError::NotRegular`], checked after an `O_NONBLOCK`
//!   open, so reading never blocks on it.
//! * The temporary file is `fsync`ed before the rename, and the directories
//!   that received renames are `fsync`ed at [`Store::flush`]
//!   (`nc_sync`/`nc_close`); `NCZARR_RS_FSYNC=0` turns both off.
//! * Temporary files left by writers that died are removed when the store
//!   is next opened for writing.
//!
//! Several writers, in this process or others, may share a store: every
//! write that replaces or removes an object holds that object's lock (an
//! open-file-description record lock on one byte of `.nczarr-rs.lock` at
//! the store's root, plus a mutex for the threads of this handle), so a
//! conditional write ([`ConditionalStore::put_if`]: compare the file's
//! identity, then replace it) is atomic with respect to every other
//! writer's. A write that makes a new object takes no lock: its rename is
//! `RENAME_NOREPLACE`, which fails if the name is taken (then the write
//! replaces it under the lock), so it cannot undo another writer's object,
//! and a conditional write of an object it found absent uses the same
//! rename. Creating a dataset's objects thus costs no lock at all. The lock
//! file is created `O_NOFOLLOW`, must be a regular file, and is invisible
//! to listings. It exists only while writers use it: each handle that
//! opened it holds a shared lock on its byte [`IN_USE`]; a handle that lets
//! go drops that lock, then tries an exclusive one, so the last one to let
//! go (the exclusive lock succeeds) deletes it, even among handles closing
//! at the same moment, so a store
//! at rest holds nothing but Zarr objects (zarr-python warns about any
//! other file). A handle that opens it takes its shared lock, then checks
//! that the path still names the file it opened, and starts again if the
//! file was deleted meanwhile.

use super::{
    ranged_write_end, ConditionalStore, ListableStore, MapError, MapResult, Markers, ReadInto, ReadableStore, Store,
    StoreKey, StoreLock, Version, WritableStore,
};
use std::collections::HashSet;
use std::ffi::{CStr, CString};
use std::fs;
use std::io::{self, ErrorKind, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock};

/// Prefix of the temporary files used for atomic writes.
const TMP_PREFIX: &str = ".nczarr-rs-tmp.";

/// The lock file at the root of a store written by this driver.
pub const LOCK_FILE: &str = ".nczarr-rs.lock";

/// Object locks: a key's lock is stripe `hash(key) % LOCK_STRIPES`, byte
/// `1 + stripe` of the lock file (byte 0 is the store lock). Two keys may
/// share a stripe (they then wait for each other, harmlessly).
const LOCK_STRIPES: usize = 256;

/// The byte of the lock file on which every handle that has it open holds
/// a shared lock (after the stripes, before the write counts).
const IN_USE: u64 = 2048;

/// Write counts (see [`version_of`]): slot `hash(key) % COUNT_SLOTS`,
/// guarded by the lock of stripe `slot % LOCK_STRIPES`. Keys that share a
/// slot see each other's writes as changes (a needless merge, no harm).
const COUNT_SLOTS: usize = 65536;

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// When written objects reach the disk (`NCZARR_RS_FSYNC`; docs/RELIABILITY.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// `0`, `false`, `no`, `off`: left to the operating system.
    Off,
    /// The default: everything written is on disk when `nc_sync`/`nc_close`
    /// (a store flush) returns: one `syncfs` of the store's file system for
    /// the directory driver, `fsync` of the archive and its directory for zip.
    AtSync,
    /// `always`: also each object before its rename (slow: thousands of
    /// `fsync`s for a metadata-heavy dataset).
    EveryObject,
}

pub(crate) static DURABILITY: LazyLock<Durability> =
    LazyLock::new(|| match std::env::var("NCZARR_RS_FSYNC").unwrap_or_default().trim().to_ascii_lowercase().as_str() {
        "0" | "false" | "no" | "off" => Durability::Off,
        "always" | "every" => Durability::EveryObject,
        _ => Durability::AtSync,
    });

/// Creates a temporary file under a fresh name `<stem><pid>.<n>`: `open`
/// makes the file of that name exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`),
/// and a name already taken (planted, or left by a dead writer) is
/// skipped, never opened. Returns the name used and what `open` made.
fn create_exclusive<T>(stem: &str, mut open: impl FnMut(&str) -> io::Result<T>) -> io::Result<(String, T)> {
    let pid = std::process::id();
    let host = host_tag();
    let mut last = None;
    for _ in 0..64 {
        let name = format!("{stem}{pid}.{}.{host}", TMP_COUNTER.fetch_add(1, Ordering::Relaxed));
        match open(&name) {
            Ok(made) => return Ok((name, made)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary file name")))
}

/// This machine's name as it goes into temporary file names (letters,
/// digits and `-` of the host name, at most 64), so that a writer on
/// another machine sharing the file system (NFS, Lustre; MPI ranks, Dask
/// workers) never takes this one's temporary files for a dead process's.
fn host_tag() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let mut buf = [0u8; 256];
        // SAFETY: gethostname writes at most buf.len() bytes into buf.
        let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
        let name = if ok { &buf[..buf.iter().position(|&b| b == 0).unwrap_or(buf.len())] } else { &[][..] };
        let tag: String =
            name.iter().filter(|b| b.is_ascii_alphanumeric() || **b == b'-').take(64).map(|&b| b as char).collect();
        if tag.is_empty() {
            "host".to_string()
        } else {
            tag
        }
    })
}

/// Creates a new temporary file `<dir>/<stem><pid>.<n>.<host>` ([`create_exclusive`]).
pub(crate) fn create_temp(dir: &Path, stem: &str) -> io::Result<(PathBuf, fs::File)> {
    let (name, f) = create_exclusive(stem, |name| {
        fs::OpenOptions::new().write(true).create_new(true).custom_flags(libc::O_NOFOLLOW).open(dir.join(name))
    })?;
    Ok((dir.join(name), f))
}

/// Makes `file` (written at `tmp`) the object at `path`: `fsync` when `sync`,
/// then an atomic rename. The temporary file is removed on error.
pub(crate) fn commit_temp(file: fs::File, tmp: &Path, path: &Path, sync: bool) -> io::Result<()> {
    let result = (|| {
        if sync {
            file.sync_data()?;
        }
        drop(file);
        fs::rename(tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(tmp);
    }
    result
}

/// `fsync` of a directory, so that renames into it are durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    if *DURABILITY != Durability::Off {
        fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// True if the temporary file `name` (`<stem><pid>.<n>.<host>`) belongs to
/// a process of this machine that no longer exists. Another machine's
/// (another host tag) is never stale here: its process cannot be seen. A
/// name without a host tag (written before there were tags) is judged by
/// its process id alone.
pub(crate) fn is_stale_temp(name: &str, stem: &str) -> bool {
    let Some(rest) = name.strip_prefix(stem) else { return false };
    let mut parts = rest.splitn(3, '.');
    let Some(pid) = parts.next().and_then(|p| p.parse::<i32>().ok()) else { return false };
    let _counter = parts.next();
    if parts.next().is_some_and(|host| host != host_tag()) {
        return false;
    }
    if pid <= 0 || pid as u32 == std::process::id() {
        return false;
    }
    // SAFETY: kill with signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    !alive
}

/// Opens an object for reading: absent or a directory is `None`; anything
/// but a regular file is refused. The open is `O_NONBLOCK` and the type
/// checked on the open file, so a FIFO never blocks the caller.
fn open_regular(path: &Path) -> MapResult<Option<(fs::File, u64)>> {
    Ok(open_regular_meta(path)?.map(|(f, m)| (f, m.len())))
}

/// [`open_regular`] with the opened file's metadata.
fn open_regular_meta(path: &Path) -> MapResult<Option<(fs::File, fs::Metadata)>> {
    let f = match fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path) {
        Ok(f) => f,
        Err(e) if is_absent(&e) || e.kind() == ErrorKind::IsADirectory => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
            return Err(MapError::NotRegular(path.display().to_string()))
        }
        Err(e) => return Err(io_err(path, e)),
    };
    let meta = f.metadata().map_err(|e| io_err(path, e))?;
    if meta.is_dir() {
        return Ok(None);
    }
    if !meta.is_file() {
        return Err(MapError::NotRegular(path.display().to_string()));
    }
    Ok(Some((f, meta)))
}

/// The version of an object file: the write count of its lock stripe
/// (read before the file was opened), then its identity. The identity
/// alone is not enough: ext4 hands a freed inode number to the next file at
/// once, and timestamps are coarse, so a file replaced twice within a few
/// milliseconds can look unchanged. The count can only grow: every write
/// of an object adds one, under the object's lock, after its rename.
fn version_of(count: u64, m: &fs::Metadata) -> Version {
    Version::new(format!(
        "{count}:{}:{}:{}:{}.{}:{}.{}",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    ))
}

/// Where the write count of `slot` is kept in the lock file (after the
/// bytes used as locks; the file is sparse).
fn count_offset(slot: usize) -> u64 {
    4096 + 8 * slot as u64
}

/// The write count of `slot` (0 before any).
fn read_count(file: &fs::File, slot: usize) -> io::Result<u64> {
    let mut b = [0u8; 8];
    let n = file.read_at(&mut b, count_offset(slot))?;
    Ok(if n == 8 { u64::from_le_bytes(b) } else { 0 })
}

/// The write-count slot of `key`.
fn slot_of(key: &StoreKey) -> usize {
    (stable_hash(key.as_str()) % COUNT_SLOTS as u64) as usize
}

/// A hash that is the same in every process (the lock stripes).
fn stable_hash(s: &str) -> u64 {
    super::key::fnv1a(super::key::FNV_OFFSET, s.as_bytes())
}

/// Locks (`F_WRLCK` exclusive, `F_RDLCK` shared) or unlocks (`F_UNLCK`)
/// byte `at` of `file` with an open-file-description lock, waiting for
/// other holders.
fn range_lock(file: &fs::File, at: u64, kind: libc::c_int) -> io::Result<()> {
    let cmd = if kind == libc::F_UNLCK { libc::F_OFD_SETLK } else { libc::F_OFD_SETLKW };
    ofd_lock(file, at, kind, cmd)
}

/// [`range_lock`] without waiting: `Ok(false)` if another holder is there.
fn try_range_lock(file: &fs::File, at: u64, kind: libc::c_int) -> io::Result<bool> {
    match ofd_lock(file, at, kind, libc::F_OFD_SETLK) {
        Ok(()) => Ok(true),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EACCES)) => Ok(false),
        Err(e) => Err(e),
    }
}

fn ofd_lock(file: &fs::File, at: u64, kind: libc::c_int, cmd: libc::c_int) -> io::Result<()> {
    let lk = libc::flock {
        l_type: kind as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: at as libc::off_t,
        l_len: 1,
        l_pid: 0,
    };
    loop {
        // SAFETY: fcntl on an open descriptor with a valid flock struct.
        if unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(file), cmd, &lk) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Whether `path` (not followed) is the file `f` has open.
fn names(path: &Path, f: &fs::File) -> io::Result<bool> {
    let open = f.metadata()?;
    match fs::symlink_metadata(path) {
        Ok(m) => Ok(m.dev() == open.dev() && m.ino() == open.ino()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// `name` as a C string (store keys hold no NUL; refused if one did).
fn c_name(name: &str, key: &StoreKey) -> MapResult<CString> {
    CString::new(name).map_err(|_| MapError::InvalidKey { key: key.to_string(), why: "contains NUL" })
}

/// `openat2(dir, rel, flags)` resolving `rel` beneath `dir` through no
/// symlink at all (`RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, Linux 5.6).
fn openat2_beneath(dir: BorrowedFd<'_>, rel: &CStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: open_how is plain data; zeroed is its documented default.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS;
    loop {
        // SAFETY: openat2 with an open directory descriptor, a NUL-terminated
        // path and an open_how of the size passed.
        let r = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                rel.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if r >= 0 {
            // SAFETY: a descriptor just returned by openat2, owned by nothing else.
            return Ok(unsafe { OwnedFd::from_raw_fd(r as RawFd) });
        }
        let e = io::Error::last_os_error();
        if !matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN)) {
            return Err(e);
        }
    }
}

/// Opens (`O_PATH`) the directory `dirs` below `root` (at `root_path`) one
/// level at a time, creating what is missing if `create` (else a missing
/// one is an `Io` error of kind `NotFound`), following no symlink (each
/// step is `O_NOFOLLOW` relative to the last): a symlink on the way is
/// [`MapError::Symlink`], anything else but a directory a conflict of `key`.
fn walk_dirs(
    root: BorrowedFd<'_>,
    root_path: &Path,
    dirs: &[&str],
    key: &StoreKey,
    create: bool,
) -> MapResult<OwnedFd> {
    let mut fd = root.try_clone_to_owned().map_err(|e| io_err(root_path, e))?;
    let mut path = root_path.to_path_buf();
    for seg in dirs {
        path.push(seg);
        fd = dir_step(fd.as_fd(), seg, &path, key, create)?;
    }
    Ok(fd)
}

/// Opens (`O_PATH`, `O_NOFOLLOW`) the directory `name` in `parent` (at
/// `path`), made first if missing and `create`: see [`walk_dirs`].
fn dir_step(parent: BorrowedFd<'_>, name: &str, path: &Path, key: &StoreKey, create: bool) -> MapResult<OwnedFd> {
    let cname = c_name(name, key)?;
    let mut created = false;
    loop {
        // SAFETY: openat on an open directory descriptor with a NUL-terminated name.
        let r = unsafe {
            libc::openat(
                parent.as_raw_fd(),
                cname.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if r >= 0 {
            // SAFETY: a descriptor just returned by openat, owned by nothing else.
            return Ok(unsafe { OwnedFd::from_raw_fd(r) });
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOENT) if create && !created => {
                created = true;
                // SAFETY: mkdirat on an open directory descriptor with a NUL-terminated name.
                if unsafe { libc::mkdirat(parent.as_raw_fd(), cname.as_ptr(), 0o777) } != 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() != ErrorKind::AlreadyExists {
                        return Err(io_err(path, e));
                    }
                }
            }
            // O_PATH|O_NOFOLLOW|O_DIRECTORY: a symlink or a file
            Some(libc::ENOTDIR | libc::ELOOP) => {
                return Err(match fs::symlink_metadata(path) {
                    Ok(m) if m.file_type().is_symlink() => MapError::Symlink(path.display().to_string()),
                    _ => MapError::KeyConflict(key.to_string()),
                })
            }
            _ => return Err(io_err(path, e)),
        }
    }
}

/// Writes the concatenation of `parts` with gathering writes.
fn write_parts(f: &mut fs::File, parts: &[&[u8]]) -> io::Result<()> {
    let mut slices: Vec<io::IoSlice> = parts.iter().filter(|p| !p.is_empty()).map(|p| io::IoSlice::new(p)).collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        // at most IOV_MAX (1024) slices per call
        let n = rest.len().min(1024);
        let written = f.write_vectored(&rest[..n])?;
        if written == 0 {
            return Err(io::Error::new(ErrorKind::WriteZero, "short write"));
        }
        io::IoSlice::advance_slices(&mut rest, written);
    }
    Ok(())
}

/// An object's new content in a temporary file of its directory, not yet
/// renamed over the object; dropped before that, the file is removed.
struct Staged {
    /// The object's directory (shared by the objects of one `set_all`).
    dir: Arc<OwnedFd>,
    tmp: CString,
    name: CString,
    /// The object's path (for errors and durability).
    path: PathBuf,
    done: bool,
}

impl Staged {
    fn rename(&self, flags: libc::c_uint) -> io::Result<()> {
        let d = self.dir.as_raw_fd();
        // SAFETY: renameat2 within one open directory, NUL-terminated names.
        match unsafe { libc::renameat2(d, self.tmp.as_ptr(), d, self.name.as_ptr(), flags) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }

    /// Renames the file to the object's name if that name is free:
    /// `Ok(false)` if an object (or anything) is there, or the file system
    /// cannot tell (no `RENAME_NOREPLACE`: NFS, some FUSE).
    fn create(&mut self) -> MapResult<bool> {
        match self.rename(libc::RENAME_NOREPLACE) {
            Ok(()) => {
                self.done = true;
                Ok(true)
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::EEXIST | libc::EINVAL | libc::ENOSYS)) => Ok(false),
            Err(e) => Err(io_err(&self.path, e)),
        }
    }

    /// Renames the file over the object (a symlink there is replaced, not
    /// followed); a directory there is a violation of the tree rule.
    fn replace(&mut self, key: &StoreKey) -> MapResult<()> {
        match self.rename(0) {
            Ok(()) => {
                self.done = true;
                Ok(())
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::EISDIR | libc::ENOTEMPTY | libc::EEXIST)) => {
                Err(MapError::KeyConflict(key.to_string()))
            }
            Err(e) => Err(io_err(&self.path, e)),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            // SAFETY: unlinkat within an open directory, a NUL-terminated name.
            unsafe { libc::unlinkat(self.dir.as_raw_fd(), self.tmp.as_ptr(), 0) };
        }
    }
}

/// One held byte of the lock file (and the in-process mutex that goes with
/// it: record locks of one open file description do not exclude each other).
struct RangeGuard<'a> {
    _mutex: MutexGuard<'a, ()>,
    file: Arc<fs::File>,
    at: u64,
    /// The write-count slot of the object locked (object locks only).
    slot: usize,
}

impl RangeGuard<'_> {
    /// The locked object's write count.
    fn count(&self) -> io::Result<u64> {
        read_count(&self.file, self.slot)
    }

    /// Counts a write of the locked object (done: renamed).
    fn wrote(&self) -> io::Result<()> {
        let n = self.count()?.wrapping_add(1);
        self.file.write_all_at(&n.to_le_bytes(), count_offset(self.slot))
    }
}

impl Drop for RangeGuard<'_> {
    fn drop(&mut self) {
        // Unlocking cannot fail on a valid descriptor; closing it would too.
        let _ = range_lock(&self.file, self.at, libc::F_UNLCK);
    }
}

/// The locks of one store handle (see the module documentation).
struct Locks {
    /// The lock file, opened by this process (a forked child opens its own:
    /// it would share the parent's locks otherwise).
    file: Mutex<Option<(u32, Arc<fs::File>)>>,
    stripes: Vec<Mutex<()>>,
    store: Mutex<()>,
}

impl Locks {
    fn new() -> Self {
        Locks {
            file: Mutex::new(None),
            stripes: (0..LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            store: Mutex::new(()),
        }
    }
}

/// Reads a whole opened object into `buf` (cleared first), with its size
/// checked against the object limit and allocated fallibly.
fn read_whole(path: &Path, f: fs::File, len: u64, buf: &mut Vec<u8>) -> MapResult<()> {
    let n = crate::limits::check(len, crate::limits::limits().max_object_bytes)
        .map_err(|why| super::too_large(path.display(), why))?;
    buf.clear();
    crate::limits::try_reserve(buf, n).map_err(|why| super::too_large(path.display(), why))?;
    // `take`: a file that grew since fstat cannot make us read more
    f.take(len).read_to_end(buf).map_err(|e| io_err(path, e))?;
    Ok(())
}

/// Turns a location (`/path`, `relative/path` or `file:///path#fragment`)
/// into an absolute path.
pub fn local_path(location: &str) -> MapResult<PathBuf> {
    let bad = || MapError::InvalidLocation(location.to_string());
    let path = if let Some(rest) = location.strip_prefix("file://") {
        let rest = rest.split(['#', '?']).next().unwrap_or("");
        // file:///abs/path, file://localhost/abs/path, or relative to the
        // working directory as netCDF-C resolves it: file://b.zarr
        let rest = rest.strip_prefix("localhost/").map(|r| &rest[rest.len() - r.len() - 1..]).unwrap_or(rest);
        percent_decode(rest).ok_or_else(bad)?
    } else if location.contains("://") {
        return Err(bad());
    } else {
        location.to_string()
    };
    if path.is_empty() || path.contains('\0') {
        return Err(bad());
    }
    std::path::absolute(&path).map_err(|_| bad())
}

/// `%XX` escapes decoded; `None` for a bad escape or bytes that are not
/// UTF-8 (also the HTTP driver's paths).
pub(super) fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn io_err(path: &Path, e: io::Error) -> MapError {
    match e.kind() {
        ErrorKind::PermissionDenied => MapError::PermissionDenied(path.display().to_string()),
        _ => MapError::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    }
}

/// "There is nothing here": the path or one of its parents is missing, or a
/// parent is a file.
fn is_absent(e: &io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

/// A handle on one directory-tree dataset.
pub struct FileStore {
    root: PathBuf,
    location: String,
    writable: bool,
    /// Directories that received renames since the last flush (to `fsync`
    /// them, `NCZARR_RS_FSYNC=always`).
    renamed_into: Mutex<HashSet<PathBuf>>,
    /// Whether anything was renamed since the last flush (the default
    /// durability: one `syncfs`).
    renamed_any: AtomicBool,
    /// The root, opened for writes ([`FileStore::root_fd`]).
    root_fd: OnceLock<OwnedFd>,
    locks: Locks,
}

impl FileStore {
    /// A new dataset at `location`; with `clobber`, what is there is
    /// replaced if it is a dataset (`markers`, [`is_store_dir`]), an empty
    /// directory or not a directory.
    pub fn create(location: &str, clobber: bool, markers: Markers<'_>) -> MapResult<Self> {
        let root = local_path(location)?;
        match fs::symlink_metadata(&root) {
            Ok(meta) => {
                if !clobber {
                    return Err(MapError::AlreadyExists(root.display().to_string()));
                }
                if meta.is_dir() {
                    if !is_replaceable_dir(&root, markers)? {
                        return Err(MapError::NotAStore(root.display().to_string()));
                    }
                    fs::remove_dir_all(&root).map_err(|e| io_err(&root, e))?;
                } else {
                    fs::remove_file(&root).map_err(|e| io_err(&root, e))?;
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&root, e)),
        }
        fs::create_dir_all(&root).map_err(|e| io_err(&root, e))?;
        Ok(FileStore::new(root, true))
    }

    /// The last handle using the lock file deletes it (see the module
    /// documentation): its exclusive lock on [`IN_USE`] shows no other
    /// handle has it open, and the path still names it (only a holder of
    /// that lock deletes it, so that cannot change before the unlink).
    fn release_lock_file(&self) {
        let taken = self.locks.file.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some((owner, f)) = taken else { return };
        let path = self.root.join(LOCK_FILE);
        // Let go of the shared hold first, then try for the exclusive one:
        // two handles each trying while still holding would both fail and
        // both leave the file. Let go first, and the last to try finds no
        // holder (or one that holds it exclusively, and deletes it).
        if owner == std::process::id()
            && range_lock(&f, IN_USE, libc::F_UNLCK).is_ok()
            && try_range_lock(&f, IN_USE, libc::F_WRLCK).unwrap_or(false)
            && names(&path, &f).unwrap_or(false)
        {
            // failing to delete it leaves a file the next writer reuses
            let _ = fs::remove_file(&path);
        }
        // closing the descriptor releases its locks
    }

    fn new(root: PathBuf, writable: bool) -> Self {
        FileStore {
            location: root.display().to_string(),
            root,
            writable,
            renamed_into: Mutex::default(),
            renamed_any: AtomicBool::new(false),
            root_fd: OnceLock::new(),
            locks: Locks::new(),
        }
    }

    /// This process's descriptor of the lock file, created if needed:
    /// `O_NOFOLLOW` (a planted symlink is refused), `O_NONBLOCK` (a FIFO
    /// cannot block), and only a regular file is used.
    fn lock_file(&self) -> MapResult<Arc<fs::File>> {
        let mut slot = self.locks.file.lock().unwrap_or_else(|p| p.into_inner());
        let pid = std::process::id();
        if let Some((owner, f)) = &*slot {
            if *owner == pid {
                return Ok(f.clone());
            }
        }
        let path = self.root.join(LOCK_FILE);
        // The last handle to let go deletes the file (`Drop`): one opened
        // just before that is stale, and opened again.
        for _ in 0..1000 {
            let f = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o644)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(&path)
                .map_err(|e| match e.raw_os_error() {
                    Some(libc::ELOOP) => MapError::Symlink(path.display().to_string()),
                    _ => io_err(&path, e),
                })?;
            if !f.metadata().map_err(|e| io_err(&path, e))?.is_file() {
                return Err(MapError::NotRegular(path.display().to_string()));
            }
            range_lock(&f, IN_USE, libc::F_RDLCK).map_err(|e| io_err(&path, e))?;
            if names(&path, &f).map_err(|e| io_err(&path, e))? {
                let f = Arc::new(f);
                *slot = Some((pid, f.clone()));
                return Ok(f);
            }
        }
        let busy = io::Error::new(ErrorKind::WouldBlock, "deleted and re-created 1000 times while being opened");
        Err(io_err(&path, busy))
    }

    /// Holds byte `at` of the lock file, with `mutex` for this handle's threads.
    fn hold<'a>(&'a self, mutex: &'a Mutex<()>, at: u64) -> MapResult<RangeGuard<'a>> {
        let guard = mutex.lock().unwrap_or_else(|p| p.into_inner());
        let file = self.lock_file()?;
        let lock_path = || self.root.join(LOCK_FILE);
        range_lock(&file, at, libc::F_WRLCK).map_err(|e| io_err(&lock_path(), e))?;
        Ok(RangeGuard { _mutex: guard, file, at, slot: 0 })
    }

    /// The lock of one object: every write of `key` holds it.
    fn lock_object(&self, key: &StoreKey) -> MapResult<RangeGuard<'_>> {
        let slot = slot_of(key);
        let stripe = slot % LOCK_STRIPES;
        let mut guard = self.hold(&self.locks.stripes[stripe], 1 + stripe as u64)?;
        guard.slot = slot;
        Ok(guard)
    }

    /// Counts a write (see [`version_of`]) and releases the object lock.
    fn wrote(&self, lock: RangeGuard<'_>) -> MapResult<()> {
        lock.wrote().map_err(|e| io_err(&self.root.join(LOCK_FILE), e))
    }

    pub fn open(location: &str, writable: bool) -> MapResult<Self> {
        let root = local_path(location)?;
        match fs::metadata(&root) {
            Ok(m) if m.is_dir() => {
                if writable {
                    remove_stale_temps(&root);
                }
                Ok(FileStore::new(root, writable))
            }
            Ok(_) => Err(MapError::RootNotFound(root.display().to_string())),
            Err(e) if is_absent(&e) => Err(MapError::RootNotFound(root.display().to_string())),
            Err(e) => Err(io_err(&root, e)),
        }
    }

    /// The root directory of the dataset.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path_of(&self, key: &StoreKey) -> PathBuf {
        let mut p = self.root.clone();
        p.extend(key.segments());
        p
    }

    /// The root directory, opened once (`O_PATH`) for the writes of this
    /// handle: objects are created and renamed relative to it, so no path
    /// is walked above it again. A root deleted meanwhile (another writer's
    /// clobber) makes writes fail rather than land in its replacement.
    fn root_fd(&self) -> MapResult<BorrowedFd<'_>> {
        if let Some(fd) = self.root_fd.get() {
            return Ok(fd.as_fd());
        }
        let fd = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(&self.root)
            .map_err(|e| io_err(&self.root, e))?;
        let _ = self.root_fd.set(fd.into());
        Ok(self.root_fd.get().expect("set above or by another thread").as_fd())
    }

    /// The directory of `key`, opened (`O_PATH`) without following any
    /// symlink below the root, and created if missing: a symlink on the way
    /// is [`MapError::Symlink`] (a write must not leave the store), a file
    /// in the way a violation of the tree rule. One `openat2` resolves the
    /// whole path beneath the root; where the kernel has none (before 5.6,
    /// or a seccomp filter), the directories are opened one by one.
    fn object_dir(&self, key: &StoreKey) -> MapResult<OwnedFd> {
        let segs: Vec<&str> = key.segments().collect();
        let dirs = &segs[..segs.len().saturating_sub(1)];
        let root = self.root_fd()?;
        if dirs.is_empty() {
            return root.try_clone_to_owned().map_err(|e| io_err(&self.root, e));
        }
        self.open_dirs(root, dirs, key, true)
    }

    /// The directory `dirs` below the root, opened as [`FileStore::object_dir`]
    /// opens it (through no symlink: one on the way is [`MapError::Symlink`],
    /// as for a write) but created nowhere, for a delete: `None` when it is
    /// missing or a file is in the way (nothing there to delete).
    fn existing_dir(&self, dirs: &[&str], key: &StoreKey) -> MapResult<Option<OwnedFd>> {
        let root = self.root_fd()?;
        let opened = match dirs.is_empty() {
            true => root.try_clone_to_owned().map_err(|e| io_err(&self.root, e)),
            false => self.open_dirs(root, dirs, key, false),
        };
        match opened {
            Ok(fd) => Ok(Some(fd)),
            Err(MapError::KeyConflict(_)) => Ok(None),
            Err(MapError::Io(e)) if is_absent(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// [`FileStore::object_dir`] of the directory `dirs`: `openat2`; if
    /// that is missing, its parent the same way, then the one step down
    /// (`create`; else missing is an `Io` error of kind `NotFound`).
    fn open_dirs(&self, root: BorrowedFd<'_>, dirs: &[&str], key: &StoreKey, create: bool) -> MapResult<OwnedFd> {
        let rel = c_name(&dirs.join("/"), key)?;
        let e = match openat2_beneath(root, &rel, libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) {
            Ok(fd) => return Ok(fd),
            Err(e) => e,
        };
        match e.raw_os_error() {
            // missing: a new directory (below a parent that is, or is made)
            Some(libc::ENOENT) if create => {
                let (last, above) = dirs.split_last().expect("not the root");
                let parent = match above.is_empty() {
                    true => root.try_clone_to_owned().map_err(|e| io_err(&self.root, e))?,
                    false => self.open_dirs(root, above, key, true)?,
                };
                dir_step(parent.as_fd(), last, &self.root.join(dirs.join("/")), key, true)
            }
            // a symlink or a file on the way (the walk names which), or no
            // openat2 here (before Linux 5.6, or a seccomp filter)
            Some(libc::ELOOP | libc::ENOTDIR | libc::ENOSYS | libc::EPERM | libc::EINVAL | libc::E2BIG) => {
                walk_dirs(root, &self.root, dirs, key, create)
            }
            _ => Err(io_err(&self.root.join(dirs.join("/")), e)),
        }
    }

    /// Writes the new content of `key` into a fresh temporary file in the
    /// object's directory (`fill` writes it), ready to replace the object.
    fn stage(&self, key: &StoreKey, fill: impl FnOnce(&mut fs::File) -> io::Result<()>) -> MapResult<Staged> {
        self.check_writable()?;
        self.stage_in(Arc::new(self.object_dir(key)?), key, fill)
    }

    /// [`FileStore::stage`] in `dir`, the object's directory. The root is
    /// no object (the tree rule).
    fn stage_in(
        &self,
        dir: Arc<OwnedFd>,
        key: &StoreKey,
        fill: impl FnOnce(&mut fs::File) -> io::Result<()>,
    ) -> MapResult<Staged> {
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        let path = self.path_of(key);
        let name = c_name(key.name(), key)?;
        let (_, (tmp, mut f)) = create_exclusive(TMP_PREFIX, |tmp| {
            let tmp = CString::new(tmp)?;
            // SAFETY: openat on an open directory descriptor with a NUL-terminated name.
            let r = unsafe {
                libc::openat(
                    dir.as_raw_fd(),
                    tmp.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                    0o666 as libc::c_uint,
                )
            };
            match r {
                // SAFETY: a descriptor just returned by openat, owned by nothing else.
                0.. => Ok((tmp, fs::File::from(unsafe { OwnedFd::from_raw_fd(r) }))),
                _ => Err(io::Error::last_os_error()),
            }
        })
        .map_err(|e| io_err(&path, e))?;
        let staged = Staged { dir, tmp, name, path, done: false };
        let written = fill(&mut f).and_then(|()| match *DURABILITY == Durability::EveryObject {
            true => f.sync_data(),
            false => Ok(()),
        });
        match written {
            Ok(()) => Ok(staged),
            Err(e) => Err(io_err(&staged.path, e)), // the temporary file goes with `staged`
        }
    }

    /// Makes `staged` the object: a new object is created without any lock
    /// (`RENAME_NOREPLACE`: it cannot replace another writer's); an existing
    /// one is replaced under the object's lock, and the write counted.
    fn commit(&self, key: &StoreKey, mut staged: Staged) -> MapResult<()> {
        if staged.create()? {
            self.renamed(&staged);
            return Ok(());
        }
        let lock = self.lock_object(key)?;
        staged.replace(key)?;
        self.renamed(&staged);
        self.wrote(lock)
    }

    /// Notes a rename into `staged`'s directory for [`Store::flush`].
    fn renamed(&self, staged: &Staged) {
        match *DURABILITY {
            Durability::Off => {}
            Durability::AtSync => self.renamed_any.store(true, Ordering::Relaxed),
            Durability::EveryObject => {
                let dir = staged.path.parent().expect("object paths are below the root");
                self.renamed_into.lock().unwrap_or_else(|p| p.into_inner()).insert(dir.to_path_buf());
            }
        }
    }

    /// Removes the directory `dirs` and then each of its parents while they
    /// are empty, up to (not including) the root. Each is removed
    /// (`AT_REMOVEDIR`, which removes no symlink) in its parent, opened
    /// beneath the root through no symlink, so no directory outside the
    /// store is ever removed. Best effort: the first failure stops it.
    fn prune_empty_dirs(&self, dirs: &[&str], key: &StoreKey) {
        for n in (1..=dirs.len()).rev() {
            let Ok(Some(parent)) = self.existing_dir(&dirs[..n - 1], key) else { break };
            let Ok(name) = c_name(dirs[n - 1], key) else { break };
            if unlink_at(parent.as_fd(), &name, libc::AT_REMOVEDIR).is_err() {
                break;
            }
        }
    }

    fn walk(&self, dir: &Path, key: &StoreKey, out: &mut Vec<StoreKey>) -> MapResult<()> {
        for name in list_names(dir)? {
            let child = key.child(&name)?;
            let path = dir.join(&name);
            let meta = fs::symlink_metadata(&path).map_err(|e| io_err(&path, e))?;
            if meta.is_dir() {
                self.walk(&path, &child, out)?;
            } else if !meta.file_type().is_symlink() || fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                // a symlink to a file is an object; symlinked directories are
                // not descended into (no loops, no escape)
                out.push(child);
            }
        }
        Ok(())
    }
}

/// Sorted, visible, valid-key entry names of a directory.
fn list_names(dir: &Path) -> MapResult<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_err(dir, e))? {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        names.extend(entry.file_name().into_string().ok().filter(|n| is_visible(n)));
    }
    names.sort();
    Ok(names)
}

/// [`list_names`] of the directory open at `dir` (found at `path`).
fn list_names_at(dir: BorrowedFd<'_>, path: &Path) -> MapResult<Vec<String>> {
    let mut stream = DirStream::open(dir, c".").map_err(|e| io_err(path, e))?;
    let mut names = Vec::new();
    while let Some(name) = stream.next_name().map_err(|e| io_err(path, e))? {
        names.extend(name.into_string().ok().filter(|n| is_visible(n)));
    }
    names.sort();
    Ok(names)
}

/// Whether an entry name is an object's or a directory's (not a temporary
/// file, not the lock file, a valid key segment).
fn is_visible(name: &str) -> bool {
    !name.starts_with(TMP_PREFIX) && name != LOCK_FILE && StoreKey::parse(name).is_ok()
}

/// Whether `dir` holds one of the `markers` at its top.
pub fn is_store_dir(dir: &Path, markers: Markers<'_>) -> bool {
    markers.0.iter().any(|m| dir.join(m).exists())
}

/// Removes the temporary files of writers that died (`kill -9`, power cut)
/// anywhere in the store. Best effort: errors are ignored. Symlinked
/// directories are not entered.
fn remove_stale_temps(root: &Path) {
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else { continue };
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if ft.is_dir() {
                todo.push(entry.path());
            } else if ft.is_file() && is_stale_temp(&name, TMP_PREFIX) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

fn is_replaceable_dir(dir: &Path, markers: Markers<'_>) -> MapResult<bool> {
    // empty, or holding only a lock file (a store created, then destroyed
    // while another handle still had it open)
    let mut entries = fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    if entries.all(|e| e.is_ok_and(|e| e.file_name() == LOCK_FILE)) {
        return Ok(true);
    }
    Ok(is_store_dir(dir, markers))
}

impl Drop for FileStore {
    fn drop(&mut self) {
        self.release_lock_file();
    }
}

impl ReadableStore for FileStore {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        Ok(self.get_into(key, &mut buf)?.then_some(buf))
    }

    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        let path = self.path_of(key);
        let Some((f, len)) = open_regular(&path)? else { return Ok(None) };
        crate::limits::check(len, max).map_err(|why| super::too_large(key, why))?;
        let mut buf = Vec::new();
        read_whole(&path, f, len, &mut buf)?;
        Ok(Some(buf))
    }

    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        Ok(self.get_part(key, super::ByteRange::At { start, count })?.map(|(b, _)| b))
    }

    /// One `open`, `fstat` and `pread`.
    fn get_part(&self, key: &StoreKey, range: super::ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
        let path = self.path_of(key);
        let Some((f, len)) = open_regular(&path)? else { return Ok(None) };
        let (start, count) = range.resolve(key, len)?;
        let mut buf = crate::limits::try_zeroed(count, crate::limits::limits().max_object_bytes)
            .map_err(|why| super::too_large(key, why))?;
        f.read_exact_at(&mut buf, start).map_err(|e| io_err(&path, e))?;
        Ok(Some((buf, len)))
    }

    fn get_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> MapResult<bool> {
        let path = self.path_of(key);
        let Some((f, len)) = open_regular(&path)? else { return Ok(false) };
        read_whole(&path, f, len, buf)?;
        Ok(true)
    }

    fn read_exact_into(&self, key: &StoreKey, dst: &mut [u8]) -> MapResult<ReadInto> {
        let path = self.path_of(key);
        let Some((f, len)) = open_regular(&path)? else { return Ok(ReadInto::Absent) };
        if len != dst.len() as u64 {
            return Ok(ReadInto::Size(len));
        }
        // one pread of the whole object (a file cut short meanwhile: EOF)
        f.read_exact_at(dst, 0).map_err(|e| io_err(&path, e))?;
        Ok(ReadInto::Done)
    }

    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        let path = self.path_of(key);
        match fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(m) if m.is_dir() => Ok(None),
            Ok(_) => Err(MapError::NotRegular(path.display().to_string())),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }
}

impl WritableStore for FileStore {
    fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
        self.set_vectored(key, &[value])
    }

    fn set_vectored(&self, key: &StoreKey, parts: &[&[u8]]) -> MapResult<()> {
        let staged = self.stage(key, |f| write_parts(f, parts))?;
        self.commit(key, staged)
    }

    /// Objects in one directory one after another share its descriptor.
    fn set_all(&self, items: &[(StoreKey, Vec<u8>)]) -> MapResult<()> {
        self.check_writable()?;
        let mut dir: Option<(&str, Arc<OwnedFd>)> = None;
        for (key, value) in items {
            let parent = key.as_str().rsplit_once('/').map_or("", |(p, _)| p);
            let fd = match &dir {
                Some((p, fd)) if *p == parent => fd.clone(),
                _ => dir.insert((parent, Arc::new(self.object_dir(key)?))).1.clone(),
            };
            let staged = self.stage_in(fd, key, |f| write_parts(f, &[value]))?;
            self.commit(key, staged)?;
        }
        Ok(())
    }

    fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
        let end = ranged_write_end(key, offset, value.len())?;
        self.check_writable()?;
        let lock = self.lock_object(key)?;
        let path = self.path_of(key);
        loop {
            let old = open_regular(&path)?;
            let was = old.is_some();
            // The old content is copied file to file, the object extended
            // with set_len (a hole, not written zeros), then the range
            // written: memory stays bounded and a far offset makes a sparse file.
            let mut staged = self.stage(key, |f| {
                if let Some((mut old, _)) = old {
                    io::copy(&mut old, f)?;
                }
                if f.metadata()?.len() < end as u64 {
                    f.set_len(end as u64)?;
                }
                f.write_all_at(value, offset)
            })?;
            // Read, modify, write: an object made meanwhile (a new one takes
            // no lock) is read again, not overwritten.
            if was {
                staged.replace(key)?;
            } else if !staged.create()? {
                if open_regular(&path)?.is_none() {
                    staged.replace(key)?; // no RENAME_NOREPLACE here, still absent under the lock
                } else {
                    continue;
                }
            }
            self.renamed(&staged);
            return self.wrote(lock);
        }
    }

    /// The object's directory is opened beneath the root through no
    /// symlink ([`FileStore::existing_dir`]: one on the way is refused as
    /// for a write), and the object unlinked in it: an object that is a
    /// symlink is removed, never what it points to.
    fn erase(&self, key: &StoreKey) -> MapResult<()> {
        self.check_writable()?;
        if key.is_root() {
            return Ok(()); // the root is no object
        }
        let lock = self.lock_object(key)?;
        let (dirs, name) = dirs_and_name(key);
        let Some(dir) = self.existing_dir(&dirs, key)? else { return Ok(()) };
        match unlink_at(dir.as_fd(), &c_name(name, key)?, 0) {
            Ok(()) => {}
            // a directory is no object
            Err(e) if is_absent(&e) || e.raw_os_error() == Some(libc::EISDIR) => return Ok(()),
            Err(e) => return Err(io_err(&self.path_of(key), e)),
        }
        drop(dir);
        self.prune_empty_dirs(&dirs, key);
        self.wrote(lock)
    }

    /// As [`WritableStore::erase`]: the prefix's parent directory is opened
    /// beneath the root through no symlink, and the tree removed through
    /// directory descriptors that follow none ([`remove_tree`]).
    fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
        self.check_writable()?;
        let root = self.root_fd()?;
        if prefix.is_root() {
            for name in list_names_at(root, &self.root)? {
                let path = self.root.join(&name);
                match remove_tree(root, &c_name(&name, prefix)?) {
                    Err(e) if !is_absent(&e) => return Err(io_err(&path, e)),
                    _ => {}
                }
            }
            return Ok(());
        }
        let (dirs, name) = dirs_and_name(prefix);
        let Some(dir) = self.existing_dir(&dirs, prefix)? else { return Ok(()) };
        match remove_tree(dir.as_fd(), &c_name(name, prefix)?) {
            Ok(()) => {}
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) => return Err(io_err(&self.path_of(prefix), e)),
        }
        drop(dir);
        self.prune_empty_dirs(&dirs, prefix);
        Ok(())
    }
}

/// The directories of a key that is not the root, and its last segment.
fn dirs_and_name(key: &StoreKey) -> (Vec<&str>, &str) {
    let mut dirs: Vec<&str> = key.segments().collect();
    let name = dirs.pop().unwrap_or("");
    (dirs, name)
}

/// `unlinkat(dir, name, flags)`.
fn unlink_at(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: unlinkat on an open directory descriptor with a NUL-terminated name.
    match unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// A directory open for reading its entries (`fdopendir`).
struct DirStream(std::ptr::NonNull<libc::DIR>);

impl DirStream {
    /// Opens `name` in `parent` as a directory, following no symlink
    /// (`O_NOFOLLOW`: a symlink there is `ELOOP`).
    fn open(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<Self> {
        // SAFETY: openat on an open directory descriptor with a NUL-terminated name.
        let fd = unsafe {
            libc::openat(
                parent.as_raw_fd(),
                name.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fdopendir takes over the descriptor just opened.
        match std::ptr::NonNull::new(unsafe { libc::fdopendir(fd) }) {
            Some(dir) => Ok(DirStream(dir)),
            None => {
                let e = io::Error::last_os_error();
                // SAFETY: the descriptor was not taken over; closed once.
                unsafe { libc::close(fd) };
                Err(e)
            }
        }
    }

    fn fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the stream's descriptor stays open as long as the stream.
        unsafe { BorrowedFd::borrow_raw(libc::dirfd(self.0.as_ptr())) }
    }

    /// The next entry's name (`.` and `..` left out); `None` at the end.
    fn next_name(&mut self) -> io::Result<Option<CString>> {
        loop {
            // SAFETY: errno is this thread's; readdir on an open stream.
            let entry = unsafe {
                *libc::__errno_location() = 0;
                libc::readdir(self.0.as_ptr())
            };
            if entry.is_null() {
                let e = io::Error::last_os_error();
                return if e.raw_os_error() == Some(0) { Ok(None) } else { Err(e) };
            }
            // SAFETY: readdir returned an entry whose d_name is NUL-terminated,
            // valid until the next readdir on this stream (copied at once).
            let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
            if name != c"." && name != c".." {
                return Ok(Some(name.to_owned()));
            }
        }
    }
}

impl Drop for DirStream {
    fn drop(&mut self) {
        // SAFETY: the stream is open and closed only here.
        unsafe { libc::closedir(self.0.as_ptr()) };
    }
}

/// Removes the entry `name` of the directory `parent`: anything but a
/// directory is unlinked (a symlink itself, never what it points to); a
/// directory is emptied the same way, depth first, then removed. Every
/// step is relative to a directory descriptor opened `O_NOFOLLOW`, so a
/// symlink put in place of a directory meanwhile is never entered: nothing
/// outside the tree is touched. No recursion (the depth is the store's).
fn remove_tree(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
    // the directories being emptied, from the top down, with their names
    let mut open: Vec<(CString, DirStream)> = Vec::new();
    let mut next = Some(name.to_owned());
    loop {
        if let Some(name) = next.take() {
            let at = open.last().map_or(parent, |(_, d)| d.fd());
            match unlink_at(at, &name, 0) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
                    let dir = DirStream::open(at, &name)?;
                    open.push((name, dir));
                }
                Err(e) if e.kind() == ErrorKind::NotFound && !open.is_empty() => {} // gone meanwhile
                Err(e) => return Err(e),
            }
        }
        let Some((_, dir)) = open.last_mut() else { return Ok(()) };
        match dir.next_name()? {
            Some(child) => next = Some(child),
            None => {
                let (name, dir) = open.pop().expect("not empty");
                drop(dir);
                let at = open.last().map_or(parent, |(_, d)| d.fd());
                match unlink_at(at, &name, libc::AT_REMOVEDIR) {
                    Err(e) if e.kind() != ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
    }
}

impl ListableStore for FileStore {
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
        let path = self.path_of(prefix);
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => Ok(Some(list_names(&path)?)),
            Ok(_) => Ok(Some(Vec::new())),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
        let path = self.path_of(prefix);
        let mut out = Vec::new();
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => self.walk(&path, prefix, &mut out)?,
            Ok(_) => out.push(prefix.clone()),
            Err(e) if is_absent(&e) => {}
            Err(e) => return Err(io_err(&path, e)),
        }
        out.sort();
        Ok(out)
    }
}

impl ConditionalStore for FileStore {
    fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, Version)>> {
        let path = self.path_of(key);
        // the count first (see version_of); a read-only handle writes
        // nothing, so its versions need none
        let count = match self.writable {
            true => read_count(&*self.lock_file()?, slot_of(key)).map_err(|e| io_err(&path, e))?,
            false => 0,
        };
        let Some((f, meta)) = open_regular_meta(&path)? else { return Ok(None) };
        let mut buf = Vec::new();
        read_whole(&path, f, meta.len(), &mut buf)?;
        Ok(Some((buf, version_of(count, &meta))))
    }

    fn put_if(&self, key: &StoreKey, value: &[u8], expected: Option<&Version>) -> MapResult<Version> {
        let mut staged = self.stage(key, |f| write_parts(f, &[value]))?;
        let path = &staged.path.clone();
        let lock = self.lock_object(key)?;
        let count = lock.count().map_err(|e| io_err(path, e))?;
        let current = match fs::metadata(path) {
            Ok(m) if m.is_dir() => return Err(MapError::KeyConflict(key.to_string())),
            Ok(m) => Some(version_of(count, &m)),
            Err(e) if is_absent(&e) => None,
            Err(e) => return Err(io_err(path, e)),
        };
        if current.as_ref() != expected {
            return Err(MapError::Conflict(key.to_string()));
        }
        // A new object is made without the lock (`commit`): "absent"
        // holds only if the name is still free at the rename.
        if current.is_none() && !staged.create()? {
            if fs::symlink_metadata(path).is_ok() {
                return Err(MapError::Conflict(key.to_string()));
            }
            staged.replace(key)?; // no RENAME_NOREPLACE here, still absent under the lock
        } else if current.is_some() {
            staged.replace(key)?;
        }
        self.renamed(&staged);
        let m = fs::metadata(&staged.path).map_err(|e| io_err(&staged.path, e))?;
        lock.wrote().map_err(|e| io_err(&staged.path, e))?;
        Ok(version_of(count.wrapping_add(1), &m))
    }

    /// Byte 0 of the lock file: exclusive among every handle and process.
    fn lock(&self) -> MapResult<StoreLock<'_>> {
        self.check_writable()?;
        Ok(StoreLock::new(self.hold(&self.locks.store, 0)?))
    }
}

impl Store for FileStore {
    fn location(&self) -> &str {
        &self.location
    }

    fn is_writable(&self) -> bool {
        self.writable
    }

    /// Makes everything written since the last flush durable: one `syncfs`
    /// of the store's file system (file data, and the directories the
    /// renames went into), or with `NCZARR_RS_FSYNC=always` an `fsync` of
    /// each of those directories (the objects were synced before renaming).
    fn flush(&self) -> MapResult<()> {
        if *DURABILITY == Durability::AtSync {
            if !self.renamed_any.swap(false, Ordering::Relaxed) {
                return Ok(());
            }
            let root = fs::File::open(&self.root).map_err(|e| io_err(&self.root, e))?;
            // SAFETY: syncfs on an open descriptor.
            if unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&root)) } != 0 {
                return Err(io_err(&self.root, io::Error::last_os_error()));
            }
            return Ok(());
        }
        let dirs = std::mem::take(&mut *self.renamed_into.lock().unwrap_or_else(|p| p.into_inner()));
        for dir in dirs {
            match sync_dir(&dir) {
                Err(e) if !is_absent(&e) => return Err(io_err(&dir, e)),
                _ => {}
            }
        }
        Ok(())
    }

    fn destroy(&self) -> MapResult<()> {
        self.check_writable()?;
        self.renamed_into.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.renamed_any.store(false, Ordering::Relaxed);
        match fs::remove_dir_all(&self.root) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err(&self.root, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn k(s: &str) -> StoreKey {
        StoreKey::parse(s).unwrap()
    }

    /// What marks a dataset, as the engine tells the driver (here one
    /// name of the test data; the map layer asks nothing of the engine).
    fn marks() -> Markers<'static> {
        Markers(&[".zgroup"])
    }

    /// A new object is made without the object's lock (another writer
    /// holding it does not delay it); replacing an object waits for it.
    #[test]
    fn new_objects_take_no_lock_and_replacements_wait_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let loc = dir.path().join("ds").display().to_string();
        let a = FileStore::create(&loc, true, marks()).unwrap();
        let b = FileStore::open(&loc, true).unwrap();
        let key = k("/v/.zarray");
        let held = a.lock_object(&key).unwrap();
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel();
            let (b, key) = (&b, &key);
            s.spawn(move || {
                tx.send(b.set(key, b"1")).unwrap();
                tx.send(b.set(key, b"2")).unwrap();
            });
            let created = rx.recv_timeout(Duration::from_secs(20)).expect("the new object waited for the lock");
            assert!(created.is_ok(), "{created:?}");
            assert_eq!(fs::read(dir.path().join("ds/v/.zarray")).unwrap(), b"1");
            assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "an object was replaced without its lock");
            drop(held);
            rx.recv_timeout(Duration::from_secs(20)).unwrap().unwrap();
        });
        assert_eq!(fs::read(dir.path().join("ds/v/.zarray")).unwrap(), b"2");
        // the replacement was counted: a version taken before it differs
        let v = a.get_versioned(&key).unwrap().unwrap().1;
        b.set(&key, b"2").unwrap();
        assert!(a.put_if(&key, b"3", Some(&v)).is_err());
    }

    /// A conditional write of a new object fails if another writer made it
    /// since the caller looked, and its staged file is removed.
    #[test]
    fn a_conditional_write_that_conflicts_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let loc = dir.path().join("ds").display().to_string();
        let a = FileStore::create(&loc, true, marks()).unwrap();
        let key = k("/g/.zattrs");
        assert!(a.get_versioned(&key).unwrap().is_none());
        FileStore::open(&loc, true).unwrap().set(&key, b"theirs").unwrap();
        assert!(matches!(a.put_if(&key, b"mine", None), Err(MapError::Conflict(_))));
        assert_eq!(fs::read(dir.path().join("ds/g/.zattrs")).unwrap(), b"theirs");
        let names: Vec<_> = fs::read_dir(dir.path().join("ds/g")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [".zattrs"], "the temporary file was left behind");
    }

    /// A handle whose store was deleted and made again by another writer
    /// writes into neither the old nor the new one: its writes fail.
    #[test]
    fn writes_after_a_clobber_by_another_handle_fail() {
        let dir = tempfile::tempdir().unwrap();
        let loc = dir.path().join("ds").display().to_string();
        let a = FileStore::create(&loc, true, marks()).unwrap();
        a.set(&k("/.zgroup"), b"{}").unwrap();
        let b = FileStore::create(&loc, true, marks()).unwrap();
        b.set(&k("/.zgroup"), b"{ }").unwrap();
        for key in ["/.zattrs", "/v/0", "/.zgroup"] {
            assert!(matches!(a.set(&k(key), b"a"), Err(MapError::Io { .. })), "{key}");
        }
        let names: Vec<_> = fs::read_dir(dir.path().join("ds")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [".zgroup"]);
        assert_eq!(fs::read(dir.path().join("ds/.zgroup")).unwrap(), b"{ }");
    }

    /// The walk used where `openat2` is missing creates what is missing and
    /// refuses a symlink or a file on the way.
    #[test]
    fn the_directory_walk_follows_no_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ds");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("a")).unwrap();
        fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("a/l")).unwrap();
        fs::write(root.join("a/f"), b"x").unwrap();
        let fd = fs::File::open(&root).unwrap();
        let walk = |dirs: &[&str]| walk_dirs(fd.as_fd(), &root, dirs, &k("/key"), true);
        assert!(matches!(walk(&["a", "l"]), Err(MapError::Symlink(p)) if p.ends_with("a/l")));
        assert!(matches!(walk(&["a", "l", "b"]), Err(MapError::Symlink(_))));
        assert!(matches!(walk(&["a", "f"]), Err(MapError::KeyConflict(_))));
        assert!(fs::read_dir(&outside).unwrap().next().is_none());
        // without `create` (deletes): nothing is made, a symlink refused alike
        let find = |dirs: &[&str]| walk_dirs(fd.as_fd(), &root, dirs, &k("/key"), false);
        assert!(matches!(find(&["a", "b"]), Err(MapError::Io(e)) if e.kind() == ErrorKind::NotFound));
        assert!(!root.join("a/b").exists());
        assert!(matches!(find(&["a", "l", "b"]), Err(MapError::Symlink(_))));
        walk(&["a", "b", "c"]).unwrap();
        assert!(root.join("a/b/c").is_dir());
        find(&["a", "b", "c"]).unwrap();
    }

    /// Deletes follow no symlink: one on the way is refused (as a write
    /// is), one being deleted is unlinked, and pruning the directories a
    /// delete emptied never removes one outside the store.
    #[test]
    fn deletes_follow_no_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ds");
        let outside = dir.path().join("outside");
        fs::create_dir_all(outside.join("sub/deeper")).unwrap();
        fs::write(outside.join("f"), b"x").unwrap();
        fs::write(outside.join("sub/deeper/f"), b"x").unwrap();
        let intact = || {
            assert!(outside.join("f").is_file() && outside.join("sub/deeper/f").is_file());
        };
        let s = FileStore::create(root.to_str().unwrap(), true, marks()).unwrap();
        s.set(&k("/a/x"), b"x").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("a/l")).unwrap();
        assert!(matches!(s.erase(&k("/a/l/f")), Err(MapError::Symlink(p)) if p.ends_with("a/l")));
        assert!(matches!(s.erase(&k("/a/l/sub/deeper/f")), Err(MapError::Symlink(_))));
        assert!(matches!(s.erase_prefix(&k("/a/l/sub/deeper")), Err(MapError::Symlink(_))));
        intact();
        // the link itself goes, its target stays; missing keys are no error
        s.erase_prefix(&k("/a/l")).unwrap();
        assert!(fs::symlink_metadata(root.join("a/l")).is_err());
        intact();
        s.erase(&k("/a/nothing/f")).unwrap();
        s.erase(&k("/a/x/below")).unwrap();
        s.erase_prefix(&k("/nothing/here")).unwrap();
        // a tree whose directories hold links: links removed, not entered
        s.set(&k("/t/u/v/0"), b"0").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("t/u/l")).unwrap();
        std::os::unix::fs::symlink(outside.join("f"), root.join("t/u/v/1")).unwrap();
        s.erase_prefix(&k("/t")).unwrap();
        assert!(!root.join("t").exists());
        intact();
        // the last object of a directory: the emptied directories go
        s.set(&k("/p/q/r"), b"r").unwrap();
        s.erase(&k("/p/q/r")).unwrap();
        assert!(!root.join("p").exists());
        assert!(root.join("a/x").is_file());
        // the root: everything but the lock file, links unlinked
        std::os::unix::fs::symlink(&outside, root.join("l")).unwrap();
        s.erase_prefix(&StoreKey::root()).unwrap();
        assert_eq!(list_names(&root).unwrap(), Vec::<String>::new());
        intact();
    }
}
