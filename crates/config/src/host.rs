//! What the checks ask of the live system, as a trait: the crate reads
//! only the file, and the caller (or a test) answers for the system.

/// The facts about the live system that auditd's checks consult.
pub trait Host {
    /// gid of a group name (`getgrnam`).
    fn group_id(&self, name: &str) -> Option<u32>;
    /// auditd's log_file checks: the directory exists; an existing file is
    /// regular and owned by root. Ok: warnings (permissions).
    fn check_log_file(&self, path: &str) -> Result<Vec<String>, String>;
    /// auditd's `exec` program checks: a regular file owned by root, mode
    /// 0750, 0755, 0555 or 0550.
    fn check_exe(&self, path: &str) -> Result<(), String>;
    /// Whether /usr/lib/sendmail is executable (for `email` actions).
    fn mail_command_executable(&self) -> bool;
    /// auditd's `verify_email` look-up of the domain after the `@` of
    /// action_mail_acct (getaddrinfo): Err says why it failed.
    fn look_up_mail_domain(&self, domain: &str) -> Result<(), String>;
}
