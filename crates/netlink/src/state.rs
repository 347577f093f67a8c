//! The kernel audit state found at start, kept in a file under /run so a
//! later start can put it back after a crash (a crashed fastaudit cannot).

use crate::proto::Status;
use crate::NetlinkError;
use std::fmt::Write as _;
use std::path::Path;

/// The settings and rules fastaudit changes, as they were before it did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SavedState {
    /// The fastaudit process that saved it.
    pub owner: u32,
    /// `enabled`.
    pub enabled: u32,
    /// `failure`.
    pub failure: u32,
    /// `rate_limit`.
    pub rate_limit: u32,
    /// `backlog_limit`.
    pub backlog_limit: u32,
    /// `backlog_wait_time`.
    pub backlog_wait_time: u32,
    /// The kernel's rules, raw `audit_rule_data` as listed, in order.
    pub rules: Vec<Vec<u8>>,
}

impl SavedState {
    /// The state of a kernel status and rule list.
    pub fn of(owner: u32, s: &Status, rules: Vec<Vec<u8>>) -> SavedState {
        SavedState {
            owner,
            enabled: s.enabled,
            failure: s.failure,
            rate_limit: s.rate_limit,
            backlog_limit: s.backlog_limit,
            backlog_wait_time: s.backlog_wait_time,
            rules,
        }
    }

    /// The file's text: `name value` lines, rules in hex.
    pub fn to_text(&self) -> String {
        let mut t =
            String::from("# fastaudit: the kernel audit state found at start, put back at stop\n");
        for (k, v) in self.fields() {
            let _ = writeln!(t, "{k} {v}");
        }
        for r in &self.rules {
            t.push_str("rule ");
            for b in r {
                let _ = write!(t, "{b:02x}");
            }
            t.push('\n');
        }
        t
    }

    fn fields(&self) -> [(&'static str, u32); 6] {
        [
            ("owner", self.owner),
            ("enabled", self.enabled),
            ("failure", self.failure),
            ("rate_limit", self.rate_limit),
            ("backlog_limit", self.backlog_limit),
            ("backlog_wait_time", self.backlog_wait_time),
        ]
    }

    /// Parse [`SavedState::to_text`]'s output; `None` if it is damaged.
    pub fn from_text(text: &str) -> Option<SavedState> {
        let mut s = SavedState::default();
        let mut seen = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (k, v) = line.split_once(' ')?;
            if k == "rule" {
                if v.len() % 2 != 0 {
                    return None;
                }
                let bytes = (0..v.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(v.get(i..i + 2)?, 16).ok())
                    .collect::<Option<Vec<u8>>>()?;
                s.rules.push(bytes);
                continue;
            }
            let v: u32 = v.parse().ok()?;
            let slot = match k {
                "owner" => &mut s.owner,
                "enabled" => &mut s.enabled,
                "failure" => &mut s.failure,
                "rate_limit" => &mut s.rate_limit,
                "backlog_limit" => &mut s.backlog_limit,
                "backlog_wait_time" => &mut s.backlog_wait_time,
                _ => return None,
            };
            *slot = v;
            seen += 1;
        }
        (seen == 6).then_some(s)
    }

    /// Read the file (`Ok(None)` when there is none).
    pub fn load(path: &Path) -> Result<Option<SavedState>, NetlinkError> {
        match std::fs::read_to_string(path) {
            Ok(t) => Ok(SavedState::from_text(&t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(state_err(path, e)),
        }
    }

    /// Write the file atomically (a temporary file renamed over it).
    pub fn store(&self, path: &Path) -> Result<(), NetlinkError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| state_err(dir, e))?;
        }
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, self.to_text()).map_err(|e| state_err(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| state_err(path, e))
    }
}

fn state_err(path: &Path, source: std::io::Error) -> NetlinkError {
    NetlinkError::State {
        path: path.display().to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let s = SavedState {
            owner: 9,
            enabled: 1,
            failure: 1,
            rate_limit: 0,
            backlog_limit: 8192,
            backlog_wait_time: 60000,
            rules: vec![vec![1, 0, 0xff], vec![]],
        };
        assert_eq!(SavedState::from_text(&s.to_text()), Some(s));
        assert_eq!(SavedState::from_text("owner 1\n"), None, "incomplete");
        assert_eq!(SavedState::from_text("owner x\n"), None);
    }
}
