//! The differential suite: the same rules go to the kernel audit (auditd in
//! the foreground writing RAW) and to `fastaudit run` at the same time; a
//! workload runs; the events both write for the workload's processes
//! must agree one to one: the sequence of records of each event and every
//! field of each (harness::MASKED lists the exceptions). Until issue 12 is
//! done these scenarios leave out the records fastaudit does not write
//! yet (harness::NOT_WRITTEN); new scenarios compare every record.

//!
//! The harness (auditd in the foreground, the comparison) is in
//! `fastaudit_testsupport::differential`; this file holds the scenarios.

use fastaudit_testsupport as support;
use fastaudit_testsupport::differential as harness;
use harness::*;
use std::collections::BTreeMap;
use std::process::Command;
use support::target;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn basic_success_and_failure() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "basic",
        "-a always,exit -F arch=b64 -S fchmodat,chmod,fchownat -F key=basic\n",
        &["chmod 600 FILE", "chown 0:0 FILE", "python3 -c 'import os\ntry: os.chmod(\"/nonexistent/x\", 0o600)\nexcept OSError: pass'"],
    ));
}

#[test]
fn never_before_always_and_argument_tests() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "never-first",
        "-a never,exit -F arch=b64 -S fchmodat -F a2=0644\n-a always,exit -F arch=b64 -S fchmodat -F a2&0200 -k w\n-a always,exit -F arch=b64 -S fchmodat -k other\n",
        &["chmod 644 FILE", "chmod 600 FILE", "chmod 400 FILE"],
    ));
}

#[test]
fn ids_auid_and_unprivileged_users() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "ids",
        "-a always,exit -F arch=b64 -S fchmodat -F auid>=1000 -F auid!=unset -k login\n-a always,exit -F arch=b64 -S fchmodat -F uid=65534 -k nobody\n-a always,exit -F arch=b64 -S fchmodat -C uid!=euid -k setuid\n",
        &[
            "echo 1000 > /proc/self/loginuid; exec chmod 600 FILE",
            "setpriv --reuid=65534 --regid=65534 --clear-groups chmod 600 FILE",
            "echo 1001 > /proc/self/loginuid; setpriv --reuid=65534 --regid=65534 --clear-groups chmod 644 FILE",
            "chmod 600 FILE",
        ],
    ));
}

#[test]
fn failing_syscalls_exit_and_success_fields() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "failures",
        "-a always,exit -F arch=b64 -S openat -F success=0 -F exit=-ENOENT -k enoent\n-a always,exit -F arch=b64 -S fchmodat -F success=1 -k ok\n",
        &["cat /nonexistent/fastaudit-a", "cat /nonexistent/fastaudit-b", "chmod 600 FILE"],
    ));
}

#[test]
fn raw_hook_without_arch_and_exe_identity() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "raw-exe",
        "-a always,exit -S fchmodat -F exe=/usr/bin/chmod -k exe\n-a always,exit -S unlinkat,unlink -k rm\n",
        &["chmod 600 FILE", "python3 -c 'import os; os.chmod(\"FILE\", 0o640)'", "touch FILE.x; rm FILE.x"],
    ));
}

#[test]
fn exec_arguments_forks_and_execs() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "exec",
        "-a always,exit -F arch=b64 -S execve,clone,clone3,fork,vfork -k proc\n",
        &[
            "true",
            "ls / > /dev/null",
            "sh -c 'exec true'",
            "/nonexistent/prog",
        ],
    ));
}

#[test]
fn exec_arguments_through_the_raw_hooks() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "exec-raw",
        "-a always,exit -S execve -k exec-raw\n",
        &["true", "env true"],
    ));
}

