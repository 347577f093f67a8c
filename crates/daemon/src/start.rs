//! `fastaudit run`: settings and rules read, the plan compiled, the log
//! opened, the plugins and the daemon started, then the daemon's event
//! loop until SIGINT or SIGTERM (daemon.rs).

use crate::daemon::Daemon;
use crate::dispatch;
use crate::error::{chain, Error};
use crate::irreversible::{Asked, Teller};
use crate::options::RunOptions;
use crate::output::Output;
use crate::rules::{self, Rules};
use crate::settings::{self, Refused, RunSettings};
use crate::signals::Signals;
use crate::sink::Sink;
use fastaudit_containers::Resolver;
use fastaudit_engine::{compile, start_trace, Environment, Kind, Options, Plan};
use fastaudit_log::Writer;
use fastaudit_records::Format;
use fastaudit_rules::{RuleSet, SystemHost};

/// Run until SIGINT/SIGTERM, draining and flushing at the end; with
/// `explain`, print the plan instead (no root needed).
pub fn run(opts: &RunOptions) -> Result<(), Error> {
    start_trace::mark("main");
    if opts.explain {
        let (plan, _, _, _) = plan(opts)?;
        print!("{}", plan.explain());
        return Ok(());
    }
    // The configuration is root's to read.
    if !nix::unistd::geteuid().is_root() {
        return Err(Error::NotRoot);
    }
    let settings = settings::resolve(opts).map_err(|Refused(lines)| Error::Refused(lines))?;
    let (plan, set, env, refused) = plan(opts)?;
    for note in irreversible_notes(opts, &set) {
        eprintln!("{note}");
    }
    if let Some(why) = plan.hook_kind_problem() {
        return Err(Error::Plan(why));
    }
    launch(
        opts,
        settings,
        plan,
        Rules::new(&opts.rules, opts.strict, set, env).with_refused(refused),
    )
}

/// The rules, read and compiled for this host: the plan, the rule set,
/// the host's facts it was compiled in, and the refused lines it runs
/// without (said on stderr here).
fn plan(opts: &RunOptions) -> Result<(Plan, RuleSet, Environment, rules::Refused), Error> {
    let (set, refused) = read_rules(opts)?;
    start_trace::mark("settings and rules read");
    // Probing loads BPF programs and reads tracefs: root only (`--explain`
    // works without, with the facts assumed).
    // A run probes the kinds every plan may use, fexit (a BPF load of its
    // own) only for a plan with records only fentry/fexit programs read,
    // and all of them again to say why none fits.
    let probed = |all: bool| {
        let kinds: Vec<Kind> = opts
            .hook_kinds
            .iter()
            .copied()
            .filter(|&k| all || k != Kind::Fexit)
            .collect();
        let mut env = if nix::unistd::geteuid().is_root() {
            Environment::probe(&kinds)
        } else {
            Environment::assumed(&kinds)
        };
        env.audit_skipped_uring_ops = opts.audit_skipped_uring_ops;
        env.want_syscall_functions(opts.syscall_function_hooks);
        env
    };
    let mut env = probed(opts.explain);
    start_trace::mark("hook kinds probed");
    let mut plan = compile(&set, env.clone()).map_err(Error::Compile)?;
    let root = nix::unistd::geteuid().is_root();
    if !opts.explain
        && root
        && opts.hook_kinds.contains(&Kind::Fexit)
        && (plan.wants_function_hooks()
            || (opts.syscall_function_hooks
                && !plan.hooks.is_empty()
                && !plan.kinds.fexit.usable()))
    {
        env.probe_fexit();
        plan = compile(&set, env.clone()).map_err(Error::Compile)?;
    }
    if !opts.explain && plan.hook_kind_problem().is_some() {
        env = probed(true);
        plan = compile(&set, env.clone()).map_err(Error::Compile)?;
    }
    if opts.explain && root {
        // What `run` would meet: the programs this kernel refuses at load
        // (loaded, nothing attached), and the plan made without them.
        let options = Options {
            ring_buffer_bytes: opts.ring_buffer_bytes,
            companion_with_context: opts.bpf_only,
        };
        for _ in 0..8 {
            let Ok(refused) = fastaudit_engine::refused_at_load(&plan, options) else {
                break;
            };
            let new: Vec<_> = refused
                .into_iter()
                .filter(|r| !env.refused.contains(r))
                .collect();
            if new.is_empty() {
                break;
            }
            env.refused.extend(new);
            plan = compile(&set, env.clone()).map_err(Error::Compile)?;
        }
    }
    start_trace::mark("plan compiled");
    Ok((plan, set, env, refused))
}

