//! What `fastaudit run` is configured to do: the command line's flags over
//! auditd.conf's keys (`--config FILE`, or /etc/audit/auditd.conf when it
//! exists), over fastaudit's own defaults when no file is read. A file,
//! once read, is taken as auditd takes it: a key it does not set has
//! auditd's default. Keys fastaudit does not act on are reported with
//! FILE:LINE; values it cannot honour are refused. The plugin keys go to
//! the dispatcher (fastaudit_plugins), under its own flags.

pub mod host;
mod node;
mod restart;

pub use restart::restart_only;

use crate::options::{LogFlags, RunOptions};
use fastaudit_config::keys::{Missing, Use};
use fastaudit_config::{Conf, ConfigError, Value, DEFAULT_PATH};
use fastaudit_log::{Action, ActionKey, Config as LogConfig, Flush, SizeAction, Threshold};
use fastaudit_plugins::{OverflowAction, Settings as PluginSettings};
use fastaudit_records::Format;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// fastaudit's log when no auditd.conf is read and `--log` is not given.
pub const DEFAULT_LOG: &str = "/var/log/fastaudit/audit.log";

/// Everything `run` takes from the flags and the configuration file.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// The log writer's settings (path, flush, size and space actions).
    pub log: LogConfig,
    /// Log format.
    pub format: Format,
    /// auditd's node name (`node=` before each record), when name_format asks.
    pub node: Option<String>,
    /// auditd's priority_boost: lowered nice value.
    pub priority_boost: u32,
    /// auditd's end_of_event_timeout: how long a kernel event's records
    /// are gathered (JSON) before it is written as complete.
    pub end_of_event: Duration,
    /// The plugin dispatcher's settings (before the plugin flags).
    pub plugins: PluginSettings,
    /// Warnings for stderr (unsupported keys, values not applied yet).
    pub warnings: Vec<String>,
    /// The configuration file as read (none without one): what a reload
    /// compares the file read again with.
    pub conf: Option<Conf>,
}

/// Why the configuration is refused: one line per problem.
#[derive(Debug)]
pub struct Refused(pub Vec<String>);

/// The configuration file to read, if any.
pub(crate) fn config_path(args: &RunOptions) -> Option<PathBuf> {
    if args.no_config {
        return None;
    }
    match &args.config {
        Some(p) => Some(p.clone()),
        // Only a file that is not there means none: one that cannot be
        // looked at (/etc/audit is 0750, for `config check` as a user) is
        // read, and its error said.
        None => match Path::new(DEFAULT_PATH).try_exists() {
            Ok(false) => None,
            _ => Some(PathBuf::from(DEFAULT_PATH)),
        },
    }
}

/// Read the configuration (if any) and merge it with the flags.
pub fn resolve(args: &RunOptions) -> Result<RunSettings, Refused> {
    let conf = match config_path(args) {
        None => None,
        Some(p) => match fastaudit_config::load(&p, &host::SystemHost) {
            Ok(c) => Some(c),
            Err(ConfigError::Invalid(d)) => {
                return Err(Refused(d.iter().map(ToString::to_string).collect()))
            }
            Err(e) => return Err(Refused(vec![e.to_string()])),
        },
    };
    match conf {
        Some(conf) => from_conf(args, &conf),
        None => Ok(without_conf(args)),
    }
}

/// Flags over fastaudit's defaults.
fn without_conf(args: &RunOptions) -> RunSettings {
    let flags = &args.log;
    let mut log = LogConfig::new(flags.path.as_deref().unwrap_or(Path::new(DEFAULT_LOG)));
    log.write_logs = flags.write_logs.unwrap_or(true);
    log.max_bytes = flags.max_log_file.unwrap_or(8).saturating_mul(1 << 20);
    log.size_action = SizeAction::Rotate {
        num_logs: flags.num_logs.unwrap_or(5),
    };
    apply_disk_flags(flags, &mut log);
    RunSettings {
        log,
        format: flags.format.unwrap_or(Format::Raw),
        node: None,
        priority_boost: 0,
        end_of_event: Duration::from_secs(2),
        plugins: PluginSettings::default(),
        warnings: Vec::new(),
        conf: None,
    }
}

/// Warnings as the compiler writes them: `FILE:LINE: warning: ...`.
fn warning(conf: &Conf, line: Option<usize>, message: &str) -> String {
    match line {
        Some(l) => format!("{}:{l}: warning: {message}", conf.file.display()),
        None => format!("{}: warning: {message}", conf.file.display()),
    }
}

