//! auditd's `exec` action: the administrator's program, run with no
//! arguments and an empty environment (auditd 3.0.9's `safe_exec`; the
//! program cannot be given parameters), and auditd's checks on it: an
//! absolute path to a regular file owned by root, mode 0750, 0755, 0555
//! or 0550. The checks run when the configuration is read and again just
//! before the program runs, so a program replaced meanwhile by something
//! others could have written is not run as root.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

/// The modes auditd accepts for an `exec` program.
const MODES: [u32; 4] = [0o750, 0o755, 0o555, 0o550];

/// auditd's `check_exe_name`: why `path` may not be run, if it may not.
pub fn check(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if !path.is_absolute() {
        return Err(format!("absolute path needed for {shown}"));
    }
    let m = std::fs::metadata(path).map_err(|e| format!("unable to stat {shown} ({e})"))?;
    if !m.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    if m.uid() != 0 {
        return Err(format!("{shown} is not owned by root"));
    }
    if !MODES.contains(&(m.permissions().mode() & 0o777)) {
        return Err(format!(
            "{shown} permissions should be 0750, 0755, 0555 or 0550"
        ));
    }
    Ok(())
}

/// Check `path` again, then run it in the background with no arguments.
pub fn run(path: &Path) -> std::io::Result<()> {
    check(path).map_err(std::io::Error::other)?;
    super::spawn::spawn_reaped(Command::new(path), path.display().to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auditds_program_checks() {
        let d = std::env::temp_dir().join(format!("fastaudit-exe-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("act");
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        let set =
            |mode| std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        let root = nix::unistd::geteuid().is_root();
        for mode in MODES {
            set(mode);
            assert_eq!(check(&p).is_ok(), root, "{mode:o}");
        }
        for mode in [0o777, 0o775, 0o700, 0o751] {
            set(mode);
            assert!(check(&p).is_err(), "{mode:o}");
        }
        assert!(check(Path::new("rel/act"))
            .unwrap_err()
            .contains("absolute path"));
        assert!(check(&d).unwrap_err().contains("not a regular file"));
        assert!(check(&d.join("missing"))
            .unwrap_err()
            .contains("unable to stat"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
