//! Kerchunk reference sets ("virtual datasets"), read-only: a store whose
//! objects are inline bytes or byte ranges of other files.
//!
//! A reference set (kerchunk's spec, versions 0 and 1) is a JSON object.
//! Version 0 maps each key to its value; version 1 is
//! `{"version": 1, "templates": {...}, "gen": [...], "refs": {...}}`. A
//! value is inline text, `base64:` inline bytes, `[url]` (the whole
//! target) or `[url, offset, length]` (a byte range of it). `{{name}}` in
//! a url is one of the `templates`; each `gen` entry makes a key per point
//! of its `dimensions` (ranges or lists), its `key`, `url`, `offset` and
//! `length` rendered with the dimension values (jinja2's `{{ expr }}`,
//! integer arithmetic only here).
//!
//! Targets are local paths, `file://` URLs, `s3://` URLs (the S3
//! driver, its endpoint and credentials as for a dataset), `gs://` and
//! `az://` URLs (the Google Cloud Storage and Azure drivers, likewise) and
//! plain `http(s)://` URLs (the read-only HTTP driver); a relative
//! target is resolved against the reference file's directory (or prefix).
//! Each target's container (the local file system, an S3 bucket) is one
//! [`ReadableStore`] opened on first use: [`open_container`] is where a
//! driver for another URL scheme plugs in.
//!
//! Everything here is input: the reference file's size is checked
//! ([`crate::limits::Limits::max_reference_bytes`]) before it is read, the
//! number of keys (`gen` ones before they are made) against
//! `max_reference_keys`, each range's length against `max_object_bytes`
//! before a buffer is allocated, and a range outside its target is an
//! error naming the reference file, the key and the target.

use super::{ByteRange, ConditionalStore, ListableStore, MapError, MapResult, ReadableStore, Store, StoreKey};
use super::{StoreLock, Version, WritableStore};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// One object of the reference set.
#[derive(Debug)]
enum Ref {
    Inline(Box<[u8]>),
    /// The whole target.
    Whole {
        target: u32,
    },
    /// `len` bytes of the target from `offset`.
    Range {
        target: u32,
        offset: u64,
        len: u64,
    },
}

/// Where targets of a kind live.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Container {
    /// The local file system (keys are absolute paths without the `/`).
    Local,
    /// A location of a driver, the target's key below it.
    Driver(super::Driver, String),
    /// A URL scheme no driver of this build reads: an error when read.
    NoDriver(String),
}

/// A resolved target: its container and key, and its URL for messages.
#[derive(Debug)]
struct Target {
    container: u32,
    key: StoreKey,
    url: String,
}

/// A container's store, opened on first use (or why it could not be).
type Opened = OnceLock<Result<Arc<dyn ReadableStore>, String>>;

/// A kerchunk reference set opened as a read-only store.
pub struct RefStore {
    location: String,
    refs: BTreeMap<String, Ref>,
    targets: Vec<Target>,
    containers: Vec<(Container, Opened)>,
    remote: bool,
}

impl std::fmt::Debug for RefStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefStore").field("location", &self.location).field("keys", &self.refs.len()).finish()
    }
}

/// Whether `path` (a plain path) names a kerchunk JSON reference file: a
/// regular file named `*.json` whose text starts with `{`.
pub fn looks_like_refs(path: &Path) -> bool {
    use std::io::Read;
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if !json || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 256];
    let Ok(n) = open_regular(path).and_then(|mut f| f.read(&mut head)) else { return false };
    head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// Opens a regular file for reading without blocking on a FIFO.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other(format!("{} is not a regular file", path.display())));
    }
    Ok(f)
}

/// The local file system as a read-only store: key `a/b` is the file `/a/b`.
struct LocalFiles;

impl LocalFiles {
    fn open(key: &StoreKey) -> MapResult<Option<std::fs::File>> {
        let path = format!("/{}", key.as_str());
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
            Ok(m) if !m.is_file() => return Err(MapError::NotRegular(path)),
            Ok(_) => {}
        }
        match open_regular(Path::new(&path)) {
            Ok(f) => Ok(Some(f)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(MapError::PermissionDenied(path)),
            Err(e) => Err(e.into()),
        }
    }
}

impl ReadableStore for LocalFiles {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        self.get_max(key, crate::limits::limits().max_object_bytes)
    }

    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        let Some(len) = self.size(key)? else { return Ok(None) };
        crate::limits::check(len, max).map_err(|why| super::too_large(key, why))?;
        self.get_range(key, 0, len)
    }

    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        use std::os::unix::fs::FileExt;
        let Some(f) = LocalFiles::open(key)? else { return Ok(None) };
        let len = f.metadata()?.len();
        super::checked_range(key, start, count, len)?;
        let n = crate::limits::check(count, crate::limits::limits().max_object_bytes)
            .map_err(|why| super::too_large(key, why))?;
        let mut buf = Vec::new();
        crate::limits::try_reserve(&mut buf, n).map_err(|why| super::too_large(key, why))?;
        buf.resize(n, 0);
        f.read_exact_at(&mut buf, start)?;
        Ok(Some(buf))
    }

    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        Ok(LocalFiles::open(key)?.map(|f| f.metadata().map(|m| m.len())).transpose()?)
    }
}

