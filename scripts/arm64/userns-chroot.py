#!/usr/bin/env python3
"""userns-chroot.py ROOT CMD [ARG...]: run CMD chrooted in ROOT, an arm64
tree, on this x86_64 machine: arm64 executables run under
qemu-aarch64-static through a binfmt_misc instance private to a new user
namespace (Linux 6.7 and later mount one per user namespace), so the
host's binfmt_misc registrations are neither needed nor changed.

The new user namespace maps ids 0-65535 onto the same host ids (this
process, real root, writes the maps), so files created in ROOT get the
owners the packages want; a new mount namespace keeps the /proc and /dev
mounts private; a new pid namespace ends every process the command left
behind when it exits. Exit status: the command's."""
import ctypes
import os
import shutil
import sys

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
# ELF64, little-endian, e_machine EM_AARCH64 (183): the pattern Debian's
# qemu-user-static registers for aarch64.
MAGIC = r"\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00"
MASK = r"\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff"

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]


def die(msg):
    sys.stderr.write("userns-chroot: %s\n" % msg)
    os._exit(1)


def mount(src, dst, fstype, flags=0):
    if libc.mount(src.encode(), dst.encode(), fstype.encode() if fstype else None, flags, None) != 0:
        die("mount %s on %s: %s" % (src, dst, os.strerror(ctypes.get_errno())))


def in_namespaces(root, cmd):
    """The first process of the new pid namespace: set up and exec."""
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    mount("binfmt_misc", "/proc/sys/fs/binfmt_misc", "binfmt_misc")
    # F: the interpreter is opened now, so it need not exist in ROOT.
    with open("/proc/sys/fs/binfmt_misc/register", "w") as f:
        f.write(":qemu-aarch64:M::%s:%s:%s:OCF" % (MAGIC, MASK, QEMU))
    mount("proc", os.path.join(root, "proc"), "proc")
    for d in ("null", "zero", "full", "random", "urandom", "tty"):
        target = os.path.join(root, "dev", d)
        if os.path.exists(target):
            mount("/dev/" + d, target, None, MS_BIND)
    os.chroot(root)
    os.chdir("/")
    # container=lxc: debootstrap's second stage then neither tests mknod
    # nor makes /dev nodes, which a user namespace may not create.
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
           "container": "lxc"}
    os.execvpe(cmd[0], cmd, env)


if len(sys.argv) < 3:
    sys.exit(__doc__)
root, cmd = os.path.abspath(sys.argv[1]), sys.argv[2:]
QEMU = shutil.which("qemu-aarch64-static") or die("no qemu-aarch64-static (apt install qemu-user-static)")
ready_r, ready_w = os.pipe()
mapped_r, mapped_w = os.pipe()
pid = os.fork()
if pid == 0:
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0:
        die("unshare: %s" % os.strerror(ctypes.get_errno()))
    os.write(ready_w, b"u")
    os.read(mapped_r, 1)  # the parent has written the id maps
    os.setgid(0)
    os.setuid(0)
    child = os.fork()
    if child == 0:
        try:
            in_namespaces(root, cmd)
        except Exception as e:  # any failure before exec: say what
            die(str(e))
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status))
os.read(ready_r, 1)
for name in ("uid_map", "gid_map"):
    with open("/proc/%d/%s" % (pid, name), "w") as f:
        f.write("0 0 65536\n")
os.write(mapped_w, b"m")
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
