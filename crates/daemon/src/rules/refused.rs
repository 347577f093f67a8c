//! The lines a run started without (a rules file refused at some line and
//! loaded as `auditctl -R` loads it: rules/load.rs): said on stderr (the
//! journal), logged as DAEMON_ERR records after DAEMON_START, and shown by
//! `fastaudit status` until a reload loads the files whole.

use fastaudit_rules::{LineError, Partial};

/// The refused lines of a partial start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refused {
    /// The refusals listed (at most a screenful a file).
    pub lines: Vec<LineError>,
    /// All refusals, listed or not.
    pub count: usize,
    /// What was and was not loaded, in one sentence.
    pub summary: Option<String>,
}

impl Refused {
    /// What `p` left out.
    pub fn of(p: &Partial) -> Refused {
        let Some(e) = &p.refused else {
            return Refused::default();
        };
        Refused {
            lines: e.errors.clone(),
            count: e.errors.len() + e.unlisted.values().sum::<usize>(),
            summary: p.summary(),
        }
    }

    /// Whether the set runs without some of its lines.
    pub fn partial(&self) -> bool {
        self.count > 0
    }

    /// The lines for stderr: each refusal `FILE:LINE: why`, then the summary.
    pub fn said(&self) -> Vec<String> {
        let mut out: Vec<String> = self.lines.iter().map(ToString::to_string).collect();
        if self.count > self.lines.len() {
            out.push(format!(
                "fastaudit: {} more refused line(s) not listed",
                self.count - self.lines.len()
            ));
        }
        out.extend(self.summary.iter().map(|s| format!("fastaudit: {s}")));
        out
    }

    /// The DAEMON_ERR bodies, one a refused line: auditd's `op=` and
    /// `res=` with the file and line as fields, so that `ausearch -m
    /// DAEMON_ERR` finds them and a SIEM can count them. The reason is
    /// quoted; a double quote in it (from the input) becomes a single
    /// one, since ausearch ends a quoted value at the next double quote.
    pub fn record_bodies(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|e| {
                format!(
                    "op=rules-refused file=\"{}\" line={} reason=\"{}\" pid={} res=failed",
                    e.origin.file.display().to_string().replace('"', "'"),
                    e.origin.line,
                    e.message.replace('"', "'"),
                    std::process::id()
                )
            })
            .collect()
    }

    /// The status file's lines: `rules_complete yes|no`, the number of
    /// refused lines, and each one.
    pub fn status_lines(&self) -> String {
        let mut s = format!(
            "rules_complete {}\nrules_refused {}\n",
            if self.partial() { "no" } else { "yes" },
            self.count
        );
        for e in &self.lines {
            s.push_str(&format!(
                "rules_refused_line {}:{}\n",
                e.origin.file.display(),
                e.origin.line
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_rules::{FixedHost, RuleSet};

    #[test]
    fn each_refused_line_is_said_logged_and_shown() {
        let dir = std::env::temp_dir().join(format!("fa-refused-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("30-stig.rules");
        std::fs::write(
            &f,
            "-a always,exit -F arch=b64 -S mkdirat -k a\n-a always,exit -F arch=b64 -S bo\"gus\n",
        )
        .unwrap();
        let p = RuleSet::load_as_auditctl(std::slice::from_ref(&f), &FixedHost, 10);
        let r = Refused::of(&p);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(r.partial());
        let said = r.said();
        assert!(
            said[0].starts_with(&format!("{}:2: ", f.display())),
            "{said:?}"
        );
        assert!(said[1].contains("the rule set is partial"), "{said:?}");
        let body = &r.record_bodies()[0];
        assert!(
            body.starts_with(&format!(
                "op=rules-refused file=\"{}\" line=2 reason=\"",
                f.display()
            )),
            "{body}"
        );
        assert_eq!(body.matches('"').count(), 4, "{body}");
        assert!(body.ends_with(" res=failed"), "{body}");
        let st = r.status_lines();
        assert!(
            st.starts_with("rules_complete no\nrules_refused 1\n"),
            "{st}"
        );
        assert!(
            st.contains(&format!("rules_refused_line {}:2\n", f.display())),
            "{st}"
        );
        assert_eq!(
            Refused::default().status_lines(),
            "rules_complete yes\nrules_refused 0\n"
        );
    }
}
