//! Messages to the system log (facility daemon, ident fastaudit), as
//! auditd sends its own: the log writer's fault and space actions and the
//! plugin dispatcher's reports share this one way there.

use std::ffi::CString;

/// Syslog priorities fastaudit uses.
#[derive(Clone, Copy, Debug)]
pub enum Priority {
    /// LOG_ALERT.
    Alert,
    /// LOG_ERR.
    Err,
    /// LOG_NOTICE.
    Notice,
}

/// Send `msg` to syslog (facility daemon, ident fastaudit), as auditd does
/// for its dispatcher's messages.
pub fn syslog(p: Priority, msg: &str) {
    static OPEN: std::sync::Once = std::sync::Once::new();
    OPEN.call_once(|| {
        // SAFETY: the ident is a static C string that outlives the process's use of it.
        unsafe { libc::openlog(c"fastaudit".as_ptr(), libc::LOG_PID, libc::LOG_DAEMON) };
    });
    let level = match p {
        Priority::Alert => libc::LOG_ALERT,
        Priority::Err => libc::LOG_ERR,
        Priority::Notice => libc::LOG_NOTICE,
    };
    let Ok(text) = CString::new(msg.replace('\0', " ")) else {
        return;
    };
    // SAFETY: a constant "%s" format with one valid C string argument.
    unsafe { libc::syslog(level, c"%s".as_ptr(), text.as_ptr()) };
}
