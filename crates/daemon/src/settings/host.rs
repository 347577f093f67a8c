//! The live system's answers to auditd.conf's checks (groups, the log
//! directory and file, `exec` programs, the mail command and the mail
//! domain), as auditd 3.0.9 looks them up.

use fastaudit_config::{values::dirname, Host};
use std::os::unix::fs::{MetadataExt, PermissionsExt};

/// The running system.
pub struct SystemHost;

impl Host for SystemHost {
    fn group_id(&self, name: &str) -> Option<u32> {
        nix::unistd::Group::from_name(name)
            .ok()
            .flatten()
            .map(|g| g.gid.as_raw())
    }

    fn check_log_file(&self, path: &str) -> Result<Vec<String>, String> {
        let dir = dirname(path);
        // `fastaudit config check` runs as any user; the log's directory
        // (/var/log/audit is root's, 0700 or 0750) is then often closed to
        // it. Said as a warning: `run`, always root, checks it at start.
        let unchecked = |e: &std::io::Error| {
            (e.kind() == std::io::ErrorKind::PermissionDenied && !nix::unistd::geteuid().is_root())
                .then(|| {
                    vec![format!(
                        "{path} not checked: {dir} cannot be read without root ({e}); fastaudit run checks it at start"
                    )]
                })
        };
        if let Err(e) = std::fs::read_dir(dir) {
            return unchecked(&e).ok_or_else(|| format!("could not open dir {dir} ({e})"));
        }
        let m = match std::fs::metadata(path) {
            Ok(m) => m,
            // Created at start.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) if unchecked(&e).is_some() => return Ok(unchecked(&e).unwrap_or_default()),
            Err(e) => return Err(format!("unable to open {path} ({e})")),
        };
        if !m.is_file() {
            return Err(format!("{path} is not a regular file"));
        }
        if m.uid() != 0 {
            return Err(format!("{path} is not owned by root"));
        }
        let mode = m.permissions().mode();
        let mut warnings = Vec::new();
        // S_IXUSR | S_IWGRP | S_IXGRP | S_IRWXO
        if mode & 0o137 != 0 {
            warnings.push(format!("{path} permissions should be 0600 or 0640"));
        }
        if mode & 0o200 == 0 {
            warnings.push("audit log is not writable by owner".into());
        }
        Ok(warnings)
    }

    fn check_exe(&self, path: &str) -> Result<(), String> {
        // The writer checks the program again with the same code before
        // it runs it.
        fastaudit_log::system_actions::program::check(std::path::Path::new(path))
    }

    fn mail_command_executable(&self) -> bool {
        nix::unistd::access(
            fastaudit_log::system_actions::mail::SENDMAIL,
            nix::unistd::AccessFlags::X_OK,
        )
        .is_ok()
    }

    fn look_up_mail_domain(&self, domain: &str) -> Result<(), String> {
        use std::net::ToSocketAddrs;
        // getaddrinfo, as auditd's validate_email calls it.
        (domain, 0)
            .to_socket_addrs()
            .map(drop)
            .map_err(|e| e.to_string())
    }
}
