//! Dataset paths and URLs: the spec's "URL Format" and "Client Parameters",
//! netCDF-C's mode inference, and the choice of storage driver.
//!
//! Accepted forms:
//! * a plain path (`/data/x.zarr`, `x.zarr`): NCZarr on the `file` driver;
//! * `file:///abs/path#mode=...`: the `mode` list picks format and storage;
//! * `mem://name#mode=...`: the in-memory driver (nczarr-rs extension);
//! * `s3://...`, and `http(s)://...` with `mode=...,s3` or on an Amazon
//!   host: S3 (see `map::s3`);
//! * `gs://...`, and `http(s)://...` with `mode=...,gs3` (netCDF-C's
//!   spelling; `gs` too) or on `storage.googleapis.com`: Google Cloud
//!   Storage (`map::gcs`);
//! * `az://`, `abfs(s)://`, and `http(s)://...` with `mode=...,az` or on
//!   `*.blob.core.windows.net`: Azure Blob Storage (`map::azure`);
//! * any other `http(s)://...` (`mode=...,http` says so): a web server,
//!   read-only (`map::http`).
//!
//! * any of these naming a kerchunk reference file with `mode=kerchunk`
//!   (`file:///d/refs.json#mode=kerchunk`, `s3://b/refs.json#mode=kerchunk`),
//!   or a plain path to a `*.json` file holding a JSON object: the
//!   read-only Zarr dataset the references describe (`map::refs`).
//!
//! docs/CLOUD.md lists every form.
//!
//! Mode inference follows netCDF-C 4.9.1+: `zarr` ⇒ `nczarr`,
//! `xarray` ⇒ `zarr`, `noxarray` ⇒ `nczarr` and `zarr` (so `noxarray`
//! always writes pure Zarr, as netCDF-C does). Unlike netCDF-C 4.9.x,
//! value-less keys (`#zarr`, `#noxarray`, `#s3`) are expanded correctly.

use super::error::NC_EINVAL;
use super::{NcError, NcResult};

/// Which storage driver a dataset lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    File,
    Memory,
    Zip,
    S3,
    /// A kerchunk reference set (read-only).
    Refs,
    Gcs,
    Azure,
    /// A plain web server, read-only.
    Http,
}

/// A parsed dataset location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetUrl {
    pub storage: Storage,
    /// What the driver is given (path or name, without fragment).
    pub location: String,
    /// `mode=zarr`: no NCZarr extensions are written.
    pub pure_zarr: bool,
    /// XArray `_ARRAY_DIMENSIONS` are written and used (not with `noxarray`).
    pub xarray: bool,
    /// `mode=consolidated`: read metadata from `.zmetadata` (netCDF-C 4.10).
    pub consolidated: bool,
    /// The merged, de-duplicated `mode` list.
    pub modes: Vec<String>,
}

fn push_unique(list: &mut Vec<String>, v: &str) {
    let v = v.trim().to_ascii_lowercase();
    if !v.is_empty() && !list.contains(&v) {
        list.push(v);
    }
}

