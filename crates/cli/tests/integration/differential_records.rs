//! The differential suite for the records the kernel writes after SYSCALL
//! (issue 12): EXECVE, BPRM_FCAPS, SOCKADDR, FD_PAIR, MMAP, OPENAT2,
//! CAPSET, KERN_MODULE, each compared field for field with the kernel's
//! (auditd in the foreground writing RAW beside `fastaudit run
//! --bpf-only`, same rules, same workload). Every record fastaudit
//! writes, PATH and CWD included, of every event is compared (only the
//! types it does not write are left out: [`harness::NOT_WRITTEN`]).

use fastaudit_testsupport as support;
use fastaudit_testsupport::differential as harness;
use harness::*;
use support::*;
use support::{oracle, target};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The kernel wrote records of type `ty` for the workload (so agreeing
/// on them means something).
fn kernel_wrote(events: &FullEvents, ty: &str) -> usize {
    events.iter().flatten().filter(|r| r.ty == ty).count()
}

/// Run a scenario comparing every record fastaudit writes; fails unless
/// both agree and the kernel wrote each of `expected` at least once.
fn check(name: &str, rules: &str, workload: &[&str], expected: &[&str]) -> FullEvents {
    check_except(&[], name, rules, workload, expected)
}

/// [`check`], also leaving the record types in `skip` out (with PATH,
/// SYSCALL's `items=`).
fn check_except(
    skip: &[&str],
    name: &str,
    rules: &str,
    workload: &[&str],
    expected: &[&str],
) -> FullEvents {
    let skip: Vec<&str> = NOT_WRITTEN.iter().chain(skip).copied().collect();
    let (diffs, events) = run_full(FASTAUDIT, &skip, name, rules, workload, &[]);
    assert_agrees(&diffs);
    for ty in expected {
        assert!(
            kernel_wrote(&events, ty) > 0,
            "{name}: the kernel wrote no {ty} record: {events:?}"
        );
    }
    events
}

#[test]
fn exec_arguments_of_every_kind() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Spaces, quotes, a newline, non-ASCII, an empty argument, many
    // arguments, and one longer than the kernel's 7500-byte budget (split
    // into hex pieces over several EXECVE records).
    let long = "L".repeat(9000);
    let many: Vec<String> = (0..600).map(|i| format!("arg{i}")).collect();
    let cmds = [
        "/bin/echo plain words".to_string(),
        "/bin/echo 'a b' 'q\"uote' \"it's\" ''".to_string(),
        "/bin/echo \"$(printf 'new\\nline')\" café".to_string(),
        format!("/bin/echo {long}"),
        format!("/bin/echo {}", many.join(" ")),
    ];
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    let events = check(
        "execve-args",
        "-a always,exit -F arch=b64 -S execve -k args\n",
        &refs,
        &["EXECVE", "BPRM_FCAPS"],
    );
    let execve_records = kernel_wrote(&events, "EXECVE");
    assert!(
        execve_records > cmds.len(),
        "long arguments span several EXECVE records: {execve_records}"
    );
}

#[test]
fn exec_through_the_raw_hooks() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "execve-raw",
        "-a always,exit -S execve -k raw\n",
        &["/bin/true one 'two three'", "env /bin/true x"],
        &["EXECVE"],
    );
}

#[test]
fn socket_addresses_passed_and_returned() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // connect/bind on loopback (IPv4, IPv6), unix sockets by path and
    // abstract name, sendto/recvfrom with addresses, accept.
    let py = |code: &str| format!("python3 -c '{code}'");
    let cmds = [
        py("import socket\ns=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)\nc=socket.socket(); c.connect(s.getsockname()); a,_=s.accept()"),
        py("import socket\ns=socket.socket(socket.AF_INET6); s.bind((\"::1\", 0)); s.listen(1)\nc=socket.socket(socket.AF_INET6); c.connect(s.getsockname()); a,_=s.accept()"),
        py("import socket,os\np=os.path.dirname(\"FILE\")+\"/sock\"\ns=socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)\nc=socket.socket(socket.AF_UNIX); c.connect(p); a,_=s.accept()"),
        py("import socket\ns=socket.socket(socket.AF_UNIX); s.bind(\"\\0fa-abstract\"); s.listen(1)\nc=socket.socket(socket.AF_UNIX); c.connect(\"\\0fa-abstract\")"),
        py("import socket\nr=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind((\"127.0.0.1\", 0))\nu=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b\"x\", r.getsockname()); r.recvfrom(10)"),
        py("import socket\nc=socket.socket()\ntry: c.connect((\"127.0.0.1\", 1))\nexcept OSError: pass"),
    ];
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    check(
        "sockaddr",
        "-a always,exit -F arch=b64 -S connect,bind,accept,accept4,sendto,recvfrom -k net\n",
        &refs,
        &["SOCKADDR"],
    );
}

