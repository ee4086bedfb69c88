//! The object-store driver: a dataset is every object under a key prefix
//! of a bucket or container, on S3 (`map::s3`), Google Cloud Storage
//! (`map::gcs`), Azure Blob Storage (`map::azure`) or a plain web server
//! (`map::http`, read-only), through `object_store` (async, on one shared
//! tokio runtime behind this synchronous facade). The services differ in
//! how a location names the bucket, the endpoint and the credentials (each
//! one's module) and in what they can do ([`Service`]); the requests, the
//! retries, the timeouts, the tree rule and the conditional writes are
//! this file's, the same for all.

use super::{
    ConditionalStore, ListableStore, MapError, MapResult, ReadableStore, Store, StoreKey, StoreLock, Version,
    WritableStore,
};
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as OsPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, LazyLock, Mutex};

/// One runtime for all object stores; worker threads do the network I/O while
/// the calling (C or rayon) thread blocks.
/// Per process: a forked child gets its own (`crate::process`).
static RUNTIME: crate::process::PerProcess<tokio::runtime::Runtime> = crate::process::PerProcess::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .thread_name("nczarr-rs-io")
        .enable_all()
        .build()
        .expect("a tokio runtime can be built")
});

fn block<F: Future>(f: F) -> F::Output {
    RUNTIME.get().block_on(f)
}

/// A listing. object_store retries a request that fails, and a GET whose
/// body is cut, but not a listing whose body is cut (a reset connection, a
/// short body): that is retried here, with the same budget (retries within
/// the window) and a doubling backoff (tests/s3_faults.rs).
fn list_retrying<T, Fut: Future<Output = object_store::Result<T>>>(
    mut request: impl FnMut() -> Fut,
) -> object_store::Result<T> {
    let t = &*TIMEOUTS;
    let start = std::time::Instant::now();
    let mut backoff = std::time::Duration::from_millis(100);
    let mut retries = 0;
    loop {
        match block(request()) {
            Err(e) if retries < t.retries && start.elapsed() < t.retry_window && is_cut_listing(&e) => {
                std::thread::sleep(backoff);
                backoff *= 2;
                retries += 1;
            }
            other => return other,
        }
    }
}

/// object_store's error for a listing whose body could not be read.
fn is_cut_listing(e: &object_store::Error) -> bool {
    matches!(e, object_store::Error::Generic { .. }) && e.to_string().contains("Error getting list response body")
}

/// How long a request to an object store may take before it is an error (`NC_EIO`), read
/// once from the environment; documented in docs/RELIABILITY.md.
struct Timeouts {
    /// One request, from connecting to the last byte of the body
    /// (`NCZARR_RS_S3_TIMEOUT`, seconds, default 30).
    request: std::time::Duration,
    /// Establishing a connection (`NCZARR_RS_S3_CONNECT_TIMEOUT`, default 5).
    connect: std::time::Duration,
    /// Retries of a failed or timed-out request (`NCZARR_RS_S3_RETRIES`,
    /// default 3), with backoff ...
    retries: usize,
    /// ... and none started later than this after the first attempt
    /// (`NCZARR_RS_S3_RETRY_WINDOW`, seconds, default 60).
    retry_window: std::time::Duration,
}

static TIMEOUTS: LazyLock<Timeouts> = LazyLock::new(|| {
    let num = |name: &str, default: u64| {
        std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(default)
    };
    let secs = |name: &str, default: u64| std::time::Duration::from_secs(num(name, default).max(1));
    Timeouts {
        request: secs("NCZARR_RS_S3_TIMEOUT", 30),
        connect: secs("NCZARR_RS_S3_CONNECT_TIMEOUT", 5),
        retries: num("NCZARR_RS_S3_RETRIES", 3) as usize,
        retry_window: secs("NCZARR_RS_S3_RETRY_WINDOW", 60),
    }
});

/// The services, and what each can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Service {
    S3,
    Gcs,
    Azure,
    /// A plain web server: read-only, and it cannot list.
    Http,
}

