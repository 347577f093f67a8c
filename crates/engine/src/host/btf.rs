//! The running kernel's BTF: which functions it has and the prototypes of
//! its tracepoints, for the facts the layouts and names of this kernel
//! decide (the order it takes two names in, io_uring's completion).

use crate::plan::hooks::noted::noted_functions;
use crate::plan::kinds::KernelFunctions;

/// The running kernel's BTF (/sys/kernel/btf/vmlinux), for the functions
/// and tracepoint prototypes it has.
pub(crate) struct KernelBtf(std::ptr::NonNull<libbpf_rs::libbpf_sys::btf>);

impl KernelBtf {
    pub(crate) fn load() -> Option<KernelBtf> {
        // SAFETY: a plain libbpf call; NULL (or an error pointer, which
        // libbpf 1.x does not return) is checked.
        let p = unsafe { libbpf_rs::libbpf_sys::btf__load_vmlinux_btf() };
        if (p as isize) < 0 {
            return None;
        }
        std::ptr::NonNull::new(p).map(KernelBtf)
    }

    pub(crate) fn find(&self, name: &str, kind: u32) -> Option<u32> {
        let c = std::ffi::CString::new(name).ok()?;
        // SAFETY: valid BTF and C string.
        let id = unsafe {
            libbpf_rs::libbpf_sys::btf__find_by_name_kind(self.0.as_ptr(), c.as_ptr(), kind)
        };
        u32::try_from(id).ok()
    }

    pub(crate) fn has_func(&self, name: &str) -> bool {
        self.find(name, libbpf_rs::libbpf_sys::BTF_KIND_FUNC)
            .is_some()
    }

    /// The size of struct `name` in this kernel, if it has one.
    pub(crate) fn struct_size(&self, name: &str) -> Option<u32> {
        let id = self.find(name, libbpf_rs::libbpf_sys::BTF_KIND_STRUCT)?;
        // SAFETY: valid BTF and a type id from it.
        let n = unsafe { libbpf_rs::libbpf_sys::btf__resolve_size(self.0.as_ptr(), id) };
        u32::try_from(n).ok()
    }

    pub(crate) fn ty(&self, id: u32) -> Option<&libbpf_rs::libbpf_sys::btf_type> {
        // SAFETY: libbpf returns NULL or a type inside the BTF, which lives as long as self.
        unsafe { libbpf_rs::libbpf_sys::btf__type_by_id(self.0.as_ptr(), id).as_ref() }
    }

    pub(crate) fn name(&self, off: u32) -> String {
        // SAFETY: libbpf returns NULL or a NUL-terminated string inside the BTF.
        let p = unsafe { libbpf_rs::libbpf_sys::btf__name_by_offset(self.0.as_ptr(), off) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: see above.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    }

    /// Tracepoint `tp`'s arguments (after the leading `void *` of its
    /// `btf_trace_` typedef), each as its type's name, a pointer as the
    /// pointee's name with `*`.
    pub(crate) fn trace_args(&self, tp: &str) -> Option<Vec<String>> {
        use libbpf_rs::libbpf_sys as sys;
        let kind = |t: &sys::btf_type| (t.info >> 24) & 0x1f;
        let vlen = |t: &sys::btf_type| (t.info & 0xffff) as usize;
        // SAFETY: typedef and pointer types (the unions below) carry a type id.
        let target = |t: &sys::btf_type| unsafe { t.__bindgen_anon_1.type_ };
        let typedef = self.ty(self.find(&format!("btf_trace_{tp}"), sys::BTF_KIND_TYPEDEF)?)?;
        let ptr = self.ty(target(typedef))?;
        let proto = self.ty(target(ptr))?;
        if kind(ptr) != sys::BTF_KIND_PTR || kind(proto) != sys::BTF_KIND_FUNC_PROTO {
            return None;
        }
        // SAFETY: a FUNC_PROTO is followed by vlen btf_param entries.
        let params = unsafe {
            std::slice::from_raw_parts(
                (proto as *const sys::btf_type)
                    .add(1)
                    .cast::<sys::btf_param>(),
                vlen(proto),
            )
        };
        let describe = |mut id: u32| {
            let mut stars = "";
            // Modifiers and typedefs are kept by name; one pointer level.
            while let Some(t) = self.ty(id) {
                if kind(t) == sys::BTF_KIND_PTR && stars.is_empty() {
                    stars = "*";
                    id = target(t);
                    continue;
                }
                if matches!(kind(t), k if k == sys::BTF_KIND_CONST || k == sys::BTF_KIND_VOLATILE) {
                    id = target(t);
                    continue;
                }
                return format!("{}{stars}", self.name(t.name_off));
            }
            format!("void{stars}")
        };
        Some(params.iter().skip(1).map(|p| describe(p.type_)).collect())
    }
}

impl Drop for KernelBtf {
    fn drop(&mut self) {
        // SAFETY: loaded by btf__load_vmlinux_btf, freed once.
        unsafe { libbpf_rs::libbpf_sys::btf__free(self.0.as_ptr()) }
    }
}

/// The order a kernel takes the two names of link, symlink and rename in
/// ([`name_order`]); each name's PATH item comes in that
/// order. Default: the new name first, as x86_64's 6.18 and before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NameOrder {
    /// link/linkat take the old name first.
    pub link_old_first: bool,
    /// symlink/symlinkat take the target first.
    pub symlink_target_first: bool,
    /// rename/renameat/renameat2 take the old name first.
    pub rename_old_first: bool,
}

