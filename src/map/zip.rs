//! The `zip` driver: a dataset is one zip archive, its root the archive's
//! root (zipping a `file` dataset's directory from inside gives one; so do
//! zarr-python's `ZipStore` and [`ZipStore::create`]). An archive written by
//! netCDF-C's NCZarr holds everything below one top directory named after
//! the file (`x.zip` holds `x/`, `x/.zgroup`, ...); netCDF-C takes the first
//! entry's name as that root ([`ZipStore::create_nested`] writes one). Such
//! an archive (first entry a one-segment directory, none of the caller's
//! markers of a dataset ([`Markers`]) at the archive root) is read and
//! rewritten with that root, its directory entry kept first.
//!
//! Opening reads only the archive's central directory: an object's bytes
//! are read from the archive when asked for, each entry checked against
//! the object limit ([`crate::limits`]) and allocated fallibly, so neither
//! a header claiming 2^50 bytes nor a zip bomb can exhaust memory. Objects
//! written while the dataset is open are held in memory. A writable
//! dataset is written back as a whole, atomically (a temporary file, then
//! a rename), at `flush` (`nc_sync`, `nc_close`, `nczmap_close`): new
//! objects are stored uncompressed (codecs compress chunks already),
//! unchanged entries are copied as they are (still compressed, never
//! decoded), and entries whose names are not store keys (`../x`, absolute
//! names, directory entries) are kept verbatim, never dropped.
//!
//! One writer per archive: a flush that finds the archive replaced since
//! this handle last read or wrote it (another handle or process flushed in
//! between) refuses to overwrite it ([`MapError::Conflict`]) rather than
//! lose that writer's archive. The check and the rename hold an `flock` on
//! the archive being replaced, so two flushes cannot both pass it.

use super::file::{commit_temp, create_temp, is_stale_temp, local_path, sync_dir, Durability, DURABILITY};
use super::memory::{EntrySource, Obj, ObjectMap, Span};
use super::{MapError, MapResult, Markers, Store, StoreKey};
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Reads a shared file at its own position (`pread`): archives cloned from
/// one another read in parallel without a lock.
#[derive(Clone)]
struct SharedFile {
    file: Arc<fs::File>,
    pos: u64,
    len: u64,
}

impl Read for SharedFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SharedFile {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before start"))?;
        Ok(self.pos)
    }
}

type Archive = zip::ZipArchive<SharedFile>;

/// What identifies one version of the archive file (each flush renames a
/// new file into place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl FileId {
    fn of(m: &fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileId { dev: m.dev(), ino: m.ino(), size: m.size(), mtime: (m.mtime(), m.mtime_nsec()) }
    }

    /// The archive now at `path` (`None`: there is none).
    fn at(path: &Path) -> MapResult<Option<Self>> {
        match fs::metadata(path) {
            Ok(m) => Ok(Some(FileId::of(&m))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(path, e)),
        }
    }
}

/// Holds an exclusive `flock` on the archive file at `path` (if any), and
/// tells which file that is. Retries when the file is replaced meanwhile.
fn lock_current(path: &Path) -> MapResult<(Option<fs::File>, Option<FileId>)> {
    loop {
        let f = match fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC).open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, None)),
            Err(e) => return Err(io_err(path, e)),
        };
        loop {
            // SAFETY: flock on an open descriptor.
            if unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&f), libc::LOCK_EX) } == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(io_err(path, e));
            }
        }
        let held = FileId::of(&f.metadata().map_err(|e| io_err(path, e))?);
        if FileId::at(path)? == Some(held) {
            return Ok((Some(f), Some(held)));
        }
    }
}

/// One opened archive: the source of the entries read from it.
struct ArchiveSource {
    archive: Archive,
    path: PathBuf,
}

fn corrupt(path: &Path, e: impl std::fmt::Display) -> MapError {
    MapError::Corrupt(format!("{}: {e}", path.display()))
}

