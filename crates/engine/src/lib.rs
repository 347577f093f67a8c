//! The engine: compiles a rule set into the hooks to attach and the
//! per-syscall rule tables the BPF side evaluates.
//!
//! Loading, attaching and reading events arrive with the BPF programs; this
//! crate starts with the compiler so that its semantics are fixed and tested
//! first.

pub mod plan;

pub use plan::{compile, CompileError, CompiledRule, Environment, Hook, Plan, Test};