#[test]
fn descriptor_pairs_and_file_mappings() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let cmds = [
        "python3 -c 'import os; os.pipe2(0); os.pipe()'",
        "python3 -c 'import socket; socket.socketpair()'",
        "python3 -c 'import mmap; f=open(\"FILE\", \"rb\"); m=mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)'",
    ];
    check(
        "fd-pair-mmap",
        "-a always,exit -F arch=b64 -S pipe,pipe2,socketpair -k pair\n-a always,exit -F arch=b64 -S mmap -F a3&0x1 -k shared\n",
        &cmds,
        &["FD_PAIR", "MMAP"],
    );
}

#[test]
fn capabilities_set_and_raised() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // capset (setpriv drops capabilities) and execs by root, whose raised
    // effective set the kernel reports as BPRM_FCAPS when it is not full.
    check(
        "capset",
        "-a always,exit -F arch=b64 -S capset,execve -k caps\n",
        &["setpriv --inh-caps=-all --bounding-set=-net_raw /bin/true"],
        &["CAPSET", "EXECVE"],
    );
}

#[test]
fn openat2_how() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    check(
        "openat2",
        "-a always,exit -F arch=b64 -S openat2 -k how\n",
        &["python3 -c 'import ctypes,os,struct\nhow=struct.pack(\"QQQ\", os.O_RDONLY, 0, 4)\nlibc=ctypes.CDLL(None, use_errno=True)\nlibc.syscall(NR(openat2), -100, b\"FILE\", how, len(how))\nlibc.syscall(NR(openat2), -100, b\"/nonexistent\", how, len(how))'"],
        &["OPENAT2"],
    );
}

#[test]
fn signalled_and_traced_tasks() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // kill of a child (TERM, the existence check 0, KILL), a signal the
    // sender may not send (EPERM: the kernel still notes the target), a
    // thread-directed one, and a ptrace attach.
    let cmds = [
        "sleep 5 & kill $!; wait",
        "sleep 5 & kill -0 $!; kill -9 $!; wait",
        "sleep 5 & setpriv --reuid=65534 --regid=65534 --clear-groups kill $!; kill $!; wait",
        "python3 -c 'import os,signal,threading; signal.pthread_kill(threading.get_ident(), 0); os.kill(os.getpid(), 0)'",
        "sleep 5 & python3 -c 'import ctypes,sys; libc=ctypes.CDLL(None); libc.ptrace(16, int(sys.argv[1]), 0, 0)' $!; kill -9 $!; wait",
    ];
    check(
        "obj-pid",
        "-a always,exit -F arch=b64 -S kill,tkill,tgkill -k sig\n-a always,exit -F arch=b64 -S ptrace -k trace\n",
        &cmds,
        &["OBJ_PID"],
    );
}

