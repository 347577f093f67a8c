//! fastaudit-auditd.conf(5): every auditd.conf key auditd 3.x knows and
//! what fastaudit does with it, written from the config crate's key table
//! (fastaudit_config::keys::KEYS). docs/configuration.md's table of the
//! keys is the same text in Markdown ([markdown], docs.rs).

use super::prose::{cell, inlines};
use clap_mangen::roff::{bold, roman, Roff};
use fastaudit_config::keys::{Key, Use, AT_RESTART, KEYS};

/// The page's name.
pub const NAME: &str = "fastaudit-auditd.conf";

/// Its section: file formats.
pub const SECTION: &str = "5";

/// How the file is read, the page's DESCRIPTION (and the doc's).
const READING: &[&str] = &[
    "fastaudit run reads auditd's configuration file, /etc/audit/auditd.conf (or --config FILE), as auditd 3.0.9 reads it: every one of its 39 keys, names and words in any case, `name = value [option]` split on spaces, `#` comments. Lines longer than 158 bytes, and a last line without a newline, are skipped with a warning, as auditd skips them. The file must be a regular file (not a symbolic link) owned by root and not world-writable. A key the file does not set has auditd's default (below); flags on fastaudit run's command line win over the file, key by key.",
    "Each value is checked as auditd checks it (numbers and their ranges, words, log_file's directory, log_group names, e-mail accounts, exec programs), then auditd's checks across keys: space_left above admin_space_left; a non-zero freq with incremental flushing; no log_group for a log directly in /var/log. A key auditd 3.x does not know (auditd 4's tls_* and report_interval among them) is an `unknown keyword`. Every problem is printed as `FILE:LINE: key: what is wrong`, all of them, and nothing starts (exit 1); warnings are printed as `FILE:LINE: warning: ...` and the start goes on. fastaudit config check prints the same without starting anything.",
    "For each key below: its values, auditd's default, what it sets, and what fastaudit does with it: applied (as auditd applies it), applied differently (how is said), accepted and not applied (a warning at start says so), or refused (the file is refused while it sets the key). On SIGHUP the file is read again and every key is applied again, but local_events and end_of_event_timeout, which wait for a restart, as in auditd.",
];

/// The key's default, as the page says it.
fn default(k: &Key) -> String {
    match k.default {
        Some(d) => d.to_string(),
        None => "unset".to_string(),
    }
}

/// What fastaudit does, in one paragraph of the key table's words.
fn fastaudit(k: &Key) -> String {
    let mut s = format!("fastaudit: {}", k.usage.label());
    let detail = match k.usage {
        Use::NotYet(m) | Use::Refused(m) if k.fastaudit.is_empty() => m.why(),
        _ => k.fastaudit,
    };
    if !detail.is_empty() {
        s.push_str(". ");
        s.push_str(detail);
    } else {
        s.push('.');
    }
    if AT_RESTART.contains(&k.name) {
        s.push_str(" A change waits for a restart, as in auditd.");
    }
    s
}

/// The page, dated `date`, from `source` (the package and its version).
pub fn page(date: &str, source: &str, see_also: &[String]) -> Roff {
    let mut roff = Roff::new();
    roff.control("TH", [NAME, SECTION, date, source]);
    roff.control("SH", ["NAME"]);
    roff.text([roman(format!(
        "{NAME} - auditd.conf as fastaudit run reads it, key by key"
    ))]);
    roff.control("SH", ["SYNOPSIS"]);
    roff.text([bold("/etc/audit/auditd.conf")]);
    roff.control("SH", ["DESCRIPTION"]);
    for (i, p) in READING.iter().enumerate() {
        if i > 0 {
            roff.control("PP", []);
        }
        roff.text(inlines(p));
    }
    roff.control("SH", ["KEYS"]);
    for k in KEYS {
        roff.control("TP", []);
        roff.text([bold(k.name), roman(" = "), roman(k.syntax())]);
        let mut about = inlines(k.about);
        about.push(roman(format!(" Default: {}.", default(k))));
        roff.text(about);
        roff.control("br", []);
        roff.text(inlines(&fastaudit(k)));
    }
    roff.control("SH", ["FILES"]);
    roff.text([bold(fastaudit_config::DEFAULT_PATH)]);
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(see_also.join(", "))]);
    roff
}

/// The Markdown table docs/configuration.md holds between its markers.
#[cfg_attr(not(test), allow(dead_code))]
pub fn markdown() -> String {
    let mut s = String::new();
    for p in READING {
        s.push_str(p);
        s.push_str("\n\n");
    }
    s.push_str("| key | values (auditd's default) | what it sets | what fastaudit does |\n");
    s.push_str("| --- | --- | --- | --- |\n");
    for k in KEYS {
        s.push_str(&format!(
            "| `{}` | `{}` ({}) | {} | {} |\n",
            k.name,
            cell(&k.syntax()),
            cell(&default(k)),
            cell(k.about),
            cell(&fastaudit(k)),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_on_the_page() {
        let mut out = Vec::new();
        page("2026-01-01", "fastaudit", &[])
            .to_writer(&mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        for k in KEYS {
            assert!(
                text.contains(&format!("\\fB{}\\fR = ", k.name)),
                "{}",
                k.name
            );
        }
        let md = markdown();
        assert_eq!(md.matches("\n| `").count(), KEYS.len());
    }
}
