#!/usr/bin/env python3
"""Regenerate crates/engine/data/syscall-functions.tsv: the kernel function
each syscall number enters, per ABI, for the fexit/fentry hooks.

A syscall's entry function is the kernel build's own fact: its syscall
tables (arch/x86/entry/syscalls/*.tbl, arm64's) name `sys_X` or
`compat_sys_X` for each number, and the build prefixes it with the ABI's
wrapper (`__x64_`, `__ia32_`, `__arm64_`). The tables are read as Debian's
kernel header packages ship them, generated (`syscalls_64.h`,
`syscalls_32.h`, arm64's `syscall_table_*.h`) or, for older arm64
kernels, as source (`unistd32.h`). Several kernels' tables are merged: a
number whose function was renamed lists every name, newest kernel first,
and the engine takes the first one the running kernel's BTF has.

usage: python3 tools/gen-syscall-functions.py HEADERS_DIR...
  Each HEADERS_DIR is an unpacked linux-headers-VERSION-ARCH (and for
  arm64 before 6.11, linux-headers-VERSION-common) package's
  usr/src/linux-headers-* directory, newest kernel first. Debian's:
  apt-get download linux-headers-7.3.4+deb13-amd64 ...; dpkg-deb -x.
"""
import pathlib
import re
import sys

OUT = (pathlib.Path(__file__).resolve().parent.parent
       / "crates" / "engine" / "data" / "syscall-functions.tsv")

# (ABI, header relative to a headers directory, wrapper prefix, whether
# the compat entry is the ABI's own).
GENERATED = [
    ("x86_64", "arch/x86/include/generated/asm/syscalls_64.h", "__x64_", False),
    ("i386", "arch/x86/include/generated/asm/syscalls_32.h", "__ia32_", True),
    ("aarch64", "arch/arm64/include/generated/asm/syscall_table_64.h", "__arm64_", False),
    ("arm", "arch/arm64/include/generated/asm/syscall_table_32.h", "__arm64_", True),
]
ENTRY = re.compile(r"__SYSCALL(?:_NORETURN)?\((\d+),\s*(\w+)\)"
                   r"|__SYSCALL_WITH_COMPAT\((\d+),\s*(\w+),\s*(\w+)\)")
# arm64's compat table before it was generated (arch/arm64/include/asm/unistd32.h).
OLD_ARM_DEFINE = re.compile(r"#define\s+(__NR_\w+)\s+(\d+)")
OLD_ARM_ENTRY = re.compile(r"__SYSCALL\((__NR_\w+),\s*(\w+)\)")


def generated(path, prefix, own_compat):
    """Number -> function for one generated table (gaps are sys_ni_syscall)."""
    table = {}
    for m in ENTRY.finditer(path.read_text()):
        if m.group(1):
            nr, entry = int(m.group(1)), m.group(2)
        else:
            nr = int(m.group(3))
            entry = m.group(5) if own_compat else m.group(4)
        table[nr] = prefix + entry
    return table


def old_arm(path):
    text = path.read_text()
    numbers = {name: int(nr) for name, nr in OLD_ARM_DEFINE.findall(text)}
    return {numbers[name]: "__arm64_" + entry
            for name, entry in OLD_ARM_ENTRY.findall(text) if name in numbers}


def main(dirs):
    merged = {}  # (abi, nr) -> [functions, newest first]
    per_abi = {}  # abi -> the tables read of it
    sources = []
    for d in map(pathlib.Path, dirs):
        for abi, rel, prefix, own in GENERATED:
            p = d / rel
            if p.exists():
                tables = [(abi, generated(p, prefix, own))]
                sources.append(f"{d.name}/{rel}")
                break
        else:
            p = d / "arch/arm64/include/asm/unistd32.h"
            if not p.exists():
                sys.exit(f"{d}: no syscall table found")
            tables = [("arm", old_arm(p))]
            sources.append(f"{d.name}/arch/arm64/include/asm/unistd32.h")
        # A headers directory has one machine's tables: the 32-bit one too.
        for abi, rel, prefix, own in GENERATED:
            p = d / rel
            if p.exists() and all(a != abi for a, _ in tables):
                tables.append((abi, generated(p, prefix, own)))
                sources.append(f"{d.name}/{rel}")
        for abi, table in tables:
            per_abi.setdefault(abi, []).append(table)
            for nr, fn in table.items():
                if fn.endswith("sys_ni_syscall"):
                    continue
                names = merged.setdefault((abi, nr), [])
                if fn not in names:
                    names.append(fn)
    # A number some kernel does not implement reaches that kernel's
    # sys_ni_syscall (its wrapper of the ABI's): the last name to try, so
    # that a kernel without the syscall still sees its ENOSYS calls, which
    # the kernel's audit records. (arm64 sends a number past its table to
    # do_ni_syscall, not the wrapper: only numbers inside it are seen.)
    ni = {"x86_64": "__x64_sys_ni_syscall", "i386": "__ia32_sys_ni_syscall",
          "aarch64": "__arm64_sys_ni_syscall", "arm": "__arm64_sys_ni_syscall"}
    for abi, tables in per_abi.items():
        numbers = set().union(*tables)
        for nr in numbers:
            if all(nr in t and not t[nr].endswith("sys_ni_syscall") for t in tables):
                continue
            merged.setdefault((abi, nr), []).append(ni[abi])
    order = {abi: i for i, (abi, *_) in enumerate(GENERATED)}
    with OUT.open("w") as f:
        f.write("# generated by tools/gen-syscall-functions.py from " + ", ".join(sources)
                + "; do not edit\n")
        f.write("#abi\tnr\tfunctions (newest kernel's first)\n")
        for (abi, nr) in sorted(merged, key=lambda k: (order[k[0]], k[1])):
            f.write(f"{abi}\t{nr}\t{','.join(merged[(abi, nr)])}\n")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