#[test]
fn socket_address_family_rules() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // saddr_fam= tests the family of the address the syscall passed or
    // got back; a syscall without one matches no saddr_fam test, not even
    // a != one. Each connect is selected by one rule at most: the key
    // tells which held.
    let cmds = [
        "python3 -c 'import socket\ns=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)\nc=socket.socket(); c.connect(s.getsockname())'",
        "python3 -c 'import socket\ns=socket.socket(socket.AF_INET6); s.bind((\"::1\", 0)); s.listen(1)\nc=socket.socket(socket.AF_INET6); c.connect(s.getsockname())'",
        "python3 -c 'import socket\ns=socket.socket(socket.AF_UNIX); s.bind(\"\\0fa-fam\"); s.listen(1)\nc=socket.socket(socket.AF_UNIX); c.connect(\"\\0fa-fam\")'",
        // No address: recvfrom on a connected pair.
        "python3 -c 'import socket\na,b=socket.socketpair(); a.send(b\"x\"); b.recvfrom(4)'",
        "python3 -c 'import socket\nr=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); r.bind((\"::1\", 0))\nu=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u.sendto(b\"x\", r.getsockname())'",
    ];
    let rules =
        "-a always,exit -F arch=b64 -S connect,bind,sendto,recvfrom -F saddr_fam=2 -k inet\n\
         -a always,exit -F arch=b64 -S connect,bind -F saddr_fam=10 -k inet6\n\
         -a always,exit -F arch=b64 -S connect,bind,sendto,recvfrom -F saddr_fam!=1 -k not-local\n\
         -a always,exit -F arch=b64 -S connect,bind -F saddr_fam<=1 -k local\n";
    let outcome = run_scenario_except(FASTAUDIT, NOT_WRITTEN, "saddr-fam", rules, &cmds, &[]);
    assert_agrees(&every_key("saddr-fam", rules, outcome));
}

#[test]
fn ausearch_and_aureport_by_executable() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // `ausearch -x EXE` and `aureport -x --summary` on both logs: the same
    // events (every record fastaudit writes) and the same count, for an
    // executable of the scenario's own.
    let (diffs, _) = run_full_then(
        FASTAUDIT,
        NOT_WRITTEN,
        "tools",
        "-a always,exit -F arch=b64 -S execve,connect -k tools\n",
        &[
            "d=$(dirname FILE); cp /usr/bin/python3 $d/fa-py && $d/fa-py -c 'import socket\ns=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)\nc=socket.socket(); c.connect(s.getsockname())' 'a b'",
            "d=$(dirname FILE); $d/fa-py -c 'pass' x",
        ],
        &[],
        |kernel, ours| {
            let exe = kernel.with_file_name("fa-py");
            tool_diffs(FASTAUDIT, "tools", kernel, ours, &exe, NOT_WRITTEN)
        },
    );
    assert_agrees(&diffs);
}

#[test]
fn exec_of_a_file_with_capabilities() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // The file's own capabilities in BPRM_FCAPS (fver, fp, fe), for root
    // and for an unprivileged user, whose exec they raise.
    check(
        "fcaps",
        "-a always,exit -F arch=b64 -S execve -k exec\n",
        &[
            "d=$(dirname FILE); chmod 755 $d; cp /bin/true $d/captrue && setcap cap_net_raw+ep $d/captrue && $d/captrue",
            "d=$(dirname FILE); setpriv --reuid=65534 --regid=65534 --clear-groups $d/captrue",
        ],
        &["BPRM_FCAPS"],
    );
}

#[test]
fn delete_module_by_root_and_by_an_unprivileged_user() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // KERN_MODULE for root's delete_module of a module that is not loaded
    // (ENOENT after the name is noted), quoted and in hex; none for an
    // unprivileged caller (EPERM before it). A kernel without module
    // support (ENOSYS) writes none at all.
    let call = |name: &str| {
        format!(
            "python3 -c 'import ctypes,os\nlibc=ctypes.CDLL(None, use_errno=True)\nlibc.syscall(NR(delete_module), b\"{name}\", os.O_NONBLOCK)'"
        )
    };
    let cmds = [
        call("fa_no_such_module"),
        call("fa mod\\xe9"),
        format!(
            "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all {}",
            call("fa_no_such_module")
        ),
    ];
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    let modules = std::path::Path::new("/proc/modules").exists();
    check(
        "kern-module",
        "-a always,exit -F arch=b64 -S delete_module -k modules\n",
        &refs,
        if modules { &["KERN_MODULE"] } else { &[] },
    );
}

