//! Google Cloud Storage locations and credentials for the object-store
//! driver (`map::object`): a dataset is every object under a key prefix
//! of a bucket, through Google's JSON API.
//!
//! Locations (docs/CLOUD.md): `gs://bucket/key` (or `gcs://`),
//! `https://storage.googleapis.com/bucket/key`,
//! `https://bucket.storage.googleapis.com/key`, and for another server (an
//! emulator) `http(s)://host[:port]/bucket/key`, whose scheme and host are
//! then the API's base URL. `gs://` URLs use `$GOOGLE_BASE_URL` when it is
//! set.
//!
//! Credentials: what `object_store` reads from the environment
//! (`GOOGLE_SERVICE_ACCOUNT` or `GOOGLE_APPLICATION_CREDENTIALS`: a service
//! account or authorized-user JSON file; `GOOGLE_SERVICE_ACCOUNT_KEY`: its
//! text; `GOOGLE_BEARER_TOKEN`), else gcloud's application default
//! credentials file; with none of them, anonymous requests (public
//! buckets), never the metadata server of a machine that is not on Google
//! Cloud (a wait per request). `GOOGLE_SKIP_SIGNATURE=true` forces
//! anonymous requests.

use super::object::{client_options, env_config, retry_config, Target};
use super::{MapError, MapResult};
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::ObjectStore;
use std::sync::Arc;

/// A parsed Google Cloud Storage location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcsLocation {
    /// The API's base URL; `None` for Google's (or `$GOOGLE_BASE_URL`).
    pub endpoint: Option<String>,
    pub bucket: String,
    /// Key prefix of the dataset root ("" for the bucket root).
    pub prefix: String,
}

/// Parses any of the accepted location forms (the fragment is ignored).
pub fn parse_location(location: &str) -> MapResult<GcsLocation> {
    let bad = || MapError::InvalidLocation(location.to_string());
    let base = location.split('#').next().unwrap_or("");
    let base = base.split('?').next().unwrap_or("");
    let (scheme, rest) = base.split_once("://").ok_or_else(bad)?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.trim_matches('/');
    let scheme = scheme.to_ascii_lowercase();
    let host_lc = host.to_ascii_lowercase();
    let (endpoint, bucket, prefix) = match scheme.as_str() {
        "gs" | "gcs" => (None, host.to_string(), path.to_string()),
        "http" | "https" => match host_lc.strip_suffix(".storage.googleapis.com") {
            Some(b) => (None, b.to_string(), path.to_string()),
            None => {
                let (b, k) = path.split_once('/').unwrap_or((path, ""));
                let endpoint = (host_lc != "storage.googleapis.com").then(|| format!("{scheme}://{host}"));
                (endpoint, b.to_string(), k.trim_matches('/').to_string())
            }
        },
        _ => return Err(bad()),
    };
    if bucket.is_empty() || host.is_empty() {
        return Err(bad());
    }
    Ok(GcsLocation { endpoint, bucket, prefix })
}

/// Whether any credential source is there (else requests are anonymous).
fn has_credentials() -> bool {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    let named = [
        "GOOGLE_SERVICE_ACCOUNT",
        "GOOGLE_SERVICE_ACCOUNT_PATH",
        "GOOGLE_SERVICE_ACCOUNT_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_BEARER_TOKEN",
        "SERVICE_ACCOUNT",
    ];
    named.iter().any(|k| set(k))
        || std::env::var_os("HOME").is_some_and(|h| {
            std::path::Path::new(&h).join(".config/gcloud/application_default_credentials.json").is_file()
        })
}

pub(crate) fn target(location: &str) -> MapResult<Target<'static>> {
    let loc = parse_location(location)?;
    let anonymous = !has_credentials();
    let config = format!("{:?}", (&loc.bucket, &loc.endpoint, anonymous, env_config("GOOGLE_")));
    let root = loc.prefix.clone();
    Ok(Target {
        config,
        root,
        build: Box::new(move || {
            let base = loc.endpoint.clone().or_else(|| std::env::var("GOOGLE_BASE_URL").ok());
            let mut b = GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&loc.bucket)
                .with_client_options(client_options(base.as_deref()))
                .with_retry(retry_config());
            if let Some(e) = &loc.endpoint {
                b = b.with_base_url(e);
            }
            if anonymous {
                // no token: `object_store` 0.14 asks the credential
                // provider for uploads even when told to skip signing, and
                // the default one is the metadata server
                let none = object_store::gcp::GcpCredential { bearer: String::new() };
                b = b
                    .with_skip_signature(true)
                    .with_credentials(Arc::new(object_store::StaticCredentialProvider::new(none)));
            }
            Ok(Arc::new(b.build()?) as Arc<dyn ObjectStore>)
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_forms() {
        let l = parse_location("gs://bkt/a/b#mode=zarr,gs").unwrap();
        assert_eq!((l.endpoint, l.bucket.as_str(), l.prefix.as_str()), (None, "bkt", "a/b"));
        let l = parse_location("https://storage.googleapis.com/bkt/k/x.zarr#mode=zarr,gs3").unwrap();
        assert_eq!((l.endpoint, l.bucket.as_str(), l.prefix.as_str()), (None, "bkt", "k/x.zarr"));
        let l = parse_location("https://bkt.storage.googleapis.com/k").unwrap();
        assert_eq!((l.bucket.as_str(), l.prefix.as_str()), ("bkt", "k"));
        let l = parse_location("http://127.0.0.1:4443/b/ds#mode=zarr,gs").unwrap();
        assert_eq!(
            (l.endpoint.as_deref(), l.bucket.as_str(), l.prefix.as_str()),
            (Some("http://127.0.0.1:4443"), "b", "ds")
        );
        for bad in ["gs://", "gs:///k", "https://storage.googleapis.com/", "ftp://h/b/k", "nothing"] {
            assert!(parse_location(bad).is_err(), "{bad}");
        }
    }
}
