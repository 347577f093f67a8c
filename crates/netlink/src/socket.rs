//! A NETLINK_AUDIT socket for requests: each request waits for its own
//! ACK and reply, matched by sequence number.

use crate::proto::{self, Msg, Status};
use crate::NetlinkError;
use nix::errno::Errno;
use nix::sys::socket::{
    recvmsg, sendto, setsockopt, socket, sockopt, AddressFamily, MsgFlags, NetlinkAddr, SockFlag,
    SockProtocol, SockType,
};
use nix::sys::time::TimeVal;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Largest datagram read: a record is at most ~9 KiB, a rule blob ~5 KiB.
pub(crate) const RECV_BUF: usize = 64 << 10;
/// How long a request waits for the kernel's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// An open NETLINK_AUDIT socket.
pub struct AuditSocket {
    pub(crate) fd: OwnedFd,
    seq: u32,
}

/// Who last sent TERM/HUP/USR1/USR2 to the registered daemon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalInfo {
    /// The sender's loginuid (its uid when the loginuid is unset).
    pub auid: u32,
    /// The sender's pid (-1: none since boot).
    pub pid: i32,
    /// The sender's LSM context, when the reply carried one (auditd's `subj=`).
    pub context: Option<String>,
}

enum Want {
    Ack,
    One(u16),
    Many(u16),
}

impl AuditSocket {
    /// Open a socket (close-on-exec, so no child keeps it) whose reads
    /// give up after `timeout`.
    pub fn open(timeout: Duration) -> Result<AuditSocket, NetlinkError> {
        let fd = socket(
            AddressFamily::Netlink,
            SockType::Raw,
            SockFlag::SOCK_CLOEXEC,
            SockProtocol::NetlinkAudit,
        )
        .map_err(NetlinkError::sys("opening a NETLINK_AUDIT socket"))?;
        let tv = TimeVal::new(timeout.as_secs() as _, timeout.subsec_micros() as _);
        setsockopt(&fd, sockopt::ReceiveTimeout, &tv)
            .map_err(NetlinkError::sys("setting the socket's receive timeout"))?;
        Ok(AuditSocket { fd, seq: 0 })
    }

    /// Send one request; returns its sequence number.
    pub(crate) fn send(&mut self, ty: u16, payload: &[u8], ack: bool) -> Result<u32, NetlinkError> {
        self.seq = self.seq.wrapping_add(1);
        let m = proto::message(ty, self.seq, ack, payload);
        let to = NetlinkAddr::new(0, 0);
        loop {
            match sendto(self.fd.as_raw_fd(), &m, &to, MsgFlags::empty()) {
                Ok(_) => return Ok(self.seq),
                Err(Errno::EINTR) => continue,
                Err(e) => {
                    return Err(NetlinkError::Sys {
                        what: format!("sending {} to the kernel", type_label(ty)),
                        source: e,
                    })
                }
            }
        }
    }