impl Service {
    fn name(self) -> &'static str {
        match self {
            Service::S3 => "S3",
            Service::Gcs => "Google Cloud Storage",
            Service::Azure => "Azure Blob Storage",
            Service::Http => "HTTP",
        }
    }

    fn can_write(self) -> bool {
        self != Service::Http
    }

    fn can_list(self) -> bool {
        self != Service::Http
    }
}

/// What a service's module makes of a location: the dataset's root in the
/// bucket, and a client for the bucket (built only when no client of the
/// same `config` is cached).
pub(crate) struct Target<'a> {
    /// Everything the client depends on (endpoint, bucket, credentials);
    /// clients are shared by it. Never shown.
    pub config: String,
    /// Key prefix of the dataset root ("" for the bucket root).
    pub root: String,
    pub build: Box<dyn FnOnce() -> object_store::Result<Arc<dyn ObjectStore>> + 'a>,
}

/// The client options every service's client is built with: the request
/// and connect timeouts, and plain `http://` allowed when the endpoint is
/// one (local servers, emulators).
pub(crate) fn client_options(endpoint: Option<&str>) -> object_store::ClientOptions {
    let t = &*TIMEOUTS;
    object_store::ClientOptions::new()
        .with_timeout(t.request)
        .with_connect_timeout(t.connect)
        .with_allow_http(endpoint.is_some_and(|e| e.to_ascii_lowercase().starts_with("http://")))
}

/// The retry budget every service's client is built with.
pub(crate) fn retry_config() -> object_store::RetryConfig {
    let t = &*TIMEOUTS;
    object_store::RetryConfig { max_retries: t.retries, retry_timeout: t.retry_window, ..Default::default() }
}

/// The values of the environment variables whose names start with
/// `prefix` (what `object_store`'s `from_env` builders read), for
/// [`Target::config`].
pub(crate) fn env_config(prefix: &str) -> String {
    let mut vars: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with(prefix)).collect();
    vars.sort();
    format!("{vars:?}")
}

fn os_err(e: object_store::Error) -> MapError {
    match e {
        object_store::Error::NotFound { path, .. } => MapError::RootNotFound(path),
        object_store::Error::PermissionDenied { path, .. } | object_store::Error::Unauthenticated { path, .. } => {
            MapError::PermissionDenied(path)
        }
        other => MapError::Io(std::io::Error::other(other.to_string())),
    }
}

fn is_not_found(e: &object_store::Error) -> bool {
    matches!(e, object_store::Error::NotFound { .. })
}

pub struct CloudStore {
    store: Arc<dyn ObjectStore>,
    service: Service,
    /// The dataset root as a key prefix ("" or "a/b").
    root: String,
    location: String,
    writable: bool,
    /// What this handle has learnt about the tree, to enforce the tree rule
    /// with few requests: keys known to have children, keys known to be objects.
    known: std::sync::Mutex<Known>,
    /// The store lock: per handle (an object store has no lock between
    /// processes; the conditional writes are what keep concurrent updates
    /// apart).
    writer: std::sync::Mutex<()>,
}

#[derive(Default)]
struct Known {
    dirs: std::collections::HashSet<StoreKey>,
    objects: std::collections::HashSet<StoreKey>,
    /// This handle created the dataset (an empty prefix): every object
    /// below the root is in `objects`, so the tree rule needs no request.
    /// `dirs` may still hold prefixes whose objects were erased (never
    /// fewer than the real ones); a key found there is checked by listing.
    /// What another writer adds to a dataset this handle is creating is not
    /// seen here; the service's create-only `PUT` still refuses a second
    /// object under the same key.
    complete: bool,
}

/// Clients by configuration (see [`CloudStore::connect`]); per process, as
/// their connections and the runtime they run on are (`crate::process`).
static CLIENTS: crate::process::PerProcess<Mutex<HashMap<(Service, String), Client>>> =
    crate::process::PerProcess::new(|| Mutex::new(HashMap::new()));
type Client = Arc<dyn ObjectStore>;
/// Configurations kept before the table starts again.
const MAX_CLIENTS: usize = 64;

