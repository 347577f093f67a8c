//! The io_uring workloads.

use super::measure::{cstring, per_op, Measured};
use io_uring::{opcode, squeue, types, IoUring};
use nix::libc;
use std::ffi::CString;
use std::path::Path;

/// Size of the file random reads go to (cached after the first pass).
const READ_FILE_BYTES: usize = 16 << 20;
/// Size of one random read.
const READ_BYTES: usize = 4096;

/// io_uring: NOPs, random 4 KiB reads of a cached file (32 per
/// submission), and openat + close pairs (16 per submission), inline and
/// with the opens forced to io-wq.
pub(super) fn io_uring_ops(dir: &Path, seconds: f64) -> Result<Vec<Measured>, String> {
    let mut ring = IoUring::new(64).map_err(|e| format!("io_uring_setup: {e}"))?;
    let file = dir.join("uring-file");
    std::fs::write(&file, b"x").map_err(|e| format!("{}: {e}", file.display()))?;
    let cfile = cstring(&file)?;
    let mut out = Vec::new();
    out.push(per_op("NOP", seconds, 32.0, || {
        for i in 0..32u64 {
            let e = opcode::Nop::new().build().user_data(i);
            // SAFETY: a NOP refers to no memory.
            unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
        }
        ring.submit_and_wait(32)
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        let done = ring.completion().count();
        (done == 32)
            .then_some(())
            .ok_or_else(|| format!("{done} of 32 NOPs completed"))
    })?);
    let data = dir.join("uring-reads");
    std::fs::write(&data, vec![7u8; READ_FILE_BYTES])
        .map_err(|e| format!("{}: {e}", data.display()))?;
    let reads = std::fs::File::open(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&reads);
    let mut bufs = vec![0u8; READ_BYTES * 32];
    // A fixed pseudo-random walk over the file's blocks (an LCG), so every
    // mode reads the same offsets.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let blocks = (READ_FILE_BYTES / READ_BYTES) as u64;
    out.push(per_op("random 4KiB read", seconds, 32.0, || {
        for (i, buf) in bufs.chunks_mut(READ_BYTES).enumerate() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let off = ((state >> 33) % blocks) * READ_BYTES as u64;
            let e = opcode::Read::new(types::Fd(fd), buf.as_mut_ptr(), READ_BYTES as u32)
                .offset(off)
                .build()
                .user_data(i as u64);
            // SAFETY: the buffers and the file outlive the completions,
            // waited for below.
            unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
        }
        ring.submit_and_wait(32)
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        let short = ring
            .completion()
            .filter(|c| c.result() != READ_BYTES as i32)
            .count();
        (short == 0)
            .then_some(())
            .ok_or_else(|| format!("{short} of 32 reads failed or were short"))
    })?);
    for (metric, flags) in [
        ("openat+close", squeue::Flags::empty()),
        // IOSQE_ASYNC: the opens run in io-wq workers (no inline attempt),
        // the path creating opens, mkdir, rename and unlink always take.
        ("io-wq openat+close", squeue::Flags::ASYNC),
    ] {
        out.push(per_op(metric, seconds, 16.0, || {
            open_close(&mut ring, &cfile, flags)
        })?);
    }
    Ok(out)
}

/// 16 opens of `file` (with SQE `flags`), then 16 closes of what they
/// returned, each batch in one io_uring_enter.
fn open_close(ring: &mut IoUring, file: &CString, flags: squeue::Flags) -> Result<(), String> {
    for i in 0..16u64 {
        let e = opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), file.as_ptr())
            .flags(libc::O_RDONLY)
            .build()
            .flags(flags)
            .user_data(i);
        // SAFETY: file outlives the completion, waited for below.
        unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
    }
    ring.submit_and_wait(16)
        .map_err(|e| format!("io_uring_enter: {e}"))?;
    let fds: Vec<i32> = ring.completion().map(|c| c.result()).collect();
    if let Some(bad) = fds.iter().find(|&&r| r < 0) {
        return Err(format!(
            "io_uring openat: {}",
            std::io::Error::from_raw_os_error(-bad)
        ));
    }
    for &fd in &fds {
        let e = opcode::Close::new(types::Fd(fd)).build();
        // SAFETY: close refers to no memory.
        unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
    }
    ring.submit_and_wait(fds.len())
        .map_err(|e| format!("io_uring_enter: {e}"))?;
    ring.completion().for_each(drop);
    Ok(())
}
