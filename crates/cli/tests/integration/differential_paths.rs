//! The differential suite for CWD and PATH (issue 12): the same rules go
//! to the kernel audit (auditd in the foreground writing RAW) and to
//! `fastaudit run --bpf-only`; every record of every event of the
//! workload is compared field for field (SYSCALL's `items=` included),
//! for each name type, creates, deletes, links, renames, symlinks, dirfd
//! and relative paths, watched files deleted and re-created, the exec of
//! a script, and failed lookups. Then ausearch and aureport must give the
//! same answers on both logs.

use fastaudit_testsupport as support;
use fastaudit_testsupport::differential as harness;
use harness::*;
use support::*;
use support::{oracle, target};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// Python without site packages or bytecode writing: fewer opens, none
/// that differ from run to run.
const PY: &str = "/usr/bin/python3 -S -B -c";

/// Run a scenario comparing every record; fails unless both agree and the
/// kernel wrote every `nametype=` in `expected` at least once.
fn check(name: &str, rules: &str, workload: &[&str], expected: &[&str]) {
    let (diffs, events) = run_full(FASTAUDIT, &[], name, rules, workload, &[]);
    assert_agrees(&diffs);
    for want in expected {
        let seen = events
            .iter()
            .flatten()
            .filter(|r| r.ty == "PATH")
            .any(|r| r.fields.iter().any(|(k, v)| k == "nametype" && v == want));
        assert!(
            seen,
            "{name}: the kernel wrote no nametype={want}: {events:?}"
        );
    }
}

#[test]
fn creates_deletes_links_renames_and_symlinks() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "paths-name-types",
        "-a always,exit -F arch=b64 -S open,openat,creat,mkdir,mkdirat,mknodat,unlink,unlinkat,rmdir,rename,renameat,renameat2,link,linkat,symlink,symlinkat -F dir=TREE -k paths\n",
        &[
            "echo x > TREE/sub/a; cat TREE/sub/../sub/a > /dev/null",
            "echo new > TREE/created",
            "mkdir TREE/d",
            "mkfifo TREE/d/fifo",
            "ln TREE/created TREE/d/hard",
            "ln -s ../created TREE/d/soft",
            "mv TREE/d/hard TREE/d/moved",
            "echo v > TREE/victim; mv TREE/created TREE/victim",
            "rm TREE/d/fifo TREE/d/soft TREE/d/moved",
            "rmdir TREE/d",
        ],
        &["NORMAL", "PARENT", "CREATE", "DELETE", "UNKNOWN"],
    );
}

#[test]
fn relative_paths_and_dirfd() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "paths-relative",
        "-a always,exit -F arch=b64 -S openat,mkdirat,unlinkat,renameat,linkat,symlinkat,fchmodat,fchownat -F dir=TREE -k rel\n",
        &[
            "cd TREE && echo a > rel && mkdir rd && mv rel rd/rel2 && ln -s rel2 rd/s && rm rd/s",
            &format!(
                "{PY} 'import os\nd=os.open(\"TREE/sub\", os.O_RDONLY)\nos.close(os.open(\"f\", os.O_CREAT|os.O_WRONLY, 0o644, dir_fd=d))\nos.mkdir(\"m\", dir_fd=d)\nos.rename(\"f\", \"m/g\", src_dir_fd=d, dst_dir_fd=d)\nos.chown(\"m/g\", 0, 0, dir_fd=d)\nos.unlink(\"m/g\", dir_fd=d)\nos.rmdir(\"m\", dir_fd=d)'"
            ),
        ],
        &["NORMAL", "PARENT", "CREATE", "DELETE"],
    );
}

#[test]
fn watched_file_deleted_and_recreated() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "paths-watch",
        "-w TREE/watched -p wa -k watched\n",
        &[
            "echo 1 > TREE/watched",
            "chown 0:0 TREE/watched",
            "rm TREE/watched",
            "echo 2 > TREE/watched",
            "mv TREE/watched TREE/other; echo 3 > TREE/watched",
        ],
        &["NORMAL", "CREATE", "DELETE"],
    );
}

#[test]
fn exec_of_binaries_and_a_script() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "paths-exec",
        "-a always,exit -F arch=b64 -S execve -F dir=TREE -k exec\n-a always,exit -F arch=b64 -S execve -F exe=/usr/bin/true -k true\n",
        &[
            "printf '#!/bin/sh\\nexit 0\\n' > TREE/script; chmod 755 TREE/script; TREE/script",
            "cd TREE && ./script",
            "/usr/bin/true",
        ],
        &["NORMAL"],
    );
}