/// The order this kernel's link, symlink and rename syscalls take their
/// two names in, so that their PATH items come in it. Since the VFS's
/// `filename_*at` rework (Debian's 7.2 and 7.3 have it; 6.18 does not)
/// each syscall takes its names in two statements, old first, then calls
/// `filename_linkat`, `filename_symlinkat`, `filename_renameat2`; before,
/// both names were arguments of one call (`do_linkat`, ...), evaluated
/// in the order the kernel's compiler chose: x86_64 builds evaluated them
/// last first (the new name's directory was item 0), arm64 builds first
/// first (seen in Debian's arm64 6.12: linkat's old name, symlinkat's
/// target are item 0). Told from those functions in the kernel's BTF and,
/// without them, from the machine.
pub(crate) fn name_order() -> NameOrder {
    static ORDER: std::sync::OnceLock<NameOrder> = std::sync::OnceLock::new();
    *ORDER.get_or_init(|| {
        let b = KernelBtf::load();
        let has = |f: &str| b.as_ref().is_some_and(|b| b.has_func(f));
        order_of(crate::plan::syscalls::BUILT_FOR, has)
    })
}

/// The name order of a kernel of `target` that has the functions `has`
/// says it has.
fn order_of(target: fastaudit_rules::Target, has: impl Fn(&str) -> bool) -> NameOrder {
    let first_first = target == fastaudit_rules::Target::AARCH64;
    NameOrder {
        link_old_first: first_first || has("filename_linkat"),
        symlink_target_first: first_first || has("filename_symlinkat"),
        rename_old_first: first_first || has("filename_renameat2"),
    }
}

/// Whether this kernel's `io_uring_complete` passes the result as an
/// argument (ctx, req, user_data, res, ...) rather than a CQE pointer,
/// from its BTF prototype (the CQE pointer when unknown).
pub(crate) fn uring_complete_res_arg() -> bool {
    KernelBtf::load()
        .and_then(|b| b.trace_args("io_uring_complete"))
        .is_some_and(|a| a.len() > 3)
}

/// Which of the noted hooks' functions ([`noted_functions`]) this kernel
/// lacks, from its BTF (all of them without one).
pub(crate) fn kernel_functions() -> KernelFunctions {
    let btf = KernelBtf::load();
    KernelFunctions::Missing(
        noted_functions()
            .filter(|f| !btf.as_ref().is_some_and(|b| b.has_func(f)))
            .map(String::from)
            .collect(),
    )
}

#[cfg(test)]
mod order_tests {
    use super::*;
    use fastaudit_rules::Target;

    #[test]
    fn the_older_call_takes_its_names_in_the_compilers_order() {
        let none = |_: &str| false;
        assert_eq!(order_of(Target::X86_64, none), NameOrder::default());
        let all = NameOrder {
            link_old_first: true,
            symlink_target_first: true,
            rename_old_first: true,
        };
        assert_eq!(order_of(Target::AARCH64, none), all);
        // The filename_* rework takes them old first on every machine.
        let reworked = |f: &str| f.starts_with("filename_");
        assert_eq!(order_of(Target::X86_64, reworked), all);
        assert_eq!(order_of(Target::AARCH64, reworked), all);
    }
}
