//! Command line syntax (clap).

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Args, CommandFactory, Parser, Subcommand};
use fastaudit_engine::Kind;
use fastaudit_log::{Action, ActionKey, Threshold};
use fastaudit_plugins::{OverflowAction, PluginArgs};
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::ExitCode;

/// The first line of `fastaudit --help` and the man page's NAME line.
const ABOUT: &str = "Linux syscall auditing on eBPF, in place of auditd";

/// The rest of `fastaudit --help` and the man page's DESCRIPTION.
const LONG_ABOUT: &str = "Linux syscall auditing on eBPF, in place of auditd.

fastaudit takes the administrator's auditctl rules, records the syscalls (and io_uring operations) \
they select with eBPF programs, and writes auditd-format logs that ausearch and aureport read. \
`fastaudit run` is the system's audit daemon in auditd's place: it reads auditd's configuration \
(/etc/audit/auditd.conf), rules (/etc/audit/rules.d) and plugins (/etc/audit/plugins.d).";

/// `fastaudit`'s command line.
#[derive(Debug, Parser)]
#[command(name = "fastaudit", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Print what `fastaudit help COMMAND...` prints (for the commands whose
/// `-h`/`--help` clap does not see), so both say the same.
pub fn help_of(command: &[&str]) -> ExitCode {
    let argv = ["fastaudit", "help"]
        .into_iter()
        .chain(command.iter().copied());
    match Cli::command().try_get_matches_from(argv) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = e.print();
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
        }
    }
}

/// Whether a pass-through command's arguments ask for its help.
pub fn asks_for_help(args: &[OsString]) -> bool {
    matches!(args, [a] if a == "-h" || a == "--help")
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read, check and list auditctl rules.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Audit the live system with the rules (root; runs in the foreground).
    Run(RunArgs),
    /// Check auditd.conf, the rules and the plugins as `run` would start with them.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// The kernel audit's status and, when it runs, fastaudit's counters (root).
    Status,
    /// Change, list or show the running daemon's rules with auditctl's options (root).
    // auditctl's options are passed through untouched; main prints this
    // help for a lone -h or --help.
    #[command(disable_help_flag = true, after_help = CTL_OPTIONS)]
    Ctl {
        /// auditctl's options and their arguments.
        #[arg(
            value_name = "OPTION",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        args: Vec<OsString>,
    },
    /// Measure no audit vs kernel audit vs fastaudit, side by side (root).
    // Listed here for `fastaudit --help`; main hands the words after `bench`
    // to the fastaudit-bench binary before clap sees them (bench_cmd.rs).
    #[command(disable_help_flag = true)]
    Bench {
        /// The arguments of `fastaudit-bench` (its own `--help` included).
        #[arg(
            value_name = "ARG",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        args: Vec<OsString>,
    },
}

/// `fastaudit ctl`'s options, after its help.
const CTL_OPTIONS: &str = "\
auditctl's options, applied to the running `fastaudit run`:
  -l [-k KEY]                  list the rules loaded in the daemon
  -s                           fastaudit's status in auditctl -s's layout
  -a|-A LIST,ACTION RULE...    add a rule (at the end | at the start of its list)
  -d LIST,ACTION RULE...       delete the identical rule
  -w PATH [-p PERM] [-k KEY]   add a watch
  -W PATH [-p PERM] [-k KEY]   delete a watch
  -D [-k KEY]                  delete all rules (whose key contains KEY)
  -R FILE                      apply a rules file (all of it or nothing)
  -e 0|1|2                     stop auditing | audit | lock fastaudit's rules until it restarts
  --signal reload              read auditd.conf and the rules files again (as SIGHUP), answered once they run
  -v                           version
  -h, --help                   print this help
Changes last until the next SIGHUP or restart reads the rules files again.";

