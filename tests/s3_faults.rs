//! The S3 driver through a fault-injecting proxy: a loopback HTTP proxy of
//! this test sits between the library and the S3 server (moto, started by
//! scripts/test-all.sh, which sets NCZARR_RS_S3_TEST_URL; without it the
//! tests say so and pass, unless NCZARR_RS_REQUIRE_S3=1: then they fail,
//! tests/support/s3_server.rs).
//!
//! Per test, the proxy drops connections, delays answers past the request
//! timeout, resets or truncates response bodies, answers 503 SlowDown, lies
//! about a body's length, or resets an upload, for chosen requests. Each
//! test asserts that the library retries a bounded number of times, then
//! either returns the right data or a clear error (`NC_EIO`), never wrong
//! data, that no reader ever sees a partial object, and that nothing waits
//! past the documented timeouts (docs/RELIABILITY.md, "S3 faults").

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::error::NC_EIO;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::{Driver, StoreKey};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

#[path = "support/s3_server.rs"]
mod s3_server;

// ---- settings ----------------------------------------------------------------

/// The timeouts of this process (read once by the S3 driver, at its first
/// use, so set before any): 2 s per request, 2 retries, so one request
/// gives up after at most about 3 x 2 s plus backoff.
const TIMEOUT_S: u64 = 2;
const RETRIES: usize = 2;
/// What a request that keeps failing may take in all: (retries + 1) x the
/// timeout, plus backoff (object_store: 0.1 s doubling, with jitter), plus
/// slack for a loaded machine (a clean-clone CI run with other builds on
/// the two cores took 12.8 s for "Delay(4s) always"; a hang is unbounded,
/// so the check still tells them apart).
const GIVE_UP_WITHIN: Duration = Duration::from_secs((RETRIES as u64 + 1) * TIMEOUT_S + 14);

/// The server's base URL (`http://host:port/bucket`) and a prefix unique to
/// this run, with the timeouts set; `None` without a server.
static SERVER: LazyLock<Option<(SocketAddr, String)>> = LazyLock::new(|| {
    let url = s3_server::base_url("s3 fault tests")?;
    std::env::set_var("NCZARR_RS_S3_TIMEOUT", TIMEOUT_S.to_string());
    std::env::set_var("NCZARR_RS_S3_CONNECT_TIMEOUT", "1");
    std::env::set_var("NCZARR_RS_S3_RETRIES", RETRIES.to_string());
    std::env::set_var("NCZARR_RS_S3_RETRY_WINDOW", "30");
    let rest = url.strip_prefix("http://").expect("an http:// test server");
    let (host, bucket) = rest.split_once('/').expect("http://host:port/bucket");
    let addr: SocketAddr = host.parse().expect("host:port");
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    Some((addr, format!("{bucket}/faults{run}")))
});

/// The dataset URL `name` straight at the server.
fn direct(name: &str) -> Option<String> {
    SERVER.as_ref().map(|(addr, prefix)| format!("http://{addr}/{prefix}/{name}#mode=nczarr,s3"))
}

/// The same dataset through `proxy`.
fn via(proxy: &Proxy, name: &str) -> String {
    let (_, prefix) = SERVER.as_ref().expect("a server");
    format!("http://127.0.0.1:{}/{prefix}/{name}#mode=nczarr,s3", proxy.port)
}

// ---- the proxy ---------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// The connection is closed without an answer; the server never sees
    /// the request.
    Drop,
    /// The request reaches the server, then the connection is closed
    /// without an answer (the server did it, the client does not know).
    DropAfter,
    /// The answer comes this late (past the request timeout).
    Delay(Duration),
    /// The head and half the body, then a TCP reset.
    ResetMidBody,
    /// The head and half the body, then the connection closes: a body
    /// shorter than its Content-Length.
    Truncate,
    /// Half the body with a Content-Length that matches it: a server that
    /// lies (no transport error to notice).
    ShortBody,
    /// 503 SlowDown, S3's answer to an overloaded prefix.
    Unavailable,
    /// The upload is reset midway: the server gets the head and half the
    /// body, then both connections are reset.
    ResetUpload,
}

