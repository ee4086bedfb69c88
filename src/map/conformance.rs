//! The store conformance suite: the behaviour every driver must show.
//!
//! A driver's test file implements [`Fixture`] and expands
//! [`store_conformance_tests!`](crate::store_conformance_tests), which makes
//! one `#[test]` per check below. The checks encode the zmap semantics of
//! the spec ("NCZarr Map Implementation") in store-trait terms.

use super::{MapError, ReadInto, Store, StoreKey};
use std::path::Path;
use std::sync::Arc;

/// How the suite obtains stores of one driver.
pub trait Fixture {
    /// Creates a fresh, empty, writable dataset unique to `name`.
    fn create(&self, name: &str) -> Arc<dyn Store>;
    /// Reopens the dataset created under `name`.
    fn reopen(&self, name: &str, writable: bool) -> Arc<dyn Store>;
    /// Whether there is anything to test against: `false` for S3 without a
    /// server (NCZARR_RS_S3_TEST_URL unset; the fixture fails instead when
    /// NCZARR_RS_REQUIRE_S3=1), and each check then tests nothing.
    fn available(&self) -> bool {
        true
    }
}

/// A driver whose medium has symbolic links (file): the checks of
/// [`store_conformance_tests!`](crate::store_conformance_tests)`(fixture,
/// symlinks)` plant some in its stores.
pub trait SymlinkFixture: Fixture {
    /// Makes `key` of the dataset created under `name` a symbolic link to
    /// `target` (replacing whatever is there).
    fn symlink(&self, name: &str, key: &str, target: &Path);
}

fn k(s: &str) -> StoreKey {
    StoreKey::parse(s).expect("test keys are valid")
}

fn names(v: &[&str]) -> Option<Vec<String>> {
    Some(v.iter().map(|s| s.to_string()).collect())
}

