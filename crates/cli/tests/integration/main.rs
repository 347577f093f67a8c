//! fastaudit's integration tests, one binary (cargo links the daemon and
//! libbpf once, not once per file), one module per topic. They drive the
//! real `fastaudit` binary; those that change the kernel's audit state
//! take testsupport's kernel lock, so they run one at a time while the
//! rest run in parallel. Run one module with
//! `cargo test -p fastaudit --test integration MODULE::`.

mod auditor_tools;
mod bench_quick;
mod config_check;
mod containers;
mod corpus_loads;
mod ctl;
mod daemon;
mod differential;
mod differential_paths;
mod differential_records;
mod json_log;
mod kern_module;
mod kernel_guard;
mod log_actions;
mod log_faults;
mod log_reader_fuzz;
mod losses;
mod manpages;
mod messages;
mod partial_rules;
mod plugins;
mod readme;
mod reconfigure;
mod refused_programs;
mod reload;
mod rules_augenrules;
mod rules_cli;
mod rules_control;
mod rules_generated;
mod rules_golden;
mod rules_input;
mod rules_oracle;
mod rules_scale;
mod rules_warnings;
mod run_config;
mod run_e2e;
mod run_exe_path;
mod service;
mod uring_differential;
