//! Joining a kernel record with its companion event: the SYSCALL and
//! PROCTITLE records stock audit writes after a record the kernel makes
//! inside a syscall of a task with an audit context. Under fastaudit tasks
//! have none, so the BPF side sends the syscall as a companion event, and
//! the two are written together here under the kernel record's stamp, as
//! auditd writes them:
//! - a write to /proc/PID/loginuid: `LOGIN, SYSCALL, PROCTITLE`, matched
//!   by the LOGIN's `pid=`;
//! - a sendto/sendmsg to kernel audit's netlink socket that changes its
//!   rules or status (auditctl -a/-d/-D/-b ...): `CONFIG_CHANGE` (or
//!   `FEATURE_CHANGE`), `SYSCALL, SOCKADDR, PROCTITLE`, matched by the
//!   record's `auid=` and `ses=` (it has no pid), oldest first. A config
//!   companion whose record did not come is dropped: stock audit writes
//!   the send's SYSCALL only with a record. fastaudit's own sends have no
//!   companion (the BPF side skips fastaudit); their records wait for one
//!   in vain and are written alone.
//!
//! Either may come first: the kernel queues LOGIN before the write
//! returns, but kauditd and the netlink reader deliver it on their own
//! time, and the ring buffer is polled on a period. So a LOGIN waits for
//! its companion, and a companion for its LOGIN, at most [`HOLD`]; then
//! each is written alone (the companion under fastaudit's own stamp).

use crate::event_lines::event_lines;
use crate::sink::Sink;
use fastaudit_engine::{syscalls, AuditEvent};
use fastaudit_log::Source;
use fastaudit_netlink::Record;
use fastaudit_records::{types, Stamp};
use fastaudit_rules::syscall_sets::AUDIT_CONFIG_SENDS;
use fastaudit_rules::Target;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long a LOGIN or a companion waits for the other.
pub const HOLD: Duration = Duration::from_millis(200);

/// What to write.
#[derive(Debug)]
pub enum Out {
    /// A kernel record alone, under its own stamp.
    Kernel(Record),
    /// A kernel record and its companion's SYSCALL and PROCTITLE, all
    /// under the kernel record's stamp.
    Joined(Record, AuditEvent),
    /// A companion whose kernel record did not come: under fastaudit's stamp.
    Alone(AuditEvent),
}

/// LOGIN records and companion events waiting for each other.
#[derive(Debug, Default)]
pub struct Joiner {
    /// Whether companions can come at all (the BPF side sees loginuid
    /// writes): else a LOGIN is written at once.
    expect: bool,
    logins: VecDeque<(Instant, u32, Record)>,
    companions: VecDeque<(Instant, AuditEvent)>,
    /// CONFIG_CHANGE records by sender (auid, ses), and config companions.
    configs: VecDeque<(Instant, (u32, u32), Record)>,
    config_companions: VecDeque<(Instant, AuditEvent)>,
    /// Config companions dropped, their record never having come.
    discarded: u64,
}

/// Whether a companion event is an audit config send's (native sendto,
/// sendmsg: the BPF side's `is_send`), whose record is a CONFIG_CHANGE.
pub fn is_config(ev: &AuditEvent) -> bool {
    is_config_send(syscalls::BUILT_FOR, ev.syscall.arch, ev.syscall.syscall)
}

/// Whether syscall `nr` of audit arch `arch` is one of `target`'s native
/// audit config sends (x86_64's 44 and 46, aarch64's 206 and 211).
fn is_config_send(target: Target, arch: u32, nr: u32) -> bool {
    target.abi_of(arch) == Some(false)
        && AUDIT_CONFIG_SENDS
            .iter()
            .any(|name| target.syscall_number(false, name) == Some(nr))
}