#[test]
fn failed_lookups_and_refused_objects() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "paths-failed",
        "-a always,exit -F arch=b64 -S openat,mkdir,rmdir,unlink,rename,link,symlink,execve,fchmodat,chmod -F success=0 -k failed\n",
        &[
            "cat TREE/missing",
            "cat TREE/nodir/missing",
            "mkdir TREE/sub",
            "touch TREE/sub/x; rmdir TREE/sub",
            &format!("{PY} 'import os\nfor f in [lambda: os.unlink(\"TREE/sub\"), lambda: os.rename(\"TREE/missing\", \"TREE/y\"), lambda: os.link(\"FILE\", \"TREE/sub/x\"), lambda: os.symlink(\"t\", \"TREE/sub/x\"), lambda: os.open(\"TREE/sub\", os.O_WRONLY), lambda: os.chmod(\"TREE/nodir/x\", 0o600)]:\n  try: f()\n  except OSError: pass'"),
            "chmod 644 FILE; TREE/../file",
            "chmod 600 FILE; setpriv --reuid=65534 --regid=65534 --clear-groups cat FILE",
            "setpriv --reuid=65534 --regid=65534 --clear-groups chmod 666 FILE",
        ],
        &["NORMAL", "PARENT", "DELETE", "UNKNOWN"],
    );
}

#[test]
fn attribute_changes_that_keep_the_attributes() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // The kernel prints the attributes its lookup saw, before the change;
    // BPF sees the inode only after (README: PATH's mode/ouid/ogid of
    // chmod and chown). Changes to the same values agree field for field.
    check(
        "paths-attrs",
        "-a always,exit -F arch=b64 -S fchmodat,fchownat,setxattr,lsetxattr,truncate,utimensat -F dir=TREE -k attrs\n",
        &[
            "echo x > TREE/f; chmod 644 TREE/f; chmod 644 TREE/f",
            "chown 0:0 TREE/f",
            "truncate -s 1 TREE/f",
            "touch TREE/f",
            &format!("{PY} 'import os\nos.setxattr(\"TREE/f\", \"user.k\", b\"v\")'"),
        ],
        &["NORMAL"],
    );
}

#[test]
fn syscalls_on_a_file_descriptor_name_its_file() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // fchmod, fchown and the f*xattr syscalls name the open file
    // (`audit_file()`): one PATH item with `name=(null)`, its attributes
    // before the change (here the same: the changes keep them). A bad
    // descriptor names nothing; a refused change still names the file.
    check(
        "paths-fd",
        "-a always,exit -F arch=b64 -S fchmod,fchown,fsetxattr,fgetxattr,flistxattr,fremovexattr -F key=fd\n",
        &[
            &format!("{PY} 'import os\nfd=os.open(\"TREE/sub/f\", os.O_CREAT|os.O_RDWR, 0o644)\nos.fchmod(fd, 0o644)\nos.fchown(fd, 0, 0)\nos.setxattr(fd, \"user.k\", b\"v\")\nos.getxattr(fd, \"user.k\")\nos.listxattr(fd)\nos.removexattr(fd, \"user.k\")\nos.close(fd)\nfor f in [lambda: os.fchmod(99, 0o600), lambda: os.getxattr(fd, \"user.k\")]:\n  try: f()\n  except OSError: pass'"),
            &format!("{PY} 'import os\nfd=os.open(\"/\", os.O_RDONLY)\ntry: os.removexattr(fd, \"user.none\")\nexcept OSError: pass'"),
            "chmod 644 FILE; setpriv --reuid=65534 --regid=65534 --clear-groups python3 -S -B -c 'import os\nfd=os.open(\"FILE\", os.O_RDONLY)\ntry: os.fchmod(fd, 0o600)\nexcept OSError: pass'",
        ],
        &["NORMAL"],
    );
    // A watch judges the named file too: flistxattr is of the read class,
    // fchmod of the attribute class (on a descriptor opened before).
    check(
        "paths-fd-watch",
        "-w FILE -p ra -k watched\n",
        &[&format!(
            "exec 3<FILE; {PY} 'import os\nos.listxattr(3)\nos.fchmod(3, 0o644)\nos.getxattr(3, \"user.none\")' 3<&3 || true"
        )],
        &["NORMAL"],
    );
}

/// Why the ia32 scenarios are x86_64's alone: arm64's compat ABI (arm) is
/// not reachable from a 64-bit process as `int 0x80` reaches ia32; its
/// calls need a 32-bit program, and a CPU with 32-bit EL0.
const IA32_ELSEWHERE: &str = "a 64-bit process cannot make arm (AArch32) syscalls as x86_64's make ia32 ones with int 0x80; the arm compat ABI needs a 32-bit program (and a CPU with 32-bit EL0)";

