//! dist/fastaudit.service: `systemd-analyze verify` finds nothing to say
//! about it, `systemd-analyze security` rates it well below what it was
//! (5.2), the programs it runs are in the package, and fastaudit runs as
//! the audit daemon, with a plugin, under its capability bounding set and
//! its system call filter (applied here as systemd applies them), telling
//! systemd it is ready. (systemd is not PID 1 in the test container: the
//! unit itself is not started here, so its mount namespace settings are not
//! exercised.)

use fastaudit_testsupport as support;
use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// What `systemd-analyze security` rated the unit before SystemCallFilter,
/// PrivateMounts and DevicePolicy: the score must stay below 4.0.
const EXPOSURE_BELOW: f64 = 4.0;

fn checkout() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn unit() -> String {
    let p = checkout().join("dist/fastaudit.service");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn value<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in the unit"))
}

/// The unit with the package's /usr/sbin/fastaudit replaced by the one
/// just built (verify checks that the programs exist), in a temp dir.
fn unit_here() -> PathBuf {
    let dir = tempdir();
    let copy = dir.join("fastaudit.service");
    std::fs::write(&copy, unit().replace("/usr/sbin/fastaudit", FASTAUDIT)).unwrap();
    copy
}

#[test]
fn the_unit_passes_systemd_analyze_verify() {
    let text = unit();
    assert_eq!(value(&text, "Conflicts"), "auditd.service shutdown.target");
    // A rules error must not stop the service (run loads around it).
    assert!(!text.contains("ExecStartPre="), "{text}");
    assert_eq!(value(&text, "EnvironmentFile"), "-/etc/default/fastaudit");
    assert_eq!(value(&text, "ExecStart"), "/usr/sbin/fastaudit run");
    assert_eq!(value(&text, "Type"), "notify");
    assert!(
        value(&text, "Documentation").contains("man:fastaudit-auditd.conf(5)"),
        "{text}"
    );
    // verify also runs `man` on every Documentation=man: page: the pages
    // the package holds, generated here and put in their sections'
    // directories as scripts/package.sh puts them.
    let pages = tempdir();
    let out = fastaudit(
        FASTAUDIT,
        &[
            "generate-man",
            "--date",
            "2026-01-01",
            pages.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let man = tempdir();
    for page in std::fs::read_dir(&pages).unwrap() {
        let page = page.unwrap().path();
        let section = page.extension().unwrap().to_str().unwrap().to_string();
        let dir = man.join(format!("man{section}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::rename(&page, dir.join(page.file_name().unwrap())).unwrap();
    }
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(unit_here())
        .env("MANPATH", &man)
        .output()
        .expect("systemd-analyze (package systemd: scripts/setup.sh --tests installs it)");
    assert!(out.status.success(), "{out:?}");
    // Unknown or misspelt settings are only warned about: none allowed.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{out:?}");
}

#[test]
fn the_units_exposure_is_well_below_what_it_was() {
    let out = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--no-pager"])
        .arg(unit_here())
        .output()
        .expect("systemd-analyze");
    let text = String::from_utf8_lossy(&out.stdout);
    let score: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("→ Overall exposure level for "))
        .and_then(|l| l.split(": ").nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no exposure level in {out:?}"));
    eprintln!("systemd-analyze security --offline=yes: {score}");
    assert!(score < EXPOSURE_BELOW, "exposure {score}:\n{text}");
}

#[test]
fn the_programs_the_unit_runs_are_in_the_package() {
    let table = checkout().join("dist/debian/install");
    let table = std::fs::read_to_string(&table).unwrap_or_else(|e| panic!("{table:?}: {e}"));
    let packaged: Vec<(&str, &str)> = table
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w.len(), 3, "SOURCE DESTINATION MODE: {l}");
            (w[0], w[1])
        })
        .collect();
    let text = unit();
    let programs: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Exec"))
        .filter_map(|l| l.split_once('=')?.1.split_whitespace().next())
        .collect();
    assert!(
        programs.len() >= 2,
        "ExecStart and ExecReload: {programs:?}"
    );
    for p in programs {
        if p.starts_with("/usr/sbin/") {
            let (src, _) = packaged
                .iter()
                .find(|(_, dest)| *dest == p)
                .unwrap_or_else(|| panic!("{p}: not in dist/debian/install"));
            // The package's program is the one cargo builds.
            let built = Path::new(src).file_name().unwrap();
            assert_eq!(built, Path::new(p).file_name().unwrap(), "{src} for {p}");
        } else {
            // Another package's (/bin/kill: procps, in Depends).
            assert!(Path::new(p).is_file(), "{p} does not exist");
        }
    }
    assert!(
        packaged
            .iter()
            .any(|(_, d)| *d == "/usr/lib/systemd/system/fastaudit.service"),
        "the unit itself is packaged"
    );
}

/// `-all,+bpf,...` for setpriv: the unit's CapabilityBoundingSet.
fn bounding_set(unit: &str) -> String {
    let caps: Vec<String> = value(unit, "CapabilityBoundingSet")
        .split(' ')
        .map(|c| format!("+{}", c.trim_start_matches("CAP_").to_lowercase()))
        .collect();
    format!("-all,{}", caps.join(","))
}

#[test]
fn the_units_capabilities_let_fastaudit_read_kernel_addresses() {
    // Before 6.13 the inode hooks are kprobes that skip the calls from
    // atime_needs_update(), found in /proc/kallsyms; without CAP_SYSLOG
    // every address there reads as 0.
    let out = Command::new("setpriv")
        .arg("--bounding-set")
        .arg(bounding_set(&unit()))
        .args(["--inh-caps", "-all", "--no-new-privs", "--"])
        .args(["grep", "-m1", "-w", "atime_needs_update", "/proc/kallsyms"])
        .output()
        .expect("setpriv");
    let line = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "atime_needs_update in /proc/kallsyms: {out:?}"
    );
    let addr = line.split(' ').next().unwrap_or_default();
    assert!(
        u64::from_str_radix(addr, 16).is_ok_and(|a| a != 0),
        "address hidden from the unit's capabilities: {line}"
    );
}

