//! The small records `audit_log_exit` writes for particular syscalls:
//! FD_PAIR, MMAP, OPENAT2, CAPSET, BPRM_FCAPS, OBJ_PID, KERN_MODULE,
//! MQ_OPEN, MQ_SENDRECV, MQ_NOTIFY, MQ_GETSETATTR, IPC, IPC_SET_PERM,
//! TIME_ADJNTPVAL, TIME_INJOFFSET, SOCKETCALL, each body byte for byte
//! as the kernel formats it (show_special in kernel/auditsc.c).

use crate::encode::untrusted;
use std::io::Write as _;

/// A process's capability sets (`kernel_cap_t` values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// Permitted set.
    pub permitted: u64,
    /// Inheritable set.
    pub inheritable: u64,
    /// Effective set.
    pub effective: u64,
    /// Ambient set.
    pub ambient: u64,
}

/// ` NAME=0` for an empty set, else ` NAME=%016llx` (`audit_log_cap`).
/// ` NAME=SET` as the kernel's audit_log_cap writes a capability set
/// (`0`, else 16 hex digits).
pub(crate) fn cap(o: &mut Vec<u8>, name: &str, v: u64) {
    if v == 0 {
        let _ = write!(o, " {name}=0");
    } else {
        let _ = write!(o, " {name}={v:016x}");
    }
}

/// FD_PAIR: `fd0=%d fd1=%d`.
pub fn fd_pair_body(fd0: i32, fd1: i32) -> Vec<u8> {
    format!("fd0={fd0} fd1={fd1}").into_bytes()
}

/// MMAP: `fd=%d flags=0x%x`.
pub fn mmap_body(fd: i32, flags: u32) -> Vec<u8> {
    format!("fd={fd} flags=0x{flags:x}").into_bytes()
}

/// OPENAT2: `oflag=0%llo mode=0%llo resolve=0x%llx`.
pub fn openat2_body(flags: u64, mode: u64, resolve: u64) -> Vec<u8> {
    format!("oflag=0{flags:o} mode=0{mode:o} resolve=0x{resolve:x}").into_bytes()
}

/// CAPSET: `pid=%d` then the new inheritable, permitted, effective and
/// ambient sets (cap_pi, cap_pp, cap_pe, cap_pa).
pub fn capset_body(pid: u32, caps: &Caps) -> Vec<u8> {
    let mut o = format!("pid={pid}").into_bytes();
    cap(&mut o, "cap_pi", caps.inheritable);
    cap(&mut o, "cap_pp", caps.permitted);
    cap(&mut o, "cap_pe", caps.effective);
    cap(&mut o, "cap_pa", caps.ambient);
    o
}

/// A file's capabilities as BPRM_FCAPS shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileCaps {
    /// `fver=` (the xattr's revision; 0 when the file has none).
    pub version: u32,
    /// `fp=`.
    pub permitted: u64,
    /// `fi=`.
    pub inheritable: u64,
    /// `fe=` (the effective flag).
    pub effective: bool,
    /// `frootid=`.
    pub rootid: u32,
}

/// `VFS_CAP_FLAGS_EFFECTIVE` in `magic_etc`.
const VFS_CAP_FLAGS_EFFECTIVE: u32 = 1;
/// Capabilities 0..40 (`CAP_VALID_MASK`).
const CAP_VALID_MASK: u64 = 0x1ff_ffff_ffff;

impl FileCaps {
    /// A `security.capability` xattr as the kernel's
    /// `get_vfs_caps_from_disk` reads it (revision 1, 2 or 3; rootid of
    /// revision 3, read in the initial user namespace); `None` when it is
    /// malformed, as the kernel then finds no capabilities.
    pub fn from_xattr(v: &[u8]) -> Option<FileCaps> {
        let word = |i: usize| -> Option<u32> {
            Some(u32::from_le_bytes(
                v.get(4 * i..4 * i + 4)?.try_into().ok()?,
            ))
        };
        let magic = word(0)?;
        let version = magic >> 24;
        let (size, hi) = match version {
            1 => (12, false),
            2 => (20, true),
            3 => (24, true),
            _ => return None,
        };
        if v.len() != size {
            return None;
        }
        let set = |lo: usize| -> Option<u64> {
            let high = if hi {
                u64::from(word(lo + 2)?) << 32
            } else {
                0
            };
            Some((u64::from(word(lo)?) | high) & CAP_VALID_MASK)
        };
        Some(FileCaps {
            version,
            permitted: set(1)?,
            inheritable: set(2)?,
            effective: magic & VFS_CAP_FLAGS_EFFECTIVE != 0,
            rootid: if version == 3 { word(5)? } else { 0 },
        })
    }
}