/// A Python program making raw syscalls through ctypes: `sc(nr, ...)`,
/// the number written `NR(name)` (the harness makes it this machine's)
/// (arguments as `L(n)` longs, `P(addr)` pointers, bytes or buffers),
/// `buf(bytes)` a writable copy, `q(fmt, ...)` a packed buffer.
const PY_SYSCALLS: &str = "import ctypes,os,struct\n\
    libc=ctypes.CDLL(None, use_errno=True)\n\
    sc=libc.syscall\n\
    sc.restype=ctypes.c_long\n\
    L=ctypes.c_long\n\
    P=ctypes.c_void_p\n\
    buf=lambda b: ctypes.create_string_buffer(b, len(b))\n\
    q=lambda f, *v: buf(struct.pack(f, *v))\n";

#[test]
fn posix_message_queues() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // mq_open with and without attributes, invalid ones (noted, then
    // EINVAL), unreadable ones (EFAULT before the note) and a name the
    // kernel refuses after the note (a slash: EACCES); sends and
    // receives with and without a timeout, a priority or timeout refused
    // before the note, a bad descriptor after it; notifications set,
    // removed and unreadable; attributes set, not given, invalid, and
    // the old ones not copied out (EFAULT after the note) or copied over
    // the new ones (one buffer for both: the new ones are noted). The
    // CWD and PATH records of mq_open: a queue created (a hidden parent
    // counted in items=, CREATE with its inode), one found again with
    // and without O_CREAT (NORMAL), refused after it was found (EEXIST,
    // an access mode it refuses), not there (UNKNOWN), a create that
    // fails (CREATE without inode), an empty name (none) and an
    // unprivileged user refused an existing queue (EACCES: NORMAL).
    let body = "N=b\"fa-mq-diff\"\n\
        for n in (N, N+b\"2\", N+b\"3\", N+b\"4\"): sc(L(NR(mq_unlink)), n)\n\
        m=sc(L(NR(mq_open)), N, L(os.O_CREAT|os.O_RDWR), L(0o600), q(\"8q\", 0, 4, 64, 0, 0, 0, 0, 0))\n\
        sc(L(NR(mq_open)), N+b\"2\", L(os.O_CREAT|os.O_RDWR|os.O_EXCL), L(0o640), None)\n\
        ro=sc(L(NR(mq_open)), N, L(os.O_RDONLY), L(0), None)\n\
        sc(L(NR(mq_open)), N, L(os.O_CREAT|os.O_RDWR), L(0o600), P(8))\n\
        sc(L(NR(mq_open)), b\"/fa-slash\", L(os.O_CREAT|os.O_RDWR), L(0), None)\n\
        sc(L(NR(mq_open)), N+b\"3\", L(os.O_CREAT|os.O_RDWR), L(0o600), q(\"8q\", 0, -1, 64, 0, 0, 0, 0, 0))\n\
        sc(L(NR(mq_open)), N, L(os.O_CREAT|os.O_RDWR), L(0o600), None)\n\
        sc(L(NR(mq_open)), N, L(os.O_CREAT|os.O_RDWR|os.O_EXCL), L(0o600), None)\n\
        sc(L(NR(mq_open)), N, L(3), L(0), None)\n\
        sc(L(NR(mq_open)), N+b\"4\", L(os.O_RDONLY), L(0), None)\n\
        sc(L(NR(mq_open)), b\"\", L(os.O_RDONLY), L(0), None)\n\
        os.chdir(\"/tmp\")\n\
        sc(L(NR(mq_open)), N+b\"4\", L(os.O_CREAT|os.O_RDWR|os.O_EXCL), L(0o600), None)\n\
        pid=os.fork()\n\
        if pid == 0:\n os.setuid(65534); sc(L(NR(mq_open)), N+b\"4\", L(os.O_RDWR), L(0), None); os._exit(0)\n\
        os.waitpid(pid, 0)\n\
        ts=q(\"qq\", 1, 5)\n\
        sc(L(NR(mq_timedsend)), L(m), b\"hello\", L(5), L(5), None)\n\
        sc(L(NR(mq_timedsend)), L(m), b\"again\", L(5), L(7), ts)\n\
        sc(L(NR(mq_timedsend)), L(m), b\"x\", L(1), L(40000), None)\n\
        sc(L(NR(mq_timedsend)), L(m), b\"x\", L(1), L(1), q(\"qq\", 1, 2000000000))\n\
        sc(L(NR(mq_timedsend)), L(m), b\"x\", L(1), L(1), P(8))\n\
        sc(L(NR(mq_timedsend)), L(999), b\"x\", L(1), L(1), None)\n\
        sc(L(NR(mq_timedsend)), L(ro), b\"x\", L(1), L(1), None)\n\
        sc(L(NR(mq_timedsend)), L(1), b\"x\", L(1), L(1), None)\n\
        out=ctypes.create_string_buffer(64)\n\
        prio=ctypes.c_uint(0)\n\
        sc(L(NR(mq_timedreceive)), L(m), out, L(64), ctypes.byref(prio), ts)\n\
        sc(L(NR(mq_timedreceive)), L(m), out, L(8), None, None)\n\
        sc(L(NR(mq_notify)), L(m), q(\"qii48x\", 0, 10, 0))\n\
        sc(L(NR(mq_notify)), L(m), None)\n\
        sc(L(NR(mq_notify)), L(m), P(8))\n\
        old=ctypes.create_string_buffer(64)\n\
        sc(L(NR(mq_getsetattr)), L(m), q(\"8q\", os.O_NONBLOCK, 0, 0, 0, 0, 0, 0, 0), old)\n\
        sc(L(NR(mq_getsetattr)), L(m), None, old)\n\
        sc(L(NR(mq_getsetattr)), L(m), q(\"8q\", 1, 0, 0, 0, 0, 0, 0, 0), old)\n\
        sc(L(NR(mq_getsetattr)), L(m), q(\"8q\", 0, 0, 0, 0, 0, 0, 0, 0), P(8))\n\
        both=q(\"8q\", 0, 99, 99, 99, 0, 0, 0, 0)\n\
        sc(L(NR(mq_getsetattr)), L(m), both, both)\n\
        for n in (N, N+b\"2\", N+b\"3\", N+b\"4\"): sc(L(NR(mq_unlink)), n)\n";
    let cmd = format!("python3 -c '{PY_SYSCALLS}{body}'");
    // Those of mq_timedsend and mq_timedreceive (`audit_file`: the
    // queue, `name=(null)`; a send on a read-only descriptor is refused
    // after it, one on a descriptor that is no queue before it) too.
    check(
        "mqueue",
        "-a always,exit -F arch=b64 -S mq_open -k mq\n",
        &[&cmd],
        &["MQ_OPEN", "CWD", "PATH"],
    );
    check(
        "mqueue-ops",
        "-a always,exit -F arch=b64 -S mq_timedsend,mq_timedreceive,mq_notify,mq_getsetattr -k mq\n",
        &[&cmd],
        &["MQ_SENDRECV", "MQ_NOTIFY", "MQ_GETSETATTR", "PATH"],
    );
}