/// The system calls `SystemCallFilter=` allows, as x86_64 numbers: its
/// groups expanded as this machine's systemd lists them, its names as
/// the kernel headers number them (systemd's libseccomp knows the same).
fn allowed_syscalls(filter: &str) -> BTreeSet<u32> {
    let out = Command::new("systemd-analyze")
        .arg("syscall-filter")
        .output()
        .expect("systemd-analyze");
    let mut groups: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut current = None;
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        if l.starts_with('@') {
            current = Some(l.trim().to_string());
            groups.entry(l.trim().to_string()).or_default();
        } else if l.trim().is_empty() || l.trim_start().starts_with('#') {
            continue;
        } else if let Some(g) = &current {
            groups.get_mut(g).unwrap().push(l.trim().to_string());
        }
    }
    fn expand(
        w: &str,
        groups: &std::collections::HashMap<String, Vec<String>>,
        out: &mut BTreeSet<String>,
    ) {
        if w.starts_with('@') {
            let members = groups.get(w).unwrap_or_else(|| panic!("no group {w}"));
            for m in members {
                expand(m, groups, out);
            }
        } else {
            out.insert(w.to_string());
        }
    }
    let mut names = BTreeSet::new();
    for w in filter.split_whitespace() {
        assert!(!w.starts_with('~'), "an allow list: {filter}");
        expand(w, &groups, &mut names);
    }
    let header = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h";
    let header = std::fs::read_to_string(header)
        .unwrap_or_else(|e| panic!("{header} (linux-libc-dev): {e}"));
    let numbers: std::collections::HashMap<&str, u32> = header
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("#define __NR_")?.split_whitespace();
            Some((w.next()?, w.next()?.parse().ok()?))
        })
        .collect();
    for needed in ["bpf", "perf_event_open", "execve", "clone3", "openat"] {
        assert!(names.contains(needed), "{needed} allowed: {filter}");
    }
    // Names of other architectures' calls have no x86_64 number.
    names
        .iter()
        .filter_map(|n| numbers.get(n.as_str()).copied())
        .collect()
}