/// Which requests get which fault: the first rule that matches a request
/// (method, and a substring of its path) and has uses left applies.
struct Rule {
    method: &'static str,
    path: String,
    fault: Fault,
    uses: usize,
}

#[derive(Default)]
struct Plan {
    rules: Mutex<Vec<Rule>>,
    /// Every request seen: method, path, fault applied.
    log: Mutex<Vec<(String, String, Option<Fault>)>>,
    /// When set, every request waits here (see [`Gate`]).
    gate: Mutex<Option<Arc<Gate>>>,
}

/// Holds each request until `want` requests have arrived, or `patience`
/// has passed (then it goes on, counted as `late`): requests made one after
/// another are all late, requests made at once none.
struct Gate {
    want: usize,
    patience: Duration,
    arrived: Mutex<usize>,
    all_in: std::sync::Condvar,
    late: std::sync::atomic::AtomicUsize,
}

impl Gate {
    fn new(want: usize, patience: Duration) -> Arc<Gate> {
        Arc::new(Gate {
            want,
            patience,
            arrived: Mutex::new(0),
            all_in: std::sync::Condvar::new(),
            late: Default::default(),
        })
    }

    fn pass(&self) {
        let mut n = self.arrived.lock().unwrap();
        *n += 1;
        self.all_in.notify_all();
        let (n, waited) = self.all_in.wait_timeout_while(n, self.patience, |n| *n < self.want).unwrap();
        drop(n);
        if waited.timed_out() {
            self.late.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

impl Plan {
    fn take(&self, method: &str, path: &str) -> Option<Fault> {
        let mut rules = self.rules.lock().unwrap();
        let rule = rules.iter_mut().find(|r| r.uses > 0 && r.method == method && path.contains(&r.path))?;
        rule.uses -= 1;
        Some(rule.fault)
    }
}

struct Proxy {
    port: u16,
    plan: Arc<Plan>,
}

impl Proxy {
    fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let plan = Arc::new(Plan::default());
        let p = plan.clone();
        // The accept loop lives as long as the test process.
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let p = p.clone();
                // errors are the faults themselves, or a client that gave up
                std::thread::spawn(move || drop(serve(client, upstream, &p)));
            }
        });
        Proxy { port, plan }
    }

    /// Applies `fault` to the next `uses` requests `method` whose path
    /// contains `path` (`usize::MAX`: always).
    fn on(&self, method: &'static str, path: &str, fault: Fault, uses: usize) {
        self.plan.rules.lock().unwrap().push(Rule { method, path: path.to_string(), fault, uses });
    }

    fn clear(&self) {
        self.plan.rules.lock().unwrap().clear();
    }

    /// Requests seen for `method` with `path` in their path.
    fn count(&self, method: &str, path: &str) -> usize {
        self.plan.log.lock().unwrap().iter().filter(|(m, p, _)| m == method && p.contains(path)).count()
    }

    /// Requests that got a fault.
    fn faults(&self) -> usize {
        self.plan.log.lock().unwrap().iter().filter(|(_, _, f)| f.is_some()).count()
    }
}

