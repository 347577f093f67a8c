//! The records the kernel's `audit_log_exit` writes after SYSCALL, in its
//! order: the aux list (BPRM_FCAPS), `show_special`'s one record
//! (SOCKETCALL, IPC, MQ_*, CAPSET, MMAP, OPENAT2, EXECVE, KERN_MODULE,
//! TIME_*), FD_PAIR, SOCKADDR, OBJ_PID, CWD, PATH; PROCTITLE last.

use crate::special::{Caps, FileCaps, MqAttr, MqSendRecv, ObjPid};
use crate::types;

/// Record types in the order `audit_log_exit` writes them.
pub const ORDER: &[u32] = &[
    types::BPRM_FCAPS,
    types::SOCKETCALL,
    types::IPC,
    types::IPC_SET_PERM,
    types::MQ_OPEN,
    types::MQ_SENDRECV,
    types::MQ_NOTIFY,
    types::MQ_GETSETATTR,
    types::CAPSET,
    types::MMAP,
    types::OPENAT2,
    types::EXECVE,
    types::KERN_MODULE,
    types::TIME_ADJNTPVAL,
    types::TIME_INJOFFSET,
    types::FD_PAIR,
    types::SOCKADDR,
    types::OBJ_PID,
    types::CWD,
    types::PATH,
];

/// Where a record of type `ty` goes among an event's records.
pub fn rank(ty: u32) -> usize {
    ORDER.iter().position(|&t| t == ty).unwrap_or(ORDER.len())
}

/// One record written after SYSCALL, as its content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitRecord {
    /// EXECVE: argc and the argument area (NUL-terminated strings).
    Execve {
        /// The argument count.
        argc: u32,
        /// The argument area.
        area: Vec<u8>,
    },
    /// SOCKADDR: the address's bytes.
    Sockaddr(Vec<u8>),
    /// FD_PAIR.
    FdPair(i32, i32),
    /// MMAP: fd and flags.
    Mmap(i32, u32),
    /// OPENAT2: flags, mode, resolve.
    Openat2(u64, u64, u64),
    /// CAPSET: pid and the new sets.
    Capset(u32, Caps),
    /// BPRM_FCAPS: the file's capabilities, old and new sets.
    BprmFcaps(FileCaps, Caps, Caps),
    /// OBJ_PID.
    ObjPid(ObjPid),
    /// KERN_MODULE: the module's name.
    KernModule(Vec<u8>),
    /// MQ_OPEN: oflag, mode and the attributes.
    MqOpen(u32, u16, MqAttr),
    /// MQ_SENDRECV.
    MqSendRecv(MqSendRecv),
    /// MQ_NOTIFY: the descriptor and the signal.
    MqNotify(i32, i32),
    /// MQ_GETSETATTR: the descriptor and the new attributes.
    MqGetSetAttr(i32, MqAttr),
    /// IPC: the object's uid, gid and mode.
    Ipc(u32, u32, u16),
    /// IPC_SET_PERM: qbytes, the new uid, gid and mode.
    IpcSetPerm(u64, u32, u32, u16),
    /// TIME_ADJNTPVAL: the value's name, old and new.
    TimeAdjNtpVal(&'static str, i64, i64),
    /// TIME_INJOFFSET: seconds and nanoseconds.
    TimeInjOffset(i64, i64),
    /// SOCKETCALL: the argument words.
    Socketcall(Vec<u32>),
}

impl ExitRecord {
    /// Its record type.
    pub fn ty(&self) -> u32 {
        match self {
            ExitRecord::Execve { .. } => types::EXECVE,
            ExitRecord::Sockaddr(_) => types::SOCKADDR,
            ExitRecord::FdPair(..) => types::FD_PAIR,
            ExitRecord::Mmap(..) => types::MMAP,
            ExitRecord::Openat2(..) => types::OPENAT2,
            ExitRecord::Capset(..) => types::CAPSET,
            ExitRecord::BprmFcaps(..) => types::BPRM_FCAPS,
            ExitRecord::ObjPid(_) => types::OBJ_PID,
            ExitRecord::KernModule(_) => types::KERN_MODULE,
            ExitRecord::MqOpen(..) => types::MQ_OPEN,
            ExitRecord::MqSendRecv(_) => types::MQ_SENDRECV,
            ExitRecord::MqNotify(..) => types::MQ_NOTIFY,
            ExitRecord::MqGetSetAttr(..) => types::MQ_GETSETATTR,
            ExitRecord::Ipc(..) => types::IPC,
            ExitRecord::IpcSetPerm(..) => types::IPC_SET_PERM,
            ExitRecord::TimeAdjNtpVal(..) => types::TIME_ADJNTPVAL,
            ExitRecord::TimeInjOffset(..) => types::TIME_INJOFFSET,
            ExitRecord::Socketcall(_) => types::SOCKETCALL,
        }
    }

