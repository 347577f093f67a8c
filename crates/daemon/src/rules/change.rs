//! Rule changes made while running (SIGHUP, `fastaudit ctl`) are logged
//! as CONFIG_CHANGE records in the kernel's form (audit_log_rule_change:
//! `auid= ses= [subj=] op= key= list= res=`; audit_log_config_change for
//! the enabled flag: `op=set audit_enabled= old= auid= ses= [subj=] res=`),
//! naming who sent the change as the kernel names a netlink sender:
//! fastaudit itself for SIGHUP, the `fastaudit ctl` caller for its changes.

use crate::procinfo::proc_u32;
use crate::sink::Sink;
use fastaudit_records::encode::untrusted;
use fastaudit_records::types;
use fastaudit_rules::listing::Lister;
use fastaudit_rules::{RuleSet, SystemHost};
use std::collections::HashMap;

/// One rule a switch removed or added, as the kernel's CONFIG_CHANGE says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleChange {
    /// `remove_rule` or `add_rule`.
    pub op: &'static str,
    /// The rule's key (`-k`, several joined by 0x01 as the kernel keeps them).
    pub key: Option<Vec<u8>>,
    /// The kernel's list number (1 task, 4 exit, ...).
    pub list: u32,
}

/// The rules of `old` not in `new` (removed, in order) and of `new` not in
/// `old` (added, in order), compared as `auditctl -l` lists them.
pub fn changes(old: &RuleSet, new: &RuleSet) -> Vec<RuleChange> {
    let host = SystemHost;
    let mut lister = Lister::new(&host);
    let mut lines = |s: &RuleSet| -> Vec<(Vec<u8>, RuleChange)> {
        s.rules()
            .map(|l| {
                (
                    lister.line(&l.rule),
                    RuleChange {
                        op: "",
                        key: l.rule.key().map(<[u8]>::to_vec),
                        list: l.rule.list,
                    },
                )
            })
            .collect()
    };
    let (a, b) = (lines(old), lines(new));
    let count = |v: &[(Vec<u8>, RuleChange)]| {
        let mut m: HashMap<Vec<u8>, usize> = HashMap::new();
        for (l, _) in v {
            *m.entry(l.clone()).or_default() += 1;
        }
        m
    };
    let (mut in_b, mut in_a) = (count(&b), count(&a));
    let mut out = Vec::new();
    for (l, c) in &a {
        match in_b.get_mut(l) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(RuleChange {
                op: "remove_rule",
                ..c.clone()
            }),
        }
    }
    for (l, c) in &b {
        match in_a.get_mut(l) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(RuleChange {
                op: "add_rule",
                ..c.clone()
            }),
        }
    }
    out
}

/// Who made a change: the sender's login uid, session and LSM context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changer {
    /// Login uid (4294967295: unset).
    pub auid: u32,
    /// Session id (4294967295: unset).
    pub ses: u32,
    /// LSM subject context; the kernel writes `subj=` only when an LSM gives one.
    pub subj: Option<String>,
}

impl Changer {
    /// The process `pid` ("self" for fastaudit), read from /proc.
    pub fn of(pid: &str) -> Changer {
        // /proc/PID/attr/current fails (EINVAL) without an LSM that has
        // contexts, exactly when the kernel writes no subj=.
        let subj = std::fs::read(format!("/proc/{pid}/attr/current"))
            .ok()
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .trim_end_matches(['\0', '\n'])
                    .to_string()
            })
            .filter(|s| !s.is_empty());
        Changer {
            auid: proc_u32(&format!("/proc/{pid}/loginuid")),
            ses: proc_u32(&format!("/proc/{pid}/sessionid")),
            subj,
        }
    }

    /// `auid=A ses=S[ subj=C]`, the kernel's audit_log_session_info and
    /// audit_log_task_context.
    fn session(&self) -> String {
        let mut s = format!("auid={} ses={}", self.auid, self.ses);
        if let Some(c) = &self.subj {
            s.push_str(" subj=");
            s.push_str(c);
        }
        s
    }
}

/// The body of one rule change's CONFIG_CHANGE.
pub fn body(who: &Changer, c: &RuleChange, ok: bool) -> String {
    let mut key = Vec::new();
    match &c.key {
        Some(k) => untrusted(&mut key, k),
        None => key.extend_from_slice(b"(null)"),
    }
    format!(
        "{} op={} key={} list={} res={}",
        who.session(),
        c.op,
        String::from_utf8_lossy(&key),
        c.list,
        u8::from(ok)
    )
}

/// The body of an enabled flag change's CONFIG_CHANGE (`-e N`).
pub fn enable_body(new: u32, old: u32, who: &Changer, ok: bool) -> String {
    format!(
        "op=set audit_enabled={new} old={old} {} res={}",
        who.session(),
        u8::from(ok)
    )
}

/// Log each rule change as the kernel logs one sent by `who`.
pub fn log_rule_changes(sink: &mut Sink, changes: &[RuleChange], who: &Changer) {
    for c in changes {
        let b = body(who, c, true);
        sink.own(types::CONFIG_CHANGE, &b);
    }
}

/// Log an enabled flag change (`ok`: made; else refused) as the kernel does.
pub fn log_enable(sink: &mut Sink, new: u32, old: u32, who: &Changer, ok: bool) {
    let b = enable_body(new, old, who, ok);
    sink.own(types::CONFIG_CHANGE, &b);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(auid: u32, ses: u32, subj: Option<&str>) -> Changer {
        Changer {
            auid,
            ses,
            subj: subj.map(str::to_string),
        }
    }

    #[test]
    fn the_kernels_form() {
        let c = RuleChange {
            op: "add_rule",
            key: Some(b"k1".to_vec()),
            list: 4,
        };
        assert_eq!(
            body(&who(1000, 3, None), &c, true),
            "auid=1000 ses=3 op=add_rule key=\"k1\" list=4 res=1"
        );
        let c = RuleChange {
            op: "remove_rule",
            key: None,
            list: 1,
        };
        assert_eq!(
            body(&who(4294967295, 4294967295, Some("unconfined")), &c, true),
            "auid=4294967295 ses=4294967295 subj=unconfined op=remove_rule key=(null) list=1 res=1"
        );
        assert_eq!(
            enable_body(0, 1, &who(1000, 3, None), true),
            "op=set audit_enabled=0 old=1 auid=1000 ses=3 res=1"
        );
        assert_eq!(
            enable_body(1, 2, &who(0, 7, Some("unconfined")), false),
            "op=set audit_enabled=1 old=2 auid=0 ses=7 subj=unconfined res=0"
        );
    }

    fn set(text: &str) -> RuleSet {
        RuleSet::from_text(text.as_bytes(), "t", &SystemHost).unwrap()
    }

    #[test]
    fn kept_rules_make_no_record_and_the_rest_are_removed_then_added() {
        let a = set("-a always,exit -F arch=b64 -S fchmodat -k a\n-a always,exit -F arch=b64 -S fchown -k kept\n-a never,task\n");
        let b = set(
            "-a always,exit -F arch=b64 -S fchown -k kept\n-a always,exit -F arch=b64 -S mkdirat\n",
        );
        let c = changes(&a, &b);
        assert_eq!(
            c,
            // In listing order, as the kernel lists them: the task list first.
            vec![
                RuleChange {
                    op: "remove_rule",
                    key: None,
                    list: 1
                },
                RuleChange {
                    op: "remove_rule",
                    key: Some(b"a".to_vec()),
                    list: 4
                },
                RuleChange {
                    op: "add_rule",
                    key: None,
                    list: 4
                },
            ]
        );
        assert!(changes(&b, &b).is_empty());
    }
}