/// An HTTP/1.1 message head: first line and headers.
struct Head {
    line: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn read(r: &mut impl BufRead) -> std::io::Result<Option<Head>> {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if r.read_line(&mut h)? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        Ok(Some(Head { line: line.trim_end().to_string(), headers }))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn content_length(&self) -> Option<usize> {
        self.get("content-length").and_then(|v| v.parse().ok())
    }

    fn chunked(&self) -> bool {
        self.get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    }

    /// The head as bytes, without the hop-by-hop and length headers, plus `extra`.
    fn encode(&self, first_line: &str, extra: &[(&str, String)]) -> Vec<u8> {
        let mut out = format!("{first_line}\r\n");
        for (k, v) in &self.headers {
            if ["connection", "transfer-encoding", "content-length", "keep-alive"]
                .contains(&k.to_ascii_lowercase().as_str())
            {
                continue;
            }
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        for (k, v) in extra {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str("\r\n");
        out.into_bytes()
    }
}

/// A body framed by Content-Length, chunked encoding or the end of the
/// connection (`to_eof`).
fn read_body(r: &mut impl BufRead, head: &Head, to_eof: bool) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if head.chunked() {
        loop {
            let mut size = String::new();
            r.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
            if n == 0 {
                // trailers, then the blank line
                while Head::read_line(r)? {}
                return Ok(body);
            }
            let start = body.len();
            body.resize(start + n, 0);
            r.read_exact(&mut body[start..])?;
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf)?;
        }
    } else if let Some(n) = head.content_length() {
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else if to_eof {
        r.read_to_end(&mut body)?;
    }
    Ok(body)
}

impl Head {
    /// Reads one line; false when it is blank.
    fn read_line(r: &mut impl BufRead) -> std::io::Result<bool> {
        let mut l = String::new();
        r.read_line(&mut l)?;
        Ok(!l.trim_end().is_empty())
    }
}

/// Closes `s` with a TCP reset (SO_LINGER 0) instead of a normal close.
fn reset(s: &TcpStream) {
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: a valid socket descriptor and a properly sized option value.
    unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &linger as *const libc::linger as *const libc::c_void,
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    let _ = s.shutdown(Shutdown::Both);
}

/// Serves one client connection, request by request.
fn serve(client: TcpStream, upstream: SocketAddr, plan: &Plan) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut client = client;
    while let Some(head) = Head::read(&mut reader)? {
        let mut parts = head.line.split(' ');
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("").to_string();
        let fault = plan.take(&method, &path);
        plan.log.lock().unwrap().push((method.clone(), path.clone(), fault));
        let gate = plan.gate.lock().unwrap().clone();
        if let Some(g) = gate {
            g.pass();
        }
        let request_line = head.line.clone();

        if fault == Some(Fault::ResetUpload) {
            // half the body reaches the server, then both sides are reset
            let half = head.content_length().unwrap_or(0) / 2;
            let mut body = vec![0u8; half];
            reader.read_exact(&mut body)?;
            let mut up = TcpStream::connect(upstream)?;
            let len = head.content_length().unwrap_or(0).to_string();
            up.write_all(&head.encode(&request_line, &[("Content-Length", len), ("Connection", "close".into())]))?;
            up.write_all(&body)?;
            up.flush()?;
            std::thread::sleep(Duration::from_millis(50));
            reset(&up);
            reset(&client);
            return Ok(());
        }
        let body = read_body(&mut reader, &head, false)?;
        match fault {
            Some(Fault::Drop) => {
                let _ = client.shutdown(Shutdown::Both);
                return Ok(());
            }
            Some(Fault::Unavailable) => {
                let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
                           <Message>Please reduce your request rate.</Message></Error>";
                write!(
                    client,
                    "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n{xml}",
                    xml.len()
                )?;
                continue;
            }
            Some(Fault::Delay(d)) => std::thread::sleep(d),
            _ => {}
        }

        // forward on a connection of its own
        let mut up = TcpStream::connect(upstream)?;
        up.write_all(
            &head.encode(&request_line, &[("Content-Length", body.len().to_string()), ("Connection", "close".into())]),
        )?;
        up.write_all(&body)?;
        let mut up_reader = BufReader::new(up);
        let Some(resp) = Head::read(&mut up_reader)? else { return Ok(()) };
        let status: u16 = resp.line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(502);
        let bodyless = method == "HEAD" || status == 204 || status == 304 || status < 200;
        let resp_body = if bodyless { Vec::new() } else { read_body(&mut up_reader, &resp, true)? };
        let status_line = resp.line.replacen("HTTP/1.0", "HTTP/1.1", 1);
        let length =
            if method == "HEAD" { resp.content_length().unwrap_or(0).to_string() } else { resp_body.len().to_string() };
        let half = resp_body.len() / 2;
        match fault {
            Some(Fault::DropAfter) => {
                let _ = client.shutdown(Shutdown::Both);
                return Ok(());
            }
            Some(Fault::ResetMidBody) | Some(Fault::Truncate) if !resp_body.is_empty() => {
                client.write_all(&resp.encode(&status_line, &[("Content-Length", length)]))?;
                client.write_all(&resp_body[..half])?;
                client.flush()?;
                std::thread::sleep(Duration::from_millis(20));
                if fault == Some(Fault::ResetMidBody) {
                    reset(&client);
                } else {
                    let _ = client.shutdown(Shutdown::Both);
                }
                return Ok(());
            }
            Some(Fault::ShortBody) if !resp_body.is_empty() => {
                client.write_all(&resp.encode(&status_line, &[("Content-Length", half.to_string())]))?;
                client.write_all(&resp_body[..half])?;
            }
            _ => {
                client.write_all(&resp.encode(&status_line, &[("Content-Length", length)]))?;
                client.write_all(&resp_body)?;
            }
        }
        client.flush()?;
    }
    Ok(())
}

// ---- the dataset -------------------------------------------------------------

/// 64 doubles in 4 chunks of 16, uncompressed (so a short chunk is not
/// caught by a codec), and an attribute.
fn make_dataset(url: &str, values: &[f64]) {
    let mut ds = file::create(url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 64).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_DOUBLE, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[16])).unwrap();
    ds.put_att(0, NC_GLOBAL, "title", Values::Char(b"faults".to_vec())).unwrap();
    ds.enddef().unwrap();
    write_all(&mut ds, values).unwrap();
    ds.close().unwrap();
}

