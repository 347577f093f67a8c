//! Cgroup ids to workloads, cached. A cgroup's path is read at once, from
//! its id, with a file handle on the hierarchy's mount (the kernel's
//! kernfs handle is the id itself: one open_by_handle_at and a readlink,
//! in memory, no walk); its container's id and runtime come from that
//! path. What the runtime's files add (name, image, pod) is read on a
//! thread of its own and joins the cache when done: an event is never
//! held for it, and one written before carries what was known.

use crate::metadata::{describe, Roots};
use crate::path::{parse, Found};
use fastaudit_records::workload::{Container, Workload};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

/// Cached cgroups at most: ids are never reused, so the cache only grows
/// with cgroups made; past this it starts again (each is read once more).
const CACHE_MAX: usize = 16384;

/// FILEID_KERNFS: a kernfs node's handle, its 64-bit id.
const FILEID_KERNFS: i32 = 0xfe;

/// `struct file_handle` with room for a kernfs id.
#[repr(C)]
struct KernfsHandle {
    handle_bytes: u32,
    handle_type: i32,
    id: u64,
}

/// The workloads of cgroup ids in one hierarchy.
pub struct Resolver {
    /// The hierarchy's mount, open (`None`: nothing is resolved).
    mount: Option<(OwnedFd, PathBuf)>,
    cache: HashMap<u64, Option<Arc<Workload>>>,
    ask: Option<Sender<(u64, Found)>>,
    answers: Option<Receiver<(u64, Container)>>,
}

impl Resolver {
    /// A resolver for the hierarchy mounted at `mount`, the runtimes'
    /// files under `roots`; its metadata thread started. `None` where the
    /// mount cannot be opened.
    pub fn new(mount: &Path, roots: Roots) -> std::io::Result<Resolver> {
        let dir = std::fs::File::open(mount)?;
        let (ask, asked) = channel::<(u64, Found)>();
        let (answer, answers) = channel();
        std::thread::Builder::new()
            .name("fa-containers".into())
            .spawn(move || {
                for (cgroup, found) in asked {
                    if answer.send((cgroup, describe(&roots, &found))).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Resolver {
            mount: Some((OwnedFd::from(dir), mount.to_path_buf())),
            cache: HashMap::new(),
            ask: Some(ask),
            answers: Some(answers),
        })
    }

    /// One that resolves nothing (no cgroup hierarchy, or turned off).
    pub fn none() -> Resolver {
        Resolver {
            mount: None,
            cache: HashMap::new(),
            ask: None,
            answers: None,
        }
    }

    /// Where the task of cgroup `id` ran: `None` for a host cgroup (and
    /// for id 0, unread).
    pub fn workload(&mut self, id: u64) -> Option<Arc<Workload>> {
        if id == 0 || self.mount.is_none() {
            return None;
        }
        self.take_answers();
        if let Some(w) = self.cache.get(&id) {
            return w.clone();
        }
        if self.cache.len() >= CACHE_MAX {
            self.cache.clear();
        }
        let w = self.resolve(id);
        self.cache.insert(id, w.clone());
        w
    }

    /// What the metadata thread found, into the cache.
    fn take_answers(&mut self) {
        let Some(answers) = &self.answers else { return };
        for (id, container) in answers.try_iter() {
            if let Some(Some(w)) = self.cache.get_mut(&id) {
                let mut full = Workload::clone(w);
                full.container = Some(container);
                *w = Arc::new(full);
            }
        }
    }

    fn resolve(&mut self, id: u64) -> Option<Arc<Workload>> {
        let Some(path) = self.path_of(id) else {
            // Gone already (a short-lived cgroup): its id is all there is.
            return Some(Arc::new(Workload {
                cgroup_id: id,
                ..Workload::default()
            }));
        };
        let found = parse(&path)?;
        let container = Container {
            id: found.id.clone(),
            runtime: found.runtime.unwrap_or("unknown").into(),
            pod: found
                .pod_uid
                .clone()
                .map(|uid| fastaudit_records::workload::Pod {
                    uid: Some(uid),
                    ..Default::default()
                }),
            ..Container::default()
        };
        if let Some(ask) = &self.ask {
            let _ = ask.send((id, found));
        }
        Some(Arc::new(Workload {
            cgroup_id: id,
            cgroup_path: Some(path),
            container: Some(container),
        }))
    }

    /// The path of cgroup `id` in its hierarchy (`/` for the root).
    fn path_of(&self, id: u64) -> Option<String> {
        let (mount, at) = self.mount.as_ref()?;
        let mut handle = KernfsHandle {
            handle_bytes: 8,
            handle_type: FILEID_KERNFS,
            id,
        };
        let flags = nix::libc::O_PATH | nix::libc::O_CLOEXEC;
        // SAFETY: `handle` is a file_handle header followed by its
        // handle_bytes (8) bytes, as the call reads it; the mount fd is
        // open for the call's duration. Hand-rolled because nix has no
        // open_by_handle_at.
        let fd = unsafe {
            nix::libc::open_by_handle_at(
                mount.as_raw_fd(),
                (&mut handle as *mut KernfsHandle).cast::<nix::libc::file_handle>(),
                flags,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: a descriptor the call just opened, owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
        let rel = link.strip_prefix(at).ok()?;
        Some(format!("/{}", rel.to_string_lossy()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_without_a_mount_or_an_id() {
        let mut r = Resolver::none();
        assert_eq!(r.workload(44), None);
        let mut r = Resolver::new(Path::new("/"), Roots::default()).unwrap();
        assert_eq!(r.workload(0), None);
    }

    #[test]
    fn an_unknown_id_is_a_cgroup_gone() {
        // Not a kernfs mount: no handle opens there, as for a removed cgroup.
        let mut r = Resolver::new(&std::env::temp_dir(), Roots::default()).unwrap();
        let w = r.workload(123_456_789).unwrap();
        assert_eq!(
            (w.cgroup_id, &w.cgroup_path, &w.container),
            (123_456_789, &None, &None)
        );
    }
}
