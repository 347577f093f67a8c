//! The runtime's watch follower: keeps the kernel's `watched` map on the
//! watched files' paths ([`crate::load::watches`] holds the table it updates).

use crate::load::bytes::as_bytes;
use crate::load::watches::{key, split, Key, WatchTable};
use fastaudit_bpf::types::fa_watch;
use libbpf_rs::{MapCore, MapFlags};
use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Write one entry (or delete it) in the kernel map.
pub fn apply(map: &impl MapCore, k: Key, v: Option<fa_watch>) -> libbpf_rs::Result<()> {
    let kk = key(k.0, k.1);
    match v {
        Some(v) => map.update(as_bytes(&kk), as_bytes(&v), MapFlags::ANY),
        None => match map.delete(as_bytes(&kk)) {
            Err(e) if e.kind() == libbpf_rs::ErrorKind::NotFound => Ok(()),
            r => r,
        },
    }
}

/// Keep file watches on their paths until `stop`: inotify on each parent
/// directory for names appearing or going, and a re-check every second in
/// case an event was missed (queue overflow, a parent replaced).
pub fn follow(
    mut table: WatchTable,
    map: &impl MapCore,
    stop: &AtomicBool,
) -> Result<(), libbpf_rs::Error> {
    let files: Vec<usize> = (0..table.watches.len())
        .filter(|&i| !table.watches[i].tree)
        .collect();
    if files.is_empty() {
        return Ok(());
    }
    let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).ok();
    let mut by_wd: HashMap<WatchDescriptor, Vec<usize>> = HashMap::new();
    if let Some(ino) = &inotify {
        let flags = AddWatchFlags::IN_CREATE
            | AddWatchFlags::IN_MOVED_TO
            | AddWatchFlags::IN_MOVED_FROM
            | AddWatchFlags::IN_DELETE
            | AddWatchFlags::IN_ONLYDIR;
        for &i in &files {
            let parent = split(&table.watches[i].path).0;
            if let Ok(wd) = ino.add_watch(OsStr::from_bytes(parent), flags) {
                by_wd.entry(wd).or_default().push(i);
            }
        }
    }
    let base = |p: &[u8]| split(p).1.to_vec();
    let mut last_sweep = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let mut due: Vec<usize> = Vec::new();
        if let Some(ino) = &inotify {
            use std::os::fd::AsFd;
            let mut fds = [nix::poll::PollFd::new(
                ino.as_fd(),
                nix::poll::PollFlags::POLLIN,
            )];
            let _ = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(100u16));
            for ev in ino.read_events().unwrap_or_default() {
                let Some(list) = by_wd.get(&ev.wd) else {
                    due.extend(&files);
                    continue;
                };
                for &i in list {
                    let named = ev
                        .name
                        .as_ref()
                        .is_none_or(|n| n.as_bytes() == base(&table.watches[i].path));
                    if named {
                        due.push(i);
                    }
                }
            }
        } else {
            std::thread::sleep(Duration::from_millis(100));
        }
        if last_sweep.elapsed() >= Duration::from_secs(1) {
            due.extend(&files);
            last_sweep = Instant::now();
        }
        due.sort_unstable();
        due.dedup();
        for i in due {
            for (k, v) in table.refresh(i) {
                apply(map, k, v)?;
            }
        }
    }
    Ok(())
}
