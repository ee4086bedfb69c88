//! The in-memory driver: datasets held in this process, addressed by name.
//!
//! Stores live in a process-wide registry, so a dataset created under a
//! name can be reopened under that name (by another handle or thread) until
//! it is destroyed. The location may be given as `mem://name` or `name`.

use super::{splice, MapError, MapResult, Store, StoreKey, Version};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, RwLock};

static REGISTRY: LazyLock<Mutex<HashMap<String, Arc<ObjectMap>>>> = LazyLock::new(Default::default);

fn registry() -> std::sync::MutexGuard<'static, HashMap<String, Arc<ObjectMap>>> {
    // A panic while holding the registry lock cannot leave it inconsistent
    // (every update is a single insert/remove), so poisoning is ignored.
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

fn store_name(location: &str) -> MapResult<String> {
    let name = location.strip_prefix("mem://").unwrap_or(location);
    let name = name.split('#').next().unwrap_or("");
    if name.is_empty() {
        return Err(MapError::InvalidLocation(location.to_string()));
    }
    Ok(name.to_string())
}

/// A handle on one in-memory dataset.
pub struct MemoryStore {
    name: String,
    objects: Arc<ObjectMap>,
    writable: bool,
}

impl MemoryStore {
    pub fn create(location: &str, clobber: bool) -> MapResult<Self> {
        let name = store_name(location)?;
        let mut reg = registry();
        if reg.contains_key(&name) && !clobber {
            return Err(MapError::AlreadyExists(location.to_string()));
        }
        let objects: Arc<ObjectMap> = Default::default();
        reg.insert(name.clone(), objects.clone());
        Ok(MemoryStore { name, objects, writable: true })
    }

    /// An empty read-only store of its own, in no registry (nothing can
    /// open it by name): the store of a dataset whose data live elsewhere.
    pub fn detached(location: &str) -> Self {
        MemoryStore { name: location.to_string(), objects: Default::default(), writable: false }
    }

    pub fn open(location: &str, writable: bool) -> MapResult<Self> {
        let name = store_name(location)?;
        let objects = registry().get(&name).cloned().ok_or_else(|| MapError::RootNotFound(location.to_string()))?;
        Ok(MemoryStore { name, objects, writable })
    }
}

/// A byte range of an object (`None`: all of it).
pub(crate) type Span = Option<std::ops::Range<usize>>;

/// Where the bytes of an object are kept out of memory (the zip archive a
/// dataset was read from): they are read on demand.
pub(crate) trait EntrySource: Send + Sync + 'static {
    /// The source as its own type (the driver that made it needs it back).
    fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;

    /// `range` (all when `None`) of entry `index`, which holds `size` bytes.
    fn read(&self, key: &StoreKey, index: usize, size: u64, range: Span) -> MapResult<Vec<u8>>;
}

/// One object of an [`ObjectMap`].
#[derive(Clone)]
pub(crate) enum Obj {
    Bytes(Arc<Vec<u8>>),
    /// Entry `index` of `src`, `size` bytes long.
    Entry {
        src: Arc<dyn EntrySource>,
        index: usize,
        size: u64,
    },
}

impl Obj {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Obj::Bytes(b) => b.len() as u64,
            Obj::Entry { size, .. } => *size,
        }
    }

    /// The bytes of `range` (all when `None`).
    pub(crate) fn read(&self, key: &StoreKey, range: Span) -> MapResult<Vec<u8>> {
        match (self, range) {
            (Obj::Bytes(b), None) => Ok(b.as_ref().clone()),
            (Obj::Bytes(b), Some(r)) => Ok(b[r].to_vec()),
            (Obj::Entry { src, index, size }, r) => src.read(key, *index, *size, r),
        }
    }

    /// The same object (not just equal bytes).
    fn same(&self, other: &Obj) -> bool {
        match (self, other) {
            (Obj::Bytes(a), Obj::Bytes(b)) => Arc::ptr_eq(a, b),
            (Obj::Entry { src: a, index: i, .. }, Obj::Entry { src: b, index: j, .. }) => Arc::ptr_eq(a, b) && i == j,
            _ => false,
        }
    }
}

