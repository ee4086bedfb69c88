//! Plain HTTP(S) locations for the object-store driver (`map::object`):
//! a dataset is the files below a URL on any web server that answers
//! `GET` (with `Range`) and `HEAD`. Read-only; a web server cannot list,
//! so a dataset is read through its consolidated metadata or metadata
//! that names its children (NCZarr's).
//!
//! Location: `http(s)://host[:port]/path` (no query, no fragment; a
//! path's `%XX` escapes are decoded).

use super::object::{client_options, retry_config, Target};
use super::{MapError, MapResult};
use object_store::http::HttpBuilder;
use object_store::ObjectStore;
use std::sync::Arc;

/// The server (`scheme://host[:port]`) and the dataset's path on it.
pub fn parse_location(location: &str) -> MapResult<(String, String)> {
    let bad = || MapError::InvalidLocation(location.to_string());
    let base = location.split('#').next().unwrap_or("");
    let base = base.split('?').next().unwrap_or("");
    let (scheme, rest) = base.split_once("://").ok_or_else(bad)?;
    let scheme = scheme.to_ascii_lowercase();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if !matches!(scheme.as_str(), "http" | "https") || host.is_empty() {
        return Err(bad());
    }
    let path = super::file::percent_decode(path.trim_matches('/')).ok_or_else(bad)?;
    Ok((format!("{scheme}://{host}"), path))
}

pub(crate) fn target(location: &str) -> MapResult<Target<'static>> {
    let (server, root) = parse_location(location)?;
    Ok(Target {
        config: server.clone(),
        root,
        build: Box::new(move || {
            let b = HttpBuilder::new()
                .with_url(&server)
                .with_client_options(client_options(Some(&server)))
                .with_retry(retry_config());
            Ok(Arc::new(b.build()?) as Arc<dyn ObjectStore>)
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_forms() {
        assert_eq!(
            parse_location("http://127.0.0.1:8080/stores/x.zarr/#mode=zarr,http").unwrap(),
            ("http://127.0.0.1:8080".to_string(), "stores/x.zarr".to_string())
        );
        assert_eq!(parse_location("https://h/a%20b.zarr").unwrap(), ("https://h".to_string(), "a b.zarr".to_string()));
        for bad in ["http://", "ftp://h/x", "https://h/%zz", "https://h/%e9", "x"] {
            assert!(parse_location(bad).is_err(), "{bad}");
        }
    }
}
