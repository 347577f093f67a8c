//! io_uring ops against the kernel: the io_uring list's rules loaded into
//! the kernel (over netlink) and into `fastaudit run --bpf-only`, a ring
//! doing opens (success and failure), connect, rename, unlink, mkdir,
//! inline, with IOSQE_ASYNC and with SQPOLL; every URINGOP record, the
//! CWD and PATH records of ops that name files (inline: in io_uring_enter's
//! event; io-wq: in the op's own), connect's SOCKADDR, and the
//! io_uring_enter SYSCALL (items= included) and PROCTITLE must agree. The
//! harness is in `fastaudit_testsupport::uring`.

use fastaudit_testsupport as support;
use fastaudit_testsupport::uring as harness;
use harness::{run, Scenario};
use support::assert_agrees;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

const RULES: &str = "-a always,io_uring -S openat,openat2,statx,connect,bind,renameat,unlinkat,mkdirat,symlinkat,linkat,close -k ur\n";

/// The same operations, each as given (inline first) or with `prefix`.
fn steps(prefix: &str) -> Vec<String> {
    [
        "openat /etc/passwd",
        "close",
        "openat DIR/missing",
        "create DIR/f",
        "mkdir DIR/d",
        "rename DIR/d DIR/e",
        "rmdir DIR/e",
        "unlink DIR/f",
        "unlink DIR/f",
        "mkdir DIR",
        "connect 127.0.0.1:1",
        "bind 127.0.0.1:0",
        "bind 127.0.0.1:1",
        "statx /etc",
        "nop",
        "openat2 /etc/hostname",
        "create DIR/t",
        "symlink DIR/t DIR/s",
        "link DIR/t DIR/h",
        "unlink DIR/s",
        "unlink DIR/h",
        "unlink DIR/t",
    ]
    .iter()
    .map(|s| format!("{prefix}{s}"))
    .collect()
}

fn scenario<S: AsRef<str>>(
    name: &str,
    rules: &str,
    steps: &[S],
    sqpoll: bool,
    not_compared: &[&str],
) {
    let steps: Vec<&str> = steps.iter().map(AsRef::as_ref).collect();
    let (diffs, results) = run(
        FASTAUDIT,
        &Scenario {
            name,
            rules,
            steps: &steps,
            sqpoll,
            as_user: None,
            not_compared,
        },
    );
    assert_agrees(&diffs);
    assert_eq!(results.len(), steps.len(), "every step ran");
}

#[test]
fn inline_ops_and_their_io_uring_enter() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    scenario("inline", RULES, &steps(""), false, &[]);
}

#[test]
fn forced_async_ops_run_by_io_wq() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    scenario("async", RULES, &steps("async "), false, &[]);
}

#[test]
fn sqpoll_ops() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // A SQPOLL ring's ops take their names outside any audit context, and
    // the thread or worker that runs them adds them named, each lookup
    // an entry of its own.
    scenario("sqpoll", RULES, &steps(""), true, &[]);
}

#[test]
fn sqpoll_names_across_directories_existing_files_and_io_wq() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Each lookup of a SQPOLL ring's op adds an entry of its own: a
    // rename across directories names both, one within a directory only
    // the old name; an O_CREAT open of a file there already names it;
    // refused and failed ops name what their lookups reached; ops forced
    // to io-wq name theirs in the worker's context alike. (What failed
    // ops reached is looked up when the event is written: nothing they
    // name is removed before the workload ends, docs/differences.md.)
    let steps = [
        "mkdir DIR/x",
        "create DIR/x/f",
        "create DIR/x/f",
        "rename DIR/x/f DIR/g",
        "rename DIR/g DIR/x/f",
        "link DIR/x/f DIR/x/l",
        "link DIR/x/missing DIR/x/m",
        "unlink DIR/x/missing",
        "rmdir DIR/x",
        "mkdir DIR/x",
        "openat DIR/none/x",
        "async create DIR/a",
        "async mkdir DIR/y",
        "async rename DIR/a DIR/y/a",
        "async unlink DIR/y/a",
        "async rmdir DIR/y",
    ];
    scenario("sqpoll-names", RULES, &steps, true, &[]);
}