/// `fastaudit run`.
#[derive(Clone, Debug, Args)]
pub struct RunArgs {
    /// Rules files, or directories of *.rules files (combined as augenrules
    /// does) [default: /etc/audit/rules.d when present, else the built-in
    /// default rules]
    #[arg(long = "rules", value_name = "PATH", num_args = 1..)]
    pub rules: Vec<PathBuf>,
    /// auditd's configuration file to read (auditd.conf syntax, keys and
    /// defaults); flags given on the command line win over the file
    /// [default: /etc/audit/auditd.conf when it exists]
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Read no auditd.conf: fastaudit's own defaults and the flags only.
    #[arg(long)]
    pub no_config: bool,
    #[arg(long, value_name = "FILE",
          help = conf_default("Audit log to append to", "log_file", "/var/log/fastaudit/audit.log"))]
    pub log: Option<PathBuf>,
    #[arg(long, value_name = "BOOL",
          help = conf_default("Write the log file at all (auditd's write_logs): with `no`, events go to the plugins only and no log (nor its directory) is touched", "write_logs", "yes"),
          value_parser = Words { words: &["yes", "no"], parse: yes_no })]
    pub write_logs: Option<bool>,
    #[arg(long, value_enum, value_name = "FORMAT",
          help = conf_default("Log format (auditd's log_format)", "log_format", "raw"))]
    pub format: Option<LogFormat>,
    #[arg(long, value_name = "MIB",
          help = conf_default("The log's size limit in MiB, at which max_log_file_action runs (auditd's max_log_file; without a config, the log is rotated); 0: none", "max_log_file", "8"))]
    pub max_log_file: Option<u64>,
    #[arg(long, value_name = "N",
          help = conf_default("Log files kept when rotating, the live one included (auditd's num_logs)", "num_logs", "5"))]
    pub num_logs: Option<u32>,
    #[arg(long, value_name = "ACTION",
          help = conf_default("What to do when the disk is full (auditd's disk_full_action); SIGUSR2 resumes after suspend; exec only from auditd.conf, which gives its program", "disk_full_action", "suspend"),
          value_parser = Words { words: DISK_FULL_ACTIONS, parse: |s| flag_action(ActionKey::DiskFull, s) })]
    pub disk_full_action: Option<Action>,
    #[arg(long, value_name = "ACTION",
          help = conf_default("What to do when writing the log fails (auditd's disk_error_action); exec only from auditd.conf", "disk_error_action", "suspend"),
          value_parser = Words { words: DISK_ERROR_ACTIONS, parse: |s| flag_action(ActionKey::DiskError, s) })]
    pub disk_error_action: Option<Action>,
    #[arg(long, value_name = "MIB|N%",
          help = conf_default("MiB free (or N% of the file system) below which space_left_action runs (auditd's space_left); 0: never", "space_left", "75"),
          value_parser = Threshold::parse)]
    pub space_left: Option<Threshold>,
    #[arg(long, value_name = "ACTION",
          help = conf_default("What to do below space_left (auditd's space_left_action); email mails the config's action_mail_acct (root); exec only from auditd.conf", "space_left_action", "syslog"),
          value_parser = Words { words: ACTIONS, parse: |s| flag_action(ActionKey::SpaceLeft, s) })]
    pub space_left_action: Option<Action>,
    #[arg(long, value_name = "MIB|N%",
          help = conf_default("MiB free (or N%) below which admin_space_left_action runs (auditd's admin_space_left); 0: never", "admin_space_left", "50"),
          value_parser = Threshold::parse)]
    pub admin_space_left: Option<Threshold>,
    #[arg(long, value_name = "ACTION",
          help = conf_default("What to do below admin_space_left (auditd's admin_space_left_action); exec only from auditd.conf", "admin_space_left_action", "suspend"),
          value_parser = Words { words: ACTIONS, parse: |s| flag_action(ActionKey::AdminSpaceLeft, s) })]
    pub admin_space_left_action: Option<Action>,
    /// Size of the kernel-to-fastaudit ring buffer, in KiB (a power of two).
    #[arg(long, value_name = "KIB", default_value_t = fastaudit_engine::RING_BUFFER_BYTES / 1024)]
    pub ring_buffer_kib: u32,
    /// Print the plan (hooks, hook kinds, rules per syscall) and exit
    /// without attaching it. As root it also probes the hook kinds (each
    /// with a do-nothing program, attached for a moment) and loads the
    /// plan's programs for the kernel to verify, attaching none, so that
    /// it can name what this kernel refuses; all are unloaded before it
    /// exits, and the kernel audit's rules and settings are not touched.
    #[arg(long)]
    pub explain: bool,
    /// BPF hook kinds fastaudit may use, comma-separated. Each is probed at
    /// start and the cheapest that works is chosen: tracepoint for the
    /// native syscalls rules name, tp_btf (else raw_tp) for the raw
    /// syscall, task and inode hooks; fexit (fentry and fexit programs on
    /// kernel functions) for the records no tracepoint gives, module loads
    /// (KERN_MODULE) and clock adjustments (TIME_ADJNTPVAL, TIME_INJOFFSET),
    /// which are not written without it (--explain says so), and with
    /// --syscall-function-hooks for the audited syscalls themselves.
    #[arg(long, value_name = "KINDS", value_delimiter = ',', env = "FASTAUDIT_HOOK_KINDS",
          value_parser = Words { words: HOOK_KINDS, parse: parse_kind },
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
    /// All or nothing: refuse to start on a refused rules line or any
    /// warning (a value auditctl would wrap or read past, a control byte, an
    /// empty input, a rules file others can change). Without it a refused
    /// line is loaded around as `auditctl -R` does (the lines before it; past
    /// it after `-c` or `-i`), named on stderr and in the log, and the run
    /// goes on. The unit reads FASTAUDIT_STRICT=yes from /etc/default/fastaudit.
    #[arg(long, env = "FASTAUDIT_STRICT", value_parser = clap::builder::BoolishValueParser::new())]
    pub strict: bool,
    /// auditd's plugin settings (plugin_dir, q_depth, overflow_action, max_restarts).
    #[command(flatten)]
    pub plugins: PluginFlags,
    /// Also audit the io_uring ops the kernel never audits (read, write,
    /// send, recv, statx, socket, nop, ...: its audit_skip ops) when an
    /// io_uring rule names them; each then costs a URINGOP check.
    #[arg(long)]
    pub audit_skipped_uring_ops: bool,
    /// Where the kernel loads fexit programs, hook the audited syscalls' own
    /// kernel functions (both ABIs), so that a syscall no rule names runs
    /// nothing, instead of the tracepoints every syscall pays for. Not
    /// where the kernel preempts its own code (full, lazy, RT: Linux 7.3's
    /// default). Off by default until measured on every kernel tested;
    /// --explain says per syscall which hook it got.
    #[arg(long, env = "FASTAUDIT_SYSCALL_FUNCTION_HOOKS",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub syscall_function_hooks: bool,
    /// Name each event's container (and Kubernetes pod) in ENRICHED and
    /// JSON logs: CONTAINER_ID, CONTAINER_RUNTIME, ... after SYSCALL's and
    /// URINGOP's interpretations, `container`/`k8s`/`cgroup` in JSON;
    /// RAW never has them (docs/containers.md). `no` leaves them out.
    #[arg(long, env = "FASTAUDIT_CONTAINERS", default_value = "yes", action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub containers: bool,
}

