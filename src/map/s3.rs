//! The `s3` driver: a dataset is every object under a key prefix of a
//! bucket, on Amazon S3 or any S3-compatible server, through `object_store`
//! (async, on one shared tokio runtime behind this synchronous facade).
//!
//! Locations (spec "Addressing Style"; all are normalised to path style):
//! `s3://bucket/key`, `https://bucket.s3.<region>.amazonaws.com/key`,
//! `https://s3.<region>.amazonaws.com/bucket/key`, and for other servers
//! `http(s)://host[:port]/bucket/key`. The fragment may hold
//! `aws.profile=<name>` and `aws.region=<region>` (spec Appendix E).
//!
//! Profile: `aws.profile`, else `$AWS_PROFILE`, else `default`; the profile
//! `none` sends unsigned requests. Region: `aws.region`, else the URL's,
//! else the profile's `aws_region`/`region`, else `$AWS_REGION` /
//! `$AWS_DEFAULT_REGION`, else `us-east-1`. Credentials: the profile's keys
//! in `~/.aws/credentials` / `~/.aws/config` (or `$AWS_SHARED_CREDENTIALS_FILE`
//! / `$AWS_CONFIG_FILE`), else `$AWS_ACCESS_KEY_ID` / `$AWS_SECRET_ACCESS_KEY`
//! (`$AWS_SESSION_TOKEN`), else unsigned. `s3://` URLs use `$AWS_ENDPOINT_URL`
//! when it is set. The bucket must exist.

use super::{
    ConditionalStore, ListableStore, MapError, MapResult, ReadableStore, Store, StoreKey, StoreLock, Version,
    WritableStore,
};
use futures::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as OsPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::{LazyLock, Mutex};

/// One runtime for all S3 stores; worker threads do the network I/O while
/// the calling (C or rayon) thread blocks.
/// Per process: a forked child gets its own (`crate::process`).
static RUNTIME: crate::process::PerProcess<tokio::runtime::Runtime> = crate::process::PerProcess::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .thread_name("nczarr-rs-s3")
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

/// How long an S3 request may take before it is an error (`NC_EIO`), read
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

/// A parsed S3 location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Location {
    /// `None` for Amazon S3 itself.
    pub endpoint: Option<String>,
    pub bucket: String,
    /// Key prefix of the dataset root ("" for the bucket root).
    pub prefix: String,
    pub region: Option<String>,
    pub profile: Option<String>,
}

fn bad(location: &str) -> MapError {
    MapError::InvalidLocation(location.to_string())
}

/// A virtual-host bucket name's labels: at least one, none empty.
fn valid_labels(labels: &[&str]) -> bool {
    !labels.is_empty() && labels.iter().all(|l| !l.is_empty())
}