fn write_all(ds: &mut Dataset, values: &[f64]) -> Result<(), nczarr_rs::engine::NcError> {
    let slab = ds.slab(0, 0, None, None, None, None, true)?;
    ds.put_slab(0, 0, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &Values::Double(values.to_vec()).to_ne_bytes() })
}

/// All of `v`, or the error code.
fn read_all(url: &str) -> Result<Vec<f64>, i32> {
    let ds = file::open(url, NC_NOWRITE).map_err(|e| e.code())?;
    let slab = ds.slab(0, 0, None, None, None, None, false).map_err(|e| e.code())?;
    let mut out = vec![0u8; 64 * 8];
    ds.get_slab(0, 0, &slab, MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut out }).map_err(|e| e.code())?;
    match Values::from_ne_bytes(NC_DOUBLE, &out).unwrap() {
        Values::Double(d) => Ok(d),
        _ => unreachable!(),
    }
}

fn ramp(k: f64) -> Vec<f64> {
    (0..64).map(|i| i as f64 * k).collect()
}

/// A proxy and a dataset of `ramp(1.0)` written straight to the server.
fn setup(name: &str) -> Option<(Proxy, String)> {
    let d = direct(name)?;
    make_dataset(&d, &ramp(1.0));
    let (addr, _) = SERVER.as_ref().unwrap();
    let proxy = Proxy::start(*addr);
    let url = via(&proxy, name);
    Some((proxy, url))
}

/// Runs `f`, and checks it took less than `limit`.
fn timed<T>(what: &str, limit: Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < limit, "{what} took {took:?}, more than {limit:?}");
    eprintln!("{what}: {took:?}");
    out
}

/// The chunk objects of `v` (`v/0` ... `v/3`), matched in request paths.
const CHUNK: &str = "/v/1";

/// The faults a read can meet.
const READ_FAULTS: [Fault; 6] = [
    Fault::Drop,
    Fault::DropAfter,
    Fault::Delay(Duration::from_secs(TIMEOUT_S + 2)),
    Fault::ResetMidBody,
    Fault::Truncate,
    Fault::Unavailable,
];

// ---- the tests ---------------------------------------------------------------

