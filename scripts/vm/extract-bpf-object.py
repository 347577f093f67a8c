#!/usr/bin/env python3
"""Write the BPF object a libbpf-cargo skeleton embeds (its `static DATA:
[u8; N] = [...]`) to a file, for bpftool (prog loadall, btf dump, ...).

Usage: extract-bpf-object.py [SKEL_RS] OUT.o
SKEL_RS defaults to the newest target/release/build/fastaudit-bpf-*/out/fastaudit.skel.rs
(else target/debug's).
"""
import glob, os, re, sys

def main():
    args = sys.argv[1:]
    if len(args) == 1:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        found = []
        for profile in ("release", "debug"):
            found = found or glob.glob(os.path.join(root, "target", profile, "build/fastaudit-bpf-*/out/fastaudit.skel.rs"))
        if not found:
            sys.exit("extract-bpf-object.py: no fastaudit.skel.rs under target/ (build first)")
        args = [max(found, key=os.path.getmtime)] + args
    if len(args) != 2:
        sys.exit(__doc__)
    text = open(args[0]).read()
    m = re.search(r"static DATA: \[u8; (\d+)\] = \[(.*?)\];", text, re.S)
    if not m:
        sys.exit("extract-bpf-object.py: no DATA array in " + args[0])
    data = bytes(int(x) for x in m.group(2).replace("\n", " ").split(",") if x.strip())
    assert len(data) == int(m.group(1)), "length mismatch"
    assert data[:4] == b"\x7fELF", "not an ELF object"
    with open(args[1], "wb") as f:
        f.write(data)
    print(f"{args[1]}: {len(data)} bytes from {args[0]}", file=sys.stderr)

main()