impl CloudStore {
    fn connect(service: Service, location: &str, writable: bool) -> MapResult<Self> {
        let target = match service {
            Service::S3 => super::s3::target(location)?,
            Service::Gcs => super::gcs::target(location)?,
            Service::Azure => super::azure::target(location)?,
            Service::Http => super::http::target(location)?,
        };
        if writable && !service.can_write() {
            return Err(MapError::ReadOnly);
        }
        // One client per configuration and process: building one loads
        // the system's root certificates (30-40 ms), and a client keeps its
        // connections open for the next dataset on the same service.
        let config = (service, target.config);
        let clients = CLIENTS.get();
        let cached = clients.lock().unwrap_or_else(|p| p.into_inner()).get(&config).cloned();
        let store = match cached {
            Some(store) => store,
            None => {
                let store = (target.build)()
                    .map_err(|e| MapError::InvalidLocation(format!("{location}: {}: {e}", service.name())))?;
                let mut c = clients.lock().unwrap_or_else(|p| p.into_inner());
                if c.len() >= MAX_CLIENTS {
                    c.clear();
                }
                c.insert(config, store.clone());
                store
            }
        };
        Ok(CloudStore {
            store,
            service,
            root: target.root,
            location: location.to_string(),
            writable,
            known: Default::default(),
            writer: Default::default(),
        })
    }