pub fn set_get_roundtrip(fx: &dyn Fixture) {
    let s = fx.create("set_get_roundtrip");
    s.set(&k("/.zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    s.set(&k("/v/0.0"), &[1, 2, 3, 4]).unwrap();
    assert_eq!(s.get(&k("/.zgroup")).unwrap().unwrap(), br#"{"zarr_format": 2}"#);
    assert_eq!(s.get(&k("v/0.0")).unwrap().unwrap(), vec![1, 2, 3, 4]);
    assert_eq!(s.size(&k("/v/0.0")).unwrap(), Some(4));
    let mut buf = vec![9u8; 100];
    assert!(s.get_into(&k("/v/0.0"), &mut buf).unwrap());
    assert_eq!(buf, vec![1, 2, 3, 4]);
    assert!(!s.get_into(&k("/v/missing"), &mut buf).unwrap());
    // into a buffer of the object's length only
    let mut dst = [9u8; 4];
    assert_eq!(s.read_exact_into(&k("/v/0.0"), &mut dst).unwrap(), ReadInto::Done);
    assert_eq!(dst, [1, 2, 3, 4]);
    assert_eq!(s.read_exact_into(&k("/v/0.0"), &mut [0u8; 3]).unwrap(), ReadInto::Size(4));
    assert_eq!(s.read_exact_into(&k("/v/0.0"), &mut [0u8; 5]).unwrap(), ReadInto::Size(4));
    let mut dst = [9u8; 4];
    assert_eq!(s.read_exact_into(&k("/v/missing"), &mut dst).unwrap(), ReadInto::Absent);
    assert_eq!(s.read_exact_into(&k("/v"), &mut dst).unwrap(), ReadInto::Absent, "an interior key");
    assert_eq!(dst, [9u8; 4], "untouched when absent");
}

pub fn missing_keys_are_none(fx: &dyn Fixture) {
    let s = fx.create("missing_keys_are_none");
    s.set(&k("/a/b"), b"x").unwrap();
    assert_eq!(s.get(&k("/nothing")).unwrap(), None);
    assert_eq!(s.size(&k("/nothing")).unwrap(), None);
    assert_eq!(s.get_range(&k("/nothing"), 0, 0).unwrap(), None);
    // An interior key ("directory") has no content.
    assert_eq!(s.get(&k("/a")).unwrap(), None);
    assert_eq!(s.size(&k("/a")).unwrap(), None);
    // Below an object there is nothing.
    assert_eq!(s.get(&k("/a/b/c")).unwrap(), None);
    assert_eq!(s.size(&k("/a/b/c")).unwrap(), None);
}

pub fn empty_objects_exist(fx: &dyn Fixture) {
    let s = fx.create("empty_objects_exist");
    s.set(&k("/empty"), b"").unwrap();
    assert_eq!(s.size(&k("/empty")).unwrap(), Some(0));
    assert_eq!(s.get(&k("/empty")).unwrap(), Some(vec![]));
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap(), names(&["empty"]));
}

pub fn overwrite_replaces_whole_object(fx: &dyn Fixture) {
    let s = fx.create("overwrite_replaces_whole_object");
    s.set(&k("/.zattrs"), b"0123456789").unwrap();
    s.set(&k("/.zattrs"), b"ab").unwrap();
    assert_eq!(s.get(&k("/.zattrs")).unwrap().unwrap(), b"ab");
    // gathered writes: many parts, more than one system call's worth
    let parts: Vec<Vec<u8>> = (0..3000u32).map(|i| i.to_le_bytes().to_vec()).collect();
    let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
    s.set_vectored(&k("/v/0"), &refs).unwrap();
    assert_eq!(s.get(&k("/v/0")).unwrap().unwrap(), parts.concat());
    s.set_vectored(&k("/v/0"), &[b"", b"x", b""]).unwrap();
    assert_eq!(s.get(&k("/v/0")).unwrap().unwrap(), b"x");
}

pub fn set_all_writes_every_object(fx: &dyn Fixture) {
    let s = fx.create("set_all_writes_every_object");
    s.set(&k("/a/old"), b"old").unwrap();
    // directories interleaved, one object replaced, one at the root
    let items: Vec<(StoreKey, Vec<u8>)> = ["/a/x", "/a/y", "/b/c/z", "/a/old", "/.zattrs", "/b/c/w", "/a/v"]
        .iter()
        .enumerate()
        .map(|(i, key)| (k(key), format!("{key}={i}").into_bytes()))
        .collect();
    s.set_all(&items).unwrap();
    for (key, value) in &items {
        assert_eq!(s.get(key).unwrap().as_ref(), Some(value), "{key}");
    }
    assert_eq!(s.list_dir(&k("/a")).unwrap().unwrap(), ["old", "v", "x", "y"]);
    // the tree rule holds, and stops at the first offence
    let bad = vec![(k("/d/1"), b"1".to_vec()), (k("/a/x/below"), b"2".to_vec()), (k("/d/3"), b"3".to_vec())];
    assert!(matches!(s.set_all(&bad), Err(MapError::KeyConflict(_))));
    assert_eq!(s.get(&k("/d/1")).unwrap().unwrap(), b"1");
    assert_eq!(s.get(&k("/a/x")).unwrap().unwrap(), b"/a/x=0");
    assert!(s.get(&k("/d/3")).unwrap().is_none());
}

pub fn ranged_reads(fx: &dyn Fixture) {
    let s = fx.create("ranged_reads");
    let data: Vec<u8> = (0..100).collect();
    s.set(&k("/d"), &data).unwrap();
    assert_eq!(s.get_range(&k("/d"), 10, 5).unwrap().unwrap(), vec![10, 11, 12, 13, 14]);
    assert_eq!(s.get_range(&k("/d"), 100, 0).unwrap().unwrap(), Vec::<u8>::new());
    assert_eq!(s.get_range(&k("/d"), 0, 100).unwrap().unwrap(), data);
    assert!(matches!(s.get_range(&k("/d"), 95, 6), Err(MapError::OutOfRange { .. })));
    assert!(matches!(s.get_range(&k("/d"), u64::MAX, 2), Err(MapError::OutOfRange { .. })));
}

pub fn ranged_writes(fx: &dyn Fixture) {
    let s = fx.create("ranged_writes");
    // Writing in pieces, as netCDF-C's ut_mapapi does.
    s.set_range(&k("/p"), 0, &[1, 2, 3]).unwrap();
    s.set_range(&k("/p"), 3, &[4, 5]).unwrap();
    assert_eq!(s.get(&k("/p")).unwrap().unwrap(), vec![1, 2, 3, 4, 5]);
    // Overwriting the middle keeps both ends.
    s.set_range(&k("/p"), 1, &[9]).unwrap();
    assert_eq!(s.get(&k("/p")).unwrap().unwrap(), vec![1, 9, 3, 4, 5]);
    // Past the end: the gap is zero-filled.
    s.set_range(&k("/q"), 2, &[7]).unwrap();
    assert_eq!(s.get(&k("/q")).unwrap().unwrap(), vec![0, 0, 7]);
}

pub fn list_dir_semantics(fx: &dyn Fixture) {
    let s = fx.create("list_dir_semantics");
    for key in ["/.zgroup", "/.zattrs", "/v/.zarray", "/v/0.0", "/v/0.1", "/g/.zgroup", "/g/w/.zarray", "/g/w/1/2"] {
        s.set(&k(key), b"{}").unwrap();
    }
    // A sibling whose name sorts between "v" and "v/..." must not confuse listings.
    s.set(&k("/v.x"), b"1").unwrap();
    assert_eq!(s.list_dir(&k("/")).unwrap(), names(&[".zattrs", ".zgroup", "g", "v", "v.x"]));
    assert_eq!(s.list_dir(&k("/v")).unwrap(), names(&[".zarray", "0.0", "0.1"]));
    assert_eq!(s.list_dir(&k("/g")).unwrap(), names(&[".zgroup", "w"]));
    assert_eq!(s.list_dir(&k("/g/w")).unwrap(), names(&[".zarray", "1"]));
    assert_eq!(s.list_dir(&k("/g/w/1")).unwrap(), names(&["2"]));
    // An object has no children; a missing prefix is None.
    assert_eq!(s.list_dir(&k("/v/0.0")).unwrap(), Some(vec![]));
    assert_eq!(s.list_dir(&k("/nope")).unwrap(), None);
    assert_eq!(s.list_dir(&k("/v/0.0/x")).unwrap(), None);
}

pub fn empty_root_lists_empty(fx: &dyn Fixture) {
    let s = fx.create("empty_root_lists_empty");
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap(), Some(vec![]));
    assert_eq!(s.list_prefix(&StoreKey::root()).unwrap(), vec![]);
}

pub fn list_prefix_is_recursive_and_sorted(fx: &dyn Fixture) {
    let s = fx.create("list_prefix_is_recursive_and_sorted");
    for key in ["/v/0.1", "/a.b", "/v/.zarray", "/a/x", "/.zgroup", "/v/0.0"] {
        s.set(&k(key), b"").unwrap();
    }
    let all: Vec<String> = s.list_prefix(&StoreKey::root()).unwrap().iter().map(|k| k.to_string()).collect();
    assert_eq!(all, ["/.zgroup", "/a.b", "/a/x", "/v/.zarray", "/v/0.0", "/v/0.1"]);
    let v: Vec<String> = s.list_prefix(&k("/v")).unwrap().iter().map(|k| k.to_string()).collect();
    assert_eq!(v, ["/v/.zarray", "/v/0.0", "/v/0.1"]);
    let a: Vec<String> = s.list_prefix(&k("/a")).unwrap().iter().map(|k| k.to_string()).collect();
    assert_eq!(a, ["/a/x"]);
}

pub fn tree_rule_is_enforced(fx: &dyn Fixture) {
    let s = fx.create("tree_rule_is_enforced");
    s.set(&k("/a/b"), b"1").unwrap();
    // An object cannot sit below another object...
    assert!(matches!(s.set(&k("/a/b/c"), b"2"), Err(MapError::KeyConflict(_))));
    // ...nor on a key that prefixes existing objects.
    assert!(matches!(s.set(&k("/a"), b"3"), Err(MapError::KeyConflict(_))));
    assert!(matches!(s.set_range(&k("/a"), 0, b"3"), Err(MapError::KeyConflict(_))));
    assert!(matches!(s.set(&StoreKey::root(), b"4"), Err(MapError::KeyConflict(_))));
    assert_eq!(s.get(&k("/a/b")).unwrap().unwrap(), b"1");
}

pub fn erase_and_erase_prefix(fx: &dyn Fixture) {
    let s = fx.create("erase_and_erase_prefix");
    for key in ["/.zgroup", "/v/.zarray", "/v/0", "/w/.zarray", "/w/sub/0"] {
        s.set(&k(key), b"x").unwrap();
    }
    s.erase(&k("/v/0")).unwrap();
    s.erase(&k("/v/0")).unwrap(); // erasing a missing key is fine
    assert_eq!(s.get(&k("/v/0")).unwrap(), None);
    s.erase(&k("/v/.zarray")).unwrap();
    // Once a "directory" is empty it is gone from listings.
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap(), names(&[".zgroup", "w"]));
    s.erase_prefix(&k("/w")).unwrap();
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap(), names(&[".zgroup"]));
    // The key "/v" may now hold an object again.
    s.set(&k("/v"), b"y").unwrap();
    s.erase_prefix(&StoreKey::root()).unwrap();
    assert_eq!(s.list_prefix(&StoreKey::root()).unwrap(), vec![]);
}

