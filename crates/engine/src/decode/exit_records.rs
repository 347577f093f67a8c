//! The payloads of the records after SYSCALL that the BPF side sends
//! (EXECVE, SOCKADDR, FD_PAIR, MMAP, OPENAT2, CAPSET, BPRM_FCAPS, OBJ_PID,
//! KERN_MODULE, MQ_*, IPC, TIME_*, SOCKETCALL), decoded into the records crate's values, in the
//! kernel's order.

use crate::decode::exec_files::file_caps;
use crate::payload::{read, Aux};
use fastaudit_bpf::types::{
    fa_bprm_fcaps, fa_bprm_flag, fa_caps, fa_capset, fa_execve, fa_execve_flag, fa_fd_pair, fa_ipc,
    fa_kern_module, fa_mmap, fa_mq_attr, fa_mq_getsetattr, fa_mq_notify, fa_mq_open,
    fa_mq_sendrecv, fa_ntp, fa_obj_pid, fa_openat2, fa_sockaddr, fa_socketcall,
};
use fastaudit_records::exit::{rank, ExitRecord};
use fastaudit_records::special::{Caps, MqAttr, MqSendRecv, ObjPid, NTP_VALUES};
use fastaudit_records::types;

fn caps(c: &fa_caps) -> Caps {
    Caps {
        permitted: c.permitted,
        inheritable: c.inheritable,
        effective: c.effective,
        ambient: c.ambient,
    }
}

fn mq_attr(a: &fa_mq_attr) -> MqAttr {
    MqAttr {
        flags: a.flags,
        maxmsg: a.maxmsg,
        msgsize: a.msgsize,
        curmsgs: a.curmsgs,
    }
}

fn cstr(b: &[u8]) -> Vec<u8> {
    b.iter().take_while(|&&c| c != 0).copied().collect()
}

/// The records an event's auxiliary samples stand for, in the order
/// `audit_log_exit` writes them; `exe` is the task's executable (an
/// exec's file). Payloads of other types (PATH, CWD, ...) are left to
/// their own decoders; malformed ones are skipped.
pub(crate) fn decode(aux: &[Aux], exe: Option<&[u8]>) -> Vec<ExitRecord> {
    let mut out = Vec::new();
    // EXECVE's argument area comes in chunks, in order.
    let mut execve: Option<(u32, Vec<u8>)> = None;
    for a in aux {
        let d = &a.data[..];
        match a.ty {
            types::EXECVE => {
                if let Some(e) = read::<fa_execve>(d) {
                    out.extend(execve_chunk(&e, &mut execve));
                }
            }
            types::BPRM_FCAPS => {
                if let Some(b) = read::<fa_bprm_fcaps>(d) {
                    out.extend(bprm_fcaps(&b, exe));
                }
            }
            types::IPC => {
                if let Some(i) = read::<fa_ipc>(d) {
                    out.extend(ipc(&i));
                }
            }
            types::TIME_ADJNTPVAL => {
                if let Some(n) = read::<fa_ntp>(d) {
                    out.extend(time(&n));
                }
            }
            ty => out.extend(one_record(ty, d)),
        }
    }
    // An area whose last chunk was lost: what came.
    if let Some((argc, area)) = execve {
        out.push(ExitRecord::Execve { argc, area });
    }
    out.sort_by_key(|r| rank(r.ty()));
    out
}

/// One chunk of EXECVE's argument area added to `area` (argc, bytes so
/// far); the record once its last chunk came.
fn execve_chunk(e: &fa_execve, area: &mut Option<(u32, Vec<u8>)>) -> Option<ExitRecord> {
    let len = (e.len as usize).min(e.data.len());
    let bytes = e.data[..len].iter().map(|&c| c as u8);
    let (_, so_far) = area.get_or_insert_with(|| (e.argc, Vec::new()));
    so_far.extend(bytes);
    if e.flags & fa_execve_flag::FA_EXECVE_LAST.0 == 0 {
        return None;
    }
    let (argc, area) = area.take()?;
    Some(ExitRecord::Execve { argc, area })
}

