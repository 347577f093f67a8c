//! The LSMs this kernel runs, and where the one whose labels the kernel's
//! audit writes (`subj=`, `obj=`) keeps a task's label.

use crate::host::btf::KernelBtf;
use crate::host::kallsyms::kernel_symbol;
use crate::plan::kinds::{AppArmorBlob, LsmLabels};
use std::path::Path;

/// Who gives the tasks' LSM labels. The kernel's audit takes the first
/// LSM with task contexts; Debian and Ubuntu run AppArmor, whose label
/// fastaudit reads from the credentials' LSM blob. Its offset there is
/// read at the kernel's `apparmor_blob_sizes` where /proc/kallsyms shows
/// it, and worked out from the LSM order and BTF where it does not
/// (kernels built without CONFIG_KALLSYMS_ALL, like Debian 12's arm64).
pub(crate) fn lsm_labels() -> LsmLabels {
    let lsms = active_lsms();
    let apparmor = match lsms {
        Some(l) => l.iter().any(|m| m == "apparmor"),
        // securityfs not mounted: AppArmor's own switch and attribute.
        None => {
            std::fs::read_to_string("/sys/module/apparmor/parameters/enabled")
                .is_ok_and(|v| v.trim() == "Y")
                && Path::new("/proc/self/attr/apparmor/current").exists()
        }
    };
    let other = ["selinux", "smack"].into_iter().find(|m| match lsms {
        Some(l) => l.iter().any(|x| x == m),
        None => *m == "selinux" && Path::new("/sys/fs/selinux/enforce").exists(),
    });
    match (other, apparmor) {
        (Some(m), _) => LsmLabels::Unread(format!("{m} labels are not read")),
        (None, false) => LsmLabels::None,
        (None, true) => {
            if let Some(a) = kernel_symbol("apparmor_blob_sizes") {
                return LsmLabels::AppArmor(AppArmorBlob::SizesAt(a));
            }
            let Some(lsms) = lsms else {
                return LsmLabels::Unread(
                    "AppArmor runs, but neither /proc/kallsyms nor securityfs' LSM list says where its label is"
                        .into(),
                );
            };
            let Some(btf) = KernelBtf::load() else {
                return LsmLabels::Unread(
                    "AppArmor runs, but /proc/kallsyms has no apparmor_blob_sizes and the kernel has no BTF"
                        .into(),
                );
            };
            match apparmor_cred_offset(lsms, |t| btf.struct_size(t)) {
                Ok(off) => LsmLabels::AppArmor(AppArmorBlob::Offset(off)),
                Err(why) => LsmLabels::Unread(format!(
                    "AppArmor runs, /proc/kallsyms has no apparmor_blob_sizes, and {why}"
                )),
            }
        }
    }
}

/// The credential blob each LSM asks for, by the struct the kernel sizes
/// it with (`lbs_cred` in its `lsm_blob_sizes`; the first struct this
/// kernel's BTF has, newest name first), or none. An LSM not listed is
/// unknown: its blob, if any, cannot be accounted for.
const CRED_BLOBS: &[(&str, &[&str])] = &[
    ("capability", &[]),
    ("lockdown", &[]),
    ("yama", &[]),
    ("loadpin", &[]),
    ("safesetid", &[]),
    ("integrity", &[]),
    ("ima", &[]),
    ("evm", &[]),
    ("bpf", &[]),
    ("ipe", &[]),
    // Since 5.3 TOMOYO keeps its domain in the task's blob, not the cred's.
    ("tomoyo", &[]),
    ("landlock", &["landlock_cred_security"]),
    ("selinux", &["cred_security_struct", "task_security_struct"]),
    ("smack", &["task_smack"]),
];

