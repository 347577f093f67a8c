//! Gathering records into events by stamp, for writers that need whole
//! events (JSON): the kernel sends an event's records one by one (SYSCALL,
//! PATH, ..., PROCTITLE, EOE), and records of other events may come
//! between them. An event is complete at its PROCTITLE (the kernel's last
//! record of a syscall event) or EOE; a user-space or daemon record
//! (1100-1299, 2100-2999) is an event alone; anything else is complete
//! when no record of it came for auditd's `end_of_event_timeout`.

use crate::line::Stamp;
use fastaudit_rules::tables;
use std::time::{Duration, Instant};

/// A record of an event: its type name (`SYSCALL`) and RAW body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// auditd's type name, `UNKNOWN[N]` for an unnamed type.
    pub ty: String,
    /// The body after `msg=audit(...): `, without ENRICHED's additions.
    pub body: Vec<u8>,
}

/// An event: its stamp and records in arrival order.
pub type Event = (Stamp, Vec<Record>);

/// Open events, oldest first.
#[derive(Debug)]
pub struct Grouper {
    open: Vec<(Stamp, Vec<Record>, Instant)>,
    timeout: Duration,
}

fn type_number(name: &str) -> Option<u32> {
    if let Some(n) = name
        .strip_prefix("UNKNOWN[")
        .and_then(|r| r.strip_suffix(']'))
    {
        return n.parse().ok();
    }
    tables::msgtypes().lookup(name.as_bytes())
}

/// Whether a record type is always an event of its own (user space's and
/// the daemon's messages).
pub fn standalone(name: &str) -> bool {
    type_number(name).is_some_and(|t| (1100..=1299).contains(&t) || (2100..=2999).contains(&t))
}

/// Whether a record type ends its event.
fn ends(name: &str) -> bool {
    name == "PROCTITLE" || name == "EOE"
}

impl Grouper {
    /// A grouper closing quiet events after `timeout`.
    pub fn new(timeout: Duration) -> Grouper {
        Grouper {
            open: Vec::new(),
            timeout,
        }
    }

    /// A record arrived: the events it completes.
    pub fn push(&mut self, stamp: Stamp, r: Record, now: Instant) -> Vec<Event> {
        let i = match self.open.iter().position(|(s, _, _)| *s == stamp) {
            Some(i) => i,
            None if standalone(&r.ty) => return vec![(stamp, vec![r])],
            None => {
                self.open.push((stamp, Vec::new(), now));
                self.open.len() - 1
            }
        };
        let end = ends(&r.ty);
        let (_, records, last) = &mut self.open[i];
        if r.ty != "EOE" {
            records.push(r);
        }
        *last = now;
        if end {
            let (s, recs, _) = self.open.remove(i);
            return vec![(s, recs)]
                .into_iter()
                .filter(|e| !e.1.is_empty())
                .collect();
        }
        Vec::new()
    }

    /// Events with no record for the timeout at `now`.
    pub fn expired(&mut self, now: Instant) -> Vec<Event> {
        let timeout = self.timeout;
        let (done, open): (Vec<_>, Vec<_>) = std::mem::take(&mut self.open)
            .into_iter()
            .partition(|(_, _, last)| now.saturating_duration_since(*last) >= timeout);
        self.open = open;
        done.into_iter().map(|(s, r, _)| (s, r)).collect()
    }

    /// Every open event (at stop).
    pub fn rest(&mut self) -> Vec<Event> {
        self.open.drain(..).map(|(s, r, _)| (s, r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ty: &str) -> Record {
        Record {
            ty: ty.into(),
            body: Vec::new(),
        }
    }

    fn st(serial: u64) -> Stamp {
        Stamp {
            sec: 1,
            msec: 2,
            serial,
        }
    }

    #[test]
    fn events_close_at_proctitle_alone_or_after_the_timeout() {
        let t = Instant::now();
        let mut g = Grouper::new(Duration::from_secs(2));
        assert!(g.push(st(1), rec("SYSCALL"), t).is_empty());
        assert!(g.push(st(2), rec("LOGIN"), t).is_empty());
        // Another event's user record in between is an event alone.
        let user = g.push(st(3), rec("USER_AUTH"), t);
        assert_eq!(user.len(), 1);
        assert!(g.push(st(1), rec("PATH"), t).is_empty());
        let done = g.push(st(1), rec("PROCTITLE"), t);
        let types: Vec<&str> = done[0].1.iter().map(|r| r.ty.as_str()).collect();
        assert_eq!(types, ["SYSCALL", "PATH", "PROCTITLE"]);
        assert!(g.expired(t + Duration::from_secs(1)).is_empty());
        let late = g.expired(t + Duration::from_secs(2));
        assert_eq!((late.len(), late[0].0.serial), (1, 2));
        assert!(g.push(st(4), rec("CONFIG_CHANGE"), t).is_empty());
        assert_eq!(
            g.push(st(4), rec("EOE"), t)[0].1.len(),
            1,
            "EOE closes, unwritten"
        );
        assert!(standalone("DAEMON_START") && standalone("UNKNOWN[2500]"));
        assert!(!standalone("SYSCALL") && !standalone("LOGIN"));
    }
}
