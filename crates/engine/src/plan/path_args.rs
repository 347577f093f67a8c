//! Where the path arguments of the syscalls a watch can select are, for
//! the BPF side's `path_args` map (failed syscalls are matched by them).

use fastaudit_bpf::types::{fa_path_arg, fa_path_args};
use fastaudit_rules::Target;

/// No dirfd argument: the path is relative to the working directory.
const CWD: u8 = 0xFF;

/// Path arguments of the native syscalls a watch can select (the write,
/// attribute and read classes, opens and execs), as `(dirfd, path)`
/// argument indexes, from their kernel signatures, by their x86_64 names
/// (aarch64's are the same where it has the call: it lacks open, creat,
/// stat, ...). Failed syscalls are
/// judged by these (they change no inode the tracepoints could see).
const PATH_ARGS: &[(&str, &[(u8, u8)])] = &[
    ("open", &[(CWD, 0)]),
    ("execve", &[(CWD, 0)]),
    ("truncate", &[(CWD, 0)]),
    ("rename", &[(CWD, 0), (CWD, 1)]),
    ("mkdir", &[(CWD, 0)]),
    ("rmdir", &[(CWD, 0)]),
    ("creat", &[(CWD, 0)]),
    ("link", &[(CWD, 0), (CWD, 1)]),
    ("unlink", &[(CWD, 0)]),
    ("symlink", &[(CWD, 1)]),
    ("readlink", &[(CWD, 0)]),
    ("chmod", &[(CWD, 0)]),
    ("chown", &[(CWD, 0)]),
    ("lchown", &[(CWD, 0)]),
    ("mknod", &[(CWD, 0)]),
    ("setxattr", &[(CWD, 0)]),
    ("lsetxattr", &[(CWD, 0)]),
    ("getxattr", &[(CWD, 0)]),
    ("lgetxattr", &[(CWD, 0)]),
    ("listxattr", &[(CWD, 0)]),
    ("llistxattr", &[(CWD, 0)]),
    ("removexattr", &[(CWD, 0)]),
    ("lremovexattr", &[(CWD, 0)]),
    ("openat", &[(0, 1)]),
    ("mkdirat", &[(0, 1)]),
    ("mknodat", &[(0, 1)]),
    ("fchownat", &[(0, 1)]),
    ("unlinkat", &[(0, 1)]),
    ("renameat", &[(0, 1), (2, 3)]),
    ("linkat", &[(0, 1), (2, 3)]),
    ("symlinkat", &[(1, 2)]),
    ("readlinkat", &[(0, 1)]),
    ("fchmodat", &[(0, 1)]),
    ("renameat2", &[(0, 1), (2, 3)]),
    ("execveat", &[(0, 1)]),
    ("openat2", &[(0, 1)]),
    ("fchmodat2", &[(0, 1)]),
    ("setxattrat", &[(0, 1)]),
    ("getxattrat", &[(0, 1)]),
    ("listxattrat", &[(0, 1)]),
    ("removexattrat", &[(0, 1)]),
    // Lookups that change nothing: the kernel names their object too
    // (every syscall of an always,task or -S all rule shows them).
    ("stat", &[(CWD, 0)]),
    ("lstat", &[(CWD, 0)]),
    ("newfstatat", &[(0, 1)]),
    ("statx", &[(0, 1)]),
    ("statfs", &[(CWD, 0)]),
    ("access", &[(CWD, 0)]),
    ("faccessat", &[(0, 1)]),
    ("faccessat2", &[(0, 1)]),
    ("chdir", &[(CWD, 0)]),
    ("chroot", &[(CWD, 0)]),
    ("utime", &[(CWD, 0)]),
    ("utimes", &[(CWD, 0)]),
    ("utimensat", &[(0, 1)]),
    ("futimesat", &[(0, 1)]),
];

/// The x86_64 syscalls that name the open file of their descriptor
/// argument 0 without a path: the kernel's `audit_file()` adds it to the
/// names (a PATH item `name=(null)`, and the object the rule fields and
/// watches judge). The message queue ones name only a queue's; mq_open
/// names a queue by its name in the queue file system.
const FD_FILE: &[(&str, fa_path_arg)] = &[
    ("fchmod", fa_path_arg::FA_FD_ANY),
    ("fchown", fa_path_arg::FA_FD_ANY),
    ("fsetxattr", fa_path_arg::FA_FD_ANY),
    ("fgetxattr", fa_path_arg::FA_FD_ANY),
    ("flistxattr", fa_path_arg::FA_FD_ANY),
    ("fremovexattr", fa_path_arg::FA_FD_ANY),
    ("mq_timedsend", fa_path_arg::FA_FD_MQUEUE),
    ("mq_timedreceive", fa_path_arg::FA_FD_MQUEUE),
    // Not a descriptor: a queue's name, and its result the queue's.
    ("mq_open", fa_path_arg::FA_MQ_NAME),
];

/// Whether x86_64 syscall `name` names its descriptor's file (see
/// [`FD_FILE`]); `Some(true)` when only a message queue's.
pub fn names_fd_file(name: &str) -> Option<bool> {
    FD_FILE
        .iter()
        .find(|&&(n, k)| n == name && k != fa_path_arg::FA_MQ_NAME)
        .map(|&(_, k)| k == fa_path_arg::FA_FD_MQUEUE)
}

