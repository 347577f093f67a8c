//! The io_uring workloads.

use super::{cstring, per_op, Measured};
use io_uring::{opcode, types, IoUring};
use nix::libc;
use std::path::Path;

/// io_uring: NOPs, and openat + close pairs, 32 / 16 per submission.
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
    out.push(per_op("openat+close", seconds, 16.0, || {
        for i in 0..16u64 {
            let e = opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), cfile.as_ptr())
                .flags(libc::O_RDONLY)
                .build()
                .user_data(i);
            // SAFETY: cfile outlives the completion, waited for below.
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
    })?);
    Ok(out)
}