/// Each transient fault, once on a chunk GET: the read retries and returns
/// the right data; the chunk was asked for exactly twice.
#[test]
fn transient_faults_on_a_read_are_retried() {
    for (i, fault) in READ_FAULTS.into_iter().enumerate() {
        let Some((proxy, url)) = setup(&format!("transient{i}.zarr")) else { return };
        proxy.on("GET", CHUNK, fault, 1);
        let got = timed(&format!("{fault:?} once"), GIVE_UP_WITHIN, || read_all(&url));
        assert_eq!(got, Ok(ramp(1.0)), "{fault:?} once");
        assert_eq!(proxy.faults(), 1, "{fault:?}: the fault was applied");
        let tries = proxy.count("GET", CHUNK);
        assert!((2..=RETRIES + 1).contains(&tries), "{fault:?}: chunk asked for {tries} times");
    }
}

/// Each fault on every chunk GET: the read fails with `NC_EIO` after at
/// most `RETRIES + 1` attempts, within the timeout bound.
#[test]
fn persistent_faults_on_a_read_are_eio_after_bounded_retries() {
    for (i, fault) in READ_FAULTS.into_iter().enumerate() {
        let Some((proxy, url)) = setup(&format!("persistent{i}.zarr")) else { return };
        proxy.on("GET", CHUNK, fault, usize::MAX);
        let got = timed(&format!("{fault:?} always"), GIVE_UP_WITHIN, || read_all(&url));
        assert_eq!(got, Err(NC_EIO), "{fault:?} always");
        let tries = proxy.count("GET", CHUNK);
        // a body error may resume once per retry with a ranged GET
        assert!((RETRIES + 1..=2 * (RETRIES + 1)).contains(&tries), "{fault:?}: chunk asked for {tries} times");
    }
}

/// A server that sends half a chunk with a matching Content-Length (no
/// transport error): the read is an error, never short or padded data.
#[test]
fn a_short_body_is_never_data() {
    let Some((proxy, url)) = setup("short.zarr") else { return };
    proxy.on("GET", CHUNK, Fault::ShortBody, usize::MAX);
    let got = timed("short body", GIVE_UP_WITHIN, || read_all(&url));
    assert!(got.is_err(), "a half chunk was read as data: {got:?}");
    // the same for metadata: a half .zarray does not open
    proxy.clear();
    proxy.on("GET", "/v/.zarray", Fault::ShortBody, usize::MAX);
    assert!(read_all(&url).is_err(), "half a .zarray opened");
}

/// Faults while opening (metadata): retried once; always, an error within
/// the bound, never a dataset with parts missing. Opening an NCZarr dataset
/// lists nothing (its groups name their variables): a listing that would
/// always fail does not stop it.
#[test]
fn faults_while_opening() {
    let Some((proxy, url)) = setup("open-nolist.zarr") else { return };
    proxy.on("GET", "list-type", Fault::Drop, usize::MAX);
    assert_eq!(read_all(&url), Ok(ramp(1.0)));
    assert_eq!(proxy.faults(), 0, "a listing while opening");
    for (i, path) in ["/.zgroup", "/.zattrs", "/v/.zarray", "/v/.zattrs"].iter().enumerate() {
        let Some((proxy, url)) = setup(&format!("open{i}.zarr")) else { return };
        proxy.on("GET", path, Fault::ResetMidBody, 1);
        proxy.on("GET", path, Fault::Unavailable, 1);
        assert_eq!(timed(&format!("open, {path} twice"), 2 * GIVE_UP_WITHIN, || read_all(&url)), Ok(ramp(1.0)));
        proxy.on("GET", path, Fault::Drop, usize::MAX);
        let got = timed(&format!("open, {path} always"), 2 * GIVE_UP_WITHIN, || read_all(&url));
        assert_eq!(got, Err(NC_EIO), "{path} always dropped");
    }
    // pure Zarr: the groups are listed
    let Some((proxy, url)) = setup("open-list.zarr") else { return };
    let url = url.replace("mode=nczarr,s3", "mode=zarr,s3");
    proxy.on("GET", "list-type", Fault::ResetMidBody, 1);
    proxy.on("GET", "list-type", Fault::Unavailable, 1);
    assert_eq!(timed("open, listing twice", 2 * GIVE_UP_WITHIN, || read_all(&url)), Ok(ramp(1.0)));
    proxy.on("GET", "list-type", Fault::Drop, usize::MAX);
    let got = timed("open, listing always", 2 * GIVE_UP_WITHIN, || read_all(&url));
    assert_eq!(got, Err(NC_EIO), "listing always dropped");
}

