//! Container identity against real containers: Debian's podman (with
//! runc, the cgroupfs manager) and Debian's Docker (dockerd and containerd,
//! started by the test when none runs, stopped after) run an image made
//! here by importing a static busybox (nothing is pulled). An exec, an
//! open and a connect inside the container are logged by
//! `fastaudit run --bpf-only` in RAW (podman), ENRICHED and JSON; the same
//! actions of a host process (this one) beside them. ENRICHED and JSON
//! carry the id `inspect` reports, the runtime, and (once the runtime's
//! files were read) the name and image; the host's events and every RAW
//! line carry none; ausearch and aureport still read the ENRICHED log.

use fastaudit_testsupport as support;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
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

/// A container runtime's command line (podman's and docker's verbs are
/// the same).
struct Runtime {
    /// The runtime's name as fastaudit writes it.
    name: &'static str,
    program: &'static str,
    /// Before the verb.
    global: &'static [&'static str],
    /// After `create`.
    create: &'static [&'static str],
    /// The last component of its containers' cgroup paths, before the id.
    cgroup_prefix: &'static str,
}

/// podman as it runs on these machines (setup.sh installs it): runc and
/// cgroupfs (no systemd to ask); the default ulimits are refused here.
const PODMAN: Runtime = Runtime {
    name: "podman",
    program: "podman",
    global: &["--runtime", "runc", "--cgroup-manager", "cgroupfs"],
    create: &[
        "--ulimit",
        "nofile=1024:1024",
        "--ulimit",
        "nproc=1024:1024",
    ],
    cgroup_prefix: "libpod-",
};

/// Debian's docker CLI, for the daemon [`DockerDaemon`] starts.
const DOCKER: Runtime = Runtime {
    name: "docker",
    program: "/usr/bin/docker",
    global: &[],
    create: &[],
    cgroup_prefix: "docker/",
};

impl Runtime {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new(self.program)
            .args(self.global)
            .args(args)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "{} (scripts/setup.sh --tests installs it): {e}",
                    self.program
                )
            });
        assert!(
            out.status.success(),
            "{} {args:?}: {}",
            self.program,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The test's image: a static busybox and its links, imported.
    fn image(&self, dir: &Path) {
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        std::fs::copy("/bin/busybox", root.join("bin/busybox"))
            .expect("a static busybox (busybox-static)");
        for app in ["sh", "cat", "nc", "sleep"] {
            let _ = std::os::unix::fs::symlink("busybox", root.join("bin").join(app));
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
        self.run(&["import", tar.to_str().unwrap(), IMAGE]);
    }

    /// The actions inside a container (a first open, then a second after
    /// the runtime's files had time to be read), and the same on the host
    /// (this process). Returns the container's id as `inspect` reports it.
    fn workload(&self, name: &str, dir: &Path) -> String {
        let script = "echo a > /tmp/a; nc 127.0.0.1 9 </dev/null; sleep 1; echo b > /tmp/b";
        let mut args = vec!["create", "--name", name, "--network", "none"];
        args.extend(self.create);
        args.extend([IMAGE, "/bin/sh", "-c", script]);
        self.run(&args);
        let id = self.run(&["inspect", "--format", "{{.Id}}", name]);
        self.run(&["start", "--attach", name]);
        self.run(&["rm", "--force", name]);
        // The host: an open that creates and a connect.
        std::fs::write(dir.join("host-file"), "x").unwrap();
        let _ = std::net::TcpStream::connect("127.0.0.1:9");
        id
    }

    /// `fastaudit run` in `format` while the workload runs.
    fn logged(&self, dir: &Path, format: &str) -> Logged {
        let rules = dir.join("ct.rules");
        std::fs::write(&rules, RULES).unwrap();
        let path = dir.join(format!("audit.{}.{format}", self.name));
        let name = format!("fa-test-{format}-{}", std::process::id());
        let fa = FastauditRun::start(
            FASTAUDIT,
            &rules,
            &path,
            &["--bpf-only", "--format", format],
        );
        let id = self.workload(&name, dir);
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
        assert_eq!(id.len(), 64, "{} inspect's id: {id}", self.name);
        Logged { path, id, name }
    }

    /// ENRICHED: each container event with its id and runtime, the last
    /// with its name and image; the host's with nothing; auditd's tools
    /// read it.
    fn check_enriched(&self, dir: &Path) {
        let log = self.logged(dir, "enriched");
        let text = std::fs::read_to_string(&log.path).unwrap();
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
                "a {key} event inside the {} container: {text}",
                self.name
            );
        }
        let (id, runtime) = (&log.id, self.name);
        for l in &inside {
            let (_, interp) = l.split_once('\x1d').expect("ENRICHED interpretations");
            assert!(
                interp.contains(&format!(" CONTAINER_ID={id} CONTAINER_RUNTIME={runtime} ")),
                "{l}"
            );
            let cgroup = format!("{}{id}\"", self.cgroup_prefix);
            assert!(interp.contains(&cgroup), "{cgroup} in {l}");
        }
        let named = format!(
            "CONTAINER_NAME=\"{}\" CONTAINER_IMAGE=\"{}\"",
            log.name, IMAGE
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
        let found = support::daemon_log::ausearch(&log.path, &["-k", "ct-connect", "-i"]);
        assert!(found.contains("ct-connect"), "{found}");
        let report = Command::new("aureport")
            .arg("-if")
            .arg(&log.path)
            .args(["--summary", "-k"])
            .output()
            .unwrap();
        assert!(report.status.success(), "{report:?}");
        assert!(String::from_utf8_lossy(&report.stdout).contains("ct-open"));
    }

    /// JSON: `container` and `cgroup` objects on the container's events
    /// only.
    fn check_json(&self, dir: &Path) {
        let log = self.logged(dir, "json");
        let text = std::fs::read_to_string(&log.path).unwrap();
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
        let cgroup = format!("{}{}", self.cgroup_prefix, log.id);
        for e in &inside {
            assert_eq!(e["container"]["id"], log.id.as_str(), "{e}");
            assert_eq!(e["container"]["runtime"], self.name, "{e}");
            assert!(e["cgroup"]["id"].as_u64().is_some_and(|n| n > 1), "{e}");
            let path = e["cgroup"]["path"].as_str().unwrap_or("");
            assert!(path.ends_with(&cgroup), "{e}");
        }
        let last = inside.last().unwrap();
        assert_eq!(last["container"]["name"], log.name.as_str(), "{last}");
        assert_eq!(last["container"]["image"], IMAGE, "{last}");
        for e in &host {
            assert!(
                e.get("container").is_none() && e.get("cgroup").is_none(),
                "{e}"
            );
        }
    }
}

