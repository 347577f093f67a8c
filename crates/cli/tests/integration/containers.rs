//! Container identity against a real container: Debian's podman (with
//! runc, the cgroupfs manager) runs an image made here by `podman import`
//! of a static busybox (nothing is pulled). An exec, an open and a connect
//! inside it are logged three times, RAW, ENRICHED and JSON, by
//! `fastaudit run --bpf-only`; the same actions of a host process beside
//! them. ENRICHED and JSON carry the id `podman inspect` reports, the
//! runtime, and (once the runtime's files were read) the name and image;
//! the host's events and every RAW line carry none; ausearch and aureport
//! still read the ENRICHED log.

use fastaudit_testsupport as support;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

const IMAGE: &str = "localhost/fastaudit-test-busybox:1";

/// No exe= or path= test: the container's files are not the host's.
/// Opens that create (O_CREAT, 0100).
const RULES: &str = "\
-a always,exit -F arch=b64 -S execve -k ct-exec
-a always,exit -F arch=b64 -S openat -F a2&0100 -k ct-open
-a always,exit -F arch=b64 -S connect -k ct-connect
";

/// podman as it runs on these machines (setup.sh installs it): runc, and
/// cgroupfs (no systemd to ask); the default ulimits are refused here.
fn podman(args: &[&str]) -> String {
    let mut cmd = Command::new("podman");
    let global = ["--runtime", "runc", "--cgroup-manager", "cgroupfs"];
    cmd.args(global).args(args);
    let out = cmd
        .output()
        .expect("podman (scripts/setup.sh --tests installs it)");
    assert!(
        out.status.success(),
        "podman {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The test's image: a static busybox and its links, imported.
fn image(dir: &Path) {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::create_dir_all(root.join("tmp")).unwrap();
    std::fs::copy("/bin/busybox", root.join("bin/busybox"))
        .expect("a static busybox (busybox-static)");
    for app in ["sh", "cat", "nc", "sleep"] {
        std::os::unix::fs::symlink("busybox", root.join("bin").join(app)).unwrap();
    }
    let tar = dir.join("root.tar");
    let ok = Command::new("tar")
        .arg("-C")
        .arg(&root)
        .arg("-cf")
        .arg(&tar)
        .arg(".")
        .status()
        .unwrap();
    assert!(ok.success());
    podman(&["import", tar.to_str().unwrap(), IMAGE]);
}

/// The actions inside the container (a first open, then a second after
/// the runtime's files had time to be read), and the same on the host
/// (this process). Returns the container's id as `podman inspect`
/// reports it.
fn workload(name: &str, dir: &Path) -> String {
    let script = "echo a > /tmp/a; nc 127.0.0.1 9 </dev/null; sleep 1; echo b > /tmp/b";
    let limits = [
        "--ulimit",
        "nofile=1024:1024",
        "--ulimit",
        "nproc=1024:1024",
    ];
    let mut args = vec!["create", "--name", name, "--network", "none"];
    args.extend(limits);
    args.extend([IMAGE, "/bin/sh", "-c", script]);
    podman(&args);
    let id = podman(&["inspect", "--format", "{{.Id}}", name]);
    podman(&["start", "--attach", name]);
    podman(&["rm", "--force", name]);
    // The host: an open that creates and a connect.
    std::fs::write(dir.join("host-file"), "x").unwrap();
    let _ = std::net::TcpStream::connect("127.0.0.1:9");
    id
}

struct Logged {
    path: PathBuf,
    id: String,
    name: String,
}

fn run(dir: &Path, format: &str) -> Logged {
    let rules = dir.join("ct.rules");
    std::fs::write(&rules, RULES).unwrap();
    let path = dir.join(format!("audit.{format}"));
    let name = format!("fa-test-{format}-{}", std::process::id());
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &path,
        &["--bpf-only", "--format", format],
    );
    let id = workload(&name, dir);
    // The host's connect is the last action: its record written, all are.
    let me = std::process::id();
    wait_until(30, "the host's connect logged", || {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        text.lines().any(|l| {
            l.contains("ct-connect")
                && (l.contains(&format!(" pid={me} ")) || l.contains(&format!("\"pid\":{me},")))
        })
    });
    fa.stop();
    Logged { path, id, name }
}

#[test]
fn container_events_name_their_container_in_enriched_and_json_never_in_raw() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    image(&dir);

    // RAW: the kernel's records only.
    let raw = run(&dir, "raw");
    let text = std::fs::read_to_string(&raw.path).unwrap();
    assert!(
        text.contains("key=\"ct-open\"") && text.contains("exe=\"/bin/busybox\""),
        "{text}"
    );
    assert!(
        !text.contains("CONTAINER") && !text.contains('\x1d'),
        "{text}"
    );

    // ENRICHED: each container event with its id and runtime.
    let enriched = run(&dir, "enriched");
    let text = std::fs::read_to_string(&enriched.path).unwrap();
    let syscalls: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("key=\"ct-"))
        .collect();
    let inside: Vec<&&str> = syscalls
        .iter()
        .filter(|l| l.contains("exe=\"/bin/busybox\""))
        .collect();
    for key in ["ct-exec", "ct-open", "ct-connect"] {
        assert!(
            inside.iter().any(|l| l.contains(&format!("key=\"{key}\""))),
            "a {key} event inside the container: {text}"
        );
    }
    let id = &enriched.id;
    assert_eq!(id.len(), 64, "podman inspect's id: {id}");
    for l in &inside {
        let (_, interp) = l.split_once('\x1d').expect("ENRICHED interpretations");
        assert!(
            interp.contains(&format!(" CONTAINER_ID={id} CONTAINER_RUNTIME=podman ")),
            "{l}"
        );
        // podman's cgroupfs manager: /libpod_parent/libpod-ID.
        assert!(interp.contains(&format!("libpod-{id}\"")), "{l}");
    }
    let named = format!(
        "CONTAINER_NAME=\"{}\" CONTAINER_IMAGE=\"{IMAGE}\"",
        enriched.name
    );
    let last_open = inside
        .iter()
        .rfind(|l| l.contains("key=\"ct-open\""))
        .unwrap();
    assert!(last_open.contains(&named), "{named} in {last_open}");
    // The host's open and connect (this process's): nothing of a container.
    let me = format!(" pid={} ", std::process::id());
    let host: Vec<&&str> = syscalls.iter().filter(|l| l.contains(&me)).collect();
    assert!(host.len() >= 2, "the host's events: {text}");
    for l in &host {
        assert!(!l.contains("CONTAINER") && !l.contains("CGROUP"), "{l}");
    }
    // auditd's tools read the log as before.
    let found = support::daemon_log::ausearch(&enriched.path, &["-k", "ct-connect", "-i"]);
    assert!(found.contains("ct-connect"), "{found}");
    let report = Command::new("aureport")
        .args(["-if"])
        .arg(&enriched.path)
        .args(["--summary", "-k"])
        .output()
        .unwrap();
    assert!(report.status.success(), "{report:?}");
    assert!(String::from_utf8_lossy(&report.stdout).contains("ct-open"));

    // JSON: container, cgroup objects on the container's events only.
    let json = run(&dir, "json");
    let text = std::fs::read_to_string(&json.path).unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &Value| e["SYSCALL"]["key"].to_string().contains("ct-"))
        .collect();
    let inside: Vec<&Value> = events
        .iter()
        .filter(|e| e["SYSCALL"]["exe"] == "/bin/busybox")
        .collect();
    let host: Vec<&Value> = events
        .iter()
        .filter(|e| e["SYSCALL"]["pid"] == std::process::id())
        .collect();
    assert!(inside.len() >= 3 && host.len() >= 2, "{text}");
    for e in &inside {
        assert_eq!(e["container"]["id"], json.id.as_str(), "{e}");
        assert_eq!(e["container"]["runtime"], "podman", "{e}");
        assert!(e["cgroup"]["id"].as_u64().is_some_and(|n| n > 1), "{e}");
        assert!(
            e["cgroup"]["path"]
                .as_str()
                .unwrap_or("")
                .ends_with(&format!("libpod-{}", json.id)),
            "{e}"
        );
    }
    let last = inside.last().unwrap();
    assert_eq!(last["container"]["name"], json.name.as_str(), "{last}");
    assert_eq!(last["container"]["image"], IMAGE, "{last}");
    for e in &host {
        assert!(
            e.get("container").is_none() && e.get("cgroup").is_none(),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
