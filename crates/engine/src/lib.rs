//! The engine: compiles a rule set into a plan (`plan`, `rule`): the
//! per-syscall rule tables, the hooks and the exact BPF programs and
//! attach points (`hooks`), and the map images (`image`, with the live
//! paths `resolve`d and `watches` followed); then the runtime only loads,
//! fills, attaches, reads the ring buffer and assembles audit events
//! (`runtime`).

mod exec_files;
pub mod exit_records;
pub mod explain;
mod generation;
pub mod hooks;
pub mod image;
pub mod kinds;
mod lookup;
pub mod names;
pub mod path_args;
pub mod perm;
pub mod plan;
pub mod resolve;
mod ring;
pub mod rule;
pub mod runtime;
mod samples;
pub mod start_trace;
pub mod syscalls;
pub mod uring;
pub mod uring_paths;
pub mod watches;

#[cfg(test)]
mod test_rules;

pub use hooks::{AttachPoint, Attachment, Hook};
pub use image::{ImageError, MapImages, Rodata};
pub use kinds::{inode_tracepoints, Features, HookKinds, InodeSource, Kind, Probe, UringSubmit};
pub use plan::{compile, CompileError, CompiledRule, Environment, Plan, Test, Watch};
pub use resolve::Resolved;
pub use runtime::{
    run, run_live, Attached, AuditEvent, EngineError, Handler, Options, Stats, RING_BUFFER_BYTES,
};
pub use samples::Aux;
