//! Shared by the S3 tests (tests/s3.rs, tests/s3_faults.rs,
//! tests/writers.rs; included with `#[path]`): where the S3 test server is.

/// The S3 test server's base URL (`http://host:port/bucket`), from
/// `NCZARR_RS_S3_TEST_URL` (scripts/s3-server.sh sets it), or `None`: then
/// `what` says it tests nothing. With `NCZARR_RS_REQUIRE_S3=1` (CI) a
/// server is required: no URL, or nothing listening at it, panics, so that
/// every test asking for it fails rather than passes without testing.
pub fn base_url(what: &str) -> Option<String> {
    let url = std::env::var("NCZARR_RS_S3_TEST_URL").ok().filter(|u| !u.is_empty());
    let required = std::env::var("NCZARR_RS_REQUIRE_S3").as_deref() == Ok("1");
    let Some(url) = url else {
        assert!(!required, "{what}: NCZARR_RS_REQUIRE_S3=1 but NCZARR_RS_S3_TEST_URL is not set");
        eprintln!("{what}: NCZARR_RS_S3_TEST_URL is not set; no S3 server, nothing tested");
        return None;
    };
    if required {
        let host = url.split("://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_default();
        let reachable = std::net::ToSocketAddrs::to_socket_addrs(host).is_ok_and(|mut addrs| {
            addrs.any(|a| std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(5)).is_ok())
        });
        assert!(reachable, "{what}: NCZARR_RS_REQUIRE_S3=1 but no S3 server answers at {url}");
    }
    Some(url)
}