/// BPRM_FCAPS: the file's capabilities, the sets before and after the exec.
pub fn bprm_fcaps_body(file: &FileCaps, old: &Caps, new: &Caps) -> Vec<u8> {
    let mut o = format!("fver={:x}", file.version).into_bytes();
    cap(&mut o, "fp", file.permitted);
    cap(&mut o, "fi", file.inheritable);
    let _ = write!(o, " fe={}", u8::from(file.effective));
    cap(&mut o, "old_pp", old.permitted);
    cap(&mut o, "old_pi", old.inheritable);
    cap(&mut o, "old_pe", old.effective);
    cap(&mut o, "old_pa", old.ambient);
    cap(&mut o, "pp", new.permitted);
    cap(&mut o, "pi", new.inheritable);
    cap(&mut o, "pe", new.effective);
    cap(&mut o, "pa", new.ambient);
    let _ = write!(o, " frootid={}", file.rootid as i32);
    o
}

/// The task an OBJ_PID record names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjPid {
    /// Its tgid.
    pub pid: u32,
    /// Its login uid.
    pub auid: u32,
    /// Its uid.
    pub uid: u32,
    /// Its session id.
    pub ses: u32,
    /// Its command name.
    pub comm: Vec<u8>,
    /// Its LSM label, when an LSM gives one.
    pub obj: Option<Vec<u8>>,
}

/// OBJ_PID: `opid=%d oauid=%d ouid=%d oses=%d[ obj=%s] ocomm=` (ids
/// printed signed, as the kernel's %d does; the label as it is).
pub fn obj_pid_body(t: &ObjPid) -> Vec<u8> {
    let mut o = format!(
        "opid={} oauid={} ouid={} oses={}",
        t.pid as i32, t.auid as i32, t.uid as i32, t.ses as i32
    )
    .into_bytes();
    if let Some(label) = &t.obj {
        o.extend_from_slice(b" obj=");
        o.extend_from_slice(label);
    }
    o.extend_from_slice(b" ocomm=");
    untrusted(&mut o, &t.comm);
    o
}

/// KERN_MODULE: `name=` and the name as an untrusted string (show_special
/// in kernel/auditsc.c; its `(null)`, for a name it failed to duplicate, is
/// never sent).
pub fn kern_module_body(name: &[u8]) -> Vec<u8> {
    let mut o = b"name=".to_vec();
    untrusted(&mut o, name);
    o
}

/// A mode as C's `%#ho` prints it: `0` alone for zero, else a leading 0.
fn alt_octal(mode: u16) -> String {
    if mode == 0 {
        "0".to_string()
    } else {
        format!("0{mode:o}")
    }
}

/// `struct mq_attr`'s four fields the records print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MqAttr {
    /// `mq_flags`.
    pub flags: i64,
    /// `mq_maxmsg`.
    pub maxmsg: i64,
    /// `mq_msgsize`.
    pub msgsize: i64,
    /// `mq_curmsgs`.
    pub curmsgs: i64,
}

/// MQ_OPEN: `oflag=0x%x mode=%#ho mq_flags=0x%lx mq_maxmsg=%ld
/// mq_msgsize=%ld mq_curmsgs=%ld`.
pub fn mq_open_body(oflag: u32, mode: u16, a: &MqAttr) -> Vec<u8> {
    format!(
        "oflag=0x{oflag:x} mode={} mq_flags=0x{:x} mq_maxmsg={} mq_msgsize={} mq_curmsgs={}",
        alt_octal(mode),
        a.flags,
        a.maxmsg,
        a.msgsize,
        a.curmsgs
    )
    .into_bytes()
}

/// What MQ_SENDRECV shows of mq_timedsend or mq_timedreceive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MqSendRecv {
    /// The queue's descriptor.
    pub mqdes: i32,
    /// The message length argument.
    pub msg_len: u64,
    /// The priority (0 for a receive).
    pub msg_prio: u32,
    /// The absolute timeout's seconds (0 without one).
    pub sec: i64,
    /// ... and nanoseconds.
    pub nsec: i64,
}

/// MQ_SENDRECV: `mqdes=%d msg_len=%zd msg_prio=%u abs_timeout_sec=%lld
/// abs_timeout_nsec=%ld`.
pub fn mq_sendrecv_body(r: &MqSendRecv) -> Vec<u8> {
    format!(
        "mqdes={} msg_len={} msg_prio={} abs_timeout_sec={} abs_timeout_nsec={}",
        r.mqdes, r.msg_len as i64, r.msg_prio, r.sec, r.nsec
    )
    .into_bytes()
}

