//! The writer's unit tests: rotation, flush policies, counting, and the
//! checks on the log and its directory that need no second user (those
//! that do are in the `run` integration tests, as root).

use super::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fastaudit-log-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn cfg(d: &Path) -> Config {
    Config {
        space_left: Threshold::Mib(0),
        admin_space_left: Threshold::Mib(0),
        ..Config::new(d.join("audit.log"))
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

fn read(d: &Path, name: &str) -> String {
    std::fs::read_to_string(d.join(name)).unwrap()
}

#[test]
fn rotates_keeping_num_logs() {
    let d = dir("rotate");
    let mut w = Writer::open(Config {
        max_bytes: 10,
        size_action: SizeAction::Rotate { num_logs: 3 },
        ..cfg(&d)
    })
    .unwrap();
    for i in 0..5 {
        w.write_event(format!("event-{i}\n").as_bytes(), Source::Event);
    }
    w.flush();
    assert_eq!(read(&d, "audit.log"), "event-4\n");
    assert_eq!(read(&d, "audit.log.1"), "event-3\n");
    assert_eq!(read(&d, "audit.log.2"), "event-2\n");
    assert!(!d.join("audit.log.3").exists());
    assert_eq!(w.counts(Source::Event), Counts { logged: 5, lost: 0 });
    // As auditd: a rotated log is read-only, the live one 0600.
    assert_eq!(mode(&d.join("audit.log.1")), 0o400);
    assert_eq!(mode(&d.join("audit.log")), 0o600);
}

#[test]
fn fewer_than_two_logs_never_rotate_and_stay_appended_to() {
    for num_logs in [0, 1] {
        let d = dir(&format!("num{num_logs}"));
        let mut w = Writer::open(Config {
            max_bytes: 10,
            size_action: SizeAction::Rotate { num_logs },
            ..cfg(&d)
        })
        .unwrap();
        for i in 0..3 {
            w.write_event(format!("event-{i}\n").as_bytes(), Source::Event);
        }
        w.rotate_now();
        w.write_event(b"last\n", Source::Event);
        w.flush();
        assert_eq!(read(&d, "audit.log"), "event-0\nevent-1\nevent-2\nlast\n");
        assert!(!d.join("audit.log.1").exists(), "num_logs {num_logs}");
    }
}

#[test]
fn rotate_now_starts_a_new_file() {
    let d = dir("now");
    let mut w = Writer::open(cfg(&d)).unwrap();
    w.write_event(b"old\n", Source::Own);
    w.rotate_now();
    w.write_event(b"new\n", Source::Own);
    w.flush();
    assert_eq!(
        (read(&d, "audit.log.1"), read(&d, "audit.log")),
        ("old\n".into(), "new\n".into())
    );
}

#[test]
fn rotated_names_keep_the_bytes_of_the_name() {
    use std::os::unix::ffi::OsStrExt;
    let d = dir("bytes");
    let name = std::ffi::OsStr::from_bytes(b"au\xffdit.log");
    let mut w = Writer::open(Config {
        path: d.join(name),
        ..cfg(&d)
    })
    .unwrap();
    w.write_event(b"old\n", Source::Own);
    w.rotate_now();
    w.flush();
    let rotated = d.join(std::ffi::OsStr::from_bytes(b"au\xffdit.log.1"));
    assert_eq!(std::fs::read(rotated).unwrap(), b"old\n");
}

#[test]
fn keep_logs_never_deletes() {
    let d = dir("keep");
    let mut w = Writer::open(Config {
        max_bytes: 10,
        size_action: SizeAction::KeepLogs,
        ..cfg(&d)
    })
    .unwrap();
    for i in 0..4 {
        w.write_event(format!("event-{i}\n").as_bytes(), Source::Event);
    }
    w.flush();
    assert_eq!(read(&d, "audit.log.3"), "event-0\n");
}

#[test]
fn suspend_counts_lost_events_and_resume_reports_them() {
    let d = dir("suspend");
    let mut w = Writer::open(Config {
        max_bytes: 10,
        size_action: SizeAction::Suspend,
        ..cfg(&d)
    })
    .unwrap();
    w.write_event(b"event-0\n", Source::Event);
    w.write_event(b"event-1\n", Source::Event);
    w.write_event(b"event-2\n", Source::Kernel);
    w.commit();
    assert_eq!(w.suspended(), Some(FaultKind::MaxLogFile));
    assert_eq!(w.counts(Source::Event), Counts { logged: 1, lost: 1 });
    assert_eq!(w.lost(), 2);
    assert_eq!(w.take_recovered(), None, "not writable yet");
    // The administrator moves the log away and sends SIGUSR2.
    std::fs::rename(d.join("audit.log"), d.join("moved")).unwrap();
    assert!(w.resume());
    w.write_event(b"again\n", Source::Own);
    w.commit();
    assert_eq!(read(&d, "audit.log"), "again\n");
    assert_eq!(
        w.take_recovered(),
        Some(Fault {
            kind: FaultKind::MaxLogFile,
            action: Action::Suspend,
            lost: 2
        })
    );
    assert_eq!(w.take_recovered(), None, "reported once");
}

#[test]
fn low_disk_space_suspends() {
    let d = dir("space");
    let mut w = Writer::open(Config {
        admin_space_left: Threshold::Percent(99),
        admin_space_left_action: Action::Suspend,
        ..cfg(&d)
    })
    .unwrap();
    w.write_event(b"x\n", Source::Event);
    w.commit();
    assert_eq!(w.counts(Source::Event).lost, 1);
    assert_eq!(w.suspended(), Some(FaultKind::AdminSpaceLeft));
    assert_eq!(std::fs::metadata(d.join("audit.log")).unwrap().len(), 0);
}

#[test]
fn events_reach_the_file_at_commit_in_order() {
    for flush in [
        Flush::None,
        Flush::Incremental { freq: 2 },
        Flush::IncrementalAsync { freq: 2 },
    ] {
        let d = dir("commit");
        let mut w = Writer::open(Config { flush, ..cfg(&d) }).unwrap();
        w.write_event(b"a\n", Source::Event);
        w.write_event(b"b\n", Source::Event);
        assert_eq!(
            read(&d, "audit.log"),
            "",
            "{flush:?}: nothing before commit"
        );
        assert_eq!(w.counts(Source::Event).logged, 0, "counted once written");
        w.commit();
        assert_eq!(read(&d, "audit.log"), "a\nb\n", "{flush:?}");
        w.write_event(b"c\n", Source::Event);
        drop(w);
        assert_eq!(
            read(&d, "audit.log"),
            "a\nb\nc\n",
            "{flush:?}: drop commits"
        );
    }
}

#[test]
fn every_event_policies_write_each_batch_at_its_commit() {
    for flush in [Flush::Data, Flush::Sync] {
        let d = dir("data");
        let mut w = Writer::open(Config { flush, ..cfg(&d) }).unwrap();
        w.write_event(b"a\n", Source::Event);
        w.write_event(b"b\n", Source::Event);
        assert_eq!(read(&d, "audit.log"), "", "{flush:?}: one write per batch");
        w.commit();
        assert_eq!(read(&d, "audit.log"), "a\nb\n", "{flush:?}");
    }
}

#[test]
fn log_and_directory_are_private() {
    let d = dir("mode");
    let mut w = Writer::open(Config {
        path: d.join("sub/audit.log"),
        ..cfg(&d)
    })
    .unwrap();
    w.write_event(b"x\n", Source::Own);
    w.flush();
    assert_eq!(mode(&d.join("sub/audit.log")), 0o600);
    assert_eq!(mode(&d.join("sub")), 0o700);
}

#[test]
fn a_log_group_reads_the_log() {
    let d = dir("group");
    let w = Writer::open(Config {
        path: d.join("sub/audit.log"),
        log_group: Some(4),
        ..cfg(&d)
    })
    .unwrap();
    drop(w);
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(d.join("sub/audit.log")).unwrap();
    assert_eq!((m.mode() & 0o777, m.gid()), (0o640, 4));
    let m = std::fs::metadata(d.join("sub")).unwrap();
    assert_eq!((m.mode() & 0o777, m.gid()), (0o750, 4));
}

fn refused(c: Config) -> String {
    match Writer::open(c) {
        Ok(_) => panic!("opened"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn symlinks_fifos_and_writable_logs_or_directories_are_refused() {
    let d = dir("refuse");
    std::fs::create_dir_all(&d).unwrap();
    let victim = d.join("victim");
    std::fs::write(&victim, "theirs\n").unwrap();
    std::os::unix::fs::symlink(&victim, d.join("audit.log")).unwrap();
    let e = refused(cfg(&d));
    assert!(e.contains("is a symbolic link"), "{e}");
    assert_eq!(read(&d, "victim"), "theirs\n");

    nix::unistd::mkfifo(
        &d.join("fifo2"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    let t = std::time::Instant::now();
    let e = refused(Config {
        path: d.join("fifo2"),
        ..cfg(&d)
    });
    assert!(e.contains("not a regular file"), "{e}");
    assert!(t.elapsed().as_secs() < 2, "no blocking on a FIFO");

    let other = d.join("ow.log");
    std::fs::write(&other, "").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o666)).unwrap();
    let e = refused(Config {
        path: other,
        ..cfg(&d)
    });
    assert!(e.contains("writable by group or others (mode 0666)"), "{e}");

    let open_dir = d.join("open");
    std::fs::create_dir(&open_dir).unwrap();
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = refused(Config {
        path: open_dir.join("audit.log"),
        ..cfg(&d)
    });
    assert!(e.contains("open: is writable by group or others"), "{e}");
    assert!(!open_dir.join("audit.log").exists());

    let link_dir = d.join("linkdir");
    std::os::unix::fs::symlink(&open_dir, &link_dir).unwrap();
    let e = refused(Config {
        path: link_dir.join("audit.log"),
        ..cfg(&d)
    });
    assert!(e.contains("linkdir: is a symbolic link"), "{e}");
}

#[test]
fn a_readable_log_is_made_private_as_auditd_does() {
    let d = dir("fix");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("audit.log"), "old\n").unwrap();
    std::fs::set_permissions(d.join("audit.log"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let w = Writer::open(cfg(&d)).unwrap();
    drop(w);
    assert_eq!(mode(&d.join("audit.log")), 0o600);
}

#[test]
fn a_torn_last_line_is_not_continued() {
    let d = dir("torn");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("audit.log"),
        "type=X msg=audit(1.000:1): a=b\ntype=Y msg=aud",
    )
    .unwrap();
    std::fs::set_permissions(d.join("audit.log"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut w = Writer::open(cfg(&d)).unwrap();
    w.write_event(b"type=Z msg=audit(2.000:2): c=d\n", Source::Own);
    w.flush();
    assert_eq!(
        read(&d, "audit.log"),
        "type=X msg=audit(1.000:1): a=b\ntype=Y msg=aud\ntype=Z msg=audit(2.000:2): c=d\n"
    );
    assert_eq!(w.tail(40).unwrap(), b"type=Z msg=audit(2.000:2): c=d\n");
}

#[test]
fn settings_are_checked_together() {
    let d = dir("check");
    let e = refused(Config {
        space_left: Threshold::Mib(50),
        admin_space_left: Threshold::Mib(75),
        ..Config::new(d.join("audit.log"))
    });
    assert!(e.contains("space_left (50) must be larger"), "{e}");
    let e = refused(Config {
        disk_error_action: Action::Rotate,
        ..cfg(&d)
    });
    assert!(e.contains("disk_error_action"), "{e}");
}

#[test]
fn lines_of_several_events_count_as_many() {
    let d = dir("many");
    let mut w = Writer::open(Config {
        max_bytes: 30,
        size_action: SizeAction::Suspend,
        ..cfg(&d)
    })
    .unwrap();
    w.write_events(b"op-1\nop-2\nsyscall\n", Source::Event, 3);
    w.write_events(b"op-3\nsyscall-2\n", Source::Event, 2);
    w.commit();
    assert_eq!(w.counts(Source::Event), Counts { logged: 3, lost: 2 });
}
