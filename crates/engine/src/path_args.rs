//! Where the path arguments of the syscalls a watch can select are, for
//! the BPF side's `path_args` map (failed syscalls are matched by them).

use fastaudit_bpf::types::fa_path_args;

/// No dirfd argument: the path is relative to the working directory.
const CWD: u8 = 0xFF;

/// Path arguments of the x86_64 syscalls a watch can select (the write,
/// attribute and read classes, opens and execs), as `(dirfd, path)`
/// argument indexes, from their kernel signatures. Failed syscalls are
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
/// watches judge).
pub const FD_FILE: &[&str] = &[
    "fchmod",
    "fchown",
    "fsetxattr",
    "fgetxattr",
    "flistxattr",
    "fremovexattr",
];

/// The native syscalls that name paths or a descriptor's file (whose
/// PATH records and object fields fastaudit knows).
pub fn numbers() -> impl Iterator<Item = u32> {
    PATH_ARGS
        .iter()
        .map(|&(name, _)| name)
        .chain(FD_FILE.iter().copied())
        .map(crate::syscalls::x86_64)
}

/// The `path_args` map: native syscall number → where its paths are.
pub fn image() -> Vec<(u32, fa_path_args)> {
    let paths = PATH_ARGS.iter().map(|&(name, pairs)| {
        let mut a = fa_path_args {
            n: pairs.len() as u8,
            ..fa_path_args::default()
        };
        for (i, &(d, p)) in pairs.iter().enumerate().take(2) {
            a.dirfd[i] = d;
            a.path[i] = p;
        }
        (crate::syscalls::x86_64(name), a)
    });
    let files = FD_FILE.iter().map(|&name| {
        let a = fa_path_args {
            dirfd: [CWD; 2],
            fd0: 1,
            ..fa_path_args::default()
        };
        (crate::syscalls::x86_64(name), a)
    });
    paths.chain(files).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_syscall_has_a_number() {
        let image = image();
        assert_eq!(image.len(), PATH_ARGS.len() + FD_FILE.len());
        let fchmod = crate::syscalls::x86_64("fchmod");
        let a = image.iter().find(|(nr, _)| *nr == fchmod).map(|e| e.1);
        assert_eq!(a.map(|a| (a.n, a.fd0)), Some((0, 1)));
        let openat = crate::syscalls::x86_64("openat");
        let a = image.iter().find(|(nr, _)| *nr == openat).map(|e| e.1);
        assert_eq!(a.map(|a| (a.n, a.dirfd[0], a.path[0])), Some((1, 0, 1)));
    }
}