/// Compat (i386, arm) syscalls that name their paths as the native
/// syscall of another name does (the same arguments, the same lookups);
/// the others that share a native name do as it does.
const COMPAT_AS: &[(&str, &str)] = &[
    ("chown32", "chown"),
    ("lchown32", "lchown"),
    ("fchown32", "fchown"),
    ("oldstat", "stat"),
    ("oldlstat", "lstat"),
    ("stat64", "stat"),
    ("lstat64", "lstat"),
    ("fstatat64", "newfstatat"),
    ("truncate64", "truncate"),
    ("statfs64", "statfs"),
];

/// The native syscall whose names an ABI's syscall `name` takes as it
/// does: `name` itself, or (compat) its native counterpart.
pub fn as_native(name: &str, compat: bool) -> &str {
    if compat {
        if let Some(&(_, native)) = COMPAT_AS.iter().find(|&&(n, _)| n == name) {
            return native;
        }
    }
    name
}

/// Where the names of the x86_64 syscall `name` are, if it names any.
fn args_of(name: &str) -> Option<fa_path_args> {
    if let Some(&(_, kind)) = FD_FILE.iter().find(|&&(n, _)| n == name) {
        return Some(fa_path_args {
            dirfd: [CWD; 2],
            fd0: kind.0 as u8,
            ..fa_path_args::default()
        });
    }
    let &(_, pairs) = PATH_ARGS.iter().find(|&&(n, _)| n == name)?;
    let mut a = fa_path_args {
        n: pairs.len() as u8,
        ..fa_path_args::default()
    };
    for (i, &(d, p)) in pairs.iter().enumerate().take(2) {
        a.dirfd[i] = d;
        a.path[i] = p;
    }
    Some(a)
}

/// The syscalls of an ABI (`compat`: i386, arm) of `target` that name
/// paths or a descriptor's file (whose CWD and PATH records and object
/// fields fastaudit knows), with where their names are.
fn named(target: Target, compat: bool) -> Vec<(u32, fa_path_args)> {
    let m = target.machine(compat);
    if compat {
        m.syscall_names()
            .filter_map(|name| {
                let a = args_of(as_native(name, true))?;
                Some((crate::plan::syscalls::number(m, name), a))
            })
            .collect()
    } else {
        // The tables' own names: some are newer than the syscall table,
        // some (open, creat, ...) not on every machine.
        PATH_ARGS
            .iter()
            .map(|&(name, _)| name)
            .chain(FD_FILE.iter().map(|&(name, _)| name))
            .filter_map(|name| Some((crate::plan::syscalls::lookup(m, name)?, args_of(name)?)))
            .collect()
    }
}

/// The syscalls of an ABI (`compat`: i386, arm) of `target` that name
/// paths or a descriptor's file.
pub fn numbers(target: Target, compat: bool) -> impl Iterator<Item = u32> {
    named(target, compat).into_iter().map(|(nr, _)| nr)
}

/// The `path_args` map: span index (the syscall's number, plus
/// FA_NR_SYSCALLS for the compat ABI's) → where its names are.
pub fn image(target: Target) -> Vec<(u32, fa_path_args)> {
    let compat = named(target, true)
        .into_iter()
        .map(|(nr, a)| (crate::limits::NR_SYSCALLS + nr, a));
    named(target, false).into_iter().chain(compat).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_syscall_has_a_number() {
        let image = image(Target::X86_64);
        let numbers = |compat| numbers(Target::X86_64, compat);
        assert_eq!(
            numbers(false).count(),
            PATH_ARGS.len() + FD_FILE.len(),
            "every x86_64 name is a syscall"
        );
        let fchmod = crate::plan::syscalls::x86_64("fchmod");
        let a = image.iter().find(|(nr, _)| *nr == fchmod).map(|e| e.1);
        assert_eq!(a.map(|a| (a.n, a.fd0)), Some((0, 1)));
        // i386's, above the native ones: its own names and the renamed.
        for (name, want) in [
            ("open", (1, 0xFF, 0)),
            ("chown32", (1, 0xFF, 0)),
            ("fstatat64", (1, 0, 1)),
        ] {
            let nr = crate::limits::NR_SYSCALLS + crate::plan::syscalls::i386(name);
            let a = image.iter().find(|(n, _)| *n == nr).map(|e| e.1);
            assert_eq!(
                a.map(|a| (a.n, a.dirfd[0], a.path[0])),
                Some(want),
                "{name}"
            );
        }
        for &(ia32, _) in COMPAT_AS {
            assert!(
                numbers(true).any(|nr| nr == crate::plan::syscalls::i386(ia32)),
                "{ia32} is an i386 syscall"
            );
        }
        let openat = crate::plan::syscalls::x86_64("openat");
        let a = image.iter().find(|(nr, _)| *nr == openat).map(|e| e.1);
        assert_eq!(a.map(|a| (a.n, a.dirfd[0], a.path[0])), Some((1, 0, 1)));
    }
}
