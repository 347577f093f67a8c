//! Integers appended as text without `core::fmt` (the formatting
//! machinery cost the log writer a fifth of its time at full rate): the
//! same digits `{}`, `{:x}` and `{:o}` give. Decimal is the itoa crate's;
//! hex and octal, which it does not write, are the few lines below.

/// Append `n` in decimal.
pub fn dec(o: &mut Vec<u8>, n: u64) {
    put(o, itoa::Buffer::new().format(n).as_bytes());
}

/// A few bytes pushed one by one: a call to memcpy for each number cost
/// more than the digits (profiled).
#[inline(always)]
fn put(o: &mut Vec<u8>, digits: &[u8]) {
    o.reserve(digits.len());
    for &d in digits {
        o.push(d);
    }
}

/// Append `n` in decimal, with a `-` when negative.
pub fn dec_signed(o: &mut Vec<u8>, n: i64) {
    if n < 0 {
        o.push(b'-');
    }
    dec(o, n.unsigned_abs());
}

/// Append `n` in lower-case hex (`{:x}`).
pub fn hex(o: &mut Vec<u8>, n: u64) {
    radix(o, n, 4, b"0123456789abcdef");
}

/// Append `n` in octal (`{:o}`).
pub fn oct(o: &mut Vec<u8>, n: u64) {
    radix(o, n, 3, b"01234567");
}

/// Append `n` in lower-case hex, at least two digits (`{:02x}`).
pub fn hex2(o: &mut Vec<u8>, n: u64) {
    if n < 16 {
        o.push(b'0');
    }
    hex(o, n);
}

fn radix(o: &mut Vec<u8>, mut n: u64, bits: u32, digits: &[u8]) {
    let mut buf = [0u8; 22];
    let mut i = buf.len();
    let mask = (1u64 << bits) - 1;
    loop {
        i -= 1;
        buf[i] = digits[(n & mask) as usize];
        n >>= bits;
        if n == 0 {
            break;
        }
    }
    put(o, &buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut o = b"x".to_vec();
        f(&mut o);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn edges() {
        for n in [
            0u64,
            1,
            9,
            10,
            99,
            100,
            101,
            999,
            1000,
            4294967295,
            u64::MAX,
        ] {
            assert_eq!(with(|o| dec(o, n)), format!("x{n}"));
            assert_eq!(with(|o| hex(o, n)), format!("x{n:x}"));
            assert_eq!(with(|o| oct(o, n)), format!("x{n:o}"));
            assert_eq!(with(|o| hex2(o, n)), format!("x{n:02x}"));
        }
        for n in [0i64, -1, -4095, i64::MIN, i64::MAX, 42] {
            assert_eq!(with(|o| dec_signed(o, n)), format!("x{n}"));
        }
    }

    proptest::proptest! {
        /// Any number: the digits `core::fmt` gives.
        #[test]
        fn same_as_fmt(n in proptest::prelude::any::<u64>(), s in proptest::prelude::any::<i64>()) {
            proptest::prop_assert_eq!(with(|o| dec(o, n)), format!("x{n}"));
            proptest::prop_assert_eq!(with(|o| hex(o, n)), format!("x{n:x}"));
            proptest::prop_assert_eq!(with(|o| oct(o, n)), format!("x{n:o}"));
            proptest::prop_assert_eq!(with(|o| dec_signed(o, s)), format!("x{s}"));
        }
    }
}
