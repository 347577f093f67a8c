//! fastaudit's own records: auditd's DAEMON_* bodies, and the serials
//! of every record fastaudit stamps itself, kept apart from the kernel's.

/// First serial of fastaudit's own range. The kernel's `audit_serial()`
/// counts from 1 at boot and, with the kernel auditing no syscall, only
/// counts user-space and config records: it stays far below 2^31, so
/// fastaudit's serials in [2^31, 2^32) never meet a kernel serial and
/// ausearch never merges unrelated records into one event.
pub const OWN_SERIAL_BASE: u64 = 1 << 31;

/// Serials for the records fastaudit stamps itself (its BPF events and
/// DAEMON_* records): 2^31, 2^31+1, ... wrapping back to 2^31 after
/// 2^32-1 (a repeat then comes days later, with another time, so it is
/// still a different event to ausearch).
#[derive(Clone, Debug)]
pub struct OwnSerials {
    next: u64,
}

impl Default for OwnSerials {
    fn default() -> Self {
        OwnSerials {
            next: OWN_SERIAL_BASE,
        }
    }
}

impl OwnSerials {
    /// Serials continuing after `last`, the newest fastaudit serial found
    /// in the log (a restart after a crash must not repeat it).
    pub fn after(last: Option<u64>) -> OwnSerials {
        let mut s = OwnSerials::default();
        if let Some(l) = last.filter(|&l| l >= OWN_SERIAL_BASE && l <= u64::from(u32::MAX)) {
            s.next = l;
            s.next_serial();
        }
        s
    }

    /// The next serial.
    pub fn next_serial(&mut self) -> u64 {
        let s = self.next;
        self.next = if s >= u64::from(u32::MAX) {
            OWN_SERIAL_BASE
        } else {
            s + 1
        };
        s
    }
}

/// Whether a kernel serial has reached fastaudit's range (then the two
/// could collide: fastaudit reports it with a DAEMON_ERR).
pub fn kernel_serial_overlaps(serial: u64) -> bool {
    serial >= OWN_SERIAL_BASE
}

/// Who the daemon is, for DAEMON_START: `auid pid uid ses subj` as auditd
/// writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    /// Login uid.
    pub auid: u32,
    /// Process id.
    pub pid: u32,
    /// Real uid.
    pub uid: u32,
    /// Session id.
    pub ses: u32,
    /// Its LSM context as /proc/self/attr/current gives it (with its
    /// newline), when an LSM gives one.
    pub subj: Option<String>,
}

/// DAEMON_START: `op=start ver=V format=F kernel=K auid= pid= uid= ses=[
/// subj=] res=success` (auditd 3.0.9's `send_audit_event(AUDIT_DAEMON_START,
/// ...)`; the kernel release is cut at 56 bytes, as auditd's `%.56s`). The
/// context is auditd's read of /proc/self/attr/current, newline included,
/// which the log shows as a space: `subj=unconfined  res=success`.
pub fn start_body(ver: &str, format: &str, kernel: &str, who: &Subject) -> String {
    let kernel: String = kernel.chars().take(56).collect();
    let subj = who
        .subj
        .as_deref()
        .map(|c| format!(" subj={}", c.replace('\n', " ")))
        .unwrap_or_default();
    format!(
        "op=start ver={ver} format={format} kernel={kernel} auid={} pid={} uid={} ses={}{subj} res=success",
        who.auid, who.pid, who.uid, who.ses
    )
}

/// The sender of the signal that stopped the daemon, as auditd reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sender {
    /// Its loginuid (uid when unset), from the kernel's signal info.
    pub auid: u32,
    /// Owner of /proc/PID (4294967295 when gone).
    pub uid: u32,
    /// /proc/PID/sessionid as read ("4294967295" when gone).
    pub ses: String,
    /// Its pid.
    pub pid: i32,
    /// Its LSM context, when the kernel's signal info carried one.
    pub context: Option<String>,
}