/// The sender (auid, ses) of a CONFIG_CHANGE or FEATURE_CHANGE record.
pub fn config_sender(ty: u32, body: &[u8]) -> Option<(u32, u32)> {
    if ty != types::CONFIG_CHANGE && ty != types::FEATURE_CHANGE {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let field = |k: &str| {
        text.split(' ')
            .find_map(|w| w.strip_prefix(k)?.strip_prefix('=')?.parse().ok())
    };
    Some((field("auid")?, field("ses")?))
}

/// A companion event's sender, as a config record names it.
fn sender(ev: &AuditEvent) -> (u32, u32) {
    (ev.syscall.auid, ev.syscall.ses)
}

/// The writing process of a LOGIN record: its body starts `pid=P `.
pub fn login_pid(body: &[u8]) -> Option<u32> {
    let rest = body.strip_prefix(b"pid=")?;
    let end = rest.iter().position(|&c| c == b' ').unwrap_or(rest.len());
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

impl Joiner {
    /// A joiner; `expect`: whether companion events can come.
    pub fn new(expect: bool) -> Joiner {
        Joiner {
            expect,
            ..Joiner::default()
        }
    }

    /// A companion event arrived: joined with a waiting LOGIN of its
    /// process (the oldest), else held.
    pub fn companion(&mut self, ev: AuditEvent, now: Instant) -> Option<Out> {
        if is_config(&ev) {
            if let Some(i) = self.configs.iter().position(|c| c.1 == sender(&ev)) {
                let (_, _, r) = self.configs.remove(i)?;
                return Some(Out::Joined(r, ev));
            }
            self.config_companions.push_back((now, ev));
            return None;
        }
        let pid = ev.syscall.pid as u32;
        if let Some(i) = self.logins.iter().position(|l| l.1 == pid) {
            let (_, _, r) = self.logins.remove(i)?;
            return Some(Out::Joined(r, ev));
        }
        self.companions.push_back((now, ev));
        None
    }

    /// A kernel record arrived: a LOGIN is joined with a waiting companion
    /// of its process (the oldest), else held while companions can come;
    /// any other record passes, after the held LOGIN with its stamp if
    /// there is one (the kernel's own SYSCALL of a writer that still has
    /// an audit context: no companion comes for it).
    pub fn kernel(&mut self, r: Record, now: Instant) -> Vec<Out> {
        if let Some(who) = config_sender(u32::from(r.ty), &r.body) {
            return self.config(r, who, now);
        }
        let pid = (u32::from(r.ty) == types::LOGIN)
            .then(|| login_pid(&r.body))
            .flatten();
        let Some(pid) = pid else {
            let st = r.stamp;
            let held = |s: &Option<(u64, u32, u64)>| st.is_some() && *s == st;
            let mut out: Vec<Out> = self
                .logins
                .iter()
                .position(|l| held(&l.2.stamp))
                .and_then(|i| self.logins.remove(i))
                .map(|l| Out::Kernel(l.2))
                .into_iter()
                .collect();
            out.extend(
                self.configs
                    .iter()
                    .position(|c| held(&c.2.stamp))
                    .and_then(|i| self.configs.remove(i))
                    .map(|c| Out::Kernel(c.2)),
            );
            out.push(Out::Kernel(r));
            return out;
        };
        let by_pid = |ev: &AuditEvent| ev.syscall.pid as u32;
        join_or_hold(
            &mut self.companions,
            &mut self.logins,
            self.expect,
            (pid, by_pid),
            r,
            now,
        )
    }

    /// A CONFIG_CHANGE or FEATURE_CHANGE of sender `who`: joined with the
    /// oldest config companion of that sender, else held while companions
    /// can come.
    fn config(&mut self, r: Record, who: (u32, u32), now: Instant) -> Vec<Out> {
        let (companions, held) = (&mut self.config_companions, &mut self.configs);
        join_or_hold(companions, held, self.expect, (who, sender), r, now)
    }

    /// What has waited [`HOLD`] or longer at `now`, to be written alone
    /// (config companions are dropped).
    pub fn expired(&mut self, now: Instant) -> Vec<Out> {
        let old = |t: &Instant| now.saturating_duration_since(*t) >= HOLD;
        let mut out = Vec::new();
        while self.logins.front().is_some_and(|l| old(&l.0)) {
            out.extend(self.logins.pop_front().map(|l| Out::Kernel(l.2)));
        }
        while self.companions.front().is_some_and(|c| old(&c.0)) {
            out.extend(self.companions.pop_front().map(|c| Out::Alone(c.1)));
        }
        while self.configs.front().is_some_and(|c| old(&c.0)) {
            out.extend(self.configs.pop_front().map(|c| Out::Kernel(c.2)));
        }
        while self.config_companions.front().is_some_and(|c| old(&c.0)) {
            self.config_companions.pop_front();
            self.discarded += 1;
        }
        out
    }

    /// Records and events held waiting for their other half.
    pub fn held(&self) -> usize {
        self.logins.len()
            + self.companions.len()
            + self.configs.len()
            + self.config_companions.len()
    }

    /// Config companions dropped so far: by design, neither written nor
    /// lost (stock audit writes a send's SYSCALL only with its record).
    pub fn discarded(&self) -> u64 {
        self.discarded
    }

    /// Everything still waiting (at stop), to be written alone.
    pub fn rest(&mut self) -> Vec<Out> {
        let mut out: Vec<Out> = self.logins.drain(..).map(|l| Out::Kernel(l.2)).collect();
        out.extend(self.companions.drain(..).map(|c| Out::Alone(c.1)));
        out.extend(self.configs.drain(..).map(|c| Out::Kernel(c.2)));
        self.discarded += self.config_companions.len() as u64;
        self.config_companions.clear();
        out
    }
}

/// Kernel record `r`, whose companion is the event `key_of` gives `key`
/// for: joined with the oldest such waiting companion, else written alone
/// when no companion can come (`expect` false), else held in `held`.
fn join_or_hold<K: PartialEq + Copy>(
    companions: &mut VecDeque<(Instant, AuditEvent)>,
    held: &mut VecDeque<(Instant, K, Record)>,
    expect: bool,
    (key, key_of): (K, fn(&AuditEvent) -> K),
    r: Record,
    now: Instant,
) -> Vec<Out> {
    if let Some(i) = companions.iter().position(|c| key_of(&c.1) == key) {
        return companions
            .remove(i)
            .map(|(_, ev)| Out::Joined(r, ev))
            .into_iter()
            .collect();
    }
    if !expect {
        return vec![Out::Kernel(r)];
    }
    held.push_back((now, key, r));
    Vec::new()
}

/// LOGIN and config records and companion events of a run, written out
/// as they pair up or time out.
pub struct Companions {
    joiner: Joiner,
    /// Whether kernel records can come (not --bpf-only).
    kernel: bool,
    /// Config companions dropped with --bpf-only, where no record can come.
    discarded: u64,
}

impl Companions {
    /// `expect`: whether the BPF side sends companion events (something
    /// is attached); `kernel`: whether kernel records come (fastaudit is
    /// the kernel's audit daemon). A LOGIN record waits for its companion
    /// only when both do.
    pub fn new(expect: bool, kernel: bool) -> Companions {
        Companions {
            joiner: Joiner::new(expect && kernel),
            kernel,
            discarded: 0,
        }
    }

    /// A companion event (the SYSCALL of a loginuid write or of an audit
    /// config send): written with its kernel record under that record's
    /// stamp once both are here; alone, under fastaudit's stamp, when no
    /// kernel record can come (--bpf-only) or none came in time.
    pub fn companion(&mut self, sink: &mut Sink, ev: AuditEvent) {
        // --bpf-only: no kernel record can come; a config send's companion
        // (whose SYSCALL stock audit writes only with the record) is dropped.
        let out = if self.kernel {
            self.joiner.companion(ev, Instant::now())
        } else if is_config(&ev) {
            self.discarded += 1;
            None
        } else {
            Some(Out::Alone(ev))
        };
        if let Some(o) = out {
            write_out(sink, o);
        }
    }

    /// A kernel record: written, unless it waits for its companion.
    pub fn kernel(&mut self, sink: &mut Sink, r: Record) {
        for o in self.joiner.kernel(r, Instant::now()) {
            write_out(sink, o);
        }
    }

    /// Write what waited too long.
    pub fn expired(&mut self, sink: &mut Sink) {
        for o in self.joiner.expired(Instant::now()) {
            write_out(sink, o);
        }
    }

    /// At stop: write everything still waiting.
    pub fn rest(&mut self, sink: &mut Sink) {
        for o in self.joiner.rest() {
            write_out(sink, o);
        }
    }

    /// Records and events held waiting for their other half.
    pub fn held(&self) -> usize {
        self.joiner.held()
    }

    /// Companion events dropped by design (see [`Joiner::discarded`]).
    pub fn discarded(&self) -> u64 {
        self.discarded + self.joiner.discarded()
    }
}

/// Write a kernel record, a companion, or both joined.
fn write_out(sink: &mut Sink, o: Out) {
    match o {
        Out::Kernel(r) => sink.kernel(&r),
        Out::Alone(ev) => {
            let stamp = Stamp {
                sec: ev.sec,
                msec: ev.msec,
                serial: sink.serial(),
            };
            let lines = event_lines(&ev, stamp, sink.format());
            sink.write(&lines, Some(stamp), Source::Event);
        }
        Out::Joined(r, ev) => {
            let (stamp, mut lines) = sink.kernel_line(&r);
            lines.extend(event_lines(&ev, stamp, sink.format()));
            sink.write(&lines, Some(stamp), Source::Joined);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_records::Syscall;

    fn login(pid: u32, serial: u64) -> Record {
        Record {
            ty: types::LOGIN as u16,
            stamp: Some((1700000000, 1, serial)),
            body: format!(
                "pid={pid} uid=0 old-auid=4294967295 auid=1000 tty=(none) old-ses=4294967295 ses=3 res=1"
            )
            .into_bytes(),
        }
    }

    fn companion(pid: i32) -> AuditEvent {
        AuditEvent {
            sec: 1700000000,
            msec: 2,
            syscall: Syscall {
                pid,
                ..Syscall::default()
            },
            cmdline: b"sh".to_vec(),
            companion: true,
            ..AuditEvent::default()
        }
    }

    fn serial(o: &Out) -> Option<u64> {
        match o {
            Out::Kernel(r) | Out::Joined(r, _) => r.stamp.map(|s| s.2),
            Out::Alone(_) => None,
        }
    }

    #[test]
    fn config_sends_are_the_native_sendto_and_sendmsg_of_each_machine() {
        use fastaudit_rules::abi::arch;
        for (nr, want) in [(44, true), (46, true), (45, false), (206, false)] {
            assert_eq!(
                is_config_send(Target::X86_64, arch::X86_64, nr),
                want,
                "{nr}"
            );
        }
        // i386's 44 is no send; aarch64's are 206 and 211.
        assert!(!is_config_send(Target::X86_64, arch::I386, 44));
        assert!(is_config_send(Target::AARCH64, arch::AARCH64, 206));
        assert!(is_config_send(Target::AARCH64, arch::AARCH64, 211));
        assert!(!is_config_send(Target::AARCH64, arch::AARCH64, 44));
        assert!(!is_config_send(Target::AARCH64, arch::X86_64, 44));
    }

    #[test]
    fn a_login_after_its_companion_is_joined_with_it() {
        let t = Instant::now();
        let mut j = Joiner::new(true);
        assert!(j.companion(companion(42), t).is_none());
        assert!(
            j.kernel(login(7, 1), t).is_empty(),
            "another process's LOGIN waits for its own companion"
        );
        match j.kernel(login(42, 2), t).as_slice() {
            [Out::Joined(r, ev)] => {
                assert_eq!((r.stamp.unwrap().2, ev.syscall.pid), (2, 42));
            }
            o => panic!("{o:?}"),
        }
        assert!(j.expired(t + HOLD / 2).is_empty());
        let rest = j.expired(t + HOLD);
        assert!(matches!(rest.as_slice(), [Out::Kernel(r)] if r.stamp.unwrap().2 == 1));
        assert!(j.rest().is_empty());
    }

    #[test]
    fn a_companion_after_its_login_is_joined_with_it_in_order() {
        let t = Instant::now();
        let mut j = Joiner::new(true);
        assert!(j.kernel(login(42, 5), t).is_empty());
        assert!(j.kernel(login(42, 6), t).is_empty());
        let first = j.companion(companion(42), t).unwrap();
        let second = j.companion(companion(42), t).unwrap();
        assert_eq!((serial(&first), serial(&second)), (Some(5), Some(6)));
        assert!(matches!(first, Out::Joined(..)));
    }

    #[test]
    fn unmatched_ones_go_alone_after_the_hold_or_at_stop() {
        let t = Instant::now();
        let mut j = Joiner::new(true);
        assert!(j.companion(companion(9), t).is_none());
        assert!(j.kernel(login(8, 3), t + HOLD / 2).is_empty());
        let out = j.expired(t + HOLD);
        assert!(matches!(out.as_slice(), [Out::Alone(ev)] if ev.syscall.pid == 9));
        let out = j.rest();
        assert!(matches!(out.as_slice(), [Out::Kernel(_)]));
    }

    #[test]
    fn other_records_and_logins_without_companions_pass() {
        let t = Instant::now();
        let mut j = Joiner::new(false);
        assert!(matches!(
            j.kernel(login(1, 1), t).as_slice(),
            [Out::Kernel(_)]
        ));
        let user = Record {
            ty: 1100,
            stamp: Some((1, 0, 2)),
            body: b"pid=5 uid=0".to_vec(),
        };
        let mut j = Joiner::new(true);
        assert!(matches!(j.kernel(user, t).as_slice(), [Out::Kernel(_)]));
        assert_eq!(login_pid(b"pid=123 uid=0"), Some(123));
        assert_eq!(login_pid(b"uid=0"), None);
    }

    #[test]
    fn a_held_login_goes_before_the_kernels_own_syscall_of_it() {
        // A writer that still has an audit context: the kernel sends LOGIN,
        // SYSCALL, PROCTITLE under one stamp, and no companion comes.
        let t = Instant::now();
        let mut j = Joiner::new(true);
        assert!(j.kernel(login(42, 9), t).is_empty());
        let syscall = Record {
            ty: types::SYSCALL as u16,
            stamp: Some((1700000000, 1, 9)),
            body: b"arch=c000003e syscall=1".to_vec(),
        };
        let out = j.kernel(syscall, t);
        let order: Vec<(u16, Option<u64>)> = out
            .iter()
            .map(|o| match o {
                Out::Kernel(r) => (r.ty, r.stamp.map(|s| s.2)),
                o => panic!("{o:?}"),
            })
            .collect();
        assert_eq!(order, vec![(1006, Some(9)), (1300, Some(9))]);
        assert!(j.rest().is_empty());
    }

    fn config_change(auid: u32, serial: u64) -> Record {
        Record {
            ty: types::CONFIG_CHANGE as u16,
            stamp: Some((1700000000, 1, serial)),
            body: format!("auid={auid} ses=4294967295 op=add_rule key=\"k\" list=4 res=1")
                .into_bytes(),
        }
    }

    fn send(auid: u32, pid: i32) -> AuditEvent {
        let mut ev = companion(pid);
        // sendto of the machine built for (x86_64's 44, aarch64's 206).
        let machine = syscalls::BUILT_FOR;
        ev.syscall.arch = machine.audit_arch(false);
        ev.syscall.syscall = machine.syscall_number(false, "sendto").expect("sendto");
        ev.syscall.auid = auid;
        ev.syscall.ses = 4294967295;
        // The sockaddr_nl auditctl passes (AF_NETLINK), decoded.
        let mut addr = vec![0u8; 12];
        addr[0] = 0x10;
        ev.records
            .push(fastaudit_records::exit::ExitRecord::Sockaddr(addr));
        ev
    }

    #[test]
    fn config_changes_pair_by_sender_oldest_first_and_lone_sends_are_dropped() {
        let t = Instant::now();
        let mut j = Joiner::new(true);
        // Held records of two senders; the companion takes its sender's
        // oldest.
        assert!(j.kernel(config_change(0, 1), t).is_empty());
        assert!(j.kernel(config_change(1000, 2), t).is_empty());
        assert!(j.kernel(config_change(1000, 3), t).is_empty());
        let o = j.companion(send(1000, 7), t).unwrap();
        assert!(matches!(&o, Out::Joined(r, ev) if r.stamp.unwrap().2 == 2 && ev.syscall.pid == 7));
        // A companion first, then its record.
        assert!(j.companion(send(5, 8), t).is_none());
        let o = j.kernel(config_change(5, 4), t);
        assert!(matches!(o.as_slice(), [Out::Joined(r, _)] if r.stamp.unwrap().2 == 4));
        // A send with no record (AUDIT_GET passes the BPF filter only if
        // misread): dropped after the hold; records go alone.
        assert!(j.companion(send(9, 9), t).is_none());
        let out = j.expired(t + HOLD);
        let serials: Vec<Option<u64>> = out.iter().map(serial).collect();
        assert_eq!(
            serials,
            [Some(1), Some(3)],
            "records alone, the send dropped"
        );
        assert!(j.rest().is_empty());
        assert_eq!(
            config_sender(
                1305,
                b"op=set audit_enabled=1 old=1 auid=4294967295 ses=4294967295 res=1"
            ),
            Some((4294967295, 4294967295))
        );
        assert_eq!(
            config_sender(1305, b"old-auid=1 auid=2 ses=3"),
            Some((2, 3))
        );
        assert_eq!(config_sender(1006, b"auid=2 ses=3"), None);
    }
}