    /// The error for a listing on a service that cannot list.
    fn cannot_list(&self) -> MapError {
        MapError::Io(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!(
                "{}: a web server cannot list keys; the dataset needs consolidated metadata, or metadata naming its children",
                self.location
            ),
        ))
    }

    fn path(&self, key: &StoreKey) -> OsPath {
        match (self.root.is_empty(), key.is_root()) {
            (true, _) => OsPath::from(key.as_str()),
            (false, true) => OsPath::from(self.root.as_str()),
            (false, false) => OsPath::from(format!("{}/{}", self.root, key.as_str())),
        }
    }

    /// Keys (relative to the root) of every object at or below `prefix`.
    fn keys_below(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
        if !self.service.can_list() {
            return Err(self.cannot_list());
        }
        let p = self.path(prefix);
        let root_len = if self.root.is_empty() { 0 } else { self.root.len() + 1 };
        let metas: Vec<object_store::ObjectMeta> =
            list_retrying(|| self.store.list(if p.as_ref().is_empty() { None } else { Some(&p) }).try_collect())
                .map_err(os_err)?;
        let mut keys = Vec::new();
        for m in metas {
            let full = m.location.as_ref();
            if let Some(rel) = full.get(root_len..) {
                if let Ok(k) = StoreKey::parse(rel) {
                    keys.push(k);
                }
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// A new dataset at `location`; with `clobber`, objects there are
    /// deleted if one of the `markers` is among them at the top.
    pub fn create(service: Service, location: &str, clobber: bool, markers: super::Markers<'_>) -> MapResult<Self> {
        let s = CloudStore::connect(service, location, true)?;
        let existing = s.keys_below(&StoreKey::root())?;
        if !existing.is_empty() {
            if !clobber {
                return Err(MapError::AlreadyExists(location.to_string()));
            }
            let marked = existing.iter().any(|k| k.segments().count() == 1 && markers.contains(k.name().as_bytes()));
            if !marked {
                return Err(MapError::NotAStore(location.to_string()));
            }
            s.erase_prefix(&StoreKey::root())?;
        }
        s.known().complete = true;
        Ok(s)
    }

    pub fn open(service: Service, location: &str, writable: bool) -> MapResult<Self> {
        let s = CloudStore::connect(service, location, writable)?;
        if !s.root_exists()? {
            return Err(MapError::RootNotFound(location.to_string()));
        }
        Ok(s)
    }

    /// [`CloudStore::open`] without the listing that checks that anything is
    /// there (a round trip): the caller reads what it needs and asks
    /// [`Store::root_exists`] only when it finds nothing.
    pub fn open_unverified(service: Service, location: &str, writable: bool) -> MapResult<Self> {
        CloudStore::connect(service, location, writable)
    }

    /// A dataset that another handle has just created (empty), opened for
    /// writing by a handle that writes only objects that every handle
    /// agreed on: the other ranks of a parallel create
    /// (`engine::parallel`), whose metadata is collective. Treated as
    /// created by this handle (`Known::complete`), as the creating rank's
    /// is: a new chunk costs its `PUT` alone, not a listing (and a `HEAD`
    /// of its parent) first.
    pub fn open_joined(service: Service, location: &str) -> MapResult<Self> {
        let s = CloudStore::connect(service, location, true)?;
        s.known().complete = true;
        Ok(s)
    }
}

impl ReadableStore for CloudStore {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        self.get_max(key, crate::limits::limits().max_object_bytes)
    }

    /// The object's length (from the response headers) is checked before
    /// its body is read.
    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        if key.is_root() {
            return Ok(None);
        }
        let p = self.path(key);
        let got = block(async {
            let r = self.store.get(&p).await?;
            if r.meta.size > max {
                return Ok(Err(r.meta.size));
            }
            r.bytes().await.map(Ok)
        });
        match got {
            Ok(Ok(b)) => Ok(Some(b.to_vec())),
            Ok(Err(len)) => Err(super::too_large(key, crate::limits::TooLarge { wanted: len, limit: max })),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(os_err(e)),
        }
    }

    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        Ok(self.get_part(key, super::ByteRange::At { start, count })?.map(|(b, _)| b))
    }

    /// One ranged `GET` (its response tells the object's length); a
    /// `HEAD` only when it fails, to tell a range outside the object.
    fn get_part(&self, key: &StoreKey, range: super::ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
        use object_store::{GetOptions, GetRange};
        if key.is_root() {
            return Ok(None);
        }
        let (want, get) = match range {
            super::ByteRange::At { count: 0, .. } | super::ByteRange::Last(0) => {
                // an empty range is no request: the length alone
                let Some(len) = self.size(key)? else { return Ok(None) };
                range.resolve(key, len)?;
                return Ok(Some((Vec::new(), len)));
            }
            super::ByteRange::At { start, count } => {
                let end = start.checked_add(count).ok_or(MapError::OutOfRange {
                    key: key.to_string(),
                    start,
                    count,
                    len: u64::MAX,
                })?;
                (count, GetRange::Bounded(start..end))
            }
            super::ByteRange::Last(n) => (n, GetRange::Suffix(n)),
        };
        let p = self.path(key);
        let opts = GetOptions { range: Some(get), ..Default::default() };
        let got = block(async {
            let r = self.store.get_opts(&p, opts).await?;
            let len = r.meta.size;
            r.bytes().await.map(|b| (b, len))
        });
        match got {
            Ok((b, len)) if b.len() as u64 == want => Ok(Some((b.to_vec(), len))),
            Err(e) if is_not_found(&e) => Ok(None),
            // short, or refused (a range past the end is a 416): whether
            // the range is outside the object, the object's length tells
            other => {
                let Some(len) = self.size(key)? else { return Ok(None) };
                range.resolve(key, len)?;
                match other {
                    Ok(_) => Err(MapError::Corrupt(format!("{key}: a ranged read returned the wrong length"))),
                    Err(e) => Err(os_err(e)),
                }
            }
        }
    }

    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        if key.is_root() {
            return Ok(None);
        }
        match block(self.store.head(&self.path(key))) {
            Ok(m) => Ok(Some(m.size)),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(os_err(e)),
        }
    }
}

impl CloudStore {
    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The proper prefixes of `key` ("a", "a/b" for "a/b/c").
    fn parents(key: &StoreKey) -> MapResult<Vec<StoreKey>> {
        let segs: Vec<&str> = key.segments().collect();
        let mut out = Vec::new();
        let mut prefix = StoreKey::root();
        for seg in &segs[..segs.len().saturating_sub(1)] {
            prefix = prefix.child(seg)?;
            out.push(prefix.clone());
        }
        Ok(out)
    }