#[test]
fn hostile_program_names_are_encoded_as_the_kernel_encodes_them() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Programs whose names need quoting rules: space, quote, newline plus a
    // forged record, non-ASCII, and plain printable punctuation.
    let names = [
        "a b",
        "q\"uote",
        "nl\ntype=SYSCALL msg=audit(1.1:1): x",
        "caf\u{e9}",
        "pct%~!",
    ];
    let setup: Vec<String> = names
        .iter()
        .map(|n| format!("d=$(dirname FILE); cp /usr/bin/chmod \"$d/{n}\" && \"$d/{n}\" 600 FILE"))
        .collect();
    let refs: Vec<&str> = setup.iter().map(String::as_str).collect();
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "strings",
        "-a always,exit -F arch=b64 -S fchmodat -k str\n",
        &refs,
    ));
}

#[test]
fn loginuid_writes_come_with_their_keyless_syscall_record() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // A write to /proc/self/loginuid makes the kernel's LOGIN, and stock
    // audit adds the write's SYSCALL (key (null), unless a rule selects
    // the write too: then once, with its key) for a task with a context:
    // accepted, refused (EPERM after LOGIN res=0: the loginuid is set and
    // the writer lacks CAP_AUDIT_CONTROL), and selected by a rule. No
    // record at all for another process's loginuid (EPERM before any),
    // and none for a never,task task (no context) or when a never rule
    // matches the write (6 bytes). Raw hooks (no arch).
    let (diffs, events) = run_scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "loginuid",
        "-a never,task -F uid=65534\n-a always,exit -S fchmodat -k l\n-a never,exit -F arch=b64 -S write -F a2=6\n-a always,exit -F arch=b64 -S write -F a0=1 -F auid=1000 -k w\n",
        &[
            "echo 0 > /proc/self/loginuid; chmod 600 FILE",
            "echo 0 > /proc/self/loginuid; setpriv --reuid=1000 --regid=1000 --clear-groups sh -c 'echo 5 > /proc/self/loginuid; true'",
            "echo 1000 > /proc/self/loginuid; true",
            "echo 42424 > /proc/self/loginuid; chmod 600 FILE",
            "echo 0 > /proc/$PPID/loginuid; chmod 644 FILE",
            "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'sh -c \"echo 7 > /proc/self/loginuid\"; true'",
        ],
        &[],
    );
    assert_agrees(&diffs);
    let write_nr = target::nr("write").to_string();
    let write = |key: &str, exit: &str| {
        events.iter().any(|e| {
            e.get("syscall").is_some_and(|s| *s == write_nr)
                && e.get("key").is_some_and(|k| k == key)
                && e.get("exit").is_some_and(|x| x == exit)
        })
    };
    assert!(
        write("(null)", "2"),
        "a keyless SYSCALL of an accepted write: {events:?}"
    );
    assert!(
        write("(null)", "-1"),
        "a keyless SYSCALL of a refused write: {events:?}"
    );
    assert!(
        write("\"w\"", "5"),
        "the rule's key on a selected one: {events:?}"
    );
}

#[test]
fn task_list_excludes_tasks_from_creation_on() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Tasks created with uid 65534 are never audited; tasks created as root
    // are, even when they later switch to 65534.
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "task",
        "-a never,task -F uid=65534\n-a always,exit -F arch=b64 -S fchmodat,chdir -k t\n",
        &[
            "chmod 600 FILE",
            "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'cd /; chmod 600 FILE; true'",
            "setpriv --reuid=65534 --regid=65534 --clear-groups chmod 644 FILE",
        ],
    ));
}

#[test]
fn always_task_records_every_syscall_of_the_tasks_it_selects() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Tasks created with uid 65534 (the children of the shell setpriv
    // starts) have every syscall recorded, without a key, whatever the
    // exit rules say: the kernel gives their context the highest priority,
    // which no exit rule's beats (not even a never rule). Other tasks go
    // through the exit rules as usual.
    assert_agrees(&scenario_every_key_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "always-task",
        "-a always,task -F uid=65534\n\
         -a never,exit -F arch=b64 -S getpid,getppid,brk\n\
         -a never,exit -F arch=b64 -S uname\n\
         -a always,exit -F arch=b64 -S fchmodat -k ch\n",
        &[
            "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'chmod 600 FILE; uname > /dev/null; exit 0'",
            "chmod 600 FILE",
        ],
    ));
}

