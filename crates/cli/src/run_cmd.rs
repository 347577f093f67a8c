//! `fastaudit run`: the daemon (fastaudit_daemon), with the command
//! line's options.

use crate::cli::{LogFormat, RunArgs};
use anyhow::Result;
use fastaudit_daemon::{Error, LogFlags, RunOptions};
use fastaudit_records::Format;
use std::process::ExitCode;

/// Run the daemon; exit 1 when the configuration or the rules are refused
/// (each problem on stderr).
pub fn run(args: RunArgs) -> Result<ExitCode> {
    match fastaudit_daemon::run(&options(args)) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(Error::Refused(lines)) => {
            for l in lines {
                eprintln!("{l}");
            }
            Ok(ExitCode::from(crate::exit::REFUSED))
        }
        Err(e) => Err(e.into()),
    }
}

/// The daemon's options of the command line.
fn options(args: RunArgs) -> RunOptions {
    RunOptions {
        rules: args.rules,
        strict: args.strict,
        config: args.config,
        no_config: args.no_config,
        log: LogFlags {
            path: args.log,
            write_logs: args.write_logs,
            format: args.format.map(format),
            max_log_file: args.max_log_file,
            num_logs: args.num_logs,
            disk_full_action: args.disk_full_action,
            disk_error_action: args.disk_error_action,
            space_left: args.space_left,
            space_left_action: args.space_left_action,
            admin_space_left: args.admin_space_left,
            admin_space_left_action: args.admin_space_left_action,
        },
        plugins: args.plugins.into(),
        ring_buffer_bytes: args.ring_buffer_kib.saturating_mul(1024),
        explain: args.explain,
        hook_kinds: args.hook_kinds,
        audit_skipped_uring_ops: args.audit_skipped_uring_ops,
        syscall_function_hooks: args.syscall_function_hooks,
        containers: args.containers,
        bpf_only: args.bpf_only,
        take_over: args.take_over,
        apply_irreversible: args.apply_irreversible,
    }
}

fn format(f: LogFormat) -> Format {
    match f {
        LogFormat::Raw => Format::Raw,
        LogFormat::Enriched => Format::Enriched,
        LogFormat::Json => Format::Json,
    }
}
