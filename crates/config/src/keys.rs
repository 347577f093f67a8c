//! The keys of auditd 3.0.9's auditd.conf, declared once: each key's value
//! kind (with its allowed words and ranges), auditd's default, and what
//! fastaudit does with it.

/// What a key's value must look like (auditd's per-key parser).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `yes` or `no` (any case).
    YesNo,
    /// One of these words (any case); written back in lower case.
    Word(&'static [&'static str]),
    /// Digits only, in `min..=max` (strtoul: a value past u64 is refused).
    Number { min: u64, max: u64 },
    /// Digits, or digits and `%` (a percentage below 100).
    Space,
    /// A failure action word; `forbidden` words are refused for this key;
    /// `exec` takes the program as a third word.
    Action { forbidden: &'static [&'static str] },
    /// A group name or a number.
    Group,
    /// The log file path (its directory must exist, at least 4 bytes long).
    LogFile,
    /// An e-mail account (checked as auditd checks it when verify_email).
    Email,
    /// `N` or `N-M` port numbers, inclusive.
    Ports,
    /// Any word.
    Text,
    /// Deprecated: accepted and reported, nothing else.
    Deprecated,
}

/// What fastaudit does with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Applied with auditd's meaning.
    Applied,
    /// Applied, but not exactly as auditd applies it: the key's `fastaudit`
    /// text says how it differs (some values may be refused).
    Differs,
    /// Read and checked, but fastaudit does not do it: reported as a
    /// warning.
    NotYet(Missing),
    /// Read and checked, and any setting of it refuses the file: what it
    /// asks for fastaudit cannot do.
    Refused(Missing),
}

impl Use {
    /// The few words the man page and `fastaudit config check` give it.
    pub fn label(self) -> &'static str {
        match self {
            Use::Applied => "applied",
            Use::Differs => "applied differently",
            Use::NotYet(_) => "accepted, not applied",
            Use::Refused(_) => "refused",
        }
    }
}

/// What fastaudit lacks for a key it does not act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// auditd's network listener (tcp_listen_port and its settings).
    Listener,
    /// The listener's Kerberos transport.
    Kerberos,
}

impl Missing {
    /// Why the key is not applied.
    pub fn why(self) -> &'static str {
        match self {
            Missing::Listener => "fastaudit has no network listener (auditd's tcp_listen_port)",
            Missing::Kerberos => "fastaudit has no network listener, so no Kerberos transport",
        }
    }
}

/// One auditd.conf key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// Name as written in the file (matched in any case).
    pub name: &'static str,
    /// Value kind and checks.
    pub kind: Kind,
    /// auditd 3.0.9's default (`clear_config`), in the file's syntax;
    /// `None`: unset.
    pub default: Option<&'static str>,
    /// What fastaudit does with it.
    pub usage: Use,
    /// What the key asks of auditd, in a sentence or two (the man page
    /// fastaudit-auditd.conf(5) and docs/configuration.md are written
    /// from these; `code` in backquotes).
    pub about: &'static str,
    /// What fastaudit does with it beyond [`Key::usage`]: how it differs,
    /// which values it refuses, what it adds; empty when that says all.
    pub fastaudit: &'static str,
}

impl Key {
    /// The value's form, as the man page writes it (`yes|no`, `N`, ...).
    pub fn syntax(&self) -> String {
        match self.kind {
            Kind::YesNo => "yes|no".into(),
            Kind::Word(words) => words.join("|"),
            Kind::Number { min, max } if max == ANY => format!("N ({min} or more)"),
            Kind::Number { min, max } => format!("N ({min}-{max})"),
            Kind::Space => "MIB|N%".into(),
            Kind::Action { forbidden } => {
                let words: Vec<&str> = ACTIONS
                    .iter()
                    .filter(|w| !forbidden.contains(w))
                    .map(|w| if *w == "exec" { "exec PROGRAM" } else { w })
                    .collect();
                words.join("|")
            }
            Kind::Group => "GROUP|GID".into(),
            Kind::LogFile => "PATH".into(),
            Kind::Email => "ACCOUNT".into(),
            Kind::Ports => "PORT[-PORT]".into(),
            Kind::Text if self.name == "plugin_dir" => "DIR".into(),
            Kind::Text => "TEXT".into(),
            Kind::Deprecated => "ANY".into(),
        }
    }

