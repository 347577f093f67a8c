//! Command line syntax (clap).

use clap::{Args, Parser, Subcommand};
use fastaudit_engine::Kind;
use fastaudit_log::{Action, ActionKey, Threshold};
use std::ffi::OsString;
use std::path::PathBuf;

/// fastaudit: Linux syscall auditing with auditctl rules, on eBPF.
#[derive(Debug, Parser)]
#[command(name = "fastaudit", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read, check and list auditctl rules.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Audit the live system with the rules (root; runs in the foreground).
    Run(RunArgs),
    /// The kernel audit's status and, when it runs, fastaudit's counters.
    Status,
    /// Change, list or show the rules of the running `fastaudit run` with
    /// auditctl's options (-l, -s, -a, -A, -d, -w, -W, -D, -R FILE, -e) (root).
    // auditctl's options are passed through untouched, -h included.
    #[command(disable_help_flag = true)]
    Ctl {
        /// auditctl's options and their arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Measure no audit vs kernel audit vs fastaudit, side by side (root).
    // Listed here for `fastaudit --help`; main hands the words after `bench`
    // to the fastaudit-bench binary before clap sees them (bench_cmd.rs).
    #[command(disable_help_flag = true)]
    Bench {
        /// The arguments of `fastaudit-bench` (its own `--help` included).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

/// `fastaudit run`.
#[derive(Clone, Debug, Args)]
pub struct RunArgs {
    /// Rules files or directories; default: /etc/audit/rules.d when present,
    /// else the built-in default rules.
    #[arg(long = "rules", num_args = 1..)]
    pub rules: Vec<PathBuf>,
    /// auditd's configuration file to read (auditd.conf syntax, keys and
    /// defaults); default: /etc/audit/auditd.conf when it exists. Flags
    /// given on the command line win over the file.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Read no auditd.conf: fastaudit's own defaults and the flags only.
    #[arg(long)]
    pub no_config: bool,
    /// Audit log to append to [default: the config's log_file, else
    /// /var/log/fastaudit/audit.log].
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Write the log file at all (auditd's write_logs): with `no`, events
    /// go to the plugins only and no log (nor its directory) is touched
    /// [default: the config's write_logs, else yes].
    #[arg(long, value_name = "yes|no", value_parser = yes_no)]
    pub write_logs: Option<bool>,
    /// Log format [default: the config's log_format, else raw].
    #[arg(long, value_enum)]
    pub format: Option<LogFormat>,
    /// Rotate the log when it reaches this many MiB (auditd's max_log_file);
    /// 0: never rotate [default: the config's, else 8].
    #[arg(long)]
    pub max_log_file: Option<u64>,
    /// Log files kept when rotating, the live one included (auditd's
    /// num_logs) [default: the config's, else 5].
    #[arg(long)]
    pub num_logs: Option<u32>,
    /// auditd.conf's disk_full_action: ignore, syslog, rotate or suspend
    /// (default suspend; SIGUSR2 resumes).
    #[arg(long, value_parser = |s: &str| ActionKey::DiskFull.parse(s))]
    pub disk_full_action: Option<Action>,
    /// auditd.conf's disk_error_action: ignore, syslog or suspend (default suspend).
    #[arg(long, value_parser = |s: &str| ActionKey::DiskError.parse(s))]
    pub disk_error_action: Option<Action>,
    /// auditd.conf's space_left: MiB free (or N%) below which
    /// space_left_action runs (default 75; 0: never).
    #[arg(long, value_parser = Threshold::parse)]
    pub space_left: Option<Threshold>,
    /// auditd.conf's space_left_action: ignore, syslog, rotate or suspend (default syslog).
    #[arg(long, value_parser = |s: &str| ActionKey::SpaceLeft.parse(s))]
    pub space_left_action: Option<Action>,
    /// auditd.conf's admin_space_left (default 50; 0: never).
    #[arg(long, value_parser = Threshold::parse)]
    pub admin_space_left: Option<Threshold>,
    /// auditd.conf's admin_space_left_action (default suspend).
    #[arg(long, value_parser = |s: &str| ActionKey::AdminSpaceLeft.parse(s))]
    pub admin_space_left_action: Option<Action>,
    /// Size of the kernel-to-fastaudit ring buffer, in KiB (a power of two).
    #[arg(long, default_value_t = fastaudit_engine::RING_BUFFER_BYTES / 1024)]
    pub ring_buffer_kib: u32,
    /// Print the plan (hooks, hook kinds, rules per syscall) and exit
    /// without attaching.
    #[arg(long)]
    pub explain: bool,
    /// BPF hook kinds fastaudit may use (each is probed at start; the
    /// cheapest that works is chosen): tracepoint, tp_btf, raw_tp, fexit.
    #[arg(long, value_delimiter = ',', value_parser = parse_kind,
          default_value = "fexit,tracepoint,tp_btf,raw_tp")]
    pub hook_kinds: Vec<Kind>,
    /// Do not become the kernel's audit daemon: leave the kernel audit as
    /// it is (another auditd may be registered) and log only the BPF events.
    #[arg(long, conflicts_with = "take_over")]
    pub bpf_only: bool,
    /// If another audit daemon is registered, stop it (SIGTERM) and take
    /// its place (it is not restarted at stop).
    #[arg(long)]
    pub take_over: bool,
    /// Let the rules' `-e 2`, `--loginuid-immutable` (irreversible until
    /// reboot) and `-f 2` (panic on audit failure) reach the kernel.
    #[arg(long)]
    pub apply_irreversible: bool,
    /// Refuse the rules on any warning (a value auditctl would wrap or read
    /// past, a control byte, an empty input, a rules file others can change).
    #[arg(long)]
    pub strict: bool,
    /// auditd's plugin settings (plugin_dir, q_depth, overflow_action, max_restarts).
    #[command(flatten)]
    pub plugins: fastaudit_plugins::PluginArgs,
    /// Also audit the io_uring ops the kernel never audits (read, write,
    /// send, recv, statx, socket, nop, ...: its audit_skip ops) when an
    /// io_uring rule names them; each then costs a URINGOP check.
    #[arg(long)]
    pub audit_skipped_uring_ops: bool,
}

/// auditd.conf's yes/no, in any case.
fn yes_no(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "yes" => Ok(true),
        "no" => Ok(false),
        _ => Err(format!("{s:?}: yes or no")),
    }
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s)
        .ok_or_else(|| format!("unknown hook kind {s:?} (fexit, tracepoint, tp_btf, raw_tp)"))
}

/// Log line formats (auditd's log_format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// As the kernel writes records.
    Raw,
    /// With interpreted ids, arch and syscall appended (auditd ENRICHED).
    Enriched,
    /// One JSON object per event, its records grouped and decoded.
    Json,
}

/// `fastaudit rules ...`.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the rules as `auditctl -l` prints them once loaded.
    List(RulesArgs),
    /// Only check the rules; print nothing on success.
    Check(RulesArgs),
}

/// Rule sources.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Rules files, or directories of *.rules files (combined as augenrules does).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Also print the control settings (-b, -e, -f, ...) before the rules.
    #[arg(long)]
    pub settings: bool,
    /// Refuse the rules on any warning (exit 1, nothing printed on stdout).
    #[arg(long)]
    pub strict: bool,
}