/// The store that serves a container's targets: where a driver for
/// another URL scheme (HTTP, GCS, Azure) plugs in.
fn open_container(c: &Container) -> MapResult<Arc<dyn ReadableStore>> {
    Ok(match c {
        Container::Local => Arc::new(LocalFiles),
        Container::Driver(super::Driver::Cloud(service), location) => {
            Arc::new(super::object::CloudStore::open_unverified(*service, location, false)?)
        }
        Container::NoDriver(scheme) => {
            return Err(MapError::InvalidLocation(format!("no driver in this build reads {scheme}:// URLs")))
        }
        Container::Driver(d, location) => {
            let store: Arc<dyn Store> = d.open_with(location, false, super::Markers(&[]))?;
            Arc::new(StoreReader(store))
        }
    })
}

/// A [`Store`] used for reading only.
struct StoreReader(Arc<dyn Store>);

impl ReadableStore for StoreReader {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        self.0.get(key)
    }
    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        self.0.get_range(key, start, count)
    }
    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        self.0.get_max(key, max)
    }
    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        self.0.size(key)
    }
}

/// A location split into its container and the key below it.
#[derive(Debug, Clone)]
struct Place {
    container: Container,
    /// The key's segments.
    key: Vec<String>,
}

fn corrupt(location: &str, what: impl std::fmt::Display) -> MapError {
    MapError::Corrupt(format!("kerchunk reference {location}: {what}"))
}

/// `segments` of a path, `.` dropped and `..` applied; `None` when `..`
/// climbs above the top.
fn normalize<'a>(base: &[String], path: impl Iterator<Item = &'a str>) -> Option<Vec<String>> {
    let mut out = base.to_vec();
    for s in path {
        match s {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s.to_string()),
        }
    }
    Some(out)
}

/// The `aws.*` pairs of a URL's fragment, kept for the targets in the
/// same place.
fn aws_fragment(url: &str) -> String {
    let fragment = url.split_once('#').map_or("", |(_, f)| f);
    let pairs: Vec<&str> = fragment.split('&').filter(|p| p.starts_with("aws.")).collect();
    match pairs.is_empty() {
        true => String::new(),
        false => format!("#{}", pairs.join("&")),
    }
}

/// Whether a URL's fragment names the S3 driver: `s3` in its `mode` list,
/// or a value-less `s3` (netCDF-C's spellings).
fn names_s3(url: &str) -> bool {
    let fragment = url.split_once('#').map_or("", |(_, f)| f);
    fragment.split('&').any(|pair| match pair.split_once('=') {
        Some((k, v)) => {
            k.trim().eq_ignore_ascii_case("mode") && v.split(',').any(|m| m.trim().eq_ignore_ascii_case("s3"))
        }
        None => pair.trim().eq_ignore_ascii_case("s3"),
    })
}

/// Where `url` is. `base` is the reference file's directory, for a
/// relative path; `fragment` the `aws.*` pairs of the reference URL.
fn place(url: &str, base: Option<&Place>, fragment: &str) -> Result<Place, String> {
    let url = url.trim();
    if url.is_empty() {
        return Err("an empty url".into());
    }
    let scheme_end = url.find("://").filter(|&i| i > 0 && url[..i].chars().all(|c| c.is_ascii_alphanumeric()));
    let Some(i) = scheme_end else {
        // a path
        let (container, start) = match base {
            _ if url.starts_with('/') => (Container::Local, Vec::new()),
            Some(b) => (b.container.clone(), b.key.clone()),
            None => {
                let cwd = std::env::current_dir().map_err(|e| format!("{url}: {e}"))?;
                let cwd = cwd.to_str().ok_or_else(|| format!("{url}: the current directory is not UTF-8"))?;
                (Container::Local, cwd.split('/').filter(|s| !s.is_empty()).map(String::from).collect())
            }
        };
        let key = normalize(&start, url.split('#').next().unwrap_or("").split('/'))
            .ok_or_else(|| format!("{url} climbs above its root"))?;
        return Ok(Place { container, key });
    };
    let scheme = url[..i].to_ascii_lowercase();
    let rest = url[i + 3..].split('#').next().unwrap_or("");
    let rest = rest.split('?').next().unwrap_or("");
    match scheme.as_str() {
        "file" => {
            let path = rest.strip_prefix("localhost").unwrap_or(rest);
            if !path.starts_with('/') {
                return Err(format!("{url}: a file URL needs an absolute path"));
            }
            let key = normalize(&[], path.split('/')).ok_or_else(|| format!("{url} climbs above its root"))?;
            Ok(Place { container: Container::Local, key })
        }
        "s3" => {
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(format!("{url}: no bucket"));
            }
            let key = normalize(&[], key.split('/')).ok_or_else(|| format!("{url} climbs above its root"))?;
            Ok(Place { container: Container::Driver(super::Driver::S3, format!("s3://{bucket}{fragment}")), key })
        }
        "http" | "https" if names_s3(url) => {
            // an S3-compatible endpoint: http(s)://host/bucket/key#mode=...,s3
            let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
            let (bucket, key) = path.split_once('/').unwrap_or((path, ""));
            if bucket.is_empty() {
                return Err(format!("{url}: no bucket"));
            }
            let key = normalize(&[], key.split('/')).ok_or_else(|| format!("{url} climbs above its root"))?;
            let location = format!("{scheme}://{host}/{bucket}{fragment}");
            Ok(Place { container: Container::Driver(super::Driver::S3, location), key })
        }
        "gs" | "gcs" | "az" | "azure" => {
            // a bucket (container) of Google Cloud Storage (Azure), its
            // credentials from the environment as for a dataset there
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(format!("{url}: no bucket"));
            }
            let key = normalize(&[], key.split('/')).ok_or_else(|| format!("{url} climbs above its root"))?;
            let (driver, short) =
                if scheme.starts_with('g') { (super::Driver::GCS, "gs") } else { (super::Driver::AZURE, "az") };
            Ok(Place { container: Container::Driver(driver, format!("{short}://{bucket}")), key })
        }
        "http" | "https" => {
            // any web server (public objects of GCS and Azure included):
            // ranged GETs through the read-only HTTP driver
            let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
            if host.is_empty() {
                return Err(format!("{url}: no host"));
            }
            let key = normalize(&[], path.split('/')).ok_or_else(|| format!("{url} climbs above its root"))?;
            Ok(Place { container: Container::Driver(super::Driver::HTTP, format!("{scheme}://{host}")), key })
        }
        // read through the driver that serves the scheme, when one does
        other => {
            let key = normalize(&[], rest.split('/')).ok_or_else(|| format!("{url} climbs above its root"))?;
            Ok(Place { container: Container::NoDriver(other.to_string()), key })
        }
    }
}

