//! auditd.conf's actions that reach beyond the log, through the real
//! binary: a STIG/CIS auditd.conf (as OpenSCAP's remediation writes it)
//! starts, and its `space_left_action = email` hands auditd's mail to
//! /usr/lib/sendmail; `exec` runs the configured program with auditd's
//! (empty) argument list and environment, logging suspended until SIGUSR2.
//!
//! The daemon runs in a private mount namespace where recorders stand in
//! for /usr/lib/sendmail (an overlay on /usr/lib) and /sbin/init (a bind
//! mount): no mail reaches the machine's MTA and, should a threshold of
//! `single` or `halt` ever be crossed here, the request reaches a recorder,
//! never this machine's init. Those two actions themselves are shown in a
//! VM guest only (scripts/vm/guest-actions.sh).

use fastaudit_testsupport as support;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::logread::*;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The workload's chmod mode (0o1601): its calls and no others.
/// (`chmods_rule`: chmod's or fchmodat's mode argument, by machine.)
fn rule() -> String {
    chmods_rule("act")
}

/// Where the recorders write what they were given.
struct Recorders {
    dir: PathBuf,
}

impl Recorders {
    /// A recorder for sendmail (its arguments, then its stdin) and one for
    /// init (its arguments), in a fresh directory.
    fn new() -> Recorders {
        let dir = tempdir();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        support::plugins::script(
            &dir.join("lib/sendmail"),
            &format!(
                "#!/bin/sh\n{{ echo \"argv: $*\"; cat; }} > {0}/mail.tmp && mv {0}/mail.tmp {0}/mail\n",
                dir.display()
            ),
        );
        support::plugins::script(
            &dir.join("init"),
            &format!(
                "#!/bin/sh\necho \"init $*\" >> {}/init.rec\n",
                dir.display()
            ),
        );
        Recorders { dir }
    }

    /// `fastaudit ARGS...` in a private mount namespace with the
    /// recorders in place; `set -e`: a mount that fails stops it before
    /// fastaudit starts.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("unshare");
        cmd.args(["--mount", "--propagation", "private", "--", "/bin/sh", "-c"])
            .arg(concat!(
                "set -e; ",
                "mount -t overlay overlay -o lowerdir=\"$1\":/usr/lib /usr/lib; ",
                "mount --bind \"$2\" /sbin/init; ",
                "test -x /usr/lib/sendmail; ",
                "shift 2; exec \"$@\""
            ))
            .arg("sh")
            .arg(self.dir.join("lib"))
            .arg(self.dir.join("init"))
            .arg(FASTAUDIT)
            .args(args);
        cmd
    }

    fn mail(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.join("mail")).ok()
    }

    fn init_asked(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.join("init.rec")).ok()
    }
}

impl Drop for Recorders {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A tmpfs of `size` on a fresh directory, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let d = tempdir().join("fs");
        std::fs::create_dir_all(&d).unwrap();
        nix::mount::mount(
            Some("tmpfs"),
            &d,
            Some("tmpfs"),
            nix::mount::MsFlags::empty(),
            Some(format!("size={size},mode=0700").as_str()),
        )
        .expect("mount a tmpfs");
        Tmpfs(d)
    }

    /// Bytes available on it now.
    fn free(&self) -> u64 {
        let st = nix::sys::statvfs::statvfs(&self.0).unwrap();
        st.blocks_available() * st.fragment_size()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = nix::mount::umount2(&self.0, nix::mount::MntFlags::MNT_DETACH);
    }
}

/// auditd.conf as OpenSCAP's remediation leaves it for the DISA STIG and
/// CIS audit storage rules (Debian's auditd.conf otherwise), with the log
/// in `log`.
fn stig_conf(log: &Path) -> String {
    format!(
        "local_events = yes\nwrite_logs = yes\nlog_file = {}\nlog_group = root\nlog_format = ENRICHED\n\
         flush = INCREMENTAL_ASYNC\nfreq = 50\nmax_log_file = 8\nnum_logs = 5\npriority_boost = 4\n\
         name_format = NONE\nmax_log_file_action = keep_logs\nspace_left = 25%\nspace_left_action = email\n\
         verify_email = yes\naction_mail_acct = root\nadmin_space_left = 5%\nadmin_space_left_action = single\n\
         disk_full_action = halt\ndisk_error_action = halt\nuse_libwrap = yes\n\
         tcp_listen_queue = 5\ntcp_max_per_addr = 1\ntcp_client_max_idle = 0\ntransport = TCP\n\
         distribute_network = no\nq_depth = 2000\noverflow_action = SYSLOG\nmax_restarts = 10\n\
         plugin_dir = /nonexistent/plugins.d\nend_of_event_timeout = 2\n",
        log.display()
    )
}