/// Parses any of the accepted location forms.
pub fn parse_location(location: &str) -> MapResult<S3Location> {
    let (base, fragment) = location.split_once('#').unwrap_or((location, ""));
    let (mut region, mut profile) = (None, None);
    for kv in fragment.split('&') {
        match kv.split_once('=') {
            Some(("aws.region", v)) if !v.is_empty() => region = Some(v.to_string()),
            Some(("aws.profile", v)) if !v.is_empty() => profile = Some(v.to_string()),
            _ => {}
        }
    }
    let base = base.split('?').next().unwrap_or("");
    let (scheme, rest) = base.split_once("://").ok_or_else(|| bad(location))?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.trim_matches('/');
    let split_path = |p: &str| -> MapResult<(String, String)> {
        let (b, k) = p.split_once('/').unwrap_or((p, ""));
        if b.is_empty() {
            return Err(bad(location));
        }
        Ok((b.to_string(), k.trim_matches('/').to_string()))
    };
    let scheme = scheme.to_ascii_lowercase();
    let mut url_region = None;
    let (endpoint, bucket, prefix) = if scheme == "s3" {
        // s3://bucket/key
        if host.is_empty() {
            return Err(bad(location));
        }
        let endpoint = std::env::var("AWS_ENDPOINT_URL").ok().filter(|e| !e.is_empty());
        (endpoint, host.to_string(), path.to_string())
    } else if scheme == "http" || scheme == "https" {
        let h = host.to_ascii_lowercase();
        if let Some(before) = h.strip_suffix(".amazonaws.com") {
            // bucket.s3.<region> | bucket.s3 | s3.<region> | s3
            let labels: Vec<&str> = before.split('.').collect();
            match labels.as_slice() {
                ["s3"] => {
                    let (b, k) = split_path(path)?;
                    (None, b, k)
                }
                ["s3", r] => {
                    url_region = Some(r.to_string());
                    let (b, k) = split_path(path)?;
                    (None, b, k)
                }
                // a bucket's DNS labels are never empty (`.s3`, `a..s3`)
                [b @ .., "s3"] if valid_labels(b) => (None, b.join("."), path.to_string()),
                [b @ .., "s3", r] if valid_labels(b) => {
                    url_region = Some(r.to_string());
                    (None, b.join("."), path.to_string())
                }
                _ => return Err(bad(location)),
            }
        } else {
            let (b, k) = split_path(path)?;
            (Some(format!("{scheme}://{host}")), b, k)
        }
    } else {
        return Err(bad(location));
    };
    Ok(S3Location { endpoint, bucket, prefix, region: region.or(url_region), profile })
}

/// The `[section]` key/values of an AWS INI file (`profile x` and `x` alike).
fn ini_section(path: &std::path::Path, profile: &str) -> HashMap<String, String> {
    let Ok(text) = std::fs::read_to_string(path) else { return HashMap::new() };
    let mut out = HashMap::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') && line.ends_with(']') {
            let name = line[1..line.len() - 1].trim();
            let name = name.strip_prefix("profile ").unwrap_or(name).trim();
            inside = name == profile;
        } else if inside {
            if let Some((k, v)) = line.split_once('=') {
                out.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
    }
    out
}

fn aws_file(env: &str, name: &str) -> Option<std::path::PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(p.into());
    }
    std::env::var("HOME").ok().map(|h| std::path::Path::new(&h).join(".aws").join(name))
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

pub struct S3Store {
    store: AmazonS3,
    /// The dataset root as a key prefix ("" or "a/b").
    root: String,
    location: String,
    writable: bool,
    /// What this handle has learnt about the tree, to enforce the tree rule
    /// with few requests: keys known to have children, keys known to be objects.
    known: std::sync::Mutex<Known>,
    /// The store lock: per handle (S3 has no lock between processes; the
    /// conditional writes are what keep concurrent updates apart).
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
    /// seen here; S3's `If-None-Match` still refuses a second object under
    /// the same key.
    complete: bool,
}

/// Clients by configuration (see [`S3Store::connect`]); per process, as
/// their connections and the runtime they run on are (`crate::process`).
static CLIENTS: crate::process::PerProcess<Mutex<HashMap<String, AmazonS3>>> =
    crate::process::PerProcess::new(|| Mutex::new(HashMap::new()));
/// Configurations kept before the table starts again.
const MAX_CLIENTS: usize = 64;