impl RefStore {
    /// Opens the reference file at `location` (a path, a `file://` or
    /// `s3://` URL, or an S3-compatible `http(s)://...#mode=...,s3` URL).
    pub fn open(location: &str) -> MapResult<RefStore> {
        let fragment = aws_fragment(location);
        let file = place(location, None, &fragment).map_err(MapError::InvalidLocation)?;
        if file.key.is_empty() {
            return Err(MapError::InvalidLocation(location.to_string()));
        }
        let key = StoreKey::parse(&file.key.join("/"))?;
        let store = open_container(&file.container)?;
        let max = crate::limits::limits().max_reference_bytes;
        let text = match store.get_max(&key, max) {
            Ok(Some(t)) => t,
            Ok(None) => return Err(MapError::RootNotFound(location.to_string())),
            Err(MapError::TooLarge { why, .. }) => {
                return Err(MapError::TooLarge { what: format!("kerchunk reference {location}"), why })
            }
            Err(e) => return Err(e),
        };
        let base = Place { key: file.key[..file.key.len() - 1].to_vec(), ..file };
        RefStore::build(location, &text, &base, &fragment)
    }

    /// A reference set from its JSON text, relative targets resolved
    /// against `base_dir` (a directory path or URL); `location` names it
    /// in messages.
    pub fn from_json(location: &str, text: &[u8], base_dir: &str) -> MapResult<RefStore> {
        let fragment = aws_fragment(base_dir);
        let base = place(&format!("{}/", base_dir.split('#').next().unwrap_or("")), None, &fragment)
            .map_err(MapError::InvalidLocation)?;
        RefStore::build(location, text, &base, &fragment)
    }

    fn build(location: &str, text: &[u8], base: &Place, fragment: &str) -> MapResult<RefStore> {
        let mut store = RefStore {
            location: location.to_string(),
            refs: BTreeMap::new(),
            targets: Vec::new(),
            containers: Vec::new(),
            remote: false,
        };
        store.load(text, base, fragment)?;
        store.remote = store.containers.iter().any(|(c, _)| *c != Container::Local);
        Ok(store)
    }

    /// How many keys the set has.
    pub fn len(&self) -> usize {
        self.refs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }

