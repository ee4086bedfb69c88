//! A stalled S3 server (accepts connections, never answers) gives an error
//! within the documented timeouts instead of blocking for minutes
//! (issue 10). The "server" is a loopback listener of this test; the
//! timeouts are set through their environment variables before the first
//! S3 use in this process (they are read once).

use nczarr_rs::engine::consts::NC_NOWRITE;
use nczarr_rs::engine::file;
use std::net::TcpListener;
use std::time::{Duration, Instant};

#[test]
fn a_stalled_server_is_an_error_within_the_timeout() {
    std::env::set_var("NCZARR_RS_S3_TIMEOUT", "1");
    std::env::set_var("NCZARR_RS_S3_CONNECT_TIMEOUT", "1");
    std::env::set_var("NCZARR_RS_S3_RETRIES", "1");
    std::env::set_var("NCZARR_RS_S3_RETRY_WINDOW", "3");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    // Accept and hold every connection, answering nothing, for at most 30 s.
    let server = std::thread::spawn(move || {
        let mut held = Vec::new();
        let end = Instant::now() + Duration::from_secs(30);
        while Instant::now() < end {
            match listener.accept() {
                Ok((sock, _)) => held.push(sock),
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    });
    let start = Instant::now();
    let url = format!("http://127.0.0.1:{port}/bucket/stalled.zarr#mode=nczarr,s3");
    let result = file::open(&url, NC_NOWRITE);
    let took = start.elapsed();
    assert!(result.is_err(), "opening through a server that never answers must fail");
    assert!(took < Duration::from_secs(20), "it took {took:?}: the timeouts are not applied");
    drop(server); // the listener thread ends by itself within 30 s
}
