//! Why a run could not start or ended with an error.

use fastaudit_engine::{CompileError, EngineError};
use fastaudit_log::LogError;
use fastaudit_netlink::NetlinkError;
use std::path::PathBuf;
use thiserror::Error;

/// Why `fastaudit run` failed.
#[derive(Debug, Error)]
pub enum Error {
    /// The configuration or the rules were refused: one line per problem
    /// (`FILE:LINE: what`), nothing started.
    #[error("{}", .0.join("\n"))]
    Refused(Vec<String>),
    /// A run loads BPF programs.
    #[error("run must be started as root (it loads BPF programs)")]
    NotRoot,
    /// The rules do not compile to a plan.
    #[error("{0}")]
    Compile(CompileError),
    /// The plan cannot run here (no hook kind fits).
    #[error("{0}")]
    Plan(String),
    /// A signal handler could not be installed.
    #[error("installing signal handlers")]
    Signals(#[source] std::io::Error),
    /// The log could not be opened.
    #[error("opening the log {}", path.display())]
    Log {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LogError,
    },
    /// The plugin settings are refused.
    #[error("{0}")]
    Plugins(String),
    /// A step with the kernel audit failed (`what` names it).
    #[error("{what}")]
    Kernel {
        /// The step.
        what: String,
        /// Why.
        #[source]
        source: NetlinkError,
    },
    /// The BPF engine failed.
    #[error("running the BPF engine")]
    Engine(#[source] EngineError),
}

impl Error {
    /// A failed step with the kernel audit.
    pub(crate) fn kernel(what: impl Into<String>) -> impl FnOnce(NetlinkError) -> Error {
        let what = what.into();
        move |source| Error::Kernel { what, source }
    }
}

/// An error and its causes on one line, `what: why: why`, as the
/// command line prints errors.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}
