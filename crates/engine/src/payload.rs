//! The payloads of the ring buffer's samples as the BPF side lays them
//! out: one auxiliary record's data ([`Aux`]) and the reader of the
//! header's structs. Shared by `read` (which cuts them out of samples)
//! and `decode` (which turns them into records), so that neither layer
//! imports the other.

/// One auxiliary record's data, as the BPF side sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Aux {
    /// The record type (`AUDIT_*`) or `FA_AUX_*` kind its payload is laid out for.
    pub ty: u32,
    /// The payload: a struct of the BPF header's, `len` bytes of it.
    pub data: Vec<u8>,
}

/// The struct `T` at the start of `data` (`None`: too short).
pub(crate) fn read<T: Copy>(data: &[u8]) -> Option<T> {
    // SAFETY: T is a plain repr(C) struct of integers and byte arrays
    // (generated from fastaudit.h, or libc's ELF headers), and data holds
    // at least its size.
    (data.len() >= std::mem::size_of::<T>())
        .then(|| unsafe { std::ptr::read_unaligned(data.as_ptr().cast::<T>()) })
}

/// A payload's bytes as the BPF side lays it out (tests: [`read`]'s inverse).
#[cfg(test)]
pub(crate) fn bytes<T: Copy>(v: &T) -> Vec<u8> {
    // SAFETY: T is a plain repr(C) struct of integers and byte arrays.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
        .to_vec()
}
