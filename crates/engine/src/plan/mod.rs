//! Planning: a rule set into a [`Plan`] and the exact contents of the BPF
//! object's maps and read-only data for it.
//!
//! The rule of this layer: it is pure. It loads no BPF (no libbpf), reads
//! no file, runs no process and probes nothing; what the host offers comes
//! in as data ([`Environment`], and the live paths' identities given to
//! the map images). So a plan is the same wherever it is made, and every
//! decision in it can be tested without root. (`testsupport`'s structure
//! check holds this folder to that rule.)

pub(crate) mod compile;
pub(crate) mod compiled;
pub(crate) mod degrade;
pub(crate) mod explain;
pub(crate) mod gates;
pub(crate) mod hook;
pub(crate) mod hooks;
pub(crate) mod image;
pub(crate) mod kinds;
pub(crate) mod path_args;
pub(crate) mod perm;
pub(crate) mod refusal;
pub(crate) mod rule;
pub mod syscall_functions;
pub mod syscalls;
#[cfg(test)]
mod target_tests;
#[cfg(test)]
pub(crate) mod test_rules;
pub(crate) mod uring;

pub use compiled::{Environment, Plan};
