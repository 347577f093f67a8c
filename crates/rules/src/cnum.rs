//! C's `strtol`/`strtoul` number reading, as auditctl applies it to values.
//!
//! Hand-rolled on purpose: rule values must convert exactly as glibc does
//! (base prefixes, trailing junk ignored, saturation and `ERANGE` on
//! overflow, unsigned negation), and Rust's parsers reject what C accepts.

/// Result of a C conversion: the value and whether `errno` became `ERANGE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv<T> {
    /// Converted value (saturated on overflow, as C does).
    pub value: T,
    /// True when C would set `errno = ERANGE`.
    pub range_error: bool,
    /// Where C's `endptr` points: the first byte not read (0 when no
    /// digit was read, as C leaves `endptr` at the start then).
    pub end: usize,
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Magnitude digits after sign and prefix: (value, overflowed past u64,
/// digits read).
fn digits(s: &[u8], base: u32) -> (u64, bool, usize) {
    let mut v: u64 = 0;
    let mut over = false;
    let mut n = 0;
    for &b in s {
        let d = match b {
            b'0'..=b'9' => (b - b'0') as u32,
            b'a'..=b'z' => (b - b'a') as u32 + 10,
            b'A'..=b'Z' => (b - b'A') as u32 + 10,
            _ => break,
        };
        if d >= base {
            break;
        }
        match v
            .checked_mul(base as u64)
            .and_then(|x| x.checked_add(d as u64))
        {
            Some(x) => v = x,
            None => over = true,
        }
        n += 1;
    }
    (v, over, n)
}

/// Split off sign and base prefix; `base` 0 means C's auto-detection.
/// Returns (negative, digits, base, offset of the digits in `s`).
fn prepare(s: &[u8], base: u32) -> (bool, &[u8], u32, usize) {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let hex_prefix = rest.len() >= 3
        && rest[0] == b'0'
        && (rest[1] == b'x' || rest[1] == b'X')
        && rest[2].is_ascii_hexdigit();
    match base {
        0 | 16 if hex_prefix => (neg, &rest[2..], 16, i + 2),
        0 if rest.first() == Some(&b'0') => (neg, rest, 8, i),
        0 => (neg, rest, 10, i),
        b => (neg, rest, b, i),
    }
}

/// C's `endptr`: past the digits, or the start when there were none.
fn end_of(at: usize, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        at + n
    }
}

/// `strtoul(s, NULL, base)` on a 64-bit machine.
pub fn strtoul(s: &[u8], base: u32) -> Conv<u64> {
    let (neg, rest, base, at) = prepare(s, base);
    let (v, over, n) = digits(rest, base);
    let end = end_of(at, n);
    if over {
        return Conv {
            value: u64::MAX,
            range_error: true,
            end,
        };
    }
    Conv {
        value: if neg { v.wrapping_neg() } else { v },
        range_error: false,
        end,
    }
}

/// `strtol(s, NULL, base)` on a 64-bit machine.
pub fn strtol(s: &[u8], base: u32) -> Conv<i64> {
    let (neg, rest, base, at) = prepare(s, base);
    let (v, over, n) = digits(rest, base);
    let end = end_of(at, n);
    let limit = if neg {
        i64::MIN.unsigned_abs()
    } else {
        i64::MAX as u64
    };
    if over || v > limit {
        let value = if neg { i64::MIN } else { i64::MAX };
        return Conv {
            value,
            range_error: true,
            end,
        };
    }
    let value = if neg {
        (v as i64).wrapping_neg()
    } else {
        v as i64
    };
    Conv {
        value,
        range_error: false,
        end,
    }
}

/// C `isdigit` on the first byte of a value.
pub fn starts_with_digit(s: &[u8]) -> bool {
    s.first().is_some_and(|b| b.is_ascii_digit())
}

/// auditctl's test for a negative number: `-` followed by a digit.
pub fn starts_negative(s: &[u8]) -> bool {
    s.len() >= 2 && s[0] == b'-' && s[1].is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bases_and_junk() {
        assert_eq!(strtoul(b"0x1F", 0).value, 31);
        assert_eq!(strtoul(b"010", 0).value, 8);
        assert_eq!(strtoul(b"08", 0).value, 0);
        assert_eq!(strtoul(b"12abc", 0).value, 12);
        assert_eq!(strtoul(b"12abc", 0).end, 2);
        assert_eq!(strtoul(b"0x1Fz", 0).end, 4);
        assert_eq!(strtoul(b"0x", 0).end, 1);
        assert_eq!(strtoul(b"abc", 0).end, 0);
        assert_eq!(strtol(b"-13", 0).end, 3);
        assert_eq!(strtoul(b"0x", 0).value, 0);
        assert_eq!(strtoul(b"c000003e", 16).value, 0xc000003e);
        assert_eq!(strtoul(b"-1", 0).value, u64::MAX);
        assert_eq!(strtol(b"-13", 0).value, -13);
    }

    #[test]
    fn overflow_saturates() {
        let c = strtoul(b"99999999999999999999999", 0);
        assert!(c.range_error);
        assert_eq!(c.value, u64::MAX);
        let c = strtol(b"-99999999999999999999999", 0);
        assert!(c.range_error);
        assert_eq!(c.value, i64::MIN);
        assert_eq!(strtol(b"9223372036854775808", 0).value, i64::MAX);
    }

    proptest! {
        #[test]
        fn decimal_matches_rust(n in any::<u32>()) {
            let s = n.to_string();
            prop_assert_eq!(strtoul(s.as_bytes(), 0).value, n as u64);
            prop_assert_eq!(strtol(format!("-{n}").as_bytes(), 0).value, -(n as i64));
        }

        #[test]
        fn never_panics(s in proptest::collection::vec(any::<u8>(), 0..40), base in prop_oneof![Just(0u32), Just(10), Just(16)]) {
            let _ = strtoul(&s, base);
            let _ = strtol(&s, base);
        }
    }
}
