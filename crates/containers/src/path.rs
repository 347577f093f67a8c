//! A container's id and runtime read from its cgroup's path: each runtime
//! names the cgroup it makes, with systemd's driver (`docker-ID.scope`,
//! `cri-containerd-ID.scope`, `crio-ID.scope`, `libpod-ID.scope`,
//! `nerdctl-ID.scope`) or its own (`/docker/ID`, `/libpod_parent/libpod-ID`,
//! a bare id under `/kubepods/...`). A Kubernetes pod's uid is in the pod's
//! own cgroup above it (`kubepods-besteffort-pod<uid>.slice`, `pod<uid>`).

/// What a cgroup path says of its container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The container's id (64 lower-case hex digits).
    pub id: String,
    /// Its runtime, where the path names it.
    pub runtime: Option<&'static str>,
    /// Its pod's uid, where it is a Kubernetes pod's (dashes restored).
    pub pod_uid: Option<String>,
}

/// Prefixes of a runtime's scope or directory, and the runtime: the
/// container's cgroup only (a runtime's monitor, `libpod-conmon-ID`,
/// `crio-conmon-ID`, is not the container).
const PREFIXES: &[(&str, &str)] = &[
    ("docker-", "docker"),
    ("cri-containerd-", "containerd"),
    ("crio-", "cri-o"),
    ("libpod-", "podman"),
    ("nerdctl-", "containerd"),
];

/// The container the cgroup at `path` is (or is inside: a container's own
/// sub-cgroups, podman's `libpod-ID.scope/container`): the innermost
/// component naming one. `None`: a host cgroup.
pub fn parse(path: &str) -> Option<Found> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let (at, id, runtime) = parts.iter().enumerate().rev().find_map(|(i, part)| {
        let (id, runtime) = component(part, i.checked_sub(1).map(|p| parts[p]))?;
        Some((i, id, runtime))
    })?;
    let pod_uid = parts[..at].iter().rev().find_map(|p| pod_uid(p));
    Some(Found {
        id: id.to_string(),
        runtime,
        pod_uid,
    })
}

/// One component's container id and runtime; `parent` is the component
/// above it (cgroupfs drivers put a bare id under their own directory).
fn component<'a>(part: &'a str, parent: Option<&str>) -> Option<(&'a str, Option<&'static str>)> {
    let name = part.strip_suffix(".scope").unwrap_or(part);
    for (prefix, runtime) in PREFIXES {
        if let Some(id) = name.strip_prefix(prefix).filter(|id| is_id(id)) {
            return Some((id, Some(runtime)));
        }
    }
    if !is_id(name) {
        return None;
    }
    let runtime = match parent {
        Some("docker") => Some("docker"),
        Some("libpod_parent") => Some("podman"),
        _ => None,
    };
    Some((name, runtime))
}

fn is_id(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A pod cgroup's uid: `pod<uid>` (cgroupfs driver) or
/// `kubepods[-QOS]-pod<uid_with_underscores>.slice` (systemd's).
fn pod_uid(part: &str) -> Option<String> {
    let name = part.strip_suffix(".slice").unwrap_or(part);
    let uid = match name.rfind("-pod") {
        Some(at) if name.starts_with("kubepods") => &name[at + 4..],
        _ => name.strip_prefix("pod")?,
    };
    let uid = uid.replace('_', "-");
    let ok = uid.len() == 36 && uid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    ok.then_some(uid)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "da6d254a75379c06743e5a2c1179d3ad116b32fe5296104b68e2e30c6c1858d7";
    const POD: &str = "5f3c2a1e-9b7d-4c1a-8e2f-0a1b2c3d4e5f";

    fn found(path: &str) -> Option<(String, Option<&'static str>, Option<String>)> {
        parse(path).map(|f| (f.id, f.runtime, f.pod_uid))
    }

    #[test]
    fn each_runtime_by_its_scope_or_directory() {
        let cases = [
            (format!("/system.slice/docker-{ID}.scope"), Some("docker")),
            (format!("/docker/{ID}"), Some("docker")),
            (format!("/libpod_parent/libpod-{ID}"), Some("podman")),
            (
                format!("/machine.slice/libpod-{ID}.scope/container"),
                Some("podman"),
            ),
            (format!("/system.slice/crio-{ID}.scope"), Some("cri-o")),
            (
                format!("/system.slice/nerdctl-{ID}.scope"),
                Some("containerd"),
            ),
            (format!("/actions_job/{ID}"), None),
        ];
        for (path, runtime) in cases {
            assert_eq!(found(&path), Some((ID.into(), runtime, None)), "{path}");
        }
    }

    #[test]
    fn a_pod_container_with_its_pod_uid() {
        let systemd = format!(
            "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{}.slice/cri-containerd-{ID}.scope",
            POD.replace('-', "_")
        );
        assert_eq!(
            found(&systemd),
            Some((ID.into(), Some("containerd"), Some(POD.into())))
        );
        let cgroupfs = format!("/kubepods/burstable/pod{POD}/{ID}");
        assert_eq!(found(&cgroupfs), Some((ID.into(), None, Some(POD.into()))));
        let guaranteed = format!(
            "/kubepods.slice/kubepods-pod{}.slice/crio-{ID}.scope",
            POD.replace('-', "_")
        );
        assert_eq!(
            found(&guaranteed),
            Some((ID.into(), Some("cri-o"), Some(POD.into())))
        );
    }

    #[test]
    fn host_cgroups_and_monitors_are_none() {
        for p in [
            "/",
            "",
            "/user.slice/user-0.slice/session-3.scope",
            "/system.slice/docker.service",
            &format!("/machine.slice/libpod-conmon-{ID}.scope"),
            &format!("/system.slice/crio-conmon-{ID}.scope"),
            &format!("/docker/{}", &ID[..63]),
            &format!("/docker/{}", ID.to_uppercase()),
        ] {
            assert_eq!(found(p), None, "{p}");
        }
    }

    #[test]
    fn the_innermost_container_is_the_one() {
        let inner = "ab".repeat(32);
        let nested = format!("/docker/{ID}/docker/{inner}");
        assert_eq!(found(&nested), Some((inner, Some("docker"), None)));
    }

    proptest::proptest! {
        /// Any path: no panic, and an id found is one of its components'.
        #[test]
        fn any_path(p in "(/[-_.a-z0-9]{0,70}){0,6}") {
            if let Some(f) = parse(&p) {
                proptest::prop_assert!(p.contains(&f.id));
                proptest::prop_assert_eq!(f.id.len(), 64);
            }
        }
    }
}
