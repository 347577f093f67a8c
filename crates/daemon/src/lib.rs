//! fastaudit's audit daemon, `fastaudit run`: the BPF engine's events and
//! the kernel's own records, stamped and written to the log and handed to
//! auditd's plugins, as auditd writes and dispatches them; SIGHUP reads
//! auditd.conf and the rules again, and `fastaudit ctl` changes the rules
//! over a control socket, both switched to without a gap.
//!
//! One module per job, as auditd's sources are split: `start` (the
//! start-up), `daemon` (the state of a run and its event loop),
//! `sink` and `output` (the log and what goes to it), `dispatch` (to
//! the plugins), `kernel` (the kernel's netlink side), [`control`] (the
//! control socket), `reconfigure` (auditd.conf again), `rules` (the rules
//! and their switches), `settings` (the flags over auditd.conf).
//! docs/architecture.md draws the whole.

pub mod check;
mod companion;
pub mod control;
mod daemon;
mod dispatch;
pub mod error;
mod event_lines;
pub mod irreversible;
mod kernel;
mod losses;
mod notify;
pub mod options;
mod output;
mod procinfo;
mod reconfigure;
pub mod reference;
mod rules;
pub mod run_dir;
mod settings;
mod signals;
mod sink;
mod start;
mod status;

pub use error::Error;
pub use options::{LogFlags, RunOptions};
/// The rules a run loads (`--rules`, else /etc/audit/rules.d, else the
/// built-in defaults): `fastaudit rules check` checks the same.
pub use rules::load_limited as load_rules;
/// A load's warnings as `fastaudit rules` and `run` print them.
pub use rules::print_warnings;
pub use start::run;
