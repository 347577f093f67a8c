//! `fastaudit ctl` requests judged on the engine's thread, between batches:
//! queries answered from the daemon's own state, rule changes parsed and
//! checked by the rules crate (the parser and kernel checks of `fastaudit
//! rules`) on a copy of the running rules, then switched to as SIGHUP
//! switches (crate::rules, the engine's handover): all of a request or
//! none of it, and no event judged by half a rule set. The socket the
//! requests come in on is socket.rs.
//!
//! The enabled flag is fastaudit's own and never reaches the kernel (the
//! kernel audit keeps only `-a never,task` under fastaudit and stays as it
//! is): `-e 0` switches the engine to the empty rule set's plan while the
//! rules stay loaded (listed, changeable), as the kernel keeps its rules
//! while disabled; `-e 1` switches back to the rules' plan; `-e 2` also
//! locks fastaudit's rules until it restarts (SIGHUP refused too). Each is
//! logged as the kernel logs auditctl's `-e` (`op=set audit_enabled=N
//! old=M`), by the caller.

mod parts;
pub mod socket;
mod status;

pub use parts::Parts;

use crate::rules::change::{log_enable, log_rule_changes};
use crate::rules::RuleChange;
use fastaudit_engine::Plan;
use fastaudit_rules::listing::Lister;
use fastaudit_rules::parse::{parse_words, Request as RuleRequest};
use fastaudit_rules::settings::{Query, Setting};
use fastaudit_rules::source;
use fastaudit_rules::{Origin, Rule, RuleSet, SystemHost};
use socket::{Job, Jobs, Reply};
use std::path::Path;

/// auditctl's refusal of a rule change while immutable.
pub const IMMUTABLE: &str = "The audit system is in immutable mode, no rule changes allowed";

/// auditctl's words when the kernel refuses `-e` while locked.
const ENABLE_REFUSED: &str = "Error sending enable request (Operation not permitted)";

/// Where a command-line request's errors are said to be.
const COMMAND_LINE: &str = "fastaudit ctl";

/// One line's words.
type Words = Vec<Vec<u8>>;

/// A request whose switch is under way: answered once it is over.
struct Switching {
    job: Job,
    reply: Reply,
    /// The rule changes, in the order asked.
    changes: Vec<RuleChange>,
    /// `-e N`: (N, the flag before).
    enable: Option<(u32, u32)>,
}

/// The control requests of a run.
pub struct Control {
    jobs: Jobs,
    switching: Option<Switching>,
    /// `--signal reload`, for the daemon to carry out as SIGHUP.
    reload: Option<Job>,
}

/// A request once every line is parsed and applied to a copy of the rules.
struct Judged {
    set: RuleSet,
    reply: Reply,
    /// Each rule added or removed, in the order asked (as the kernel
    /// logs auditctl's requests, one by one).
    changes: Vec<RuleChange>,
    /// The last `-e N`.
    enable: Option<u32>,
}

impl Control {
    /// Open the control socket (a note on stderr when it cannot be: the
    /// run goes on without `fastaudit ctl`).
    pub fn start() -> Option<Control> {
        let mut notes = Vec::new();
        let jobs = socket::listen(&mut notes);
        for n in notes {
            eprintln!("fastaudit: {n}");
        }
        match jobs {
            Ok(jobs) => Some(Control {
                jobs,
                switching: None,
                reload: None,
            }),
            Err(e) => {
                eprintln!("fastaudit: warning: no control socket, so no `fastaudit ctl` ({e})");
                None
            }
        }
    }

    /// Whether the last switch was a ctl request's (else SIGHUP's).
    pub fn switching(&self) -> bool {
        self.switching.is_some()
    }