#[test]
fn linked_requests() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Linked chains submitted in one io_uring_enter: names from several
    // preps in its context, a failed link cancelling the rest. (Ops with
    // IOSQE_CQE_SKIP_SUCCESS that succeed in a chain are not followed: no
    // hook sees them end, docs/differences.md.)
    let steps = [
        "chain openat /etc/passwd",
        "close",
        "chain mkdir DIR/l",
        "chain openat DIR/missing",
        "rmdir DIR/l",
        "chain create DIR/c",
        "chain unlink DIR/c",
        "nop",
    ];
    scenario("linked", RULES, &steps, false, &[]);
}

#[test]
fn ops_whose_success_posts_no_completion() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // IOSQE_CQE_SKIP_SUCCESS: an op that succeeds posts no CQE (so no
    // completion tracepoint), one that fails does; the kernel audits the
    // attempt either way. Inline ones alone, several in one
    // io_uring_enter among ops that post theirs, one that fails inline,
    // one retried by io-wq after -EAGAIN that fails there (an open of a
    // missing file). Those that succeed in io-wq are not followed
    // (docs/differences.md): the close is of a file without a flush
    // method, which the kernel closes inline (one with it, as on an
    // overlay or 9p, goes to io-wq).
    let steps = [
        "skip openat /etc/passwd",
        "nop",
        "openat /dev/null",
        "skip close",
        "skip openat DIR/missing",
        "skip openat /etc/passwd",
        "nop",
        "skip bind 127.0.0.1:0",
        "openat /etc/hostname",
        "skip openat /etc/group",
        "skip openat2 /etc/hostname",
    ];
    scenario("skip-success", RULES, &steps, false, &[]);
}

#[test]
fn first_match_never_rules_fields_and_skipped_ops() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // never before always, success/exit of the issue attempt (connect's
    // first attempt returns -EAGAIN), ops the kernel never audits (statx,
    // nop) named by a rule.
    let rules = "-a never,io_uring -S mkdirat\n-a always,io_uring -S connect -F exit=-11 -k eagain\n-a always,io_uring -S all -F success=1 -k all\n";
    scenario("never-first", rules, &steps(""), false, &[]);
}

#[test]
fn credentials_of_an_unprivileged_submitter() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Workers run with the submitter's credentials (taken when queued).
    let rules = "-a always,io_uring -S openat,mkdirat,unlinkat -F uid=65534 -k nobody\n-a always,io_uring -S openat -F uid=0 -k root\n";
    let steps = [
        "openat /etc/passwd",
        "async openat /etc/passwd",
        "mkdir DIR/n",
        "rmdir DIR/n",
    ];
    let (diffs, _) = run(
        FASTAUDIT,
        &Scenario {
            name: "nobody",
            rules,
            steps: &steps,
            sqpoll: false,
            as_user: Some(65534),
            not_compared: &[],
        },
    );
    assert_agrees(&diffs);
}