pub fn reopen_sees_data(fx: &dyn Fixture) {
    let s = fx.create("reopen_sees_data");
    s.set(&k("/g/.zgroup"), b"{}").unwrap();
    s.flush().unwrap();
    let r = fx.reopen("reopen_sees_data", false);
    assert_eq!(r.get(&k("/g/.zgroup")).unwrap().unwrap(), b"{}");
    assert!(!r.is_writable());
}

pub fn read_only_rejects_writes(fx: &dyn Fixture) {
    let s = fx.create("read_only_rejects_writes");
    s.set(&k("/.zgroup"), b"{}").unwrap();
    s.flush().unwrap();
    let r = fx.reopen("read_only_rejects_writes", false);
    assert!(matches!(r.set(&k("/x"), b"1"), Err(MapError::ReadOnly)));
    assert!(matches!(r.set_range(&k("/x"), 0, b"1"), Err(MapError::ReadOnly)));
    assert!(matches!(r.set_all(&[(k("/x"), b"1".to_vec())]), Err(MapError::ReadOnly)));
    assert!(matches!(r.erase(&k("/.zgroup")), Err(MapError::ReadOnly)));
    assert!(matches!(r.erase_prefix(&StoreKey::root()), Err(MapError::ReadOnly)));
    assert!(matches!(r.destroy(), Err(MapError::ReadOnly)));
    assert_eq!(r.get(&k("/.zgroup")).unwrap().unwrap(), b"{}");
    assert_eq!(r.get(&k("/x")).unwrap(), None);
}

