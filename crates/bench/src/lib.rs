//! The benchmark harness behind `fastaudit bench`: runs the audit-overhead
//! experiments (getpid, audited calls, lmbench operations, sysbench-style
//! threads, io_uring, a compile) with no audit, kernel audit + auditd and
//! fastaudit, in interleaved rounds, and reports medians, spreads and ratios;
//! and, apart from the modes, the time to check and compile 100,000 rules
//! and fastaudit's start-up time and idle memory.

pub mod facts;
pub mod kernel;
pub mod modes;
pub mod report;
pub mod rules_scale;
pub mod rulesets;
pub mod startup;
pub mod stats;
pub mod suite;
pub mod worker;

pub use suite::{run, Config, Results, Sample, Scenario};

use thiserror::Error;

/// Why a benchmark run could not go on.
#[derive(Debug, Error)]
pub enum BenchError {
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A command the harness drives failed.
    #[error("{0}")]
    Command(String),
    /// The machine is not in a state the harness may change.
    #[error("{0}")]
    Refused(String),
    /// The run was interrupted (SIGINT/SIGTERM); the machine was restored.
    #[error("interrupted; the machine was restored")]
    Interrupted,
}

/// Attach a description to an I/O error.
pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BenchError {
    let what = what.into();
    move |source| BenchError::Io { what, source }
}