    /// Whether a running fastaudit applies a change of it on SIGHUP.
    pub fn reloaded(&self) -> bool {
        !AT_RESTART.contains(&self.name)
    }
}

const INT_MAX: u64 = i32::MAX as u64;
const ANY: u64 = u64::MAX;
const ACTIONS: &[&str] = &[
    "ignore", "syslog", "rotate", "email", "exec", "suspend", "single", "halt",
];
const LISTENER: Missing = Missing::Listener;
const KRB5: Missing = Missing::Kerberos;

/// What an action key's words do, said once for the four of them.
const ACTION_ABOUT: &str = "`ignore` does nothing; `syslog` tells syslog; `rotate` rotates \
the logs; `email` mails `action_mail_acct`; `exec PROGRAM` suspends logging and runs PROGRAM, \
which is expected to resume it with SIGUSR2; `suspend` stops logging until SIGUSR2; `single` \
and `halt` ask init for single user mode or a halt (`/sbin/init 1`, `/sbin/init 0`).";

/// The network listener's keys, said once.
const LISTENER_NOTE: &str = "Not applied: without `tcp_listen_port` auditd does nothing with it \
either; set, it is named on one warning line.";

/// Every key auditd 3.x accepts (3.0.9 to 3.1.5 have the same 39), in
/// auditd's order.
pub const KEYS: &[Key] = &[
    key("local_events", Kind::YesNo, Some("yes"), Use::Differs,
        "Whether the daemon audits the local system; `no` makes auditd an aggregator of remote events only.",
        "`no` is refused: fastaudit audits the local system and has no network input."),
    key("write_logs", Kind::YesNo, Some("yes"), Use::Applied,
        "Whether the log file is written at all.",
        "With `no`, no log file or log directory is touched (no rotation, no space checks); every event still goes to the plugins."),
    key("log_file", Kind::LogFile, Some("/var/log/audit/audit.log"), Use::Applied,
        "The audit log. Its directory must exist; an existing file must be a regular file owned by root.",
        ""),
    key("log_format",
        // `json` is fastaudit's own (auditd refuses it).
        Kind::Word(&["raw", "nolog", "enriched", "json"]), Some("enriched"), Use::Differs,
        "`raw` writes the records as the kernel sends them; `enriched` appends the interpreted ids, architecture and syscall name; `nolog` is the old spelling of `write_logs = no`.",
        "Adds `json`, one object per event with its records grouped and decoded, which auditd refuses (a file that sets it cannot go back to auditd as it is)."),
    key("log_group", Kind::Group, Some("0"), Use::Applied,
        "The group that may read the log.",
        "The log is root:GROUP 0640 (rotated logs 0440) and its directory root:GROUP 0750, as auditd sets them."),
    key("flush",
        Kind::Word(&["none", "incremental", "incremental_async", "data", "sync"]), Some("none"), Use::Differs,
        "How the log is pushed to disk: `none` leaves it to the kernel; `incremental` flushes every `freq` records; `incremental_async` does so from a thread of its own; `data` syncs the data after each record; `sync` syncs data and metadata.",
        "`data` and `sync` sync once for every batch of events read together, before the next batch is read, rather than once per event: each event is as durable, and a burst no longer outruns the ring buffer."),
    key("freq", num(0, INT_MAX), Some("0"), Use::Applied,
        "Records between two flushes with `flush = incremental` or `incremental_async`.",
        ""),
    key("num_logs", num(0, 999), Some("0"), Use::Applied,
        "How many log files `max_log_file_action = rotate` keeps, the live one included; below 2 the log is not rotated.",
        ""),
    key("dispatcher", Kind::Deprecated, None, Use::Applied,
        "Deprecated since auditd 3.0, whose dispatcher is built in.",
        "A warning, as auditd gives."),
    key("name_format",
        Kind::Word(&["none", "hostname", "fqd", "numeric", "user"]), Some("none"), Use::Applied,
        "The node name written before each record (`node=NAME`): none, the host name, the fully qualified domain name, the address, or `name`'s text.",
        ""),
    key("name", Kind::Text, None, Use::Applied,
        "The node name when `name_format = user`.",
        ""),
    key("disp_qos", Kind::Deprecated, None, Use::Applied,
        "Deprecated since auditd 3.0.",
        "A warning, as auditd gives."),
    key("max_log_file", num(0, ANY), Some("0"), Use::Applied,
        "The log's size limit in MiB, at which `max_log_file_action` runs; 0: none.",
        ""),
    key("max_log_file_action",
        Kind::Word(&["ignore", "syslog", "suspend", "rotate", "keep_logs"]), Some("ignore"), Use::Differs,
        "What reaching `max_log_file` does: `ignore`; `syslog` tells syslog; `suspend` stops logging until SIGUSR2; `rotate` rotates keeping `num_logs` files; `keep_logs` rotates and deletes none. auditd 3.x has no `exec` for this key, nor has fastaudit.",
        "`syslog` lets the log grow and tells syslog at most once a minute, where auditd tells it after every event; a rotation is told at LOG_NOTICE, as auditd tells it."),
    key("space_left", Kind::Space, Some("0"), Use::Applied,
        "Free space on the log's file system, in MiB or as `N%` of its size, below which `space_left_action` runs; it must be above `admin_space_left`.",
        ""),
    key("space_left_action", Kind::Action { forbidden: &[] }, Some("ignore"), Use::Applied,
        ACTION_ABOUT,
        "Each action as auditd 3.0.9 carries it out."),
    key("action_mail_acct", Kind::Email, Some("root"), Use::Applied,
        "Who the `email` actions mail.",
        "Mailed through `/usr/lib/sendmail`, as auditd mails; a `/usr/lib/sendmail` that is not executable is a warning at start, as in auditd."),
    key("verify_email", Kind::YesNo, Some("yes"), Use::Applied,
        "Whether `action_mail_acct` is checked: at least 2 characters, letters, digits and `@._-` only, a `.` after the `@`, and the domain after the `@` looked up.",
        "A failed look-up is a warning and the address is kept, as auditd keeps it; like auditd's, it applies to an `action_mail_acct` line after it."),
    key("admin_space_left", Kind::Space, Some("0"), Use::Applied,
        "Free space, in MiB or `N%`, below which `admin_space_left_action` runs: the last margin, left for the administrator.",
        ""),
    key("admin_space_left_action", Kind::Action { forbidden: &[] }, Some("ignore"), Use::Applied,
        ACTION_ABOUT,
        "Each action as auditd 3.0.9 carries it out."),
    key("disk_full_action", Kind::Action { forbidden: &["email"] }, Some("ignore"), Use::Differs,
        "What a full log file system does; the actions of `space_left_action` but `email`.",
        "Runs when a write fails for lack of space; auditd runs it a little earlier, when fewer than 5 blocks are left."),
    key("disk_error_action", Kind::Action { forbidden: &["email", "rotate"] }, Some("syslog"), Use::Applied,
        "What an error writing or flushing the log does; the actions of `space_left_action` but `email` and `rotate`.",
        ""),
    key("priority_boost", num(0, INT_MAX), Some("4"), Use::Applied,
        "How much the daemon lowers its nice value.",
        ""),
    key("tcp_listen_port", num(1, 65535), None, Use::Refused(LISTENER),
        "The TCP port on which auditd receives events from remote audit daemons.",
        "Refused: fastaudit cannot receive remote events. To send this host's events to a collector, use the audisp-remote plugin."),
    key("tcp_listen_queue", num(1, 65535), Some("5"), Use::NotYet(LISTENER),
        "The listener's queue of pending connections.", LISTENER_NOTE),
    key("tcp_max_per_addr", num(1, 1024), Some("1"), Use::NotYet(LISTENER),
        "Connections the listener accepts from one address.", LISTENER_NOTE),
    key("use_libwrap", Kind::YesNo, Some("yes"), Use::NotYet(LISTENER),
        "Whether the listener asks tcp_wrappers who may connect.", LISTENER_NOTE),
    key("tcp_client_ports", Kind::Ports, None, Use::NotYet(LISTENER),
        "The source ports remote clients must connect from.", LISTENER_NOTE),
    key("tcp_client_max_idle", num(0, INT_MAX), Some("0"), Use::NotYet(LISTENER),
        "Seconds after which the listener closes an idle client.", LISTENER_NOTE),
    key("transport", Kind::Word(&["tcp", "krb5"]), Some("tcp"), Use::NotYet(LISTENER),
        "The listener's transport: plain TCP or Kerberos 5.", LISTENER_NOTE),
    key("enable_krb5", Kind::YesNo, None, Use::NotYet(KRB5),
        "The older switch for `transport = krb5`.", LISTENER_NOTE),
    key("krb5_principal", Kind::Text, None, Use::NotYet(KRB5),
        "The listener's Kerberos principal.", LISTENER_NOTE),
    key("krb5_key_file", Kind::Text, None, Use::NotYet(KRB5),
        "The listener's Kerberos key table.", LISTENER_NOTE),
    key("distribute_network", Kind::YesNo, Some("no"), Use::NotYet(LISTENER),
        "Whether events received over the network are passed to the plugins.", LISTENER_NOTE),
    key("q_depth", num(0, 99999), Some("2000"), Use::Differs,
        "How many records the plugin dispatcher may hold for its plugins; below 512 is a warning.",
        "Each plugin has a queue of its own of this many records, so a slow plugin fills only its own; 0 is refused."),
    key("overflow_action",
        Kind::Word(&["ignore", "syslog", "suspend", "single", "halt"]), Some("syslog"), Use::Applied,
        "What a full plugin queue does: the event is dropped for that plugin and `ignore`, `syslog` (the first 5 times), `suspend` (no more events to plugins until SIGUSR2 or SIGHUP), `single` or `halt` follows.",
        ""),
    key("max_restarts", num(0, INT_MAX), Some("10"), Use::Applied,
        "How many times a plugin that died is started again.",
        ""),
    key("plugin_dir", Kind::Text, Some("/etc/audit/plugins.d"), Use::Differs,
        "The directory of plugin configurations: every active plugin there is started and fed the events.",
        "Plugins of `type = always` with `format = string` are run; built-in plugins and `format = binary` are skipped with a warning."),
    key("end_of_event_timeout", num(0, ANY), Some("2"), Use::Differs,
        "Seconds after which auparse (ausearch, aureport, auditd's own event reader) takes an event whose last record has not come as complete.",
        "Used for JSON logs: how long a kernel event's records are gathered into one object."),
];