/// AppArmor's offset in the credentials' LSM blob: the kernel gives each
/// LSM, in the order it initialised them (securityfs' `lsm`), the next
/// pointer-aligned offset after the blobs of those before it
/// (security.c's `lsm_set_blob_size`). `size_of` gives a struct's size in
/// this kernel's BTF. Err: why it cannot be known.
pub(crate) fn apparmor_cred_offset(
    lsms: &[String],
    size_of: impl Fn(&str) -> Option<u32>,
) -> Result<u32, String> {
    const ALIGN: u32 = std::mem::size_of::<usize>() as u32;
    let mut offset = 0u32;
    for lsm in lsms {
        if lsm == "apparmor" {
            return Ok(offset.next_multiple_of(ALIGN));
        }
        let Some((_, structs)) = CRED_BLOBS.iter().find(|(name, _)| name == lsm) else {
            return Err(format!(
                "LSM {lsm} runs before AppArmor, whose credential blob size fastaudit does not know"
            ));
        };
        if structs.is_empty() {
            continue;
        }
        let Some(size) = structs.iter().find_map(|s| size_of(s)) else {
            return Err(format!(
                "this kernel's BTF has no {} (LSM {lsm}'s credential blob)",
                structs.join(" or ")
            ));
        };
        if size > 0 {
            offset = offset.next_multiple_of(ALIGN) + size;
        }
    }
    Err("AppArmor is not in the LSM list".into())
}

/// The LSMs this kernel runs, in order (securityfs' `lsm`, mounted if
/// it is not, as systemd does at boot); `None` when unreadable.
pub(crate) fn active_lsms() -> Option<&'static [String]> {
    static LSMS: std::sync::OnceLock<Option<Vec<String>>> = std::sync::OnceLock::new();
    LSMS.get_or_init(|| {
        const LIST: &str = "/sys/kernel/security/lsm";
        if !Path::new(LIST).exists() {
            let _ = nix::mount::mount(
                Some("securityfs"),
                "/sys/kernel/security",
                Some("securityfs"),
                nix::mount::MsFlags::empty(),
                None::<&str>,
            );
        }
        let list = std::fs::read_to_string(LIST).ok()?;
        Some(list.split(',').map(|m| m.trim().to_string()).collect())
    })
    .as_deref()
}

#[cfg(test)]
mod tests {
    use super::apparmor_cred_offset;

    fn list(s: &str) -> Vec<String> {
        s.split(',').map(str::to_string).collect()
    }

    /// Sizes as the kernels' BTF has them: Debian 12's and 13's 6.1/6.12
    /// (landlock 8 bytes) and 6.18 (landlock 11, SELinux's cred struct).
    fn sizes_61(t: &str) -> Option<u32> {
        match t {
            "landlock_cred_security" => Some(8),
            "task_security_struct" => Some(24),
            _ => None,
        }
    }

    #[test]
    fn debians_order_puts_apparmor_after_landlock() {
        // Debian 12's arm64 6.1 in the guest.
        let l = list("lockdown,capability,landlock,yama,apparmor,tomoyo,bpf");
        assert_eq!(apparmor_cred_offset(&l, sizes_61), Ok(8));
        let no_landlock = list("lockdown,capability,yama,apparmor,bpf");
        assert_eq!(apparmor_cred_offset(&no_landlock, sizes_61), Ok(0));
    }

    #[test]
    fn an_odd_sized_blob_is_padded_to_a_pointer() {
        let l = list("capability,landlock,apparmor");
        let sizes = |t: &str| (t == "landlock_cred_security").then_some(11);
        assert_eq!(apparmor_cred_offset(&l, sizes), Ok(16));
    }

    #[test]
    fn the_newer_struct_name_is_taken_first() {
        let l = list("capability,selinux,apparmor");
        let sizes = |t: &str| match t {
            "cred_security_struct" => Some(24),
            "task_security_struct" => Some(112),
            _ => None,
        };
        assert_eq!(apparmor_cred_offset(&l, sizes), Ok(24));
        assert_eq!(apparmor_cred_offset(&l, sizes_61), Ok(24));
    }

    #[test]
    fn what_cannot_be_known_is_said() {
        let unknown = list("capability,mylsm,apparmor");
        let e = apparmor_cred_offset(&unknown, sizes_61).unwrap_err();
        assert!(e.contains("mylsm"), "{e}");
        let no_btf = list("landlock,apparmor");
        let e = apparmor_cred_offset(&no_btf, |_| None).unwrap_err();
        assert!(e.contains("landlock_cred_security"), "{e}");
        assert!(apparmor_cred_offset(&list("landlock,bpf"), sizes_61).is_err());
        // LSMs after AppArmor do not move it.
        let after = list("apparmor,mylsm,landlock");
        assert_eq!(apparmor_cred_offset(&after, |_| None), Ok(0));
    }
}
