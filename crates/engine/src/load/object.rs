//! A loaded BPF object that owns the storage its skeleton borrows.
//!
//! libbpf-rs ties an opened skeleton to a `&mut MaybeUninit<OpenObject>`
//! that must outlive it. A generation's object lives until the next rule
//! set replaces it, so a borrow of a local cannot do, and leaking a box per
//! generation (what `Box::leak` gives) grows the daemon on every reload.
//! Here the storage is a heap allocation freed after the skeleton is
//! dropped: fields drop in declaration order, the skeleton first.

use fastaudit_bpf::FastauditSkel;
use libbpf_rs::OpenObject;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

/// Heap storage for an open object, freed when dropped. Held as a raw
/// pointer, not a `Box`, because the skeleton holds a `&mut` into it.
pub(crate) struct Storage(NonNull<MaybeUninit<OpenObject>>);

impl Storage {
    pub(crate) fn new() -> Storage {
        Storage(NonNull::from(Box::leak(Box::new(MaybeUninit::uninit()))))
    }

    /// The storage, for the skeleton builder to open the object in.
    ///
    /// The `'static` is as long as the object opened in it may live: it
    /// must be dropped before this `Storage` (a [`Loaded`] keeps that
    /// order; in `open_and_load`, the storage is declared first, so the
    /// open object is dropped before it on every early return).
    pub(crate) fn slot(&mut self) -> &'static mut MaybeUninit<OpenObject> {
        // SAFETY: the pointer comes from a live Box allocation that only
        // `Drop` frees; this is the one `&mut` handed out (called once per
        // storage), and its user, the skeleton, is dropped before the
        // storage as the comment above requires.
        unsafe { &mut *self.0.as_ptr() }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // SAFETY: allocated by `Box::new` in `new`, freed only here, after
        // everything that borrowed it (see `slot`).
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

/// A loaded skeleton and the storage it lives in (dropped in this order).
pub(crate) struct Loaded {
    skel: FastauditSkel<'static>,
    _storage: Storage,
}

impl Loaded {
    pub(crate) fn new(skel: FastauditSkel<'static>, storage: Storage) -> Loaded {
        Loaded {
            skel,
            _storage: storage,
        }
    }
}

impl std::ops::Deref for Loaded {
    type Target = FastauditSkel<'static>;
    fn deref(&self) -> &Self::Target {
        &self.skel
    }
}

impl std::ops::DerefMut for Loaded {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.skel
    }
}