impl EntrySource for ArchiveSource {
    fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }

    fn read(&self, key: &StoreKey, index: usize, size: u64, range: Span) -> MapResult<Vec<u8>> {
        let limit = crate::limits::limits().max_object_bytes;
        let whole = range.is_none();
        let range = range.unwrap_or(0..crate::limits::check(size, limit).map_err(|why| super::too_large(key, why))?);
        let mut archive = self.archive.clone();
        // a size its compressed data cannot hold is a lie (deflate expands
        // at most 1032 times): refused before anything is allocated
        let data = archive.by_index_data(index).map_err(|e| corrupt(&self.path, e))?;
        let packed = data.compressed_size();
        let plausible = match data.compression() {
            zip::CompressionMethod::Stored => size == packed,
            _ => size <= packed.saturating_mul(1032).saturating_add(64),
        };
        if !plausible {
            return Err(corrupt(&self.path, format!("{key}: {size} bytes claimed for {packed} stored")));
        }
        let stored = data.compression() == zip::CompressionMethod::Stored;
        let mut buf = Vec::new();
        crate::limits::try_reserve(&mut buf, range.len()).map_err(|why| super::too_large(key, why))?;
        let bad = |e: std::io::Error| corrupt(&self.path, format!("{key}: {e}"));
        if !whole && stored {
            let mut entry = archive.by_index_seek(index).map_err(|e| corrupt(&self.path, e))?;
            entry.seek(SeekFrom::Start(range.start as u64)).map_err(bad)?;
            entry.take(range.len() as u64).read_to_end(&mut buf).map_err(bad)?;
        } else {
            let mut entry = archive.by_index(index).map_err(|e| corrupt(&self.path, e))?;
            std::io::copy(&mut (&mut entry).take(range.start as u64), &mut std::io::sink()).map_err(bad)?;
            (&mut entry).take(range.len() as u64).read_to_end(&mut buf).map_err(bad)?;
            // reading on to the end checks the CRC, and that the entry is not
            // longer than its header says
            if whole && entry.read(&mut [0u8; 1]).map_err(bad)? != 0 {
                return Err(corrupt(&self.path, format!("{key}: entry longer than its header says")));
            }
        }
        if buf.len() != range.len() {
            return Err(corrupt(&self.path, format!("{key}: entry shorter than its header says")));
        }
        Ok(buf)
    }
}

pub struct ZipStore {
    path: PathBuf,
    location: String,
    writable: bool,
    objects: ObjectMap,
    /// What entry names start with: `""`, or netCDF-C's `"<name>/"`.
    root: Mutex<String>,
    /// Entries whose names are not store keys, copied verbatim on write-back.
    foreign: Mutex<Vec<(Arc<ArchiveSource>, usize)>>,
    dirty: AtomicBool,
    /// Serialises whole-archive writes.
    writing: Mutex<()>,
    /// The archive file as this handle last read or wrote it (`None`:
    /// there was none): a flush that finds another is a conflict.
    seen: Mutex<Option<FileId>>,
}

fn io_err(path: &Path, e: std::io::Error) -> MapError {
    MapError::Io(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// True if `path` is a file that starts like a zip archive.
/// Whether `path` is a regular file that starts like a zip archive (a local
/// file header, or the end record of an empty archive). Never opens anything
/// else, so a FIFO cannot block it.
pub fn looks_like_zip(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    fs::metadata(path).is_ok_and(|m| m.is_file())
        && fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok()
        && (magic == *b"PK\x03\x04" || magic == *b"PK\x05\x06")
}

/// Prefix of the temporary archives of `path` (in its directory).
fn temp_stem(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!(".{name}.nczarr-rs-tmp.")
}

/// Opens the archive at `path` (its central directory only).
fn open_archive(path: &Path) -> MapResult<(Arc<ArchiveSource>, FileId)> {
    let file = match fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(MapError::RootNotFound(path.display().to_string()))
        }
        Err(e) => return Err(io_err(path, e)),
    };
    archive_from(file, path)
}