struct Logged {
    path: PathBuf,
    id: String,
    name: String,
}

#[test]
fn podman_container_events_name_their_container_in_enriched_and_json_never_in_raw() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    PODMAN.image(&dir);

    // RAW: the kernel's records only.
    let raw = PODMAN.logged(&dir, "raw");
    let text = std::fs::read_to_string(&raw.path).unwrap();
    assert!(
        text.contains("key=\"ct-open\"") && text.contains("exe=\"/bin/busybox\""),
        "{text}"
    );
    assert!(
        !text.contains("CONTAINER") && !text.contains('\x1d'),
        "{text}"
    );

    PODMAN.check_enriched(&dir);
    PODMAN.check_json(&dir);
    // The image goes too (each run imports it again).
    PODMAN.run(&["rmi", "--force", IMAGE]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// dockerd (and its containerd), started as Debian's docker.io runs on
/// these machines without systemd: no iptables, no bridge, cgroupfs.
/// Stopped on drop. `None` when a dockerd already answers (it is used).
struct DockerDaemon {
    children: Vec<Child>,
}

impl DockerDaemon {
    fn start(dir: &Path) -> DockerDaemon {
        let answers = || {
            Command::new(DOCKER.program)
                .arg("version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let mut children = Vec::new();
        if answers() {
            return DockerDaemon { children };
        }
        let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
        let sock = "/run/containerd/containerd.sock";
        if !Path::new(sock).exists() {
            let containerd = Command::new("containerd")
                .stdout(log("containerd.out"))
                .stderr(log("containerd.err"))
                .spawn()
                .expect("containerd (scripts/setup.sh --tests installs it)");
            children.push(containerd);
            wait_until(30, "containerd's socket", || Path::new(sock).exists());
        }
        let dockerd = Command::new("dockerd")
            .args([
                "--iptables=false",
                "--ip6tables=false",
                "--bridge=none",
                "--exec-opt",
                "native.cgroupdriver=cgroupfs",
                "--containerd",
                sock,
            ])
            .stdout(log("dockerd.out"))
            .stderr(log("dockerd.err"))
            .spawn()
            .expect("dockerd (scripts/setup.sh --tests installs docker.io)");
        // dockerd first when stopping: it stops its containers' shims.
        children.insert(0, dockerd);
        let daemon = DockerDaemon { children };
        wait_until(60, "dockerd answering", answers);
        daemon
    }
}

impl Drop for DockerDaemon {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(c.id() as i32),
                nix::sys::signal::SIGTERM,
            );
            let _ = c.wait();
        }
    }
}

#[test]
fn docker_container_events_name_their_container_in_enriched_and_json() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let daemon = DockerDaemon::start(&dir);
    DOCKER.image(&dir);
    DOCKER.check_enriched(&dir);
    DOCKER.check_json(&dir);
    DOCKER.run(&["rmi", "--force", IMAGE]);
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}
