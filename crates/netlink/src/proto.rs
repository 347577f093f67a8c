//! The NETLINK_AUDIT wire format: message headers, `struct audit_status`,
//! rule blobs and the text records the kernel sends its daemon.

/// `NLMSG_NOOP`.
pub const NLMSG_NOOP: u16 = 1;
/// `NLMSG_ERROR`: an ACK (error 0) or a refusal (negative errno).
pub const NLMSG_ERROR: u16 = 2;
/// `NLMSG_DONE`: end of a multipart reply.
pub const NLMSG_DONE: u16 = 3;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
/// Size of `struct nlmsghdr`.
pub const HDR: usize = 16;

/// `AUDIT_GET`: read `struct audit_status`.
pub const AUDIT_GET: u16 = 1000;
/// `AUDIT_SET`: change one or more `struct audit_status` fields.
pub const AUDIT_SET: u16 = 1001;
/// `AUDIT_SIGNAL_INFO`: who last sent TERM/HUP/USR1/USR2 to the daemon.
pub const AUDIT_SIGNAL_INFO: u16 = 1010;
/// `AUDIT_ADD_RULE`.
pub const AUDIT_ADD_RULE: u16 = 1011;
/// `AUDIT_DEL_RULE`.
pub const AUDIT_DEL_RULE: u16 = 1012;
/// `AUDIT_LIST_RULES`.
pub const AUDIT_LIST_RULES: u16 = 1013;
/// `AUDIT_SET_FEATURE`.
pub const AUDIT_SET_FEATURE: u16 = 1018;
/// `AUDIT_REPLACE`: the kernel's liveness probe of the registered daemon.
pub const AUDIT_REPLACE: u16 = 1329;

/// `AUDIT_STATUS_*` mask bits of `AUDIT_SET`.
pub mod mask {
    /// `enabled`.
    pub const ENABLED: u32 = 0x1;
    /// `failure`.
    pub const FAILURE: u32 = 0x2;
    /// `pid`.
    pub const PID: u32 = 0x4;
    /// `rate_limit`.
    pub const RATE_LIMIT: u32 = 0x8;
    /// `backlog_limit`.
    pub const BACKLOG_LIMIT: u32 = 0x10;
    /// `backlog_wait_time`.
    pub const BACKLOG_WAIT_TIME: u32 = 0x20;
}

/// `struct audit_status` (44 bytes on Linux 5.x and later).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// Which fields an `AUDIT_SET` changes.
    pub mask: u32,
    /// 0 off, 1 on, 2 locked.
    pub enabled: u32,
    /// 0 silent, 1 printk, 2 panic.
    pub failure: u32,
    /// The registered daemon's pid (0: none).
    pub pid: u32,
    /// Records per second (0: no limit).
    pub rate_limit: u32,
    /// Records queued before writers wait.
    pub backlog_limit: u32,
    /// Records lost since boot.
    pub lost: u32,
    /// Records queued now.
    pub backlog: u32,
    /// Feature bitmap.
    pub feature_bitmap: u32,
    /// How long (jiffies) a writer waits at the backlog limit.
    pub backlog_wait_time: u32,
    /// Jiffies writers spent waiting (since the last reset).
    pub backlog_wait_time_actual: u32,
}

/// Size of `struct audit_status`.
pub const STATUS_LEN: usize = 44;

