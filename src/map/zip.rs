//! The `zip` driver: a dataset is one zip archive, its root the archive's
//! root (zipping a `file` dataset's directory from inside gives one).
//!
//! The archive's objects are held in memory while the dataset is open. A
//! writable dataset is written back as a whole, atomically (a temporary
//! file, then a rename), at `flush` (`nc_sync`, `nc_close`, `nczmap_close`). Entries are
//! written uncompressed (codecs compress chunks already), and archives
//! using deflate are read too.

use super::file::local_path;
use super::memory::ObjectMap;
use super::{MapError, MapResult, Store, StoreKey};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub struct ZipStore {
    path: PathBuf,
    location: String,
    writable: bool,
    objects: ObjectMap,
    dirty: AtomicBool,
    /// Serialises whole-archive writes.
    writing: Mutex<()>,
}

fn io_err(path: &Path, e: std::io::Error) -> MapError {
    MapError::Io(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// True if `path` is a file that starts like a zip archive.
fn looks_like_zip(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok()
        && (magic == *b"PK\x03\x04" || magic == *b"PK\x05\x06")
}

impl ZipStore {
    pub fn create(location: &str, clobber: bool) -> MapResult<Self> {
        let path = local_path(location)?;
        match fs::symlink_metadata(&path) {
            Ok(_) if !clobber => return Err(MapError::AlreadyExists(path.display().to_string())),
            Ok(m) if m.is_dir() || !looks_like_zip(&path) => {
                return Err(MapError::NotAStore(path.display().to_string()))
            }
            _ => {}
        }
        let s = ZipStore::empty(path, true);
        s.dirty.store(true, Ordering::Relaxed);
        s.flush()?; // the dataset exists from now on
        Ok(s)
    }

    pub fn open(location: &str, writable: bool) -> MapResult<Self> {
        let path = local_path(location)?;
        let file = match fs::File::open(&path) {
            Ok(f) if f.metadata().map(|m| m.is_file()).unwrap_or(false) => f,
            Ok(_) => return Err(MapError::RootNotFound(path.display().to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(MapError::RootNotFound(path.display().to_string()))
            }
            Err(e) => return Err(io_err(&path, e)),
        };
        let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
            .map_err(|e| MapError::Corrupt(format!("{}: {e}", path.display())))?;
        let s = ZipStore::empty(path, writable);
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(|e| MapError::Corrupt(format!("{}: {e}", s.path.display())))?;
            if entry.is_dir() {
                continue;
            }
            let Ok(name) = entry.name() else { continue };
            let name = name.trim_start_matches("./").to_string();
            let Ok(key) = StoreKey::parse(&name) else { continue };
            let mut data = Vec::with_capacity(entry.size() as usize);
            entry.read_to_end(&mut data).map_err(|e| io_err(&s.path, e))?;
            s.objects.set(&key, data)?;
        }
        Ok(s)
    }

    fn empty(path: PathBuf, writable: bool) -> Self {
        ZipStore {
            location: path.display().to_string(),
            path,
            writable,
            objects: ObjectMap::default(),
            dirty: AtomicBool::new(false),
            writing: Mutex::new(()),
        }
    }

    fn write_archive(&self) -> MapResult<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let name = self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = dir.join(format!(".{name}.nczarr-rs-tmp.{}", std::process::id()));
        let result = (|| -> MapResult<()> {
            let file = fs::File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
            let mut zw = zip::ZipWriter::new(std::io::BufWriter::new(file));
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored)
                .large_file(false);
            for (key, data) in self.objects.snapshot() {
                let opts = if data.len() as u64 >= u32::MAX as u64 { options.large_file(true) } else { options };
                zw.start_file(key.as_str(), opts).map_err(|e| MapError::Corrupt(e.to_string()))?;
                zw.write_all(&data).map_err(|e| io_err(&tmp, e))?;
            }
            let mut w = zw.finish().map_err(|e| MapError::Corrupt(e.to_string()))?;
            w.flush().map_err(|e| io_err(&tmp, e))?;
            fs::rename(&tmp, &self.path).map_err(|e| io_err(&self.path, e))
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
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
