//! A container's name, image and pod, from the files its runtime keeps
//! for it while it exists (no socket, no API call, no daemon needed up):
//!
//! - Docker: `/var/lib/docker/containers/ID/config.v2.json` (`Name`,
//!   `Config.Image`; a dockershim pod's `io.kubernetes.*` labels).
//! - containerd (Kubernetes' CRI, nerdctl): the task's OCI bundle,
//!   `/run/containerd/io.containerd.runtime.v2.task/NAMESPACE/ID/config.json`,
//!   whose annotations the CRI plugin writes (`io.kubernetes.cri.*`).
//! - containers/storage (podman, CRI-O): its `*-containers/containers.json`
//!   (`names`, the image's name in `metadata`), and the container's
//!   `userdata/config.json`, whose annotations CRI-O writes
//!   (`io.kubernetes.pod.*`, `io.kubernetes.container.name`).
//!
//! Each read is a small local file, once per container (the resolver
//! caches it), on the resolver's own thread.

use crate::path::Found;
use fastaudit_records::workload::{Container, Pod};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where the runtimes keep their files (the defaults; tests point them
/// at a directory of their own).
#[derive(Clone, Debug)]
pub struct Roots {
    /// Docker's per-container directories.
    pub docker: PathBuf,
    /// containerd's task bundles, one directory per namespace.
    pub containerd_tasks: PathBuf,
    /// containers/storage roots (root's graph root and run root).
    pub storage: Vec<PathBuf>,
}

impl Default for Roots {
    fn default() -> Roots {
        Roots {
            docker: "/var/lib/docker/containers".into(),
            containerd_tasks: "/run/containerd/io.containerd.runtime.v2.task".into(),
            storage: vec![
                "/var/lib/containers/storage".into(),
                "/run/containers/storage".into(),
            ],
        }
    }
}

/// One runtime's files: what they say of the container, and the runtime's
/// name where they know it.
type Source = fn(&Roots, &mut Container, &mut Pod) -> Option<&'static str>;

/// The container `found` names, with what its runtime's files say.
pub fn describe(roots: &Roots, found: &Found) -> Container {
    let mut c = Container {
        id: found.id.clone(),
        runtime: found.runtime.unwrap_or("unknown").into(),
        ..Container::default()
    };
    let mut pod = Pod {
        uid: found.pod_uid.clone(),
        ..Pod::default()
    };
    let sources: [Source; 3] = [docker, containerd, storage];
    for source in sources {
        if let Some(runtime) = source(roots, &mut c, &mut pod) {
            if found.runtime.is_none() {
                c.runtime = runtime.into();
            }
            break;
        }
    }
    let any = [&pod.namespace, &pod.name, &pod.uid, &pod.container];
    if any.iter().any(|v| v.is_some()) {
        c.pod = Some(pod);
    }
    c
}

fn read_json(path: &Path) -> Option<Value> {
    let text = std::fs::read(path).ok()?;
    serde_json::from_slice(&text).ok()
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key)?
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Kubernetes' labels, as CRI-O's annotations and dockershim's labels
/// name them.
fn kubernetes_labels(labels: &Value, pod: &mut Pod) {
    pod.namespace = string(labels, "io.kubernetes.pod.namespace").or(pod.namespace.take());
    pod.name = string(labels, "io.kubernetes.pod.name").or(pod.name.take());
    pod.uid = string(labels, "io.kubernetes.pod.uid").or(pod.uid.take());
    pod.container = string(labels, "io.kubernetes.container.name").or(pod.container.take());
}

fn docker(roots: &Roots, c: &mut Container, pod: &mut Pod) -> Option<&'static str> {
    let v = read_json(&roots.docker.join(&c.id).join("config.v2.json"))?;
    c.name = string(&v, "Name").map(|n| n.trim_start_matches('/').to_string());
    let config = v.get("Config");
    c.image = config.and_then(|cfg| string(cfg, "Image"));
    if let Some(labels) = config.and_then(|cfg| cfg.get("Labels")) {
        kubernetes_labels(labels, pod);
    }
    Some("docker")
}

