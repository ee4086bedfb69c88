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
//!   a non-empty directory that does not look like a Zarr store, so a wrong
//!   path never costs a user their data.

use super::{checked_range, splice, ListableStore, MapError, MapResult, ReadableStore, Store, StoreKey, WritableStore};
use std::fs;
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Prefix of the temporary files used for atomic writes.
const TMP_PREFIX: &str = ".nczarr-rs-tmp.";

/// Names whose presence at the top of a directory marks it as a Zarr/NCZarr
/// store that `create` may replace.
const STORE_MARKERS: &[&str] = &[".zgroup", ".zarray", ".zattrs", ".zmetadata", ".nczarr", "zarr.json"];

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

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

fn percent_decode(s: &str) -> Option<String> {
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
}

impl FileStore {
    pub fn create(location: &str, clobber: bool) -> MapResult<Self> {
        let root = local_path(location)?;
        match fs::symlink_metadata(&root) {
            Ok(meta) => {
                if !clobber {
                    return Err(MapError::AlreadyExists(root.display().to_string()));
                }
                if meta.is_dir() {
                    if !is_replaceable_dir(&root)? {
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
        Ok(FileStore { location: root.display().to_string(), root, writable: true })
    }

    pub fn open(location: &str, writable: bool) -> MapResult<Self> {
        let root = local_path(location)?;
        match fs::metadata(&root) {
            Ok(m) if m.is_dir() => Ok(FileStore { location: root.display().to_string(), root, writable }),
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

    /// Creates the parent directories of `key`; a file in the way is a
    /// violation of the tree rule.
    fn make_parents(&self, key: &StoreKey, path: &Path) -> MapResult<()> {
        let parent = path.parent().expect("object paths are below the root");
        match fs::create_dir_all(parent) {
            Ok(()) => Ok(()),
            Err(e) if matches!(e.kind(), ErrorKind::AlreadyExists | ErrorKind::NotADirectory) => {
                Err(MapError::KeyConflict(key.to_string()))
            }
            Err(e) => Err(io_err(parent, e)),
        }
    }

    /// Writes `bytes` to `path` atomically (temporary file + rename).
    fn write_atomic(&self, key: &StoreKey, path: &Path, bytes: &[u8]) -> MapResult<()> {
        self.write_atomic_parts(key, path, &[bytes])
    }

    /// Writes the concatenation of `parts` atomically, with gathering writes.
    fn write_atomic_parts(&self, key: &StoreKey, path: &Path, parts: &[&[u8]]) -> MapResult<()> {
        if path.is_dir() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        let dir = path.parent().expect("object paths are below the root");
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!("{TMP_PREFIX}{}.{n}", std::process::id()));
        let result = (|| {
            let mut f = fs::File::create(&tmp)?;
            let mut slices: Vec<io::IoSlice> =
                parts.iter().filter(|p| !p.is_empty()).map(|p| io::IoSlice::new(p)).collect();
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
            drop(f);
            fs::rename(&tmp, path)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(io_err(path, e));
        }
        Ok(())
    }

    /// Removes empty directories from `dir` up to (not including) the root.
    fn prune_empty_dirs(&self, mut dir: &Path) {
        while dir != self.root && dir.starts_with(&self.root) {
            if fs::remove_dir(dir).is_err() {
                break;
            }
            match dir.parent() {
                Some(p) => dir = p,
                None => break,
            }
        }
    }

    fn walk(&self, dir: &Path, key: &StoreKey, out: &mut Vec<StoreKey>) -> MapResult<()> {
        for name in list_names(dir)? {
            let child = key.child(&name)?;
            let path = dir.join(&name);
            let meta = fs::metadata(&path).map_err(|e| io_err(&path, e))?;
            if meta.is_dir() {
                self.walk(&path, &child, out)?;
            } else {
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
        let Ok(name) = entry.file_name().into_string() else { continue };
        if name.starts_with(TMP_PREFIX) || StoreKey::parse(&name).is_err() {
            continue;
        }
        names.push(name);
    }
    names.sort();
    Ok(names)
}

/// Whether `dir` holds Zarr (v2 or v3) or NCZarr metadata at its top.
pub fn is_store_dir(dir: &Path) -> bool {
    STORE_MARKERS.iter().any(|m| dir.join(m).exists())
}

fn is_replaceable_dir(dir: &Path) -> MapResult<bool> {
    let mut entries = fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    if entries.next().is_none() {
        return Ok(true);
    }
    Ok(is_store_dir(dir))
}

impl ReadableStore for FileStore {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        let path = self.path_of(key);
        match fs::read(&path) {
            Ok(v) => Ok(Some(v)),
            Err(e) if is_absent(&e) || e.kind() == ErrorKind::IsADirectory => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        let path = self.path_of(key);
        let f = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if is_absent(&e) => return Ok(None),
            Err(e) => return Err(io_err(&path, e)),
        };
        let meta = f.metadata().map_err(|e| io_err(&path, e))?;
        if meta.is_dir() {
            return Ok(None);
        }
        let range = checked_range(key, start, count, meta.len())?;
        let mut buf = vec![0u8; range.len()];
        f.read_exact_at(&mut buf, start).map_err(|e| io_err(&path, e))?;
        Ok(Some(buf))
    }

    fn get_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> MapResult<bool> {
        let path = self.path_of(key);
        let mut f = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if is_absent(&e) || e.kind() == ErrorKind::IsADirectory => return Ok(false),
            Err(e) => return Err(io_err(&path, e)),
        };
        let meta = f.metadata().map_err(|e| io_err(&path, e))?;
        if meta.is_dir() {
            return Ok(false);
        }
        buf.clear();
        buf.reserve(meta.len() as usize);
        f.read_to_end(buf).map_err(|e| io_err(&path, e))?;
        Ok(true)
    }

    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        let path = self.path_of(key);
        match fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(_) => Ok(None),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }
}

impl WritableStore for FileStore {
    fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
        self.check_writable()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        let path = self.path_of(key);
        self.make_parents(key, &path)?;
        self.write_atomic(key, &path, value)
    }

    fn set_vectored(&self, key: &StoreKey, parts: &[&[u8]]) -> MapResult<()> {
        self.check_writable()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        let path = self.path_of(key);
        self.make_parents(key, &path)?;
        self.write_atomic_parts(key, &path, parts)
    }

    fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
        self.check_writable()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        let path = self.path_of(key);
        self.make_parents(key, &path)?;
        let updated = splice(self.get(key)?, offset, value)?;
        self.write_atomic(key, &path, &updated)
    }

    fn erase(&self, key: &StoreKey) -> MapResult<()> {
        self.check_writable()?;
        let path = self.path_of(key);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() || m.file_type().is_symlink() => {
                fs::remove_file(&path).map_err(|e| io_err(&path, e))?;
                if let Some(parent) = path.parent() {
                    self.prune_empty_dirs(parent);
                }
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(e) if is_absent(&e) => Ok(()),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
        self.check_writable()?;
        if prefix.is_root() {
            for name in list_names(&self.root)? {
                let p = self.root.join(name);
                let r = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
                r.map_err(|e| io_err(&p, e))?;
            }
            return Ok(());
        }
        let path = self.path_of(prefix);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => fs::remove_dir_all(&path).map_err(|e| io_err(&path, e))?,
            Ok(_) => fs::remove_file(&path).map_err(|e| io_err(&path, e))?,
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) => return Err(io_err(&path, e)),
        }
        if let Some(parent) = path.parent() {
            self.prune_empty_dirs(parent);
        }
        Ok(())
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

impl Store for FileStore {
    fn location(&self) -> &str {
        &self.location
    }

    fn is_writable(&self) -> bool {
        self.writable
    }

    fn destroy(&self) -> MapResult<()> {
        self.check_writable()?;
        match fs::remove_dir_all(&self.root) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err(&self.root, e)),
        }
    }
}