impl S3Store {
    fn connect(location: &str, writable: bool) -> MapResult<Self> {
        let loc = parse_location(location)?;
        let profile =
            loc.profile.clone().or_else(|| std::env::var("AWS_PROFILE").ok()).unwrap_or_else(|| "default".into());
        let mut settings = HashMap::new();
        if profile != "none" {
            for (env, name) in [("AWS_CONFIG_FILE", "config"), ("AWS_SHARED_CREDENTIALS_FILE", "credentials")] {
                if let Some(p) = aws_file(env, name) {
                    settings.extend(ini_section(&p, &profile));
                }
            }
        }
        let region = loc
            .region
            .clone()
            .or_else(|| settings.get("aws_region").or(settings.get("region")).cloned())
            .or_else(|| std::env::var("AWS_REGION").ok())
            .or_else(|| std::env::var("AWS_DEFAULT_REGION").ok())
            .unwrap_or_else(|| "us-east-1".into());
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let key = settings.get("aws_access_key_id").cloned().or_else(|| env("AWS_ACCESS_KEY_ID"));
        let secret = settings.get("aws_secret_access_key").cloned().or_else(|| env("AWS_SECRET_ACCESS_KEY"));
        let token = settings.get("aws_session_token").cloned().or_else(|| env("AWS_SESSION_TOKEN"));
        let signed = match (profile.as_str(), key, secret) {
            ("none", _, _) | (_, None, _) | (_, _, None) => None,
            (_, Some(k), Some(s)) => Some((k, s, token)),
        };
        // One client per configuration and process: building one loads
        // the system's root certificates (30-40 ms), and a client keeps its
        // connections open for the next dataset on the same service.
        let config = format!("{:?}", (&loc.bucket, &region, &loc.endpoint, &signed));
        let clients = CLIENTS.get();
        let cached = clients.lock().unwrap_or_else(|p| p.into_inner()).get(&config).cloned();
        let store = match cached {
            Some(store) => store,
            None => {
                let store = Self::client(&loc, &region, signed)
                    .map_err(|e| MapError::InvalidLocation(format!("{location}: {e}")))?;
                let mut c = clients.lock().unwrap_or_else(|p| p.into_inner());
                if c.len() >= MAX_CLIENTS {
                    c.clear();
                }
                c.insert(config, store.clone());
                store
            }
        };
        Ok(S3Store {
            store,
            root: loc.prefix.clone(),
            location: location.to_string(),
            writable,
            known: Default::default(),
            writer: Default::default(),
        })
    }