fn containerd(roots: &Roots, c: &mut Container, pod: &mut Pod) -> Option<&'static str> {
    let namespaces = std::fs::read_dir(&roots.containerd_tasks).ok()?;
    let v = namespaces
        .flatten()
        .find_map(|ns| read_json(&ns.path().join(&c.id).join("config.json")))?;
    let a = v.get("annotations")?;
    let cri = |k: &str| string(a, &format!("io.kubernetes.cri.{k}"));
    pod.namespace = cri("sandbox-namespace").or(pod.namespace.take());
    pod.name = cri("sandbox-name").or(pod.name.take());
    pod.uid = cri("sandbox-uid").or(pod.uid.take());
    pod.container = cri("container-name").or(pod.container.take());
    c.image = cri("image-name");
    c.name = string(a, "nerdctl/name").or_else(|| cri("container-name"));
    Some("containerd")
}

fn storage(roots: &Roots, c: &mut Container, pod: &mut Pod) -> Option<&'static str> {
    for root in &roots.storage {
        let Ok(dirs) = std::fs::read_dir(root) else {
            continue;
        };
        // One `DRIVER-containers` directory per storage driver.
        for dir in dirs.flatten() {
            let dir = dir.path();
            let is_containers = dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-containers"));
            if !is_containers {
                continue;
            }
            let Some(Value::Array(list)) = read_json(&dir.join("containers.json")) else {
                continue;
            };
            let Some(entry) = list
                .iter()
                .find(|e| e.get("id").and_then(Value::as_str) == Some(&c.id))
            else {
                continue;
            };
            // `metadata` is a JSON document in a string.
            let meta = string(entry, "metadata")
                .and_then(|m| serde_json::from_str::<Value>(&m).ok())
                .unwrap_or(Value::Null);
            c.name = string(&meta, "name").or_else(|| {
                entry
                    .get("names")
                    .and_then(|n| n.get(0))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
            c.image = string(&meta, "image-name");
            let spec = read_json(&dir.join(&c.id).join("userdata").join("config.json"));
            let annotations = spec.as_ref().and_then(|s| s.get("annotations"));
            let mut runtime = "podman";
            if let Some(a) = annotations {
                if a.get("io.container.manager").and_then(Value::as_str) != Some("libpod") {
                    runtime = "cri-o";
                    kubernetes_labels(a, pod);
                    c.image = string(a, "io.kubernetes.cri-o.ImageName").or(c.image.take());
                    c.name = pod.container.clone().or(c.name.take());
                }
            }
            return Some(runtime);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "a2af2365c54ecd98877cd8fd89002a7e06f7d93ac7e1dba1d5ab49b1f26e920f";

    fn scratch(name: &str) -> (PathBuf, Roots) {
        let dir = std::env::temp_dir().join(format!("fa-meta-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let roots = Roots {
            docker: dir.join("docker"),
            containerd_tasks: dir.join("tasks"),
            storage: vec![dir.join("storage")],
        };
        (dir, roots)
    }

    fn write(path: PathBuf, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn found(runtime: Option<&'static str>) -> Found {
        Found {
            id: ID.into(),
            runtime,
            pod_uid: None,
        }
    }

    #[test]
    fn podman_from_containers_json() {
        let (dir, roots) = scratch("podman");
        // As podman 4.3 wrote it here (only the fields read).
        write(
            roots.storage[0].join("overlay-containers/containers.json"),
            &format!(
                r#"[{{"id":"{ID}","names":["fa-probe"],"metadata":"{{\"image-name\":\"localhost/bb:1\",\"name\":\"fa-probe\"}}"}}]"#
            ),
        );
        write(
            roots.storage[0].join(format!("overlay-containers/{ID}/userdata/config.json")),
            r#"{"annotations":{"io.container.manager":"libpod"}}"#,
        );
        let c = describe(&roots, &found(Some("podman")));
        assert_eq!(
            (c.name.as_deref(), c.image.as_deref()),
            (Some("fa-probe"), Some("localhost/bb:1"))
        );
        assert_eq!(c.runtime, "podman");
        assert_eq!(c.pod, None);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_cri_containerd_pod_from_its_bundle() {
        let (dir, roots) = scratch("containerd");
        write(
            roots
                .containerd_tasks
                .join(format!("k8s.io/{ID}/config.json")),
            r#"{"annotations":{"io.kubernetes.cri.container-name":"api","io.kubernetes.cri.image-name":"registry.local/api:2","io.kubernetes.cri.sandbox-name":"api-7d4","io.kubernetes.cri.sandbox-namespace":"prod","io.kubernetes.cri.sandbox-uid":"5f3c2a1e-9b7d-4c1a-8e2f-0a1b2c3d4e5f"}}"#,
        );
        let c = describe(&roots, &found(None));
        assert_eq!(c.runtime, "containerd");
        assert_eq!(c.image.as_deref(), Some("registry.local/api:2"));
        let p = c.pod.unwrap();
        assert_eq!(
            (
                p.namespace.as_deref(),
                p.name.as_deref(),
                p.container.as_deref()
            ),
            (Some("prod"), Some("api-7d4"), Some("api"))
        );
        assert_eq!(
            p.uid.as_deref(),
            Some("5f3c2a1e-9b7d-4c1a-8e2f-0a1b2c3d4e5f")
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn docker_and_cri_o() {
        let (dir, roots) = scratch("docker");
        write(
            roots.docker.join(format!("{ID}/config.v2.json")),
            r#"{"Name":"/web","Config":{"Image":"nginx:1.27","Labels":{}}}"#,
        );
        let c = describe(&roots, &found(Some("docker")));
        assert_eq!(
            (c.name.as_deref(), c.image.as_deref(), c.runtime.as_str()),
            (Some("web"), Some("nginx:1.27"), "docker")
        );
        std::fs::remove_dir_all(&roots.docker).unwrap();
        write(
            roots.storage[0].join("overlay-containers/containers.json"),
            &format!(r#"[{{"id":"{ID}","names":["k8s_api_api-7d4_prod_0"]}}]"#),
        );
        write(
            roots.storage[0].join(format!("overlay-containers/{ID}/userdata/config.json")),
            r#"{"annotations":{"io.kubernetes.pod.name":"api-7d4","io.kubernetes.pod.namespace":"prod","io.kubernetes.container.name":"api","io.kubernetes.cri-o.ImageName":"registry.local/api:2"}}"#,
        );
        let c = describe(&roots, &found(None));
        assert_eq!(c.runtime, "cri-o");
        assert_eq!(
            (c.name.as_deref(), c.image.as_deref()),
            (Some("api"), Some("registry.local/api:2"))
        );
        assert_eq!(c.pod.unwrap().name.as_deref(), Some("api-7d4"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn nothing_known_keeps_what_the_path_said() {
        let (dir, roots) = scratch("none");
        let f = Found {
            pod_uid: Some("5f3c2a1e-9b7d-4c1a-8e2f-0a1b2c3d4e5f".into()),
            ..found(None)
        };
        let c = describe(&roots, &f);
        assert_eq!((c.runtime.as_str(), c.name.as_deref()), ("unknown", None));
        assert_eq!(c.pod.unwrap().uid, f.pod_uid);
        // A file that is not JSON: the same.
        write(
            roots.docker.join(format!("{ID}/config.v2.json")),
            "{not json",
        );
        assert_eq!(describe(&roots, &found(None)).runtime, "unknown");
        let _ = std::fs::remove_dir_all(dir);
    }
}
