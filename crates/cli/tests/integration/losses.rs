//! Losses as they happen, and the irreversible settings said aloud.
//!
//! A burst that overflows a tiny ring buffer is seen while fastaudit runs:
//! in `fastaudit ctl -s` (`lost`), in the status file (`bpf_events_lost`),
//! as a DAEMON_ERR `op=lost-events` record in the log (at most one a
//! second, each with the count since the last and the total) and, under
//! the default failure flag (1), in the kernel log; at the stop the
//! records' counts add up to the total and generated = logged + lost.
//!
//! `-e 2` (and `-f 2`, `--loginuid-immutable`) in a rules file: `rules
//! check` and `run` name the line and say what is applied; the status
//! file says what was asked and what reached the kernel. Nothing
//! irreversible is ever sent to this machine's kernel: no
//! --apply-irreversible here.

use fastaudit_testsupport as support;
use std::path::Path;
use std::process::Command;
use std::time::Instant;
use support::{chmods_rule, tempdir, wait_until, FastauditRun, KernelAudit};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The running daemon's status file.
const STATUS: &str = "/run/fastaudit/status";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `NAME VALUE` lines' value of `name`.
fn value(lines: &str, name: &str) -> Option<u64> {
    let prefix = format!("{name} ");
    lines
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.trim().parse().ok())
}

/// `fastaudit ctl -s`'s `lost`.
fn ctl_lost() -> u64 {
    let o = Command::new(FASTAUDIT)
        .args(["ctl", "-s"])
        .output()
        .expect("fastaudit ctl -s");
    assert!(o.status.success(), "{}", text(&o.stderr));
    value(&text(&o.stdout), "lost").expect("a lost line")
}

/// The `op=lost-events` records of the log: (lost, total) of each.
fn loss_records(log: &Path) -> Vec<(u64, Option<u64>)> {
    let field = |l: &str, k: &str| {
        l.split(' ')
            .find_map(|kv| kv.strip_prefix(k))
            .and_then(|v| v.parse::<u64>().ok())
    };
    text(&std::fs::read(log).unwrap_or_default())
        .lines()
        .filter(|l| l.starts_with("type=DAEMON_ERR ") && l.contains(" op=lost-events "))
        .map(|l| (field(l, "lost=").expect("lost="), field(l, "total=")))
        .collect()
}

#[test]
fn ring_buffer_losses_show_while_running() {
    const N: usize = 200_000;
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("burst.rules");
    // 0o1601 as chmod's mode argument marks the workload's calls.
    std::fs::write(&rules, chmods_rule("burst")).unwrap();
    let log = dir.join("audit.log");
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &["--ring-buffer-kib", "16", "--max-log-file", "0"],
    );
    let started = Instant::now();
    support::chmods(&target, N as u64);

    // While it runs: ctl -s, the status file and a record in the log.
    wait_until(10, "a loss record in the log while running", || {
        !loss_records(&log).is_empty()
    });
    let live = loss_records(&log);
    let (_, total) = live[0];
    let total = total.expect("a live record carries the total");
    assert!(total > 0, "{live:?}");
    wait_until(10, "ctl -s counting the ring buffer's losses", || {
        ctl_lost() >= total
    });
    wait_until(10, "the status file counting them", || {
        let s = std::fs::read_to_string(STATUS).unwrap_or_default();
        value(&s, "bpf_events_lost").is_some_and(|n| n >= total)
    });
    // The default failure flag (1): the kernel log says it, as the
    // kernel says its own losses.
    let mark = format!("fastaudit[{}]: audit_lost=", fa.pid());
    wait_until(10, "the loss in the kernel log", || {
        let o = Command::new("dmesg").output().expect("dmesg");
        text(&o.stdout).contains(&mark)
    });
    let ran = started.elapsed().as_secs();
    let summary = fa.stop();

    let records = loss_records(&log);
    // Rate-limited: at most one a second, plus the one at the stop.
    assert!(
        records.len() as u64 <= ran + 2,
        "{} loss records in {ran} s: {records:?}",
        records.len()
    );
    let lost: u64 = records.iter().map(|r| r.0).sum();
    let last_total = records.last().and_then(|r| r.1).expect("a total");
    assert_eq!(lost, last_total, "each record counts the new losses once");
    let body = text(&std::fs::read(&log).unwrap());
    let logged = body
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.ends_with("key=\"burst\""))
        .count() as u64;
    assert_eq!(logged + lost, N as u64, "generated = logged + lost");
    assert!(
        summary.iter().any(|l| l.contains(&format!(
            "{N} events generated, {logged} logged, {lost} lost"
        ))),
        "{summary:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rules_check_names_each_irreversible_setting_and_what_is_applied() {
    let dir = tempdir();
    let rules = dir.join("stig.rules");
    std::fs::write(
        &rules,
        "-D\n-b 8192\n-f 2\n--loginuid-immutable\n-a always,exit -F arch=b64 -S mkdir\n-e 2\n",
    )
    .unwrap();
    let o = support::fastaudit(FASTAUDIT, &["rules", "check", rules.to_str().unwrap()]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(o.stdout.is_empty());
    let at = |line: u32, what: &str| format!("{}:{line}: note: {what}: ", rules.display());
    for (line, what, says) in [
        (6, "-e 2", "only by `fastaudit run --apply-irreversible`"),
        (4, "--loginuid-immutable", "--apply-irreversible"),
        (3, "-f 2", "without it the kernel gets -f 1"),
    ] {
        let note = err
            .lines()
            .find(|l| l.starts_with(&at(line, what)))
            .unwrap_or_else(|| panic!("no note for {what} at line {line}: {err}"));
        assert!(note.contains(says), "{note}");
    }
    // Nothing asked, nothing said.
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S mkdir\n").unwrap();
    let o = support::fastaudit(FASTAUDIT, &["rules", "check", rules.to_str().unwrap()]);
    assert!(
        o.status.success() && o.stderr.is_empty(),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_says_e_2_stays_off_the_kernel_and_status_shows_it() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("locked.rules");
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S mkdir\n-e 2\n").unwrap();
    let log = dir.join("audit.log");
    // No --apply-irreversible: the kernel is never locked here.
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &[]);
    let note = format!("{}:2: note: -e 2: ", rules.display());
    let said = fa
        .before_ready
        .iter()
        .find(|l| l.starts_with(&note))
        .unwrap_or_else(|| panic!("no -e 2 note: {:?}", fa.before_ready));
    assert!(
        said.contains("not applied to the kernel (needs --apply-irreversible)"),
        "{said}"
    );
    wait_until(10, "the status file's irreversible lines", || {
        let s = std::fs::read_to_string(STATUS).unwrap_or_default();
        s.contains(&format!("pid {}\n", fa.pid()))
            && s.contains("irreversible_asked -e 2\n")
            && s.contains("irreversible_applied_to_kernel none\n")
            && s.contains("rules_immutable 1\n")
    });
    let st = support::fastaudit(FASTAUDIT, &["status"]);
    let st = text(&st.stdout);
    assert!(st.contains("  irreversible_asked -e 2\n"), "{st}");
    assert!(
        !st.contains("  enabled 2\n"),
        "the kernel is not locked: {st}"
    );
    fa.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
