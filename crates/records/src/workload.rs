//! Where an event's task ran: its cgroup and, when that cgroup is a
//! container's, the container (and its Kubernetes pod). The kernel writes
//! none of it, so RAW never has it; ENRICHED adds it to SYSCALL's and
//! URINGOP's interpretations, upper-case as auditd's own; JSON as
//! top-level `container`, `k8s` and `cgroup` objects (names as Falco and
//! OpenTelemetry use them). docs/records.md and docs/json.md say it.

use crate::enrich::quoted;
use serde_json::{Map, Value};

/// A task's cgroup and what runs there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    /// The cgroup's id (its kernfs id; `cgroup.id` in JSON).
    pub cgroup_id: u64,
    /// Its path in its hierarchy (`None`: not resolved: the cgroup was
    /// gone by then).
    pub cgroup_path: Option<String>,
    /// The container it is (`None`: the cgroup is the host's).
    pub container: Option<Container>,
}

/// A container, as its cgroup and its runtime's own files name it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Container {
    /// Its full id (64 hex digits for every OCI runtime).
    pub id: String,
    /// `docker`, `containerd`, `cri-o`, `podman`, or `unknown` where the
    /// path names no runtime and no runtime's files know the id.
    pub runtime: String,
    /// Its name, where its runtime keeps one.
    pub name: Option<String>,
    /// The image it runs, as its runtime names it.
    pub image: Option<String>,
    /// The Kubernetes pod it belongs to.
    pub pod: Option<Pod>,
}

/// A Kubernetes pod, from the CRI's labels (or the cgroup path's pod uid).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pod {
    /// `K8S_NAMESPACE`.
    pub namespace: Option<String>,
    /// `K8S_POD`.
    pub name: Option<String>,
    /// `K8S_POD_UID`.
    pub uid: Option<String>,
    /// `K8S_CONTAINER`: the container's name in the pod spec.
    pub container: Option<String>,
}

impl Workload {
    /// Its fields in ENRICHED's form, in order, each `NAME=value` (names,
    /// images and paths quoted, or hex where they need it; ids and the
    /// runtime bare), space-separated; empty for a host cgroup.
    pub fn enriched(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let Some(c) = &self.container else {
            // A cgroup gone before its path was read: its id, all there is.
            if self.cgroup_path.is_none() && self.cgroup_id != 0 {
                bare(&mut out, "CGROUP_ID", &self.cgroup_id.to_string());
            }
            return out;
        };
        bare(&mut out, "CONTAINER_ID", &c.id);
        bare(&mut out, "CONTAINER_RUNTIME", &c.runtime);
        text(&mut out, "CONTAINER_NAME", c.name.as_deref());
        text(&mut out, "CONTAINER_IMAGE", c.image.as_deref());
        if let Some(p) = &c.pod {
            text(&mut out, "K8S_NAMESPACE", p.namespace.as_deref());
            text(&mut out, "K8S_POD", p.name.as_deref());
            text(&mut out, "K8S_POD_UID", p.uid.as_deref());
            text(&mut out, "K8S_CONTAINER", p.container.as_deref());
        }
        bare(&mut out, "CGROUP_ID", &self.cgroup_id.to_string());
        text(&mut out, "CGROUP", self.cgroup_path.as_deref());
        out
    }

    /// Its objects added to a JSON event (none for a host cgroup).
    pub fn json_into(&self, o: &mut Map<String, Value>) {
        let Some(c) = &self.container else {
            if self.cgroup_path.is_none() && self.cgroup_id != 0 {
                o.insert("cgroup".into(), cgroup(self));
            }
            return;
        };
        let mut obj = Map::new();
        obj.insert("id".into(), c.id.clone().into());
        obj.insert("runtime".into(), c.runtime.clone().into());
        put(&mut obj, "name", c.name.as_deref());
        put(&mut obj, "image", c.image.as_deref());
        o.insert("container".into(), obj.into());
        if let Some(p) = &c.pod {
            let mut k = Map::new();
            put(&mut k, "namespace", p.namespace.as_deref());
            put(&mut k, "pod", p.name.as_deref());
            put(&mut k, "pod_uid", p.uid.as_deref());
            put(&mut k, "container", p.container.as_deref());
            o.insert("k8s".into(), k.into());
        }
        o.insert("cgroup".into(), cgroup(self));
    }

    /// The ENRICHED line that ends `lines` (from `start`) with these
    /// fields added to its interpretations (after the 0x1D separator,
    /// made here if the record had none).
    pub fn enrich_line(&self, lines: &mut Vec<u8>, start: usize) {
        let fields = self.enriched();
        if fields.is_empty() || lines.len() <= start || lines.last() != Some(&b'\n') {
            return;
        }
        lines.pop();
        let sep = if lines[start..].contains(&0x1d) {
            b' '
        } else {
            0x1d
        };
        lines.push(sep);
        lines.extend_from_slice(&fields);
        lines.push(b'\n');
    }
}

