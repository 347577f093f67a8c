//! The bytes of a map key or value, as libbpf's map calls take them.
//!
//! The keys and values are the skeleton's generated `repr(C)` structs
//! (from fastaudit.h) and integers; they derive no byte-view trait a crate
//! like bytemuck could use, so the view is made here, once.

/// The bytes of `v`: to be used only on the skeleton's plain `repr(C)`
/// integer structs and on integers (libbpf-cargo writes the structs'
/// padding out as fields, so every byte is a field's).
pub(crate) fn as_bytes<T>(v: &T) -> &[u8] {
    // SAFETY: `v` is a live reference, so `size_of::<T>()` bytes from it are
    // readable for its lifetime; the types it is used on have no padding
    // of their own (see above).
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}
