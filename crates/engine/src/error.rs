//! Why the engine could not start or keep running.

use crate::plan::image::ImageError;
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
    /// The kernel refused these programs (at load or attach): compile the
    /// rules again with them in `Environment::refused`.
    #[error("{}", refused_list(.0))]
    Refused(Vec<crate::plan::refusal::Refusal>),
    /// The plan does not fit the kernel tables.
    #[error(transparent)]
    Image(#[from] ImageError),
}

pub(crate) fn bpf(what: impl Into<String>) -> impl FnOnce(libbpf_rs::Error) -> EngineError {
    let what = what.into();
    move |source| EngineError::Bpf { what, source }
}

fn refused_list(refused: &[crate::plan::refusal::Refusal]) -> String {
    let all: Vec<String> = refused.iter().map(ToString::to_string).collect();
    all.join("; ")
}