#[test]
fn file_and_directory_watches() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // -w on a file and on a tree, path= with perm=r, and an exec watch: the
    // kernel matches by inode, whatever name the program used; the watch
    // follows its path (replaced, renamed onto, recreated); failed attempts
    // are recorded too.
    assert_agrees(&scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "watches",
        "-w FILE -p wa -k file-wa\n-w TREE -p wa -k tree\n-a always,exit -F arch=b64 -S openat,open -F path=FILE -F perm=r -k file-r\n-w /usr/bin/id -p x -k exec-id\n",
        &[
            "chmod 600 FILE",
            "chown 0:0 FILE",
            "cat FILE",
            "echo more >> FILE",
            "cd $(dirname FILE) && chmod 640 file",
            "ln FILE FILE.link && chmod 600 FILE.link && rm FILE.link",
            "sed -i s/x/y/ FILE",
            "mkdir TREE/new && touch TREE/sub/f && mv TREE/sub/f TREE/g && rm TREE/g && rmdir TREE/new",
            "chmod 755 TREE",
            "id > /dev/null",
            "chmod 600 FILE",
            "mv FILE FILE.away && mv FILE.away FILE",
            "rm FILE && echo new > FILE && chmod 600 FILE",
            // Failed attempts by an unprivileged user: absolute and relative.
            "setpriv --reuid=65534 --regid=65534 --clear-groups chmod 666 FILE",
            "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'echo x >> FILE'",
            "cd $(dirname FILE) && setpriv --reuid=65534 --regid=65534 --clear-groups chown 65534 file",
        ],
    ));
}

#[test]
fn every_argument_and_exit_operator() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Rules in order, first match decides: each chmod mode is selected by
    // exactly one rule (or none), so the key tells which operator held. The
    // kernel compares exit and a0-a3 as u32: `exit<0` never holds, a range
    // of errnos is written `exit>=-13 exit<=-1`.
    assert_agrees(&scenario_every_key_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "operators",
        "-a always,exit -F arch=b64 -S fchmodat -F exit>=-13 -F exit<=-1 -k exit-range\n\
         -a always,exit -F arch=b64 -S fchmodat -F a2=0100 -k eq\n\
         -a always,exit -F arch=b64 -S fchmodat -F a2<0200 -k lt\n\
         -a always,exit -F arch=b64 -S fchmodat -F a2<=0200 -k le\n\
         -a always,exit -F arch=b64 -S fchmodat -F a2&=0604 -k all-bits\n\
         -a always,exit -F arch=b64 -S fchmodat -F a2>0700 -F a2!=0755 -k gt-ne\n\
         -a always,exit -F arch=b64 -S fchmodat -F a2>=0640 -F a2&0002 -k ge-any\n\
         -a never,exit -F arch=b64 -S fchmodat -F a2=0444\n\
         -a always,exit -F arch=b64 -S fchmodat -F a0!=0 -F a2<=0440 -k a0-a2\n\
         -a always,exit -F arch=b64 -S fchownat -F a0=0xffffff9c -F a1>0 -F a2=0 -F a3=1500 -k a0-a3\n",
        &[
            "setpriv --reuid=65534 chmod 100 FILE",
            "chmod 100 FILE",
            "chmod 150 FILE",
            "chmod 200 FILE",
            "chmod 604 FILE",
            "chmod 644 FILE",
            "chmod 777 FILE",
            "chmod 755 FILE",
            "chmod 702 FILE",
            "chmod 642 FILE",
            "chmod 444 FILE",
            "chmod 440 FILE",
            "chmod 400 FILE",
            "chmod 600 FILE",
            "chown 0:1500 FILE",
            "chown 0:1501 FILE",
        ],
    ));
}

