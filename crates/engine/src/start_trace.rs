//! `FASTAUDIT_START_TRACE=1`: where start-up time goes. Each step of
//! `fastaudit run` up to "ready" prints the milliseconds since the first
//! mark, and each BPF program loaded prints the verifier's statistics
//! (its time, instructions processed, states), on stderr. Off by default:
//! nothing is printed and no verifier log is asked for.

use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns the trace on.
pub const ENV: &str = "FASTAUDIT_START_TRACE";

fn origin() -> Option<&'static Instant> {
    static ORIGIN: OnceLock<Option<Instant>> = OnceLock::new();
    ORIGIN
        .get_or_init(|| std::env::var_os(ENV).map(|_| Instant::now()))
        .as_ref()
}

/// Whether the trace is on.
pub fn enabled() -> bool {
    origin().is_some()
}

/// Print that `step` is done (the first call starts the clock).
pub fn mark(step: &str) {
    if let Some(t) = origin() {
        eprintln!(
            "fastaudit: start: {:8.1} ms  {step}",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// The verifier's statistics (`BPF_LOG_STATS`): asked of every program
/// of `open` that will be loaded, when the trace is on.
pub(crate) fn ask_verifier_stats(open: &mut libbpf_rs::OpenObject) {
    if !enabled() {
        return;
    }
    for mut p in open.progs_mut() {
        if p.autoload() {
            // 4: BPF_LOG_STATS, the summary lines only.
            p.set_log_level(4);
        }
    }
    // libbpf hands a successful load's log to the print callback at debug level.
    libbpf_rs::set_print(Some((libbpf_rs::PrintLevel::Debug, print_stats)));
}

/// Keep only the load logs' summary lines of libbpf's debug output.
pub(crate) fn print_stats(level: libbpf_rs::PrintLevel, msg: String) {
    if level != libbpf_rs::PrintLevel::Debug {
        eprint!("{msg}");
        return;
    }
    let Some(rest) = msg.strip_prefix("libbpf: prog '") else {
        return;
    };
    let Some((name, log)) = rest.split_once("': -- BEGIN PROG LOAD LOG --") else {
        return;
    };
    let summary: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("verification time") || l.starts_with("processed"))
        .collect();
    eprintln!("fastaudit: start: verifier: {name}: {}", summary.join("; "));
}
