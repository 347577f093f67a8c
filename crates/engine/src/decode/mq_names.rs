//! The CWD and PATH records of mq_open. Its name is no path: the kernel
//! looks it up in the message queue file system of the caller's IPC
//! namespace (ipc/mqueue.c), after taking it with `getname` (the CWD
//! record follows from that). A queue found is named with its inode
//! (`audit_inode`: NORMAL, also when the open is then refused); one to
//! create adds the hidden root directory (`audit_inode_parent_hidden`,
//! counted in `items=`, never printed) and the CREATE child that
//! `may_create` adds, its inode filled in only when the create succeeds.

use crate::decode::sent::{PathRecords, Sent};
use fastaudit_bpf::types::fa_obj_flag as F;
use fastaudit_records::path::{Inode, NameType, PathItem};
use nix::libc;
use nix::mqueue::{mq_close, mq_open, MQ_OFlag};
use nix::sys::stat::{fstat, Mode};
use std::collections::HashMap;
use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// libc's, as the syscall's flags argument and result hold them.
const O_CREAT: u64 = libc::O_CREAT as u64;
const ENOENT: i64 = libc::ENOENT as i64;
const EFAULT: i64 = libc::EFAULT as i64;
const EEXIST: i64 = libc::EEXIST as i64;
const ENFILE: i64 = libc::ENFILE as i64;
const EMFILE: i64 = libc::EMFILE as i64;
/// NAME_MAX: a longer name fails its lookup.
const NAME_MAX: usize = 255;

/// The records of an mq_open (its flags `oflag`, result `exit`, caller
/// `pid`) from what BPF sent: the name, the working directory, and for a
/// queue it opened, the queue (noted as changed if the call created it).
pub(crate) fn mq_open_records(
    sent: &Sent,
    oflag: u64,
    exit: Option<i64>,
    pid: i32,
) -> Option<PathRecords> {
    // No name taken (getname refused it: unreadable, empty): no records.
    let name = sent.names[0].clone().filter(|n| !n.is_empty())?;
    let item = |inode: Option<Inode>, nametype| PathItem {
        name: Some(name.clone()),
        inode,
        nametype,
    };
    let records = |item, hidden| {
        Some(PathRecords {
            cwd: sent.cwd.clone(),
            items: vec![item],
            hidden,
        })
    };
    let exit = exit.unwrap_or(0);
    if exit >= 0 {
        let q = sent.objs.iter().find(|o| o.has(F::FA_OBJ_FILE));
        if let Some(q) = q {
            seen().remember(&name, q.inode);
        }
        return match q {
            // Its ctime was set during the call: this call created it.
            Some(q) if q.has(F::FA_OBJ_CHANGED) => {
                records(item(Some(q.inode), NameType::Create), 1)
            }
            Some(q) => records(item(Some(q.inode), NameType::Normal), 0),
            None => records(item(None, NameType::Unknown), 0),
        };
    }
    // The attributes, or the name, unreadable: refused before the name
    // was taken.
    if -exit == EFAULT {
        return None;
    }
    // Refused before the lookup (no descriptor free) or by it (a slash,
    // "." or "..", too long), or not there without O_CREAT: the bare name.
    let bad_name = name.contains(&b'/') || name == b"." || name == b".." || name.len() > NAME_MAX;
    if bad_name || matches!(-exit, ENFILE | EMFILE | ENOENT) {
        return records(item(None, NameType::Unknown), 0);
    }
    // Refused after the lookup (EEXIST, a permission, bad attributes):
    // the queue if there was one, else the create that failed. Without
    // O_CREAT a queue was found (a missing one is ENOENT), with O_EXCL
    // too (EEXIST): if it is gone already, the attributes it had when
    // last opened here.
    let found = -exit == EEXIST || oflag & O_CREAT == 0;
    match existing_queue(&name, pid) {
        Some(q) => records(item(Some(q), NameType::Normal), 0),
        None if found => records(item(seen().last(&name), NameType::Normal), 0),
        None => records(item(None, NameType::Create), 1),
    }
}

/// The queues mq_open calls opened or created, by name: their attributes
/// for a later refusal of the same name when the queue is gone by the
/// time its record is written (removed right after). At most
/// [`Seen::MAX`] names; IPC namespaces are not told apart.
#[derive(Default)]
struct Seen(HashMap<Vec<u8>, Inode>);

impl Seen {
    const MAX: usize = 1024;

    fn remember(&mut self, name: &[u8], inode: Inode) {
        if self.0.len() >= Self::MAX && !self.0.contains_key(name) {
            self.0.clear();
        }
        self.0.insert(name.to_vec(), inode);
    }

    fn last(&self, name: &[u8]) -> Option<Inode> {
        self.0.get(name).copied()
    }
}

