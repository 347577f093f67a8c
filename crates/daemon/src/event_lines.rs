//! A BPF event's records as the kernel would have written them: its
//! URINGOP records, then SYSCALL, the records the kernel writes after it
//! (EXECVE, SOCKADDR, CWD, PATH, ..., in audit_log_exit's order) and
//! PROCTITLE, all under one stamp. A new record family of the BPF side
//! adds its records in [`after_syscall`] (through
//! `fastaudit_engine::exit_records`).

use fastaudit_engine::names::{path_records, PathRecords};
use fastaudit_engine::{exit_records, AuditEvent};
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::exit::rank;
use fastaudit_records::line::{line, line_with};
use fastaudit_records::path::{cwd_body, cwd_body_into};
use fastaudit_records::syscall::proctitle_body_into;
use fastaudit_records::{types, Format, Stamp, Syscall, UringOp};

/// An event's lines appended to `lines`: its URINGOP records first, then
/// (unless it has none) SYSCALL and what follows it.
pub fn uring_event_lines(lines: &mut Vec<u8>, ev: &AuditEvent, stamp: Stamp, format: Format) {
    let uringop = |lines: &mut Vec<u8>, op: &UringOp| {
        lines.extend(line(
            None,
            types::URINGOP,
            stamp,
            &op.body(),
            format,
            &SystemNames,
        ));
    };
    // An op of its own (an io-wq worker's or a SQPOLL thread's): its
    // context's SOCKADDR, CWD and PATH records follow it.
    let [op] = ev.uringops.as_slice() else {
        for op in &ev.uringops {
            uringop(lines, op);
        }
        if !ev.no_syscall {
            event_lines_into(lines, ev, stamp, format);
        }
        return;
    };
    if !ev.no_syscall {
        uringop(lines, op);
        event_lines_into(lines, ev, stamp, format);
        return;
    }
    // A SQPOLL ring's op whose names the BPF side sent: items= counts the
    // records made of them; else (a worker's) as the BPF side counted.
    let (paths, op) = match fastaudit_engine::uring_sq::sq_paths(op.op, &ev.aux, op.pid) {
        Some(p) => {
            let counted = UringOp {
                items: p.items.len() as u32,
                ..op.clone()
            };
            (Some(p), std::borrow::Cow::Owned(counted))
        }
        None => (
            fastaudit_engine::uring_paths::worker_paths(op.op, &ev.aux),
            std::borrow::Cow::Borrowed(op),
        ),
    };
    uringop(lines, &op);
    let decoded = exit_records::decode(&ev.aux, None);
    for (ty, body) in after_syscall(decoded, paths) {
        lines.extend(line(None, ty, stamp, &body, format, &SystemNames));
    }
}

/// A BPF event's records under `stamp`: SYSCALL, the records the kernel
/// writes after it (EXECVE, SOCKADDR, ..., in audit_log_exit's order),
/// PROCTITLE.
pub fn event_lines(ev: &AuditEvent, stamp: Stamp, format: Format) -> Vec<u8> {
    let mut lines = Vec::with_capacity(1024);
    event_lines_into(&mut lines, ev, stamp, format);
    lines
}

