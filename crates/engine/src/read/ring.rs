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
    /// Keeps the map alive as long as the mappings; polled for wakeups.
    fd: OwnedFd,
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
            fd,
            consumer,
            producer,
            page,
            size,
            wrapped: Vec::new(),
        })
    }

    /// Wait up to `timeout` for the ring to hold data, or for the kernel
    /// side to wake the reader (events are committed without a wakeup
    /// unless the ring is more than half full: maps.bpf.h).
    pub fn wait(&self, timeout: std::time::Duration) {
        use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
        let ms = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(self.fd.as_fd(), PollFlags::POLLIN)];
        // An error (EINTR from a signal) ends the wait early, as data would.
        let _ = poll(&mut fds, PollTimeout::from(ms));
    }

    /// Hand up to `max` committed samples to `f`, in order, and release
    /// their space; returns how many were read (discarded ones included).
    pub fn consume(&mut self, max: usize, f: impl FnMut(&[u8])) -> usize {
        // SAFETY: the data area follows the producer page, self.size
        // bytes, mapped for the Ring's life.
        let data = unsafe { self.producer.add(self.page) };
        // SAFETY: both pages are mapped for the Ring's life and start with
        // the 8-byte aligned consumer and producer positions.
        let (consumer, producer) = unsafe {
            (
                &*self.consumer.cast::<AtomicU64>(),
                &*self.producer.cast::<AtomicU64>(),
            )
        };
        let area = Area {
            data,
            size: self.size,
            consumer,
            producer,
        };
        // SAFETY: the positions and the data area are the ring's.
        unsafe { area.consume(&mut self.wrapped, max, f) }
    }
}

/// A ring's positions and data area (mapped once), as the kernel lays
/// them out.
struct Area<'a> {
    data: *const u8,
    size: usize,
    consumer: &'a AtomicU64,
    producer: &'a AtomicU64,
}

impl Area<'_> {
    /// Up to `max` committed samples from the consumer position on, to
    /// `f`; the consumer position moves past each. Returns how many.
    ///
    /// # Safety
    /// `data` must point to `size` readable bytes (a power of two) laid
    /// out as a BPF ring buffer's data area, for as long as this runs.
    unsafe fn consume(&self, wrapped: &mut Vec<u8>, max: usize, mut f: impl FnMut(&[u8])) -> usize {
        let mask = (self.size - 1) as u64;
        let data = self.data;
        let mut cons = self.consumer.load(Ordering::Acquire);
        let mut read = 0;
        loop {
            let prod = self.producer.load(Ordering::Acquire);
            let mut got = false;
            while cons < prod && read < max {
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
                        let first = self.size - start;
                        wrapped.clear();
                        // SAFETY: both parts lie inside the data area.
                        unsafe {
                            wrapped.extend_from_slice(std::slice::from_raw_parts(
                                data.add(start % self.size),
                                first,
                            ));
                            wrapped
                                .extend_from_slice(std::slice::from_raw_parts(data, len - first));
                        }
                        f(wrapped);
                    }
                }
                cons += ((HEADER + len + 7) & !7) as u64;
                self.consumer.store(cons, Ordering::Release);
                read += 1;
            }
            if !got || read >= max {
                return read;
            }
        }
    }
}

impl AsFd for Ring {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A data area of `size` bytes (u64s, for the headers' alignment).
    struct Fake {
        words: Vec<u64>,
        consumer: AtomicU64,
        producer: AtomicU64,
    }

    impl Fake {
        fn new(size: usize) -> Fake {
            Fake {
                words: vec![0; size / 8],
                consumer: AtomicU64::new(0),
                producer: AtomicU64::new(0),
            }
        }

        fn bytes(&mut self) -> &mut [u8] {
            let len = self.words.len() * 8;
            // SAFETY: the Vec's u64s viewed as bytes.
            unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast(), len) }
        }

        /// Write a record at the producer position, as the kernel does.
        fn produce(&mut self, flags: u32, body: &[u8]) {
            let size = self.words.len() * 8;
            let pos = self.producer.load(Ordering::Relaxed) as usize;
            let at = pos % size;
            let header = (body.len() as u32 | flags).to_ne_bytes();
            self.bytes()[at..at + 4].copy_from_slice(&header);
            for (i, b) in body.iter().enumerate() {
                self.bytes()[(at + HEADER + i) % size] = *b;
            }
            let next = pos + ((HEADER + body.len() + 7) & !7);
            self.producer.store(next as u64, Ordering::Relaxed);
        }

        fn consume(&mut self) -> Vec<Vec<u8>> {
            self.consume_up_to(usize::MAX)
        }

        fn consume_up_to(&mut self, max: usize) -> Vec<Vec<u8>> {
            let mut out = Vec::new();
            let area = Area {
                data: self.words.as_ptr().cast(),
                size: self.words.len() * 8,
                consumer: &self.consumer,
                producer: &self.producer,
            };
            let mut wrapped = Vec::new();
            // SAFETY: the area is the Vec's, laid out by produce().
            let n = unsafe { area.consume(&mut wrapped, max, |s| out.push(s.to_vec())) };
            assert!(n >= out.len() && n <= max);
            out
        }
    }

    #[test]
    fn samples_come_in_order_discarded_ones_skipped_busy_ones_awaited() {
        let mut r = Fake::new(64);
        r.produce(0, b"first");
        r.produce(DISCARD, b"gone");
        r.produce(0, b"third");
        assert_eq!(r.consume(), vec![b"first".to_vec(), b"third".to_vec()]);
        assert_eq!(r.consumer.load(Ordering::Relaxed), 48);
        r.produce(BUSY, b"later");
        assert!(
            r.consume().is_empty(),
            "a record being written is waited for"
        );
        assert_eq!(r.consumer.load(Ordering::Relaxed), 48);
    }

    #[test]
    fn a_chunk_stops_at_its_count_and_the_next_goes_on_from_there() {
        let mut r = Fake::new(128);
        for b in [b"one", b"two", b"six"] {
            r.produce(0, b);
        }
        assert_eq!(r.consume_up_to(2), vec![b"one".to_vec(), b"two".to_vec()]);
        assert_eq!(r.consume_up_to(2), vec![b"six".to_vec()]);
        assert!(r.consume_up_to(2).is_empty());
    }

    #[test]
    fn a_sample_wrapping_around_the_end_reads_whole() {
        let mut r = Fake::new(64);
        r.produce(0, &[1; 40]);
        assert_eq!(r.consume().len(), 1);
        // From offset 48: header, then 8 bytes to the end, 12 after the start.
        let body: Vec<u8> = (0..20).collect();
        r.produce(0, &body);
        assert_eq!(r.consume(), vec![body]);
        assert_eq!(r.consumer.load(Ordering::Relaxed), 48 + 32);
    }
}
