//! The host: what this kernel offers (hook kinds, tracepoints, functions,
//! BTF layouts, LSMs, its version), probed once at start, and the kernel's
//! identity of a file as user space sees it.
//!
//! The rule of this layer: it finds facts and hands them on as data; it
//! plans nothing, loads no rule set and reads no event.

pub(crate) mod btf;
pub(crate) mod cgroups;
pub(crate) mod facts;
pub(crate) mod identity;
pub(crate) mod kallsyms;
pub(crate) mod kinds;
pub(crate) mod lsm;
pub(crate) mod mountinfo;
pub(crate) mod preemption;
pub(crate) mod probe;
pub(crate) mod tracefs;
