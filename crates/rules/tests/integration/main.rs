//! The rules crate's integration tests, one binary: the parser under
//! generated input, the golden listings, the io_uring list. Run one module
//! with `cargo test -p fastaudit-rules --test integration MODULE::`.

mod fuzz_parse;
mod golden;
mod io_uring;