/// The rules a run starts with (rules::load_for_run), the refused lines
/// and the warnings said on stderr as the start says them; `fastaudit
/// config check` reads them through here too.
pub(crate) fn read_rules(opts: &RunOptions) -> Result<(RuleSet, rules::Refused), Error> {
    let loaded =
        rules::load_for_run(&opts.rules, &SystemHost, opts.strict).map_err(Error::Refused)?;
    let refused = rules::Refused::of(&loaded);
    for l in refused.said() {
        eprintln!("{l}");
    }
    let set = loaded.set;
    rules::print_warnings(&set, fastaudit_rules::report::MESSAGES_PER_FILE);
    Ok((set, refused))
}

/// The notes a start gives on the rules' -e 2, --loginuid-immutable and
/// -f 2: whether and how `opts` applies each.
pub(crate) fn irreversible_notes(opts: &RunOptions, set: &RuleSet) -> Vec<String> {
    let teller = Teller::Run {
        apply_irreversible: opts.apply_irreversible,
        bpf_only: opts.bpf_only,
    };
    Asked::of(set).notes(teller)
}

/// Container identity (`--containers`): ids resolved in the hierarchy the
/// engine chose, where it has one. Made whatever the log format (a
/// SIGHUP may change it); RAW never asks it.
fn containers(opts: &RunOptions, plan: &Plan) -> Resolver {
    let Some(view) = plan.features.cgroups.as_ref().filter(|_| opts.containers) else {
        return Resolver::none();
    };
    Resolver::new(&view.mount, fastaudit_containers::Roots::default()).unwrap_or_else(|e| {
        eprintln!(
            "fastaudit: warning: events name no container: {}: {e}",
            view.mount.display()
        );
        Resolver::none()
    })
}

/// Open the log, start the plugins and the daemon, and run the plan.
fn launch(opts: &RunOptions, settings: RunSettings, plan: Plan, rules: Rules) -> Result<(), Error> {
    for w in &settings.warnings {
        eprintln!("{w}");
    }
    if !settings.log.write_logs {
        eprintln!("fastaudit: write_logs = no: no log is written; events go to the plugins only");
    }
    if let Err(e) = settings::boost_priority(settings.priority_boost) {
        eprintln!("fastaudit: warning: {}", chain(&e));
    }
    let writer = Writer::open(settings.log.clone()).map_err(|source| Error::Log {
        path: settings.log.path.clone(),
        source,
    })?;
    let json = (settings.format == Format::Json).then_some(settings.end_of_event);
    let log = Output::new(writer, settings.node.clone(), json);
    let signals = Signals::install()?;
    // Plugins first: they get everything from DAEMON_START on, as auditd's.
    let plugins = dispatch::start(&opts.plugins, settings.format, settings.plugins.clone())?;
    start_trace::mark("log opened, plugins started");
    let sink = Sink::new(log, plugins, settings.format);
    // Companion events (a loginuid write's SYSCALL) come whenever
    // something is attached: LOGIN records then wait for theirs.
    let expect_companions = !plan.attachments.is_empty();
    let containers = containers(opts, &plan);
    let daemon = Daemon::start(
        opts,
        settings,
        rules,
        sink,
        signals,
        expect_companions,
        containers,
    )?;
    let options = Options {
        ring_buffer_bytes: opts.ring_buffer_bytes,
        // Beside another audit daemon, tasks with an audit context get
        // companions too (as stock audit would write); as the daemon,
        // the kernel writes theirs.
        companion_with_context: opts.bpf_only,
    };
    daemon.run(plan, options)
}