/// [`event_lines`] appended to `lines`, each body written in place.
pub fn event_lines_into(lines: &mut Vec<u8>, ev: &AuditEvent, stamp: Stamp, format: Format) {
    let paths = path_records(&ev.syscall, &ev.aux);
    let record = |lines: &mut Vec<u8>, ty: u32, body: &dyn Fn(&mut Vec<u8>)| {
        line_with(lines, None, ty, stamp, format, &SystemNames, body);
    };
    // items= counts the PATH records and the names the kernel hides.
    let items = paths
        .as_ref()
        .map_or(ev.syscall.items, |p| p.items.len() as u32 + p.hidden);
    if items == ev.syscall.items {
        record(lines, types::SYSCALL, &|o| ev.syscall.body_into(o));
    } else {
        let sc = Syscall {
            items,
            ..ev.syscall.clone()
        };
        record(lines, types::SYSCALL, &|o| sc.body_into(o));
    }
    let decoded = exit_records::decode(&ev.aux, ev.syscall.exe.as_deref());
    if !decoded.is_empty() {
        for (ty, body) in after_syscall(decoded, paths) {
            record(lines, ty, &|o| o.extend_from_slice(&body));
        }
    } else if let Some(p) = &paths {
        // Only CWD and PATH (in that order, as rank sorts them): written
        // in place.
        if let Some(c) = &p.cwd {
            record(lines, types::CWD, &|o| cwd_body_into(o, c));
        }
        for (i, it) in p.items.iter().enumerate() {
            record(lines, types::PATH, &|o| it.body_into(o, i));
        }
    }
    record(lines, types::PROCTITLE, &|o| {
        proctitle_body_into(o, &ev.cmdline)
    });
}

/// The records between SYSCALL and PROCTITLE as (type, body), in the
/// order audit_log_exit writes them (`fastaudit_records::exit::rank`):
/// each record family adds its records here. A config send's SOCKADDR is
/// the address its sendto passed, read like any other.
fn after_syscall(
    decoded: Vec<fastaudit_records::exit::ExitRecord>,
    paths: Option<PathRecords>,
) -> Vec<(u32, Vec<u8>)> {
    let mut recs: Vec<(u32, Vec<u8>)> = Vec::new();
    for r in decoded {
        recs.extend(r.bodies().into_iter().map(|b| (r.ty(), b)));
    }
    if let Some(p) = paths {
        recs.extend(p.cwd.map(|c| (types::CWD, cwd_body(&c))));
        recs.extend(
            p.items
                .iter()
                .enumerate()
                .map(|(i, it)| (types::PATH, it.body(i))),
        );
    }
    // Stable: EXECVE's records keep their order.
    recs.sort_by_key(|(ty, _)| rank(*ty));
    recs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An audit config send (auditctl's sendto of a sockaddr_nl).
    fn send() -> AuditEvent {
        // The sockaddr_nl auditctl passes, as the BPF side sends it
        // (struct fa_sockaddr: len, bytes read, the address).
        let mut data = vec![12, 0, 0, 0, 12, 0, 0, 0, 0x10];
        data.resize(8 + 128, 0);
        AuditEvent {
            sec: 1700000000,
            msec: 2,
            syscall: Syscall {
                pid: 7,
                arch: 0xc000_003e,
                syscall: 44,
                auid: 4294967295,
                ses: 4294967295,
                ..Syscall::default()
            },
            cmdline: b"sh".to_vec(),
            companion: true,
            uringops: Vec::new(),
            no_syscall: false,
            aux: vec![fastaudit_engine::Aux {
                ty: types::SOCKADDR,
                data,
            }],
            aux_lost: false,
        }
    }

    #[test]
    fn a_config_change_is_written_with_syscall_sockaddr_proctitle() {
        let ev = send();
        let stamp = Stamp {
            sec: 1,
            msec: 2,
            serial: 3,
        };
        let text = String::from_utf8(event_lines(&ev, stamp, Format::Enriched)).unwrap();
        let types: Vec<&str> = text.lines().map(|l| l.split(' ').next().unwrap()).collect();
        assert_eq!(types, ["type=SYSCALL", "type=SOCKADDR", "type=PROCTITLE"]);
        assert!(text.contains("type=SOCKADDR msg=audit(1.002:3): saddr=100000000000000000000000\x1dSADDR={ saddr_fam=netlink nlnk-fam=16 nlnk-pid=0 }\n"), "{text}");
        let login = AuditEvent {
            aux: Vec::new(),
            ..send()
        };
        let login = event_lines(&login, stamp, Format::Raw);
        assert!(!String::from_utf8(login).unwrap().contains("SOCKADDR"));
    }
}
