//! `fastaudit ctl`: auditctl's command line, sent to the running `fastaudit
//! run` over its control socket (fastaudit_daemon::control), which judges it and
//! says what to print and the exit code.

use anyhow::{Context, Result};
use fastaudit_daemon::control::socket::{socket_path, Reply, Request, NOT_ROOT, NOT_ROOT_CODE};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::process::ExitCode;

/// Send the command line; print the daemon's answer; its exit code. (A
/// lone -h or --help never gets here: main prints `fastaudit help ctl`.)
pub fn run(args: &[OsString]) -> Result<ExitCode> {
    let mut words: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    // The daemon reads -R's file: name it from here.
    if let [r, file] = words.as_mut_slice() {
        if r.as_slice() == b"-R" {
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(file));
            if let Ok(abs) = std::path::absolute(path) {
                *file = abs.as_os_str().as_bytes().to_vec();
            }
        }
    }
    let path = socket_path();
    let mut stream = match UnixStream::connect(&path) {
        Ok(s) => s,
        // Only root may open the socket (and the daemon checks again).
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            eprintln!("{NOT_ROOT}");
            return Ok(ExitCode::from(NOT_ROOT_CODE));
        }
        Err(e) => {
            eprintln!(
                "fastaudit ctl: fastaudit run is not running ({}: {e})",
                path.display()
            );
            return Ok(ExitCode::from(1));
        }
    };
    let mut line = serde_json::to_vec(&Request { words }).context("encoding the request")?;
    line.push(b'\n');
    stream.write_all(&line).context("sending the request")?;
    let mut answer = Vec::new();
    BufReader::new(&stream)
        .read_until(b'\n', &mut answer)
        .context("reading the daemon's answer")?;
    let reply: Reply = serde_json::from_slice(&answer).context("reading the daemon's answer")?;
    std::io::stdout().write_all(&reply.out)?;
    std::io::stderr().write_all(&reply.err)?;
    Ok(ExitCode::from(reply.code))
}