#[test]
fn skipped_ops_are_audited_only_when_asked_and_ausearch_reads_them() {
    // nop, statx and read are audit_skip ops: the kernel never writes a
    // URINGOP for them, whatever the rules; fastaudit neither, unless run
    // with --audit-skipped-uring-ops.
    let rules = "-a always,io_uring -S nop,statx,read,openat -k skip\n";
    // A file of the test's own, in page cache on a local file system: a
    // read of it completes inline (one that would block, as on 9p or some
    // overlays, is attempted twice: inline, then by io-wq).
    let data = support::tempdir().join("data");
    std::fs::write(&data, b"some bytes\n").unwrap();
    let data = data.display();
    let (read, open) = (format!("read {data}"), format!("openat {data}"));
    let steps = ["nop", "statx /etc", read.as_str(), open.as_str()];
    let (log, pid) = harness::fastaudit_only(FASTAUDIT, rules, &steps, &[]);
    assert_eq!(harness::uring_ops(&log, &pid), ["18"], "{log}");
    let (log, pid) =
        harness::fastaudit_only(FASTAUDIT, rules, &steps, &["--audit-skipped-uring-ops"]);
    // Each op once per attempt: one that cannot complete without blocking
    // (statx, and a read of tmpfs, on Linux 6.1) is attempted inline, then
    // again by io-wq.
    let mut ops = harness::uring_ops(&log, &pid);
    let attempts = ops.len();
    ops.dedup();
    assert_eq!(ops, ["0", "21", "22", "18"], "{log}");
    let file = support::tempdir().join("log");
    std::fs::write(&file, &log).unwrap();
    // ausearch 3.0.9 finds a URINGOP of its own (an io-wq attempt: statx)
    // by type only, not by -k or -p, for the kernel's records as well.
    let ausearch = |args: &[&str]| {
        let out = std::process::Command::new("ausearch")
            .args(["--input", file.to_str().unwrap(), "--format", "raw"])
            .args(args)
            .output()
            .expect("ausearch");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let ours = format!(" pid={pid} ");
    let found = ausearch(&["-m", "URINGOP"]);
    let n = found
        .lines()
        .filter(|l| l.starts_with("type=URINGOP") && l.contains(&ours))
        .count();
    assert_eq!(n, attempts, "{found}");
    // The attempts made inside io_uring_enter share its SYSCALL's event.
    let serial = |l: &str| {
        let stamp = l.split_once("msg=audit(")?.1;
        stamp.split_once("):").map(|(s, _)| s.to_string())
    };
    let enter: Vec<String> = log
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL") && l.contains(&ours))
        .filter_map(serial)
        .collect();
    let inline = log
        .lines()
        .filter(|l| l.starts_with("type=URINGOP"))
        .filter(|l| serial(l).is_some_and(|s| enter.contains(&s)))
        .count();
    assert!(inline >= 3, "{log}");
    let found = ausearch(&["-k", "skip", "-p", &pid]);
    assert_eq!(
        found.matches("type=URINGOP").count(),
        inline,
        "the inline ones by key and pid, with their SYSCALL: {found}"
    );
}

#[test]
fn ops_retried_after_a_poll() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // A connect to a listening loopback port: its inline attempt returns
    // -EAGAIN (the nonblocking connect's EINPROGRESS) and the poll
    // io_uring then arms finds the socket connected at once, so the
    // retry is queued as task work. Submitted by an io_uring_enter that
    // does not wait (`nowait`, as liburing's io_uring_submit), the retry
    // runs as that syscall returns, after its audit: the kernel records
    // the inline attempt in io_uring_enter's event (its SYSCALL, the
    // SOCKADDR, PROCTITLE) and the retry in an event of its own. When the
    // io_uring_enter waits, the retry runs inside it. An accept that
    // waits for its connection arms its poll and is retried when the
    // connection comes: inside the io_uring_enter that waits for it (the
    // first, or with `nowait` the next). A connect refused at once has
    // one attempt.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("its address").port();
    let connect = format!("connect 127.0.0.1:{port}");
    let connect_nowait = format!("nowait {connect}");
    let steps = [
        connect_nowait.as_str(),
        connect.as_str(),
        "nowait accept 127.0.0.1:0",
        "accept 127.0.0.1:0",
        connect_nowait.as_str(),
        "nowait connect 127.0.0.1:1",
        "connect 127.0.0.1:1",
        "nowait openat /etc/passwd",
        "close",
    ];
    let rules = "-a always,io_uring -S connect,accept -k KEY\n";
    scenario("polled", rules, &steps, false, &[]);
    // Selected by an exit rule on io_uring_enter (it judges the inline
    // attempts first) rather than the io_uring list.
    let rules = "-a always,exit -F arch=b64 -S io_uring_enter -k enter\n-a always,io_uring -S accept -k KEY\n";
    scenario("polled-enter", rules, &steps, false, &[]);
}