#[test]
fn system_v_ipc_objects() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // A queue created (no IPC: nothing checked), found again by its key
    // (ipcperms: IPC) and not (IPC_EXCL: none); a message sent, received
    // and not there; IPC_STAT, IPC_SET (IPC and IPC_SET_PERM), IPC_SET
    // from an unreadable buffer (none) and of no such queue (none). A
    // semaphore set operated on (also on a semaphore it lacks: EFBIG
    // before the note), read (also a semaphore it lacks: EINVAL after the
    // note), one set (not when out of range or to a negative value: both
    // refused before the note), set and removed; a shared memory segment
    // attached (not at an unaligned address: EINVAL before), locked,
    // unlocked, read and removed while attached. Then an unprivileged user is refused a send (EACCES) and
    // a removal (EPERM), both after the note.
    let root = "K=0x66616970\n\
        old=sc(L(NR(msgget)), L(K), L(0))\n\
        if old >= 0: sc(L(NR(msgctl)), L(old), L(0), None)\n\
        m=sc(L(NR(msgget)), L(K), L(0o1000|0o640))\n\
        sc(L(NR(msgget)), L(K), L(0))\n\
        sc(L(NR(msgget)), L(K), L(0o1000|0o2000|0o600))\n\
        sc(L(NR(msgsnd)), L(m), q(\"q4s\", 1, b\"ping\"), L(4), L(0))\n\
        r=ctypes.create_string_buffer(72)\n\
        sc(L(NR(msgrcv)), L(m), r, L(64), L(0), L(0o4000))\n\
        sc(L(NR(msgrcv)), L(m), r, L(64), L(0), L(0o4000))\n\
        ds=ctypes.create_string_buffer(120)\n\
        sc(L(NR(msgctl)), L(m), L(2), ds)\n\
        struct.pack_into(\"I\", ds, 20, 0o660)\n\
        struct.pack_into(\"Q\", ds, 88, 8192)\n\
        sc(L(NR(msgctl)), L(m), L(1), ds)\n\
        sc(L(NR(msgctl)), L(m), L(1), P(8))\n\
        sc(L(NR(msgctl)), L(0x7ffffff), L(2), ds)\n\
        s=sc(L(NR(semget)), L(0), L(2), L(0o1000|0o600))\n\
        sc(L(NR(semop)), L(s), q(\"HhH\", 0, 1, 0), L(1))\n\
        sc(L(NR(semtimedop)), L(s), q(\"HhH\", 1, 1, 0o4000), L(1), None)\n\
        sc(L(NR(semctl)), L(s), L(0), L(12))\n\
        sc(L(NR(semctl)), L(s), L(5), L(12))\n\
        sc(L(NR(semctl)), L(s), L(0), L(16), L(1))\n\
        sc(L(NR(semctl)), L(s), L(5), L(16), L(1))\n\
        sc(L(NR(semctl)), L(s), L(0), L(16), L(-1))\n\
        sc(L(NR(semop)), L(s), q(\"HhH\", 7, 1, 0), L(1))\n\
        sd=ctypes.create_string_buffer(88)\n\
        sc(L(NR(semctl)), L(s), L(0), L(2), sd)\n\
        struct.pack_into(\"I\", sd, 20, 0o640)\n\
        sc(L(NR(semctl)), L(s), L(0), L(1), sd)\n\
        sc(L(NR(semctl)), L(s), L(0), L(0))\n\
        h=sc(L(NR(shmget)), L(0), L(4096), L(0o1000|0o600))\n\
        a=sc(L(NR(shmat)), L(h), None, L(0))\n\
        sc(L(NR(shmat)), L(h), P(4097), L(0))\n\
        sc(L(NR(shmctl)), L(h), L(11), None)\n\
        sc(L(NR(shmctl)), L(h), L(12), None)\n\
        hd=ctypes.create_string_buffer(112)\n\
        sc(L(NR(shmctl)), L(h), L(2), hd)\n\
        sc(L(NR(shmctl)), L(h), L(0), None)\n\
        sc(L(NR(shmdt)), P(a))\n";
    let nobody = "m=sc(L(NR(msgget)), L(0x66616970), L(0))\n\
        sc(L(NR(msgsnd)), L(m), q(\"q4s\", 1, b\"ping\"), L(4), L(0o4000))\n\
        sc(L(NR(msgctl)), L(m), L(0), None)\n";
    let remove = "m=sc(L(NR(msgget)), L(0x66616970), L(0))\n\
        sc(L(NR(msgctl)), L(m), L(0), None)\n";
    let cmds = [
        format!("python3 -c '{PY_SYSCALLS}{root}'"),
        format!(
            "setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '{PY_SYSCALLS}{nobody}'"
        ),
        format!("python3 -c '{PY_SYSCALLS}{remove}'"),
    ];
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    check(
        "sysv-ipc",
        "-a always,exit -F arch=b64 -S msgget,msgsnd,msgrcv,msgctl,semget,semop,semtimedop,semctl -k ipc\n\
         -a always,exit -F arch=b64 -S shmget,shmat,shmctl,shmdt -k shm\n",
        &refs,
        &["IPC", "IPC_SET_PERM"],
    );
}

