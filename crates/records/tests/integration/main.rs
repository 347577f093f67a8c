//! The records crate's integration tests, one binary: auditd's own tools
//! (ausearch, aureport) and JSON consumers read what the records crate
//! writes. Run one module with
//! `cargo test -p fastaudit-records --test integration MODULE::`.

mod ausearch;
mod exit_records_tools;
mod json_consumers;
mod tools;