/// Reads the central directory of the archive `file` (found at `path`).
fn archive_from(file: fs::File, path: &Path) -> MapResult<(Arc<ArchiveSource>, FileId)> {
    let meta = file.metadata().map_err(|e| io_err(path, e))?;
    if meta.is_dir() {
        return Err(MapError::RootNotFound(path.display().to_string()));
    }
    if !meta.is_file() {
        return Err(MapError::NotRegular(path.display().to_string()));
    }
    let reader = SharedFile { file: Arc::new(file), pos: 0, len: meta.len() };
    let archive = zip::ZipArchive::new(reader).map_err(|e| corrupt(path, e))?;
    Ok((Arc::new(ArchiveSource { archive, path: path.to_path_buf() }), FileId::of(&meta)))
}

impl ZipStore {
    pub fn create(location: &str, clobber: bool) -> MapResult<Self> {
        Self::create_rooted(location, clobber, false)
    }

    /// [`ZipStore::create`] with the dataset below a directory named after
    /// the archive without its extension (`x.zip`: `x/`), netCDF-C's layout.
    pub fn create_nested(location: &str, clobber: bool) -> MapResult<Self> {
        Self::create_rooted(location, clobber, true)
    }

    fn create_rooted(location: &str, clobber: bool, nested: bool) -> MapResult<Self> {
        let path = local_path(location)?;
        match fs::symlink_metadata(&path) {
            Ok(_) if !clobber => return Err(MapError::AlreadyExists(path.display().to_string())),
            Ok(m) if !m.is_file() || !looks_like_zip(&path) => {
                return Err(MapError::NotAStore(path.display().to_string()))
            }
            _ => {}
        }
        let s = ZipStore::empty(path, true);
        if nested {
            let stem = s.path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !stem.is_empty() {
                *s.root.lock().unwrap_or_else(|p| p.into_inner()) = format!("{stem}/");
            }
        }
        // the archive being replaced (clobber), if any, is the one we saw
        *s.seen.lock().unwrap_or_else(|p| p.into_inner()) = FileId::at(&s.path)?;
        s.dirty.store(true, Ordering::Relaxed);
        s.flush()?; // the dataset exists from now on
        Ok(s)
    }

    /// Opens the archive at `location`: its dataset is at the archive's
    /// root, or below netCDF-C's root directory when there are no `markers`
    /// at the root ([`netcdf_c_root`]).
    pub fn open(location: &str, writable: bool, markers: Markers<'_>) -> MapResult<Self> {
        let path = local_path(location)?;
        let (src, id) = open_archive(&path)?;
        let s = ZipStore::empty(path, writable);
        *s.seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(id);
        s.index(&src, markers)?;
        if writable {
            s.remove_stale_temps();
        }
        Ok(s)
    }

    /// Adds every entry of `src` to the store: objects by key, the rest as
    /// foreign entries. The last entry of a name wins.
    fn index(&self, src: &Arc<ArchiveSource>, markers: Markers<'_>) -> MapResult<()> {
        let root = netcdf_c_root(&src.archive, markers);
        let mut foreign = Vec::new();
        for i in 0..src.archive.len() {
            let entry = src.archive.by_index_data(i).map_err(|e| corrupt(&self.path, e))?;
            // an absolute name is outside the root: not an object (kept verbatim)
            let key = match std::str::from_utf8(entry.name_raw()) {
                Ok(name) if !entry.is_dir() && !name.starts_with('/') => {
                    name.strip_prefix(root.as_str()).and_then(|n| StoreKey::parse(n.trim_start_matches("./")).ok())
                }
                _ => None,
            };
            let obj = Obj::Entry { src: src.clone(), index: i, size: entry.size() };
            match key {
                Some(key) if self.objects.put(&key, obj).is_ok() => {}
                _ => foreign.push((src.clone(), i)),
            }
        }
        *self.foreign.lock().unwrap_or_else(|p| p.into_inner()) = foreign;
        *self.root.lock().unwrap_or_else(|p| p.into_inner()) = root;
        Ok(())
    }