/// Whether this kernel loads fexit programs (`fastaudit run --explain`):
/// the NTP values are read by fentry/fexit programs on ntp_adjtimex.
fn fexit_works() -> bool {
    let dir = tempdir();
    let rules = dir.join("adjtimex.rules");
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S adjtimex\n").unwrap();
    let out = std::process::Command::new(FASTAUDIT)
        .args(["run", "--no-config", "--explain", "--rules"])
        .arg(&rules)
        .output()
        .expect("fastaudit run --explain");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("fexit: "), "{out:?}");
    text.contains("fexit: works")
}

#[test]
fn clock_adjustments() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    if !fexit_works() {
        // No function tracer (this project's development host): nothing
        // can read the NTP values the kernel notes (docs/differences.md).
        eprintln!(
            "SKIPPED differential_records::clock_adjustments: this kernel refuses fexit programs"
        );
        return;
    }
    // What the kernel notes only when a value changes. The clock is left
    // as it was: STA_NANO toggled and toggled back (the unit adjtimex
    // reports in, op=status), an offset of 0 (none), +1 ns then -1 ns
    // (TIME_INJOFFSET twice, net nothing), the frequency set to what it is
    // (none), adjtime's read-only query (none), an invalid offset (EINVAL
    // before the note: none); the same through clock_adjtime. ADJ_NANO
    // with an offset sets STA_NANO too: the unit is put back at the end.
    let body = "def tx(modes, freq=0, sec=0, usec=0):\n\
        \x20   b=ctypes.create_string_buffer(208)\n\
        \x20   struct.pack_into(\"I\", b, 0, modes)\n\
        \x20   struct.pack_into(\"q\", b, 16, freq)\n\
        \x20   struct.pack_into(\"qq\", b, 72, sec, usec)\n\
        \x20   return b\n\
        cur=tx(0)\n\
        sc(L(NR(adjtimex)), cur)\n\
        nano=struct.unpack_from(\"i\", cur, 40)[0] & 0x2000\n\
        freq=struct.unpack_from(\"q\", cur, 16)[0]\n\
        away, back = (0x1000, 0x2000) if nano else (0x2000, 0x1000)\n\
        sc(L(NR(adjtimex)), tx(away))\n\
        sc(L(NR(adjtimex)), tx(back))\n\
        sc(L(NR(clock_adjtime)), L(0), tx(away))\n\
        sc(L(NR(clock_adjtime)), L(0), tx(back))\n\
        sc(L(NR(adjtimex)), tx(0x100|0x2000))\n\
        sc(L(NR(adjtimex)), tx(0x100|0x2000, usec=1))\n\
        sc(L(NR(clock_adjtime)), L(0), tx(0x100|0x2000, sec=-1, usec=999999999))\n\
        sc(L(NR(adjtimex)), tx(0x2, freq=freq))\n\
        sc(L(NR(adjtimex)), tx(0xa001))\n\
        sc(L(NR(adjtimex)), tx(0x100|0x2000, usec=2000000000))\n\
        sc(L(NR(adjtimex)), tx(0x2000 if nano else 0x1000))\n";
    let cmd = format!("python3 -c '{PY_SYSCALLS}{body}'");
    check(
        "time",
        "-a always,exit -F arch=b64 -S adjtimex,settimeofday,clock_settime,clock_adjtime -k time-change\n",
        &[&cmd],
        &["TIME_ADJNTPVAL", "TIME_INJOFFSET"],
    );
}

