//! The live system's answers to auditd.conf's checks (groups, the log
//! directory and file, `exec` programs), as auditd 3.0.9 looks them up.

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
        std::fs::read_dir(dir).map_err(|e| format!("could not open dir {dir} ({e})"))?;
        let m = match std::fs::metadata(path) {
            Ok(m) => m,
            // Created at start.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
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
        let m = std::fs::metadata(path).map_err(|e| format!("unable to stat {path} ({e})"))?;
        if !m.is_file() {
            return Err(format!("{path} is not a regular file"));
        }
        if m.uid() != 0 {
            return Err(format!("{path} is not owned by root"));
        }
        if ![0o750, 0o755, 0o555, 0o550].contains(&(m.permissions().mode() & 0o777)) {
            return Err(format!(
                "{path} permissions should be 0750, 0755, 0555 or 0550"
            ));
        }
        Ok(())
    }

    fn mail_command_executable(&self) -> bool {
        nix::unistd::access("/usr/lib/sendmail", nix::unistd::AccessFlags::X_OK).is_ok()
    }
}
