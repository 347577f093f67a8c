//! The SOCKADDR record: `saddr=` and the address's bytes in upper-case hex
//! (`audit_log_n_hex`), as many as the kernel kept; and auparse's reading
//! of it, which auditd's ENRICHED format adds as `SADDR={ ... }`.

use crate::encode::hex_upper;
use std::net::{Ipv4Addr, Ipv6Addr};

/// The SOCKADDR body for an address of `bytes`.
pub fn body(bytes: &[u8]) -> Vec<u8> {
    let mut o = b"saddr=".to_vec();
    hex_upper(&mut o, bytes);
    o
}

/// The family of a sockaddr (its first two bytes, host order).
pub fn family(bytes: &[u8]) -> Option<u16> {
    Some(u16::from_ne_bytes(bytes.get(..2)?.try_into().ok()?))
}

/// The C string at the start of `b` (up to a NUL or its end).
fn c_str(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// auparse's interpretation of a `saddr=` hex value (auditd 3.0.9's
/// `print_sockaddr`), for local, inet, inet6 and netlink addresses.
pub fn interpret(value: &str) -> Option<String> {
    let bytes: Vec<u8> = (0..value.len() / 2)
        .map(|i| u8::from_str_radix(value.get(2 * i..2 * i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    let word = |at: usize| Some(u32::from_ne_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let out = match family(&bytes)? {
        1 => {
            let path = bytes.get(2..).unwrap_or_default();
            match path.first() {
                Some(0) => {
                    let name = &path[1..path.len().min(109)];
                    format!("{{ saddr_fam=local path={} }}", c_str(name))
                }
                Some(_) => format!("{{ saddr_fam=local path={} }}", c_str(path)),
                None => return None,
            }
        }
        2 if bytes.len() < 16 => "{ saddr_fam=inet sockaddr len too short }".to_string(),
        2 => {
            let port = u16::from_be_bytes(bytes[2..4].try_into().ok()?);
            let ip = Ipv4Addr::new(bytes[4], bytes[5], bytes[6], bytes[7]);
            format!("{{ saddr_fam=inet laddr={ip} lport={port} }}")
        }
        10 if bytes.len() < 28 => "{ saddr_fam=inet6 sockaddr6 len too short }".to_string(),
        10 => {
            let port = u16::from_be_bytes(bytes[2..4].try_into().ok()?);
            let a: [u8; 16] = bytes[8..24].try_into().ok()?;
            format!(
                "{{ saddr_fam=inet6 laddr={} lport={port} }}",
                Ipv6Addr::from(a)
            )
        }
        16 if bytes.len() >= 12 => {
            format!("{{ saddr_fam=netlink nlnk-fam=16 nlnk-pid={} }}", word(4)?)
        }
        _ => return None,
    };
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_and_interpretations() {
        assert_eq!(body(&[2, 0, 0x1f, 0x90]), b"saddr=02001F90");
        assert_eq!(
            interpret("02001F907F0000010000000000000000").unwrap(),
            "{ saddr_fam=inet laddr=127.0.0.1 lport=8080 }"
        );
        assert_eq!(
            interpret("0100612F6200").unwrap(),
            "{ saddr_fam=local path=a/b }"
        );
        assert_eq!(
            interpret("01000061626300").unwrap(),
            "{ saddr_fam=local path=abc }"
        );
        assert_eq!(
            interpret("0A001F90000000000000000000000000000000000000000100000000").unwrap(),
            "{ saddr_fam=inet6 laddr=::1 lport=8080 }"
        );
        assert_eq!(
            interpret("100000000000000000000000").unwrap(),
            "{ saddr_fam=netlink nlnk-fam=16 nlnk-pid=0 }"
        );
    }
}
