//! The running kernel's BTF: which functions it has and the prototypes of
//! its tracepoints, for the facts the layouts and names of this kernel
//! decide (the order it takes two names in, io_uring's completion).

use crate::plan::hooks::noted::noted_functions;
use crate::plan::kinds::KernelFunctions;
use crate::plan::syscall_functions::SyscallFunctions;
use std::collections::HashMap;

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

    /// Every function whose name starts with one of `prefixes`, with
    /// its prototype's type id: one pass over the BTF (a lookup by name
    /// is a pass each, and a plan may want hundreds).
    pub(crate) fn functions_starting(&self, prefixes: &[&str]) -> HashMap<String, u32> {
        use libbpf_rs::libbpf_sys as sys;
        // SAFETY: valid BTF.
        let count = unsafe { sys::btf__type_cnt(self.0.as_ptr()) };
        let mut found = HashMap::new();
        for id in 1..count {
            let Some(t) = self.ty(id) else { continue };
            if (t.info >> 24) & 0x1f != sys::BTF_KIND_FUNC {
                continue;
            }
            // SAFETY: libbpf returns NULL or a NUL-terminated string inside the BTF.
            let p = unsafe { sys::btf__name_by_offset(self.0.as_ptr(), t.name_off) };
            if p.is_null() {
                continue;
            }
            // SAFETY: see above.
            let name = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
            if prefixes.iter().any(|x| name.starts_with(x.as_bytes())) {
                // SAFETY: a FUNC's union member is its prototype's type id.
                let proto = unsafe { t.__bindgen_anon_1.type_ };
                found.insert(String::from_utf8_lossy(name).into_owned(), proto);
            }
        }
        found
    }

    /// Whether prototype `proto` takes one argument, a pointer to
    /// (const) `struct pt_regs`: a syscall wrapper's.
    pub(crate) fn takes_only_regs(&self, proto: u32) -> bool {
        use libbpf_rs::libbpf_sys as sys;
        let kind = |t: &sys::btf_type| (t.info >> 24) & 0x1f;
        // SAFETY: pointer, const and volatile types carry a type id.
        let target = |t: &sys::btf_type| unsafe { t.__bindgen_anon_1.type_ };
        let Some(p) = self.ty(proto) else {
            return false;
        };
        if kind(p) != sys::BTF_KIND_FUNC_PROTO || (p.info & 0xffff) != 1 {
            return false;
        }
        // SAFETY: a FUNC_PROTO is followed by vlen (1) btf_param entries.
        let param = unsafe { &*(p as *const sys::btf_type).add(1).cast::<sys::btf_param>() };
        let Some(ptr) = self.ty(param.type_) else {
            return false;
        };
        if kind(ptr) != sys::BTF_KIND_PTR {
            return false;
        }
        let mut id = target(ptr);
        while let Some(t) = self.ty(id) {
            match kind(t) {
                k if k == sys::BTF_KIND_CONST || k == sys::BTF_KIND_VOLATILE => id = target(t),
                k if k == sys::BTF_KIND_STRUCT => return self.name(t.name_off) == "pt_regs",
                _ => return false,
            }
        }
        false
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

    /// The value of `member` of enum `name` (a kernel enum whose values
    /// differ by configuration, such as `cgroup_subsys_id`).
    pub(crate) fn enum_value(&self, name: &str, member: &str) -> Option<i64> {
        use libbpf_rs::libbpf_sys as sys;
        let t = self.ty(self.find(name, sys::BTF_KIND_ENUM)?)?;
        let vlen = (t.info & 0xffff) as usize;
        // SAFETY: an ENUM is followed by vlen btf_enum entries.
        let members = unsafe {
            std::slice::from_raw_parts(
                (t as *const sys::btf_type).add(1).cast::<sys::btf_enum>(),
                vlen,
            )
        };
        members
            .iter()
            .find(|m| self.name(m.name_off) == member)
            .map(|m| i64::from(m.val))
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
pub(crate) fn name_order(btf: Option<&KernelBtf>) -> NameOrder {
    let has = |f: &str| btf.is_some_and(|b| b.has_func(f));
    order_of(crate::plan::syscalls::BUILT_FOR, has)
}

/// Whether this kernel's io_uring preps copy file names without taking
/// them (`struct delayed_filename`, Debian's 7.2 and 7.3; 6.18 has not):
/// then the thread whose attempt issues an op takes its names, in its
/// own context, first, as a syscall does (an io-wq worker's URINGOP
/// names them), and io_uring_enter's context holds only those of the
/// attempts made inline. Before, each prep took its names in the
/// submitter's context, and a worker's lookups filled them in there.
pub(crate) fn uring_delayed_names(btf: Option<&KernelBtf>) -> bool {
    btf.is_some_and(|b| b.struct_size("delayed_filename").is_some())
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

/// The kernel function each syscall of `target` enters here, with its
/// prototype group, from the kernel's BTF (none without one).
pub(crate) fn syscall_functions(target: fastaudit_rules::Target) -> SyscallFunctions {
    let Some(btf) = KernelBtf::load() else {
        return SyscallFunctions::Found(Default::default());
    };
    let prefixes = [
        target.syscall_function_prefix(false),
        target.syscall_function_prefix(true),
        // The compat ABI's own entries (`__ia32_compat_sys_`; arm64's
        // compat prefix is that already).
        compat_prefix(target),
        // What x86's wrappers of syscalls without arguments alias.
        "__do_sys_",
        "__do_compat_sys_",
        crate::plan::syscall_functions::NI_FUNCTION,
    ];
    let found = btf.functions_starting(&prefixes);
    // A syscall's function takes the registers alone (the stubs' bodies
    // read them from the first argument): an inner `__do_sys_X` of a
    // syscall with arguments, if one was not inlined, is not one.
    let usable = |name: &str, proto: u32| {
        name == crate::plan::syscall_functions::NI_FUNCTION || btf.takes_only_regs(proto)
    };
    SyscallFunctions::resolve(target, |name| {
        found.get(name).copied().filter(|&p| usable(name, p))
    })
}

/// The prefix of a target's compat-only syscall entries.
fn compat_prefix(target: fastaudit_rules::Target) -> &'static str {
    if target == fastaudit_rules::Target::AARCH64 {
        "__arm64_compat_sys_"
    } else {
        "__ia32_compat_sys_"
    }
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