    /// The tree rule: no object on a proper prefix of `key`, nothing below
    /// `key`. What is already known costs no request; a new chunk costs one
    /// listing, or none in a dataset this handle created.
    fn check_tree_rule(&self, key: &StoreKey) -> MapResult<()> {
        let parents = Self::parents(key)?;
        {
            let k = self.known();
            if k.complete {
                if parents.iter().any(|p| k.objects.contains(p)) {
                    return Err(MapError::KeyConflict(key.to_string()));
                }
                if !k.dirs.contains(key) {
                    return Ok(());
                }
            }
        }
        for p in parents {
            if !self.known().dirs.contains(&p) && self.size(&p)?.is_some() {
                return Err(MapError::KeyConflict(key.to_string()));
            }
        }
        if !self.known().objects.contains(key) {
            let path = self.path(key);
            let child =
                list_retrying(|| async { self.store.list(Some(&path)).next().await.transpose() }).map_err(os_err)?;
            if child.is_some_and(|m| m.location != path) {
                return Err(MapError::KeyConflict(key.to_string()));
            }
        }
        Ok(())
    }

    fn learn_object(&self, key: &StoreKey) -> MapResult<()> {
        let parents = Self::parents(key)?;
        let mut k = self.known();
        k.dirs.extend(parents);
        k.objects.insert(key.clone());
        Ok(())
    }
}

impl WritableStore for CloudStore {
    fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
        self.check_writable()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        self.check_tree_rule(key)?;
        block(self.store.put(&self.path(key), PutPayload::from(value.to_vec()))).map_err(os_err)?;
        self.learn_object(key)
    }

    fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
        // objects are immutable: read, modify, write back whole.
        let updated = super::splice(key, self.get(key)?, offset, value)?;
        self.set(key, &updated)
    }

    fn erase(&self, key: &StoreKey) -> MapResult<()> {
        self.check_writable()?;
        if key.is_root() {
            return Ok(());
        }
        {
            // what was known may no longer hold; a dataset this handle
            // created stays fully known (its `dirs` may now be too many)
            let mut k = self.known();
            if k.complete {
                k.objects.remove(key);
            } else {
                *k = Known::default();
            }
        }
        match block(self.store.delete(&self.path(key))) {
            Ok(()) => Ok(()),
            Err(e) if is_not_found(&e) => Ok(()),
            Err(e) => Err(os_err(e)),
        }
    }

    fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
        self.check_writable()?;
        {
            let mut k = self.known();
            if k.complete {
                k.objects.retain(|o| !o.starts_with(prefix));
            } else {
                *k = Known::default();
            }
        }
        let paths: Vec<OsPath> = self.keys_below(prefix)?.iter().map(|k| self.path(k)).collect();
        block(async {
            let stream = futures::stream::iter(paths.into_iter().map(Ok)).boxed();
            self.store.delete_stream(stream).try_collect::<Vec<_>>().await
        })
        .map_err(os_err)?;
        Ok(())
    }
}

/// An object's version: its ETag (which S3 and Azure compare in
/// `If-Match`) and its version (Google's generation, which it compares in
/// `x-goog-if-generation-match`), one line each.
fn object_version(e_tag: Option<String>, version: Option<String>) -> Version {
    Version::new(format!("{}\n{}", e_tag.unwrap_or_default(), version.unwrap_or_default()))
}

/// What [`object_version`] made, for a conditional `PUT`.
fn update_version(v: &Version) -> UpdateVersion {
    let (e_tag, version) = v.as_str().split_once('\n').unwrap_or((v.as_str(), ""));
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    UpdateVersion { e_tag: some(e_tag), version: some(version) }
}

