//! The signals a run answers, as auditd does: SIGINT and SIGTERM stop it,
//! SIGHUP reads auditd.conf and the rules again, SIGUSR1 rotates the log,
//! SIGUSR2 resumes logging and plugins; SIGXFSZ is caught so that a file
//! size limit fails a write (EFBIG, a disk error) instead of killing the
//! daemon without its counts. Each is a flag the event loop reads.

use crate::error::Error;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGXFSZ};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The flags the handlers set.
#[derive(Debug, Default)]
pub struct Signals {
    /// SIGINT or SIGTERM: stop (the engine reads it).
    pub stop: Arc<AtomicBool>,
    /// SIGTERM alone: the kernel knows who sent it.
    term: Arc<AtomicBool>,
    hup: Arc<AtomicBool>,
    usr1: Arc<AtomicBool>,
    usr2: Arc<AtomicBool>,
}

impl Signals {
    /// Install every handler.
    pub fn install() -> Result<Signals, Error> {
        let s = Signals::default();
        let register = |sig, flag: &Arc<AtomicBool>| {
            signal_hook::flag::register(sig, Arc::clone(flag)).map_err(Error::Signals)
        };
        register(SIGINT, &s.stop)?;
        register(SIGTERM, &s.stop)?;
        register(SIGXFSZ, &Arc::default())?;
        register(SIGTERM, &s.term)?;
        register(SIGUSR2, &s.usr2)?;
        register(SIGUSR1, &s.usr1)?;
        register(SIGHUP, &s.hup)?;
        Ok(s)
    }

    /// Whether SIGHUP came since the last call.
    pub fn take_hup(&self) -> bool {
        self.hup.swap(false, Ordering::Relaxed)
    }

    /// Whether SIGUSR1 came since the last call.
    pub fn take_usr1(&self) -> bool {
        self.usr1.swap(false, Ordering::Relaxed)
    }

    /// Whether SIGUSR2 came since the last call.
    pub fn take_usr2(&self) -> bool {
        self.usr2.swap(false, Ordering::Relaxed)
    }

    /// Whether a SIGTERM came.
    pub fn terminated(&self) -> bool {
        self.term.load(Ordering::Relaxed)
    }
}
