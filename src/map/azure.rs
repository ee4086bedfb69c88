//! Azure Blob Storage locations and credentials for the object-store
//! driver (`map::object`): a dataset is every blob under a name prefix of
//! a container.
//!
//! Locations (docs/CLOUD.md): `az://container/key` (or `azure://`,
//! `abfs://`, `abfss://`), `abfs[s]://container@account.dfs.core.windows.net/key`,
//! `https://account.blob.core.windows.net/container/key` (or `.dfs.`), and
//! for another server (Azurite) the path style
//! `http(s)://host[:port]/account/container/key`. A query string on an
//! `https` location is a SAS token.
//!
//! Account and credentials: the location's account, else
//! `AZURE_STORAGE_ACCOUNT_NAME`; what `object_store` reads from the
//! environment (`AZURE_STORAGE_ACCOUNT_KEY`, `AZURE_STORAGE_SAS_TOKEN`,
//! `AZURE_STORAGE_TOKEN`, client secrets, workload identity,
//! `AZURE_STORAGE_USE_EMULATOR` with `AZURITE_BLOB_STORAGE_URL`); else a
//! connection string in `AZURE_STORAGE_CONNECTION_STRING` (`AccountName`,
//! `AccountKey`, `SharedAccessSignature`, `BlobEndpoint`,
//! `UseDevelopmentStorage`); with none of them, anonymous requests (public
//! containers), never the managed-identity endpoint of a machine that has
//! none (a wait per request).

use super::object::{client_options, env_config, retry_config, Target};
use super::{MapError, MapResult};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::ObjectStore;
use std::sync::Arc;

/// A parsed Azure location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AzureLocation {
    /// The account's URL, for a server that is not Azure's (path style).
    pub endpoint: Option<String>,
    pub account: Option<String>,
    pub container: String,
    /// Name prefix of the dataset root ("" for the container's root).
    pub prefix: String,
    /// A SAS token from the location's query string.
    pub sas: Option<String>,
}

/// Parses any of the accepted location forms (the fragment is ignored).
pub fn parse_location(location: &str) -> MapResult<AzureLocation> {
    let bad = || MapError::InvalidLocation(location.to_string());
    let base = location.split('#').next().unwrap_or("");
    let (base, query) = base.split_once('?').unwrap_or((base, ""));
    let (scheme, rest) = base.split_once("://").ok_or_else(bad)?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.trim_matches('/');
    let scheme = scheme.to_ascii_lowercase();
    let first = |p: &str| -> (String, String) {
        let (a, b) = p.split_once('/').unwrap_or((p, ""));
        (a.to_string(), b.trim_matches('/').to_string())
    };
    let sas = (!query.is_empty()).then(|| query.to_string());
    let (endpoint, account, container, prefix) = match scheme.as_str() {
        "az" | "azure" | "abfs" | "abfss" | "adl" => match host.split_once('@') {
            // abfs[s]://container@account.dfs.core.windows.net/key
            Some((container, account_host)) => {
                let account = account_host.split('.').next().unwrap_or("");
                if account.is_empty() {
                    return Err(bad());
                }
                (None, Some(account.to_string()), container.to_string(), path.to_string())
            }
            None => (None, None, host.to_string(), path.to_string()),
        },
        "http" | "https" => {
            let h = host.to_ascii_lowercase();
            let azure_account =
                h.strip_suffix(".blob.core.windows.net").or_else(|| h.strip_suffix(".dfs.core.windows.net"));
            match azure_account {
                Some(account) => {
                    let (c, k) = first(path);
                    (None, Some(account.to_string()), c, k)
                }
                None => {
                    // path style: /account/container/key
                    let (account, rest) = first(path);
                    let (c, k) = first(&rest);
                    (Some(format!("{scheme}://{host}/{account}")), Some(account), c, k)
                }
            }
        }
        _ => return Err(bad()),
    };
    if container.is_empty() || account.as_deref() == Some("") {
        return Err(bad());
    }
    Ok(AzureLocation { endpoint, account, container, prefix, sas })
}

/// The `key=value;` pairs of an Azure Storage connection string.
fn connection_string(s: &str) -> Vec<(String, String)> {
    s.split(';')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect()
}

