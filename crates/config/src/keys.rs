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
    /// Read and checked, but fastaudit does not do it yet: reported (some
    /// values are refused: see the run command).
    NotYet(Missing),
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
}

const INT_MAX: u64 = i32::MAX as u64;
const ANY: u64 = u64::MAX;
const ACTIONS: &[&str] = &[
    "ignore", "syslog", "rotate", "email", "exec", "suspend", "single", "halt",
];
const LISTENER: Missing = Missing::Listener;
const KRB5: Missing = Missing::Kerberos;

/// Every key auditd 3.0.9 accepts, in auditd's order.
pub const KEYS: &[Key] = &[
    key("local_events", Kind::YesNo, Some("yes"), Use::Applied),
    key("write_logs", Kind::YesNo, Some("yes"), Use::Applied),
    key(
        "log_file",
        Kind::LogFile,
        Some("/var/log/audit/audit.log"),
        Use::Applied,
    ),
    key(
        "log_format",
        // `json` is fastaudit's own (auditd refuses it).
        Kind::Word(&["raw", "nolog", "enriched", "json"]),
        Some("enriched"),
        Use::Applied,
    ),
    key("log_group", Kind::Group, Some("0"), Use::Applied),
    key(
        "flush",
        Kind::Word(&["none", "incremental", "incremental_async", "data", "sync"]),
        Some("none"),
        Use::Applied,
    ),
    key("freq", num(0, INT_MAX), Some("0"), Use::Applied),
    key("num_logs", num(0, 999), Some("0"), Use::Applied),
    key("dispatcher", Kind::Deprecated, None, Use::Applied),
    key(
        "name_format",
        Kind::Word(&["none", "hostname", "fqd", "numeric", "user"]),
        Some("none"),
        Use::Applied,
    ),
    key("name", Kind::Text, None, Use::Applied),
    key("disp_qos", Kind::Deprecated, None, Use::Applied),
    key("max_log_file", num(0, ANY), Some("0"), Use::Applied),
    key(
        "max_log_file_action",
        Kind::Word(&["ignore", "syslog", "suspend", "rotate", "keep_logs"]),
        Some("ignore"),
        Use::Applied,
    ),
    key("space_left", Kind::Space, Some("0"), Use::Applied),
    key(
        "space_left_action",
        Kind::Action { forbidden: &[] },
        Some("ignore"),
        Use::Applied,
    ),
    key("action_mail_acct", Kind::Email, Some("root"), Use::Applied),
    key("verify_email", Kind::YesNo, Some("yes"), Use::Applied),
    key("admin_space_left", Kind::Space, Some("0"), Use::Applied),
    key(
        "admin_space_left_action",
        Kind::Action { forbidden: &[] },
        Some("ignore"),
        Use::Applied,
    ),
    key(
        "disk_full_action",
        Kind::Action {
            forbidden: &["email"],
        },
        Some("ignore"),
        Use::Applied,
    ),
    key(
        "disk_error_action",
        Kind::Action {
            forbidden: &["email", "rotate"],
        },
        Some("syslog"),
        Use::Applied,
    ),
    key("priority_boost", num(0, INT_MAX), Some("4"), Use::Applied),
    key(
        "tcp_listen_port",
        num(1, 65535),
        None,
        Use::NotYet(LISTENER),
    ),
    key(
        "tcp_listen_queue",
        num(1, 65535),
        Some("5"),
        Use::NotYet(LISTENER),
    ),
    key(
        "tcp_max_per_addr",
        num(1, 1024),
        Some("1"),
        Use::NotYet(LISTENER),
    ),
    key(
        "use_libwrap",
        Kind::YesNo,
        Some("yes"),
        Use::NotYet(LISTENER),
    ),
    key("tcp_client_ports", Kind::Ports, None, Use::NotYet(LISTENER)),
    key(
        "tcp_client_max_idle",
        num(0, INT_MAX),
        Some("0"),
        Use::NotYet(LISTENER),
    ),
    key(
        "transport",
        Kind::Word(&["tcp", "krb5"]),
        Some("tcp"),
        Use::NotYet(LISTENER),
    ),
    key("enable_krb5", Kind::YesNo, None, Use::NotYet(KRB5)),
    key("krb5_principal", Kind::Text, None, Use::NotYet(KRB5)),
    key("krb5_key_file", Kind::Text, None, Use::NotYet(KRB5)),
    key(
        "distribute_network",
        Kind::YesNo,
        Some("no"),
        Use::NotYet(LISTENER),
    ),
    key("q_depth", num(0, 99999), Some("2000"), Use::Applied),
    key(
        "overflow_action",
        Kind::Word(&["ignore", "syslog", "suspend", "single", "halt"]),
        Some("syslog"),
        Use::Applied,
    ),
    key("max_restarts", num(0, INT_MAX), Some("10"), Use::Applied),
    key(
        "plugin_dir",
        Kind::Text,
        Some("/etc/audit/plugins.d"),
        Use::Applied,
    ),
    key("end_of_event_timeout", num(0, ANY), Some("2"), Use::Applied),
];

/// The keys a running auditd 3.0.9 does not take again on SIGHUP (its
/// `reconfigure` leaves them as they were): a change waits for a restart.
pub const AT_RESTART: &[&str] = &["local_events", "end_of_event_timeout"];

const fn key(name: &'static str, kind: Kind, default: Option<&'static str>, usage: Use) -> Key {
    Key {
        name,
        kind,
        default,
        usage,
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
}
