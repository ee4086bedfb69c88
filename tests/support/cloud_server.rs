//! Shared by the Google Cloud Storage and Azure tests (tests/cloud.rs,
//! tests/writers.rs; included with `#[path]`): where their emulators are.

/// The test server's base URL (`http://host:port/bucket`, Azurite's
/// `http://host:port/account/container`) from the variable `env`
/// (scripts/azurite-server.sh, scripts/http-server.sh set them), or
/// `None`: then `what` says it tests nothing. When `NCZARR_RS_REQUIRE_CLOUD`
/// is `1` or names the `service` (a comma-separated list; the server
/// scripts add theirs, so in CI) a server is required: no URL, or nothing
/// listening at it, panics, so that every test asking for it fails rather
/// than passes without testing.
pub fn base_url(service: &str, env: &str, what: &str) -> Option<String> {
    let required = std::env::var("NCZARR_RS_REQUIRE_CLOUD")
        .is_ok_and(|r| r.trim() == "1" || r.split(',').any(|s| s.trim() == service));
    server_url(env, required, "NCZARR_RS_REQUIRE_CLOUD=1", what)
}

/// The URL in the variable `env`, or `None` (saying so) when it is unset;
/// when `required` (the variable `requirement` set), an unset URL or one
/// where nothing listens panics. Shared with tests/support/s3_server.rs.
pub fn server_url(env: &str, required: bool, requirement: &str, what: &str) -> Option<String> {
    let url = std::env::var(env).ok().filter(|u| !u.is_empty());
    let Some(url) = url else {
        assert!(!required, "{what}: {requirement} but {env} is not set");
        eprintln!("{what}: {env} is not set; no server, nothing tested");
        return None;
    };
    if required {
        let host = url.split("://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_default();
        let reachable = std::net::ToSocketAddrs::to_socket_addrs(host).is_ok_and(|mut addrs| {
            addrs.any(|a| std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(5)).is_ok())
        });
        assert!(reachable, "{what}: {requirement} but no server answers at {url}");
    }
    Some(url)
}
