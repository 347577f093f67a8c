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
    for &b in s {
        out.push(HEX[(b >> 4) as usize]);
        out.push(HEX[(b & 15) as usize]);
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
}