/// Whether the environment names a credential `object_store` reads.
fn has_env_credentials() -> bool {
    std::env::vars().any(|(k, v)| {
        !v.is_empty()
            && k.starts_with("AZURE_")
            && !matches!(
                k.as_str(),
                "AZURE_STORAGE_ACCOUNT_NAME"
                    | "AZURE_STORAGE_ENDPOINT"
                    | "AZURE_CONTAINER_NAME"
                    | "AZURE_STORAGE_CONNECTION_STRING"
            )
    })
}

pub(crate) fn target(location: &str) -> MapResult<Target<'static>> {
    let loc = parse_location(location)?;
    let conn = std::env::var("AZURE_STORAGE_CONNECTION_STRING").map(|s| connection_string(&s)).unwrap_or_default();
    let anonymous = !has_env_credentials()
        && loc.sas.is_none()
        && !conn
            .iter()
            .any(|(k, _)| matches!(k.as_str(), "accountkey" | "sharedaccesssignature" | "usedevelopmentstorage"));
    let config =
        format!("{:?}", (&loc.endpoint, &loc.account, &loc.container, &loc.sas, anonymous, env_config("AZURE"), &conn));
    let root = loc.prefix.clone();
    Ok(Target {
        config,
        root,
        build: Box::new(move || {
            let mut b = MicrosoftAzureBuilder::from_env().with_container_name(&loc.container);
            let mut endpoint = loc.endpoint.clone().or_else(|| std::env::var("AZURE_STORAGE_ENDPOINT").ok());
            for (k, v) in &conn {
                match k.as_str() {
                    "accountname" => b = b.with_account(v),
                    "accountkey" => b = b.with_access_key(v),
                    "sharedaccesssignature" => b = b.with_config(AzureConfigKey::SasKey, v),
                    "blobendpoint" if endpoint.is_none() => endpoint = Some(v.trim_end_matches('/').to_string()),
                    "usedevelopmentstorage" if v.eq_ignore_ascii_case("true") => b = b.with_use_emulator(true),
                    _ => {}
                }
            }
            if let Some(a) = &loc.account {
                b = b.with_account(a);
            }
            if let Some(e) = &endpoint {
                // the location's server, not $AZURITE_BLOB_STORAGE_URL's
                b = b.with_endpoint(e.clone()).with_use_emulator(false);
            }
            if let Some(s) = &loc.sas {
                b = b.with_config(AzureConfigKey::SasKey, s);
            }
            if anonymous {
                b = b.with_skip_signature(true);
            }
            let emulator_url = std::env::var("AZURITE_BLOB_STORAGE_URL").ok();
            let http = endpoint.as_deref().or(emulator_url.as_deref());
            b = b.with_client_options(client_options(http)).with_retry(retry_config());
            Ok(Arc::new(b.build()?) as Arc<dyn ObjectStore>)
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_forms() {
        let l = parse_location("az://ctr/a/b#mode=zarr,az").unwrap();
        assert_eq!((l.account, l.container.as_str(), l.prefix.as_str()), (None, "ctr", "a/b"));
        let l = parse_location("abfss://ctr@acct.dfs.core.windows.net/k").unwrap();
        assert_eq!((l.account.as_deref(), l.container.as_str(), l.prefix.as_str()), (Some("acct"), "ctr", "k"));
        let l = parse_location("https://acct.blob.core.windows.net/ctr/k/x.zarr?sv=1&sig=abc#mode=zarr").unwrap();
        assert_eq!(
            (l.endpoint, l.account.as_deref(), l.container.as_str(), l.prefix.as_str(), l.sas.as_deref()),
            (None, Some("acct"), "ctr", "k/x.zarr", Some("sv=1&sig=abc"))
        );
        let l = parse_location("http://127.0.0.1:10000/devstoreaccount1/ctr/ds#mode=zarr,az").unwrap();
        assert_eq!(
            (l.endpoint.as_deref(), l.account.as_deref(), l.container.as_str(), l.prefix.as_str()),
            (Some("http://127.0.0.1:10000/devstoreaccount1"), Some("devstoreaccount1"), "ctr", "ds")
        );
        for bad in ["az://", "az:///k", "http://127.0.0.1:10000/acct", "ftp://h/a/c", "abfs://c@/k", "x"] {
            assert!(parse_location(bad).is_err(), "{bad}");
        }
        let c = connection_string("DefaultEndpointsProtocol=http;AccountName=a;AccountKey=k==;");
        assert!(c.contains(&("accountkey".to_string(), "k==".to_string())));
    }
}
