//! The programs this kernel refused, found while a generation loads:
//! from libbpf's messages (the verifier's reason with each), and the test
//! switch that makes a kernel refuse chosen ones.

use crate::plan::refusal::Refusal;
use std::sync::Mutex;

/// Test switch, read only by the loader (never from the configuration):
/// programs named here (comma-separated) are made to fail the kernel's
/// verifier at load, as a kernel that refuses them would; `attach:NAME`
/// makes a per-syscall program's attach point one the kernel lacks.
pub const TEST_ENV: &str = "FASTAUDIT_TEST_REFUSE_PROG";

/// The programs [`TEST_ENV`] names to fail at load.
pub(crate) fn test_refused() -> Vec<String> {
    test_switch()
        .into_iter()
        .filter(|p| !p.starts_with("attach:"))
        .collect()
}

/// The programs [`TEST_ENV`] names `attach:PROGRAM`: their per-syscall
/// tracepoints are attached to one this kernel does not have (a missing
/// attach point).
pub(crate) fn test_missing_points() -> Vec<String> {
    test_switch()
        .iter()
        .filter_map(|p| p.strip_prefix("attach:").map(String::from))
        .collect()
}

fn test_switch() -> Vec<String> {
    std::env::var(TEST_ENV)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// libbpf's messages while a generation loads: kept, so that a refusal
/// is known by program, with its reason.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn keep(level: libbpf_rs::PrintLevel, msg: String) {
    let about_a_failed_load = msg.contains("failed to load")
        || msg.contains("load failed")
        || msg.contains("PROG LOAD LOG");
    if crate::load::start_trace::enabled() {
        crate::load::start_trace::print_stats(level, msg.clone());
    } else if level != libbpf_rs::PrintLevel::Debug && !about_a_failed_load {
        // libbpf's other warnings are printed as its default printer would.
        eprint!("{msg}");
    }
    if let Ok(mut m) = MESSAGES.lock() {
        m.push(msg);
    }
}

/// Capture libbpf's messages until the guard is dropped (then the
/// previous printer is back).
pub(crate) struct Capture(Option<(libbpf_rs::PrintLevel, libbpf_rs::PrintCallback)>);

impl Capture {
    pub(crate) fn start() -> Capture {
        if let Ok(mut m) = MESSAGES.lock() {
            m.clear();
        }
        // The verifier's log of a failed load comes at warning level; a
        // loaded program's statistics (the start trace) at debug level.
        let level = if crate::load::start_trace::enabled() {
            libbpf_rs::PrintLevel::Debug
        } else {
            libbpf_rs::PrintLevel::Warn
        };
        Capture(libbpf_rs::set_print(Some((level, keep))))
    }

    /// The programs whose load failed, by libbpf's messages so far.
    pub(crate) fn refusals(&self) -> Vec<Refusal> {
        let messages = MESSAGES.lock().map(|m| m.clone()).unwrap_or_default();
        parse(&messages)
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        libbpf_rs::set_print(self.0.take());
    }
}

/// The refused programs in libbpf's messages: `prog 'NAME': BPF program
/// load failed: ERR`, with the last line of the verifier log libbpf
/// prints after it (the verifier's reason), statistics left out.
fn parse(messages: &[String]) -> Vec<Refusal> {
    let mut out: Vec<Refusal> = Vec::new();
    for msg in messages {
        let Some(rest) = msg.trim_end().strip_prefix("libbpf: prog '") else {
            continue;
        };
        let Some((name, tail)) = rest.split_once("': ") else {
            continue;
        };
        if let Some(err) = tail.strip_prefix("BPF program load failed: ") {
            out.retain(|r| r.program != name);
            out.push(Refusal {
                program: name.to_string(),
                why: err.trim().to_string(),
            });
        } else if let Some(log) = tail.strip_prefix("-- BEGIN PROG LOAD LOG --") {
            let reason = log.lines().map(str::trim).rfind(|l| {
                !l.is_empty()
                    && !l.starts_with("-- END PROG LOAD LOG")
                    && !l.starts_with("processed ")
                    && !l.starts_with("verification time")
                    && !l.starts_with("stack depth")
            });
            if let (Some(r), Some(reason)) =
                (out.iter_mut().rev().find(|r| r.program == name), reason)
            {
                r.why = format!("{}; verifier: {reason}", r.why);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libbpf_messages_name_the_refused_program_and_the_verifier_reason() {
        let m: Vec<String> = [
            "libbpf: prog 'fa_ctime_xchg': BPF program load failed: Invalid argument\n",
            "libbpf: prog 'fa_ctime_xchg': -- BEGIN PROG LOAD LOG --\n0: R1=ctx() R10=fp0\n; int BPF_PROG(x)\n0: (79) r2 = *(u64 *)(r1 +8)\ninvalid bpf_context access off=8 size=8\nprocessed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n-- END PROG LOAD LOG --\n",
            "libbpf: prog 'fa_ctime_xchg': failed to load: -22\n",
            "libbpf: failed to load object 'fastaudit_bpf'\n",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            parse(&m),
            vec![Refusal {
                program: "fa_ctime_xchg".into(),
                why: "Invalid argument; verifier: invalid bpf_context access off=8 size=8".into()
            }]
        );
        assert!(parse(&["libbpf: map 'x': created\n".to_string()]).is_empty());
    }
}
