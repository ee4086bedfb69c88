//! The in-memory driver: datasets held in this process, addressed by name.
//!
//! Stores live in a process-wide registry, so a dataset created under a
//! name can be reopened under that name (by another handle or thread) until
//! it is destroyed. The location may be given as `mem://name` or `name`.

use super::{splice, Features, ListableStore, MapError, MapResult, ReadableStore, Store, StoreKey, WritableStore};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, Mutex, RwLock};

type Objects = RwLock<BTreeMap<StoreKey, Arc<Vec<u8>>>>;

static REGISTRY: LazyLock<Mutex<HashMap<String, Arc<Objects>>>> = LazyLock::new(Default::default);

fn registry() -> std::sync::MutexGuard<'static, HashMap<String, Arc<Objects>>> {
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
    objects: Arc<Objects>,
    writable: bool,
}

impl MemoryStore {
    pub fn create(location: &str, clobber: bool) -> MapResult<Self> {
        let name = store_name(location)?;
        let mut reg = registry();
        if reg.contains_key(&name) && !clobber {
            return Err(MapError::AlreadyExists(location.to_string()));
        }
        let objects: Arc<Objects> = Default::default();
        reg.insert(name.clone(), objects.clone());
        Ok(MemoryStore { name, objects, writable: true })
    }

    pub fn open(location: &str, writable: bool) -> MapResult<Self> {
        let name = store_name(location)?;
        let objects = registry()
            .get(&name)
            .cloned()
            .ok_or_else(|| MapError::RootNotFound(location.to_string()))?;
        Ok(MemoryStore { name, objects, writable })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<StoreKey, Arc<Vec<u8>>>> {
        self.objects.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> MapResult<std::sync::RwLockWriteGuard<'_, BTreeMap<StoreKey, Arc<Vec<u8>>>>> {
        if !self.writable {
            return Err(MapError::ReadOnly);
        }
        Ok(self.objects.write().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The tree rule: no object may sit on a proper prefix of `key`, and `key`
/// may not be a proper prefix of an existing object.
fn check_tree_rule(objects: &BTreeMap<StoreKey, Arc<Vec<u8>>>, key: &StoreKey) -> MapResult<()> {
    let mut prefix = String::new();
    let segs: Vec<&str> = key.segments().collect();
    for seg in &segs[..segs.len().saturating_sub(1)] {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(seg);
        if objects.contains_key(&StoreKey::parse(&prefix)?) {
            return Err(MapError::KeyConflict(key.to_string()));
        }
    }
    if below(objects, key).next().is_some() {
        return Err(MapError::KeyConflict(key.to_string()));
    }
    Ok(())
}

/// The objects strictly below `prefix`, in key order.
fn below<'a>(
    objects: &'a BTreeMap<StoreKey, Arc<Vec<u8>>>,
    prefix: &'a StoreKey,
) -> impl Iterator<Item = (&'a StoreKey, &'a Arc<Vec<u8>>)> + 'a {
    objects.range(prefix.below_bound()..).take_while(move |(k, _)| k.is_below(prefix))
}

impl ReadableStore for MemoryStore {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        Ok(self.read().get(key).map(|v| v.as_ref().clone()))
    }

    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        let objects = self.read();
        let Some(v) = objects.get(key) else { return Ok(None) };
        let range = super::checked_range(key, start, count, v.len() as u64)?;
        Ok(Some(v[range].to_vec()))
    }

    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        Ok(self.read().get(key).map(|v| v.len() as u64))
    }
}

impl WritableStore for MemoryStore {
    fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
        let mut objects = self.write()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        check_tree_rule(&objects, key)?;
        objects.insert(key.clone(), Arc::new(value.to_vec()));
        Ok(())
    }

    fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
        let mut objects = self.write()?;
        if key.is_root() {
            return Err(MapError::KeyConflict(key.to_string()));
        }
        check_tree_rule(&objects, key)?;
        let old = objects.remove(key).map(|v| Arc::try_unwrap(v).unwrap_or_else(|a| a.as_ref().clone()));
        objects.insert(key.clone(), Arc::new(splice(old, offset, value)?));
        Ok(())
    }

    fn erase(&self, key: &StoreKey) -> MapResult<()> {
        self.write()?.remove(key);
        Ok(())
    }

    fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
        self.write()?.retain(|k, _| !k.starts_with(prefix));
        Ok(())
    }
}

impl ListableStore for MemoryStore {
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
        let objects = self.read();
        if objects.contains_key(prefix) {
            return Ok(Some(Vec::new()));
        }
        let skip = if prefix.is_root() { 0 } else { prefix.as_str().len() + 1 };
        let names: BTreeSet<String> = below(&objects, prefix)
            .filter_map(|(k, _)| k.as_str().get(skip..)?.split('/').next().map(str::to_string))
            .collect();
        if names.is_empty() && !prefix.is_root() {
            return Ok(None);
        }
        Ok(Some(names.into_iter().collect()))
    }

    fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
        let objects = self.read();
        let mut keys: Vec<StoreKey> = below(&objects, prefix).map(|(k, _)| k.clone()).collect();
        if objects.contains_key(prefix) {
            keys.insert(0, prefix.clone());
        }
        Ok(keys)
    }
}

impl Store for MemoryStore {
    fn features(&self) -> Features {
        Features::default()
    }

    fn location(&self) -> &str {
        &self.name
    }

    fn is_writable(&self) -> bool {
        self.writable
    }

    fn destroy(&self) -> MapResult<()> {
        if !self.writable {
            return Err(MapError::ReadOnly);
        }
        let mut reg = registry();
        if reg.get(&self.name).is_some_and(|o| Arc::ptr_eq(o, &self.objects)) {
            reg.remove(&self.name);
        }
        drop(reg);
        self.objects.write().unwrap_or_else(|p| p.into_inner()).clear();
        Ok(())
    }
}
