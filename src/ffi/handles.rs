//! Thread-safe tables that map integer handles to Rust objects.

use crate::engine::error::{NC_EBADID, NC_ENFILE};
use crate::engine::{NcError, NcResult};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Integer handles in `min..=max` for shared objects. Ids are handed out
/// round-robin, so a closed handle is not reused at once and a stale id
/// gives `NC_EBADID` rather than someone else's object.
///
/// A handle may also be known by aliases, numbers another library chose
/// for it (netCDF-C's file numbers, for the UDF table): an alias lives in
/// the same table, under the same lock, and goes with its handle.
pub(crate) struct HandleTable<T: ?Sized> {
    inner: RwLock<Inner<T>>,
    min: i32,
    max: i32,
}

struct Inner<T: ?Sized> {
    items: BTreeMap<i32, Arc<T>>,
    last: i32,
    /// alias -> handle
    aliases: BTreeMap<i32, i32>,
}

impl<T: ?Sized> HandleTable<T> {
    /// Handles `1..=max`.
    pub(crate) const fn new(max: i32) -> Self {
        Self::with_range(1, max)
    }

    /// Handles `min..=max` (`1 <= min <= max`).
    pub(crate) const fn with_range(min: i32, max: i32) -> Self {
        HandleTable {
            inner: RwLock::new(Inner { items: BTreeMap::new(), last: min - 1, aliases: BTreeMap::new() }),
            min,
            max,
        }
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

    /// Removes handle `id` and its aliases.
    pub(crate) fn remove(&self, id: i32) -> NcResult<Arc<T>> {
        let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
        let item = inner.items.remove(&id).ok_or(NcError::new(NC_EBADID))?;
        if !inner.aliases.is_empty() {
            inner.aliases.retain(|_, h| *h != id);
        }
        Ok(item)
    }

    /// Makes `alias` another name of the open handle `id` (replacing what
    /// `alias` named before).
    pub(crate) fn alias(&self, alias: i32, id: i32) -> NcResult<()> {
        let mut inner = self.inner.write().unwrap_or_else(|p| p.into_inner());
        if !inner.items.contains_key(&id) {
            return Err(NcError::new(NC_EBADID));
        }
        inner.aliases.insert(alias, id);
        Ok(())
    }

    /// The handle `alias` names.
    pub(crate) fn resolve(&self, alias: i32) -> NcResult<i32> {
        let inner = self.inner.read().unwrap_or_else(|p| p.into_inner());
        inner.aliases.get(&alias).copied().ok_or(NcError::new(NC_EBADID))
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
    fn aliases_name_a_handle_and_go_with_it() {
        let t: HandleTable<str> = HandleTable::with_range(0x4000, 0x4010);
        let a = t.insert(Arc::from("a")).unwrap();
        let b = t.insert(Arc::from("b")).unwrap();
        assert_eq!(t.alias(1, 0x4fff).unwrap_err().code(), NC_EBADID);
        t.alias(1, a).unwrap();
        t.alias(2, b).unwrap();
        assert_eq!((t.resolve(1).unwrap(), t.resolve(2).unwrap()), (a, b));
        assert_eq!(t.resolve(3).unwrap_err().code(), NC_EBADID);
        t.remove(a).unwrap();
        assert_eq!(t.resolve(1).unwrap_err().code(), NC_EBADID);
        assert_eq!(t.resolve(2).unwrap(), b);
        t.alias(2, t.insert(Arc::from("c")).unwrap()).unwrap(); // a reused number
        assert_eq!(&*t.get(t.resolve(2).unwrap()).unwrap(), "c");
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
