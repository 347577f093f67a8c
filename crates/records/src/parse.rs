//! Reading log lines back, as auparse splits them: `[node=N ]type=NAME
//! msg=audit(SEC.MMM:SERIAL): BODY[0x1D ENRICHED]`. fastaudit reads its
//! own log at start (the serials in use); the tests read every log.

use crate::Stamp;

/// One log line, split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed<'a> {
    /// The `node=` prefix's value.
    pub node: Option<&'a [u8]>,
    /// The type name (`SYSCALL`, `UNKNOWN[1234]`).
    pub ty: &'a [u8],
    /// Time and serial.
    pub stamp: Stamp,
    /// The body, up to the ENRICHED separator.
    pub body: &'a [u8],
    /// What follows the 0x1D separator.
    pub enriched: Option<&'a [u8]>,
}

fn split_once(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    let i = s.iter().position(|&b| b == sep)?;
    Some((&s[..i], &s[i + 1..]))
}

fn number(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// Split one line (a trailing newline allowed); None when it is not a
/// record line (a torn line, say).
pub fn parse_line(line: &[u8]) -> Option<Parsed<'_>> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let (node, rest) = match line.strip_prefix(b"node=") {
        Some(r) => {
            let (n, rest) = split_once(r, b' ')?;
            (Some(n), rest)
        }
        None => (None, line),
    };
    let (ty, rest) = split_once(rest.strip_prefix(b"type=")?, b' ')?;
    let rest = rest.strip_prefix(b"msg=audit(")?;
    let (time, rest) = split_once(rest, b':')?;
    let (sec, msec) = split_once(time, b'.')?;
    let (serial, rest) = split_once(rest, b')')?;
    let rest = rest.strip_prefix(b":")?;
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    if msec.len() != 3 {
        return None;
    }
    let stamp = Stamp {
        sec: number(sec)?,
        msec: u32::try_from(number(msec)?).ok()?,
        serial: number(serial)?,
    };
    let (body, enriched) = match split_once(rest, 0x1d) {
        Some((b, e)) => (b, Some(e)),
        None => (rest, None),
    };
    Some(Parsed {
        node,
        ty,
        stamp,
        body,
        enriched,
    })
}

/// The last serial of fastaudit's own range ([`crate::daemon::OWN_SERIAL_BASE`]
/// up to 2^32-1) in these log lines: the newest one fastaudit stamped.
pub fn last_own_serial(lines: &[u8]) -> Option<u64> {
    lines
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(parse_line)
        .map(|p| p.stamp.serial)
        .find(|&s| (crate::daemon::OWN_SERIAL_BASE..=u64::from(u32::MAX)).contains(&s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::SystemNames;
    use crate::line::line;
    use crate::Format;
    use proptest::prelude::*;

    #[test]
    fn lines_as_auditd_writes_them() {
        let p = parse_line(
            b"node=h type=SYSCALL msg=audit(1700000000.005:42): a=b c=d\x1dUID=\"root\"\n",
        )
        .unwrap();
        assert_eq!(p.node, Some(&b"h"[..]));
        assert_eq!(p.ty, b"SYSCALL");
        assert_eq!(
            p.stamp,
            Stamp {
                sec: 1700000000,
                msec: 5,
                serial: 42
            }
        );
        assert_eq!(p.body, b"a=b c=d");
        assert_eq!(p.enriched, Some(&b"UID=\"root\""[..]));
        assert_eq!(
            parse_line(b"type=EOE msg=audit(1.000:2):").map(|p| p.body),
            Some(&b""[..])
        );
        for torn in [
            &b"type=SYSCALL msg=audit(1700000000.0"[..],
            b"ype=SYSCALL msg=audit(1.000:2): x",
            b"",
            b"type=X msg=audit(1.5:2): x",
            b"type=X msg=audit(1.005:99999999999999999999999): x",
        ] {
            assert_eq!(parse_line(torn), None, "{}", String::from_utf8_lossy(torn));
        }
    }

    #[test]
    fn the_newest_own_serial() {
        let log = b"type=A msg=audit(1.000:2147483650): x\ntype=B msg=audit(1.000:2147483651): x\ntype=USER msg=audit(1.000:77): msg='type=C msg=audit(1.000:4294967000): '\ntype=D msg=audit(1.0";
        assert_eq!(last_own_serial(log), Some(2147483651));
        assert_eq!(last_own_serial(b"type=A msg=audit(1.000:5): x\n"), None);
        assert_eq!(
            last_own_serial(b"type=A msg=audit(1.000:4294967296): x\n"),
            None,
            "beyond the range"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Whatever the bytes, parsing returns (never panics).
        #[test]
        fn any_bytes_parse_or_not(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse_line(&bytes);
            let _ = last_own_serial(&bytes);
        }

        /// Near-lines (a real line cut or altered at one byte) never panic.
        #[test]
        fn damaged_lines(cut in 0usize..80, at in 0usize..80, b in any::<u8>()) {
            let mut l = b"node=n type=SYSCALL msg=audit(1700000000.123:2147483648): a=1 b=2\x1dX=y\n".to_vec();
            let at = at.min(l.len() - 1);
            l[at] = b;
            l.truncate(cut.min(l.len()));
            let _ = parse_line(&l);
        }

        /// What `line` writes, `parse_line` reads back: the stamp, the type
        /// and the body (newlines as spaces, a trailing space dropped).
        #[test]
        fn round_trip(
            sec in 0u64..=u64::from(u32::MAX) * 4,
            msec in 0u32..1000,
            serial in 0u64..=u64::from(u32::MAX),
            ty in prop_oneof![Just(1300u32), Just(1006), Just(1209), 1000u32..3000],
            node in proptest::option::of("[a-z0-9.-]{1,12}"),
            body in proptest::collection::vec(any::<u8>().prop_filter("no separator", |b| *b != 0x1d), 0..200),
        ) {
            let stamp = Stamp { sec, msec, serial };
            let l = line(node.as_deref(), ty, stamp, &body, Format::Raw, &SystemNames);
            let p = parse_line(&l).expect("a written line parses");
            prop_assert_eq!(p.stamp, stamp);
            let name = crate::line::type_name(ty);
            prop_assert_eq!(p.ty, name.as_bytes());
            prop_assert_eq!(p.node, node.as_deref().map(str::as_bytes));
            let mut want: Vec<u8> = body.iter().map(|&b| if b == b'\n' { b' ' } else { b }).collect();
            if want.last() == Some(&b' ') {
                want.pop();
            }
            // A body that is only "\n" or spaces: line() drops one space.
            prop_assert_eq!(p.body, &want[..]);
            prop_assert_eq!(p.enriched, None);
        }
    }
}
