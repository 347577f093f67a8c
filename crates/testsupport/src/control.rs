//! The control lines of the oracle tests and what sending them needs:
//! saving the kernel audit status before and restoring it after each, and
//! giving a line to auditctl as a rules file would. Shared by
//! `rules_control` and `rules_golden`.

use crate::kernel::{auditctl, auditctl_command, restore_kernel};
use std::path::Path;
use std::process::Output;

/// Lines whose settings can be restored; nothing here locks audit.
pub const LINES: &[&str] = &[
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

/// The kernel audit settings a control line can change.
pub struct Status(Vec<(String, String)>);

/// The settings now, to restore after a line.
pub fn status() -> Status {
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

/// Put the settings back and leave the kernel as the project promises.
pub fn restore(s: &Status) {
    for (opt, v) in &s.0 {
        auditctl(&[opt, v]);
    }
    restore_kernel();
}

/// Give one control line to auditctl as `auditctl -R` would read it from
/// `file`. `-R` ignores the error of a line that itself says -i (ignore
/// errors); given as arguments, auditctl reports it, so such a line is
/// given as arguments.
pub fn send_control_line(line: &str, file: &Path) -> Output {
    std::fs::write(file, format!("{line}\n")).expect("write control line");
    let words: Vec<&str> = line.split(' ').collect();
    if words.contains(&"-i") {
        auditctl_command(&words).output()
    } else {
        auditctl_command(&[std::ffi::OsStr::new("-R"), file.as_os_str()]).output()
    }
    .expect("run auditctl")
}
