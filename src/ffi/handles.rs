//! Thread-safe tables that map integer handles to Rust objects.

use crate::engine::error::{NC_EBADID, NC_ENFILE};
use crate::engine::{NcError, NcResult};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Integer handles in `min..=max` for shared objects. Ids are handed out
/// round-robin, so a closed handle is not reused at once and a stale id
/// gives `NC_EBADID` rather than someone else's object.
pub(crate) struct HandleTable<T: ?Sized> {
    inner: RwLock<Inner<T>>,
    min: i32,
    max: i32,
}

struct Inner<T: ?Sized> {
    items: BTreeMap<i32, Arc<T>>,
    last: i32,
}

impl<T: ?Sized> HandleTable<T> {
    /// Handles `1..=max`.
    pub(crate) const fn new(max: i32) -> Self {
        Self::with_range(1, max)
    }

    /// Handles `min..=max` (`1 <= min <= max`).
    pub(crate) const fn with_range(min: i32, max: i32) -> Self {
        HandleTable { inner: RwLock::new(Inner { items: BTreeMap::new(), last: min - 1 }), min, max }
    }

    /// Stores `item` and returns its new handle (`NC_ENFILE` when full).
    pub(crate) fn insert(&self, item: Arc<T>) -> NcResult<i32> {
        let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
        if inner.items.len() >= (self.max - self.min + 1) as usize {
            return Err(NcError::new(NC_ENFILE));
        }
        let mut id = inner.last;
        loop {
            id = if id >= self.max { self.min } else { id + 1 };
            if !inner.items.contains_key(&id) {
                break;
            }
        }
        inner.items.insert(id, item);
        inner.last = id;
        Ok(id)
    }

    pub(crate) fn get(&self, id: i32) -> NcResult<Arc<T>> {
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        inner.items.get(&id).cloned().ok_or(NcError::new(NC_EBADID))
    }

    pub(crate) fn remove(&self, id: i32) -> NcResult<Arc<T>> {
        let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
        inner.items.remove(&id).ok_or(NcError::new(NC_EBADID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_not_reused_immediately_and_table_fills() {
        let t: HandleTable<str> = HandleTable::new(3);
        let a = t.insert(Arc::from("a")).unwrap();
        let b = t.insert(Arc::from("b")).unwrap();
        assert_eq!((a, b), (1, 2));
        t.remove(a).unwrap();
        assert_eq!(t.get(a).unwrap_err().code(), NC_EBADID);
        assert_eq!(t.insert(Arc::from("c")).unwrap(), 3);
        assert_eq!(t.insert(Arc::from("d")).unwrap(), 1); // wraps to the free slot
        assert_eq!(t.insert(Arc::from("e")).unwrap_err().code(), NC_ENFILE);
        assert_eq!(&*t.get(2).unwrap(), "b");
        assert_eq!(t.remove(99).unwrap_err().code(), NC_EBADID);
    }

    #[test]
    fn ranges_stay_inside() {
        let t: HandleTable<str> = HandleTable::with_range(0x4000, 0x4001);
        assert_eq!(t.insert(Arc::from("a")).unwrap(), 0x4000);
        assert_eq!(t.insert(Arc::from("b")).unwrap(), 0x4001);
        assert_eq!(t.insert(Arc::from("c")).unwrap_err().code(), NC_ENFILE);
        t.remove(0x4000).unwrap();
        assert_eq!(t.insert(Arc::from("d")).unwrap(), 0x4000);
    }
}
