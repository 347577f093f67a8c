//! The SYSCALL record body (`audit_log_exit` + `audit_log_task_info` +
//! `audit_log_key`) and the PROCTITLE body (`audit_log_proctitle`).

use crate::encode::{kernel_isprint, untrusted};
use crate::num;

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
        self.body_into(&mut o);
        o
    }

    /// [`Syscall::body`] appended to `o`.
    pub fn body_into(&self, o: &mut Vec<u8>) {
        o.extend_from_slice(b"arch=");
        num::hex(o, self.arch.into());
        o.extend_from_slice(b" syscall=");
        num::dec(o, self.syscall.into());
        if self.personality != 0 {
            o.extend_from_slice(b" per=");
            num::hex(o, self.personality.into());
        }
        if let Some(exit) = self.exit {
            let ok = !crate::exit::failed(exit);
            o.extend_from_slice(if ok {
                b" success=yes exit="
            } else {
                b" success=no exit="
            });
            num::dec_signed(o, exit);
        }
        for (name, a) in [b" a0=", b" a1=", b" a2=", b" a3="].iter().zip(self.args) {
            o.extend_from_slice(*name);
            num::hex(o, a);
        }
        o.extend_from_slice(b" items=");
        num::dec(o, self.items.into());
        o.extend_from_slice(b" ppid=");
        num::dec_signed(o, self.ppid.into());
        o.extend_from_slice(b" pid=");
        num::dec_signed(o, self.pid.into());
        o.extend_from_slice(b" auid=");
        num::dec(o, self.auid.into());
        const IDS: [&[u8]; 8] = [
            b" uid=", b" gid=", b" euid=", b" suid=", b" fsuid=", b" egid=", b" sgid=", b" fsgid=",
        ];
        for (name, id) in IDS.iter().zip(self.ids) {
            o.extend_from_slice(name);
            num::dec(o, id.into());
        }
        o.extend_from_slice(b" tty=");
        match &self.tty {
            Some(t) => o.extend_from_slice(t),
            None => o.extend_from_slice(b"(none)"),
        }
        o.extend_from_slice(b" ses=");
        num::dec(o, self.ses.into());
        o.extend_from_slice(b" comm=");
        untrusted(o, &self.comm);
        o.extend_from_slice(b" exe=");
        match &self.exe {
            Some(e) => untrusted(o, e),
            None => o.extend_from_slice(b"(null)"),
        }
        subj_and_key(o, self.subj.as_deref(), self.key.as_deref());
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
    let mut o = Vec::with_capacity(2 * MAX_PROCTITLE + 16);
    proctitle_body_into(&mut o, cmdline);
    o
}

/// [`proctitle_body`] appended to `o`.
pub fn proctitle_body_into(o: &mut Vec<u8>, cmdline: &[u8]) {
    let mut t = &cmdline[..cmdline.len().min(MAX_PROCTITLE)];
    while let Some((&last, rest)) = t.split_last() {
        if kernel_isprint(last) {
            break;
        }
        t = rest;
    }
    o.extend_from_slice(b"proctitle=");
    if t.is_empty() {
        untrusted(o, b"(null)");
    } else {
        untrusted(o, t);
    }
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

    /// The body as it was built with `write!` (the reference).
    fn reference(s: &Syscall) -> Vec<u8> {
        use std::io::Write as _;
        let mut o = Vec::new();
        let _ = write!(o, "arch={:x} syscall={}", s.arch, s.syscall);
        if s.personality != 0 {
            let _ = write!(o, " per={:x}", s.personality);
        }
        if let Some(exit) = s.exit {
            let ok = !crate::exit::failed(exit);
            let _ = write!(o, " success={} exit={exit}", if ok { "yes" } else { "no" });
        }
        let [a0, a1, a2, a3] = s.args;
        let [uid, gid, euid, suid, fsuid, egid, sgid, fsgid] = s.ids;
        let _ = write!(
            o,
            " a0={a0:x} a1={a1:x} a2={a2:x} a3={a3:x} items={} ppid={} pid={} auid={} uid={uid} gid={gid} euid={euid} suid={suid} fsuid={fsuid} egid={egid} sgid={sgid} fsgid={fsgid} tty=",
            s.items, s.ppid, s.pid, s.auid
        );
        match &s.tty {
            Some(t) => o.extend_from_slice(t),
            None => o.extend_from_slice(b"(none)"),
        }
        let _ = write!(o, " ses={} comm=", s.ses);
        untrusted(&mut o, &s.comm);
        o.extend_from_slice(b" exe=");
        match &s.exe {
            Some(e) => untrusted(&mut o, e),
            None => o.extend_from_slice(b"(null)"),
        }
        subj_and_key(&mut o, s.subj.as_deref(), s.key.as_deref());
        o
    }

    proptest::proptest! {
        /// Any values: the bytes the `write!` version wrote.
        #[test]
        fn same_as_the_reference(
            n in proptest::collection::vec(proptest::prelude::any::<u32>(), 16),
            args in proptest::prelude::any::<[u64; 4]>(),
            exit in proptest::option::of(proptest::prelude::any::<i64>()),
            small_exit in -5000i64..5,
            tty in proptest::option::of(proptest::collection::vec(b'a'..=b'z', 0..5)),
            comm in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..16),
        ) {
            let s = Syscall {
                arch: n[0],
                syscall: n[1],
                personality: n[2] % 3,
                exit: exit.map(|e| if n[3] % 2 == 0 { small_exit } else { e }),
                args,
                items: n[4],
                ppid: n[5] as i32,
                pid: n[6] as i32,
                auid: n[7],
                ids: [n[8], n[9], n[10], n[11], n[12], n[13], n[14], n[15]],
                tty,
                ses: n[0] ^ n[1],
                comm: comm.clone(),
                exe: (n[2] % 2 == 0).then(|| comm.clone()),
                subj: None,
                key: (n[3] % 3 == 0).then(|| b"k".to_vec()),
            };
            proptest::prop_assert_eq!(s.body(), reference(&s));
        }
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