impl Sender {
    /// ` subj=CONTEXT` when there is one (auditd adds it before `res=`).
    fn subj(&self) -> String {
        self.context
            .as_deref()
            .map(|c| format!(" subj={c}"))
            .unwrap_or_default()
    }
}

/// DAEMON_END: `op=terminate auid= uid= ses= pid= [subj=] res=success`, or auditd's
/// form for an unknown sender: `op=terminate auid=-1 uid=-1 ses=-1 pid=-1 subj=? res=success`.
pub fn end_body(sender: Option<&Sender>) -> String {
    match sender {
        Some(s) => format!(
            "op=terminate auid={} uid={} ses={} pid={}{} res=success",
            s.auid,
            s.uid,
            s.ses,
            s.pid,
            s.subj()
        ),
        None => "op=terminate auid=-1 uid=-1 ses=-1 pid=-1 subj=? res=success".into(),
    }
}

/// DAEMON_ROTATE: `op=rotate-logs auid= uid= ses= pid= [subj=] res=success`, or
/// auditd's form when the sender is unknown: `op=rotate-logs auid=-1 pid=-1 subj=? res=failed`.
pub fn rotate_body(sender: Option<&Sender>) -> String {
    match sender {
        Some(s) => format!(
            "op=rotate-logs auid={} uid={} ses={} pid={}{} res=success",
            s.auid,
            s.uid,
            s.ses,
            s.pid,
            s.subj()
        ),
        None => "op=rotate-logs auid=-1 pid=-1 subj=? res=failed".into(),
    }
}

/// DAEMON_CONFIG after SIGHUP, as auditd 3.0.9's `reconfigure` writes it:
/// the file read again and taken, `op=reconfigure state=changed auid=
/// pid= subj= res=success` (`subj=?` without an LSM context); refused,
/// `op=reconfigure state=no-change auid= uid= ses= pid= [subj=] res=failed`
/// (auditd's signal-info form); the sender unknown, `auid=-1 pid=-1 subj=?`.
pub fn config_body(changed: bool, sender: Option<&Sender>) -> String {
    let subj = sender.and_then(|s| s.context.as_deref());
    match (changed, sender) {
        (true, Some(s)) => format!(
            "op=reconfigure state=changed auid={} pid={} subj={} res=success",
            s.auid,
            s.pid,
            subj.unwrap_or("?")
        ),
        (false, Some(s)) => {
            let subj = subj.map(|c| format!(" subj={c}")).unwrap_or_default();
            format!(
                "op=reconfigure state=no-change auid={} uid={} ses={} pid={}{subj} res=failed",
                s.auid, s.uid, s.ses, s.pid
            )
        }
        (true, None) => "op=reconfigure state=changed auid=-1 pid=-1 subj=? res=success".into(),
        (false, None) => "op=reconfigure state=no-change auid=-1 pid=-1 subj=? res=failed".into(),
    }
}

/// DAEMON_RESUME: `op=resume-logging auid= uid= ses= pid= [subj=] res=success`,
/// or auditd's form when the sender is unknown (auditd, on SIGUSR2).
pub fn resume_body(sender: Option<&Sender>) -> String {
    match sender {
        Some(s) => format!(
            "op=resume-logging auid={} uid={} ses={} pid={}{} res=success",
            s.auid,
            s.uid,
            s.ses,
            s.pid,
            s.subj()
        ),
        None => "op=resume-logging auid=-1 pid=-1 subj=? res=success".into(),
    }
}

/// DAEMON_ERR for a log fault once the log is written again: what went
/// wrong (`disk-full`, `disk-error` with its errno, `admin-space-left`,
/// ...), the action taken and the records lost meanwhile, in the
/// `op=... res=failed` form of auditd's DAEMON_ERR records.
pub fn log_fault_body(
    reason: &str,
    errno: Option<&str>,
    action: &str,
    lost: u64,
    pid: u32,
) -> String {
    let errno = errno.map(|e| format!(" errno={e}")).unwrap_or_default();
    format!("op=log-fault reason={reason}{errno} action={action} lost={lost} pid={pid} res=failed")
}

