//! The engine: rules to plan, plan to hooks and maps in the kernel, the
//! ring buffer to audit events. One folder per layer, each with one job and
//! a rule about what it may touch (its opening comment says it), and data
//! flowing one way:
//!
//! - `plan`: a rule set compiled into a [`Plan`] and its map images;
//!   pure, the host's facts given in as data.
//! - `host`: probing this kernel once at start; the kernel's identity of
//!   a file.
//! - `load`: one generation of a plan loaded, filled and attached.
//! - `read`: the ring buffer's samples assembled into events.
//! - `decode`: an event's samples into its records' payloads, so that
//!   the caller receives each [`AuditEvent`] decoded.
//!
//! The runtime (`runtime`: [`run_live`]) ties them together; the header's
//! limits (`limits`), the run's tunables (`options`), the samples'
//! payloads (`payload`: `read` cuts them out, `decode` reads them; those
//! two never import each other) and the errors
//! ([`EngineError`], [`CompileError`]) are shared by all. Items are public
//! at the crate root; the modules the daemon and the kernel test call by
//! module are public themselves, their items only there.

mod decode;
mod error;
mod event;
mod host;
mod limits;
mod load;
mod options;
mod payload;
mod plan;
mod read;
mod runtime;

pub use load::start_trace;
pub use plan::syscalls;

pub use error::EngineError;
pub use event::AuditEvent;
pub use host::tracefs::inode_tracepoints;
pub use limits::RING_BUFFER_BYTES;
pub use load::generation::{refused_at_load, Attached};
pub use load::resolve::Resolved;
pub use load::watches::WatchTable;
pub use options::Options;
pub use plan::compile::compile;
pub use plan::hook::{AttachPoint, Attachment, Hook, Noted};
pub use plan::image::{ImageError, LivePaths, MapImages, Rodata};
pub use plan::kinds::{
    CgroupView, Features, HookKinds, InodeSource, KernelFunctions, Kind, LsmLabels, Probe,
    UringSubmit,
};
pub use plan::refusal::Refusal;
pub use plan::rule::{CompileError, CompiledRule, Test, Watch};
pub use plan::uring::UringPlan;
pub use plan::{Environment, Plan};
pub use runtime::{run, run_live, Handler, Stats};
