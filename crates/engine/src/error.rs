//! Why the engine could not start or keep running.

use crate::image::ImageError;
use thiserror::Error;

/// Why the engine could not start or keep running.
#[derive(Debug, Error)]
pub enum EngineError {
    /// Loading or attaching BPF failed (not root, BPF unavailable, ...).
    #[error("{what}: {source}")]
    Bpf {
        what: String,
        source: libbpf_rs::Error,
    },
    /// The plan cannot run here (no hook kind, bad ring buffer size).
    #[error("{0}")]
    Plan(String),
    /// The plan does not fit the kernel tables.
    #[error(transparent)]
    Image(#[from] ImageError),
}

pub(crate) fn bpf(what: impl Into<String>) -> impl FnOnce(libbpf_rs::Error) -> EngineError {
    let what = what.into();
    move |source| EngineError::Bpf { what, source }
}