    fn load(&mut self, text: &[u8], base: &Place, fragment: &str) -> MapResult<()> {
        let loc = self.location.clone();
        let max_keys = crate::limits::limits().max_reference_keys;
        let parsed: parse::Top = parse::Top::from_slice(text, max_keys).map_err(|e| corrupt(&loc, e))?;
        let v1 = parsed.version == Some(1);
        if let Some(v) = parsed.version.filter(|&v| v > 1) {
            return Err(corrupt(&loc, format!("version {v} of the reference format is not known")));
        }
        let templates = if v1 { parsed.templates } else { HashMap::new() };
        let entries = if v1 { parsed.refs } else { parsed.v0 };
        let mut targets: HashMap<String, u32> = HashMap::new();
        let mut containers: HashMap<Container, u32> = HashMap::new();
        let mut add = |this: &mut RefStore, key: &str, url: &str| -> MapResult<u32> {
            if let Some(&t) = targets.get(url) {
                return Ok(t);
            }
            let p = place(url, Some(base), fragment).map_err(|e| corrupt(&loc, format!("key {key}: {e}")))?;
            let c = match containers.get(&p.container) {
                Some(&c) => c,
                None => {
                    this.containers.push((p.container.clone(), OnceLock::new()));
                    let c = (this.containers.len() - 1) as u32;
                    containers.insert(p.container.clone(), c);
                    c
                }
            };
            let tkey = StoreKey::parse(&p.key.join("/"))
                .map_err(|e| corrupt(&loc, format!("key {key}: target {url}: {e}")))?;
            this.targets.push(Target { container: c, key: tkey, url: url.to_string() });
            let t = (this.targets.len() - 1) as u32;
            targets.insert(url.to_string(), t);
            Ok(t)
        };
        let mut insert = |this: &mut RefStore, key: String, raw: parse::Raw| -> MapResult<()> {
            let k = StoreKey::parse(&key).map_err(|e| corrupt(&loc, format!("key {key:?}: {e}")))?;
            if k.is_root() {
                return Err(corrupt(&loc, "an empty key"));
            }
            let r = match raw {
                parse::Raw::Text(t) => match t.strip_prefix("base64:") {
                    Some(b) => {
                        use base64::Engine;
                        let bytes = base64::engine::general_purpose::STANDARD
                            .decode(b.trim())
                            .map_err(|e| corrupt(&loc, format!("key {key}: bad base64: {e}")))?;
                        Ref::Inline(bytes.into_boxed_slice())
                    }
                    None => Ref::Inline(t.into_bytes().into_boxed_slice()),
                },
                parse::Raw::Url { url, range } => {
                    let url = match url.contains("{{") {
                        true => template::render(&url, &|n| templates.get(n).map(|s| template::Val::Str(s.clone())))
                            .map_err(|e| corrupt(&loc, format!("key {key}: url {url}: {e}")))?,
                        false => url,
                    };
                    let target = add(this, &key, &url)?;
                    match range {
                        None => Ref::Whole { target },
                        Some((offset, len)) => {
                            if offset.checked_add(len).is_none() {
                                return Err(corrupt(&loc, format!("key {key}: range {offset}+{len} overflows")));
                            }
                            Ref::Range { target, offset, len }
                        }
                    }
                }
            };
            this.refs.insert(k.as_str().to_string(), r);
            Ok(())
        };
        for (key, raw) in entries {
            insert(self, key, raw)?;
        }
        if v1 {
            let mut budget = max_keys.saturating_sub(self.refs.len() as u64);
            for (i, g) in parsed.gen.iter().enumerate() {
                let made = template::expand(g, &templates, &mut budget)
                    .map_err(|e| corrupt(&loc, format!("gen entry {i}: {e}")))?;
                for (key, raw) in made {
                    insert(self, key, raw)?;
                }
            }
        }
        Ok(())
    }

    fn container(&self, key: &StoreKey, t: &Target) -> MapResult<Arc<dyn ReadableStore>> {
        let (c, cell) = &self.containers[t.container as usize];
        cell.get_or_init(|| open_container(c).map_err(|e| e.to_string())).clone().map_err(|e| {
            let key = key.as_str();
            MapError::InvalidLocation(format!("kerchunk reference {}, key {key}, target {}: {e}", self.location, t.url))
        })
    }

    /// An error of reading `key`'s target, made to name the reference
    /// file, the key and the target.
    fn target_error(&self, key: &StoreKey, t: &Target, e: MapError) -> MapError {
        let what = format!("kerchunk reference {}, key {}, target {}", self.location, key.as_str(), t.url);
        let io = |kind, msg: String| MapError::Io(std::io::Error::new(kind, msg));
        match e {
            MapError::OutOfRange { start, count, len, .. } => io(
                std::io::ErrorKind::UnexpectedEof,
                format!("{what}: bytes {start}+{count} pass the end of the target ({len} bytes)"),
            ),
            MapError::TooLarge { why, .. } => MapError::TooLarge { what, why },
            MapError::PermissionDenied(m) => MapError::PermissionDenied(format!("{what}: {m}")),
            MapError::InvalidLocation(m) => MapError::InvalidLocation(format!("{what}: {m}")),
            other => io(std::io::ErrorKind::Other, format!("{what}: {other}")),
        }
    }

    fn missing(&self, key: &StoreKey, t: &Target) -> MapError {
        MapError::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("kerchunk reference {}, key {}: target {} does not exist", self.location, key.as_str(), t.url),
        ))
    }

    /// `count` bytes from `start` of `key`'s object (all of it: `None`).
    fn read(&self, key: &StoreKey, part: Option<(u64, u64)>, max: u64) -> MapResult<Option<Vec<u8>>> {
        let Some(r) = self.refs.get(key.as_str()) else { return Ok(None) };
        match r {
            Ref::Inline(b) => {
                let range = match part {
                    Some((start, count)) => super::checked_range(key, start, count, b.len() as u64)?,
                    None => 0..b.len(),
                };
                Ok(Some(b[range].to_vec()))
            }
            Ref::Range { target, offset, len } => {
                let t = &self.targets[*target as usize];
                let (start, count) = match part {
                    Some((start, count)) => {
                        super::checked_range(key, start, count, *len)?;
                        (offset + start, count)
                    }
                    None => (*offset, *len),
                };
                crate::limits::check(count, max)
                    .map_err(|why| self.target_error(key, t, super::too_large(key, why)))?;
                let store = self.container(key, t)?;
                match store.get_range(&t.key, start, count) {
                    Ok(Some(b)) => Ok(Some(b)),
                    Ok(None) => Err(self.missing(key, t)),
                    Err(e) => Err(self.target_error(key, t, e)),
                }
            }
            Ref::Whole { target } => {
                let t = &self.targets[*target as usize];
                let store = self.container(key, t)?;
                let got = match part {
                    Some((start, count)) => store.get_range(&t.key, start, count),
                    None => store.get_max(&t.key, max),
                };
                match got {
                    Ok(Some(b)) => Ok(Some(b)),
                    Ok(None) => Err(self.missing(key, t)),
                    Err(e) => Err(self.target_error(key, t, e)),
                }
            }
        }
    }
}