#[test]
fn every_id_field_personality_session_and_comparison() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Each workload command sets its own login uid, so the result does not
    // depend on how the test was started. setfsuid/setfsgid come from libc
    // through Python (no command-line tool sets them).
    let fs = |call: &str, id: u32| {
        format!(
            "echo 0 > /proc/self/loginuid; python3 -c 'import ctypes,os; ctypes.CDLL(None).{call}({id}); os.chmod(\"FILE\", 0o600)'"
        )
    };
    let (fsuid65534, fsuid1000) = (fs("setfsuid", 65534), fs("setfsuid", 1000));
    let (fsgid65534, fsgid1000) = (fs("setfsgid", 65534), fs("setfsgid", 1000));
    // ADDR_NO_RANDOMIZE (pers&0x0040000) by this machine's own setarch.
    let no_aslr = format!(
        "echo 0 > /proc/self/loginuid; setarch {} -R chmod 600 FILE",
        target::this_target().name()
    );
    assert_agrees(&scenario_every_key_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "ids-every-field",
        "-a always,exit -F arch=b64 -S fchmodat,chmod -F pers&0x0040000 -k pers\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -C auid=uid -F auid>=1000 -k auid-is-uid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F euid=0 -F uid!=0 -k uid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F fsuid=65534 -F euid=0 -k fsuid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -C euid!=fsuid -k euid-fsuid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F gid=65534 -F egid!=65534 -k gid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F fsgid=65534 -F egid=0 -k fsgid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -C egid!=fsgid -k egid-fsgid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -C gid!=egid -k gid-egid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F sgid>=1000 -F sgid<2000 -k sgid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F suid>=1000 -F suid<=65534 -F euid>0 -k suid\n\
         -a always,exit -F arch=b64 -S fchmodat,chmod -F auid=0 -F sessionid!=4294967295 -F ppid>1 -F pid>1 -F pid<4194304 -k plain -k root\n",
        &[
            &no_aslr,
            "echo 1000 > /proc/self/loginuid; setpriv --reuid=1000 --regid=1000 --clear-groups chmod 600 FILE",
            "echo 0 > /proc/self/loginuid; setpriv --ruid=65534 chmod 600 FILE",
            &fsuid65534,
            &fsuid1000,
            "echo 0 > /proc/self/loginuid; setpriv --rgid=65534 --keep-groups chmod 600 FILE",
            &fsgid65534,
            &fsgid1000,
            "echo 0 > /proc/self/loginuid; setpriv --egid=1000 --keep-groups chmod 600 FILE",
            "echo 0 > /proc/self/loginuid; setpriv --regid=1500 --keep-groups chmod 600 FILE",
            "echo 0 > /proc/self/loginuid; setpriv --reuid=65534 --regid=65534 --clear-groups chmod 600 FILE",
            "echo 0 > /proc/self/loginuid; chmod 600 FILE",
            // Selected by no rule: auid 2000 with uid 0 and plain ids.
            "echo 2000 > /proc/self/loginuid; chmod 600 FILE",
        ],
    ));
}

#[test]
fn syscalls_that_never_return() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // exit and exit_group end the task inside the syscall: the kernel logs
    // them from do_exit, without success= and exit=, and a rule testing
    // exit= or success= never selects them (the keyless rule would add
    // events only fastaudit records).
    assert_agrees(&scenario_every_key_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "no-return",
        "-a never,exit -F arch=b64 -S exit_group -F a0=3\n\
         -a always,exit -F arch=b64 -S exit_group -F success=1\n\
         -a always,exit -F arch=b64 -S exit_group -F a0!=0 -k status\n\
         -a always,exit -F arch=b64 -S exit -k thread\n\
         -a always,exit -S all -F exe=/usr/bin/true -k all\n",
        &[
            "/usr/bin/true",
            "sh -c 'exit 3'",
            "sh -c 'exit 4'",
            // The join returns as the thread's exit clears its tid, before
            // the kernel's record of it (do_exit's audit_free): the workload
            // ends once the thread is gone from /proc.
            "python3 -c 'import threading, os\nt=threading.Thread(target=lambda: None); t.start(); n=t.native_id; t.join()\nwhile os.path.exists(f\"/proc/self/task/{n}\"): pass'",
        ],
    ))
}

