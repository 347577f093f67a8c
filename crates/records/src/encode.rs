//! The kernel's encoding of strings that user space controls
//! (`audit_log_untrustedstring`): quoted as-is when every byte is printable
//! ASCII other than `"` and space, otherwise the whole value in upper-case hex.

/// Whether the kernel would hex-encode this value.
pub fn needs_hex(s: &[u8]) -> bool {
    s.iter().any(|&b| b == b'"' || !(0x21..=0x7e).contains(&b))
}

/// Append `s` encoded as the kernel encodes untrusted strings.
pub fn untrusted(out: &mut Vec<u8>, s: &[u8]) {
    if needs_hex(s) {
        hex_upper(out, s);
    } else {
        out.push(b'"');
        out.extend_from_slice(s);
        out.push(b'"');
    }
}

/// Append upper-case hex of `s` (`audit_log_n_hex`).
pub fn hex_upper(out: &mut Vec<u8>, s: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let start = out.len();
    out.resize(start + 2 * s.len(), 0);
    for (pair, &b) in out[start..].chunks_exact_mut(2).zip(s) {
        pair[0] = HEX[(b >> 4) as usize];
        pair[1] = HEX[(b & 15) as usize];
    }
}

/// The kernel's `isprint` (its ctype table is Latin-1: 0xA0-0xFF print).
pub fn kernel_isprint(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) || b >= 0xa0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(s: &[u8]) -> String {
        let mut v = Vec::new();
        untrusted(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn quoted_or_hex() {
        assert_eq!(enc(b"chmod"), "\"chmod\"");
        assert_eq!(enc(b"a'b\\c=type=x"), "\"a'b\\c=type=x\"");
        assert_eq!(enc(b"sp ace"), "737020616365");
        assert_eq!(enc(b"q\"uote"), "7122756F7465");
        assert_eq!(enc(b"ka\x01kb"), "6B61016B62");
        assert_eq!(enc("é".as_bytes()), "C3A9");
        assert_eq!(enc(b"nl\n"), "6E6C0A");
        assert_eq!(enc(b"del\x7f"), "64656C7F");
    }

    /// What auparse does with an encoded value: unquote, or decode hex.
    fn decode(v: &[u8]) -> Option<Vec<u8>> {
        if let Some(q) = v.strip_prefix(b"\"").and_then(|r| r.strip_suffix(b"\"")) {
            return Some(q.to_vec());
        }
        if !v.len().is_multiple_of(2) {
            return None;
        }
        v.chunks(2)
            .map(|c| u8::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, ..Default::default() })]

        /// Any bytes: the encoding is one printable word (no space, no
        /// newline, nothing a log line could be split on) that decodes
        /// back to them; quoted exactly when the kernel would.
        #[test]
        fn any_bytes_round_trip(s in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
            let mut v = Vec::new();
            untrusted(&mut v, &s);
            proptest::prop_assert!(v.iter().all(|&b| (0x21..=0x7e).contains(&b)), "{:?}", v);
            proptest::prop_assert_eq!(v.first() == Some(&b'"'), !needs_hex(&s));
            proptest::prop_assert_eq!(decode(&v), Some(s));
        }
    }
}