impl ReadableStore for RefStore {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        self.read(key, None, crate::limits::limits().max_object_bytes)
    }

    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        if let Some(len) = self.refs.get(key.as_str()).and_then(|r| match r {
            Ref::Inline(b) => Some(b.len() as u64),
            Ref::Range { len, .. } => Some(*len),
            Ref::Whole { .. } => None,
        }) {
            crate::limits::check(len, max).map_err(|why| super::too_large(key, why))?;
        }
        self.read(key, None, max)
    }

    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        self.read(key, Some((start, count)), crate::limits::limits().max_object_bytes)
    }

    fn get_part(&self, key: &StoreKey, range: ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
        let Some(len) = self.size(key)? else { return Ok(None) };
        let (start, count) = range.resolve(key, len)?;
        Ok(self.get_range(key, start, count)?.map(|b| (b, len)))
    }

    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        match self.refs.get(key.as_str()) {
            None => Ok(None),
            Some(Ref::Inline(b)) => Ok(Some(b.len() as u64)),
            Some(Ref::Range { len, .. }) => Ok(Some(*len)),
            Some(Ref::Whole { target }) => {
                let t = &self.targets[*target as usize];
                match self.container(key, t)?.size(&t.key) {
                    Ok(Some(n)) => Ok(Some(n)),
                    Ok(None) => Err(self.missing(key, t)),
                    Err(e) => Err(self.target_error(key, t, e)),
                }
            }
        }
    }
}

impl WritableStore for RefStore {
    fn set(&self, _: &StoreKey, _: &[u8]) -> MapResult<()> {
        Err(MapError::ReadOnly)
    }
    fn set_range(&self, _: &StoreKey, _: u64, _: &[u8]) -> MapResult<()> {
        Err(MapError::ReadOnly)
    }
    fn erase(&self, _: &StoreKey) -> MapResult<()> {
        Err(MapError::ReadOnly)
    }
    fn erase_prefix(&self, _: &StoreKey) -> MapResult<()> {
        Err(MapError::ReadOnly)
    }
}

impl ListableStore for RefStore {
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
        let p = prefix.as_str();
        if !p.is_empty() && self.refs.contains_key(p) {
            return Ok(Some(Vec::new()));
        }
        let start = if p.is_empty() { String::new() } else { format!("{p}/") };
        let mut names = Vec::new();
        let mut from = start.clone();
        while let Some((k, _)) = self.refs.range(from.clone()..).next() {
            let Some(rest) = k.strip_prefix(&start) else { break };
            match rest.split_once('/') {
                Some((name, _)) => {
                    names.push(name.to_string());
                    // past every key below `name/` ('0' follows '/')
                    from = format!("{start}{name}0");
                }
                None => {
                    names.push(rest.to_string());
                    from = format!("{k}\0");
                }
            }
        }
        names.dedup();
        Ok((!names.is_empty()).then_some(names))
    }

    fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
        let p = prefix.as_str();
        let mut out = Vec::new();
        for (k, _) in self.refs.range(p.to_string()..) {
            if !k.starts_with(p) {
                break;
            }
            let key = StoreKey::parse(k)?;
            if key.starts_with(prefix) {
                out.push(key);
            }
        }
        Ok(out)
    }
}

impl ConditionalStore for RefStore {
    fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, Version)>> {
        Ok(self.get(key)?.map(|b| (b, Version::new("0"))))
    }
    fn put_if(&self, _: &StoreKey, _: &[u8], _: Option<&Version>) -> MapResult<Version> {
        Err(MapError::ReadOnly)
    }
    fn lock(&self) -> MapResult<StoreLock<'_>> {
        Err(MapError::ReadOnly)
    }
}

impl Store for RefStore {
    fn location(&self) -> &str {
        &self.location
    }
    fn is_writable(&self) -> bool {
        false
    }
    fn io_bound(&self) -> bool {
        self.remote
    }
    fn destroy(&self) -> MapResult<()> {
        Err(MapError::ReadOnly)
    }
}

/// The reference file's JSON, parsed straight into its entries (no
/// intermediate document: memory stays near the entries' own size).
mod parse {
    use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::collections::HashMap;
    use std::fmt;

    /// One value of the key map.
    #[derive(Debug)]
    pub enum Raw {
        Text(String),
        Url { url: String, range: Option<(u64, u64)> },
    }