#[test]
fn failed_attempts_on_watches_however_the_path_is_spelled() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // The kernel matches a failed attempt by the inode its lookup reached,
    // whatever the spelling: "./", "//", "..", several relative
    // components, a dirfd; inside a dir= tree too. Lookups that failed
    // (ENOENT) name no inode and match nothing.
    let nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    let cmds: Vec<String> = [
        "cd $(dirname FILE) && NOBODY chmod 666 ./file",
        "NOBODY chmod 666 $(dirname FILE)//file",
        "NOBODY chmod 666 TREE/sub/../../file",
        "cd TREE/sub && NOBODY sh -c 'echo x >> ../../file'",
        "NOBODY sh -c 'echo x >> TREE/./sub/f2'",
        "cd TREE && NOBODY sh -c 'echo x >> sub/../g'",
        "NOBODY /usr/bin/python3 -c 'import os\nfd = os.open(\"TREE\", os.O_RDONLY)\ntry: os.open(\"sub/h\", os.O_WRONLY | os.O_CREAT, dir_fd=fd)\nexcept OSError: pass'",
        "NOBODY cat TREE/sub/missing",
        // Longer than the 255 bytes a watched path can have: read whole.
        "NOBODY chmod 666 $(dirname FILE)/PAD/file",
    ]
    .iter()
    .map(|c| c.replace("NOBODY", nobody).replace("PAD", &["."; 200].join("/")))
    .collect();
    let refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
    let rules = "-w FILE -p wa -k file-wa\n-w TREE -p wa -k tree\n";
    let outcome = run_scenario_except(FASTAUDIT, NOT_WRITTEN, "spellings", rules, &refs, &[]);
    // Every spelling must have been recorded by the kernel, not just one
    // per rule: four chmods, three shells' opens, one Python open.
    for (comm, n) in [("chmod", 4), ("sh", 3), ("python3", 1)] {
        let got = outcome
            .1
            .iter()
            .filter(|e| {
                e.get("comm")
                    .is_some_and(|c| c.starts_with(&format!("\"{comm}")))
            })
            .filter(|e| e.get("key").is_some_and(|k| k != TREE_KEY))
            .count();
        assert!(got >= n, "{got} kernel events by {comm}, {n} expected");
    }
    assert_agrees(&every_key("spellings", rules, outcome));
}

#[test]
fn exit_group_through_its_own_tracepoint() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Native rules only: judged by syscalls:sys_enter_exit_group.
    let rules = "-a always,exit -F arch=b64 -S exit_group -F a0!=0 -k status\n";
    let dir = tempdir();
    let file = dir.join("r");
    std::fs::write(&file, rules).unwrap();
    let out = Command::new(FASTAUDIT)
        .args(["run", "--explain", "--rules", file.to_str().unwrap()])
        .output()
        .unwrap();
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(plan.contains("syscalls:sys_enter_exit_group"), "{plan}");
    assert!(!plan.contains("raw_syscalls"), "{plan}");
    assert_agrees(&scenario_every_key_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "no-return-tracepoint",
        rules,
        &["sh -c 'exit 3'", "true"],
    ))
}