impl Status {
    /// Parse a reply payload; fields a shorter (older) struct lacks are 0.
    pub fn from_bytes(b: &[u8]) -> Status {
        let f = |i: usize| {
            b.get(i * 4..i * 4 + 4)
                .map_or(0, |s| u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
        };
        Status {
            mask: f(0),
            enabled: f(1),
            failure: f(2),
            pid: f(3),
            rate_limit: f(4),
            backlog_limit: f(5),
            lost: f(6),
            backlog: f(7),
            feature_bitmap: f(8),
            backlog_wait_time: f(9),
            backlog_wait_time_actual: f(10),
        }
    }

    /// The payload of an `AUDIT_SET`.
    pub fn to_bytes(&self) -> Vec<u8> {
        [
            self.mask,
            self.enabled,
            self.failure,
            self.pid,
            self.rate_limit,
            self.backlog_limit,
            self.lost,
            self.backlog,
            self.feature_bitmap,
            self.backlog_wait_time,
            self.backlog_wait_time_actual,
        ]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect()
    }
}

/// One netlink message: header plus payload, padded to 4 bytes.
pub fn message(ty: u16, seq: u32, ack: bool, payload: &[u8]) -> Vec<u8> {
    let len = HDR + payload.len();
    let mut m = Vec::with_capacity(align(len));
    m.extend_from_slice(&(len as u32).to_ne_bytes());
    m.extend_from_slice(&ty.to_ne_bytes());
    let flags = if ack {
        NLM_F_REQUEST | NLM_F_ACK
    } else {
        NLM_F_REQUEST
    };
    m.extend_from_slice(&flags.to_ne_bytes());
    m.extend_from_slice(&seq.to_ne_bytes());
    m.extend_from_slice(&0u32.to_ne_bytes());
    m.extend_from_slice(payload);
    m.resize(align(len), 0);
    m
}

fn align(n: usize) -> usize {
    (n + 3) & !3
}

/// A message as received: type, sequence number and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg<'a> {
    /// `nlmsg_type`.
    pub ty: u16,
    /// `nlmsg_seq`.
    pub seq: u32,
    /// Everything after the header.
    pub payload: &'a [u8],
}

/// The messages of one reply datagram (replies may pack several). Not for
/// records: see [`record_message`].
pub fn messages(buf: &[u8]) -> Vec<Msg<'_>> {
    let mut out = Vec::new();
    let mut off = 0;
    while off + HDR <= buf.len() {
        let h = &buf[off..off + HDR];
        let len = u32::from_ne_bytes([h[0], h[1], h[2], h[3]]) as usize;
        let ty = u16::from_ne_bytes([h[4], h[5]]);
        let seq = u32::from_ne_bytes([h[8], h[9], h[10], h[11]]);
        let end = if len < HDR || off + len > buf.len() {
            buf.len()
        } else {
            off + len
        };
        out.push(Msg {
            ty,
            seq,
            payload: &buf[off + HDR..end],
        });
        if end == buf.len() {
            break;
        }
        off = align(end);
    }
    out
}

/// The one message of a record datagram: its type and payload. A record is
/// one skb, and `audit_log_end` sets its nlmsg_len to the payload length
/// (not header + payload), so the datagram's size is what counts.
pub fn record_message(buf: &[u8]) -> Option<(u16, u32, &[u8])> {
    let h = buf.get(..HDR)?;
    let ty = u16::from_ne_bytes([h[4], h[5]]);
    let seq = u32::from_ne_bytes([h[8], h[9], h[10], h[11]]);
    Some((ty, seq, &buf[HDR..]))
}

/// The errno of an `NLMSG_ERROR` payload (0 for an ACK).
pub fn error_code(payload: &[u8]) -> i32 {
    payload.get(0..4).map_or(-libc_eproto(), |s| {
        i32::from_ne_bytes([s[0], s[1], s[2], s[3]])
    })
}

fn libc_eproto() -> i32 {
    nix::errno::Errno::EPROTO as i32
}

/// A record's `audit(SEC.MSEC:SERIAL)`: seconds, milliseconds, serial.
pub type RecordStamp = (u64, u32, u64);

/// One record the kernel sent its daemon: type and the text payload
/// `audit(SEC.MSEC:SERIAL): BODY`, split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Record type (`nlmsg_type`).
    pub ty: u16,
    /// The record's own stamp, when its text has one.
    pub stamp: Option<RecordStamp>,
    /// The text after `audit(...): ` (the whole payload when there is no stamp).
    pub body: Vec<u8>,
}

