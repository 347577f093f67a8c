//! The URINGOP record body (`audit_log_uring`): one io_uring op's issue
//! attempt, with the task's ids but none of SYSCALL's auid, ses, tty,
//! comm or exe.

use std::io::Write as _;

/// Everything a URINGOP record says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UringOp {
    /// The io_uring op number (`IORING_OP_*`).
    pub op: u32,
    /// The issue attempt's return (0, or -EAGAIN when retried); `None`
    /// when not valid (no `success=`/`exit=` then).
    pub exit: Option<i64>,
    /// File names the attempt's context collected.
    pub items: u32,
    /// Parent process id.
    pub ppid: i32,
    /// Process (thread group) id.
    pub pid: i32,
    /// uid, gid, euid, suid, fsuid, egid, sgid, fsgid, in that order.
    pub ids: [u32; 8],
    /// LSM subject context, when an LSM supplies one.
    pub subj: Option<Vec<u8>>,
    /// The matching rule's key(s), joined by `\x01`.
    pub key: Option<Vec<u8>>,
}

impl UringOp {
    /// The record body, byte for byte as the kernel formats it.
    pub fn body(&self) -> Vec<u8> {
        let mut o = Vec::with_capacity(200);
        let _ = write!(o, "uring_op={}", self.op);
        if let Some(exit) = self.exit {
            let ok = !crate::exit::failed(exit);
            let _ = write!(o, " success={} exit={exit}", if ok { "yes" } else { "no" });
        }
        let [uid, gid, euid, suid, fsuid, egid, sgid, fsgid] = self.ids;
        let _ = write!(
            o,
            " items={} ppid={} pid={} uid={uid} gid={gid} euid={euid} suid={suid} fsuid={fsuid} egid={egid} sgid={sgid} fsgid={fsgid}",
            self.items, self.ppid, self.pid
        );
        crate::syscall::subj_and_key(&mut o, self.subj.as_deref(), self.key.as_deref());
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_kernel_record() {
        // From kernel 6.18 + auditd 3.0.9: an openat through a ring.
        let r = UringOp {
            op: 18,
            exit: Some(0),
            items: 1,
            ppid: 4579,
            pid: 4641,
            key: Some(b"ur".to_vec()),
            ..UringOp::default()
        };
        assert_eq!(
            String::from_utf8(r.body()).unwrap(),
            "uring_op=18 success=yes exit=0 items=1 ppid=4579 pid=4641 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 key=\"ur\""
        );
        let r = UringOp {
            op: 16,
            exit: Some(-11),
            key: None,
            ..r
        };
        assert!(String::from_utf8(r.body())
            .unwrap()
            .starts_with("uring_op=16 success=no exit=-11 items=1 "));
    }
}