    fn empty(path: PathBuf, writable: bool) -> Self {
        ZipStore {
            location: path.display().to_string(),
            path,
            writable,
            objects: ObjectMap::default(),
            root: Mutex::default(),
            foreign: Mutex::default(),
            dirty: AtomicBool::new(false),
            writing: Mutex::new(()),
            seen: Mutex::new(None),
        }
    }

    /// Removes temporary archives of this archive left by dead writers.
    fn remove_stale_temps(&self) {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let stem = temp_stem(&self.path);
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if entry.file_type().is_ok_and(|t| t.is_file()) && is_stale_temp(&name.to_string_lossy(), &stem) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    fn write_archive(&self) -> MapResult<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        // the archive in place must be the one this handle knows (held
        // until the new one has replaced it)
        let (_held, current) = lock_current(&self.path)?;
        if current != *self.seen.lock().unwrap_or_else(|p| p.into_inner()) {
            return Err(MapError::Conflict(format!(
                "{} (the archive was rewritten since this handle opened it; one writer per zip archive)",
                self.path.display()
            )));
        }
        let snapshot = self.objects.snapshot();
        let foreign = self.foreign.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let root = self.root.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let (tmp, file) = create_temp(dir, &temp_stem(&self.path)).map_err(|e| io_err(dir, e))?;
        let zerr = |e: zip::result::ZipError| MapError::Corrupt(format!("{}: {e}", tmp.display()));
        // A netCDF-C archive's root directory entry stays the first entry;
        // the other entries that are not objects go after the objects, so
        // that one the tree rule refused (`v/x` beside an object `v`) cannot
        // take the object's place when the archive is read again (it did:
        // found by fuzzing).
        let lead = usize::from(!root.is_empty() && foreign.first().is_some_and(|(_, i)| *i == 0));
        // a new archive of netCDF-C's layout gets its root directory entry
        let add_root = !root.is_empty() && lead == 0;
        let copy_foreign = |zw: &mut zip::ZipWriter<_>, entries: &[(Arc<ArchiveSource>, usize)]| -> MapResult<()> {
            for (src, index) in entries {
                let mut archive = src.archive.clone();
                let entry = archive.by_index_raw(*index).map_err(|e| corrupt(&src.path, e))?;
                zw.raw_copy_file(entry).map_err(zerr)?;
            }
            Ok(())
        };
        let written = (|| -> MapResult<(fs::File, usize)> {
            let mut zw = zip::ZipWriter::new(std::io::BufWriter::new(file));
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored)
                .large_file(false);
            copy_foreign(&mut zw, &foreign[..lead])?;
            if add_root {
                zw.add_directory(root.as_str(), options).map_err(zerr)?;
            }
            let mut objects = 0;
            for (key, obj) in &snapshot {
                let name = format!("{root}{}", key.as_str());
                match obj {
                    Obj::Bytes(data) => {
                        let opts =
                            if data.len() as u64 >= u32::MAX as u64 { options.large_file(true) } else { options };
                        zw.start_file(name.as_str(), opts).map_err(zerr)?;
                        zw.write_all(data).map_err(|e| io_err(&tmp, e))?;
                    }
                    Obj::Entry { index, .. } => {
                        let Some(src) = entry_source(obj) else { continue };
                        let mut archive = src.archive.clone();
                        let entry = archive.by_index_raw(*index).map_err(|e| corrupt(&src.path, e))?;
                        zw.raw_copy_file_rename(entry, name.as_str()).map_err(zerr)?;
                    }
                }
                objects += 1;
            }
            copy_foreign(&mut zw, &foreign[lead..])?;
            let w = zw.finish().map_err(zerr)?;
            Ok((w.into_inner().map_err(|e| io_err(&tmp, e.into_error()))?, objects))
        })();
        // the new archive, read back through a descriptor of its own (the
        // path may be replaced by another writer once our lock is gone)
        let reread = written.and_then(|(f, n)| Ok((fs::File::open(&tmp).map_err(|e| io_err(&tmp, e))?, f, n)));
        let (reread, file, objects) = match reread {
            Ok(f) => f,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        // The archive is written at flush (nc_sync/nc_close): sync it now.
        commit_temp(file, &tmp, &self.path, *DURABILITY != Durability::Off).map_err(|e| io_err(&self.path, e))?;
        sync_dir(dir).map_err(|e| io_err(dir, e))?;
        // From now on read from the new archive, and let go of the objects
        // held in memory (unless they changed meanwhile).
        let (src, id) = archive_from(reread, &self.path)?;
        *self.seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(id);
        // the objects follow the root directory entry, kept or added
        let first = lead + usize::from(add_root);
        let mut by_name = std::collections::HashMap::new();
        let mut new_foreign = Vec::new();
        // The root directory entry (if any), one entry per object, then the
        // other foreign entries.
        for i in 0..src.archive.len() {
            let entry = src.archive.by_index_data(i).map_err(|e| corrupt(&self.path, e))?;
            match entry.name() {
                Ok(n) if (first..first + objects).contains(&i) => {
                    let key = n.strip_prefix(root.as_str()).unwrap_or(&n).to_string();
                    by_name.insert(key, Obj::Entry { src: src.clone(), index: i, size: entry.size() });
                }
                _ => new_foreign.push((src.clone(), i)),
            }
        }
        let after: Vec<Obj> =
            snapshot.iter().map(|(k, old)| by_name.remove(k.as_str()).unwrap_or_else(|| old.clone())).collect();
        self.objects.rebase(&snapshot, after);
        *self.foreign.lock().unwrap_or_else(|p| p.into_inner()) = new_foreign;
        Ok(())
    }
}