/// Uploads reset midway, once: the write is retried (or fails), and the
/// dataset then holds either the old chunk or the new one, whole.
/// Always: closing is `NC_EIO`, and a reader sees the old data, whole.
#[test]
fn reset_uploads_leave_no_partial_object() {
    for (i, (fault, uses)) in [
        (Fault::ResetUpload, 1),
        (Fault::ResetUpload, usize::MAX),
        (Fault::Unavailable, usize::MAX),
        (Fault::DropAfter, 1),
        (Fault::Delay(Duration::from_secs(TIMEOUT_S + 2)), usize::MAX),
    ]
    .into_iter()
    .enumerate()
    {
        let Some((proxy, url)) = setup(&format!("upload{i}.zarr")) else { return };
        proxy.on("PUT", CHUNK, fault, uses);
        let mut ds = file::open(&url, NC_WRITE).unwrap();
        // whole chunks go to the store at once, the rest at close
        let how = if uses == usize::MAX { "always" } else { "once" };
        let written = timed(&format!("write and close, PUT {fault:?} {how}"), 4 * GIVE_UP_WITHIN, || {
            let w = write_all(&mut ds, &ramp(2.0));
            w.and(ds.close())
        });
        drop(ds);
        let puts = proxy.count("PUT", CHUNK);
        assert!(puts <= RETRIES + 1, "{fault:?}: chunk uploaded {puts} times");
        if uses == usize::MAX {
            assert_eq!(written.as_ref().map_err(|e| e.code()), Err(NC_EIO), "{fault:?} always");
        }
        // what a reader sees, straight from the server: every chunk is the
        // old one or the new one, whole
        let after = read_all(&direct(&format!("upload{i}.zarr")).unwrap()).expect("the dataset reads");
        for (c, (got, (old, new))) in after.chunks(16).zip(ramp(1.0).chunks(16).zip(ramp(2.0).chunks(16))).enumerate() {
            assert!(got == old || got == new, "{fault:?}: chunk {c} is neither old nor new: {got:?}");
        }
        if written.is_ok() {
            assert_eq!(after, ramp(2.0), "{fault:?}: write and close succeeded, so every chunk is new");
        }
        // the raw object is never a torn one
        let store = Driver::S3.open(&direct(&format!("upload{i}.zarr")).unwrap(), false).unwrap();
        let obj = store.get(&StoreKey::parse("v/1").unwrap()).unwrap().expect("chunk v/1");
        assert_eq!(obj.len(), 16 * 8, "{fault:?}: chunk object of {} bytes", obj.len());
    }
}

/// Metadata uploads reset: `nc_close` is an error, and the dataset still
/// opens with its old metadata, whole.
#[test]
fn reset_metadata_upload_keeps_the_old_metadata() {
    let Some((proxy, url)) = setup("meta.zarr") else { return };
    proxy.on("PUT", "/.zattrs", Fault::ResetUpload, usize::MAX);
    let mut ds = file::open(&url, NC_WRITE).unwrap();
    ds.put_att(0, NC_GLOBAL, "title", Values::Char(b"changed, longer title".to_vec())).unwrap();
    let closed = timed("close, .zattrs upload reset", 4 * GIVE_UP_WITHIN, || ds.close());
    assert_eq!(closed.map_err(|e| e.code()), Err(NC_EIO));
    drop(ds);
    let ds = file::open(&direct("meta.zarr").unwrap(), NC_NOWRITE).expect("the dataset still opens");
    assert_eq!(ds.get_att(0, NC_GLOBAL, "title").unwrap(), Values::Char(b"faults".to_vec()));
}