/// Flags over the file's settings (auditd's defaults for keys it does not set).
fn from_conf(args: &RunOptions, conf: &Conf) -> Result<RunSettings, Refused> {
    let flags = &args.log;
    let mut refused = Vec::new();
    let mut warnings: Vec<String> = conf
        .warnings
        .iter()
        .map(|d| warning(conf, d.line, &d.message))
        .collect();
    let refuse = |key: &str, why: &str| conf.at(key, why).to_string();
    if !conf.yes("local_events") {
        refused.push(refuse(
            "local_events",
            "local_events = no (a network-only aggregator): fastaudit audits the local system and has no network input: refused",
        ));
    }
    // The keys whose any setting fastaudit cannot honour (the key table
    // says which: tcp_listen_port).
    for u in conf.unsupported() {
        if let Use::Refused(missing) = u.key.usage {
            refused.push(refuse(
                u.key.name,
                &format!("{}: {}: refused", u.key.name, missing.why()),
            ));
        }
    }
    warnings.extend(unsupported_keys(conf));

    let path = flags
        .path
        .clone()
        .or_else(|| conf.text("log_file").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LOG));
    let mut log = LogConfig::new(path);
    // log_format = NOLOG is read as write_logs = no (crates/config).
    log.write_logs = flags.write_logs.unwrap_or(conf.yes("write_logs"));
    let freq = u32::try_from(conf.number("freq")).unwrap_or(u32::MAX);
    log.flush = match conf.word("flush") {
        Some("incremental") => Flush::Incremental { freq },
        Some("incremental_async") => Flush::IncrementalAsync { freq },
        Some("data") => Flush::Data,
        Some("sync") => Flush::Sync,
        _ => Flush::None,
    };
    let max_mib = flags.max_log_file.unwrap_or(conf.number("max_log_file"));
    log.max_bytes = max_mib.saturating_mul(1 << 20);
    let num_logs = flags
        .num_logs
        .unwrap_or(u32::try_from(conf.number("num_logs")).unwrap_or(999));
    log.size_action = match conf.word("max_log_file_action") {
        Some("suspend") => SizeAction::Suspend,
        Some("keep_logs") => SizeAction::KeepLogs,
        // auditd: "Log rotation disabled (num_logs < 2)": the log grows.
        Some("rotate") if num_logs < 2 => {
            warnings.push(warning(
                conf,
                conf.line("max_log_file_action"),
                "max_log_file_action = ROTATE with num_logs below 2: rotation is disabled, as in auditd",
            ));
            SizeAction::Ignore
        }
        Some("rotate") => SizeAction::Rotate { num_logs },
        Some("syslog") => SizeAction::Syslog,
        _ => SizeAction::Ignore,
    };
    if let Err(r) = apply_disk_settings(conf, &mut log) {
        refused.extend(r);
    }
    apply_disk_flags(flags, &mut log);

    let format = match (flags.format, conf.word("log_format")) {
        (Some(f), _) => f,
        (None, Some("raw")) => Format::Raw,
        (None, Some("json")) => Format::Json,
        _ => Format::Enriched,
    };
    let node = match node::resolve(conf) {
        Ok(n) => n,
        Err(why) => {
            refused.push(refuse("name_format", &why));
            None
        }
    };
    if !refused.is_empty() {
        return Err(Refused(refused));
    }
    let gid = match conf.get("log_group") {
        Some(Value::Gid(g)) if *g != 0 => Some(*g),
        _ => None,
    };
    // The writer creates the log 0640 and its directory 0750 for that group.
    log.log_group = gid;
    // A --log given by hand gets the group on the file only.
    log.group_owns_dir = flags.path.is_none();
    Ok(RunSettings {
        log,
        format,
        node,
        priority_boost: u32::try_from(conf.number("priority_boost")).unwrap_or(u32::MAX),
        end_of_event: Duration::from_secs(conf.number("end_of_event_timeout")),
        plugins: plugin_settings(conf),
        warnings,
        conf: Some(conf.clone()),
    })
}

/// The keys fastaudit does not act on yet: the network listener's and
/// Kerberos's. tcp_listen_port itself is refused, so the others do nothing
/// in auditd either: they are listed on one warning line with their lines.
fn unsupported_keys(conf: &Conf) -> Vec<String> {
    let idle: Vec<String> = conf
        .unsupported()
        .iter()
        .filter(|u| matches!(u.key.usage, Use::NotYet(_)))
        .map(|u| format!("{} (line {})", u.key.name, u.line))
        .collect();
    if idle.is_empty() {
        return Vec::new();
    }
    vec![warning(
        conf,
        None,
        &format!(
            "not applied, as they do nothing in auditd either without tcp_listen_port ({}): {}",
            Missing::Listener.why(),
            idle.join(", ")
        ),
    )]
}