impl Record {
    /// Parse a record payload (trailing NULs dropped).
    pub fn parse(ty: u16, payload: &[u8]) -> Record {
        let mut p = payload;
        while let [rest @ .., 0] = p {
            p = rest;
        }
        match split_stamp(p) {
            Some((stamp, body)) => Record {
                ty,
                stamp: Some(stamp),
                body: body.to_vec(),
            },
            None => Record {
                ty,
                stamp: None,
                body: p.to_vec(),
            },
        }
    }
}

fn split_stamp(p: &[u8]) -> Option<(RecordStamp, &[u8])> {
    let rest = p.strip_prefix(b"audit(")?;
    let close = rest.iter().position(|&b| b == b')')?;
    let inner = std::str::from_utf8(&rest[..close]).ok()?;
    let (time, serial) = inner.split_once(':')?;
    let (sec, msec) = time.split_once('.')?;
    let stamp = (sec.parse().ok()?, msec.parse().ok()?, serial.parse().ok()?);
    let body = &rest[close + 1..];
    let body = body.strip_prefix(b":").unwrap_or(body);
    let body = body.strip_prefix(b" ").unwrap_or(body);
    Some((stamp, body))
}

/// `struct audit_rule_data` of `-a never,task`: the task list, action
/// never, no fields, no syscall bits (as the kernel lists auditctl's rule).
pub fn never_task_rule() -> Vec<u8> {
    const AUDIT_FILTER_TASK: u32 = 1;
    const AUDIT_NEVER: u32 = 0;
    let mut b = Vec::with_capacity(1040);
    b.extend_from_slice(&AUDIT_FILTER_TASK.to_ne_bytes());
    b.extend_from_slice(&AUDIT_NEVER.to_ne_bytes());
    b.extend_from_slice(&0u32.to_ne_bytes()); // field_count
    b.resize(b.len() + 4 * 64 * 4, 0); // mask, fields, values, fieldflags
    b.extend_from_slice(&0u32.to_ne_bytes()); // buflen
    b
}

/// Whether a rule blob is a task-list `never` rule with no fields.
pub fn is_never_task(rule: &[u8]) -> bool {
    let f = |i: usize| {
        rule.get(i * 4..i * 4 + 4)
            .map(|s| u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
    };
    // flags carries the list (low bits); action 0 is never.
    f(0).map(|v| v & 0x7) == Some(1) && f(1) == Some(0) && f(2) == Some(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_split_their_stamp() {
        let r = Record::parse(1124, b"audit(1700000000.123:4567): pid=1 msg='x'\0");
        assert_eq!(r.stamp, Some((1700000000, 123, 4567)));
        assert_eq!(r.body, b"pid=1 msg='x'");
        let r = Record::parse(1209, b"no stamp");
        assert_eq!((r.stamp, r.body.as_slice()), (None, &b"no stamp"[..]));
    }

    #[test]
    fn status_round_trips() {
        let s = Status {
            mask: 4,
            pid: 42,
            backlog_wait_time: 15000,
            ..Status::default()
        };
        let b = s.to_bytes();
        assert_eq!(b.len(), STATUS_LEN);
        assert_eq!(Status::from_bytes(&b), s);
    }

    #[test]
    fn datagrams_split_into_messages() {
        let mut d = message(AUDIT_LIST_RULES, 7, false, &[1, 2, 3, 4, 5]);
        d.extend(message(NLMSG_DONE, 7, false, &[0; 4]));
        let m = messages(&d);
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].ty, m[0].seq, m[0].payload),
            (AUDIT_LIST_RULES, 7, &[1, 2, 3, 4, 5][..])
        );
        assert_eq!(m[1].ty, NLMSG_DONE);
        // A record whose nlmsg_len is its payload length: the whole datagram.
        let mut r = message(1105, 0, false, b"audit(1.002:3): x");
        r.truncate(HDR + 17);
        r[0..4].copy_from_slice(&17u32.to_ne_bytes());
        assert_eq!(
            record_message(&r),
            Some((1105, 0, &b"audit(1.002:3): x"[..]))
        );
    }

    #[test]
    fn never_task_blob() {
        let b = never_task_rule();
        assert_eq!(b.len(), 1040);
        assert!(is_never_task(&b));
    }
}