/// A run flag's help over an auditd.conf key, with the defaults as `run`
/// takes them (settings/mod.rs): the file's value; auditd's default (the
/// key table's) when an auditd.conf is read but does not set the key;
/// fastaudit's own (`without`) when no auditd.conf is read at all.
pub fn conf_default(text: &str, key: &str, without: &str) -> String {
    let auditd = fastaudit_config::keys::lookup(key)
        .and_then(|k| k.default)
        .unwrap_or("none");
    if auditd == without {
        format!("{text} [default: the config's {key}, else {without}]")
    } else {
        format!(
            "{text} [default: the config's {key}; {auditd} (auditd's default) when the config does not set it; {without} without a config]"
        )
    }
}

/// The auditd.conf actions of the space keys, as `--*-action` takes them:
/// every one but `exec`, whose program is set in auditd.conf (the log
/// crate's parser says why any other word is refused).
const ACTIONS: &[&str] = &[
    "ignore", "syslog", "rotate", "email", "suspend", "single", "halt",
];

/// disk_full_action's: auditd refuses `email` for it.
const DISK_FULL_ACTIONS: &[&str] = &["ignore", "syslog", "rotate", "suspend", "single", "halt"];

/// disk_error_action's: auditd refuses `email` and `rotate` for it.
const DISK_ERROR_ACTIONS: &[&str] = &["ignore", "syslog", "suspend", "single", "halt"];