#[test]
fn executable_paths_and_terminals() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // A controlling terminal (script gives a pts), an executable unlinked
    // while it runs (d_path adds " (deleted)", and the space makes the
    // kernel hex-encode exe=), and an executable path with a space.
    let (diffs, events) = run_scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "exe-tty",
        "-a always,exit -F arch=b64 -S fchmodat,chmod -k c\n",
        &[
            "script -qc 'chmod 600 FILE' /dev/null",
            "d=$(dirname FILE); cp /usr/bin/perl $d/pl; $d/pl -e 'unlink \"'$d'/pl\"; chmod 0600, \"FILE\"'",
            "d=$(dirname FILE); mkdir -p \"$d/sp ace\"; cp /usr/bin/chmod \"$d/sp ace/ch\"; cd \"$d/sp ace\"; ./ch 600 FILE",
        ],
        &[],
    );
    assert_agrees(&diffs);
    // The kernel's events have what the scenario is about, so agreeing
    // means something: a pts, a hex exe= ending in " (deleted)", a space.
    let hex = |t: &str| -> String { t.bytes().map(|b| format!("{b:02X}")).collect() };
    let has = |f: &dyn Fn(&BTreeMap<String, String>) -> bool, what: &str| {
        assert!(
            events.iter().any(f),
            "no kernel event with {what}: {events:?}"
        );
    };
    has(
        &|e| e.get("tty").is_some_and(|t| t.starts_with("pts")),
        "a pts tty",
    );
    has(
        &|e| {
            e.get("exe")
                .is_some_and(|x| x.ends_with(&hex(" (deleted)")))
        },
        "a deleted exe",
    );
    has(
        &|e| e.get("exe").is_some_and(|x| x.ends_with(&hex("sp ace/ch"))),
        "an exe path with a space",
    );
}

#[test]
fn setuid_exec_denied_access_and_signals() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // Typical hardening rules: a setuid exec (ids change at exec, the
    // arguments were saved at entry), every failed syscall of a logged-in
    // user (-S all), and signals by number.
    assert_agrees(&scenario_every_key_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "hardening",
        "-a always,exit -F arch=b64 -S execve -C uid!=euid -F euid=0 -k setuid\n-a always,exit -F arch=b64 -S all -F auid>=1000 -F auid!=unset -F success=0 -k denied\n-a always,exit -F arch=b64 -S kill,tkill,tgkill -F a1=15 -k term\n",
        &[
            "d=$(dirname FILE); chmod 755 $d; cp /usr/bin/id $d/sid; chmod 4755 $d/sid; setpriv --reuid=65534 --regid=65534 --clear-groups $d/sid",
            "echo 1000 > /proc/self/loginuid; setpriv --reuid=1000 --regid=1000 --clear-groups sh -c 'cat /etc/shadow; ls /root; true'",
            // The kernel notes the child's comm as the signal is sent:
            // "sh" or "sleep", as far as the child's exec got.
            "for i in 1 2 3 4 5 6; do sleep 5 & kill $!; wait; done",
            // A shell ended by its own signal: the kill is its first
            // record, and with the signal pending the kernel reads no
            // command line for it (proctitle="(null)").
            "sh -c 'kill -TERM $$'; true",
        ],
    ));
}

#[test]
fn untyped_raw_tracepoints_where_tp_btf_is_refused() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    // With tp_btf and per-syscall tracepoints left out, the raw syscall,
    // task, inode and signal hooks are raw_tp programs: same events (a
    // signal's OBJ_PID from the task noted as it was sent; raw_tp
    // programs may not look tasks up by pid).
    let rules = "-a never,task -F uid=65534\n\
         -a always,exit -S fchmodat -F exe=/usr/bin/chmod -k exe\n\
         -w FILE -p wa -k watch\n\
         -a always,exit -F arch=b64 -S execve,exit_group -k proc\n\
         -a always,exit -F arch=b64 -S kill -F a1=15 -k term\n";
    let outcome = run_scenario_except(
        FASTAUDIT,
        NOT_WRITTEN,
        "raw_tp",
        rules,
        &[
            "chmod 600 FILE",
            "echo more >> FILE",
            "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'chmod 600 FILE; true'",
            "sh -c 'exit 3'",
            // Killed once it sleeps (blocked in clock_nanosleep), its exec
            // long over: a kill during the exec would end it at a point
            // neither side can choose (EINTR, the interpreter opened or not).
            "sleep 5 & p=$!; s=; until [ \"$s\" = NR(clock_nanosleep) ]; do read -r s _ < /proc/$p/syscall; done; kill $p; wait",
        ],
        &["--hook-kinds", "raw_tp"],
    );
    assert_agrees(&every_key("raw_tp", rules, outcome));
}
