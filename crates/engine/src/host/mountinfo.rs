//! /proc/self/mountinfo's fields as written: the kernel escapes space,
//! tab, newline and backslash in paths as `\ooo`.

/// A mountinfo field with its octal escapes undone.
pub(crate) fn unescape_octal(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let oct = s
            .get(i + 1..i + 4)
            .filter(|d| s[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match oct {
            Some(d) => {
                out.push(d.iter().fold(0u8, |a, c| a.wrapping_mul(8) + (c - b'0')));
                i += 4;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes() {
        assert_eq!(unescape_octal(br"/mnt/a\040b"), b"/mnt/a b");
        assert_eq!(unescape_octal(br"/x\\y"), br"/x\\y");
        assert_eq!(unescape_octal(br"/x\134y"), br"/x\y");
    }
}