/// auditd.conf's plugin keys as the dispatcher's settings (fastaudit_plugins).
fn plugin_settings(conf: &Conf) -> PluginSettings {
    let d = PluginSettings::default();
    PluginSettings {
        plugin_dir: conf.text("plugin_dir").map_or(d.plugin_dir, PathBuf::from),
        q_depth: usize::try_from(conf.number("q_depth")).unwrap_or(d.q_depth),
        overflow_action: conf
            .word("overflow_action")
            .and_then(OverflowAction::from_word)
            .unwrap_or(d.overflow_action),
        max_restarts: u32::try_from(conf.number("max_restarts")).unwrap_or(d.max_restarts),
    }
}

/// The disk and space keys (space_left, space_left_action,
/// admin_space_left, admin_space_left_action, disk_full_action,
/// disk_error_action, each exec's program, action_mail_acct) onto the log
/// writer's settings; the file's words are read again by the writer's
/// own parser, so a word it does not take for the key refuses the file
/// with the key's line (the config crate refuses those first).
pub fn apply_disk_settings(conf: &Conf, log: &mut LogConfig) -> Result<(), Vec<String>> {
    let mut refused = Vec::new();
    let threshold = |key: &str| match conf.get(key) {
        Some(Value::Space {
            amount,
            percent: true,
        }) => Some(Threshold::Percent(u32::try_from(*amount).unwrap_or(99))),
        Some(Value::Space { amount, .. }) => Some(Threshold::Mib(*amount)),
        _ => None,
    };
    let mut programs = log.programs.clone();
    let mut action = |key: ActionKey| -> Option<Action> {
        let name = key.name();
        match conf.get(name) {
            Some(Value::Action { word, exe }) => {
                programs.set(key, exe.as_ref().map(PathBuf::from));
                match key.parse(word) {
                    Ok(a) => Some(a),
                    Err(why) => {
                        refused.push(conf.at(name, &why).to_string());
                        None
                    }
                }
            }
            _ => None,
        }
    };
    if let Some(a) = action(ActionKey::SpaceLeft) {
        log.space_left_action = a;
    }
    if let Some(a) = action(ActionKey::AdminSpaceLeft) {
        log.admin_space_left_action = a;
    }
    if let Some(a) = action(ActionKey::DiskFull) {
        log.disk_full_action = a;
    }
    if let Some(a) = action(ActionKey::DiskError) {
        log.disk_error_action = a;
    }
    log.programs = programs;
    if let Some(acct) = conf.text("action_mail_acct") {
        log.action_mail_acct = acct.to_string();
    }
    if let Some(t) = threshold("space_left") {
        log.space_left = t;
    }
    if let Some(t) = threshold("admin_space_left") {
        log.admin_space_left = t;
    }
    if refused.is_empty() {
        Ok(())
    } else {
        Err(refused)
    }
}

/// The disk flags (named after the auditd.conf keys) over what the file
/// or the defaults set.
fn apply_disk_flags(args: &LogFlags, log: &mut LogConfig) {
    if let Some(a) = args.disk_full_action {
        log.disk_full_action = a;
    }
    if let Some(a) = args.disk_error_action {
        log.disk_error_action = a;
    }
    if let Some(t) = args.space_left {
        log.space_left = t;
    }
    if let Some(a) = args.space_left_action {
        log.space_left_action = a;
    }
    if let Some(t) = args.admin_space_left {
        log.admin_space_left = t;
    }
    if let Some(a) = args.admin_space_left_action {
        log.admin_space_left_action = a;
    }
}

/// Lower the nice value by `boost`, as auditd's priority_boost does.
pub fn boost_priority(boost: u32) -> Result<(), PriorityError> {
    change_priority(0, boost)
}

/// From priority_boost `from` to `to` (a reconfiguration): the nice value
/// moves by the difference. As auditd's, this is the calling thread's
/// (Linux nice values are per thread): at start, before any other thread,
/// every thread's; on SIGHUP, the main loop's, which writes the log.
pub fn change_priority(from: u32, to: u32) -> Result<(), PriorityError> {
    let inc = i64::from(from) - i64::from(to);
    if inc == 0 {
        return Ok(());
    }
    let inc = i32::try_from(inc).unwrap_or(if inc < 0 { i32::MIN } else { i32::MAX });
    // nice(2) may return -1 on success: only errno tells.
    nix::errno::Errno::clear();
    // SAFETY: nice(2) takes an int and touches no memory of ours.
    let r = unsafe { libc::nice(inc) };
    let err = std::io::Error::last_os_error();
    if r == -1 && err.raw_os_error() != Some(0) {
        return Err(PriorityError(err));
    }
    Ok(())
}

/// The nice value could not be changed.
#[derive(Debug, thiserror::Error)]
#[error("changing the priority (priority_boost)")]
pub struct PriorityError(#[source] std::io::Error);