/// ia32 syscalls through `int 0x80` from a 64-bit process: `f(nr, a, b,
/// c)` and strings `s(bytes)` placed below 4 GiB.
const PY_IA32: &str = "import ctypes\n\
    libc=ctypes.CDLL(None)\n\
    libc.mmap.restype=ctypes.c_void_p\n\
    libc.mmap.argtypes=[ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\n\
    mem=libc.mmap(None, 16384, 7, 0x22|0x40, -1, 0)\n\
    code=bytes.fromhex(\"5389f889f34189c889d14489c2cd805bc3\")\n\
    ctypes.memmove(mem, code, len(code))\n\
    U=ctypes.c_uint32\n\
    f=ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, U, U, U)(mem)\n\
    at=[4096]\n\
    def s(b):\n\
    \x20 a=mem+at[0]; ctypes.memmove(a, b+b\"\\0\", len(b)+1); at[0]+=len(b)+1; return a\n";

#[test]
fn stats_by_descriptor() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // glibc's fstat is newfstatat(fd, "", AT_EMPTY_PATH): before Linux
    // 6.11 the kernel takes the empty name and names the open file
    // (`name=""`, NORMAL); since, no name. statx by empty path alike. The
    // file is on tmpfs: the VM guests' overlay root gives stat() other
    // devices than the kernel's inodes (docs/kernels.md); descriptor 100
    // keeps the interpreter's own fstats out.
    check(
        "paths-fstat",
        "-a always,exit -F arch=b64 -S newfstatat,statx -F a0=100 -F key=st\n",
        &[&format!(
            "f=$(mktemp -p /dev/shm); {PY} 'import os, ctypes, sys\nfd=os.open(sys.argv[1], os.O_RDONLY)\nos.dup2(fd, 100)\nos.fstat(100)\nlibc=ctypes.CDLL(None)\nbuf=ctypes.create_string_buffer(512)\nlibc.syscall(NR(statx), 100, b\"\", 0x1000, 0x7ff, buf)\nlibc.syscall(NR(newfstatat), 100, b\"\", buf, 0x1000)\nlibc.syscall(NR(newfstatat), 100, b\"\", buf, 0)' \"$f\"; rm -f \"$f\""
        )],
        &[],
    );
}

#[test]
fn ia32_syscalls_name_their_paths() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    if target::skip_unless_x86_64(
        &oracle::current_test(env!("CARGO_CRATE_NAME")),
        IA32_ELSEWHERE,
    ) {
        return;
    }
    let body = "t=s(b\"TREE/sub/a\")\n\
        fd=f(5, t, 0o101, 0o644)\n\
        f(94, fd, 0o644, 0)\n\
        f(6, fd, 0, 0)\n\
        f(15, t, 0o644, 0)\n\
        f(212, t, 0, 0)\n\
        f(39, s(b\"TREE/d\"), 0o755, 0)\n\
        f(38, t, s(b\"TREE/d/b\"), 0)\n\
        f(9, s(b\"TREE/d/b\"), s(b\"TREE/d/h\"), 0)\n\
        f(83, s(b\"b\"), s(b\"TREE/d/l\"), 0)\n\
        f(10, s(b\"TREE/d/b\"), 0, 0)\n\
        f(195, s(b\"FILE\"), mem+12288, 0)\n\
        f(5, s(b\"TREE/missing\"), 0, 0)\n\
        f(12, s(b\"TREE/d\"), 0, 0)\n\
        f(10, s(b\"h\"), 0, 0)\n\
        f(10, s(b\"l\"), 0, 0)\n\
        f(40, s(b\"../d\"), 0, 0)\n";
    check(
        "paths-ia32",
        "-a always,exit -F arch=b32 -S open,close,fchmod,chmod,chown32,mkdir,rename,link,symlink,unlink,rmdir,stat64,chdir -F key=ia32\n",
        &[&format!("{PY} '{PY_IA32}{body}'")],
        &["NORMAL", "PARENT", "CREATE", "DELETE"],
    );
}

