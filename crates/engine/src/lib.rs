//! The engine, in two layers.
//!
//! Planning, which loads no BPF: a rule set (`rule`: one rule's tests) is
//! [`compile`]d into a [`Plan`] (`plan`): the per-syscall rule tables,
//! the io_uring list (`uring`), the hooks ([`Hook`], chosen by `hooks`)
//! for the kernel facts it was made for ([`Environment`], `kinds`); its
//! map images (`image`, with the live paths `resolve`d and `watches`
//! followed) and `--explain` (`explain`) come from the plan alone.
//!
//! Running, over libbpf: `probe` finds the kernel facts; the runtime
//! ([`run_live`], one `generation` per rule set loaded) loads, fills and
//! attaches, reads the ring buffer (`ring`, `samples`) and assembles
//! audit events ([`AuditEvent`]); [`names`], [`exit_records`] and
//! [`uring_paths`] decode their records for the caller.
//!
//! The header's limits (`limits`) and the errors ([`EngineError`],
//! [`CompileError`]) are shared. Items are public at the crate root; the
//! modules the daemon and the kernel test call by module are public
//! themselves, their items only there.

mod compile;
mod error;
mod event;
mod exec_files;
pub mod exit_records;
mod explain;
mod gates;
mod generation;
mod hook;
mod hooks;
mod identity;
mod image;
mod kinds;
mod limits;
mod lookup;
mod mq_names;
pub mod names;
mod options;
mod path_args;
mod perm;
mod plan;
mod probe;
pub mod refusal;
mod resolve;
mod ring;
mod rule;
mod runtime;
mod samples;
mod sent;
pub mod start_trace;
pub mod syscalls;
mod uring;
mod uring_groups;
pub mod uring_paths;
pub mod uring_sq;
mod watch_follow;
mod watches;

#[cfg(test)]
mod test_rules;

pub use compile::compile;
pub use error::EngineError;
pub use event::AuditEvent;
pub use generation::{refused_at_load, Attached};
pub use hook::{AttachPoint, Attachment, Hook, Noted};
pub use image::{ImageError, MapImages, Rodata};
pub use kinds::{
    Features, FunctionLookup, HookKinds, InodeSource, KernelFunctions, Kind, LsmLabels, Probe,
    UringSubmit,
};
pub use limits::RING_BUFFER_BYTES;
pub use options::Options;
pub use plan::{Environment, Plan};
pub use probe::inode_tracepoints;
pub use refusal::Refusal;
pub use resolve::Resolved;
pub use rule::{CompileError, CompiledRule, Test, Watch};
pub use runtime::{run, run_live, Handler, Stats};
pub use samples::Aux;
pub use uring::UringPlan;
pub use watches::WatchTable;
