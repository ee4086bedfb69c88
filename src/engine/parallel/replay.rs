//! The metadata reads of a parallel open, made once: rank 0 opens the
//! dataset through a [`Recorder`], which notes every read request and its
//! answer; the log goes to the other ranks by broadcast, and each opens
//! through a [`Replayer`], which answers those requests from the log. The
//! format readers run unchanged on every rank (any format, any layout),
//! and N ranks make the store requests of one. A request the log does not
//! hold (there is none in a successful open) goes to the store.

use super::comm::{Unwire, Wire};
use crate::engine::NcResult;
use crate::map::{
    ByteRange, ConditionalStore, ListableStore, MapResult, ReadableStore, Store, StoreKey, StoreLock, Version,
    WritableStore,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A read request, as bytes: its kind, its key and its arguments.
fn call(kind: u8, key: &StoreKey, args: &[u64]) -> Vec<u8> {
    let mut w = Wire::default();
    w.u64(u64::from(kind)).bytes(key.as_str().as_bytes());
    args.iter().for_each(|&a| {
        w.u64(a);
    });
    w.0
}

const GET: u8 = 1;
const GET_RANGE: u8 = 2;
const GET_PART_AT: u8 = 3;
const GET_PART_LAST: u8 = 4;
const GET_MAX: u8 = 5;
const SIZE: u8 = 6;
const LIST_DIR: u8 = 7;
const LIST_PREFIX: u8 = 8;
const GET_VERSIONED: u8 = 9;
const ROOT_EXISTS: u8 = 10;

fn part_call(key: &StoreKey, range: ByteRange) -> Vec<u8> {
    match range {
        ByteRange::At { start, count } => call(GET_PART_AT, key, &[start, count]),
        ByteRange::Last(n) => call(GET_PART_LAST, key, &[n]),
    }
}

/// How each answer is written and read back.
trait Answer: Sized {
    fn put(&self, w: &mut Wire);
    fn take(r: &mut Unwire<'_>) -> NcResult<Self>;
}

impl Answer for Vec<u8> {
    fn put(&self, w: &mut Wire) {
        w.bytes(self);
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        Ok(r.bytes()?.to_vec())
    }
}

impl Answer for u64 {
    fn put(&self, w: &mut Wire) {
        w.u64(*self);
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        r.u64()
    }
}

impl Answer for bool {
    fn put(&self, w: &mut Wire) {
        w.u64(u64::from(*self));
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        Ok(r.u64()? != 0)
    }
}

impl Answer for String {
    fn put(&self, w: &mut Wire) {
        w.bytes(self.as_bytes());
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        String::from_utf8(r.bytes()?.to_vec()).map_err(|_| bad())
    }
}

impl Answer for StoreKey {
    fn put(&self, w: &mut Wire) {
        w.bytes(self.as_str().as_bytes());
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        StoreKey::parse_owned(String::take(r)?).map_err(|_| bad())
    }
}

impl Answer for Version {
    fn put(&self, w: &mut Wire) {
        w.bytes(self.as_str().as_bytes());
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        Ok(Version::new(String::take(r)?))
    }
}

impl<A: Answer, B: Answer> Answer for (A, B) {
    fn put(&self, w: &mut Wire) {
        self.0.put(w);
        self.1.put(w);
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        Ok((A::take(r)?, B::take(r)?))
    }
}

impl<A: Answer> Answer for Option<A> {
    fn put(&self, w: &mut Wire) {
        w.u64(u64::from(self.is_some()));
        if let Some(a) = self {
            a.put(w);
        }
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        Ok(if r.u64()? != 0 { Some(A::take(r)?) } else { None })
    }
}

impl<A: Answer> Answer for Vec<A>
where
    A: NotByte,
{
    fn put(&self, w: &mut Wire) {
        w.u64(self.len() as u64);
        self.iter().for_each(|a| a.put(w));
    }
    fn take(r: &mut Unwire<'_>) -> NcResult<Self> {
        let n = r.u64()?;
        // each element takes at least 8 bytes of the message
        if n > (r.0.len() / 8) as u64 {
            return Err(bad());
        }
        (0..n).map(|_| A::take(r)).collect()
    }
}

/// Vectors of these are lists (a `Vec<u8>` is bytes).
trait NotByte {}
impl NotByte for String {}
impl NotByte for StoreKey {}

fn bad() -> crate::engine::NcError {
    crate::engine::NcError::with(crate::engine::error::NC_EMPI, "a malformed metadata log from rank 0")
}

/// A store that notes every read and its answer (rank 0 of a parallel open).
pub(super) struct Recorder {
    inner: Arc<dyn Store>,
    log: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
}

impl Recorder {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        Recorder { inner, log: Mutex::new(Vec::new()) }
    }

    fn note<A: Answer>(&self, call: Vec<u8>, got: MapResult<A>) -> MapResult<A> {
        if let Ok(a) = &got {
            let mut w = Wire::default();
            a.put(&mut w);
            self.log.lock().unwrap_or_else(|p| p.into_inner()).push((call, w.0));
        }
        got
    }

    /// The log, as one message.
    pub fn log(&self) -> Vec<u8> {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        let mut w = Wire::default();
        w.u64(log.len() as u64);
        for (c, a) in log.iter() {
            w.bytes(c).bytes(a);
        }
        w.0
    }
}

/// A store that answers the reads of a [`Recorder`]'s log.
pub(super) struct Replayer {
    inner: Arc<dyn Store>,
    answers: HashMap<Vec<u8>, Vec<u8>>,
}

impl Replayer {
    pub fn new(inner: Arc<dyn Store>, log: &[u8]) -> NcResult<Self> {
        let mut r = Unwire(log);
        let n = r.u64()?;
        let mut answers = HashMap::new();
        for _ in 0..n {
            let c = r.bytes()?.to_vec();
            let a = r.bytes()?.to_vec();
            answers.insert(c, a);
        }
        if !r.is_empty() {
            return Err(bad());
        }
        Ok(Replayer { inner, answers })
    }

    fn answer<A: Answer>(&self, call: Vec<u8>, ask: impl FnOnce() -> MapResult<A>) -> MapResult<A> {
        match self.answers.get(&call).map(|a| A::take(&mut Unwire(a))) {
            Some(Ok(a)) => Ok(a),
            _ => ask(),
        }
    }
}

/// The read half of both wrappers: `$self.wrap(call, || inner read)`.
macro_rules! reads {
    ($t:ty, $wrap:ident) => {
        impl ReadableStore for $t {
            fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
                self.$wrap(call(GET, key, &[]), || self.inner.get(key))
            }
            fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
                self.$wrap(call(GET_RANGE, key, &[start, count]), || self.inner.get_range(key, start, count))
            }
            fn get_part(&self, key: &StoreKey, range: ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
                self.$wrap(part_call(key, range), || self.inner.get_part(key, range))
            }
            fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
                self.$wrap(call(GET_MAX, key, &[max]), || self.inner.get_max(key, max))
            }
            fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
                self.$wrap(call(SIZE, key, &[]), || self.inner.size(key))
            }
            fn get_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> MapResult<bool> {
                match self.get(key)? {
                    Some(v) => {
                        *buf = v;
                        Ok(true)
                    }
                    None => Ok(false),
                }
            }
        }

        impl ListableStore for $t {
            fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
                self.$wrap(call(LIST_DIR, prefix, &[]), || self.inner.list_dir(prefix))
            }
            fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
                self.$wrap(call(LIST_PREFIX, prefix, &[]), || self.inner.list_prefix(prefix))
            }
        }

        impl ConditionalStore for $t {
            fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, Version)>> {
                self.$wrap(call(GET_VERSIONED, key, &[]), || self.inner.get_versioned(key))
            }
            fn put_if(&self, key: &StoreKey, value: &[u8], expected: Option<&Version>) -> MapResult<Version> {
                self.inner.put_if(key, value, expected)
            }
            fn lock(&self) -> MapResult<StoreLock<'_>> {
                self.inner.lock()
            }
        }

        impl WritableStore for $t {
            fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
                self.inner.set(key, value)
            }
            fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
                self.inner.set_range(key, offset, value)
            }
            fn set_vectored(&self, key: &StoreKey, parts: &[&[u8]]) -> MapResult<()> {
                self.inner.set_vectored(key, parts)
            }
            fn set_all(&self, items: &[(StoreKey, Vec<u8>)]) -> MapResult<()> {
                self.inner.set_all(items)
            }
            fn erase(&self, key: &StoreKey) -> MapResult<()> {
                self.inner.erase(key)
            }
            fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
                self.inner.erase_prefix(prefix)
            }
        }

        impl Store for $t {
            fn location(&self) -> &str {
                self.inner.location()
            }
            fn is_writable(&self) -> bool {
                self.inner.is_writable()
            }
            fn check_writable(&self) -> MapResult<()> {
                self.inner.check_writable()
            }
            fn io_bound(&self) -> bool {
                self.inner.io_bound()
            }
            fn root_exists(&self) -> MapResult<bool> {
                self.$wrap(call(ROOT_EXISTS, &StoreKey::root(), &[]), || self.inner.root_exists())
            }
            fn flush(&self) -> MapResult<()> {
                self.inner.flush()
            }
            fn destroy(&self) -> MapResult<()> {
                self.inner.destroy()
            }
        }
    };
}

reads!(Recorder, note_call);
reads!(Replayer, answer);

impl Recorder {
    fn note_call<A: Answer>(&self, call: Vec<u8>, ask: impl FnOnce() -> MapResult<A>) -> MapResult<A> {
        self.note(call, ask())
    }
}
