//! I/O errors as auditctl and coreutils print them: the system's text for
//! the error ("No such file or directory"), without the "(os error 2)"
//! Rust's `Display` adds.

use std::io;

/// The text of an I/O error for a message to the administrator.
pub fn describe(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_text_without_the_code() {
        let missing = std::fs::metadata("/nonexistent/x.rules").unwrap_err();
        assert_eq!(describe(&missing), "No such file or directory");
        let denied = io::Error::from_raw_os_error(nix::libc::EACCES);
        assert_eq!(describe(&denied), "Permission denied");
        // An error that is no system error keeps its own text.
        let other = io::Error::new(io::ErrorKind::InvalidData, "bad bytes");
        assert_eq!(describe(&other), "bad bytes");
    }
}
