//! S3 locations and credentials for the object-store driver
//! (`map::object`): a dataset is every object under a key prefix of a
//! bucket, on Amazon S3 or any S3-compatible server.
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
use super::object::{client_options, retry_config, Target};
use super::{MapError, MapResult};
use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;
use std::collections::HashMap;
use std::sync::Arc;

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

/// The bucket, root and client of an S3 location, credentials and region
/// resolved as the module's documentation says.
pub(crate) fn target(location: &str) -> MapResult<Target<'static>> {
    let loc = parse_location(location)?;
    let profile = loc.profile.clone().or_else(|| std::env::var("AWS_PROFILE").ok()).unwrap_or_else(|| "default".into());
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
    let config = format!("{:?}", (&loc.bucket, &region, &loc.endpoint, &signed));
    let root = loc.prefix.clone();
    Ok(Target { config, root, build: Box::new(move || client(&loc, &region, signed)) })
}

/// A new client for the bucket of `loc` (`signed`: access key, secret
/// and session token; `None`: unsigned requests).
fn client(
    loc: &S3Location,
    region: &str,
    signed: Option<(String, String, Option<String>)>,
) -> object_store::Result<Arc<dyn ObjectStore>> {
    let mut b = AmazonS3Builder::new()
        .with_bucket_name(&loc.bucket)
        .with_region(region)
        .with_virtual_hosted_style_request(false)
        .with_client_options(client_options(loc.endpoint.as_deref()))
        .with_retry(retry_config());
    if let Some(e) = &loc.endpoint {
        b = b.with_endpoint(e);
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
    Ok(Arc::new(b.build()?))
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