/// A `--*-action` flag's word for `key`: `exec` needs a program, which
/// only auditd.conf gives (`KEY = exec /path`).
fn flag_action(key: ActionKey, word: &str) -> Result<Action, String> {
    match key.parse(word)? {
        Action::Exec => Err(format!(
            "exec needs a program: set `{} = exec /path/to/program` in auditd.conf",
            key.name()
        )),
        a => Ok(a),
    }
}

/// `--hook-kinds`' words, [`Kind::ALL`]'s names.
const HOOK_KINDS: &[&str] = &["fexit", "tracepoint", "tp_btf", "raw_tp"];

/// `fastaudit run`'s plugin flags, named after the auditd.conf keys; each
/// given one overrides the configuration.
#[derive(Clone, Debug, Default, Args)]
pub struct PluginFlags {
    /// Directory of plugin configurations (auditd's plugin_dir) [default:
    /// the config's plugin_dir, else /etc/audit/plugins.d]
    #[arg(long, value_name = "DIR")]
    pub plugin_dir: Option<PathBuf>,
    /// Records each plugin may have waiting (auditd's q_depth) [default:
    /// the config's q_depth, else 2000]
    #[arg(long, value_name = "N")]
    pub q_depth: Option<usize>,
    /// What a full plugin queue does (auditd's overflow_action) [default:
    /// the config's overflow_action, else syslog]
    #[arg(long, value_name = "ACTION", value_parser = OverflowWords)]
    pub overflow_action: Option<OverflowAction>,
    /// Times a dead plugin is started again (auditd's max_restarts)
    /// [default: the config's max_restarts, else 10]
    #[arg(long, value_name = "N")]
    pub max_restarts: Option<u32>,
}

impl From<PluginFlags> for PluginArgs {
    fn from(f: PluginFlags) -> PluginArgs {
        PluginArgs {
            plugin_dir: f.plugin_dir,
            q_depth: f.q_depth,
            overflow_action: f.overflow_action,
            max_restarts: f.max_restarts,
        }
    }
}

/// overflow_action's words, each with what it does (as help, man pages
/// and completions list them); the word as written, in auditd's case.
#[derive(Clone)]
struct OverflowWords;

impl OverflowWords {
    fn values() -> [PossibleValue; 5] {
        OverflowAction::ALL.map(|a| PossibleValue::new(a.word()).help(a.help()))
    }
}

impl TypedValueParser for OverflowWords {
    type Value = OverflowAction;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<OverflowAction, clap::Error> {
        let word =
            clap::builder::PossibleValuesParser::new(Self::values()).parse_ref(cmd, arg, value)?;
        // The words are the actions' own: every word checked names one.
        OverflowAction::from_word(&word).ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("{word}: no action"),
            )
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values().into_iter()))
    }
}

/// A value from a fixed list of words: `parse` reads it (its errors say
/// why a word is refused), and the words are the possible values that
/// help, man pages and completions list.
#[derive(Clone)]
struct Words<T> {
    words: &'static [&'static str],
    parse: fn(&str) -> Result<T, String>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Words<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.words.iter().map(|w| PossibleValue::new(*w))))
    }
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
    Kind::parse(s).ok_or_else(|| format!("unknown hook kind {s:?} ({})", HOOK_KINDS.join(", ")))
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