/// An object and its generation: a number no other write in this process
/// got (the object's [`Version`]).
#[derive(Clone)]
struct Slot {
    obj: Obj,
    generation: u64,
}

static GENERATION: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATION.fetch_add(1, Ordering::Relaxed)
}

fn version(generation: u64) -> Version {
    Version::new(generation.to_string())
}

type Objects = BTreeMap<StoreKey, Slot>;

/// The tree rule: no object may sit on a proper prefix of `key`, and `key`
/// may not be a proper prefix of an existing object.
fn check_tree_rule(objects: &Objects, key: &StoreKey) -> MapResult<()> {
    if tree_conflict(key, |prefix| objects.contains_key(prefix)) || below(objects, key).next().is_some() {
        return Err(MapError::KeyConflict(key.to_string()));
    }
    Ok(())
}

/// Whether an object (`is_object`) sits on a proper prefix of `key`: one
/// lookup per ancestor, by a slice of the key, so a key of depth `d` costs
/// `d - 1` lookups and no parsing or allocation (each ancestor was parsed
/// and allocated before, which made a deep key's put quadratic in its
/// length, and the map comparisons on top cubic).
fn tree_conflict(key: &StoreKey, is_object: impl FnMut(&str) -> bool) -> bool {
    key.ancestors().any(is_object)
}

/// The objects strictly below `prefix`, in key order.
fn below<'a>(objects: &'a Objects, prefix: &'a StoreKey) -> impl Iterator<Item = (&'a StoreKey, &'a Slot)> + 'a {
    objects.range(prefix.below_bound()..).take_while(move |(k, _)| k.is_below(prefix))
}

/// An ordered map of objects with the zmap semantics, shared by the drivers
/// that hold a dataset in memory (memory, zip).
#[derive(Default)]
pub(crate) struct ObjectMap {
    objects: RwLock<Objects>,
    /// The store lock ([`super::ConditionalStore::lock`]).
    writer: Mutex<()>,
}

impl ObjectMap {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Objects> {
        self.objects.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Objects> {
        self.objects.write().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn get(&self, key: &StoreKey) -> Option<Obj> {
        self.read().get(key).map(|s| s.obj.clone())
    }

    /// The object and its version.
    pub(crate) fn get_versioned(&self, key: &StoreKey) -> Option<(Obj, Version)> {
        self.read().get(key).map(|s| (s.obj.clone(), version(s.generation)))
    }

    pub(crate) fn size(&self, key: &StoreKey) -> Option<u64> {
        self.read().get(key).map(|s| s.obj.len())
    }

    /// Replaces the object if it is at `expected` (`None`: absent).
    pub(crate) fn put_if(&self, key: &StoreKey, value: Vec<u8>, expected: Option<&Version>) -> MapResult<Version> {
        let mut objects = self.write();
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        if objects.get(key).map(|s| version(s.generation)).as_ref() != expected {
            return Err(MapError::Conflict(key.to_string()));
        }
        check_tree_rule(&objects, key)?;
        let generation = next_generation();
        objects.insert(key.clone(), Slot { obj: Obj::Bytes(Arc::new(value)), generation });
        Ok(version(generation))
    }

    /// The store lock.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn set(&self, key: &StoreKey, value: Vec<u8>) -> MapResult<()> {
        self.put(key, Obj::Bytes(Arc::new(value)))
    }

    /// Adds or replaces an object (the tree rule applies).
    pub(crate) fn put(&self, key: &StoreKey, obj: Obj) -> MapResult<()> {
        let mut objects = self.write();
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        check_tree_rule(&objects, key)?;
        objects.insert(key.clone(), Slot { obj, generation: next_generation() });
        Ok(())
    }