    /// The reference file: version 1's fields, and every other top-level
    /// entry as a version 0 reference.
    #[derive(Debug, Default)]
    pub struct Top {
        pub version: Option<u64>,
        pub templates: HashMap<String, String>,
        pub gen: Vec<serde_json::Value>,
        pub refs: Vec<(String, Raw)>,
        pub v0: Vec<(String, Raw)>,
    }

    impl Top {
        pub fn from_slice(text: &[u8], max_keys: u64) -> Result<Top, String> {
            let mut de = serde_json::Deserializer::from_slice(text);
            let top = de.deserialize_map(TopVisitor { max_keys }).map_err(|e| e.to_string())?;
            de.end().map_err(|e| e.to_string())?;
            Ok(top)
        }
    }

    struct TopVisitor {
        max_keys: u64,
    }

    impl<'de> Visitor<'de> for TopVisitor {
        type Value = Top;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object of references")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
            let mut top = Top::default();
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "version" => {
                        let v: serde_json::Value = map.next_value()?;
                        top.version = Some(v.as_u64().ok_or_else(|| de::Error::custom(format!("bad version {v}")))?);
                    }
                    "templates" => {
                        let t: HashMap<String, serde_json::Value> = map.next_value()?;
                        for (k, v) in t {
                            let s = match v {
                                serde_json::Value::String(s) => s,
                                other => other.to_string(),
                            };
                            top.templates.insert(k, s);
                        }
                    }
                    "gen" => top.gen = map.next_value()?,
                    "refs" => top.refs = map.next_value_seed(Entries { max_keys: self.max_keys })?,
                    _ => {
                        if top.v0.len() as u64 >= self.max_keys {
                            return Err(de::Error::custom(format!("more than {} keys", self.max_keys)));
                        }
                        let v = map.next_value::<RawSeed>()?;
                        top.v0.push((key, v.0));
                    }
                }
            }
            Ok(top)
        }
    }

    struct Entries {
        max_keys: u64,
    }

    impl<'de> de::DeserializeSeed<'de> for Entries {
        type Value = Vec<(String, Raw)>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<(String, Raw)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object of references")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.len() as u64 >= self.max_keys {
                    return Err(de::Error::custom(format!("more than {} keys", self.max_keys)));
                }
                let v = map.next_value::<RawSeed>()?;
                out.push((key, v.0));
            }
            Ok(out)
        }
    }

    /// A value: text, `[url]`, `[url, offset, length]`, or (tolerated)
    /// a JSON object or number, kept as its JSON text.
    struct RawSeed(Raw);

    impl<'de> serde::Deserialize<'de> for RawSeed {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(RawVisitor)
        }
    }

    struct RawVisitor;

    impl<'de> Visitor<'de> for RawVisitor {
        type Value = RawSeed;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string, [url] or [url, offset, length]")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<RawSeed, E> {
            Ok(RawSeed(Raw::Text(v.to_string())))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<RawSeed, E> {
            Ok(RawSeed(Raw::Text(v)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawSeed, E> {
            Ok(RawSeed(Raw::Text(v.to_string())))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawSeed, E> {
            Ok(RawSeed(Raw::Text(v.to_string())))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawSeed, E> {
            Ok(RawSeed(Raw::Text(serde_json::Value::from(v).to_string())))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawSeed, A::Error> {
            let v: serde_json::Map<String, serde_json::Value> =
                serde::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
            Ok(RawSeed(Raw::Text(serde_json::Value::Object(v).to_string())))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawSeed, A::Error> {
            let url: Option<String> = seq.next_element()?.ok_or_else(|| de::Error::custom("an empty reference"))?;
            let url = url.ok_or_else(|| de::Error::custom("a reference without a url"))?;
            let offset: Option<u64> = seq.next_element()?;
            let range = match offset {
                None => None,
                Some(o) => {
                    let len: u64 =
                        seq.next_element()?.ok_or_else(|| de::Error::custom("an offset without a length"))?;
                    Some((o, len))
                }
            };
            if seq.next_element::<IgnoredAny>()?.is_some() {
                return Err(de::Error::custom("a reference of more than [url, offset, length]"));
            }
            Ok(RawSeed(Raw::Url { url, range }))
        }
    }
}

/// Jinja2's `{{ expr }}` as kerchunk's templates and `gen` entries use it:
/// names, integers, strings and `+ - * // %` with parentheses.
mod template {
    use super::parse::Raw;
    use std::collections::HashMap;

    #[derive(Debug, Clone, PartialEq)]
    pub enum Val {
        Int(i64),
        Str(String),
    }

    impl std::fmt::Display for Val {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Val::Int(i) => write!(f, "{i}"),
                Val::Str(s) => f.write_str(s),
            }
        }
    }

    /// `text` with each `{{ expr }}` replaced by its value.
    pub fn render(text: &str, vars: &dyn Fn(&str) -> Option<Val>) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find("{{") {
            out.push_str(&rest[..i]);
            let after = &rest[i + 2..];
            let j = after.find("}}").ok_or_else(|| format!("unclosed {{{{ in {text:?}"))?;
            let v = Expr { s: &after.as_bytes()[..j], i: 0, vars }.all()?;
            out.push_str(&v.to_string());
            rest = &after[j + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }

    struct Expr<'a> {
        s: &'a [u8],
        i: usize,
        vars: &'a dyn Fn(&str) -> Option<Val>,
    }

    impl Expr<'_> {
        fn text(&self) -> String {
            String::from_utf8_lossy(self.s).into_owned()
        }
        fn blank(&mut self) {
            while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
                self.i += 1;
            }
        }
        fn eat(&mut self, t: &str) -> bool {
            self.blank();
            if self.s[self.i..].starts_with(t.as_bytes()) {
                self.i += t.len();
                true
            } else {
                false
            }
        }
        fn all(&mut self) -> Result<Val, String> {
            let v = self.sum(0)?;
            self.blank();
            if self.i != self.s.len() {
                return Err(format!("unsupported template expression {{{{{}}}}}", self.text()));
            }
            Ok(v)
        }
        fn sum(&mut self, depth: usize) -> Result<Val, String> {
            let mut v = self.product(depth)?;
            loop {
                if self.eat("+") {
                    let r = self.product(depth)?;
                    v = match (v, r) {
                        (Val::Int(a), Val::Int(b)) => Val::Int(a.checked_add(b).ok_or("integer overflow")?),
                        (Val::Str(a), Val::Str(b)) => Val::Str(a + &b),
                        _ => return Err(format!("cannot add a string and a number in {{{{{}}}}}", self.text())),
                    };
                } else if self.eat("-") {
                    let (a, b) = (self.int(v)?, self.product(depth).and_then(|r| self.int(r))?);
                    v = Val::Int(a.checked_sub(b).ok_or("integer overflow")?);
                } else {
                    return Ok(v);
                }
            }
        }
        fn int(&self, v: Val) -> Result<i64, String> {
            match v {
                Val::Int(i) => Ok(i),
                Val::Str(_) => Err(format!("arithmetic on a string in {{{{{}}}}}", self.text())),
            }
        }
        fn product(&mut self, depth: usize) -> Result<Val, String> {
            let mut v = self.factor(depth)?;
            loop {
                let op = if self.eat("//") {
                    '/'
                } else if self.eat("*") {
                    '*'
                } else if self.eat("%") {
                    '%'
                } else {
                    return Ok(v);
                };
                let a = self.int(v)?;
                let b = self.factor(depth).and_then(|r| self.int(r))?;
                v = Val::Int(match op {
                    '*' => a.checked_mul(b).ok_or("integer overflow")?,
                    _ if b == 0 => return Err("division by zero".into()),
                    '/' => a.div_euclid(b),
                    _ => a.rem_euclid(b),
                });
            }
        }
        fn factor(&mut self, depth: usize) -> Result<Val, String> {
            if depth > 64 {
                return Err("template expression nested too deeply".into());
            }
            self.blank();
            let start = self.i;
            match self.s.get(self.i) {
                Some(b'(') => {
                    self.i += 1;
                    let v = self.sum(depth + 1)?;
                    if !self.eat(")") {
                        return Err(format!("unbalanced parentheses in {{{{{}}}}}", self.text()));
                    }
                    Ok(v)
                }
                Some(b'-') => {
                    self.i += 1;
                    let v = self.factor(depth + 1).and_then(|r| self.int(r))?;
                    Ok(Val::Int(v.checked_neg().ok_or("integer overflow")?))
                }
                Some(q @ (b'\'' | b'"')) => {
                    let q = *q;
                    let end = self.s[start + 1..].iter().position(|&c| c == q).ok_or("unclosed string")?;
                    self.i = start + 2 + end;
                    Ok(Val::Str(String::from_utf8_lossy(&self.s[start + 1..start + 1 + end]).into_owned()))
                }
                Some(c) if c.is_ascii_digit() => {
                    while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                        self.i += 1;
                    }
                    let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                    Ok(Val::Int(t.parse().map_err(|_| format!("integer {t} out of range"))?))
                }
                Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                    while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                        self.i += 1;
                    }
                    let name = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                    (self.vars)(name).ok_or_else(|| format!("unknown template name {name}"))
                }
                _ => Err(format!("unsupported template expression {{{{{}}}}}", self.text())),
            }
        }
    }

    /// How many values Python's `range(start, stop, step)` has (`step > 0`).
    fn range_len(start: i64, stop: i64, step: i64) -> u64 {
        if stop <= start {
            return 0;
        }
        ((stop as i128 - start as i128 + step as i128 - 1) / step as i128) as u64
    }

    /// The values of one `dimensions` entry: a list, or
    /// `{"start", "stop", "step"}` as Python's `range`.
    fn dimension(name: &str, v: &serde_json::Value) -> Result<(Vec<Val>, u64), String> {
        match v {
            serde_json::Value::Array(a) => {
                let vals = a
                    .iter()
                    .map(|x| match x {
                        serde_json::Value::String(s) => Ok(Val::Str(s.clone())),
                        x => x.as_i64().map(Val::Int).ok_or_else(|| format!("dimension {name}: value {x}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let n = vals.len() as u64;
                Ok((vals, n))
            }
            serde_json::Value::Object(o) => {
                let get = |k: &str, d: Option<i64>| match o.get(k) {
                    Some(x) => x.as_i64().ok_or_else(|| format!("dimension {name}: {k} {x}")),
                    None => d.ok_or_else(|| format!("dimension {name}: no {k}")),
                };
                let (start, stop, step) = (get("start", Some(0))?, get("stop", None)?, get("step", Some(1))?);
                if step <= 0 {
                    return Err(format!("dimension {name}: step {step}"));
                }
                let n = range_len(start, stop, step);
                // the caller checked the count of keys against its budget
                let vals = (0..n as i64).map(|i| Val::Int(start + i * step)).collect();
                Ok((vals, n))
            }
            other => Err(format!("dimension {name}: {other}")),
        }
    }

    /// The keys of one `gen` entry; `budget` is how many more keys the
    /// set may have, checked before any is made.
    pub fn expand(
        gen: &serde_json::Value,
        templates: &HashMap<String, String>,
        budget: &mut u64,
    ) -> Result<Vec<(String, Raw)>, String> {
        let field = |k: &str| -> Result<Option<String>, String> {
            match gen.get(k) {
                None => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(serde_json::Value::Number(n)) => Ok(Some(n.to_string())),
                Some(other) => Err(format!("{k} is {other}")),
            }
        };
        let key = field("key")?.ok_or("no key")?;
        let url = field("url")?.ok_or("no url")?;
        let (offset, length) = (field("offset")?, field("length")?);
        if offset.is_some() != length.is_some() {
            return Err("an offset without a length, or a length without an offset".into());
        }
        let dims = gen.get("dimensions").and_then(|d| d.as_object()).ok_or("no dimensions")?;
        // the count first, so that nothing is made when it is too many
        let mut total: u64 = 1;
        for (name, v) in dims {
            let n = match v {
                serde_json::Value::Array(a) => a.len() as u64,
                serde_json::Value::Object(o) => {
                    let g = |k: &str, d: i64| o.get(k).and_then(|x| x.as_i64()).unwrap_or(d);
                    let (start, stop, step) = (g("start", 0), g("stop", 0), g("step", 1));
                    if step <= 0 {
                        return Err(format!("dimension {name}: step {step}"));
                    }
                    range_len(start, stop, step)
                }
                other => return Err(format!("dimension {name}: {other}")),
            };
            total = total.saturating_mul(n);
        }
        if total > *budget {
            return Err(format!("{total} keys exceed the limit of the reference set's keys"));
        }
        *budget -= total;
        let mut values = Vec::new();
        for (name, v) in dims {
            values.push((name.as_str(), dimension(name, v)?.0));
        }
        let mut out = Vec::with_capacity(total as usize);
        let mut idx = vec![0usize; values.len()];
        if values.iter().any(|(_, v)| v.is_empty()) {
            return Ok(out);
        }
        loop {
            let vars = |n: &str| {
                values
                    .iter()
                    .zip(&idx)
                    .find(|((name, _), _)| *name == n)
                    .map(|((_, vals), &i)| vals[i].clone())
                    .or_else(|| templates.get(n).map(|s| Val::Str(s.clone())))
            };
            let k = render(&key, &vars)?;
            let u = render(&url, &vars)?;
            let range = match (&offset, &length) {
                (Some(o), Some(l)) => {
                    let num = |t: &str, what: &str| -> Result<u64, String> {
                        let s = render(t, &vars)?;
                        s.trim().parse().map_err(|_| format!("{what} {s:?} of key {k} is not a byte count"))
                    };
                    Some((num(o, "offset")?, num(l, "length")?))
                }
                _ => None,
            };
            out.push((k, Raw::Url { url: u, range }));
            // the next point, the last dimension fastest (itertools.product)
            let mut d = idx.len();
            loop {
                if d == 0 {
                    return Ok(out);
                }
                d -= 1;
                idx[d] += 1;
                if idx[d] < values[d].1.len() {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::template::{render, Val};

    #[test]
    fn templates() {
        let vars = |n: &str| match n {
            "i" => Some(Val::Int(3)),
            "u" => Some(Val::Str("host/p".into())),
            _ => None,
        };
        assert_eq!(render("http://{{u}}_{{ i }}", &vars).unwrap(), "http://host/p_3");
        assert_eq!(render("{{(i + 1) * 1000}}", &vars).unwrap(), "4000");
        assert_eq!(render("{{i // 2}}-{{i % 2}}-{{-i}}", &vars).unwrap(), "1-1--3");
        assert!(render("{{f(c='x')}}", &vars).is_err());
        assert!(render("{{nope}}", &vars).is_err());
        assert!(render("{{i", &vars).is_err());
        assert!(render("{{i / 0}}", &vars).is_err());
        assert!(render("{{i // 0}}", &vars).is_err());
    }

    #[test]
    fn s3_fragments() {
        assert!(super::names_s3("https://h/b/r.json#mode=kerchunk,s3"));
        assert!(super::names_s3("https://h/b/r.json#kerchunk&s3"));
        assert!(!super::names_s3("https://h/b/r.json#mode=kerchunk&aws.profile=s3user"));
        assert!(!super::names_s3("https://h/b/r.json"));
    }
}