/// The keys a running auditd 3.0.9 does not take again on SIGHUP (its
/// `reconfigure` leaves them as they were): a change waits for a restart.
pub const AT_RESTART: &[&str] = &["local_events", "end_of_event_timeout"];

const fn key(
    name: &'static str,
    kind: Kind,
    default: Option<&'static str>,
    usage: Use,
    about: &'static str,
    fastaudit: &'static str,
) -> Key {
    Key {
        name,
        kind,
        default,
        usage,
        about,
        fastaudit,
    }
}

const fn num(min: u64, max: u64) -> Kind {
    Kind::Number { min, max }
}

/// The failure action words (`space_left_action` ...).
pub fn action_words() -> &'static [&'static str] {
    ACTIONS
}

/// A key by name, in any case (auditd's `strcasecmp`).
pub fn lookup(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name.eq_ignore_ascii_case(name))
}

/// Whether a key takes a third word (auditd's `max_options`): the four
/// action keys, for `exec /path`.
pub fn takes_option(k: &Key) -> bool {
    matches!(k.kind, Kind::Action { .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lower_case() {
        for (i, k) in KEYS.iter().enumerate() {
            assert_eq!(k.name, k.name.to_ascii_lowercase());
            assert!(KEYS[..i].iter().all(|o| o.name != k.name), "{}", k.name);
        }
        assert_eq!(KEYS.len(), 39, "auditd 3.0.9 has 39 keywords");
        assert_eq!(lookup("LOG_FILE").map(|k| k.name), Some("log_file"));
    }

    #[test]
    fn every_key_says_what_it_is_and_how_it_differs() {
        for k in KEYS {
            assert!(k.about.ends_with('.'), "{}: {:?}", k.name, k.about);
            // A key applied differently, refused or not applied says why.
            if k.usage != Use::Applied {
                assert!(!k.fastaudit.is_empty(), "{} says how", k.name);
            }
            assert_eq!(k.about.matches('`').count() % 2, 0, "{}", k.name);
            assert_eq!(k.fastaudit.matches('`').count() % 2, 0, "{}", k.name);
        }
        assert_eq!(
            lookup("space_left_action").map(Key::syntax).as_deref(),
            Some("ignore|syslog|rotate|email|exec PROGRAM|suspend|single|halt")
        );
        assert_eq!(
            lookup("disk_error_action").map(Key::syntax).as_deref(),
            Some("ignore|syslog|exec PROGRAM|suspend|single|halt")
        );
    }
}