    pub(crate) fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
        let mut objects = self.write();
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        check_tree_rule(&objects, key)?;
        let old = match objects.remove(key) {
            Some(Slot { obj: Obj::Bytes(v), .. }) => Some(Arc::try_unwrap(v).unwrap_or_else(|a| a.as_ref().clone())),
            Some(slot) => match slot.obj.read(key, None) {
                Ok(v) => Some(v),
                Err(e) => {
                    objects.insert(key.clone(), slot);
                    return Err(e);
                }
            },
            None => None,
        };
        let obj = Obj::Bytes(Arc::new(splice(key, old, offset, value)?));
        objects.insert(key.clone(), Slot { obj, generation: next_generation() });
        Ok(())
    }

    /// Replaces every object of `before` that has not changed since with
    /// its counterpart in `after` (same keys, same order): the same
    /// content kept elsewhere, so its version stays.
    pub(crate) fn rebase(&self, before: &[(StoreKey, Obj)], after: Vec<Obj>) {
        let mut objects = self.write();
        for ((key, old), new) in before.iter().zip(after) {
            if let Some(cur) = objects.get_mut(key) {
                if cur.obj.same(old) {
                    cur.obj = new;
                }
            }
        }
    }

    pub(crate) fn erase(&self, key: &StoreKey) {
        self.write().remove(key);
    }

    pub(crate) fn erase_prefix(&self, prefix: &StoreKey) {
        self.write().retain(|k, _| !k.starts_with(prefix));
    }

    pub(crate) fn clear(&self) {
        self.write().clear();
    }

    pub(crate) fn list_dir(&self, prefix: &StoreKey) -> Option<Vec<String>> {
        let objects = self.read();
        if objects.contains_key(prefix) {
            return Some(Vec::new());
        }
        let skip = if prefix.is_root() { 0 } else { prefix.as_str().len() + 1 };
        let names: BTreeSet<String> = below(&objects, prefix)
            .filter_map(|(k, _)| k.as_str().get(skip..)?.split('/').next().map(str::to_string))
            .collect();
        if names.is_empty() && !prefix.is_root() {
            return None;
        }
        Some(names.into_iter().collect())
    }

    pub(crate) fn list_prefix(&self, prefix: &StoreKey) -> Vec<StoreKey> {
        let objects = self.read();
        let mut keys: Vec<StoreKey> = below(&objects, prefix).map(|(k, _)| k.clone()).collect();
        if objects.contains_key(prefix) {
            keys.insert(0, prefix.clone());
        }
        keys
    }

    /// Every object, in key order.
    pub(crate) fn snapshot(&self) -> Vec<(StoreKey, Obj)> {
        self.read().iter().map(|(k, s)| (k.clone(), s.obj.clone())).collect()
    }
}