    /// Between batches: judge the next request; a plan to switch to when
    /// it changes what runs (its reply then waits for [`Control::swapped`]).
    pub fn poll(&mut self, mut parts: Parts) -> Option<Plan> {
        if self.switching.is_some() || parts.rules.busy() {
            return None;
        }
        let job = self.jobs.next()?;
        match signal(&job.request.words) {
            Some(Ok(())) => {
                self.reload = Some(job);
                return None;
            }
            Some(Err(reply)) => {
                let _ = job.reply.send(reply);
                return None;
            }
            None => {}
        }
        let judged = match judge(&job, &mut parts) {
            Ok(j) => j,
            Err(reply) => {
                let _ = job.reply.send(reply);
                return None;
            }
        };
        let old = parts.rules.enabled();
        let new = judged.enable.unwrap_or(old);
        let paused = new == 0;
        let listing = |s: &RuleSet| {
            let mut out = Vec::new();
            let _ = s.write_listing(&mut out, &SystemHost);
            out
        };
        if listing(&judged.set) == listing(parts.rules.current()) && paused == (old == 0) {
            // Nothing to switch: a query, `-D` of no rules, `-e` of the
            // state running.
            if let Some(n) = judged.enable {
                log_enable(parts.sink, n, old, &job.caller, true);
                if n == 2 {
                    lock(&mut parts);
                }
            }
            let _ = job.reply.send(judged.reply);
            return None;
        }
        match parts.rules.offer(judged.set, paused) {
            Ok(plan) => {
                self.switching = Some(Switching {
                    job,
                    reply: judged.reply,
                    changes: judged.changes,
                    enable: judged.enable.map(|n| (n, old)),
                });
                Some(plan)
            }
            Err(e) => {
                let _ = job
                    .reply
                    .send(Reply::refused(&format!("fastaudit ctl: {e}"), 1));
                None
            }
        }
    }

    /// A `--signal reload` request [`Control::poll`] took: the daemon
    /// reloads as on SIGHUP and answers it when the new rules run.
    pub fn take_reload(&mut self) -> Option<Job> {
        self.reload.take()
    }

    /// The switch a request asked for is over (`failed`: why it did not
    /// happen): log its rule changes by the caller, in the order asked, as
    /// the kernel logs auditctl's, and answer.
    pub fn swapped(&mut self, mut parts: Parts, failed: Option<String>) {
        let Some(s) = self.switching.take() else {
            return;
        };
        let reply = match failed {
            Some(e) => Reply::refused(
                &format!("fastaudit ctl: the changed rules could not be attached ({e}); the running rules stay"),
                1,
            ),
            None => {
                log_rule_changes(parts.sink, &s.changes, &s.job.caller);
                if let Some((n, old)) = s.enable {
                    log_enable(parts.sink, n, old, &s.job.caller, true);
                    if n == 2 {
                        lock(&mut parts);
                    }
                }
                s.reply
            }
        };
        let _ = s.job.reply.send(reply);
    }
}

/// The caller of `job` as DAEMON_CONFIG names a signal's sender.
pub fn sender(job: &Job) -> fastaudit_records::daemon::Sender {
    use std::os::unix::fs::MetadataExt as _;
    fastaudit_records::daemon::Sender {
        auid: job.caller.auid,
        uid: std::fs::metadata(format!("/proc/{}", job.pid)).map_or(u32::MAX, |m| m.uid()),
        ses: job.caller.ses.to_string(),
        pid: job.pid,
        context: job.caller.subj.clone(),
    }
}

/// `--signal NAME` (auditctl's option that signals auditd): Some(Ok) for
/// reload (HUP), which the daemon carries out and answers once it is over
/// (`systemctl reload` waits for it so); a refusal for the rest, which are
/// signals to send (kill, systemctl); None for any other request.
fn signal(words: &[Vec<u8>]) -> Option<Result<(), Reply>> {
    let (first, rest) = words.split_first()?;
    if first.as_slice() != b"--signal" {
        return None;
    }
    let name = match rest {
        [name] => String::from_utf8_lossy(name).to_ascii_lowercase(),
        _ => {
            return Some(Err(Reply::refused(
                &format!("{COMMAND_LINE}: --signal takes one signal name (reload)"),
                1,
            )))
        }
    };
    Some(match name.as_str() {
        "reload" | "hup" | "sighup" => Ok(()),
        other => Err(Reply::refused(
            &format!(
                "{COMMAND_LINE}: --signal {other}: only reload (HUP) is sent this way, and answered once done; send the others with kill (TERM stops, USR1 rotates, USR2 resumes)"
            ),
            1,
        )),
    })
}

/// `-e 2`: the rules stay as they are until fastaudit restarts (the
/// status file's rules_immutable says so too); the kernel is not told.
fn lock(parts: &mut Parts) {
    parts.rules.lock();
    parts.kernel.lock();
}

