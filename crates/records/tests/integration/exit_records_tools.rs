//! auditd's tools read the records written after SYSCALL as they read the
//! kernel's: `ausearch -x` finds an exec by its executable with its
//! EXECVE (a long argument split over several records) and SOCKADDR
//! records, `ausearch -i` decodes the arguments and the addresses exactly
//! as the ENRICHED `SADDR=` fastaudit writes, `aureport -x --summary`
//! counts the exec.

use crate::tools::run;
use fastaudit_records::enrich::Names;
use fastaudit_records::exit::ExitRecord;
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

/// Addresses of every family interpreted: (saddr hex, auparse's reading).
const ADDRESSES: &[&str] = &[
    "02001F907F0000010000000000000000",
    "0A001F90000000000000000000000000000000000000000100000000",
    "01002F746D702F736F636B00",
    "010000666100",
    "100000000000000000000000",
];

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn write_log(format: Format) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "fastaudit-exit-records-{}-{format:?}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.log");
    let mut log = Vec::new();
    let mut area = b"echo\0a b\0".to_vec();
    area.extend(std::iter::repeat_n(b'L', 9000));
    area.push(0);
    let mut events: Vec<(u32, Vec<ExitRecord>)> = vec![(
        59,
        vec![ExitRecord::Execve {
            argc: 3,
            area: area.clone(),
        }],
    )];
    for a in ADDRESSES {
        events.push((42, vec![ExitRecord::Sockaddr(hex(a))]));
    }
    for (i, (nr, recs)) in events.iter().enumerate() {
        let stamp = Stamp {
            sec: 1_795_375_434,
            msec: 100 + i as u32,
            serial: 70 + i as u64,
        };
        let sc = Syscall {
            arch: 0xc000003e,
            syscall: *nr,
            exit: Some(0),
            ppid: 1,
            pid: 2000 + i as i32,
            auid: 1000,
            ses: 3,
            comm: b"echo".to_vec(),
            exe: Some(b"/usr/bin/echo".to_vec()),
            key: Some(b"t".to_vec()),
            ..Syscall::default()
        };
        log.extend(line(
            None,
            types::SYSCALL,
            stamp,
            &sc.body(),
            format,
            &NoNames,
        ));
        for r in recs {
            for b in r.bodies() {
                log.extend(line(None, r.ty(), stamp, &b, format, &NoNames));
            }
        }
        log.extend(line(
            None,
            types::PROCTITLE,
            stamp,
            &proctitle_body(&area[..5]),
            format,
            &NoNames,
        ));
    }
    std::fs::write(&path, log).unwrap();
    path
}

#[test]
fn ausearch_and_aureport_read_execve_and_sockaddr() {
    for format in [Format::Raw, Format::Enriched] {
        let path = write_log(format);
        let log = path.to_str().unwrap();
        let (ok, out) = run("ausearch", &["-if", log, "-x", "/usr/bin/echo", "--raw"]);
        assert!(ok, "ausearch -x ({format:?})");
        let execve = out.lines().filter(|l| l.starts_with("type=EXECVE")).count();
        assert!(execve >= 3, "the long argument's records: {out}");
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("type=SOCKADDR"))
                .count(),
            ADDRESSES.len(),
            "{out}"
        );
        let (ok, out) = run("ausearch", &["-if", log, "-i"]);
        assert!(ok, "ausearch -i");
        assert!(out.contains("argc=3 a0=echo a1=a b"), "{out}");
        let (ok, out) = run("aureport", &["-if", log, "-x", "--summary"]);
        assert!(
            ok && out
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["6", "/usr/bin/echo"]),
            "{out}"
        );
    }
}

#[test]
fn enriched_saddr_is_auparses_reading() {
    let path = write_log(Format::Raw);
    let (ok, out) = run("ausearch", &["-if", path.to_str().unwrap(), "-i"]);
    assert!(ok);
    let read: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("type=SOCKADDR"))
        .filter_map(|l| l.split_once(" : saddr=").map(|x| x.1.trim_end()))
        .collect();
    let ours: Vec<String> = ADDRESSES
        .iter()
        .map(|a| {
            let body = format!("saddr={a}");
            let l = line(
                None,
                types::SOCKADDR,
                Stamp {
                    sec: 1,
                    msec: 0,
                    serial: 1,
                },
                body.as_bytes(),
                Format::Enriched,
                &NoNames,
            );
            let text = String::from_utf8(l).unwrap();
            let (_, extra) = text.split_once('\x1d').expect("SADDR interpreted");
            extra.trim_end().strip_prefix("SADDR=").unwrap().to_string()
        })
        .collect();
    assert_eq!(read, ours);
}
