//! Shared by the S3 tests (tests/s3.rs, tests/s3_faults.rs,
//! tests/writers.rs; included with `#[path]`): where the S3 test server is.

/// The S3 test server's base URL (`http://host:port/bucket`), from
/// `NCZARR_RS_S3_TEST_URL` (scripts/s3-server.sh sets it), or `None`: then
/// `what` says it tests nothing. With `NCZARR_RS_REQUIRE_S3=1` (CI) a
/// server is required: no URL, or nothing listening at it, panics, so that
/// every test asking for it fails rather than passes without testing.
pub fn base_url(what: &str) -> Option<String> {
    let required = std::env::var("NCZARR_RS_REQUIRE_S3").as_deref() == Ok("1");
    cloud_server::server_url("NCZARR_RS_S3_TEST_URL", required, "NCZARR_RS_REQUIRE_S3=1", what)
}

// (its base_url, for the other services, is not used by every S3 test;
// tests/writers.rs uses both through this one module)
#[allow(dead_code)]
#[path = "cloud_server.rs"]
pub mod cloud_server;
