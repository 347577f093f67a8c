//! auditd's node name (`resolve_node`): the `node=NAME` it writes before
//! every record when name_format is not NONE.

use fastaudit_config::Conf;
use std::ffi::{CStr, CString};
use std::net::ToSocketAddrs;

/// The node name the configuration asks for, or why it cannot be had.
pub fn resolve(conf: &Conf) -> Result<Option<String>, String> {
    let host = || {
        // gethostname(2) is uname's nodename.
        nix::sys::utsname::uname()
            .map(|u| u.nodename().to_string_lossy().into_owned())
            .map_err(|_| "unable to get machine name".to_string())
    };
    match conf.word("name_format") {
        Some("hostname") => Ok(Some(host()?.replace(' ', "_"))),
        Some("user") => conf
            .text("name")
            .map(|n| Some(n.to_string()))
            .ok_or_else(|| "name_format = USER: user defined name missing (set name)".into()),
        Some("fqd") => {
            let h = host()?;
            canonical_name(&h)
                .map(Some)
                .ok_or_else(|| format!("cannot resolve hostname {h}"))
        }
        Some("numeric") => {
            let h = host()?;
            (h.as_str(), 0)
                .to_socket_addrs()
                .ok()
                .and_then(|mut a| a.next())
                .map(|a| Some(a.ip().to_string()))
                .ok_or_else(|| format!("cannot resolve hostname {h}"))
        }
        _ => Ok(None),
    }
}

/// getaddrinfo's canonical name (AI_CANONNAME | AI_ADDRCONFIG), as auditd's FQD.
fn canonical_name(host: &str) -> Option<String> {
    let c = CString::new(host).ok()?;
    // SAFETY: hints is a zeroed addrinfo with flags and socktype set, as
    // getaddrinfo expects; the result list is read only while alive and
    // freed once.
    unsafe {
        let mut hints: libc::addrinfo = std::mem::zeroed();
        hints.ai_flags = libc::AI_ADDRCONFIG | libc::AI_CANONNAME;
        hints.ai_socktype = libc::SOCK_STREAM;
        let mut res: *mut libc::addrinfo = std::ptr::null_mut();
        if libc::getaddrinfo(c.as_ptr(), std::ptr::null(), &hints, &mut res) != 0 || res.is_null() {
            return None;
        }
        let name = (!(*res).ai_canonname.is_null()).then(|| {
            CStr::from_ptr((*res).ai_canonname)
                .to_string_lossy()
                .into_owned()
        });
        libc::freeaddrinfo(res);
        name
    }
}