/// DAEMON_ABORT: `op=OP auid= pid= uid= ses= res=failed` (auditd, when it
/// cannot become the daemon).
pub fn abort_body(op: &str, who: Subject) -> String {
    format!(
        "op={op} auid={} pid={} uid={} ses={} res=failed",
        who.auid, who.pid, who.uid, who.ses
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_serials_stay_in_their_range() {
        let mut s = OwnSerials::default();
        assert_eq!(s.next_serial(), 1 << 31);
        assert_eq!(s.next_serial(), (1 << 31) + 1);
        let mut s = OwnSerials {
            next: u64::from(u32::MAX),
        };
        assert_eq!(s.next_serial(), u64::from(u32::MAX));
        assert_eq!(s.next_serial(), 1 << 31, "wraps within the range");
        assert_eq!(OwnSerials::after(None).next_serial(), 1 << 31);
        assert_eq!(OwnSerials::after(Some(7)).next_serial(), 1 << 31);
        assert_eq!(
            OwnSerials::after(Some((1 << 31) + 9)).next_serial(),
            (1 << 31) + 10
        );
        assert_eq!(
            OwnSerials::after(Some(u64::from(u32::MAX))).next_serial(),
            1 << 31
        );
        assert!(!kernel_serial_overlaps((1 << 31) - 1));
        assert!(kernel_serial_overlaps(1 << 31));
    }

    #[test]
    fn bodies_are_auditds() {
        let who = Subject {
            auid: 4294967295,
            pid: 812,
            uid: 0,
            ses: 4294967295,
            subj: None,
        };
        assert_eq!(
            start_body("3.0.9", "raw", "6.18.44-fc-v769", &who),
            "op=start ver=3.0.9 format=raw kernel=6.18.44-fc-v769 auid=4294967295 pid=812 uid=0 ses=4294967295 res=success"
        );
        // Under AppArmor (Debian 12's 6.1 and auditd 3.0.9).
        let confined = Subject {
            subj: Some("unconfined\n".into()),
            ..who
        };
        assert_eq!(
            start_body("3.0.9", "enriched", "6.1.0-50-amd64", &confined),
            "op=start ver=3.0.9 format=enriched kernel=6.1.0-50-amd64 auid=4294967295 pid=812 uid=0 ses=4294967295 subj=unconfined  res=success"
        );
        assert_eq!(
            end_body(None),
            "op=terminate auid=-1 uid=-1 ses=-1 pid=-1 subj=? res=success"
        );
        let s = Sender {
            auid: 0,
            uid: 0,
            ses: "3".into(),
            pid: 77,
            context: None,
        };
        // ENRICHED: auparse reads auditd's "-1" as unset.
        assert_eq!(
            crate::enrich::suffix(end_body(None).as_bytes(), &crate::enrich::SystemNames),
            b"AUID=\"unset\" UID=\"unset\""
        );
        assert_eq!(
            end_body(Some(&s)),
            "op=terminate auid=0 uid=0 ses=3 pid=77 res=success"
        );
        assert_eq!(
            config_body(true, Some(&s)),
            "op=reconfigure state=changed auid=0 pid=77 subj=? res=success"
        );
        let labelled = Sender {
            context: Some("unconfined".into()),
            ..s
        };
        assert_eq!(
            config_body(false, Some(&labelled)),
            "op=reconfigure state=no-change auid=0 uid=0 ses=3 pid=77 subj=unconfined res=failed"
        );
        assert_eq!(
            end_body(Some(&labelled)),
            "op=terminate auid=0 uid=0 ses=3 pid=77 subj=unconfined res=success"
        );
        assert_eq!(
            config_body(false, None),
            "op=reconfigure state=no-change auid=-1 pid=-1 subj=? res=failed"
        );
    }
}
