//! Programs the kernel refuses (at load: the verifier; at attach: a
//! missing attach point), as data: the loader finds them
//! (`crate::load::refused`), the caller compiles the rules again with them
//! in [`crate::Environment::refused`], and `degrade` works out what the
//! plan does without each.

/// One program this kernel refused, and why (libbpf's and the verifier's words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The program's name in the BPF object.
    pub program: String,
    /// Why: the load error and the verifier's last word, or the attach error.
    pub why: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} refused by the kernel: {}", self.program, self.why)
    }
}
