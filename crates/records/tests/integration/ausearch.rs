//! ausearch and aureport (auditd's own tools) read what the formatter writes:
//! keys are found (also several keys on one rule), hex-encoded strings are
//! decoded, RAW and ENRICHED both parse.

use crate::tools::run;
use fastaudit_records::enrich::Names;
use fastaudit_records::line::line;
use fastaudit_records::syscall::proctitle_body;
use fastaudit_records::{types, Format, Stamp, Syscall};

struct NoNames;
impl Names for NoNames {
    fn user(&self, _: u32) -> Option<String> {
        None
    }
    fn group(&self, _: u32) -> Option<String> {
        None
    }
}

fn event(serial: u64, comm: &[u8], key: &[u8]) -> Syscall {
    Syscall {
        arch: 0xc000003e,
        syscall: 268,
        exit: Some(if serial.is_multiple_of(2) { 0 } else { -13 }),
        args: [0xffffff9c, 0x7ffd138ddfd7, 0x1ed, 0],
        ppid: 1,
        pid: 1000 + serial as i32,
        auid: 1000,
        ids: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
        ses: 3,
        comm: comm.to_vec(),
        exe: Some(b"/usr/bin/chmod".to_vec()),
        key: Some(key.to_vec()),
        ..Syscall::default()
    }
}

fn write_log(format: Format) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "fastaudit-records-{}-{format:?}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.log");
    let mut log = Vec::new();
    let cases: [(&[u8], &[u8]); 4] = [
        (b"chmod", b"perm"),
        (b"my prog", b"perm"),
        (b"x\"y\ntype=SYSCALL", b"ka\x01kb"),
        (b"t", b"other"),
    ];
    for (i, (comm, key)) in cases.iter().enumerate() {
        let stamp = Stamp {
            sec: 1_795_375_434,
            msec: 368 + i as u32,
            serial: 49 + i as u64,
        };
        log.extend(line(
            None,
            types::SYSCALL,
            stamp,
            &event(i as u64, comm, key).body(),
            format,
            &NoNames,
        ));
        log.extend(line(
            None,
            types::PROCTITLE,
            stamp,
            &proctitle_body(b"chmod\x00600\x00/tmp/f\x00"),
            format,
            &NoNames,
        ));
    }
    std::fs::write(&path, log).unwrap();
    path
}

#[test]
fn ausearch_and_aureport_read_the_log() {
    for format in [Format::Raw, Format::Enriched] {
        let log = write_log(format);
        let log = log.to_str().unwrap();
        let (ok, out) = run("ausearch", &["-if", log, "-k", "perm", "--raw"]);
        assert!(ok, "ausearch -k perm ({format:?})");
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("type=SYSCALL"))
                .count(),
            2,
            "{out}"
        );
        let (ok, out) = run("ausearch", &["-if", log, "-k", "kb", "--raw"]);
        assert!(
            ok && out.contains("key=6B61016B62"),
            "second of two keys is found: {out}"
        );
        let (ok, out) = run("ausearch", &["-if", log, "-i"]);
        assert!(ok, "ausearch -i");
        assert!(out.contains("comm=my prog"), "hex comm decoded: {out}");
        assert!(out.contains("syscall=fchmodat"), "{out}");
        assert!(out.contains("proctitle=chmod 600 /tmp/f"), "{out}");
        // A comm holding "\ntype=SYSCALL" stays inside its field: no forged record.
        let records = out
            .lines()
            .filter(|l| l.starts_with("type=SYSCALL"))
            .count();
        assert_eq!(records, 4, "one event per serial: {out}");
        assert!(out.contains("comm=x\"y\\012type=SYSCALL exe="), "{out}");
        let (ok, out) = run("aureport", &["-if", log, "--summary"]);
        assert!(ok, "aureport --summary");
        assert!(out.contains("Number of events: 4"), "{out}");
        let (ok, out) = run("aureport", &["-if", log, "-k", "--summary"]);
        assert!(
            ok && out.contains("perm") && out.contains("ka") && out.contains("kb"),
            "{out}"
        );
    }
}

#[test]
fn enriched_suffix_is_exactly_auditds() {
    let s = event(0, b"t", b"k");
    let l = line(
        None,
        types::SYSCALL,
        Stamp {
            sec: 1,
            msec: 5,
            serial: 7,
        },
        &s.body(),
        Format::Enriched,
        &NoNames,
    );
    let text = String::from_utf8(l).unwrap();
    let (raw, extra) = text.split_once('\x1d').expect("GS separator");
    assert!(
        raw.starts_with("type=SYSCALL msg=audit(1.005:7): arch=c000003e syscall=268 success=yes")
    );
    assert_eq!(
        extra,
        "ARCH=x86_64 SYSCALL=fchmodat AUID=\"unknown(1000)\" UID=\"unknown(1000)\" GID=\"unknown(1000)\" EUID=\"unknown(1000)\" SUID=\"unknown(1000)\" FSUID=\"unknown(1000)\" EGID=\"unknown(1000)\" SGID=\"unknown(1000)\" FSGID=\"unknown(1000)\"\n"
    );
    let p = line(
        None,
        types::PROCTITLE,
        Stamp {
            sec: 1,
            msec: 5,
            serial: 7,
        },
        &proctitle_body(b"t\0"),
        Format::Enriched,
        &NoNames,
    );
    assert_eq!(p, b"type=PROCTITLE msg=audit(1.005:7): proctitle=\"t\"\n");
}