fn cgroup(w: &Workload) -> Value {
    let mut g = Map::new();
    g.insert("id".into(), w.cgroup_id.into());
    put(&mut g, "path", w.cgroup_path.as_deref());
    g.into()
}

fn put(o: &mut Map<String, Value>, name: &str, v: Option<&str>) {
    if let Some(v) = v {
        o.insert(name.into(), v.into());
    }
}

fn sep(out: &mut Vec<u8>) {
    if !out.is_empty() {
        out.push(b' ');
    }
}

/// A value written bare: ids and runtime names (the resolver admits only
/// `[0-9A-Za-z._-]` there; anything else is quoted).
fn bare(out: &mut Vec<u8>, name: &str, value: &str) {
    sep(out);
    if value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && !value.is_empty()
    {
        out.extend_from_slice(name.as_bytes());
        out.push(b'=');
        out.extend_from_slice(value.as_bytes());
    } else {
        quoted(out, name, value);
    }
}

fn text(out: &mut Vec<u8>, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        sep(out);
        quoted(out, name, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "da6d254a75379c06743e5a2c1179d3ad116b32fe5296104b68e2e30c6c1858d7";

    fn podman() -> Workload {
        Workload {
            cgroup_id: 44,
            cgroup_path: Some(format!("/libpod_parent/libpod-{ID}")),
            container: Some(Container {
                id: ID.into(),
                runtime: "podman".into(),
                name: Some("web 1".into()),
                image: Some("localhost/bb:1".into()),
                pod: None,
            }),
        }
    }

    #[test]
    fn a_host_cgroup_adds_nothing() {
        let host = Workload {
            cgroup_id: 9,
            cgroup_path: Some("/user.slice".into()),
            container: None,
        };
        assert!(host.enriched().is_empty());
        let mut o = Map::new();
        host.json_into(&mut o);
        assert!(o.is_empty());
    }

    #[test]
    fn a_container_in_enriched_order() {
        // A name with a space is hex, as the kernel writes untrusted strings.
        let e = String::from_utf8(podman().enriched()).unwrap();
        assert_eq!(
            e,
            format!("CONTAINER_ID={ID} CONTAINER_RUNTIME=podman CONTAINER_NAME=7765622031 CONTAINER_IMAGE=\"localhost/bb:1\" CGROUP_ID=44 CGROUP=\"/libpod_parent/libpod-{ID}\"")
        );
    }

    #[test]
    fn a_pod_and_an_unprintable_name() {
        let mut w = podman();
        let c = w.container.as_mut().unwrap();
        c.name = Some("a\"b".into());
        c.pod = Some(Pod {
            namespace: Some("prod".into()),
            name: Some("api-7d4".into()),
            uid: Some("0f1e-22".into()),
            container: None,
        });
        let e = String::from_utf8(w.enriched()).unwrap();
        assert!(e.contains("CONTAINER_NAME=612262 "), "{e}");
        assert!(
            e.contains(
                "K8S_NAMESPACE=\"prod\" K8S_POD=\"api-7d4\" K8S_POD_UID=\"0f1e-22\" CGROUP_ID"
            ),
            "{e}"
        );
        let mut o = Map::new();
        w.json_into(&mut o);
        assert_eq!(o["k8s"]["pod"], "api-7d4");
        assert_eq!(o["container"]["name"], "a\"b");
        assert_eq!(o["cgroup"]["id"], 44);
    }

    #[test]
    fn the_line_gets_them_after_its_own_interpretations() {
        let mut lines = b"type=CWD msg=audit(1.000:1): cwd=\"/\"\ntype=SYSCALL msg=audit(1.000:2): arch=c000003e\x1dARCH=x86_64\n".to_vec();
        let start = lines.iter().position(|&b| b == b'\n').unwrap() + 1;
        podman().enrich_line(&mut lines, start);
        let text = String::from_utf8(lines).unwrap();
        assert!(text.ends_with(&format!("\x1dARCH=x86_64 CONTAINER_ID={ID} CONTAINER_RUNTIME=podman CONTAINER_NAME=7765622031 CONTAINER_IMAGE=\"localhost/bb:1\" CGROUP_ID=44 CGROUP=\"/libpod_parent/libpod-{ID}\"\n")), "{text}");
        let mut bare_line = b"type=X msg=audit(1.000:2): a=1\n".to_vec();
        podman().enrich_line(&mut bare_line, 0);
        assert!(bare_line.starts_with(b"type=X msg=audit(1.000:2): a=1\x1dCONTAINER_ID="));
    }

    #[test]
    fn a_cgroup_gone_before_its_path_was_read_keeps_its_id() {
        let gone = Workload {
            cgroup_id: 77,
            cgroup_path: None,
            container: None,
        };
        assert_eq!(gone.enriched(), b"CGROUP_ID=77");
        let mut o = Map::new();
        gone.json_into(&mut o);
        assert_eq!(o["cgroup"]["id"], 77);
        assert!(o["cgroup"].get("path").is_none());
    }
}
