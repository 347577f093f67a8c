//! Whether this kernel preempts its own code, and so the BPF programs it
//! runs from trampolines (fentry, fexit): those run with only migration
//! disabled, where a tracepoint's run with preemption disabled. Debian's
//! 6.1 and 6.12 preempt voluntarily (at explicit points: never inside a
//! program); 7.x preempts lazily (at the next tick: anywhere).

/// The preemption model this kernel runs, when it preempts kernel code
/// ("full", "lazy", "rt", or why it is not known); `None` for "none" and
/// "voluntary". Read from, in turn: debugfs' `sched/preempt` (the mode in
/// force, with PREEMPT_DYNAMIC), the `preempt=` boot parameter, and the
/// config of kernel `release` (its built-in model).
pub(crate) fn preempting_mode(release: &str) -> Option<String> {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let mode = read("/sys/kernel/debug/sched/preempt")
        .and_then(|s| dynamic_mode(&s))
        .or_else(|| read("/proc/cmdline").and_then(|s| boot_mode(&s)))
        .or_else(|| {
            // 7.x's Debian packages keep the config beside the modules.
            [
                format!("/boot/config-{release}"),
                format!("/lib/modules/{release}/config"),
                format!("/usr/lib/modules/{release}/config"),
            ]
            .iter()
            .find_map(|p| read(p).and_then(|s| config_mode(&s)))
        });
    match mode {
        Some(m) if m == "none" || m == "voluntary" => None,
        Some(m) => Some(m),
        None => Some(format!(
            "unknown (no /sys/kernel/debug/sched/preempt, no preempt= boot parameter, no config of {release})"
        )),
    }
}

/// The mode in parentheses in debugfs' `sched/preempt`
/// ("none voluntary (full) lazy").
fn dynamic_mode(text: &str) -> Option<String> {
    let open = text.find('(')?;
    let close = text[open..].find(')')? + open;
    Some(text[open + 1..close].trim().to_string()).filter(|m| !m.is_empty())
}

/// The `preempt=` boot parameter's mode.
fn boot_mode(cmdline: &str) -> Option<String> {
    cmdline
        .split_whitespace()
        .rev()
        .find_map(|w| w.strip_prefix("preempt="))
        .map(str::to_string)
}

/// The preemption model a kernel config builds (a PREEMPT_DYNAMIC
/// kernel's default, which `preempt=` overrides).
fn config_mode(config: &str) -> Option<String> {
    let set = |k: &str| config.lines().any(|l| l.trim() == format!("{k}=y"));
    let mode = if set("CONFIG_PREEMPT_RT") {
        "rt"
    } else if set("CONFIG_PREEMPT_LAZY") {
        "lazy"
    } else if set("CONFIG_PREEMPT") {
        "full"
    } else if set("CONFIG_PREEMPT_VOLUNTARY") {
        "voluntary"
    } else if set("CONFIG_PREEMPT_NONE") {
        "none"
    } else {
        return None;
    };
    Some(mode.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_read_without_panic(text in "\\PC*") {
            let _ = dynamic_mode(&text);
            let _ = boot_mode(&text);
            let _ = config_mode(&text);
        }
    }

    #[test]
    fn debugfs_names_the_mode_in_force() {
        assert_eq!(
            dynamic_mode("none voluntary full (lazy)\n").as_deref(),
            Some("lazy")
        );
        assert_eq!(
            dynamic_mode("none (voluntary) full lazy\n").as_deref(),
            Some("voluntary")
        );
        assert_eq!(dynamic_mode("none voluntary full lazy\n"), None);
    }

    #[test]
    fn the_last_boot_parameter_wins() {
        assert_eq!(
            boot_mode("ro preempt=full quiet preempt=none").as_deref(),
            Some("none")
        );
        assert_eq!(boot_mode("ro quiet"), None);
    }

    #[test]
    fn debians_configs() {
        // 6.12 (trixie) and 7.3 (trixie-backports), as Debian builds them.
        let v612 = "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_VOLUNTARY=y\n\
                    CONFIG_PREEMPT_COUNT=y\nCONFIG_PREEMPTION=y\nCONFIG_PREEMPT_DYNAMIC=y\n";
        let v73 = "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_LAZY=y\nCONFIG_PREEMPT_COUNT=y\n\
                   CONFIG_PREEMPTION=y\nCONFIG_PREEMPT_DYNAMIC=y\n";
        assert_eq!(config_mode(v612).as_deref(), Some("voluntary"));
        assert_eq!(config_mode(v73).as_deref(), Some("lazy"));
        assert_eq!(
            config_mode("CONFIG_PREEMPT=y\n# CONFIG_PREEMPT_LAZY is not set\n").as_deref(),
            Some("full")
        );
        assert_eq!(config_mode("# CONFIG_PREEMPT_RT is not set\n"), None);
    }
}
