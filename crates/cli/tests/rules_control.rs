//! Control lines against auditctl: which it accepts and which it refuses
//! must match fastaudit. These change kernel audit settings, so the status
//! is saved before and restored after every line. `-e 2` and
//! `--loginuid-immutable` are never sent (they cannot be undone).

mod common;
use common::*;
use std::process::Command;

/// Lines whose settings can be restored; nothing here locks audit.
const LINES: &[&str] = &[
    "-b 8192",
    "-b 320 -f 1",
    "-b",
    "-b abc",
    "-b 99999999999999999999999",
    "-b 0x40",
    "-b 12abc",
    "-f 0",
    "-f 1",
    "-f 2",
    "-f 3",
    "-f",
    "-f x",
    "-r 0",
    "-r 100",
    "-r x",
    "-r",
    "--backlog_wait_time 60000",
    "--backlog_wait_time=15000",
    "--backlog_w 15000",
    "--backlog_wait_time x",
    "--backlog_wait_time",
    "-e 0",
    "-e 1",
    "-e 3",
    "-e",
    "-e -1",
    "-e 01",
    "-i",
    "-c",
    "-i -c",
    "-c -b 10",
    "-s",
    "-s -i",
    "-s -k",
    "-l",
    "-l -i",
    "-l -k foo",
    "-l -k",
    "-v",
    "-m hello",
    "-m",
    "-t",
    "-q /,/tmp",
    "-q bad",
    "-q /,",
    "--reset-lost",
    "--reset",
    "--reset_backlog_wait_time_actual",
    "--reset-lost extra",
    "-h",
    "-R /etc/hosts",
    "-D",
    "-D -k x",
    "-D x",
    "-D -k",
    "-b 10 -b 20",
    "-f 1 -e 0",
    "-b 10 extra",
    "extra -b 10",
    "-x",
    "--nosuch",
    "-",
    "--",
    "-- -b 10",
];

struct Status(Vec<(String, String)>);

fn status() -> Status {
    let out = String::from_utf8(auditctl(&["-s"]).stdout).unwrap();
    let get = |k: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k} ")))
            .unwrap_or("0")
            .to_string()
    };
    Status(vec![
        ("-f".into(), get("failure")),
        ("-r".into(), get("rate_limit")),
        ("-b".into(), get("backlog_limit")),
        ("--backlog_wait_time".into(), get("backlog_wait_time")),
    ])
}

fn restore(s: &Status) {
    for (opt, v) in &s.0 {
        auditctl(&[opt, v]);
    }
    restore_kernel();
}

#[test]
fn control_lines_match_auditctl() {
    let _ka = KernelAudit::acquire();
    let saved = status();
    let dir = tempdir();
    let one = dir.join("one.rules");
    let mut diffs = Vec::new();
    for line in LINES {
        assert!(
            !line.contains("-e 2") && !line.contains("--lo"),
            "unsafe test line {line}"
        );
        std::fs::write(&one, format!("{line}\n")).unwrap();
        let words: Vec<&str> = line.split(' ').collect();
        // `-R` ignores the error of a line that itself says -i (ignore
        // errors); given as arguments, auditctl reports it.
        let k = if words.contains(&"-i") {
            Command::new("auditctl").args(&words).output()
        } else {
            Command::new("auditctl").arg("-R").arg(&one).output()
        };
        let k = k.unwrap().status.success();
        restore(&saved);
        let f = fastaudit(&["rules", "check", one.to_str().unwrap()])
            .status
            .success();
        if k != f {
            diffs.push(format!(
                "{line:?}: auditctl {} but fastaudit {}",
                ok(k),
                ok(f)
            ));
        }
    }
    restore(&saved);
    assert_agrees(&diffs);
}

fn ok(b: bool) -> &'static str {
    if b {
        "accepts"
    } else {
        "refuses"
    }
}
