//! What `fastaudit run` is asked to do: the command line's values (the
//! command-line crate parses and documents each flag).

use fastaudit_engine::Kind;
use fastaudit_log::{Action, Threshold};
use fastaudit_plugins::PluginArgs;
use fastaudit_records::Format;
use std::path::PathBuf;

/// The options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Rules files or directories; none: /etc/audit/rules.d when it
    /// exists, else the built-in default rules.
    pub rules: Vec<PathBuf>,
    /// Refuse the rules on any warning.
    pub strict: bool,
    /// The auditd.conf to read instead of /etc/audit/auditd.conf.
    pub config: Option<PathBuf>,
    /// Read no auditd.conf.
    pub no_config: bool,
    /// The log flags, each over auditd.conf's key of that name.
    pub log: LogFlags,
    /// The plugin flags, each over auditd.conf's key of that name.
    pub plugins: PluginArgs,
    /// The kernel-to-fastaudit ring buffer's size in bytes.
    pub ring_buffer_bytes: u32,
    /// Print the plan and exit without attaching.
    pub explain: bool,
    /// The BPF hook kinds fastaudit may use.
    pub hook_kinds: Vec<Kind>,
    /// Also audit the io_uring ops the kernel never audits.
    pub audit_skipped_uring_ops: bool,
    /// Hook the audited syscalls' own functions where fexit loads.
    pub syscall_function_hooks: bool,
    /// Name each event's container in ENRICHED and JSON.
    pub containers: bool,
    /// Leave the kernel audit as it is; log only the BPF events.
    pub bpf_only: bool,
    /// Stop another registered audit daemon and take its place.
    pub take_over: bool,
    /// Let the rules' irreversible settings reach the kernel.
    pub apply_irreversible: bool,
}

/// The log flags, named after auditd.conf's keys.
#[derive(Clone, Debug, Default)]
pub struct LogFlags {
    /// log_file.
    pub path: Option<PathBuf>,
    /// write_logs.
    pub write_logs: Option<bool>,
    /// log_format.
    pub format: Option<Format>,
    /// max_log_file, in MiB.
    pub max_log_file: Option<u64>,
    /// num_logs.
    pub num_logs: Option<u32>,
    /// disk_full_action.
    pub disk_full_action: Option<Action>,
    /// disk_error_action.
    pub disk_error_action: Option<Action>,
    /// space_left.
    pub space_left: Option<Threshold>,
    /// space_left_action.
    pub space_left_action: Option<Action>,
    /// admin_space_left.
    pub admin_space_left: Option<Threshold>,
    /// admin_space_left_action.
    pub admin_space_left_action: Option<Action>,
}