/// Parses a path or URL given to `nc_create`/`nc_open`.
pub fn parse(path: &str) -> NcResult<DatasetUrl> {
    let path = path.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    if path.is_empty() {
        return Err(NcError::with(NC_EINVAL, "empty path"));
    }
    let Some(scheme_end) = path.find("://").filter(|&i| path[..i].chars().all(|c| c.is_ascii_alphanumeric())) else {
        return Ok(DatasetUrl {
            storage: Storage::File,
            location: path.to_string(),
            pure_zarr: false,
            xarray: true,
            consolidated: false,
            modes: vec!["nczarr".into(), "file".into()],
        });
    };
    let scheme = path[..scheme_end].to_ascii_lowercase();
    let (base, fragment) = match path.find('#') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (path, ""),
    };
    let mut modes = Vec::new();
    for pair in fragment.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = match pair.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v)),
            None => (pair.trim().to_ascii_lowercase(), None),
        };
        match (key.as_str(), value) {
            ("mode", Some(v)) => v.split(',').for_each(|m| push_unique(&mut modes, m)),
            // Value-less macro keys.
            ("zarr", None) => ["nczarr", "zarr"].iter().for_each(|m| push_unique(&mut modes, m)),
            ("s3", None) | ("gs3", None) | ("gs", None) | ("az", None) | ("http", None) => {
                [key.as_str(), "nczarr"].iter().for_each(|m| push_unique(&mut modes, m))
            }
            ("xarray", None) => push_unique(&mut modes, "zarr"),
            ("noxarray", None) => ["nczarr", "noxarray"].iter().for_each(|m| push_unique(&mut modes, m)),
            ("file", None) | ("zip", None) | ("nczarr", None) | ("consolidated", None) | ("kerchunk", None) => {
                push_unique(&mut modes, &key)
            }
            _ => {} // log, show, aws.profile, aws.region, consolidated, ...
        }
    }
    // Inferences.
    if modes.iter().any(|m| m == "xarray") {
        push_unique(&mut modes, "zarr");
    }
    if modes.iter().any(|m| m == "noxarray") {
        push_unique(&mut modes, "zarr");
        modes.retain(|m| m != "xarray");
    }
    if modes.iter().any(|m| m == "zarr") {
        push_unique(&mut modes, "nczarr");
    }
    if scheme == "s3" {
        push_unique(&mut modes, "s3");
        push_unique(&mut modes, "nczarr");
    }
    if modes.iter().any(|m| m == "kerchunk") {
        // a reference set describes a Zarr (v2) dataset, xarray's dimensions
        ["zarr", "nczarr"].iter().for_each(|m| push_unique(&mut modes, m));
    }
    if matches!(scheme.as_str(), "gs" | "gcs") {
        push_unique(&mut modes, "gs3");
        push_unique(&mut modes, "nczarr");
    }
    if matches!(scheme.as_str(), "az" | "azure" | "abfs" | "abfss" | "adl") {
        push_unique(&mut modes, "az");
        push_unique(&mut modes, "nczarr");
    }
    let has = |m: &str| modes.iter().any(|x| x == m);
    if has("bytes") {
        return Err(NcError::with(NC_EINVAL, "mode=bytes (HTTP byte ranges) is not NCZarr"));
    }
    let storage = if has("kerchunk") {
        match scheme.as_str() {
            "file" | "s3" | "http" | "https" | "gs" | "gcs" | "az" | "azure" => Storage::Refs,
            _ => return Err(NcError::with(NC_EINVAL, format!("kerchunk references on {scheme}:// are not supported"))),
        }
    } else if has("s3") {
        Storage::S3
    } else if has("gs3") || has("gs") {
        Storage::Gcs
    } else if has("az") {
        Storage::Azure
    } else if has("http") && (scheme == "http" || scheme == "https") {
        Storage::Http
    } else if has("zip") {
        Storage::Zip
    } else if scheme == "mem" {
        Storage::Memory
    } else if scheme == "file" {
        Storage::File
    } else if scheme == "http" || scheme == "https" {
        web_service(base)
    } else {
        return Err(NcError::with(NC_EINVAL, format!("unsupported URL scheme {scheme}")));
    };
    let pure_zarr = has("zarr");
    let xarray = !has("noxarray");
    let consolidated = has("consolidated");
    if !has("nczarr") {
        push_unique(&mut modes, "nczarr");
    }
    let location = match storage {
        Storage::Memory => base["mem://".len()..].to_string(),
        // the S3 driver reads aws.profile / aws.region from the fragment
        // (and the reference store those and the mode of its targets)
        Storage::S3 | Storage::Refs | Storage::Gcs | Storage::Azure | Storage::Http => path.to_string(),
        _ => base.to_string(),
    };
    Ok(DatasetUrl { storage, location, pure_zarr, xarray, consolidated, modes })
}

/// The service of an `http(s)://` URL that names none in its modes: by
/// its host, and a plain web server for any other host.
fn web_service(base: &str) -> Storage {
    let rest = base.split_once("://").map(|(_, r)| r).unwrap_or("");
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = host.rsplit('@').next().unwrap_or("");
    let host = host.split(':').next().unwrap_or("").to_ascii_lowercase();
    if host.ends_with(".amazonaws.com") {
        Storage::S3
    } else if host == "storage.googleapis.com" || host.ends_with(".storage.googleapis.com") {
        Storage::Gcs
    } else if host.ends_with(".blob.core.windows.net") || host.ends_with(".dfs.core.windows.net") {
        Storage::Azure
    } else {
        Storage::Http
    }
}