/// BPRM_FCAPS, when the exec raised capabilities; `exe`: the file whose
/// capabilities it had.
fn bprm_fcaps(b: &fa_bprm_fcaps, exe: Option<&[u8]>) -> Option<ExitRecord> {
    let file = exe.and_then(file_caps);
    // The permitted set's growth raises only with file capabilities.
    let raised = b.flags & fa_bprm_flag::FA_BPRM_RAISED.0 != 0
        || (file.is_some() && b.flags & fa_bprm_flag::FA_BPRM_PP_GAINED.0 != 0);
    raised.then(|| ExitRecord::BprmFcaps(file.unwrap_or_default(), caps(&b.old), caps(&b.new)))
}

/// One sample: IPC, and IPC_SET_PERM after it for IPC_SET.
fn ipc(i: &fa_ipc) -> Vec<ExitRecord> {
    let mut out = vec![ExitRecord::Ipc(i.uid, i.gid, i.mode as u16)];
    if i.has_perm != 0 {
        out.push(ExitRecord::IpcSetPerm(
            i.qbytes,
            i.perm_uid,
            i.perm_gid,
            i.perm_mode as u16,
        ));
    }
    out
}

/// One sample: a TIME_ADJNTPVAL per value changed, then TIME_INJOFFSET
/// (audit_log_time): the task's last injected offset, when not 0, if
/// this syscall injected one or changed a value (the kernel's context
/// keeps the offset).
fn time(n: &fa_ntp) -> Vec<ExitRecord> {
    let mut out = Vec::new();
    let mut changed = false;
    for (i, op) in NTP_VALUES.iter().enumerate() {
        if n.old[i] != n.new[i] {
            changed = true;
            out.push(ExitRecord::TimeAdjNtpVal(op, n.old[i], n.new[i]));
        }
    }
    if (changed || n.injected != 0) && (n.sec != 0 || n.nsec != 0) {
        out.push(ExitRecord::TimeInjOffset(n.sec, n.nsec));
    }
    out
}

/// OBJ_PID: the signalled task as the BPF side read it.
fn obj_pid(o: &fa_obj_pid) -> ExitRecord {
    let comm: Vec<u8> = o.comm.iter().map(|&c| c as u8).collect();
    ExitRecord::ObjPid(ObjPid {
        pid: o.pid,
        auid: o.auid,
        uid: o.uid,
        ses: o.ses,
        comm: cstr(&comm),
        obj: o
            .obj
            .get(..o.obj_len as usize)
            .filter(|l| !l.is_empty())
            .map(|l| l.iter().map(|&c| c as u8).collect()),
    })
}

