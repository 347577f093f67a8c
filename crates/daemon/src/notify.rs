//! systemd's readiness notification (`Type=notify`): `READY=1` on the
//! socket named by $NOTIFY_SOCKET, when there is one.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};

/// Tell systemd (if it started us) that fastaudit is ready.
pub fn ready() -> std::io::Result<()> {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else {
        return Ok(());
    };
    let bytes = path.as_encoded_bytes();
    // '@' names a socket in the abstract namespace.
    let addr = match bytes.strip_prefix(b"@") {
        Some(name) => SocketAddr::from_abstract_name(name)?,
        None => SocketAddr::from_pathname(std::path::Path::new(&path))?,
    };
    let sock = UnixDatagram::unbound()?;
    sock.send_to_addr(b"READY=1", &addr)?;
    Ok(())
}