    /// A new client for the bucket of `loc` (`signed`: access key, secret
    /// and session token; `None`: unsigned requests).
    fn client(
        loc: &S3Location,
        region: &str,
        signed: Option<(String, String, Option<String>)>,
    ) -> object_store::Result<AmazonS3> {
        let t = &*TIMEOUTS;
        let mut b = AmazonS3Builder::new()
            .with_bucket_name(&loc.bucket)
            .with_region(region)
            .with_virtual_hosted_style_request(false)
            .with_client_options(
                object_store::ClientOptions::new().with_timeout(t.request).with_connect_timeout(t.connect),
            )
            .with_retry(object_store::RetryConfig {
                max_retries: t.retries,
                retry_timeout: t.retry_window,
                ..Default::default()
            });
        if let Some(e) = &loc.endpoint {
            b = b.with_endpoint(e).with_allow_http(e.starts_with("http://"));
        }
        match signed {
            None => b = b.with_skip_signature(true),
            Some((k, s, token)) => {
                b = b.with_access_key_id(k).with_secret_access_key(s);
                if let Some(t) = token {
                    b = b.with_token(t);
                }
            }
        }
        b.build()
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
    pub fn create(location: &str, clobber: bool, markers: super::Markers<'_>) -> MapResult<Self> {
        let s = S3Store::connect(location, true)?;
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

    pub fn open(location: &str, writable: bool) -> MapResult<Self> {
        let s = S3Store::connect(location, writable)?;
        if !s.root_exists()? {
            return Err(MapError::RootNotFound(location.to_string()));
        }
        Ok(s)
    }

    /// [`S3Store::open`] without the listing that checks that anything is
    /// there (a round trip): the caller reads what it needs and asks
    /// [`Store::root_exists`] only when it finds nothing.
    pub fn open_unverified(location: &str, writable: bool) -> MapResult<Self> {
        S3Store::connect(location, writable)
    }

    /// A dataset that another handle has just created (empty), opened for
    /// writing by a handle that writes only objects that every handle
    /// agreed on: the other ranks of a parallel create
    /// (`engine::parallel`), whose metadata is collective. Treated as
    /// created by this handle (`Known::complete`), as the creating rank's
    /// is: a new chunk costs its `PUT` alone, not a listing (and a `HEAD`
    /// of its parent) first.
    pub fn open_joined(location: &str) -> MapResult<Self> {
        let s = S3Store::connect(location, true)?;
        s.known().complete = true;
        Ok(s)
    }
}

impl ReadableStore for S3Store {
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

impl S3Store {
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

impl WritableStore for S3Store {
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
        // S3 objects are immutable: read, modify, write back whole.
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

/// An object's version: its ETag (S3 compares it in `If-Match`).
fn etag_version(e_tag: Option<String>) -> Version {
    Version::new(e_tag.unwrap_or_default())
}

impl ConditionalStore for S3Store {
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
            let e_tag = r.meta.e_tag.clone();
            r.bytes().await.map(|b| Ok((b, e_tag)))
        });
        match got {
            Ok(Ok((b, e_tag))) => Ok(Some((b.to_vec(), etag_version(e_tag)))),
            Ok(Err(len)) => Err(super::too_large(key, crate::limits::TooLarge { wanted: len, limit: max })),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(os_err(e)),
        }
    }

    /// A `PUT` with `If-Match: <ETag>` (`If-None-Match: *` for a new
    /// object): S3 itself refuses it when the object changed.
    fn put_if(&self, key: &StoreKey, value: &[u8], expected: Option<&Version>) -> MapResult<Version> {
        self.check_writable()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        self.check_tree_rule(key)?;
        let mode = match expected {
            Some(v) => PutMode::Update(UpdateVersion { e_tag: Some(v.as_str().to_string()), version: None }),
            None => PutMode::Create,
        };
        let opts = PutOptions { mode, ..Default::default() };
        let put = block(self.store.put_opts(&self.path(key), PutPayload::from(value.to_vec()), opts));
        match put {
            Ok(r) => {
                self.learn_object(key)?;
                Ok(etag_version(r.e_tag))
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

impl ListableStore for S3Store {
    /// One listing; a `HEAD` only when it finds nothing below `prefix`
    /// (to tell an object there from nothing at all).
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
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

impl Store for S3Store {
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
    fn root_exists(&self) -> MapResult<bool> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_forms() {
        let l = parse_location("s3://bucket/a/b#mode=nczarr,s3&aws.region=eu-west-3").unwrap();
        assert_eq!((l.bucket.as_str(), l.prefix.as_str(), l.region.as_deref()), ("bucket", "a/b", Some("eu-west-3")));
        let l = parse_location("https://bkt.s3.us-west-2.amazonaws.com/k/x").unwrap();
        assert_eq!(
            (l.endpoint, l.bucket.as_str(), l.prefix.as_str(), l.region.as_deref()),
            (None, "bkt", "k/x", Some("us-west-2"))
        );
        let l = parse_location("https://s3.amazonaws.com/bkt/k#aws.profile=none").unwrap();
        assert_eq!((l.bucket.as_str(), l.prefix.as_str(), l.profile.as_deref()), ("bkt", "k", Some("none")));
        let l = parse_location("https://my.bucket.s3.amazonaws.com/").unwrap();
        assert_eq!((l.bucket.as_str(), l.prefix.as_str()), ("my.bucket", ""));
        let l = parse_location("http://127.0.0.1:5555/test/ds.zarr#mode=nczarr,s3").unwrap();
        assert_eq!(
            (l.endpoint.as_deref(), l.bucket.as_str(), l.prefix.as_str()),
            (Some("http://127.0.0.1:5555"), "test", "ds.zarr")
        );
        for bad in ["s3://", "http://host/", "ftp://h/b/k", "https://weird.amazonaws.com/b/k"] {
            assert!(parse_location(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn profiles_from_ini() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config");
        std::fs::write(
            &p,
            "[default]\nregion = us-east-2\n[profile work]\naws_region=eu-north-1\naws_access_key_id = AK\n",
        )
        .unwrap();
        assert_eq!(ini_section(&p, "default").get("region").map(String::as_str), Some("us-east-2"));
        let w = ini_section(&p, "work");
        assert_eq!((w["aws_region"].as_str(), w["aws_access_key_id"].as_str()), ("eu-north-1", "AK"));
        assert!(ini_section(&p, "other").is_empty());
    }
}