/// For a URL, whether it names a Zarr dataset as netCDF-C decides it:
/// `s3://` and `mem://`, or a `mode=` list (or value-less key) naming
/// `nczarr`, `zarr`, `xarray`, `noxarray`, `zip` or `s3`. `None` for a plain path.
pub fn zarr_url(path: &str) -> Option<bool> {
    let path = path.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    let scheme_end = path.find("://").filter(|&i| i > 0 && path[..i].chars().all(|c| c.is_ascii_alphanumeric()))?;
    let scheme = path[..scheme_end].to_ascii_lowercase();
    if matches!(scheme.as_str(), "s3" | "mem" | "gs" | "gcs" | "az" | "azure" | "abfs" | "abfss" | "adl") {
        return Some(true);
    }
    const ZARR: &[&str] = &["nczarr", "zarr", "xarray", "noxarray", "zip", "s3", "gs3", "gs", "az", "kerchunk"];
    let fragment = path.split_once('#').map(|(_, f)| f).unwrap_or("");
    let query = path.split_once('?').map(|(_, q)| q.split('#').next().unwrap_or("")).unwrap_or("");
    let named = fragment.split('&').chain(query.split('&')).any(|pair| match pair.split_once('=') {
        Some((k, v)) => {
            k.trim().eq_ignore_ascii_case("mode")
                && v.split(',').any(|m| ZARR.iter().any(|z| m.trim().eq_ignore_ascii_case(z)))
        }
        None => ZARR.iter().any(|z| pair.trim().eq_ignore_ascii_case(z)),
    });
    Some(named)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        let u = parse("file:///tmp/x.zarr#mode=nczarr,file").unwrap();
        assert_eq!(
            (u.storage, u.pure_zarr, u.xarray, u.location.as_str()),
            (Storage::File, false, true, "file:///tmp/x.zarr")
        );
        let u = parse("file:///tmp/x#mode=zarr,file").unwrap();
        assert!(u.pure_zarr && u.xarray && u.modes.contains(&"nczarr".to_string()));
        let u = parse("file:///tmp/x#mode=nczarr,noxarray,file").unwrap();
        assert!(u.pure_zarr && !u.xarray);
        let u = parse("file:///tmp/x#zarr").unwrap();
        assert!(u.pure_zarr);
        let u = parse("file:///tmp/x#MODE=ZARR,FILE").unwrap();
        assert!(u.pure_zarr);
        assert!(parse("file:///x#mode=zarr,consolidated").unwrap().consolidated);
        let u = parse("/plain/path.zarr").unwrap();
        assert_eq!((u.storage, u.pure_zarr), (Storage::File, false));
        let u = parse("mem://abc#mode=zarr").unwrap();
        assert_eq!((u.storage, u.location.as_str()), (Storage::Memory, "abc"));
        let u = parse("s3://bucket/key#aws.region=eu-west-1").unwrap();
        assert_eq!((u.storage, u.location.as_str()), (Storage::S3, "s3://bucket/key#aws.region=eu-west-1"));
        assert_eq!(parse("https://host/b/k#mode=zarr,s3").unwrap().storage, Storage::S3);
        assert_eq!(parse("file:///x.zip#mode=nczarr,zip").unwrap().storage, Storage::Zip);
        assert_eq!(parse("gs://b/k").unwrap().storage, Storage::Gcs);
        assert_eq!(parse("https://storage.googleapis.com/b/k#mode=zarr").unwrap().storage, Storage::Gcs);
        assert_eq!(parse("http://127.0.0.1:4443/b/k#mode=zarr,gs3").unwrap().storage, Storage::Gcs);
        assert_eq!(parse("az://c/k").unwrap().storage, Storage::Azure);
        assert_eq!(parse("abfss://c@a.dfs.core.windows.net/k").unwrap().storage, Storage::Azure);
        assert_eq!(parse("https://a.blob.core.windows.net/c/k#mode=zarr").unwrap().storage, Storage::Azure);
        assert_eq!(parse("http://127.0.0.1:1/a/c/k#mode=zarr,az").unwrap().storage, Storage::Azure);
        let u = parse("http://h:8080/x.zarr#mode=zarr,consolidated,http").unwrap();
        assert_eq!((u.storage, u.consolidated), (Storage::Http, true));
        assert_eq!(parse("https://h/x.zarr#zarr").unwrap().storage, Storage::Http);
        assert_eq!(parse("https://b.s3.amazonaws.com/k#mode=zarr").unwrap().storage, Storage::S3);
        assert_eq!(parse("gopher://x/y").unwrap_err().code(), NC_EINVAL);
        let u = parse("file:///d/r.json#mode=kerchunk").unwrap();
        assert_eq!((u.storage, u.pure_zarr, u.xarray), (Storage::Refs, true, true));
        assert_eq!(parse("s3://b/r.json#kerchunk").unwrap().storage, Storage::Refs);
        assert_eq!(parse("https://h/b/r.json#mode=kerchunk,s3").unwrap().storage, Storage::Refs);
        assert_eq!(parse("mem://r#mode=kerchunk").unwrap_err().code(), NC_EINVAL);
        assert_eq!(parse("").unwrap_err().code(), NC_EINVAL);
    }

    #[test]
    fn zarr_urls() {
        assert_eq!(zarr_url("/plain/x.zarr"), None);
        assert_eq!(zarr_url("x.nc"), None);
        assert_eq!(zarr_url("file://b.zarr#mode=nczarr,file"), Some(true));
        assert_eq!(zarr_url("file:///b#mode=file,ZARR"), Some(true));
        assert_eq!(zarr_url("file:///b#log&mode=xarray"), Some(true));
        assert_eq!(zarr_url("file:///b#zarr"), Some(true));
        assert_eq!(zarr_url("s3://bucket/key"), Some(true));
        assert_eq!(zarr_url("file:///d/r.json#mode=kerchunk"), Some(true));
        assert_eq!(zarr_url("gs://bucket/key"), Some(true));
        assert_eq!(zarr_url("az://container/key"), Some(true));
        assert_eq!(zarr_url("https://h/b/k#mode=gs3"), Some(true));
        assert_eq!(zarr_url("https://h/x.nc#mode=bytes"), Some(false));
        assert_eq!(zarr_url("file:///b.nc#mode=udf0"), Some(false));
        assert_eq!(zarr_url("http://h/dods/x"), Some(false));
    }
}
