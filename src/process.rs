//! Per-process resources, for `fork()`.
//!
//! A forked child has only the thread that called `fork()`: the worker
//! threads of the parent's thread pools and of the tokio runtime do not
//! exist there, and handing them work would wait forever. Each such
//! resource is a [`PerProcess`]: made on first use, and made again in a
//! child (a different process id) the first time the child needs it. The
//! parent's copy is leaked in the child, never dropped: dropping would wait
//! for threads that are not there.
//!
//! What is not covered (docs/RELIABILITY.md): a lock another thread of the
//! parent held at the moment of `fork()` stays held in the child, as with
//! any library; fork while other threads are inside this library, and a
//! child that uses a dataset the parent opened, are not supported. A child
//! may open, create, read and write datasets of its own.

use std::sync::Mutex;

/// A value made once per process (see the module documentation).
pub(crate) struct PerProcess<T: 'static> {
    slot: Mutex<Option<(u32, &'static T)>>,
    make: fn() -> T,
}

impl<T: 'static> PerProcess<T> {
    pub(crate) const fn new(make: fn() -> T) -> Self {
        PerProcess { slot: Mutex::new(None), make }
    }

    /// This process's value (made now if this process has none yet).
    pub(crate) fn get(&self) -> &'static T {
        let pid = std::process::id();
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        match *slot {
            Some((owner, value)) if owner == pid => value,
            _ => {
                // The parent's value, if any, is leaked: see above.
                let value: &'static T = Box::leak(Box::new((self.make)()));
                *slot = Some((pid, value));
                value
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_process() {
        static N: PerProcess<Vec<u8>> = PerProcess::new(|| vec![1, 2, 3]);
        let a = N.get() as *const _;
        assert_eq!(a, N.get() as *const _, "the same value within a process");
    }
}