pub fn destroy_removes_dataset(fx: &dyn Fixture) {
    let s = fx.create("destroy_removes_dataset");
    s.set(&k("/v/0"), b"x").unwrap();
    s.destroy().unwrap();
    assert_eq!(s.get(&k("/v/0")).unwrap(), None);
}

pub fn unusual_but_valid_names(fx: &dyn Fixture) {
    let s = fx.create("unusual_but_valid_names");
    for key in ["/with space/x", "/ünïcödé/.zarray", "/a-b_c.d/0.0.0", "/...", "/.hidden"] {
        s.set(&k(key), key.as_bytes()).unwrap();
        assert_eq!(s.get(&k(key)).unwrap().unwrap(), key.as_bytes());
    }
}

pub fn concurrent_writers_and_readers(fx: &dyn Fixture) {
    let s = fx.create("concurrent_writers_and_readers");
    std::thread::scope(|scope| {
        for t in 0..4u8 {
            let s = &s;
            scope.spawn(move || {
                for i in 0..50u8 {
                    let key = k(&format!("/v{t}/{i}"));
                    s.set(&key, &[t, i]).unwrap();
                    assert_eq!(s.get(&key).unwrap().unwrap(), vec![t, i]);
                    let _ = s.list_dir(&StoreKey::root()).unwrap();
                }
            });
        }
    });
    assert_eq!(s.list_prefix(&StoreKey::root()).unwrap().len(), 200);
}

