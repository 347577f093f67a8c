//! Rule changes made while running (SIGHUP, `fastaudit ctl`) are logged
//! as CONFIG_CHANGE records in the kernel's form (audit_log_rule_change:
//! `auid= ses= op= key= list= res=`), with fastaudit's own session, since
//! fastaudit makes the change.

use super::{me, Side};
use crate::output::Output;
use crate::reload::RuleChange;
use fastaudit_records::encode::untrusted;
use fastaudit_records::types;

/// The body of one rule change's CONFIG_CHANGE.
pub fn body(auid: u32, ses: u32, c: &RuleChange, ok: bool) -> String {
    let mut key = Vec::new();
    match &c.key {
        Some(k) => untrusted(&mut key, k),
        None => key.extend_from_slice(b"(null)"),
    }
    format!(
        "auid={auid} ses={ses} op={} key={} list={} res={}",
        c.op,
        String::from_utf8_lossy(&key),
        c.list,
        u8::from(ok)
    )
}

impl Side {
    /// Log each rule change as the kernel logs one.
    pub fn log_rule_changes(&mut self, log: &mut Output, changes: &[RuleChange]) {
        let who = me();
        for c in changes {
            let b = body(who.auid, who.ses, c, true);
            self.write_own(log, types::CONFIG_CHANGE, &b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_form() {
        let c = RuleChange {
            op: "add_rule",
            key: Some(b"k1".to_vec()),
            list: 4,
        };
        assert_eq!(
            body(1000, 3, &c, true),
            "auid=1000 ses=3 op=add_rule key=\"k1\" list=4 res=1"
        );
        let c = RuleChange {
            op: "remove_rule",
            key: None,
            list: 1,
        };
        assert_eq!(
            body(4294967295, 4294967295, &c, true),
            "auid=4294967295 ses=4294967295 op=remove_rule key=(null) list=1 res=1"
        );
    }
}