/// netCDF-C's root directory entry (`"<name>/"`), when the archive has the
/// layout netCDF-C writes: a first entry that is a one-segment directory,
/// and none of the `markers` (a dataset's metadata) at the archive's root.
/// Else `""`.
fn netcdf_c_root(archive: &Archive, markers: Markers<'_>) -> String {
    let Some(first) = archive.file_names_raw().next() else { return String::new() };
    let Some(name) = first.strip_suffix(b"/") else { return String::new() };
    let one_dir = !name.is_empty() && !name.contains(&b'/') && !name.starts_with(b".");
    if !one_dir || archive.file_names_raw().any(|n| markers.contains(n)) {
        return String::new();
    }
    String::from_utf8(first.to_vec()).unwrap_or_default()
}

/// The archive an entry object is read from.
fn entry_source(obj: &Obj) -> Option<Arc<ArchiveSource>> {
    match obj {
        Obj::Entry { src, .. } => src.clone().as_any().downcast::<ArchiveSource>().ok(),
        Obj::Bytes(_) => None,
    }
}

super::memory::object_map_store!(ZipStore);

impl Store for ZipStore {
    fn location(&self) -> &str {
        &self.location
    }

    fn is_writable(&self) -> bool {
        self.writable
    }

    /// A write is about to happen: the archive must be written back.
    fn check_writable(&self) -> MapResult<()> {
        if !self.writable {
            return Err(MapError::ReadOnly);
        }
        self.dirty.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Writes the archive if anything changed since it was last written.
    fn flush(&self) -> MapResult<()> {
        let _guard = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if self.writable && self.dirty.swap(false, Ordering::Relaxed) {
            if let Err(e) = self.write_archive() {
                self.dirty.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    }

    fn destroy(&self) -> MapResult<()> {
        if !self.writable {
            return Err(MapError::ReadOnly);
        }
        let _guard = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        self.objects.clear();
        self.dirty.store(false, Ordering::Relaxed);
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err(&self.path, e)),
        }
    }
}