#[test]
fn module_loads_and_unloads() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // A kernel without module support (this project's development host)
    // has nothing to load. A module file: in $FASTAUDIT_TEST_MODULES/RELEASE
    // (the kernel matrix hands one over: virtme-ng hides /lib/modules in
    // its guests), else one modinfo finds that is not loaded.
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let release = release.trim();
    let loaded = std::fs::read_to_string("/proc/modules").unwrap_or_default();
    let is_loaded = |m: &str| loaded.lines().any(|l| l.split(' ').next() == Some(m));
    let handed = std::env::var_os("FASTAUDIT_TEST_MODULES")
        .and_then(|d| std::fs::read_dir(std::path::Path::new(&d).join(release)).ok())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()));
    let found = ["dummy", "veth", "crc7"].into_iter().filter_map(|m| {
        let out = std::process::Command::new("modinfo")
            .args(["-k", release, "-F", "filename", m])
            .output()
            .ok()?;
        let path = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && path.trim().starts_with('/')).then(|| path.trim().into())
    });
    let module: Option<std::path::PathBuf> = handed.chain(found).find(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let stem = name.split('.').next().unwrap_or("");
        !stem.is_empty() && !is_loaded(stem)
    });
    // /proc/modules exists with module support, empty if none is loaded.
    let supported = std::path::Path::new("/proc/modules").exists();
    let Some(module) = module.filter(|_| supported) else {
        eprintln!("module_loads_and_unloads: skipped: this kernel has no module to load (no /proc/modules, or no module file)");
        return;
    };
    let file = module.display().to_string();
    let name = module
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('.').next())
        .unwrap_or("")
        .to_string();
    // insmod's finit_module (the name is the module's own, from its
    // image: noted where the load reaches do_init_module), then rmmod's
    // delete_module.
    let rules = "-a always,exit -F arch=b64 -S init_module,finit_module,delete_module -k mod\n";
    let workload = format!("insmod {file} && rmmod {name}");
    if fexit_works() {
        check("modules", rules, &[&workload], &["KERN_MODULE"]);
    } else {
        // The name is noted by an fentry program on do_init_module: a
        // kernel that refuses trampolines (Debian 12's arm64 6.1) gets no
        // KERN_MODULE, as --explain says; the SYSCALL records still agree.
        fastaudit_testsupport::skipped::say_skipped(
            "differential_records::module_loads_and_unloads (KERN_MODULE only)",
            "this kernel refuses fentry programs",
        );
        check_except(
            &["KERN_MODULE"],
            "modules",
            rules,
            &[&workload],
            &["SYSCALL"],
        );
    }
}