#[test]
fn a_stig_auditd_conf_starts_and_its_email_action_mails_root() {
    let _ka = KernelAudit::acquire();
    let rec = Recorders::new();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(&rules, rule()).unwrap();
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    // 8 MiB with about 1.4 MiB left: below space_left (25%), well above
    // admin_space_left (5%), which the few events here never reach.
    let fs = Tmpfs::mount("8m");
    std::fs::write(fs.0.join("ballast"), vec![0u8; 6900 << 10]).unwrap();
    let free = fs.free();
    assert!(
        free > 1 << 20 && free < 2 << 20,
        "free space for the test: {free}"
    );
    let log = fs.0.join("audit.log");
    let conf = dir.join("auditd.conf");
    std::fs::write(&conf, stig_conf(&log)).unwrap();
    let fa = FastauditRun::spawn_command(rec.command(&[
        "run",
        "--bpf-only",
        "--config",
        conf.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
    ]));
    let early = fa.before_ready.join("\n");
    assert!(
        !early.contains("refused") && !early.contains("not supported"),
        "{early}"
    );
    chmods(&target, 20);
    wait_until(20, "the mail", || rec.mail().is_some());
    let mail = rec.mail().unwrap();
    // auditd's sendmail: -t (recipients from the headers), -f the account.
    assert!(
        mail.starts_with(
            "argv: -t -froot\nTo: root\nFrom: root\nSubject: Audit Disk Space Alert\n\n"
        ),
        "{mail}"
    );
    assert!(
        mail.contains(&format!(
            "{}\n(1 MiB free, below space_left)",
            log.display()
        )),
        "{mail}"
    );
    assert!(mail.ends_with("\n.\n\n"), "{mail:?}");
    wait_until(20, "the workload's events", || {
        records(&log).iter().filter(|r| r.ty == "SYSCALL").count() >= 20
    });
    let said = fa.stop();
    // Said at the first write, DAEMON_START's, before the ready line.
    assert!(early.contains("below space_left: mailing root"), "{early}");
    let (generated, logged, ring, dropped) = final_counts(&said).expect("final counts");
    assert_eq!(
        (generated, ring, dropped),
        (20, 0, 0),
        "email does not stop logging: {said:?}"
    );
    assert_eq!(logged, 20);
    // Mailed once for the crossing; init never asked.
    assert_eq!(rec.init_asked(), None);
    drop(fs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exec_runs_the_program_with_no_arguments_and_logging_waits_for_sigusr2() {
    let _ka = KernelAudit::acquire();
    let rec = Recorders::new();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(&rules, rule()).unwrap();
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let log = dir.join("audit.log");
    // The program records its arguments, its environment as the shell
    // sees it and its parent (fastaudit), then moves the log away as an
    // archiving script would.
    let program = dir.join("on-disk-error");
    let ran = dir.join("ran");
    support::plugins::script(
        &program,
        &format!(
            "#!/bin/sh\n{{ echo \"argc=$# args=$*\"; export -p; ls -l /proc/$$/fd; echo \"ppid=$PPID\"; }} >> {0}\nmv {1} {1}.archived\n",
            ran.display(),
            log.display()
        ),
    );
    let conf = dir.join("auditd.conf");
    std::fs::write(
        &conf,
        format!(
            "log_file = {}\nspace_left = 2\nadmin_space_left = 1\ndisk_error_action = exec {}\nmax_log_file = 0\n",
            log.display(),
            program.display()
        ),
    )
    .unwrap();
    let fa = FastauditRun::spawn_command(rec.command(&[
        "run",
        "--bpf-only",
        "--config",
        conf.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--space-left",
        "0",
        "--admin-space-left",
        "0",
    ]));
    // A file size limit on the daemon: its writes past it fail (EFBIG),
    // a disk error.
    let pid = fa.pid().to_string();
    let prlimit = |v: &str| {
        assert!(Command::new("prlimit")
            .args(["--pid", &pid, &format!("--fsize={v}")])
            .status()
            .unwrap()
            .success())
    };
    prlimit("100000:unlimited");
    chmods(&target, 2000);
    wait_until(20, "the program's run", || {
        std::fs::read_to_string(&ran).is_ok_and(|t| t.contains("ppid="))
            && log.with_extension("log.archived").exists()
    });
    let said = std::fs::read_to_string(&ran).unwrap();
    // auditd's safe_exec: argv[0] alone, an empty environment (what the
    // shell exports then is only what it sets itself).
    assert!(said.starts_with("argc=0 args=\n"), "{said}");
    for var in ["PATH=", "HOME=", "USER=", "CARGO", "RUST"] {
        assert!(
            !said.lines().any(|l| l.contains(&format!(" {var}"))),
            "{var} passed on: {said}"
        );
    }
    assert!(said.contains(&format!("ppid={pid}\n")), "{said}");
    // None of fastaudit's descriptors (the log, the audit netlink socket,
    // BPF maps and links) reaches the program.
    for leak in ["socket:", "anon_inode:", "audit.log"] {
        assert!(!said.contains(leak), "{leak} passed on: {said}");
    }
    // Logging stays suspended (the log is not made again) until SIGUSR2.
    chmods(&target, 10);
    assert!(!log.exists(), "suspended: no new log before SIGUSR2");
    prlimit("unlimited:unlimited");
    support::plugins::signal(fa.pid(), nix::sys::signal::SIGUSR2);
    wait_until(20, "DAEMON_RESUME in a fresh log", || {
        records(&log).iter().any(|r| r.ty == "DAEMON_RESUME")
    });
    chmods(&target, 10);
    wait_until(20, "the events after the resume", || {
        records(&log).iter().filter(|r| r.ty == "SYSCALL").count() >= 10
    });
    let out = fa.stop();
    assert!(
        out.iter().any(|l| l.contains(&format!(
            "logging suspended for disk_error_action = exec {}",
            program.display()
        ))),
        "{out:?}"
    );
    // Once: logging was suspended, so no further error ran it again.
    assert_eq!(
        std::fs::read_to_string(&ran)
            .unwrap()
            .matches("argc=")
            .count(),
        1
    );
    let fault = records(&log)
        .into_iter()
        .find(|r| r.ty == "DAEMON_ERR" && r.body.starts_with("op=log-fault"))
        .expect("the fault's record");
    assert!(
        fault
            .body
            .contains("reason=disk-error errno=EFBIG action=exec "),
        "{}",
        fault.body
    );
    let (generated, logged, ring, dropped) = final_counts(&out).expect("final counts");
    assert_eq!(generated, 2020);
    assert_eq!(generated, logged + ring + dropped, "{out:?}");
    assert!(dropped > 0);
    assert_eq!(rec.init_asked(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_log_file_action_syslog_says_so_and_keep_logs_keeps_every_log() {
    let _ka = KernelAudit::acquire();
    let rec = Recorders::new();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(&rules, rule()).unwrap();
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    for action in ["syslog", "keep_logs"] {
        let logs = dir.join(action);
        std::fs::create_dir(&logs).unwrap();
        std::fs::set_permissions(&logs, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        let log = logs.join("audit.log");
        // An old log that keep_logs must keep.
        std::fs::write(logs.join("audit.log.1"), "old\n").unwrap();
        let conf = dir.join(format!("{action}.conf"));
        std::fs::write(
            &conf,
            format!(
                "log_file = {}\nmax_log_file = 1\nmax_log_file_action = {action}\nnum_logs = 2\nspace_left = 2\nadmin_space_left = 1\n",
                log.display()
            ),
        )
        .unwrap();
        let fa = FastauditRun::spawn_command(rec.command(&[
            "run",
            "--bpf-only",
            "--config",
            conf.to_str().unwrap(),
            "--rules",
            rules.to_str().unwrap(),
            "--space-left",
            "0",
            "--admin-space-left",
            "0",
        ]));
        // Past 1 MiB: a few thousand events of a few hundred bytes.
        chmods(&target, 6000);
        wait_until(30, "the log past 1 MiB, or rotated", || {
            std::fs::metadata(&log).is_ok_and(|m| m.len() > 1 << 20)
                || logs.join("audit.log.2").exists()
        });
        let said = fa.stop();
        if action == "syslog" {
            assert!(
                said.iter().any(|l| l.contains(
                    "the log is larger than max_log_file (1 MiB) and grows on (max_log_file_action = syslog)"
                )),
                "{said:?}"
            );
            assert_eq!(
                said.iter()
                    .filter(|l| l.contains("larger than max_log_file"))
                    .count(),
                1,
                "said once a minute at most: {said:?}"
            );
            assert!(!logs.join("audit.log.2").exists(), "no rotation");
            assert!(
                std::fs::read(logs.join("audit.log.1")).unwrap() == b"old\n",
                "audit.log.1 untouched"
            );
        } else {
            assert!(
                said.iter().any(|l| l.contains(
                    "reached max_log_file: rotating the logs, every old one kept (keep_logs)"
                )),
                "{said:?}"
            );
            // num_logs = 2 does not bound keep_logs: every rotation moved
            // the old log up by one, and none was deleted.
            let highest = (1..)
                .take_while(|n| logs.join(format!("audit.log.{n}")).exists())
                .last()
                .unwrap_or(0);
            assert!(highest >= 2, "rotated with every old log kept: {highest}");
            assert!(
                std::fs::read(logs.join(format!("audit.log.{highest}"))).unwrap() == b"old\n",
                "the old log is the oldest, audit.log.{highest}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
