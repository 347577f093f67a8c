//! A BPF event's records as the kernel would have written them: its
//! URINGOP records, then SYSCALL, the records the kernel writes after it
//! (EXECVE, SOCKADDR, CWD, PATH, ..., in audit_log_exit's order) and
//! PROCTITLE, all under one stamp. The engine hands each event decoded;
//! here it is only formatted. A new record family of the BPF side adds
//! its records in [`after_syscall`].

use fastaudit_engine::AuditEvent;
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::exit::rank;
use fastaudit_records::line::{line, line_with};
use fastaudit_records::path::{cwd_body, cwd_body_into};
use fastaudit_records::syscall::proctitle_body_into;
use fastaudit_records::{types, Format, Stamp, UringOp, Workload};

/// An event's lines appended to `lines`: its URINGOP records first, then
/// (unless it has none) SYSCALL and what follows it. ENRICHED: where its
/// task ran (`workload`) joins SYSCALL's and each URINGOP's
/// interpretations.
pub fn uring_event_lines(
    lines: &mut Vec<u8>,
    ev: &AuditEvent,
    stamp: Stamp,
    format: Format,
    workload: Option<&Workload>,
) {
    let workload = workload.filter(|_| format == Format::Enriched);
    let uringop = |lines: &mut Vec<u8>, op: &UringOp| {
        let start = lines.len();
        lines.extend(line(
            None,
            types::URINGOP,
            stamp,
            &op.body(),
            format,
            &SystemNames,
        ));
        if let Some(w) = workload {
            w.enrich_line(lines, start);
        }
    };
    for op in &ev.uringops {
        uringop(lines, op);
    }
    if !ev.no_syscall {
        event_lines_in(lines, ev, stamp, format, workload);
        return;
    }
    // An op of its own (an io-wq worker's or a SQPOLL thread's): its
    // context's SOCKADDR, CWD and PATH records follow it.
    if let [_] = ev.uringops.as_slice() {
        for (ty, body) in after_syscall(ev) {
            lines.extend(line(None, ty, stamp, &body, format, &SystemNames));
        }
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
    event_lines_in(lines, ev, stamp, format, None);
}

/// [`event_lines_into`], SYSCALL's interpretations with `workload`'s.
fn event_lines_in(
    lines: &mut Vec<u8>,
    ev: &AuditEvent,
    stamp: Stamp,
    format: Format,
    workload: Option<&Workload>,
) {
    let record = |lines: &mut Vec<u8>, ty: u32, body: &dyn Fn(&mut Vec<u8>)| {
        line_with(lines, None, ty, stamp, format, &SystemNames, body);
    };
    let start = lines.len();
    record(lines, types::SYSCALL, &|o| ev.syscall.body_into(o));
    if let Some(w) = workload {
        w.enrich_line(lines, start);
    }
    if !ev.records.is_empty() {
        for (ty, body) in after_syscall(ev) {
            record(lines, ty, &|o| o.extend_from_slice(&body));
        }
    } else {
        // Only CWD and PATH (in that order, as rank sorts them): written
        // in place.
        if let Some(c) = &ev.cwd {
            record(lines, types::CWD, &|o| cwd_body_into(o, c));
        }
        for (i, it) in ev.paths.iter().enumerate() {
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
fn after_syscall(ev: &AuditEvent) -> Vec<(u32, Vec<u8>)> {
    let mut recs: Vec<(u32, Vec<u8>)> = Vec::new();
    for r in &ev.records {
        recs.extend(r.bodies().into_iter().map(|b| (r.ty(), b)));
    }
    recs.extend(ev.cwd.as_ref().map(|c| (types::CWD, cwd_body(c))));
    recs.extend(
        ev.paths
            .iter()
            .enumerate()
            .map(|(i, it)| (types::PATH, it.body(i))),
    );
    // Stable: EXECVE's records keep their order.
    recs.sort_by_key(|(ty, _)| rank(*ty));
    recs
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_records::exit::ExitRecord;
    use fastaudit_records::Syscall;

    /// An audit config send (auditctl's sendto of a sockaddr_nl), as the
    /// engine hands it: its SOCKADDR decoded.
    fn send() -> AuditEvent {
        // The sockaddr_nl auditctl passes: AF_NETLINK, pid 0, no groups.
        let mut addr = vec![0u8; 12];
        addr[0] = 0x10;
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
            records: vec![ExitRecord::Sockaddr(addr)],
            ..AuditEvent::default()
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
            records: Vec::new(),
            ..send()
        };
        let login = event_lines(&login, stamp, Format::Raw);
        assert!(!String::from_utf8(login).unwrap().contains("SOCKADDR"));
    }
}
