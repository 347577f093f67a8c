//! The auditctl rule language: read rules files the way `auditctl -R` and
//! augenrules do, refuse what auditctl or the kernel would refuse, and list
//! the result exactly as `auditctl -l` prints it.
//!
//! Data flows `source` (files and directories read safely) → `lexer`
//! (lines and words) → `getopt` (options) → `parse` (one request per line,
//! auditctl's checks) → `ruleset` (the kernel's checks, duplicate and
//! delete semantics, list order) → `listing`. Along the way, what auditctl
//! takes silently otherwise than written is collected as `warning`s; a
//! file that is no plain text is refused whole (`content`); refusals name
//! the likely fix (`suggest`), and `report` prints them, bounded per file.

pub mod abi;
pub mod cnum;
pub mod content;
pub mod data;
pub mod getopt;
pub mod host;
pub mod lexer;
pub mod listing;
mod origin;
pub mod os_error;
pub mod parse;
pub mod partial;
pub mod report;
pub mod rule;
pub mod ruleset;
pub mod settings;
pub mod size;
pub mod source;
pub mod suggest;
pub mod syscall_sets;
pub mod tables;
pub mod target;
pub mod warning;

pub use host::{FixedHost, FixedHostOn, Host, SystemHost};
pub use partial::Partial;
pub use rule::{Field, Rule};
pub use ruleset::{LineError, LoadErrors, Loaded, Origin, RuleSet};
pub use settings::Setting;
pub use target::Target;
pub use warning::Warning;
