//! `FASTAUDIT_START_TRACE=1`: where start-up time goes. Each step of
//! `fastaudit run` up to "ready" prints the milliseconds since the first
//! mark, and each BPF program loaded prints the verifier's statistics
//! (its time, instructions processed, states), on stderr. Off by default:
//! nothing is printed and no verifier log is asked for.
//! `FASTAUDIT_START_TRACE=log` also asks for each program's full verifier
//! log (level 1): a program the kernel refuses then has the instructions
//! the verifier went through printed (the last 16 MiB of them, libbpf's
//! buffer), to find where a kernel's verifier gives up. Slower.

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
    // 4: BPF_LOG_STATS, the summary lines only; 1: BPF_LOG_LEVEL1, every
    // instruction verified (on each path).
    let full = std::env::var_os(ENV).is_some_and(|v| v == "log");
    let level = if full { 1 | 4 } else { 4 };
    for mut p in open.progs_mut() {
        if p.autoload() {
            p.set_log_level(level);
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
    let mut summary: Vec<String> = log
        .lines()
        .filter(|l| l.starts_with("verification time") || l.starts_with("processed"))
        .map(str::to_string)
        .collect();
    let heaviest = heaviest_subprogs(log, 3);
    if !heaviest.is_empty() {
        summary.push(format!("most verified: {}", heaviest.join(", ")));
    }
    eprintln!("fastaudit: start: verifier: {name}: {}", summary.join("; "));
}

/// The `n` functions the verifier went through most often, from the
/// per-function lines newer kernels (7.x) add to the statistics
/// (`subprog 23 (names_step) static insns_self 254 insns_total 997 ...`),
/// as `NAME INSNS`; empty where the kernel prints none.
fn heaviest_subprogs(log: &str, n: usize) -> Vec<String> {
    let mut found: Vec<(u64, &str)> = log
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("subprog ")?;
            let name = rest.split_once('(')?.1.split_once(')')?.0;
            let mut words = rest.split_whitespace();
            words.find(|w| *w == "insns_self")?;
            let insns = words.next()?.parse().ok()?;
            Some((insns, name))
        })
        .filter(|(insns, _)| *insns > 0)
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found
        .into_iter()
        .take(n)
        .map(|(insns, name)| format!("{name} {insns}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::heaviest_subprogs;

    #[test]
    fn the_heaviest_subprograms_are_named_from_7x_statistics() {
        let log = "verification time 5 usec\n\
                   subprog 0 (fa_raw_exit) main insns_self 466 insns_total 15047 stack 184\n\
                   subprog 8 (fa_judge) global insns_self 0 insns_total 0 stack 0\n\
                   subprog 23 (names_step) static insns_self 72545 insns_total 889417 stack 112\n\
                   subprog 28 (failed_step) static insns_self 407668 insns_total 705192 stack 120\n\
                   processed 1000001 insns (limit 1000000)\n";
        assert_eq!(
            heaviest_subprogs(log, 2),
            vec![
                "failed_step 407668".to_string(),
                "names_step 72545".to_string()
            ]
        );
        // Older kernels print no such lines.
        assert!(heaviest_subprogs("processed 5 insns (limit 1000000)\n", 3).is_empty());
    }
}
