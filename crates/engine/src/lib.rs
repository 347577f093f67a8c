//! The engine: compiles a rule set into the hooks to attach and the
//! per-syscall rule tables the BPF side evaluates (`plan`), then loads,
//! attaches, reads the ring buffer and assembles audit events (`runtime`).

pub mod kinds;
pub mod perm;
pub mod plan;
pub mod runtime;
pub mod syscalls;
pub mod watches;

pub use kinds::{HookKinds, Kind, Probe};
pub use plan::{compile, CompileError, CompiledRule, Environment, Hook, Plan, Test, Watch};
pub use runtime::{run, Attached, AuditEvent, EngineError, Options, Stats};
