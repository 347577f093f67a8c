//! What the package ships besides the binaries, generated from the
//! command line's definition (scripts/package.sh): a man page for fastaudit
//! and for every command `fastaudit help` lists (fastaudit-bench(8) from
//! the benchmark binary), each rendered by groff without a warning, naming
//! every option `--help` names; bash, zsh and fish completions that offer
//! the commands and the options' values. And the help of the commands whose
//! -h/--help clap does not see is `fastaudit help COMMAND`'s. Nothing here
//! needs root or the kernel.

use fastaudit_testsupport as support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use support::{bench_bin::build_bench_binary, fastaudit, tempdir};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn stdout_of(args: &[&str]) -> String {
    let out = fastaudit(FASTAUDIT, args);
    assert!(out.status.success(), "fastaudit {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The commands a help text lists under `Commands:`, but `help`.
fn commands_in(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

/// Every command path (`[]`, `["rules"]`, `["rules", "list"]`, ...), as
/// `fastaudit help` lists them.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = vec![vec![]];
    let mut i = 0;
    while i < paths.len() {
        let path: Vec<String> = paths[i].clone();
        let mut args = vec!["help"];
        args.extend(path.iter().map(String::as_str));
        if path.first().is_some_and(|c| c == "bench") {
            // `fastaudit help bench` is the benchmark binary's.
            build_bench_binary(FASTAUDIT);
        }
        let help = stdout_of(&args);
        for c in commands_in(&help) {
            let mut p = path.clone();
            p.push(c);
            paths.push(p);
        }
        i += 1;
    }
    paths
}

/// The page name of a command path: fastaudit, fastaudit-rules-list, ...
fn page(path: &[String]) -> String {
    std::iter::once("fastaudit")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("-")
}

/// The pages as the package makes them, in a temp dir.
fn generate_pages() -> std::path::PathBuf {
    let dir = tempdir();
    let out = fastaudit(
        FASTAUDIT,
        &[
            "generate-man",
            "--date",
            "2026-01-01",
            dir.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let out = Command::new(build_bench_binary(FASTAUDIT))
        .args(["generate-man", "--date", "2026-01-01"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    dir
}

/// A page as plain text, unwrapped (one line per paragraph), and what groff
/// warned about (every warning on: -ww).
fn render(path: &Path) -> (String, String) {
    let out = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-rLL=5000n", "-P-cbou"])
        .arg(path)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("groff (package groff-base: scripts/setup.sh --tests installs it)");
    assert!(out.status.success(), "groff {}: {out:?}", path.display());
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The long options a help text names.
fn long_options(help: &str) -> BTreeSet<String> {
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .to_string()
        })
        .filter(|w| w.len() > 2)
        .collect()
}

#[test]
fn every_command_has_a_man_page_that_renders_cleanly_and_names_its_options() {
    let dir = generate_pages();
    let paths = command_paths();
    let mut want: BTreeSet<String> = paths.iter().map(|p| format!("{}.8", page(p))).collect();
    for expected in [
        "fastaudit.8",
        "fastaudit-run.8",
        "fastaudit-rules-check.8",
        "fastaudit-bench.8",
    ] {
        assert!(want.contains(expected), "{expected} among {want:?}");
    }
    want.insert("fastaudit-auditd.conf.5".into());
    let got: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        got, want,
        "one page per command and the auditd.conf page, no other"
    );
    for path in &paths {
        let name = page(path);
        let (text, warnings) = render(&dir.join(format!("{name}.8")));
        assert_eq!(warnings, "", "groff warns about {name}.8");
        // NAME is the command's about, the first line of its help.
        let mut args = vec!["help"];
        args.extend(path.iter().map(String::as_str));
        let help = stdout_of(&args);
        let about = help.lines().next().unwrap().trim_end_matches('.');
        let name_line = text
            .lines()
            .skip_while(|l| l.trim() != "NAME")
            .nth(1)
            .unwrap_or_default()
            .trim();
        assert_eq!(name_line, format!("{name} - {about}"), "{name}.8's NAME");
        assert!(
            text.contains(&format!("{name}(8)")),
            "{name}.8's header: {text}"
        );
        // Every option of the help is on the page (bench's help is its
        // own binary's, as is its page).
        let missing: Vec<String> = long_options(&help)
            .into_iter()
            .filter(|o| !text.contains(o.as_str()))
            .collect();
        assert!(missing.is_empty(), "{name}.8 lacks {missing:?}:\n{text}");
        // The pages it refers to are pages the package has.
        for word in text.split(|c: char| c.is_whitespace() || c == ',') {
            for section in ["8", "5"] {
                if let Some(page) = word
                    .strip_suffix(&format!("({section})"))
                    .filter(|w| w.starts_with("fastaudit"))
                {
                    assert!(
                        want.contains(&format!("{page}.{section}")),
                        "{name}.8 refers to {word}"
                    );
                }
            }
        }
    }
    // The ctl page keeps auditctl's option table as a table.
    let (ctl, _) = render(&dir.join("fastaudit-ctl.8"));
    assert!(ctl.contains("AUDITCTL OPTIONS"), "{ctl}");
    assert!(
        ctl.lines().any(|l| l.trim_start().starts_with("-R FILE ")),
        "one option a line: {ctl}"
    );
}

#[test]
fn the_completions_offer_the_commands_and_the_options_values() {
    let dir = tempdir();
    let out = fastaudit(FASTAUDIT, &["generate-completions", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["_fastaudit", "fastaudit.bash", "fastaudit.fish"]
            .map(String::from)
            .into(),
    );
    let top = commands_in(&stdout_of(&["help"]));
    // bash, as bash-completion loads it, asked to complete words.
    let bash = dir.join("fastaudit.bash");
    let complete = |line: &str| -> Vec<String> {
        let script = format!(
            "source '{}' && complete -p fastaudit >/dev/null && \
             COMP_LINE='{line}' && COMP_POINT=${{#COMP_LINE}} && \
             read -ra COMP_WORDS <<< \"$COMP_LINE\" && \
             if [ \"${{COMP_LINE: -1}}\" = ' ' ]; then COMP_WORDS+=(''); fi && \
             COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )) && \
             _fastaudit fastaudit \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\" && \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            bash.display()
        );
        let out = Command::new("bash").args(["-c", &script]).output().unwrap();
        assert!(out.status.success(), "{line:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect()
    };
    let words = complete("fastaudit ");
    for c in &top {
        assert!(words.contains(c), "{c} in {words:?}");
    }
    assert!(
        !words.iter().any(|w| w.starts_with("generate")),
        "the generators are not offered: {words:?}"
    );
    let run = complete("fastaudit run --");
    for o in ["--rules", "--config", "--hook-kinds", "--format"] {
        assert!(run.contains(&o.to_string()), "{o} in {run:?}");
    }
    let kinds = complete("fastaudit run --hook-kinds ");
    assert_eq!(
        kinds.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        ["fexit", "tracepoint", "tp_btf", "raw_tp"].into(),
    );
    let actions = complete("fastaudit run --disk-error-action ");
    assert_eq!(
        actions.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        ["ignore", "syslog", "suspend", "single", "halt"].into(),
    );
    // zsh and fish: every command is named.
    for f in ["_fastaudit", "fastaudit.fish"] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        for c in &top {
            assert!(text.contains(c.as_str()), "{c} in {f}");
        }
        assert!(!text.contains("generate-man"), "{f}");
    }
}

#[test]
fn fastaudit_help_opens_with_what_fastaudit_is() {
    let help = stdout_of(&["--help"]);
    assert!(
        help.starts_with("Linux syscall auditing on eBPF, in place of auditd"),
        "{help}"
    );
    assert!(
        !help.contains("wiring"),
        "not the crate's description: {help}"
    );
    assert!(
        !help.contains("generate"),
        "the generators are not listed: {help}"
    );
}

#[test]
fn ctl_help_is_fastaudit_help_ctl() {
    let help = stdout_of(&["help", "ctl"]);
    assert_eq!(stdout_of(&["ctl", "--help"]), help);
    assert_eq!(stdout_of(&["ctl", "-h"]), help);
    for option in ["-l [-k KEY]", "-R FILE", "-e 0|1|2"] {
        assert!(help.contains(option), "{option} in {help}");
    }
}

#[test]
fn placeholders_are_upper_case_words() {
    for path in command_paths() {
        let mut args = vec!["help"];
        args.extend(path.iter().map(String::as_str));
        let help = stdout_of(&args);
        for (i, _) in help.match_indices('<') {
            let rest = &help[i + 1..];
            let Some(end) = rest.find('>') else { continue };
            let word = &rest[..end];
            assert!(
                !word.is_empty()
                    && word
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_|%".contains(c)),
                "<{word}> in fastaudit help {path:?}"
            );
        }
    }
}

/// The headings of a rendered page (lines in capitals at the margin).
fn headings(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            !l.starts_with(' ')
                && !l.is_empty()
                && l.chars().all(|c| c.is_ascii_uppercase() || c == ' ')
        })
        .map(String::from)
        .collect()
}

/// The text of one section of a rendered page.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no {heading} in {text}"));
    let rest = &text[start + heading.len() + 2..];
    let end = rest
        .lines()
        .position(|l| !l.is_empty() && !l.starts_with(' '))
        .map_or(rest.len(), |n| {
            rest.lines().take(n).map(|l| l.len() + 1).sum()
        });
    &rest[..end]
}

#[test]
fn the_daemon_pages_have_the_sections_an_administrator_reads() {
    let dir = generate_pages();
    for name in ["fastaudit", "fastaudit-run"] {
        let (text, warnings) = render(&dir.join(format!("{name}.8")));
        assert_eq!(warnings, "", "groff warns about {name}.8");
        let h = headings(&text);
        for want in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "FILES",
            "SIGNALS",
            "EXIT STATUS",
            "EXAMPLES",
            "SEE ALSO",
        ] {
            assert!(h.iter().any(|x| x == want), "{name}.8 has {want}: {h:?}");
        }
        let files = section(&text, "FILES");
        for path in [
            "/etc/audit/auditd.conf",
            "/etc/audit/rules.d",
            "/etc/audit/plugins.d",
            "/var/log/audit/audit.log",
            "/run/fastaudit/status",
            "/run/fastaudit/control",
            "/etc/default/fastaudit",
            "fastaudit.service",
        ] {
            assert!(
                files.contains(path),
                "{name}.8's FILES names {path}: {files}"
            );
        }
        let signals = section(&text, "SIGNALS");
        for sig in ["SIGHUP", "SIGUSR1", "SIGUSR2", "SIGTERM", "SIGINT"] {
            assert!(signals.contains(sig), "{name}.8's SIGNALS: {sig}");
        }
        let exit = section(&text, "EXIT STATUS");
        for code in ["0", "1", "2"] {
            assert!(
                exit.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{code} "))),
                "{name}.8's EXIT STATUS: {code}: {exit}"
            );
        }
        assert!(
            section(&text, "SEE ALSO").contains("fastaudit-auditd.conf(5)"),
            "{name}.8 refers to the auditd.conf page"
        );
    }
    // The exit codes the pages give are the binary's: a refused
    // auditd.conf is 1, a usage error 2.
    let bad = tempdir().join("auditd.conf");
    std::fs::write(&bad, "no_such_key = 1\n").unwrap();
    let out = fastaudit(
        FASTAUDIT,
        &[
            "config",
            "check",
            bad.to_str().unwrap(),
            "--rules",
            "/dev/null",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = fastaudit(FASTAUDIT, &["run", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn the_auditd_conf_page_lists_every_key_and_what_fastaudit_does() {
    let dir = generate_pages();
    let page = dir.join("fastaudit-auditd.conf.5");
    let (text, warnings) = render(&page);
    assert_eq!(warnings, "", "groff warns about the auditd.conf page");
    assert!(text.contains("fastaudit-auditd.conf(5)"), "{text}");
    let keys = format!("\n{}", section(&text, "KEYS"));
    // Each key's entry starts a line: `name = values`.
    let listed: Vec<&str> = keys
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("       ")?;
            let (name, _) = l.split_once(" = ")?;
            (!name.contains(' ')).then_some(name)
        })
        .collect();
    let table: Vec<&str> = fastaudit_config::keys::KEYS
        .iter()
        .map(|k| k.name)
        .collect();
    assert_eq!(
        listed, table,
        "every key of the key table, in its order, once"
    );
    assert_eq!(table.len(), 39, "auditd 3.x's keys");
    for k in fastaudit_config::keys::KEYS {
        let entry = keys
            .split(&format!("\n       {} = ", k.name))
            .nth(1)
            .unwrap_or_default();
        let entry = entry.split("\n\n").next().unwrap_or_default();
        assert!(
            entry.contains(&format!("fastaudit: {}", k.usage.label())),
            "{}: what fastaudit does: {entry}",
            k.name
        );
        assert!(entry.contains("Default: "), "{}: {entry}", k.name);
    }
}