fn is_conflict<T: std::fmt::Debug>(r: Result<T, MapError>) -> bool {
    matches!(r, Err(MapError::Conflict(_)))
}

pub fn versioned_reads_and_conditional_writes(fx: &dyn Fixture) {
    let s = fx.create("versioned_reads_and_conditional_writes");
    let key = k("/v/0");
    assert!(s.get_versioned(&key).unwrap().is_none());
    // None: only if absent
    let v1 = s.put_if(&key, b"one", None).unwrap();
    assert!(is_conflict(s.put_if(&key, b"not written", None)));
    let (bytes, v) = s.get_versioned(&key).unwrap().unwrap();
    assert_eq!((bytes.as_slice(), &v), (&b"one"[..], &v1));
    let v2 = s.put_if(&key, b"two", Some(&v1)).unwrap();
    assert_ne!(v1, v2);
    // a stale version is refused, and nothing is written
    assert!(is_conflict(s.put_if(&key, b"three", Some(&v1))));
    assert_eq!(s.get_versioned(&key).unwrap().unwrap(), (b"two".to_vec(), v2.clone()));
    // an unconditional write is a new version too
    s.set(&key, b"four").unwrap();
    assert!(is_conflict(s.put_if(&key, b"five", Some(&v2))));
    let (bytes, v4) = s.get_versioned(&key).unwrap().unwrap();
    assert_eq!(bytes, b"four");
    s.put_if(&key, b"six", Some(&v4)).unwrap();
    // an object removed since it was read is a conflict as well
    let (_, v6) = s.get_versioned(&key).unwrap().unwrap();
    s.erase(&key).unwrap();
    assert!(is_conflict(s.put_if(&key, b"seven", Some(&v6))));
    assert_eq!(s.get(&key).unwrap(), None);
    // the tree rule holds for conditional writes
    s.set(&k("/a/b"), b"x").unwrap();
    assert!(matches!(s.put_if(&k("/a"), b"y", None), Err(MapError::KeyConflict(_))));
    assert!(matches!(s.put_if(&k("/a/b/c"), b"y", None), Err(MapError::KeyConflict(_))));
    s.flush().unwrap();
    drop(s);
    let ro = fx.reopen("versioned_reads_and_conditional_writes", false);
    assert!(matches!(ro.put_if(&k("/a/c"), b"y", None), Err(MapError::ReadOnly)));
    assert!(matches!(ro.lock().map(drop), Err(MapError::ReadOnly)));
    assert_eq!(ro.get_versioned(&k("/a/b")).unwrap().unwrap().0, b"x");
}

/// Read-modify-write loops of several threads on one counter object: with
/// `put_if` no increment is lost.
pub fn conditional_writes_lose_no_update(fx: &dyn Fixture) {
    let s = fx.create("conditional_writes_lose_no_update");
    let key = k("/counter");
    s.put_if(&key, b"0", None).unwrap();
    let (threads, each) = (4, 10);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                for _ in 0..each {
                    loop {
                        let (bytes, v) = s.get_versioned(&key).unwrap().unwrap();
                        let n: u32 = std::str::from_utf8(&bytes).unwrap().parse().unwrap();
                        match s.put_if(&key, (n + 1).to_string().as_bytes(), Some(&v)) {
                            Ok(_) => break,
                            Err(MapError::Conflict(_)) => continue,
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
            });
        }
    });
    assert_eq!(s.get(&key).unwrap().unwrap(), (threads * each).to_string().as_bytes());
}

/// The store lock is exclusive: no two holders at once.
pub fn store_lock_is_exclusive(fx: &dyn Fixture) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let s = fx.create("store_lock_is_exclusive");
    let inside = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..20 {
                    let _l = s.lock().unwrap();
                    assert!(!inside.swap(true, Ordering::SeqCst), "two holders of the store lock");
                    std::thread::yield_now();
                    inside.store(false, Ordering::SeqCst);
                }
            });
        }
    });
    // writes go on while it is held (object writes do not take it)
    let _l = s.lock().unwrap();
    s.set(&k("/x"), b"1").unwrap();
    s.put_if(&k("/y"), b"1", None).unwrap();
}