/// A seccomp program: x86_64 calls in `allowed` pass, any other call (or
/// another ABI's) fails with `errno`, as SystemCallFilter= with
/// SystemCallErrorNumber= and SystemCallArchitectures=native.
fn seccomp_program(allowed: &BTreeSet<u32>, errno: u32) -> Vec<libc::sock_filter> {
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    const ALLOW: u32 = 0x7fff_0000;
    let deny = 0x0005_0000 | errno;
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    // seccomp_data: nr at 0, arch at 4.
    let mut p = vec![
        op(LD_W_ABS, 0, 0, 4),
        op(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        op(RET_K, 0, 0, deny),
        op(LD_W_ABS, 0, 0, 0),
    ];
    for &nr in allowed {
        p.push(op(JEQ_K, 0, 1, nr));
        p.push(op(RET_K, 0, 0, ALLOW));
    }
    p.push(op(RET_K, 0, 0, deny));
    p
}

#[test]
fn fastaudit_and_a_plugin_run_under_the_units_capabilities_and_system_call_filter() {
    let text = unit();
    assert_eq!(value(&text, "SystemCallErrorNumber"), "EPERM");
    assert_eq!(value(&text, "SystemCallArchitectures"), "native");
    let program = seccomp_program(&allowed_syscalls(value(&text, "SystemCallFilter")), 1);
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -k unitcaps\n",
    )
    .unwrap();
    let log = dir.join("audit.log");
    // A plugin: the records on its stdin appended to a file.
    let plugins = dir.join("plugins");
    let fed = dir.join("plugin.out");
    std::fs::create_dir_all(&plugins).unwrap();
    let conf = plugins.join("tee.conf");
    std::fs::write(
        &conf,
        format!(
            "active = yes\ndirection = out\npath = /usr/bin/tee\ntype = always\nargs = -a {}\nformat = string\n",
            fed.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&conf, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    let notify = dir.join("notify.sock");
    let sock = std::os::unix::net::UnixDatagram::bind(&notify).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.arg("--bounding-set")
        .arg(bounding_set(&text))
        .args(["--inh-caps", "-all", "--no-new-privs", "--"])
        .arg(FASTAUDIT)
        .args(["run", "--no-config", "--rules"])
        .arg(&rules)
        .arg("--log")
        .arg(&log)
        .arg("--plugin-dir")
        .arg(&plugins)
        .env("NOTIFY_SOCKET", &notify);
    // SAFETY: between fork and exec, only prctl on memory made before the
    // fork (systemd applies the filter at the same point, before exec).
    unsafe {
        cmd.pre_exec(move || {
            let prog = libc::sock_fprog {
                len: program.len() as u16,
                filter: program.as_ptr() as *mut libc::sock_filter,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &prog as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let fa = FastauditRun::spawn_command(cmd);
    let mut buf = [0u8; 64];
    let n = sock.recv(&mut buf).expect("READY=1 from fastaudit");
    assert_eq!(&buf[..n], b"READY=1");
    let status = std::fs::read_to_string(format!("/proc/{}/status", fa.pid())).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap()
            .trim()
            .to_string()
    };
    let (bnd, seccomp) = (field("CapBnd:"), field("Seccomp:"));
    let target = dir.join("f");
    std::fs::write(&target, "").unwrap();
    let out = Command::new("chmod")
        .args(["600", target.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    wait_until(20, "the chmod to be logged", || {
        file_holds(&log, "key=\"unitcaps\"")
    });
    let pid = fa.pid().to_string();
    let s = auditctl(&["-s"]);
    assert!(
        String::from_utf8_lossy(&s.stdout).contains(&format!("pid {pid}")),
        "registered as the audit daemon: {s:?}"
    );
    let printed = fa.stop();
    assert_ne!(bnd, "000001ffffffffff", "the bounding set was reduced");
    assert_eq!(seccomp, "2", "fastaudit ran under the filter");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("key=\"unitcaps\""),
        "{logged}\n{printed:#?}"
    );
    assert!(logged.contains("type=DAEMON_END"), "{logged}");
    let fed = std::fs::read_to_string(&fed).unwrap_or_default();
    assert!(
        fed.contains("key=\"unitcaps\""),
        "the plugin got the record: {fed:?}\n{printed:#?}"
    );
    let s = auditctl(&["-s"]);
    assert!(
        String::from_utf8_lossy(&s.stdout).contains("pid 0"),
        "unregistered at stop: {s:?}"
    );
}
