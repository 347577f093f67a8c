//! How bytes become JSON strings. JSON text is UTF-8, and what the kernel
//! logs (file names, command lines, keys) is bytes: valid UTF-8 is kept as
//! it is; a byte that is not part of a valid UTF-8 sequence, a control byte
//! (below 0x20, 0x7F), `%` and `+` are written `%xx` (two lower-case hex
//! digits), as RFC 3986 percent-encoding writes them and as Laurel does.
//! Every string value is written so, so `%` always starts an escape and
//! any percent-decoder (Python's `urllib.parse.unquote_to_bytes`) gives the
//! exact bytes back.

/// Append `%xx` for byte `b`.
fn escaped(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

/// Whether a character of valid UTF-8 is escaped all the same: controls
/// (a name cannot then break a line or a terminal), and `%` and `+`, which
/// would read as an escape (`+` is a space to form decoders).
fn reserved(c: char) -> bool {
    c < ' ' || c == '\x7f' || c == '%' || c == '+'
}

/// `bytes` as a JSON string value (see the module's comment).
pub fn percent(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if reserved(c) {
                // A reserved character is ASCII: one byte.
                escaped(&mut out, c as u8);
            } else {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            escaped(&mut out, b);
        }
    }
    out
}