/// MQ_NOTIFY: `mqdes=%d sigev_signo=%d`.
pub fn mq_notify_body(mqdes: i32, signo: i32) -> Vec<u8> {
    format!("mqdes={mqdes} sigev_signo={signo}").into_bytes()
}

/// MQ_GETSETATTR: `mqdes=%d mq_flags=0x%lx mq_maxmsg=%ld mq_msgsize=%ld
/// mq_curmsgs=%ld ` (the kernel's format ends in a space).
pub fn mq_getsetattr_body(mqdes: i32, a: &MqAttr) -> Vec<u8> {
    format!(
        "mqdes={mqdes} mq_flags=0x{:x} mq_maxmsg={} mq_msgsize={} mq_curmsgs={} ",
        a.flags, a.maxmsg, a.msgsize, a.curmsgs
    )
    .into_bytes()
}

/// IPC: `ouid=%u ogid=%u mode=%#ho`, the System V object's owner and
/// mode (no `obj=`: no LSM label is read).
pub fn ipc_body(uid: u32, gid: u32, mode: u16) -> Vec<u8> {
    format!("ouid={uid} ogid={gid} mode={}", alt_octal(mode)).into_bytes()
}

/// IPC_SET_PERM: `qbytes=%lx ouid=%u ogid=%u mode=%#ho`, what IPC_SET
/// was given.
pub fn ipc_set_perm_body(qbytes: u64, uid: u32, gid: u32, mode: u16) -> Vec<u8> {
    format!(
        "qbytes={qbytes:x} ouid={uid} ogid={gid} mode={}",
        alt_octal(mode)
    )
    .into_bytes()
}

/// The NTP values TIME_ADJNTPVAL names, in the kernel's order
/// (`AUDIT_NTP_OFFSET` ... `AUDIT_NTP_ADJUST`).
pub const NTP_VALUES: [&str; 6] = ["offset", "freq", "status", "tai", "tick", "adjust"];

/// TIME_ADJNTPVAL: `op=%s old=%lli new=%lli`, one NTP value changed.
pub fn time_adjntpval_body(op: &str, old: i64, new: i64) -> Vec<u8> {
    format!("op={op} old={old} new={new}").into_bytes()
}

/// TIME_INJOFFSET: `sec=%lli nsec=%li`, the offset injected.
pub fn time_injoffset_body(sec: i64, nsec: i64) -> Vec<u8> {
    format!("sec={sec} nsec={nsec}").into_bytes()
}