#[test]
fn a_failed_exec_after_an_exec_no_rule_judged() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    if target::skip_unless_x86_64(
        &oracle::current_test(env!("CARGO_CRATE_NAME")),
        IA32_ELSEWHERE,
    ) {
        return;
    }
    // The shell's exec of python is saved before it runs (every exec is,
    // where sched_prepare_exec takes the arguments) but no rule judges a
    // native exec: what was saved then must not be taken for python's
    // failed ia32 execs, whose own registers and memory are still there.
    let body = "f(11, s(b\"TREE/no-such-program\"), 0, 0)\n\
        f(11, s(b\"FILE\"), mem+12288, 0)\n";
    check(
        "paths-stale-exec",
        "-a always,exit -F arch=b32 -S execve -F key=stale\n",
        &[&format!("{PY} '{PY_IA32}{body}'")],
        &["NORMAL"],
    );
}

/// The arm compat counterpart of `ia32_syscalls_name_their_paths` on
/// arm64: a static armhf busybox's applets make the 32-bit calls (its C
/// library uses openat and statx, but mkdir, chmod, chown32,
/// link, symlink, rename, unlink and rmdir as such), each run by
/// the native shell, whose forks are followed.
#[test]
fn arm_compat_syscalls_name_their_paths() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let Some(bb) = target::armhf_busybox(&oracle::current_test(env!("CARGO_CRATE_NAME"))) else {
        return;
    };
    let bb = bb.display().to_string();
    let cmds: Vec<String> = [
        "BB touch TREE/sub/a",
        "BB chmod 644 TREE/sub/a",
        "BB chown 0:0 TREE/sub/a",
        "BB mkdir TREE/d",
        "BB ln TREE/sub/a TREE/d/b",
        "BB ln -s b TREE/d/l",
        "BB mv TREE/d/b TREE/d/h",
        "BB cat TREE/missing",
        "BB stat FILE",
        "BB rm TREE/d/h TREE/d/l",
        "BB rmdir TREE/d",
        "BB rmdir TREE/d",
    ]
    .iter()
    .map(|c| c.replace("BB", &bb))
    .collect();
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    check(
        "paths-arm",
        "-a always,exit -F arch=b32 -S open,openat,close,fchmod,chmod,chown32,mkdir,rename,link,symlink,unlink,rmdir,statx,chdir -F key=arm\n",
        &refs,
        &["NORMAL", "PARENT", "CREATE", "DELETE"],
    );
}

/// The arm compat counterpart of `a_failed_exec_after_an_exec_no_rule_judged`
/// on arm64: the native shell's exec of the 32-bit busybox (an aarch64
/// execve the kernel records with the arm arch once the task is 32-bit)
/// is judged by no rule, then the busybox's own execs fail.
#[test]
fn a_failed_arm_exec_after_an_exec_no_rule_judged() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let Some(bb) = target::armhf_busybox(&oracle::current_test(env!("CARGO_CRATE_NAME"))) else {
        return;
    };
    let bb = bb.display().to_string();
    check(
        "paths-arm-stale-exec",
        "-a always,exit -F arch=b32 -S execve -F key=stale\n",
        &[
            &format!("{bb} env TREE/no-such-program"),
            &format!("chmod 644 FILE; {bb} env FILE"),
        ],
        &["NORMAL"],
    );
}

#[test]
fn chdir_and_chroot_name_the_directory_they_reached() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // The directory is gone (removed, renamed) before the event is
    // written: its item still has the inode the lookup found.
    check(
        "paths-chdir",
        "-a always,exit -F arch=b64 -S chdir,chroot,rmdir,rename -k dirs\n",
        &[&format!(
            "{PY} 'import os\nos.mkdir(\"TREE/e\")\nos.mkdir(\"TREE/r\")\nos.chdir(\"TREE/e\")\nos.rmdir(\"../e\")\nos.chroot(\"../r\")\nos.rename(\"/\", \"/x\") if False else None'; mv TREE/r TREE/r2"
        )],
        &["NORMAL", "DELETE"],
    );
}

#[test]
fn a_dir_rule_for_every_syscall_records_only_syscalls_that_name() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Writes, ftruncate and fsync change the file (its times) but name
    // nothing: the kernel's dir= holds only for the syscalls that looked
    // the file up. A never rule after the always one decides nothing.
    check(
        "paths-every-syscall",
        "-a always,exit -F arch=b64 -F dir=TREE -k tree\n-a never,exit -F arch=b64 -F dir=TREE -F uid=1\n",
        &[
            "echo x > TREE/f; echo y >> TREE/f; truncate -s 0 TREE/f",
            &format!("{PY} 'import os\nfd=os.open(\"TREE/f\", os.O_WRONLY)\nos.write(fd, b\"z\")\nos.ftruncate(fd, 0)\nos.fsync(fd)\nos.close(fd)'"),
        ],
        &["NORMAL"],
    );
}