fn seen() -> MutexGuard<'static, Seen> {
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    SEEN.get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The attributes of the queue called `name` in the queue file system of
/// process `pid`'s IPC namespace, if it is fastaudit's own (or the process
/// is gone), looked up now: opened read-only (which changes nothing), its
/// attributes taken from the descriptor, closed. No mount of the file
/// system is needed. A queue removed or created since the call is seen
/// as it is now.
fn existing_queue(name: &[u8], pid: i32) -> Option<Inode> {
    let own = std::fs::read_link("/proc/self/ns/ipc").ok()?;
    if std::fs::read_link(format!("/proc/{pid}/ns/ipc")).is_ok_and(|theirs| theirs != own) {
        return None;
    }
    // The C library's form: a leading slash it takes off.
    let mut path = Vec::with_capacity(name.len() + 1);
    path.push(b'/');
    path.extend_from_slice(name);
    let path = CString::new(path).ok()?;
    let q = mq_open(
        path.as_c_str(),
        MQ_OFlag::O_RDONLY | MQ_OFlag::O_CLOEXEC,
        Mode::empty(),
        None,
    )
    .ok()?;
    let st = fstat(q.as_fd().as_raw_fd());
    let _ = mq_close(q);
    let st = st.ok()?;
    Some(Inode {
        ino: st.st_ino,
        dev: crate::host::identity::kernel_dev(st.st_dev),
        mode: st.st_mode,
        uid: st.st_uid,
        gid: st.st_gid,
        rdev: crate::host::identity::kernel_dev(st.st_rdev),
        caps: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::sent::Obj;

    const O_EXCL: u64 = libc::O_EXCL as u64;

    fn sent(name: &[u8], queue: Option<u32>) -> Sent {
        let mut s = Sent {
            cwd: Some(b"/root".to_vec()),
            ..Sent::default()
        };
        s.names[0] = Some(name.to_vec());
        if let Some(flags) = queue {
            s.objs.push(Obj {
                inode: Inode {
                    ino: 42,
                    mode: 0o100600,
                    ..Inode::default()
                },
                flags,
                ..Obj::default()
            });
        }
        s
    }

    fn one(r: Option<PathRecords>) -> (NameType, Option<u64>, u32) {
        let r = r.expect("records");
        assert_eq!(r.cwd.as_deref(), Some(&b"/root"[..]));
        assert_eq!(r.items.len(), 1);
        let it = &r.items[0];
        (it.nametype, it.inode.map(|i| i.ino), r.hidden)
    }

    #[test]
    fn a_queue_opened_is_created_only_if_its_ctime_changed_in_the_call() {
        let created = F::FA_OBJ_FILE.0 | F::FA_OBJ_CHANGED.0;
        let r = mq_open_records(&sent(b"q1", Some(created)), O_CREAT, Some(3), 0);
        assert_eq!(one(r), (NameType::Create, Some(42), 1));
        let r = mq_open_records(&sent(b"q1", Some(F::FA_OBJ_FILE.0)), O_CREAT, Some(3), 0);
        assert_eq!(one(r), (NameType::Normal, Some(42), 0));
    }

    #[test]
    fn refusals_before_or_in_the_lookup_name_no_queue() {
        for (name, exit) in [
            (&b"no-such-queue-here"[..], -2),
            (b"/slash", -13),
            (b"..", -13),
            (b"q", -24),
        ] {
            let r = mq_open_records(&sent(name, None), 0, Some(exit), 0);
            assert_eq!(one(r), (NameType::Unknown, None, 0), "{exit}");
        }
        let long = vec![b'x'; NAME_MAX + 1];
        let r = mq_open_records(&sent(&long, None), O_CREAT, Some(-36), 0);
        assert_eq!(one(r), (NameType::Unknown, None, 0));
    }

    #[test]
    fn no_name_taken_no_records() {
        assert!(mq_open_records(&sent(b"", None), 0, Some(-2), 0).is_none());
        assert!(mq_open_records(&sent(b"q", None), O_CREAT, Some(-14), 0).is_none());
        let mut s = sent(b"q", None);
        s.names[0] = None;
        assert!(mq_open_records(&s, 0, Some(-14), 0).is_none());
    }

    #[test]
    fn a_failed_create_counts_its_hidden_parent_and_a_bare_create() {
        // A name no queue has here (a failed create: bad attributes).
        let name = b"fastaudit-unit-no-such-queue";
        let r = mq_open_records(
            &sent(name, None),
            O_CREAT,
            Some(-22),
            std::process::id() as i32,
        );
        assert_eq!(one(r), (NameType::Create, None, 1));
        // O_EXCL refused: a queue was there, even if gone since.
        let r = mq_open_records(&sent(name, None), O_CREAT | O_EXCL, Some(-17), 0);
        assert_eq!(one(r), (NameType::Normal, None, 0));
    }
}
