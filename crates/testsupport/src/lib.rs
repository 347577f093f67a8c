//! What the integration tests share: the real kernel audit as the oracle
//! (held by one test at a time and never locked), the `fastaudit` binary
//! run in the background, the differential harnesses that compare it with
//! auditd, and readers of the logs both write.
//!
//! The binary under test is the calling test's
//! `env!("CARGO_BIN_EXE_fastaudit")` (cargo gives it only the cli
//! package's integration tests): functions that run it take it as `bin`.

pub mod auditd;
pub mod bench_bin;
pub mod control;
pub mod daemon_log;
pub mod differential;
pub mod generate;
pub mod golden;
pub mod kernel;
pub mod logread;
pub mod oracle;
pub mod plugins;
pub mod rules;
pub mod run;
pub mod skipped;
#[cfg(test)]
mod structure;
pub mod target;
pub mod uring;
pub mod wait;

pub use kernel::*;
pub use oracle::*;
pub use rules::*;
pub use run::*;
pub use wait::{file_holds, wait_for, wait_until};

/// Whether the running test, which needs the kernel's own audit as its
/// oracle, must be skipped here (see [`oracle::skip_without_kernel_oracle`]);
/// the test is named `binary::test` from the test binary's crate name and
/// the running test's own name.
#[macro_export]
macro_rules! skip_without_kernel_oracle {
    () => {
        $crate::oracle::skip_without_kernel_oracle(&$crate::oracle::current_test(env!(
            "CARGO_CRATE_NAME"
        )))
    };
}
