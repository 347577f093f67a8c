//! Container identity: the cgroup id every event carries (read by the BPF
//! side in the hierarchy the engine chose at start) turned into the
//! container and Kubernetes pod an administrator asks about. `path` reads
//! a cgroup path, `metadata` the runtimes' own files, `resolver` ties
//! them with a cache. The records crate writes what it finds
//! (`fastaudit_records::workload`).

pub mod metadata;
pub mod path;
pub mod resolver;

pub use metadata::Roots;
pub use resolver::Resolver;