/// Writing a dataset this handle creates costs one request per object: the
/// tree rule is checked against what the handle knows (it created the
/// prefix empty), with no listing or HEAD per new chunk; opening it for
/// writing again and adding a chunk costs a listing for that chunk.
#[test]
fn a_new_dataset_costs_one_put_per_object_and_no_listing_per_chunk() {
    let Some((addr, _)) = SERVER.as_ref() else { return };
    let proxy = Proxy::start(*addr);
    let url = via(&proxy, "requests.zarr");
    make_dataset(&url, &ramp(1.0));
    let log = proxy.plan.log.lock().unwrap().clone();
    let is_list = |p: &str| p.contains("list-type=");
    let lists = log.iter().filter(|(m, p, _)| m == "GET" && is_list(p)).count();
    let heads = log.iter().filter(|(m, _, _)| m == "HEAD").count();
    let mut puts: Vec<&str> = log.iter().filter(|(m, _, _)| m == "PUT").map(|(_, p, _)| p.as_str()).collect();
    // create's one look at the prefix (is it empty?); none per object
    assert_eq!(lists, 1, "listings: {log:?}");
    assert_eq!(heads, 0, "HEADs: {log:?}");
    // .zgroup, .zattrs, v/.zarray, v/.zattrs and the 4 chunks, each once;
    // nothing else
    assert_eq!(puts.len(), 8, "PUTs: {log:?}");
    puts.sort();
    puts.dedup();
    assert_eq!(puts.len(), 8, "an object written twice: {log:?}");
    assert_eq!(log.len(), 1 + 8, "other requests: {log:?}");
    // the values are all there
    assert_eq!(read_all(&direct("requests.zarr").unwrap()).unwrap(), ramp(1.0));
}

/// Opening a dataset with consolidated metadata on an object store is one
/// round trip: the root objects every format looks at are requested at
/// once (no listing to check that the dataset exists, no HEAD to detect the
/// format before reading it), and everything else comes from `.zmetadata`.
#[test]
fn a_consolidated_open_is_one_round_trip() {
    let Some((addr, _)) = SERVER.as_ref() else { return };
    let direct_url = direct("consolidated.zarr").unwrap().replace("mode=nczarr,s3", "mode=nczarr,s3,consolidated");
    let mut ds = file::create(&direct_url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 4).unwrap() as i32;
    let g = ds.def_grp(0, "g").unwrap();
    for i in 0..4 {
        ds.def_var(0, &format!("v{i}"), NC_DOUBLE, &[x]).unwrap();
        ds.def_var(g, &format!("w{i}"), NC_DOUBLE, &[x]).unwrap();
    }
    ds.close().unwrap();
    let proxy = Proxy::start(*addr);
    // .zgroup, .zattrs, .zmetadata, .nczarr (a HEAD), zarr.json
    let gate = Gate::new(5, Duration::from_secs(3));
    *proxy.plan.gate.lock().unwrap() = Some(gate.clone());
    let url = via(&proxy, "consolidated.zarr").replace("mode=nczarr,s3", "mode=nczarr,s3,consolidated");
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(ds.group(0).unwrap().vars.len(), 4);
    assert_eq!(ds.group(g).unwrap().vars.len(), 4);
    let log = proxy.plan.log.lock().unwrap().clone();
    assert_eq!(log.len(), 5, "requests: {log:?}");
    assert!(!log.iter().any(|(_, p, _)| p.contains("list-type=")), "a listing: {log:?}");
    assert_eq!(gate.late.load(std::sync::atomic::Ordering::SeqCst), 0, "one after another: {log:?}");
    // nothing there at all is still ENOENT, as for a missing file
    *proxy.plan.gate.lock().unwrap() = None;
    let missing = via(&proxy, "nothing-here.zarr").replace("mode=nczarr,s3", "mode=nczarr,s3,consolidated");
    assert_eq!(file::open(&missing, NC_NOWRITE).err().map(|e| e.code()), Some(2));
}

