//! RUN_DIR/status: the counters of the running daemon, rewritten about
//! once a second (`fastaudit status` prints them) and removed at stop.

use crate::kernel::Kernel;
use crate::rules::Refused;
use crate::run_dir::{self, RUN_DIR};
use crate::sink::Sink;
use fastaudit_log::Source;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often the status file is rewritten.
const EVERY: Duration = Duration::from_secs(1);

/// The status file's name under RUN_DIR.
pub const STATUS: &str = "status";

/// The status file.
pub struct StatusFile {
    path: PathBuf,
    written: Option<Instant>,
    /// Lines fixed at start (what was asked and applied: irreversible.rs).
    fixed: String,
}

impl StatusFile {
    /// The status file of a run; `fixed`: lines that stay as they are.
    pub fn new(fixed: String) -> Self {
        StatusFile {
            path: run_dir::file(STATUS),
            written: None,
            fixed,
        }
    }

    /// Rewrite it if it is a second old; `bpf_logged`: the BPF events
    /// logged so far, `bpf_lost` those lost in the ring buffer. Best
    /// effort: a status file that cannot be written stops nothing.
    pub fn update(
        &mut self,
        kernel: &Kernel,
        sink: &Sink,
        bpf_logged: u64,
        bpf_lost: u64,
        refused: &Refused,
    ) {
        if self.written.is_none_or(|t| t.elapsed() >= EVERY) {
            self.written = Some(Instant::now());
            let _ = self.write(kernel, sink, bpf_logged, bpf_lost, refused);
        }
    }

    fn write(
        &self,
        kernel: &Kernel,
        sink: &Sink,
        bpf_logged: u64,
        bpf_lost: u64,
        refused: &Refused,
    ) -> std::io::Result<()> {
        let rx = kernel.stats();
        let log = &sink.log;
        let text = format!(
            "pid {}\nmode {}\nrules_immutable {}\nbpf_events_logged {}\nbpf_events_lost {}\nkernel_records_received {}\nkernel_records_logged {}\nkernel_records_dropped {}\nkernel_socket_overruns {}\nkernel_read_errors {}\nlog_dropped {}\n",
            std::process::id(),
            if kernel.is_daemon() { "daemon" } else { "bpf-only" },
            u8::from(kernel.locked()),
            bpf_logged,
            bpf_lost,
            rx.received,
            log.counts(Source::Kernel).logged + log.counts(Source::Joined).logged,
            rx.dropped,
            rx.overruns,
            rx.errors,
            log.lost(),
        ) + &self.fixed
            + &refused.status_lines()
            + &sink.plugin_status();
        std::fs::create_dir_all(RUN_DIR)?;
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.path)
    }

    /// At stop: the file goes.
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
