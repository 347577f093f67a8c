//! The EXECVE record (`audit_log_execve_info`): `argc=N` and each argument
//! quoted, or hex-encoded when it holds a control character, a space, a
//! quote or a byte above 0x7e. An argument that does not fit what is left
//! of the record is written in pieces (`aN_len=` then `aN[0]=`, `aN[1]=`,
//! ...), and an argument longer than the record's budget is always
//! hex-encoded and split; a new EXECVE record starts whenever less than
//! the room for one more argument's head is left. The kernel's budget and
//! buffer sizes are kept as it has them, so the pieces fall where its do.

use crate::encode::hex_upper;
use std::io::Write as _;

/// The kernel's MAX_EXECVE_AUDIT_LEN: bytes of argument text per record.
pub const MAX_EXECVE_AUDIT_LEN: usize = 7500;
/// The kernel's `abuf`: room it keeps for one argument's `aN...=` head.
const HEAD_ROOM: usize = 96;

/// Whether the kernel hex-encodes an argument (`audit_string_contains_control`).
fn needs_encoding(s: &[u8]) -> bool {
    s.iter().any(|&c| c == b'"' || !(0x21..=0x7e).contains(&c))
}

/// The arguments' bytes as the kernel reads them from the argument area:
/// `strncpy_from_user` of at most `count` bytes from `at` (the string's
/// length, or `count` when no NUL came within `count` bytes).
fn copy_string(area: &[u8], at: usize, count: usize) -> usize {
    let rest = area.get(at..).unwrap_or_default();
    let window = &rest[..rest.len().min(count)];
    window.iter().position(|&b| b == 0).unwrap_or(window.len())
}

/// The bodies of the EXECVE records of an exec with `argc` arguments
/// whose argument area (NUL-terminated strings) is `area`: the first
/// starts `argc=N`, continuations with a space (as the kernel writes them).
pub fn bodies(argc: u32, area: &[u8]) -> Vec<Vec<u8>> {
    let mut records: Vec<Vec<u8>> = Vec::new();
    let mut rec = Vec::new();
    let _ = write!(rec, "argc={argc}");
    let len_max = MAX_EXECVE_AUDIT_LEN;
    let mut len_rem = len_max;
    // The argument buffer: bytes of the current argument not written yet.
    let mut buf: Vec<u8> = Vec::new();
    let mut len_full = 0usize;
    let mut require_data = true;
    let mut encode = false;
    let mut iter = 0u32;
    let mut arg = 0u32;
    let mut p = 0usize;
    while arg < argc {
        if len_full == 0 {
            len_full = copy_string(area, p, usize::MAX);
        }
        if require_data {
            if p >= area.len() {
                // The argument area ended early (cut by the BPF side).
                break;
            }
            let count = len_max - buf.len();
            let got = copy_string(area, p, count);
            let first_piece = buf.is_empty();
            buf.extend_from_slice(&area[p..p + got]);
            if got == count {
                // Longer than the buffer: forced hex, in pieces.
                require_data = true;
                encode = true;
                len_full *= 2;
                p += got;
            } else {
                require_data = false;
                if !encode {
                    // The kernel checks from the buffer's start.
                    let check = if first_piece { &buf[..got] } else { &buf[..] };
                    encode = needs_encoding(check);
                }
                if len_full < len_max {
                    len_full = if encode { got * 2 } else { got };
                }
                p += got + 1;
            }
        }
        let len_abuf = if encode { buf.len() * 2 } else { buf.len() + 2 };
        if HEAD_ROOM + 8 > len_rem {
            len_rem = len_max;
            records.push(std::mem::take(&mut rec));
        }
        let mut head = Vec::new();
        if require_data || iter > 0 || len_abuf + HEAD_ROOM > len_rem {
            if iter == 0 {
                let _ = write!(head, " a{arg}_len={len_full}");
            }
            let _ = write!(head, " a{arg}[{iter}]=");
            iter += 1;
        } else {
            let _ = write!(head, " a{arg}=");
        }
        rec.extend_from_slice(&head);
        len_rem = len_rem.saturating_sub(head.len());
        let mut n = buf.len();
        if encode {
            if len_abuf > len_rem {
                n = len_rem / 2;
            }
            let n = n.min(buf.len());
            hex_upper(&mut rec, &buf[..n]);
            len_rem = len_rem.saturating_sub(n * 2);
            buf.drain(..n);
        } else {
            if len_abuf > len_rem {
                n = len_rem.saturating_sub(2);
            }
            let n = n.min(buf.len());
            rec.push(b'"');
            rec.extend_from_slice(&buf[..n]);
            rec.push(b'"');
            len_rem = len_rem.saturating_sub(n + 2);
            buf.drain(..n);
        }
        if buf.is_empty() && !require_data {
            arg += 1;
            iter = 0;
            len_full = 0;
            require_data = true;
            encode = false;
        }
    }
    records.push(rec);
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(argc: u32, area: &[u8]) -> Vec<String> {
        bodies(argc, area)
            .into_iter()
            .map(|b| String::from_utf8(b).unwrap())
            .collect()
    }

    #[test]
    fn plain_quoted_and_hex_arguments() {
        assert_eq!(
            text(3, b"ls\0-l\0a b\0"),
            ["argc=3 a0=\"ls\" a1=\"-l\" a2=612062"]
        );
        assert_eq!(text(2, b"x\0\0"), ["argc=2 a0=\"x\" a1=\"\""]);
        assert_eq!(text(1, "é\0".as_bytes()), ["argc=1 a0=C3A9"]);
        assert_eq!(text(1, b"q\"\0"), ["argc=1 a0=7122"]);
    }

    #[test]
    fn a_long_argument_is_split_into_hex_pieces() {
        let mut area = b"echo\0".to_vec();
        area.extend(std::iter::repeat_n(b'x', 10000));
        area.push(0);
        let recs = text(2, &area);
        // The first piece fills the buffer (7500 bytes): forced hex, the
        // full length doubled.
        assert!(recs[0].starts_with("argc=2 a0=\"echo\" a1_len=20000 a1[0]=7878"));
        let hex_chars: usize = recs
            .iter()
            .flat_map(|r| r.split(' '))
            .filter(|w| w.starts_with("a1["))
            .map(|w| w.split_once('=').unwrap().1.len())
            .sum();
        assert_eq!(hex_chars, 20000);
        assert!(recs.len() >= 3, "{}", recs.len());
        assert!(recs[1].starts_with(" a1["), "{}", &recs[1][..20]);
    }

    #[test]
    fn many_arguments_go_on_in_a_new_record() {
        let mut area = Vec::new();
        for i in 0..2000 {
            area.extend(format!("arg{i}").bytes());
            area.push(0);
        }
        let recs = text(2000, &area);
        assert!(recs.len() > 1);
        assert!(recs[1].starts_with(" a"));
        let args: usize = recs.iter().map(|r| r.matches(" a").count()).sum();
        assert_eq!(args, 2000);
    }
}
