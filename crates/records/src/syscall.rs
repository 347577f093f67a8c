//! The SYSCALL record body (`audit_log_exit` + `audit_log_task_info` +
//! `audit_log_key`) and the PROCTITLE body (`audit_log_proctitle`).

use crate::encode::{kernel_isprint, untrusted};
use std::io::Write as _;

/// Most bytes of the command line the kernel puts in PROCTITLE.
pub const MAX_PROCTITLE: usize = 128;

/// Everything a SYSCALL record says about one audited syscall.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Syscall {
    /// `AUDIT_ARCH_*` of the syscall's ABI.
    pub arch: u32,
    /// Syscall number in that ABI.
    pub syscall: u32,
    /// Process personality; written as `per=` when not 0 (PER_LINUX).
    pub personality: u32,
    /// Return value, or `None` for a syscall that never returns (exit_group).
    pub exit: Option<i64>,
    /// Raw argument registers a0-a3 at entry.
    pub args: [u64; 4],
    /// Number of file names the syscall captured.
    pub items: u32,
    /// Parent process id.
    pub ppid: i32,
    /// Process (thread group) id.
    pub pid: i32,
    /// Login uid (4294967295 when unset).
    pub auid: u32,
    /// uid, gid, euid, suid, fsuid, egid, sgid, fsgid, in that order.
    pub ids: [u32; 8],
    /// Controlling tty name (`pts0`), if any.
    pub tty: Option<Vec<u8>>,
    /// Session id (4294967295 when unset).
    pub ses: u32,
    /// Task command name (at most 15 bytes).
    pub comm: Vec<u8>,
    /// Executable path, `None` when the task has no mm.
    pub exe: Option<Vec<u8>>,
    /// LSM subject context, when an LSM supplies one.
    pub subj: Option<Vec<u8>>,
    /// The matching rule's key(s), joined by `\x01`.
    pub key: Option<Vec<u8>>,
}

impl Syscall {
    /// The record body, byte for byte as the kernel formats it.
    pub fn body(&self) -> Vec<u8> {
        let mut o = Vec::with_capacity(384);
        let _ = write!(o, "arch={:x} syscall={}", self.arch, self.syscall);
        if self.personality != 0 {
            let _ = write!(o, " per={:x}", self.personality);
        }
        if let Some(exit) = self.exit {
            // The kernel's is_syscall_success: an errno-range return is failure.
            let ok = !(-4095..0).contains(&exit);
            let _ = write!(o, " success={} exit={exit}", if ok { "yes" } else { "no" });
        }
        let [a0, a1, a2, a3] = self.args;
        let [uid, gid, euid, suid, fsuid, egid, sgid, fsgid] = self.ids;
        let _ = write!(
            o,
            " a0={a0:x} a1={a1:x} a2={a2:x} a3={a3:x} items={} ppid={} pid={} auid={} uid={uid} gid={gid} euid={euid} suid={suid} fsuid={fsuid} egid={egid} sgid={sgid} fsgid={fsgid} tty=",
            self.items, self.ppid, self.pid, self.auid
        );
        match &self.tty {
            Some(t) => o.extend_from_slice(t),
            None => o.extend_from_slice(b"(none)"),
        }
        let _ = write!(o, " ses={} comm=", self.ses);
        untrusted(&mut o, &self.comm);
        o.extend_from_slice(b" exe=");
        match &self.exe {
            Some(e) => untrusted(&mut o, e),
            None => o.extend_from_slice(b"(null)"),
        }
        subj_and_key(&mut o, self.subj.as_deref(), self.key.as_deref());
        o
    }
}

/// The ` subj=... key=...` end of a SYSCALL or URINGOP record, as the
/// kernel's audit_log_task_context and audit_log_key write it.
pub(crate) fn subj_and_key(o: &mut Vec<u8>, subj: Option<&[u8]>, key: Option<&[u8]>) {
    if let Some(s) = subj {
        o.extend_from_slice(b" subj=");
        o.extend_from_slice(s);
    }
    o.extend_from_slice(b" key=");
    match key {
        Some(k) => untrusted(o, k),
        None => o.extend_from_slice(b"(null)"),
    }
}

/// The PROCTITLE body from a process's command line (argv joined by NULs):
/// at most 128 bytes, trailing non-printable bytes trimmed, then encoded.
pub fn proctitle_body(cmdline: &[u8]) -> Vec<u8> {
    let mut t = &cmdline[..cmdline.len().min(MAX_PROCTITLE)];
    while let Some((&last, rest)) = t.split_last() {
        if kernel_isprint(last) {
            break;
        }
        t = rest;
    }
    let mut o = b"proctitle=".to_vec();
    if t.is_empty() {
        untrusted(&mut o, b"(null)");
    } else {
        untrusted(&mut o, t);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Syscall {
        Syscall {
            arch: 0xc000003e,
            syscall: 268,
            exit: Some(0),
            args: [0xffffff9c, 0x7ffd138ddfd7, 0x3eb, 0],
            items: 1,
            ppid: 28662,
            pid: 28695,
            auid: 4294967295,
            ses: 4294967295,
            comm: b"t".to_vec(),
            exe: Some(b"/tmp/spec/bin/t".to_vec()),
            key: Some(b"fastspec".to_vec()),
            ..Syscall::default()
        }
    }

    #[test]
    fn matches_a_kernel_record() {
        assert_eq!(
            String::from_utf8(sample().body()).unwrap(),
            "arch=c000003e syscall=268 success=yes exit=0 a0=ffffff9c a1=7ffd138ddfd7 a2=3eb a3=0 items=1 ppid=28662 pid=28695 auid=4294967295 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 comm=\"t\" exe=\"/tmp/spec/bin/t\" key=\"fastspec\""
        );
    }

    #[test]
    fn variants() {
        let mut s = sample();
        s.exit = None;
        s.personality = 0x40000;
        s.key = Some(b"ka\x01kb".to_vec());
        s.tty = Some(b"pts0".to_vec());
        let b = String::from_utf8(s.body()).unwrap();
        assert!(
            b.starts_with("arch=c000003e syscall=268 per=40000 a0=ffffff9c"),
            "{b}"
        );
        assert!(b.contains(" tty=pts0 "), "{b}");
        assert!(b.ends_with(" key=6B61016B62"), "{b}");
        s.exit = Some(-2);
        assert!(String::from_utf8(s.body())
            .unwrap()
            .contains(" success=no exit=-2 a0="));
    }

    #[test]
    fn proctitle() {
        assert_eq!(
            proctitle_body(b"/tmp/spec/bin/t\0"),
            b"proctitle=\"/tmp/spec/bin/t\""
        );
        assert_eq!(
            String::from_utf8(proctitle_body(b"/tmp/spec/bin/t\0a b\0c\0")).unwrap(),
            "proctitle=2F746D702F737065632F62696E2F74006120620063"
        );
        assert_eq!(proctitle_body(b"/x/del\x7f\0"), b"proctitle=\"/x/del\"");
        assert_eq!(proctitle_body(b""), b"proctitle=\"(null)\"");
        let long = [b'A'; 300];
        assert_eq!(proctitle_body(&long).len(), "proctitle=".len() + 130);
    }
}
