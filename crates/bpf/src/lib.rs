//! fastaudit's kernel side: the BPF object (`src/bpf/fastaudit.bpf.c`,
//! helpers in `src/bpf/*.bpf.h` by concern) and its skeleton. The types
//! and constants shared with the kernel side (`fa_rule`, `fa_span`,
//! `fa_event`, the `fa_limit`/`fa_stat`/... enums) are generated from the
//! one header, `src/bpf/fastaudit.h`, through the object's BTF.

#[allow(
    clippy::all,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    dead_code
)]
mod skel {
    include!(concat!(env!("OUT_DIR"), "/fastaudit.skel.rs"));
}

pub use skel::*;