/// `fastaudit config ...`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Check auditd.conf with the rules and plugins `run` would start with,
    /// without root and without touching the kernel.
    #[command(long_about = CONFIG_CHECK_ABOUT, after_help = CONFIG_CHECK_EXIT)]
    Check(ConfigCheckArgs),
}

/// `fastaudit config check`'s help and its man page's DESCRIPTION.
const CONFIG_CHECK_ABOUT: &str = "\
Check auditd.conf with the rules and plugins `run` would start with, without root and without \
touching the kernel.

Use it before switching from auditd, and before a restart or a reload.

Every error and warning `fastaudit run` would print at start for this configuration is printed on \
stderr, by the same code (FILE:LINE: what): auditd.conf's keys and values, the rules (read as the \
start reads them: --rules, else /etc/audit/rules.d as augenrules combines it, else the built-in \
default rules; a refused line is loaded around as auditctl -R does unless --strict), and the \
plugins of plugin_dir with their configuration files. stdout gets a summary: each key the file \
sets and what fastaudit does with it (applied, applied differently, accepted and not applied, \
refused: fastaudit-auditd.conf(5)), the log's settings, the rules and the plugins that would \
start. The BPF hook kinds are not probed (that loads programs into the kernel): `run --explain` \
as root does that. Files that only root may read need root, as they do for `run`.";

/// `fastaudit config check`'s exit codes, after its help.
const CONFIG_CHECK_EXIT: &str = "\
Exit status (fastaudit(8) lists every command's):
  0  run would start with all of it (warnings may have been printed)
  1  run would refuse to start: auditd.conf, the rules (--strict) or the plugin settings refused
  2  the check itself failed (a usage error)
  3  run would start, but without some of it: refused rules lines, or plugins skipped";

/// `fastaudit config check`.
#[derive(Debug, Args)]
pub struct ConfigCheckArgs {
    /// The auditd.conf to check [default: /etc/audit/auditd.conf; when it
    /// does not exist, run's own defaults are checked]
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Rules files, or directories of *.rules files, as `run --rules`
    /// [default: /etc/audit/rules.d when present, else the built-in
    /// default rules]
    #[arg(long = "rules", value_name = "PATH", num_args = 1..)]
    pub rules: Vec<PathBuf>,
    /// Check as `run --strict` starts: a refused rules line or any rules
    /// warning refuses the start (FASTAUDIT_STRICT=yes, as
    /// /etc/default/fastaudit sets it for the unit).
    #[arg(long, env = "FASTAUDIT_STRICT", value_parser = clap::builder::BoolishValueParser::new())]
    pub strict: bool,
    /// run's plugin flags, each over auditd.conf's key.
    #[command(flatten)]
    pub plugins: PluginFlags,
}

/// `fastaudit rules ...`.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the rules as `auditctl -l` prints them once loaded.
    List(RulesListArgs),
    /// Only check the rules; print nothing on stdout (stderr: errors, warnings, and
    /// a note for each -e 2, --loginuid-immutable and -f 2 on whether `run` applies it).
    Check(RulesArgs),
}

/// Rule sources.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Rules files, or directories of *.rules files (combined as augenrules
    /// does) [default: the rules `fastaudit run` loads: /etc/audit/rules.d
    /// when present, else the built-in default rules]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Refuse the rules on any warning (exit 1, nothing printed on stdout).
    #[arg(long)]
    pub strict: bool,
    /// Print at most this many errors and warnings for each file, then one
    /// line counting the rest of that file's; 0: print them all
    #[arg(long, value_name = "N", default_value_t = fastaudit_rules::report::MESSAGES_PER_FILE)]
    pub max_messages: usize,
}

