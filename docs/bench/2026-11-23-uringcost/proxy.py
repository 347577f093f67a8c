#!/usr/bin/env python3
"""Run one fastaudit binary as the daemon over the io_uring differential
scenarios; write each scenario's normalized records of the workload."""
import json, os, re, shutil, signal, subprocess, sys, time
fa, bench, out = sys.argv[1], sys.argv[2], sys.argv[3]
global_args = sys.argv[4:]
os.makedirs(out, exist_ok=True)
RULES = "-a always,io_uring -S openat,openat2,connect,renameat,unlinkat,mkdirat,close -k ur\n"
STEPS = ["openat /etc/passwd", "close", "openat DIR/missing", "create DIR/f", "mkdir DIR/d",
         "rename DIR/d DIR/e", "rmdir DIR/e", "unlink DIR/f", "unlink DIR/f", "mkdir DIR",
         "connect 127.0.0.1:1", "statx /etc", "nop"]
SKIP = "-a always,io_uring -S nop,statx,read,openat -k skip\n"
SCEN = [
    ("inline", RULES, STEPS, False, None, []),
    ("async", RULES, ["async " + s for s in STEPS], False, None, []),
    ("sqpoll", RULES, STEPS, True, None, []),
    ("never-first", "-a never,io_uring -S mkdirat\n-a always,io_uring -S connect -F exit=-11 -k eagain\n-a always,io_uring -S all -F success=1 -k all\n", STEPS, False, None, []),
    ("nobody", "-a always,io_uring -S openat,mkdirat,unlinkat -F uid=65534 -k nobody\n-a always,io_uring -S openat -F uid=0 -k root\n",
     ["openat /etc/passwd", "async openat /etc/passwd", "mkdir DIR/n", "rmdir DIR/n"], False, 65534, []),
    ("enter-exit-rule", "-a always,exit -F arch=b64 -S io_uring_enter -F success=1 -k ue\n" + RULES, STEPS, False, None, []),
    ("never-task", "-a never,task -F uid=0\n" + RULES, STEPS, False, None, []),
    ("never-task-other", "-a never,task -F uid=65534\n" + RULES, STEPS, False, None, []),
    ("skipped-default", SKIP, ["nop", "statx /etc", "read /etc/passwd", "openat /etc/passwd"], False, None, []),
    ("skipped-audited", SKIP, ["nop", "statx /etc", "read /etc/passwd", "openat /etc/passwd"], False, None, ["--audit-skipped-uring-ops"]),
]
STRIP = [(re.compile(r"msg=audit\([0-9.:]+\)"), "msg=audit(T)"),
         (re.compile(r"\b(pid|ppid|inode|ses|dev|tty)=\S+"), r"\1=X"),
         (re.compile(r"\bitems=\d+"), lambda m: m.group(0))]
for name, rules, steps, sqpoll, user, extra in SCEN:
    d = f"/tmp/uc/scr-{name}"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d); os.chmod(d, 0o777)
    logs = f"{out}/{name}.logdir"; shutil.rmtree(logs, ignore_errors=True); os.makedirs(logs)
    rf = f"{out}/{name}.rules"; open(rf, "w").write(rules.replace("DIR", d))
    log = f"{logs}/audit.log"
    p = subprocess.Popen([fa, "run", "--no-config", "--rules", rf, "--log", log, "--bpf-only"] + global_args + extra,
                         stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        if line.strip() == "fastaudit: ready":
            break
    job = json.dumps({"work": {"work": "uring-script", "sqpoll": sqpoll,
                               "steps": [s.replace("DIR", d) for s in steps]}, "pin": None})
    cmd = [bench, "bench-worker", job]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rep = json.loads(r.stdout); pid = str(rep["pid"])
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM); p.wait()
    events, order = {}, []
    for l in open(log, errors="replace"):
        m = re.match(r"type=(\S+) msg=audit\(([0-9.]+):(\d+)\)", l)
        if not m or m.group(1) in ("DAEMON_START", "DAEMON_END", "CONFIG_CHANGE"):
            continue
        s = m.group(3)
        if s not in events:
            events[s] = []; order.append(s)
        events[s].append(l.rstrip("\n"))
    keep = []
    for s in order:
        ev = events[s]
        if not any(f" pid={pid} " in x for x in ev) or not any(x.startswith("type=URINGOP") for x in ev):
            continue
        norm = []
        for x in ev:
            x = x.split("\x1d")[0]
            for rx, rep_ in STRIP[:2]:
                x = rx.sub(rep_, x)
            norm.append(x)
        keep.append("\n".join(norm))
    open(f"{out}/{name}.txt", "w").write(f"# results {rep['results']}\n" + "\n--\n".join(keep) + "\n")
    print(name, len(keep), "events", rep["results"])