/// Writes dataset `name` straight to the server in `mode`: `n` double
/// variables `v0`... of one dimension of 4.
fn vars_of_one_dim(name: &str, mode: &str, n: usize) {
    let url = direct(name).unwrap().replace("mode=nczarr,s3", mode);
    let mut ds = file::create(&url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 4).unwrap() as i32;
    for i in 0..n {
        ds.def_var(0, &format!("v{i}"), NC_DOUBLE, &[x]).unwrap();
    }
    ds.close().unwrap();
}

/// `mode=v3` names the format: only Zarr v3's root object is looked for
/// (none of Zarr v2's), and the variables' nodes are fetched at once.
#[test]
fn a_v3_open_looks_for_v3_objects_only() {
    let Some((addr, _)) = SERVER.as_ref() else { return };
    vars_of_one_dim("v3open.zarr", "mode=nczarr,v3,s3", 4);
    let proxy = Proxy::start(*addr);
    let url = via(&proxy, "v3open.zarr").replace("mode=nczarr,s3", "mode=nczarr,v3,s3");
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(ds.group(0).unwrap().vars.len(), 4);
    let log = proxy.plan.log.lock().unwrap().clone();
    assert!(log.iter().all(|(m, p, _)| m == "GET" && p.ends_with("/zarr.json")), "not v3's: {log:?}");
    assert_eq!(log.len(), 1 + 4, "requests: {log:?}");
}

/// A pure Zarr v3 store (no consolidated metadata) is opened in two round
/// trips: the root's `zarr.json` and its listing together, then every
/// variable's `zarr.json` at once.
#[test]
fn a_pure_v3_open_lists_the_root_with_its_node() {
    let Some((addr, _)) = SERVER.as_ref() else { return };
    vars_of_one_dim("purev3.zarr", "mode=zarr,v3,s3", 4);
    let proxy = Proxy::start(*addr);
    let gate = Gate::new(2, Duration::from_secs(3));
    *proxy.plan.gate.lock().unwrap() = Some(gate.clone());
    let url = via(&proxy, "purev3.zarr").replace("mode=nczarr,s3", "mode=zarr,v3,s3");
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(ds.group(0).unwrap().vars.len(), 4);
    let log = proxy.plan.log.lock().unwrap().clone();
    let lists = log.iter().filter(|(_, p, _)| p.contains("list-type=")).count();
    assert_eq!((log.len(), lists), (1 + 1 + 4, 1), "requests: {log:?}");
    assert_eq!(gate.late.load(std::sync::atomic::Ordering::SeqCst), 0, "one after another: {log:?}");
}

/// Opening a pure Zarr group on an object store reads each variable's
/// metadata once, all variables' at once: no HEAD per child to tell arrays
/// from groups (that was one round trip per variable, one after another),
/// and the root group's objects are not fetched twice.
#[test]
fn opening_a_pure_zarr_group_fetches_each_object_once() {
    let Some((addr, _)) = SERVER.as_ref() else { return };
    vars_of_one_dim("pure.zarr", "mode=zarr,s3", 8);
    let proxy = Proxy::start(*addr);
    let url = via(&proxy, "pure.zarr").replace("mode=nczarr,s3", "mode=zarr,s3");
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(ds.group(0).unwrap().vars.len(), 8);
    let log = proxy.plan.log.lock().unwrap().clone();
    let gets: Vec<&str> =
        log.iter().filter(|(m, p, _)| m == "GET" && !p.contains("list-type=")).map(|(_, p, _)| p.as_str()).collect();
    let mut unique = gets.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), gets.len(), "an object fetched twice: {log:?}");
    let heads = log.iter().filter(|(m, _, _)| m == "HEAD").count();
    assert!(heads <= 5, "HEADs per variable: {log:?}");
    assert!(log.iter().filter(|(_, p, _)| p.contains("/v3/")).count() <= 2, "v3's objects more than once: {log:?}");
}
