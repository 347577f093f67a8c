//! fastaudit's kernel side: the BPF object (`src/bpf/fastaudit.bpf.c`)
//! and its skeleton. The types shared with the kernel (`fa_rule`,
//! `fa_span`, `fa_exe`, `fa_event`) are generated from the one header,
//! `src/bpf/fastaudit.h`.

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
