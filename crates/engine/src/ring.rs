//! The ring buffer's consumer side, reading the BPF ring buffer map the
//! way libbpf's `ring_buffer__consume` does, but with its data area
//! mapped once. libbpf maps it twice in a row (so a sample that wraps
//! around the end reads as one slice), and the kernel maps every page of
//! a ring buffer at mmap time: the 16 MiB ring counted 32 MiB of resident
//! memory. Here a wrapping sample (rare: at most one per lap) is copied
//! into a buffer of its own instead.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The kernel's record header bits (BPF_RINGBUF_BUSY_BIT, _DISCARD_BIT).
const BUSY: u32 = 1 << 31;
const DISCARD: u32 = 1 << 30;
/// The record header's size (BPF_RINGBUF_HDR_SZ).
const HEADER: usize = 8;

/// A ring buffer map, mapped for reading.
pub(crate) struct Ring {
    /// Keeps the map alive as long as the mappings.
    _fd: OwnedFd,
    /// The consumer position page (the one page user space may write).
    consumer: *mut u8,
    /// The producer position page, then the data area once.
    producer: *mut u8,
    page: usize,
    size: usize,
    /// A sample that wraps around the end, made contiguous.
    wrapped: Vec<u8>,
}

impl Ring {
    /// Map the ring buffer map `map` of `size` data bytes (a power of two).
    pub fn new(map: BorrowedFd<'_>, size: usize) -> io::Result<Ring> {
        if !size.is_power_of_two() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "ring buffer size is not a power of two",
            ));
        }
        let fd = map.try_clone_to_owned()?;
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { nix::libc::sysconf(nix::libc::_SC_PAGESIZE) })
            .map_err(|_| io::Error::last_os_error())?;
        let map_at = |len: usize, prot: i32, offset: usize| -> io::Result<*mut u8> {
            // SAFETY: a new shared mapping of the map's fd; the kernel
            // checks the offset and length against the ring's pages.
            let p = unsafe {
                nix::libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    prot,
                    nix::libc::MAP_SHARED,
                    fd.as_raw_fd(),
                    offset as nix::libc::off_t,
                )
            };
            if p == nix::libc::MAP_FAILED {
                Err(io::Error::last_os_error())
            } else {
                Ok(p.cast())
            }
        };
        let consumer = map_at(page, nix::libc::PROT_READ | nix::libc::PROT_WRITE, 0)?;
        let producer = match map_at(page + size, nix::libc::PROT_READ, page) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: mapped just above, with this length.
                unsafe { nix::libc::munmap(consumer.cast(), page) };
                return Err(e);
            }
        };
        Ok(Ring {
            _fd: fd,
            consumer,
            producer,
            page,
            size,
            wrapped: Vec::new(),
        })
    }

    fn consumer_pos(&self) -> &AtomicU64 {
        // SAFETY: the page is mapped for the Ring's life and starts with
        // the 8-byte aligned consumer position.
        unsafe { &*self.consumer.cast::<AtomicU64>() }
    }

    fn producer_pos(&self) -> &AtomicU64 {
        // SAFETY: as consumer_pos, for the producer page (read only).
        unsafe { &*self.producer.cast::<AtomicU64>() }
    }

    /// Hand every committed sample to `f`, in order, and release its space.
    pub fn consume(&mut self, mut f: impl FnMut(&[u8])) {
        let mask = (self.size - 1) as u64;
        // SAFETY: the data area follows the producer page, self.size bytes.
        let data = unsafe { self.producer.add(self.page) };
        let mut cons = self.consumer_pos().load(Ordering::Acquire);
        loop {
            let prod = self.producer_pos().load(Ordering::Acquire);
            let mut got = false;
            while cons < prod {
                let at = (cons & mask) as usize;
                // SAFETY: headers are 8-byte aligned inside the data area.
                let header = unsafe { &*data.add(at).cast::<AtomicU32>() };
                let raw = header.load(Ordering::Acquire);
                if raw & BUSY != 0 {
                    break;
                }
                got = true;
                let len = (raw & !(BUSY | DISCARD)) as usize;
                if raw & DISCARD == 0 {
                    let start = at + HEADER;
                    if start + len <= self.size {
                        // SAFETY: inside the data area; the kernel does
                        // not reuse it before the consumer position moves.
                        f(unsafe { std::slice::from_raw_parts(data.add(start), len) });
                    } else {
                        // Wraps: the tail of the area, then its start.
                        let first = self.size.saturating_sub(start);
                        self.wrapped.clear();
                        // SAFETY: both parts lie inside the data area.
                        unsafe {
                            self.wrapped.extend_from_slice(std::slice::from_raw_parts(
                                data.add(start % self.size),
                                first,
                            ));
                            self.wrapped.extend_from_slice(std::slice::from_raw_parts(
                                data.add((start + first) % self.size),
                                len - first,
                            ));
                        }
                        f(&self.wrapped);
                    }
                }
                cons += ((HEADER + len + 7) & !7) as u64;
                self.consumer_pos().store(cons, Ordering::Release);
            }
            if !got {
                return;
            }
        }
    }
}

impl AsFd for Ring {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self._fd.as_fd()
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: both were mapped in new() with these lengths.
        unsafe {
            nix::libc::munmap(self.consumer.cast(), self.page);
            nix::libc::munmap(self.producer.cast(), self.page + self.size);
        }
    }
}