    /// Its record bodies (EXECVE may need several records).
    pub fn bodies(&self) -> Vec<Vec<u8>> {
        use crate::{execve, sockaddr, special};
        match self {
            ExitRecord::Execve { argc, area } => execve::bodies(*argc, area),
            ExitRecord::Sockaddr(b) => vec![sockaddr::body(b)],
            ExitRecord::FdPair(a, b) => vec![special::fd_pair_body(*a, *b)],
            ExitRecord::Mmap(fd, flags) => vec![special::mmap_body(*fd, *flags)],
            ExitRecord::Openat2(f, m, r) => vec![special::openat2_body(*f, *m, *r)],
            ExitRecord::Capset(pid, caps) => vec![special::capset_body(*pid, caps)],
            ExitRecord::BprmFcaps(file, old, new) => {
                vec![special::bprm_fcaps_body(file, old, new)]
            }
            ExitRecord::ObjPid(t) => vec![special::obj_pid_body(t)],
            ExitRecord::KernModule(name) => vec![special::kern_module_body(name)],
            ExitRecord::MqOpen(oflag, mode, a) => vec![special::mq_open_body(*oflag, *mode, a)],
            ExitRecord::MqSendRecv(r) => vec![special::mq_sendrecv_body(r)],
            ExitRecord::MqNotify(d, sig) => vec![special::mq_notify_body(*d, *sig)],
            ExitRecord::MqGetSetAttr(d, a) => vec![special::mq_getsetattr_body(*d, a)],
            ExitRecord::Ipc(uid, gid, mode) => vec![special::ipc_body(*uid, *gid, *mode)],
            ExitRecord::IpcSetPerm(q, uid, gid, mode) => {
                vec![special::ipc_set_perm_body(*q, *uid, *gid, *mode)]
            }
            ExitRecord::TimeAdjNtpVal(op, old, new) => {
                vec![special::time_adjntpval_body(op, *old, *new)]
            }
            ExitRecord::TimeInjOffset(sec, nsec) => vec![special::time_injoffset_body(*sec, *nsec)],
            ExitRecord::Socketcall(args) => vec![special::socketcall_body(args)],
        }
    }
}

/// Whether a syscall's return value says it failed, as the kernel's
/// `is_syscall_success` judges it: a return in the errno range (-4095..-1;
/// MAX_ERRNO is 4095).
pub fn failed(exit: i64) -> bool {
    (-4095..0).contains(&exit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_follows_audit_log_exit() {
        assert!(rank(types::BPRM_FCAPS) < rank(types::EXECVE));
        assert!(rank(types::BPRM_FCAPS) < rank(types::SOCKETCALL));
        assert!(rank(types::SOCKETCALL) < rank(types::IPC));
        assert!(rank(types::IPC) < rank(types::IPC_SET_PERM));
        assert!(rank(types::IPC_SET_PERM) < rank(types::MQ_OPEN));
        assert!(rank(types::MQ_GETSETATTR) < rank(types::CAPSET));
        assert!(rank(types::EXECVE) < rank(types::CWD));
        assert!(rank(types::KERN_MODULE) < rank(types::TIME_ADJNTPVAL));
        assert!(rank(types::TIME_ADJNTPVAL) < rank(types::TIME_INJOFFSET));
        assert!(rank(types::TIME_INJOFFSET) < rank(types::FD_PAIR));
        assert!(rank(types::FD_PAIR) < rank(types::SOCKADDR));
        assert!(rank(types::SOCKADDR) < rank(types::OBJ_PID));
        assert!(rank(types::OBJ_PID) < rank(types::PATH));
    }
}