/// Parse the request's lines and apply them to a copy of the rules: the
/// new rules, what to print and the `-e` asked for; or the refusal
/// (nothing applied).
fn judge(job: &Job, parts: &mut Parts) -> Result<Judged, Reply> {
    let lines = request_lines(&job.request.words)?;
    let host = SystemHost;
    let at = |origin: &Origin, m: &dyn std::fmt::Display| {
        if origin.line == 0 {
            format!("{COMMAND_LINE}: {m}")
        } else {
            format!("{origin}: {m}")
        }
    };
    let mut reply = Reply::default();
    let mut errors = Vec::new();
    let mut enable = None;
    let mut changes_rules = false;
    let mut parsed = Vec::new();
    for (origin, words) in &lines {
        let p = match parse_words(words, &host) {
            Ok(p) => p,
            Err(e) => {
                errors.push(at(origin, &e));
                continue;
            }
        };
        changes_rules |= p.request.is_some();
        for s in &p.settings {
            match s {
                Setting::Enabled(n) => enable = Some(*n),
                // A rules file's -i/-c: fastaudit applies all of it or nothing.
                Setting::IgnoreErrors | Setting::ContinueOnErrors if origin.line > 0 => {}
                other if origin.line > 0 => warn(
                    &mut reply,
                    &at(
                        origin,
                        &format!("warning: {other}: not applied by fastaudit ctl (kernel settings apply at the next start)"),
                    ),
                ),
                other => errors.push(at(
                    origin,
                    &format!(
                        "{other}: not supported by fastaudit ctl (rule changes, -e, -l, -s and -v are; kernel settings belong in the rules files and apply at the next start)"
                    ),
                )),
            }
        }
        parsed.push((origin, words, p));
    }
    if !errors.is_empty() {
        return Err(refusal(errors));
    }
    if parts.rules.locked() {
        if changes_rules {
            return Err(Reply::refused(IMMUTABLE, 1));
        }
        if let Some(n) = enable {
            // The kernel logs the refused attempt; auditctl says why.
            log_enable(parts.sink, n, 2, &job.caller, false);
            return Err(Reply::refused(ENABLE_REFUSED, 1));
        }
    }
    let mut set = parts.rules.current().clone();
    let mut changes = Vec::new();
    for (origin, words, p) in parsed {
        for q in &p.queries {
            match q {
                Query::List => list(&set, words, &mut reply.out),
                Query::Status => reply.out.extend(status::status(parts).bytes()),
                Query::Version => reply
                    .out
                    .extend(format!("fastaudit version {}\n", env!("CARGO_PKG_VERSION")).bytes()),
            }
        }
        for w in &p.warnings {
            warn(&mut reply, &at(origin, &format_args!("warning: {w}")));
        }
        // Queries change nothing and are not kept.
        if p.request.is_some() || !p.settings.is_empty() {
            let asked = asked_changes(&set, p.request.as_ref());
            match set.apply(p, origin, &host) {
                Ok(()) => changes.extend(asked),
                Err(e) => errors.push(at(origin, &e)),
            }
        }
    }
    if !errors.is_empty() {
        return Err(refusal(errors));
    }
    Ok(Judged {
        set,
        reply,
        changes,
        enable,
    })
}

/// The CONFIG_CHANGE records of one request, were it applied to `set`:
/// one per rule added or deleted; for `-D`, one per rule it removes, in
/// listing order (auditctl lists the rules and deletes each).
fn asked_changes(set: &RuleSet, request: Option<&RuleRequest>) -> Vec<RuleChange> {
    let change = |op, r: &Rule| RuleChange {
        op,
        key: r.key().map(<[u8]>::to_vec),
        list: r.list,
    };
    match request {
        None => Vec::new(),
        Some(RuleRequest::Add { rule, .. }) => vec![change("add_rule", rule)],
        Some(RuleRequest::Delete(rule)) => vec![change("remove_rule", rule)],
        Some(RuleRequest::DeleteAll { key }) => set
            .rules()
            .filter(|l| key_contains(&l.rule, key))
            .map(|l| change("remove_rule", &l.rule))
            .collect(),
    }
}

/// auditctl's key_match (for `-l -k` and `-D -k`): the rule's key contains `key`.
fn key_contains(r: &Rule, key: &[u8]) -> bool {
    key.is_empty()
        || r.key()
            .is_some_and(|k| k.windows(key.len()).any(|w| w == key))
}

