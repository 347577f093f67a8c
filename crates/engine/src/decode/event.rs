//! An assembled event's records after SYSCALL (or after its lone
//! URINGOP), decoded from its auxiliary samples: the one entry of this
//! layer, called by the runtime for every event it delivers.

use crate::decode::sent::PathRecords;
use crate::decode::{exit_records, names, uring_paths, uring_sq};
use crate::event::AuditEvent;
use crate::host::facts::Facts;
use crate::payload::Aux;

/// Fill in `ev`'s records from its samples `aux`, as `kernel` writes
/// them, and count them in `items=` (SYSCALL's, or a SQPOLL op's
/// URINGOP's).
pub(crate) fn decode(ev: &mut AuditEvent, aux: &[Aux], kernel: &Facts) {
    if !ev.no_syscall {
        let paths = names::path_records(&ev.syscall, aux, *kernel);
        if let Some(p) = &paths {
            // items= counts the PATH records and the names the kernel hides.
            ev.syscall.items = p.items.len() as u32 + p.hidden;
        }
        ev.records = exit_records::decode(aux, ev.syscall.exe.as_deref());
        set_paths(ev, paths);
        return;
    }
    // An op of its own (an io-wq worker's or a SQPOLL thread's): its
    // context's SOCKADDR, CWD and PATH records follow it.
    let [op] = ev.uringops.as_mut_slice() else {
        return;
    };
    // An op whose names the BPF side handed it (a SQPOLL ring's; with
    // names delayed, any an io thread runs): items= counts the records
    // made of them; else (a worker's) as the BPF side counted.
    let paths = match uring_sq::sq_paths(op.op, op.exit, aux, op.pid, kernel) {
        Some(p) => {
            op.items = p.items.len() as u32;
            Some(p)
        }
        None => uring_paths::worker_paths(op.op, aux),
    };
    ev.records = exit_records::decode(aux, None);
    set_paths(ev, paths);
}

fn set_paths(ev: &mut AuditEvent, paths: Option<PathRecords>) {
    if let Some(p) = paths {
        ev.cwd = p.cwd;
        ev.paths = p.items;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_records::exit::ExitRecord;
    use fastaudit_records::{types, Syscall, UringOp};

    /// An audit config send's sample: the sockaddr_nl auditctl passes
    /// (struct fa_sockaddr: len, bytes read, the address).
    fn sockaddr() -> Aux {
        let mut data = vec![12, 0, 0, 0, 12, 0, 0, 0, 0x10];
        data.resize(8 + 128, 0);
        Aux {
            ty: types::SOCKADDR,
            data,
        }
    }

    #[test]
    fn an_event_is_handed_on_with_its_records_decoded() {
        let mut ev = AuditEvent {
            syscall: Syscall {
                arch: fastaudit_rules::abi::arch::X86_64,
                syscall: 44,
                exit: Some(12),
                ..Syscall::default()
            },
            ..AuditEvent::default()
        };
        decode(&mut ev, &[sockaddr()], &Facts::at((6, 18)));
        let mut addr = vec![0u8; 12];
        addr[0] = 0x10;
        assert_eq!(ev.records, [ExitRecord::Sockaddr(addr)]);
        assert!(ev.cwd.is_none() && ev.paths.is_empty());
        // An io_uring_enter's ops without its SYSCALL: nothing follows them.
        let mut ops = AuditEvent {
            uringops: vec![UringOp::default(); 2],
            no_syscall: true,
            ..AuditEvent::default()
        };
        decode(&mut ops, &[sockaddr()], &Facts::at((6, 18)));
        assert!(ops.records.is_empty());
    }
}