/// No delete leaves the store through a symbolic link inside it: through a
/// symlinked directory, `erase` and `erase_prefix` are refused as `set` is
/// ([`MapError::Symlink`]); a symlink itself, or one in a tree removed, is
/// unlinked, never followed; neither a clobbering create nor `destroy`
/// touches what a symlink in the store points to.
pub fn no_delete_escapes(fx: &dyn SymlinkFixture) {
    let name = "no_delete_escapes";
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let outside = std::env::temp_dir().join(format!("nczarr-rs-outside-{}-{run}", std::process::id()));
    struct Removed<'a>(&'a Path);
    impl Drop for Removed<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0);
        }
    }
    let _removed = Removed(&outside);
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("keep"), b"outside").unwrap();
    std::fs::write(outside.join("sub/keep"), b"outside").unwrap();
    let intact = |when: &str| {
        for f in ["keep", "sub/keep"] {
            assert_eq!(std::fs::read(outside.join(f)).ok().as_deref(), Some(&b"outside"[..]), "{when}: {f} deleted");
        }
    };
    let symlink = |s: &Arc<dyn Store>, key: &str| {
        s.set(&k("/.zgroup"), b"{}").unwrap();
        fx.symlink(name, key, &outside);
    };
    let s = fx.create(name);
    s.set(&k("/g/x"), b"x").unwrap();
    symlink(&s, "/g/l");
    let through = |r: Result<(), MapError>| matches!(r, Err(MapError::Symlink(_)));
    assert!(through(s.set(&k("/g/l/new"), b"n")), "a write through the link");
    assert!(through(s.erase(&k("/g/l/keep"))), "erase through the link");
    intact("erase");
    assert!(through(s.erase(&k("/g/l/sub/keep"))), "erase through the link");
    assert!(through(s.erase_prefix(&k("/g/l/sub"))), "erase_prefix through the link");
    assert!(through(s.erase_prefix(&k("/g/l/keep"))), "erase_prefix through the link");
    intact("erase_prefix");
    // the link itself is removed, not followed
    s.erase(&k("/g/l")).unwrap();
    intact("erase of the link");
    assert_eq!(s.list_dir(&k("/g")).unwrap(), names(&["x"]));
    symlink(&s, "/g/l");
    s.erase_prefix(&k("/g/l")).unwrap();
    intact("erase_prefix of the link");
    // links inside trees removed
    symlink(&s, "/g/l");
    s.erase_prefix(&k("/g")).unwrap();
    intact("erase_prefix of a tree holding the link");
    symlink(&s, "/l");
    s.erase_prefix(&StoreKey::root()).unwrap();
    intact("erase_prefix of the root");
    symlink(&s, "/l");
    symlink(&s, "/g/l");
    drop(s);
    let s = fx.create(name);
    intact("a clobbering create");
    symlink(&s, "/l");
    s.destroy().unwrap();
    intact("destroy");
}

/// Expands to one `#[test]` per conformance check, for the fixture given;
/// `(fixture, symlinks)` adds the checks that plant symbolic links
/// ([`SymlinkFixture`]).
#[macro_export]
macro_rules! store_conformance_tests {
    ($fixture:expr, symlinks) => {
        $crate::store_conformance_tests!($fixture);
        $crate::store_conformance_tests!(@each $fixture; no_delete_escapes);
    };
    ($fixture:expr) => {
        $crate::store_conformance_tests!(@each $fixture;
            set_get_roundtrip, missing_keys_are_none, empty_objects_exist,
            overwrite_replaces_whole_object, set_all_writes_every_object, ranged_reads, ranged_writes,
            list_dir_semantics, empty_root_lists_empty, list_prefix_is_recursive_and_sorted,
            tree_rule_is_enforced, erase_and_erase_prefix, reopen_sees_data,
            read_only_rejects_writes, destroy_removes_dataset, unusual_but_valid_names,
            concurrent_writers_and_readers, versioned_reads_and_conditional_writes,
            conditional_writes_lose_no_update, store_lock_is_exclusive);
    };
    (@each $fixture:expr; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                let fixture = &$fixture;
                if $crate::map::conformance::Fixture::available(fixture) {
                    $crate::map::conformance::$check(fixture);
                }
            }
        )*
    };
}
