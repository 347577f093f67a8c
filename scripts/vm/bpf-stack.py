#!/usr/bin/env python3
"""Upper bound of each BPF program's combined stack, as kernels before 6.13
check it (check_max_stack_depth: every frame of a call chain rounded up to
32 bytes, bpf_loop callbacks counted as calls, at most 512 bytes; 6.13+
gives tracing programs a private stack per frame instead).

Usage: bpf-stack.py OBJ.o [PROG...]
Frames are measured over all code (dead code included), so the bound is
above what any rule set makes the verifier see. Exit 1 if a program's
bound is above 512 (the chain is printed).
Needs llvm-objdump.
"""
import re, subprocess, sys, functools

def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    obj, only = args[0], set(args[1:])
    tool = next(t for t in ("llvm-objdump", "llvm-objdump-14") if subprocess.run(["which", t], capture_output=True).returncode == 0)
    out = subprocess.run([tool, "-d", "-r", obj], capture_output=True, text=True, check=True).stdout
    section = None
    funcs = {}      # name -> dict(section, start, insns)
    order = []      # (section, start_idx, name)
    cur = None
    last_insn = None
    for line in out.splitlines():
        m = re.match(r"Disassembly of section (.*):", line)
        if m:
            section = m.group(1); cur = None; continue
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if m:
            name = m.group(2)
            if not name.startswith("LBB"):
                cur = {"section": section, "start": int(m.group(1), 16) // 8, "insns": [], "name": name}
                funcs[name] = cur
            continue
        m = re.match(r"^\s+([0-9]+):\s+((?:[0-9a-f]{2}\s){8})\s*(.*)$", line)
        if m and cur is not None:
            idx = int(m.group(1)); raw = bytes.fromhex("".join(m.group(2).split()))
            last_insn = {"idx": idx, "raw": raw, "text": m.group(3), "reloc": None}
            cur["insns"].append(last_insn)
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(R_BPF_\S+)\s+(\S+)", line)
        if m and last_insn is not None:
            last_insn["reloc"] = (m.group(1), m.group(2))
    by_start = {(f["section"], f["start"]): n for n, f in funcs.items()}
    def at(section, idx):
        # the function of `section` containing insn idx
        best = None
        for n, f in funcs.items():
            if f["section"] == section and f["start"] <= idx and (best is None or f["start"] > funcs[best]["start"]):
                best = n
        return best
    stack, edges = {}, {}
    for n, f in funcs.items():
        s = 0
        for i in f["insns"]:
            for m in re.finditer(r"r10 - (\d+)", i["text"]):
                s = max(s, int(m.group(1)))
        stack[n] = s
        e = set()
        for i in f["insns"]:
            op, regs = i["raw"][0], i["raw"][1]
            imm = int.from_bytes(i["raw"][4:8], "little", signed=True)
            if op == 0x85 and (regs >> 4) == 1:      # bpf-to-bpf call
                if i["reloc"] and i["reloc"][1] in funcs:
                    e.add(i["reloc"][1])
                elif i["reloc"]:
                    e.add(at(i["reloc"][1], imm + 1))
                else:
                    e.add(at(f["section"], i["idx"] + imm + 1))
            elif op == 0x18 and i["reloc"] and i["reloc"][0] == "R_BPF_64_64":
                tgt = i["reloc"][1]
                if tgt in funcs and funcs[tgt]["section"] == ".text":
                    e.add(tgt)                      # a callback's address
                elif tgt == ".text":
                    e.add(at(".text", imm // 8))
        edges[n] = {x for x in e if x}
    r32 = lambda v: (max(v, 1) + 31) // 32 * 32
    @functools.lru_cache(None)
    def worst(n):
        best = (0, [])
        for c in edges[n]:
            d, chain = worst(c)
            if d > best[0]:
                best = (d, chain)
        return r32(stack[n]) + best[0], [f"{n}({stack[n]})"] + best[1]
    bad = 0
    for n, f in sorted(funcs.items()):
        if f["section"] == ".text" or f["section"].startswith(".") or (only and n not in only):
            continue
        d, chain = worst(n)
        flag = "OVER" if d > 512 else "ok"
        bad += d > 512
        print(f"{flag}\t{d}\t{n}\t{' > '.join(chain)}")
    sys.exit(1 if bad else 0)

main()
