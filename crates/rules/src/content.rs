//! What a rules file must be before its lines are read: text, with Unix
//! line endings. auditctl reads any bytes: it stops each line at a NUL and
//! keeps a carriage return as part of the line's last word, so a binary
//! file loads as a stream of odd lines and a CRLF file watches
//! `/etc/passwd\r`, not `/etc/passwd`. Neither is ever what was meant, so
//! fastaudit refuses the whole file with one message saying how to fix it.

/// UTF-16 byte order marks (little and big endian), as Windows editors write them.
const UTF16_BOMS: [&[u8]; 2] = [b"\xff\xfe", b"\xfe\xff"];
/// The UTF-8 byte order mark.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Why the bytes of a rules file are not text auditctl reads as written.
pub fn check(data: &[u8]) -> Result<(), String> {
    if let Some(at) = data.iter().position(|&b| b == 0) {
        let line = line_of(data, at);
        if UTF16_BOMS.iter().any(|bom| data.starts_with(bom)) {
            return Err(format!(
                "UTF-16 text (a NUL byte at line {line}), refused: \
                 convert it with iconv -f UTF-16 -t UTF-8"
            ));
        }
        return Err(format!(
            "binary data (a NUL byte at line {line}), refused: not a rules file"
        ));
    }
    if data.starts_with(UTF8_BOM) {
        return Err(
            "UTF-8 byte order mark at the start, refused: auditctl would read it as part \
             of the first word; remove it with sed -i '1s/^\\xEF\\xBB\\xBF//' FILE"
                .to_string(),
        );
    }
    let mut crlf = data
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| l.ends_with(b"\r"))
        .map(|(i, _)| i + 1);
    if let Some(first) = crlf.next() {
        let n = 1 + crlf.count();
        let lines = if n == 1 {
            "1 line ends".to_string()
        } else {
            format!("{n} lines end")
        };
        return Err(format!(
            "CRLF line endings ({lines} in \\r, the first is line {first}), refused: \
             auditctl would keep each \\r as part of the line's last word; \
             convert the file with dos2unix"
        ));
    }
    Ok(())
}

/// The 1-based line (counted by newlines, as an editor counts) of byte `at`.
fn line_of(data: &[u8], at: usize) -> usize {
    1 + data[..at].iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn text_with_unix_line_endings_passes() {
        assert_eq!(check(b""), Ok(()));
        assert_eq!(check(b"-D\n-w /etc/passwd -p wa\n"), Ok(()));
        assert_eq!(
            check(b"-w /etc/passwd\r -p wa\n"),
            Ok(()),
            "a CR inside a line"
        );
        assert_eq!(check("-k caf\u{e9}\n".as_bytes()), Ok(()));
    }

    #[test]
    fn nul_bytes_are_binary() {
        let err = check(&vec![0; 1 << 20]).unwrap_err();
        assert_eq!(
            err,
            "binary data (a NUL byte at line 1), refused: not a rules file"
        );
        let err = check(b"-D\n-b 8192\n-w /etc/group\0 -p x\n").unwrap_err();
        assert!(err.contains("a NUL byte at line 3"), "{err}");
        let utf16: Vec<u8> = "\u{feff}-D\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let err = check(&utf16).unwrap_err();
        assert!(
            err.starts_with("UTF-16 text (a NUL byte at line 1), refused"),
            "{err}"
        );
    }

    #[test]
    fn crlf_is_one_refusal_for_the_file() {
        let err = check(b"# rules\r\n-D\r\n-w /etc/passwd\r\n").unwrap_err();
        assert_eq!(
            err,
            "CRLF line endings (3 lines end in \\r, the first is line 1), refused: \
             auditctl would keep each \\r as part of the line's last word; \
             convert the file with dos2unix"
        );
        let err = check(b"-D\n-w /etc/passwd\r").unwrap_err();
        assert!(
            err.contains("(1 line ends in \\r, the first is line 2)"),
            "{err}"
        );
    }

    #[test]
    fn utf8_byte_order_mark_is_refused() {
        let err = check(b"\xef\xbb\xbf-D\n").unwrap_err();
        assert!(
            err.starts_with("UTF-8 byte order mark at the start, refused"),
            "{err}"
        );
    }

    proptest! {
        /// Whatever the bytes, a file passes exactly when it has no NUL, no
        /// UTF-8 byte order mark and no line ending in CR.
        #[test]
        fn passes_exactly_clean_text(data in proptest::collection::vec(
            prop::sample::select(vec![0u8, b'\r', b'\n', b'a', b' ', 0xef, 0xbb, 0xbf]), 0..40)) {
            let clean = !data.contains(&0)
                && !data.starts_with(UTF8_BOM)
                && !data.split(|&b| b == b'\n').any(|l| l.ends_with(b"\r"));
            prop_assert_eq!(check(&data).is_ok(), clean);
        }
    }
}