/// `rules list`'s arguments: the rule sources, and whether to print the
/// settings too (only a listing prints them: `check` prints nothing).
#[derive(Debug, Args)]
pub struct RulesListArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Also print the control settings (-b, -e, -f, ...) before the rules.
    #[arg(long)]
    pub settings: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listed_words_are_the_ones_the_parsers_take() {
        assert_eq!(
            HOOK_KINDS,
            Kind::ALL.map(Kind::name),
            "--hook-kinds lists every kind"
        );
        for (key, words) in [
            (ActionKey::SpaceLeft, ACTIONS),
            (ActionKey::AdminSpaceLeft, ACTIONS),
            (ActionKey::DiskFull, DISK_FULL_ACTIONS),
            (ActionKey::DiskError, DISK_ERROR_ACTIONS),
        ] {
            let mut all = key.words();
            all.retain(|w| *w != "exec");
            assert_eq!(words, all, "{}: every word but exec", key.name());
            let e = flag_action(key, "exec").unwrap_err();
            assert!(e.contains("auditd.conf"), "{e}");
        }
    }

    /// The help of `--NAME` under `run`.
    fn run_help(name: &str) -> String {
        let cmd = Cli::command();
        let run = cmd.find_subcommand("run").expect("run");
        let arg = run
            .get_arguments()
            .find(|a| a.get_long() == Some(name))
            .unwrap_or_else(|| panic!("--{name}"));
        arg.get_help().map(ToString::to_string).unwrap_or_default()
    }

    #[test]
    fn run_help_says_the_defaults_run_takes() {
        // Without an auditd.conf: the log writer's own defaults.
        let own = fastaudit_log::Config::new("/x");
        let num_logs = match own.size_action {
            fastaudit_log::SizeAction::Rotate { num_logs } => num_logs.to_string(),
            other => panic!("{other:?}"),
        };
        let mib = |t: Threshold| match t {
            Threshold::Mib(n) => n.to_string(),
            Threshold::Percent(p) => format!("{p}%"),
        };
        let yes = if own.write_logs { "yes" } else { "no" };
        for (flag, key, without) in [
            ("write-logs", "write_logs", yes.to_string()),
            (
                "max-log-file",
                "max_log_file",
                (own.max_bytes >> 20).to_string(),
            ),
            ("num-logs", "num_logs", num_logs),
            ("space-left", "space_left", mib(own.space_left)),
            (
                "admin-space-left",
                "admin_space_left",
                mib(own.admin_space_left),
            ),
            (
                "space-left-action",
                "space_left_action",
                own.space_left_action.to_string(),
            ),
            (
                "admin-space-left-action",
                "admin_space_left_action",
                own.admin_space_left_action.to_string(),
            ),
            (
                "disk-full-action",
                "disk_full_action",
                own.disk_full_action.to_string(),
            ),
            (
                "disk-error-action",
                "disk_error_action",
                own.disk_error_action.to_string(),
            ),
        ] {
            let help = run_help(flag);
            // With one that does not set the key: auditd's default.
            let auditd = fastaudit_config::keys::lookup(key)
                .and_then(|k| k.default)
                .unwrap();
            let said = if auditd == without {
                format!("[default: the config's {key}, else {without}]")
            } else {
                format!("[default: the config's {key}; {auditd} (auditd's default) when the config does not set it; {without} without a config]")
            };
            assert!(help.ends_with(&said), "--{flag}: {help}");
        }
        // The plugin flags: auditd's defaults are the dispatcher's own.
        let d = fastaudit_plugins::Settings::default();
        for (flag, key, value) in [
            (
                "plugin-dir",
                "plugin_dir",
                d.plugin_dir.display().to_string(),
            ),
            ("q-depth", "q_depth", d.q_depth.to_string()),
            (
                "overflow-action",
                "overflow_action",
                format!("{:?}", d.overflow_action).to_lowercase(),
            ),
            ("max-restarts", "max_restarts", d.max_restarts.to_string()),
        ] {
            let auditd = fastaudit_config::keys::lookup(key).and_then(|k| k.default);
            assert_eq!(auditd, Some(value.as_str()), "{key}");
            let help = run_help(flag);
            assert!(
                help.ends_with(&format!("[default: the config's {key}, else {value}]")),
                "--{flag}: {help}"
            );
        }
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