#[test]
fn ia32_socketcall() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    if target::skip_unless_x86_64(
        &oracle::current_test(env!("CARGO_CRATE_NAME")),
        "arm64's compat (arm EABI) table has no socketcall (the kernel's compat entry is sys_ni_syscall), and a 64-bit process cannot make arm syscalls",
    ) {
        return;
    }
    // ia32 socketcall through `int 0x80` from a 64-bit process (the kernel
    // runs it as an ia32 syscall), its argument array below 4 GiB: calls
    // of two to five words, one on a bad descriptor (noted, then EBADF),
    // a call number out of range (EINVAL before the note) and an
    // unreadable array (EFAULT before it). Calls that take or return an
    // address (SOCKADDR, not followed through socketcall) are not made.
    let body = "libc.mmap.restype=P\n\
        libc.mmap.argtypes=[P, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, L]\n\
        mem=libc.mmap(None, 8192, 7, 0x22|0x40, -1, 0)\n\
        code=bytes.fromhex(\"53b86600000089fb89f1cd805bc3\")\n\
        ctypes.memmove(mem, code, len(code))\n\
        f=ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_uint32)(mem)\n\
        args=mem+4096\n\
        def call(n, *a):\n\
        \x20   ctypes.memmove(args, struct.pack(\"%dI\" % len(a), *a), 4*len(a))\n\
        \x20   return f(n, args)\n\
        s=call(1, 2, 1, 0)\n\
        call(4, s, 5)\n\
        call(14, s, 1, 2, args+64, 4)\n\
        ctypes.memmove(args+128, struct.pack(\"I\", 4), 4)\n\
        call(15, s, 1, 2, args+64, args+128)\n\
        call(13, 999, 0)\n\
        call(21, 0)\n\
        f(1, 8)\n";
    let cmd = format!("python3 -c '{PY_SYSCALLS}{body}'");
    check(
        "socketcall",
        "-a always,exit -F arch=b32 -S socketcall -k sc\n",
        &[&cmd],
        &["SOCKETCALL"],
    );
}