/// The read, write and list traits of a driver that keeps its objects in
/// an `objects: ObjectMap` field and checks `self.check_writable()` before
/// every change.
macro_rules! object_map_store {
    ($t:ty) => {
        impl $crate::map::ReadableStore for $t {
            fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
                self.objects.get(key).map(|o| o.read(key, None)).transpose()
            }

            fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
                let Some(o) = self.objects.get(key) else { return Ok(None) };
                $crate::limits::check(o.len(), max).map_err(|why| $crate::map::too_large(key, why))?;
                o.read(key, None).map(Some)
            }

            fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
                let Some(o) = self.objects.get(key) else { return Ok(None) };
                let range = $crate::map::checked_range(key, start, count, o.len())?;
                o.read(key, Some(range)).map(Some)
            }

            fn get_part(&self, key: &StoreKey, range: $crate::map::ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
                let Some(o) = self.objects.get(key) else { return Ok(None) };
                let (start, count) = range.resolve(key, o.len())?;
                let range = $crate::map::checked_range(key, start, count, o.len())?;
                Ok(Some((o.read(key, Some(range))?, o.len())))
            }

            fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
                Ok(self.objects.size(key))
            }
        }

        impl $crate::map::WritableStore for $t {
            fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
                self.check_writable()?;
                self.objects.set(key, value.to_vec())
            }

            fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
                self.check_writable()?;
                self.objects.set_range(key, offset, value)
            }

            fn erase(&self, key: &StoreKey) -> MapResult<()> {
                self.check_writable()?;
                self.objects.erase(key);
                Ok(())
            }

            fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
                self.check_writable()?;
                self.objects.erase_prefix(prefix);
                Ok(())
            }
        }

        impl $crate::map::ConditionalStore for $t {
            fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, $crate::map::Version)>> {
                let Some((o, v)) = self.objects.get_versioned(key) else { return Ok(None) };
                Ok(Some((o.read(key, None)?, v)))
            }

            fn put_if(
                &self,
                key: &StoreKey,
                value: &[u8],
                expected: Option<&$crate::map::Version>,
            ) -> MapResult<$crate::map::Version> {
                self.check_writable()?;
                self.objects.put_if(key, value.to_vec(), expected)
            }

            fn lock(&self) -> MapResult<$crate::map::StoreLock<'_>> {
                if !$crate::map::Store::is_writable(self) {
                    return Err(MapError::ReadOnly);
                }
                Ok($crate::map::StoreLock::new(self.objects.lock()))
            }
        }

        impl $crate::map::ListableStore for $t {
            fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
                Ok(self.objects.list_dir(prefix))
            }

            fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
                Ok(self.objects.list_prefix(prefix))
            }
        }
    };
}
pub(crate) use object_map_store;

object_map_store!(MemoryStore);

impl Store for MemoryStore {
    fn location(&self) -> &str {
        &self.name
    }

    fn is_writable(&self) -> bool {
        self.writable
    }

    fn destroy(&self) -> MapResult<()> {
        self.check_writable()?;
        let mut reg = registry();
        if reg.get(&self.name).is_some_and(|o| Arc::ptr_eq(o, &self.objects)) {
            reg.remove(&self.name);
        }
        drop(reg);
        self.objects.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A depth-`d` key.
    fn deep(d: usize) -> StoreKey {
        StoreKey::parse(&vec!["s"; d].join("/")).unwrap()
    }

    #[test]
    fn tree_rule_costs_one_lookup_per_ancestor() {
        for d in [1, 2, 1000] {
            let key = deep(d);
            let mut lookups = Vec::new();
            assert!(!tree_conflict(&key, |p| {
                lookups.push(p.len());
                false
            }));
            assert_eq!(lookups.len(), d - 1, "depth {d}");
            // each lookup a prefix of the key, one segment longer than the last
            assert!(lookups.iter().enumerate().all(|(i, &n)| n == 2 * i + 1));
        }
        // stops at the first object on the way down
        let mut n = 0;
        assert!(tree_conflict(&deep(1000), |p| {
            n += 1;
            p == "s/s/s"
        }));
        assert_eq!(n, 3);
    }

    #[test]
    fn deep_keys_keep_the_tree_rule() {
        let map = ObjectMap::default();
        let key = deep(10_000);
        map.set(&key, b"x".to_vec()).unwrap();
        assert_eq!(map.size(&key), Some(1));
        // an object above it, or below it, is refused
        assert!(matches!(map.set(&deep(5_000), vec![]), Err(MapError::KeyConflict(_))));
        assert!(matches!(map.set(&key.child("t").unwrap(), vec![]), Err(MapError::KeyConflict(_))));
        // a sibling at every depth is fine
        map.set(&StoreKey::parse(&format!("{}/u", vec!["s"; 9_999].join("/"))).unwrap(), vec![]).unwrap();
        assert_eq!(map.list_prefix(&deep(9_999)).len(), 2);
    }
}