impl ConditionalStore for CloudStore {
    fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, Version)>> {
        if key.is_root() {
            return Ok(None);
        }
        let max = crate::limits::limits().max_object_bytes;
        let p = self.path(key);
        let got = block(async {
            let r = self.store.get(&p).await?;
            if r.meta.size > max {
                return Ok(Err(r.meta.size));
            }
            let version = object_version(r.meta.e_tag.clone(), r.meta.version.clone());
            r.bytes().await.map(|b| Ok((b, version)))
        });
        match got {
            Ok(Ok((b, version))) => Ok(Some((b.to_vec(), version))),
            Ok(Err(len)) => Err(super::too_large(key, crate::limits::TooLarge { wanted: len, limit: max })),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(os_err(e)),
        }
    }

    /// A `PUT` with `If-Match: <ETag>` (`If-None-Match: *` for a new
    /// object; on Google Cloud Storage the generation, `0` for a new
    /// object): the service itself refuses it when the object changed.
    fn put_if(&self, key: &StoreKey, value: &[u8], expected: Option<&Version>) -> MapResult<Version> {
        self.check_writable()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        self.check_tree_rule(key)?;
        let mode = match expected {
            Some(v) => PutMode::Update(update_version(v)),
            None => PutMode::Create,
        };
        let opts = PutOptions { mode, ..Default::default() };
        let put = block(self.store.put_opts(&self.path(key), PutPayload::from(value.to_vec()), opts));
        match put {
            Ok(r) => {
                self.learn_object(key)?;
                Ok(object_version(r.e_tag, r.version))
            }
            Err(
                object_store::Error::Precondition { .. }
                | object_store::Error::AlreadyExists { .. }
                | object_store::Error::NotFound { .. },
            ) => Err(MapError::Conflict(key.to_string())),
            Err(e) => Err(os_err(e)),
        }
    }

    fn lock(&self) -> MapResult<StoreLock<'_>> {
        self.check_writable()?;
        Ok(StoreLock::new(self.writer.lock().unwrap_or_else(|p| p.into_inner())))
    }
}

impl ListableStore for CloudStore {
    /// One listing; a `HEAD` only when it finds nothing below `prefix`
    /// (to tell an object there from nothing at all).
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
        if !self.service.can_list() {
            return Err(self.cannot_list());
        }
        let p = self.path(prefix);
        let listing =
            list_retrying(|| self.store.list_with_delimiter(if p.as_ref().is_empty() { None } else { Some(&p) }))
                .map_err(os_err)?;
        let base = p.as_ref().len() + usize::from(!p.as_ref().is_empty());
        let mut names = BTreeSet::new();
        for cp in &listing.common_prefixes {
            if let Some(n) = cp.as_ref().get(base..) {
                names.insert(n.trim_end_matches('/').to_string());
            }
        }
        for o in &listing.objects {
            if let Some(n) = o.location.as_ref().get(base..) {
                names.insert(n.to_string());
            }
        }
        names.retain(|n| !n.is_empty() && StoreKey::parse(n).is_ok());
        if names.is_empty() && !prefix.is_root() {
            return Ok(self.size(prefix)?.map(|_| Vec::new()));
        }
        Ok(Some(names.into_iter().collect()))
    }

    fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
        let mut keys: Vec<StoreKey> = self.keys_below(prefix)?.into_iter().filter(|k| k.is_below(prefix)).collect();
        if self.size(prefix)?.is_some() {
            keys.insert(0, prefix.clone());
        }
        Ok(keys)
    }
}

impl Store for CloudStore {
    fn location(&self) -> &str {
        &self.location
    }

    fn is_writable(&self) -> bool {
        self.writable
    }

    fn io_bound(&self) -> bool {
        true
    }

    /// One listing of at most one key below the root.
    /// A web server cannot tell: `false` (the caller found nothing it
    /// needed there).
    fn root_exists(&self) -> MapResult<bool> {
        if !self.service.can_list() {
            return Ok(false);
        }
        let root = if self.root.is_empty() { None } else { Some(OsPath::from(self.root.as_str())) };
        let any =
            list_retrying(|| async { self.store.list(root.as_ref()).next().await.transpose() }).map_err(os_err)?;
        Ok(any.is_some())
    }

    fn destroy(&self) -> MapResult<()> {
        self.check_writable()?;
        self.erase_prefix(&StoreKey::root())
    }
}