/// A request's lines: the command line's words (as one line), or those of
/// `-R FILE` (read as `fastaudit rules` reads a rules file).
fn request_lines(words: &[Vec<u8>]) -> Result<Vec<(Origin, Words)>, Reply> {
    use std::os::unix::ffi::OsStrExt;
    match words {
        [] => Err(Reply::refused(
            &format!("{COMMAND_LINE}: no option given (fastaudit ctl -h lists them)"),
            1,
        )),
        [r, file] if r.as_slice() == b"-R" => {
            let path = Path::new(std::ffi::OsStr::from_bytes(file));
            source::source_lines(path).map_err(|e| refusal(vec![e.to_string()]))
        }
        _ if words.iter().any(|w| w.as_slice() == b"-R") => Err(Reply::refused(
            &format!("{COMMAND_LINE}: -R FILE must be given alone"),
            1,
        )),
        _ => Ok(vec![(
            Origin {
                file: COMMAND_LINE.into(),
                line: 0,
            },
            words.to_vec(),
        )]),
    }
}

/// `-l` (`-l -k KEY`: the rules whose key contains KEY, as auditctl's
/// key_match), as `auditctl -l` and `fastaudit rules list` print them.
fn list(set: &RuleSet, words: &[Vec<u8>], out: &mut Vec<u8>) {
    let key = match words {
        [_, k, key] if k.as_slice() == b"-k" => Some(key.as_slice()),
        _ => None,
    };
    let selected = set.rules().map(|l| &l.rule).filter(|r| {
        key.is_none_or(|k| {
            k.is_empty()
                || r.key()
                    .is_some_and(|rk| rk.windows(k.len()).any(|w| w == k))
        })
    });
    let _ = Lister::new(&SystemHost).write_all(out, selected);
}

/// Every error on stderr, exit 1 (auditctl's), nothing applied.
fn refusal(errors: Vec<String>) -> Reply {
    Reply {
        out: Vec::new(),
        err: errors
            .iter()
            .flat_map(|e| format!("{e}\n").into_bytes())
            .collect(),
        code: 1,
    }
}

fn warn(reply: &mut Reply, line: &str) {
    reply.err.extend_from_slice(line.as_bytes());
    reply.err.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> RuleSet {
        RuleSet::from_text(text.as_bytes(), "t", &SystemHost).unwrap()
    }

    fn words(line: &str) -> Words {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    fn asked(s: &RuleSet, line: &str) -> Vec<(&'static str, Option<Vec<u8>>)> {
        let p = parse_words(&words(line), &SystemHost).unwrap();
        asked_changes(s, p.request.as_ref())
            .into_iter()
            .map(|c| (c.op, c.key))
            .collect()
    }

    #[test]
    fn each_request_names_the_rules_it_adds_or_removes() {
        let s = set("-a always,exit -F arch=b64 -S fchmodat -k one\n-a always,exit -F arch=b64 -S mkdirat -k two\n-a always,exit -F arch=b64 -S unlinkat\n");
        assert_eq!(
            asked(&s, "-a always,exit -F arch=b64 -S fchown -k new"),
            [("add_rule", Some(b"new".to_vec()))]
        );
        assert_eq!(
            asked(&s, "-d always,exit -F arch=b64 -S unlinkat"),
            [("remove_rule", None)]
        );
        // -D -k: the rules whose key contains it; -D: all, in listing order.
        assert_eq!(
            asked(&s, "-D -k tw"),
            [("remove_rule", Some(b"two".to_vec()))]
        );
        assert_eq!(
            asked(&s, "-D"),
            [
                ("remove_rule", Some(b"one".to_vec())),
                ("remove_rule", Some(b"two".to_vec())),
                ("remove_rule", None)
            ]
        );
        assert!(asked(&s, "-l").is_empty());
    }

    #[test]
    fn r_takes_a_file_alone() {
        let missing = request_lines(&words("-R /nonexistent/x.rules")).unwrap_err();
        assert_eq!(missing.code, 1);
        assert!(String::from_utf8_lossy(&missing.err).starts_with("/nonexistent/x.rules"));
        assert!(request_lines(&words("-l -R x")).is_err());
        assert!(request_lines(&[]).is_err());
        let one = request_lines(&words("-a always,exit -S mkdirat")).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].0.line, 0);
    }
}