/// SOCKETCALL: `nargs=%d` then ` aN=%lx` for each argument word.
pub fn socketcall_body(args: &[u32]) -> Vec<u8> {
    let mut o = format!("nargs={}", args.len()).into_bytes();
    for (i, a) in args.iter().enumerate() {
        let _ = write!(o, " a{i}={a:x}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_capabilities_from_the_xattr() {
        // setcap cap_net_raw+ep: revision 2, effective, bit 13.
        let mut v = 0x0200_0001u32.to_le_bytes().to_vec();
        for w in [0x2000u32, 0, 0, 0] {
            v.extend(w.to_le_bytes());
        }
        assert_eq!(
            FileCaps::from_xattr(&v),
            Some(FileCaps {
                version: 2,
                permitted: 0x2000,
                inheritable: 0,
                effective: true,
                rootid: 0
            })
        );
        assert_eq!(FileCaps::from_xattr(&v[..16]), None);
        let body = bprm_fcaps_body(
            &FileCaps::from_xattr(&v).unwrap(),
            &Caps::default(),
            &Caps::default(),
        );
        assert!(body.starts_with(b"fver=2 fp=0000000000002000 fi=0 fe=1 "));
    }

    #[test]
    fn bodies_as_the_kernel_writes_them() {
        assert_eq!(fd_pair_body(3, 4), b"fd0=3 fd1=4");
        assert_eq!(mmap_body(3, 2), b"fd=3 flags=0x2");
        assert_eq!(
            openat2_body(0o100101, 0o644, 4),
            b"oflag=0100101 mode=0644 resolve=0x4"
        );
        let root = Caps {
            permitted: 0x1fffeffffff,
            effective: 0x1fffeffffff,
            ..Caps::default()
        };
        // As captured from the kernel for a root exec on this machine.
        assert_eq!(
            String::from_utf8(bprm_fcaps_body(&FileCaps::default(), &root, &root)).unwrap(),
            "fver=0 fp=0 fi=0 fe=0 old_pp=000001fffeffffff old_pi=0 old_pe=000001fffeffffff old_pa=0 pp=000001fffeffffff pi=0 pe=000001fffeffffff pa=0 frootid=0"
        );
        assert_eq!(
            capset_body(
                7,
                &Caps {
                    permitted: 1,
                    effective: 2,
                    ..Caps::default()
                }
            ),
            b"pid=7 cap_pi=0 cap_pp=0000000000000001 cap_pe=0000000000000002 cap_pa=0"
        );
        let t = ObjPid {
            pid: 9,
            auid: u32::MAX,
            uid: 0,
            ses: u32::MAX,
            comm: b"sleep".to_vec(),
            obj: None,
        };
        assert_eq!(
            obj_pid_body(&t),
            b"opid=9 oauid=-1 ouid=0 oses=-1 ocomm=\"sleep\""
        );
        // Under AppArmor the target's label comes before ocomm=.
        let t = ObjPid {
            obj: Some(b"unconfined".to_vec()),
            ..t
        };
        assert_eq!(
            obj_pid_body(&t),
            b"opid=9 oauid=-1 ouid=0 oses=-1 obj=unconfined ocomm=\"sleep\""
        );
    }

    #[test]
    fn kern_module_name_quoted_or_hex() {
        assert_eq!(
            kern_module_body(b"fa_no_such_module"),
            b"name=\"fa_no_such_module\""
        );
        // A space, or any byte past ASCII, makes the whole name hex.
        assert_eq!(kern_module_body(b"fa mod"), b"name=6661206D6F64");
        assert_eq!(kern_module_body(b"fa\xe9"), b"name=6661E9");
        // load_module's name for an image whose name was never found.
        assert_eq!(kern_module_body(b"?"), b"name=\"?\"");
    }

    #[test]
    fn message_queue_bodies() {
        let attr = MqAttr {
            flags: 0x800,
            maxmsg: 4,
            msgsize: 64,
            curmsgs: 0,
        };
        assert_eq!(
            mq_open_body(0o302, 0o600, &attr),
            b"oflag=0xc2 mode=0600 mq_flags=0x800 mq_maxmsg=4 mq_msgsize=64 mq_curmsgs=0"
        );
        // %#ho of 0 is "0"; %lx of a negative long is its two's complement.
        let odd = MqAttr {
            flags: -1,
            maxmsg: -1,
            ..MqAttr::default()
        };
        assert_eq!(
            mq_open_body(0, 0, &odd),
            b"oflag=0x0 mode=0 mq_flags=0xffffffffffffffff mq_maxmsg=-1 mq_msgsize=0 mq_curmsgs=0"
        );
        let r = MqSendRecv {
            mqdes: 3,
            msg_len: u64::MAX,
            msg_prio: 5,
            sec: 1,
            nsec: 999_999_999,
        };
        assert_eq!(
            mq_sendrecv_body(&r),
            b"mqdes=3 msg_len=-1 msg_prio=5 abs_timeout_sec=1 abs_timeout_nsec=999999999"
        );
        assert_eq!(mq_notify_body(-1, 10), b"mqdes=-1 sigev_signo=10");
        assert_eq!(
            mq_getsetattr_body(3, &attr),
            b"mqdes=3 mq_flags=0x800 mq_maxmsg=4 mq_msgsize=64 mq_curmsgs=0 "
        );
    }

    #[test]
    fn ipc_bodies() {
        assert_eq!(ipc_body(0, 0, 0o600), b"ouid=0 ogid=0 mode=0600");
        // A removed shared memory segment carries SHM_DEST.
        assert_eq!(
            ipc_body(65534, 65534, 0o1640),
            b"ouid=65534 ogid=65534 mode=01640"
        );
        assert_eq!(
            ipc_set_perm_body(0x4000, 1, 2, 0o640),
            b"qbytes=4000 ouid=1 ogid=2 mode=0640"
        );
        assert_eq!(
            ipc_set_perm_body(u64::MAX, 0, 0, 0),
            b"qbytes=ffffffffffffffff ouid=0 ogid=0 mode=0"
        );
    }

    #[test]
    fn time_bodies() {
        assert_eq!(
            time_adjntpval_body(NTP_VALUES[1], 0, 65536),
            b"op=freq old=0 new=65536"
        );
        assert_eq!(
            time_injoffset_body(-1, 999_999_999),
            b"sec=-1 nsec=999999999"
        );
    }

    #[test]
    fn socketcall_body_lists_the_words() {
        assert_eq!(socketcall_body(&[2, 1, 0]), b"nargs=3 a0=2 a1=1 a2=0");
        assert_eq!(
            socketcall_body(&[0xffff_ffff, 5]),
            b"nargs=2 a0=ffffffff a1=5"
        );
    }
}