/// The record of a type whose sample makes exactly one (`None`: another
/// type, or a malformed payload).
fn one_record(ty: u32, d: &[u8]) -> Option<ExitRecord> {
    Some(match ty {
        types::SOCKADDR => {
            let s = read::<fa_sockaddr>(d)?;
            let n = (s.read as usize).min(s.addr.len());
            ExitRecord::Sockaddr(s.addr[..n].to_vec())
        }
        types::FD_PAIR => read::<fa_fd_pair>(d).map(|p| ExitRecord::FdPair(p.fd[0], p.fd[1]))?,
        types::MMAP => read::<fa_mmap>(d).map(|m| ExitRecord::Mmap(m.fd, m.flags))?,
        types::OPENAT2 => {
            read::<fa_openat2>(d).map(|h| ExitRecord::Openat2(h.flags, h.mode, h.resolve))?
        }
        types::CAPSET => read::<fa_capset>(d).map(|c| ExitRecord::Capset(c.pid, caps(&c.caps)))?,
        types::OBJ_PID => obj_pid(&read::<fa_obj_pid>(d)?),
        types::KERN_MODULE => {
            let k = read::<fa_kern_module>(d)?;
            let len = (k.len as usize).min(k.name.len());
            ExitRecord::KernModule(k.name[..len].iter().map(|&c| c as u8).collect())
        }
        types::SOCKETCALL => {
            let c = read::<fa_socketcall>(d)?;
            let n = (c.nargs as usize).min(c.args.len());
            ExitRecord::Socketcall(c.args[..n].to_vec())
        }
        types::MQ_OPEN => {
            let o = read::<fa_mq_open>(d)?;
            ExitRecord::MqOpen(o.oflag, o.mode as u16, mq_attr(&o.attr))
        }
        types::MQ_SENDRECV => {
            let r = read::<fa_mq_sendrecv>(d)?;
            ExitRecord::MqSendRecv(MqSendRecv {
                mqdes: r.mqdes,
                msg_len: r.msg_len,
                msg_prio: r.msg_prio,
                sec: r.sec,
                nsec: r.nsec,
            })
        }
        types::MQ_NOTIFY => {
            read::<fa_mq_notify>(d).map(|n| ExitRecord::MqNotify(n.mqdes, n.signo))?
        }
        types::MQ_GETSETATTR => {
            let g = read::<fa_mq_getsetattr>(d)?;
            ExitRecord::MqGetSetAttr(g.mqdes, mq_attr(&g.attr))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::payload::bytes;

    #[test]
    fn kern_module_name_takes_len_bytes() {
        let mut k = fa_kern_module {
            len: 6,
            ..Default::default()
        };
        for (d, s) in k.name.iter_mut().zip(b"fa mod\0junk") {
            *d = *s as _;
        }
        let aux = [Aux {
            ty: types::KERN_MODULE,
            data: bytes(&k),
        }];
        assert_eq!(
            decode(&aux, None),
            vec![ExitRecord::KernModule(b"fa mod".to_vec())]
        );
    }

    #[test]
    fn ipc_set_gives_ipc_then_ipc_set_perm() {
        let i = fa_ipc {
            mode: 0o600,
            has_perm: 1,
            qbytes: 8192,
            perm_mode: 0o660,
            ..Default::default()
        };
        let aux = [Aux {
            ty: types::IPC,
            data: bytes(&i),
        }];
        assert_eq!(
            decode(&aux, None),
            vec![
                ExitRecord::Ipc(0, 0, 0o600),
                ExitRecord::IpcSetPerm(8192, 0, 0, 0o660)
            ]
        );
    }

    #[test]
    fn ntp_values_changed_then_the_offset() {
        let mut n = fa_ntp {
            has_values: 1,
            injected: 1,
            sec: -1,
            nsec: 999_999_999,
            ..Default::default()
        };
        n.old[2] = 0x40;
        n.new[2] = 0x2040;
        n.old[1] = 5;
        n.new[1] = 5;
        let aux = [Aux {
            ty: types::TIME_ADJNTPVAL,
            data: bytes(&n),
        }];
        assert_eq!(
            decode(&aux, None),
            vec![
                ExitRecord::TimeAdjNtpVal("status", 0x40, 0x2040),
                ExitRecord::TimeInjOffset(-1, 999_999_999)
            ],
            "only the values that changed, then the offset"
        );
        // An offset injected earlier: shown again with a value changed,
        // not with nothing changed.
        n.injected = 0;
        let aux = [Aux {
            ty: types::TIME_ADJNTPVAL,
            data: bytes(&n),
        }];
        assert_eq!(
            decode(&aux, None).len(),
            2,
            "a value changed: the old offset too"
        );
        n.new[2] = n.old[2];
        let aux = [Aux {
            ty: types::TIME_ADJNTPVAL,
            data: bytes(&n),
        }];
        assert_eq!(
            decode(&aux, None),
            vec![],
            "nothing changed, nothing injected"
        );
    }
}