    /// Receive one datagram from the kernel into `buf`; `None` on timeout.
    /// Datagrams from anything but the kernel (port 0) are skipped.
    pub(crate) fn recv(&self, buf: &mut [u8], flags: MsgFlags) -> nix::Result<Option<usize>> {
        loop {
            let mut iov = [std::io::IoSliceMut::new(buf)];
            let got = recvmsg::<NetlinkAddr>(self.fd.as_raw_fd(), &mut iov, None, flags)
                .map(|m| (m.bytes, m.address));
            match got {
                Ok((n, from)) => {
                    // Only the kernel (port 0) speaks for audit, as libaudit checks.
                    if from.is_some_and(|a| a.pid() != 0) {
                        continue;
                    }
                    return Ok(Some(n));
                }
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    fn transact(
        &mut self,
        ty: u16,
        payload: &[u8],
        want: Want,
    ) -> Result<Vec<Vec<u8>>, NetlinkError> {
        let seq = self.send(ty, payload, true)?;
        let deadline = Instant::now() + ANSWER_WITHIN;
        let mut buf = vec![0u8; RECV_BUF];
        let mut got = Vec::new();
        while Instant::now() < deadline {
            let got_n = self
                .recv(&mut buf, MsgFlags::empty())
                .map_err(NetlinkError::sys("reading from the kernel"))?;
            let Some(n) = got_n else {
                continue;
            };
            for Msg {
                ty: mty,
                seq: mseq,
                payload,
            } in proto::messages(&buf[..n])
            {
                if mseq != seq {
                    continue;
                }
                match (mty, &want) {
                    (proto::NLMSG_ERROR, _) => {
                        let code = proto::error_code(payload);
                        if code < 0 {
                            return Err(NetlinkError::Refused {
                                what: type_label(ty),
                                errno: Errno::from_raw(-code),
                            });
                        }
                        if matches!(want, Want::Ack) {
                            return Ok(got);
                        }
                        // The ACK comes before a GET/LIST reply (which the
                        // kernel sends from a thread of its own).
                    }
                    (proto::NLMSG_DONE, Want::Many(_)) => return Ok(got),
                    (t, Want::One(w)) if t == *w => return Ok(vec![payload.to_vec()]),
                    (t, Want::Many(w)) if t == *w => got.push(payload.to_vec()),
                    _ => {}
                }
            }
        }
        Err(NetlinkError::Timeout {
            what: type_label(ty),
        })
    }

    /// `AUDIT_GET`: the kernel's audit status.
    pub fn status(&mut self) -> Result<Status, NetlinkError> {
        let r = self.transact(proto::AUDIT_GET, &[], Want::One(proto::AUDIT_GET))?;
        Ok(Status::from_bytes(r.first().map_or(&[][..], Vec::as_slice)))
    }

    /// `AUDIT_SET` of one field (one field per message, as libaudit does:
    /// the kernel stops at the first field it refuses, keeping the others).
    pub fn set(&mut self, mask: u32, value: u32) -> Result<(), NetlinkError> {
        let mut s = Status {
            mask,
            ..Status::default()
        };
        match mask {
            // fastaudit's `-e 2` makes its own rule set immutable; it never
            // locks the kernel's audit, which only a reboot would undo.
            proto::mask::ENABLED if value > 1 => {
                return Err(NetlinkError::Protocol(format!(
                    "refusing AUDIT_SET enabled={value}: fastaudit never locks the kernel audit"
                )))
            }
            proto::mask::ENABLED => s.enabled = value,
            proto::mask::FAILURE => s.failure = value,
            proto::mask::PID => s.pid = value,
            proto::mask::RATE_LIMIT => s.rate_limit = value,
            proto::mask::BACKLOG_LIMIT => s.backlog_limit = value,
            proto::mask::BACKLOG_WAIT_TIME => s.backlog_wait_time = value,
            _ => return Err(NetlinkError::Protocol(format!("AUDIT_SET mask {mask:#x}"))),
        }
        self.transact(proto::AUDIT_SET, &s.to_bytes(), Want::Ack)
            .map(drop)
    }

    /// `AUDIT_LIST_RULES`: every kernel rule as its raw `audit_rule_data`.
    pub fn rules(&mut self) -> Result<Vec<Vec<u8>>, NetlinkError> {
        self.transact(
            proto::AUDIT_LIST_RULES,
            &[],
            Want::Many(proto::AUDIT_LIST_RULES),
        )
    }

    /// `AUDIT_ADD_RULE` of a raw `audit_rule_data`.
    pub fn add_rule(&mut self, rule: &[u8]) -> Result<(), NetlinkError> {
        self.transact(proto::AUDIT_ADD_RULE, rule, Want::Ack)
            .map(drop)
    }

    /// `AUDIT_DEL_RULE` of a raw `audit_rule_data` (as listed).
    pub fn del_rule(&mut self, rule: &[u8]) -> Result<(), NetlinkError> {
        self.transact(proto::AUDIT_DEL_RULE, rule, Want::Ack)
            .map(drop)
    }

    /// `AUDIT_SET_FEATURE` loginuid_immutable, set and locked (auditctl
    /// `--loginuid-immutable`): irreversible until reboot.
    pub fn set_loginuid_immutable(&mut self) -> Result<(), NetlinkError> {
        const AUDIT_FEATURE_VERSION: u32 = 1;
        const LOGINUID_IMMUTABLE: u32 = 1 << 1;
        let payload: Vec<u8> = [
            AUDIT_FEATURE_VERSION,
            LOGINUID_IMMUTABLE,
            LOGINUID_IMMUTABLE,
            LOGINUID_IMMUTABLE,
        ]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
        self.transact(proto::AUDIT_SET_FEATURE, &payload, Want::Ack)
            .map(drop)
    }

    /// `AUDIT_SIGNAL_INFO`.
    pub fn signal_info(&mut self) -> Result<SignalInfo, NetlinkError> {
        let r = self.transact(
            proto::AUDIT_SIGNAL_INFO,
            &[],
            Want::One(proto::AUDIT_SIGNAL_INFO),
        )?;
        let p = r.first().map_or(&[][..], Vec::as_slice);
        let f = |i: usize| {
            p.get(i * 4..i * 4 + 4)
                .map(|s| u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
        };
        match (f(0), f(1)) {
            (Some(auid), Some(pid)) => Ok(SignalInfo {
                auid,
                pid: pid as i32,
                context: p.get(8..).filter(|c| !c.is_empty()).map(|c| {
                    let c = c.split(|&b| b == 0).next().unwrap_or_default();
                    String::from_utf8_lossy(c).into_owned()
                }),
            }),
            _ => Err(NetlinkError::Protocol(
                "short AUDIT_SIGNAL_INFO reply".into(),
            )),
        }
    }
}

/// A message type's name for error messages.
fn type_label(ty: u16) -> String {
    match ty {
        proto::AUDIT_GET => "AUDIT_GET".into(),
        proto::AUDIT_SET => "AUDIT_SET".into(),
        proto::AUDIT_SIGNAL_INFO => "AUDIT_SIGNAL_INFO".into(),
        proto::AUDIT_ADD_RULE => "AUDIT_ADD_RULE".into(),
        proto::AUDIT_DEL_RULE => "AUDIT_DEL_RULE".into(),
        proto::AUDIT_LIST_RULES => "AUDIT_LIST_RULES".into(),
        proto::AUDIT_SET_FEATURE => "AUDIT_SET_FEATURE".into(),
        t => format!("message type {t}"),
    }
}
