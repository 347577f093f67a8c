//! The exact contents of the BPF object's rule maps and read-only data
//! for a plan: the runtime writes these verbatim and decides nothing.
//! Rule ids are exit rules first, then task rules (their ids continue).

use crate::limits::{MAX_TESTS, NR_SYSCALLS, TASK_SPAN};
use crate::plan::gates;
use crate::plan::hook::AttachPoint;
use crate::plan::kinds::{AppArmorBlob, InodeSource, Kind, LsmLabels};
use crate::plan::path_args;
use crate::plan::Plan;
use fastaudit_bpf::types::{
    fa_exe, fa_gate, fa_inode_key, fa_name_key, fa_path_args, fa_path_key, fa_rule, fa_span,
    fa_span_flag, fa_test, fa_watch,
};
use fastaudit_rules::abi::field;
use fastaudit_rules::Origin;
use thiserror::Error;

/// The plan's paths as the live file system has them now (the loader
/// resolves them: `crate::load::resolve`): given in as data, so the images
/// are made from the plan and these alone.
#[derive(Clone, Debug, Default)]
pub struct LivePaths {
    /// Per `Plan::exes` entry: its executable's identity.
    pub exes: Vec<fa_exe>,
    /// The `watched` map: watched objects by inode identity.
    pub watched: Vec<(fa_inode_key, fa_watch)>,
    /// File watches by parent directory and name.
    pub watch_by_parent_name: Vec<(fa_name_key, u32)>,
    /// File watches by normalized path.
    pub watch_paths: Vec<(fa_path_key, u32)>,
    /// Watched trees (`dir=`) by normalized path.
    pub tree_paths: Vec<(fa_path_key, u32)>,
    /// Per watch (a watch test's value - 1): the id the kernel side
    /// reports (watches on one object share the first one's).
    pub watch_ids: Vec<u32>,
}

impl LivePaths {
    /// The id the kernel side reports for watch test value `n`.
    fn watch_id(&self, n: u32) -> u32 {
        (n as usize)
            .checked_sub(1)
            .and_then(|i| self.watch_ids.get(i))
            .copied()
            .unwrap_or(n)
    }
}

/// The read-only data (`.rodata`) of the BPF object that the plan decides
/// (the run's own values, its pid, generation number and ring size, are
/// the loader's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rodata {
    /// Some rule tests `path=`/`dir=` (BPF `have_watches`).
    pub have_watches: bool,
    /// Some watch is a `dir=` tree (BPF `have_dirs`).
    pub have_dirs: bool,
    /// Some `always,task` rule selects tasks whose every syscall is
    /// recorded (BPF `have_always_task`, with the tasks in its `always_task` map).
    pub have_always_task: bool,
    /// Some exit rule tests `perm=` (BPF `have_perm`).
    pub have_perm: bool,
    /// Some rule can record a syscall that names paths: its objects are
    /// collected for PATH records and object fields (BPF `have_objs`).
    pub have_objs: bool,
    /// Some exit rule names kill, tkill or tgkill, so the kernel notes the
    /// tasks a syscall signals (OBJ_PID; BPF `have_signal_rules`).
    pub have_signal_rules: bool,
    /// io_uring ops are audited (BPF `have_uring`).
    pub have_uring: bool,
    /// Exit rules can record io_uring_enter (BPF `uring_enter_rules`).
    pub uring_enter_rules: bool,
    /// `io_uring_complete` passes the result as an argument (BPF
    /// `uring_complete_res_arg`); `None`: an io_uring plan on a kernel
    /// whose BTF must say (read at load, only then).
    pub uring_complete_res_arg: Option<bool>,
    /// The task lookup kfunc may be called: no raw_tp program is attached
    /// (raw_tp programs may not call it; BPF `task_lookup`).
    pub task_lookup: bool,
    /// The text range of the function whose clock reads are atime
    /// updates, where the inode hooks are kprobes (BPF `atime_fn_*`).
    pub atime_fn: Option<(u64, u64)>,
    /// AppArmor's `apparmor_blob_sizes` address (0: not read there).
    pub apparmor_blob_sizes_addr: u64,
    /// AppArmor's credential blob offset when known at load (-1: read at
    /// `apparmor_blob_sizes_addr`, or labels not read when that is 0).
    pub apparmor_cred_offset: i32,
    /// `file->f_mode`'s FMODE_BACKING bit here (BPF `fmode_backing`).
    pub fmode_backing: u32,
    /// The syscall function bodies disable preemption (preempt.bpf.h):
    /// the kernel preempts its own code, and the plan hooks functions.
    pub fn_preempt_guard: bool,
    /// The cgroup v1 controller whose cgroup events name (BPF
    /// `cgroup_subsys`); -1: cgroup v2's.
    pub cgroup_subsys: i32,
}

/// Every map entry the plan loads, by map (the BPF side's names).
#[derive(Default)]
pub struct MapImages {
    /// `rules`: rule id → rule.
    pub rules: Vec<fa_rule>,
    /// `candidates`: position → rule id; spans are ranges of it.
    pub candidates: Vec<u32>,
    /// `spans`: syscall nr (+ NR_SYSCALLS for compat) or TASK_SPAN → span.
    pub spans: Vec<(u32, fa_span)>,
    /// `gates`: position → gate; a span's are a range of it.
    pub gates: Vec<fa_gate>,
    /// `uring_spans`: io_uring op → span (of io_uring rules).
    pub uring_spans: Vec<(u32, fa_span)>,
    /// `rule_prio`: rule id → its rank in the kernel's priority.
    pub rule_prio: Vec<(u32, u32)>,
    /// `exes`: index of an `exe=` path → its identity.
    pub exes: Vec<fa_exe>,
    /// `path_args`: native syscall nr → where its paths are.
    pub path_args: Vec<(u32, fa_path_args)>,
    /// `sysclass`: syscall nr (+ NR_SYSCALLS for compat) → perm= class.
    pub sysclass: Vec<(u32, u32)>,
    /// `watched`: inode identity → what it stands for.
    pub watched: Vec<(fa_inode_key, fa_watch)>,
    /// `watch_by_parent_name`: (directory identity, file name) → watch id.
    pub watch_by_parent_name: Vec<(fa_name_key, u32)>,
    /// `watch_paths`: normalized watched file path → watch id.
    pub watch_paths: Vec<(fa_path_key, u32)>,
    /// `tree_paths`: normalized watched tree path → watch id.
    pub tree_paths: Vec<(fa_path_key, u32)>,
}

/// A plan the kernel tables cannot hold.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ImageError {
    /// A rule has more field tests than a table entry holds.
    #[error("{0}: more than {MAX_TESTS} fields")]
    TooManyTests(Origin),
}

impl Plan {
    /// Whether some exit rule tests `perm=`.
    fn has_perm_tests(&self) -> bool {
        self.exit_rules
            .iter()
            .flat_map(|r| &r.tests)
            .any(|t| t.field == field::PERM)
    }

    /// Whether some rule can record a syscall that names paths (its CWD
    /// and PATH records, its object fields).
    pub fn names_paths(&self) -> bool {
        [false, true].into_iter().any(|compat| {
            path_args::numbers(self.target, compat)
                .any(|nr| !self.candidates(nr, compat).is_empty())
        })
    }

    /// The read-only data switches for this plan.
    pub fn rodata(&self) -> Rodata {
        Rodata {
            have_watches: !self.watches.is_empty(),
            have_dirs: self.watches.iter().any(|w| w.tree),
            have_always_task: self.has_always_task_rules(),
            have_perm: self.has_perm_tests(),
            have_objs: self.names_paths(),
            have_signal_rules: self.has_signal_rules(),
            have_uring: self.uring.active(),
            uring_enter_rules: self.uring.enter_rules,
            uring_complete_res_arg: match self.uring.active() {
                true => self.features.uring_complete_res_arg,
                false => Some(false),
            },
            task_lookup: !self.attachments.iter().any(|a| {
                matches!(
                    a.point,
                    AttachPoint::Raw {
                        kind: Kind::RawTp,
                        ..
                    }
                )
            }),
            atime_fn: match self.features.inode {
                InodeSource::Kprobes { atime_caller, .. } => atime_caller,
                _ => None,
            },
            apparmor_blob_sizes_addr: match self.features.labels {
                LsmLabels::AppArmor(AppArmorBlob::SizesAt(addr)) => addr,
                _ => 0,
            },
            apparmor_cred_offset: match self.features.labels {
                LsmLabels::AppArmor(AppArmorBlob::Offset(off)) => i32::try_from(off).unwrap_or(-1),
                _ => -1,
            },
            fmode_backing: self.features.fmode_backing,
            fn_preempt_guard: self.features.preemption.is_some()
                && self
                    .attachments
                    .iter()
                    .any(|a| matches!(a.point, AttachPoint::StubBody { .. })),
            cgroup_subsys: self
                .features
                .cgroups
                .as_ref()
                .and_then(|c| c.controller.as_ref())
                .and_then(|(_, id)| i32::try_from(*id).ok())
                .unwrap_or(-1),
        }
    }

    /// The maps' contents, with watch ids and exe identities as `live`
    /// says the live system has them.
    pub fn map_images(&self, live: &LivePaths) -> Result<MapImages, ImageError> {
        let mut images = MapImages {
            exes: live.exes.clone(),
            watched: live.watched.clone(),
            watch_by_parent_name: live.watch_by_parent_name.clone(),
            watch_paths: live.watch_paths.clone(),
            tree_paths: live.tree_paths.clone(),
            ..MapImages::default()
        };
        self.rule_images(&mut images, live)?;
        for &nr in self.by_syscall.keys() {
            for compat in [false, true] {
                self.syscall_span(&mut images, nr, compat);
            }
        }
        if !self.task_rules.is_empty() {
            let first = self.exit_rules.len() as u32;
            let span = fa_span {
                start: images.candidates.len() as u32,
                count: self.task_rules.len() as u32,
                ..fa_span::default()
            };
            images.candidates.extend(first..first + span.count);
            images.spans.push((TASK_SPAN, span));
        }
        if self.uring.active() {
            let first = (self.exit_rules.len() + self.task_rules.len()) as u32;
            let (spans, ids) = self.uring.spans(images.candidates.len() as u32, first);
            images.uring_spans = spans;
            images.rule_prio = self.rule_prio();
            images.candidates.extend(ids);
        }
        if !self.watches.is_empty() || self.names_paths() {
            images.path_args = path_args::image(self.target);
        }
        if self.has_perm_tests() {
            for compat in [false, true] {
                for nr in 0..NR_SYSCALLS {
                    let v = crate::plan::perm::sysclass(self.target, nr, compat);
                    if v != 0 {
                        images.sysclass.push((abi_key(nr, compat), v));
                    }
                }
            }
        }
        Ok(images)
    }

    /// The `rules` map: every rule's tests in the order the BPF side
    /// evaluates them, watch tests with the ids the live paths got.
    fn rule_images(&self, images: &mut MapImages, live: &LivePaths) -> Result<(), ImageError> {
        let exit_rules = self
            .exit_rules
            .iter()
            .map(|r| (r, gates::exit_rule_tests(r)));
        let others = self
            .task_rules
            .iter()
            .chain(&self.uring.rules)
            .map(|r| (r, gates::ordered_tests(r)));
        for (r, tests) in exit_rules.chain(others) {
            if r.tests.len() > MAX_TESTS {
                return Err(ImageError::TooManyTests(r.origin.clone()));
            }
            let mut rule = fa_rule {
                always: u32::from(r.always),
                ntests: tests.len() as u32,
                ..fa_rule::default()
            };
            for (slot, t) in rule.tests.iter_mut().zip(&tests) {
                // Watches on one object share an id, known once resolved.
                let value = match t.field {
                    field::WATCH | field::DIR => live.watch_id(t.value),
                    _ => t.value,
                };
                *slot = fa_test {
                    field: t.field,
                    op: t.op,
                    value,
                };
            }
            images.rules.push(rule);
        }
        Ok(())
    }

    /// The span of syscall `nr` of one ABI: its candidate rules, what the
    /// BPF side collects before judging them, and its gates.
    fn syscall_span(&self, images: &mut MapImages, nr: u32, compat: bool) {
        // Each ABI gets only the rules that can match there.
        let mut ids = self.candidates(nr, compat);
        // Never-only spans are kept for writes: they judge a
        // loginuid write's companion.
        let judged_write =
            crate::plan::syscalls::is_companion_syscall(self.target, nr, compat) && !ids.is_empty();
        if !ids.iter().any(|&i| self.exit_rules[i as usize].always) && !judged_write {
            return;
        }
        // Never rules after the last always rule decide nothing:
        // whether one matches or none does, nothing is recorded
        // (a write's are kept: they decide its companion).
        if !judged_write {
            while ids
                .last()
                .is_some_and(|&i| !self.exit_rules[i as usize].always)
            {
                ids.pop();
            }
        }
        let perm = self.path_rules_perm(&ids);
        let flags = if perm.is_some() {
            fa_span_flag::FA_SPAN_PATH_RULES.0
        } else {
            0
        } | if self.obj_rules(&ids) {
            fa_span_flag::FA_SPAN_OBJ_RULES.0
        } else {
            0
        } | if self.judged_at_ni(nr, compat) {
            fa_span_flag::FA_SPAN_AT_NI.0
        } else {
            0
        };
        // Judged when no watched object was touched: the rules
        // that need none, in order.
        let plain: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|&i| {
                !self.exit_rules[i as usize]
                    .tests
                    .iter()
                    .any(|t| matches!(t.field, field::WATCH | field::DIR))
            })
            .collect();
        let start = images.candidates.len() as u32;
        // Past the gates map's room, a span judges without gates;
        // an exec's has none (its arguments are the ones saved at
        // entry, which the gates do not read).
        let mut gates = gates::span_gates(&self.exit_rules, &ids);
        if crate::plan::syscalls::special(self.target, compat)
            .execs()
            .contains(&nr)
            || images.gates.len() + gates.len() > gates::MAX_GATES
        {
            gates.clear();
        }
        let gate_start = images.gates.len() as u32;
        let gate_count = gates.len() as u32;
        images.gates.extend(gates);
        let span = fa_span {
            start,
            count: ids.len() as u32,
            // FA_SPAN_PATH_RULES: collect the syscall's path names;
            // FA_SPAN_OBJ_RULES: its objects before judging.
            flags,
            path_rules_perm: perm.unwrap_or(0),
            plain_start: start + ids.len() as u32,
            plain_count: plain.len() as u32,
            gate_start,
            gate_count,
        };
        images.candidates.extend(ids);
        if perm.is_some() {
            images.candidates.extend(plain);
        }
        images.spans.push((abi_key(nr, compat), span));
    }
}

/// The key of syscall `nr` of one ABI in the per-syscall maps.
fn abi_key(nr: u32, compat: bool) -> u32 {
    nr + if compat { NR_SYSCALLS } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::syscalls::{i386, x86_64};
    use crate::plan::test_rules::plan;

    fn images(text: &str) -> MapImages {
        let p = plan(text).unwrap();
        p.map_images(&LivePaths::default()).unwrap()
    }

    #[test]
    fn spans_index_candidates_per_abi_and_the_task_rules() {
        let i = images(
            "-a never,exit -F arch=b64 -S chmod\n-a always,exit -S chmod -k c\n-a never,task -F uid=1\n",
        );
        assert_eq!(i.rules.len(), 3);
        assert_eq!(i.rules[0].always, 0);
        let spans: Vec<(u32, u32, u32)> = i
            .spans
            .iter()
            .map(|(k, s)| (*k, s.start, s.count))
            .collect();
        let chmod = x86_64("chmod");
        // The native span has both exit rules; the compat one (the same
        // number: the kernel tests the number's bit whatever the ABI) only
        // the arch-less rule.
        assert_eq!(spans[0], (chmod, 0, 2));
        assert_eq!(spans[1], (chmod + NR_SYSCALLS, 2, 1));
        assert_eq!(spans[2], (TASK_SPAN, 3, 1));
        assert_eq!(i.candidates, vec![0, 1, 1, 2]);
        assert!(i.sysclass.is_empty());
        assert!(
            !i.path_args.is_empty(),
            "chmod names a path: its PATH records need the path arguments"
        );
    }

    #[test]
    fn spans_leave_out_what_cannot_change_the_outcome() {
        // A never rule after the last always rule decides nothing; a rule
        // testing names cannot hold for getpid (it names nothing), so
        // getpid's native span is empty and left out, while chmod keeps
        // the dir= rule; a write keeps its trailing never rule (it judges
        // a loginuid write's companion).
        let i = images(
            "-a always,exit -F arch=b64 -S getpid,chmod -F uid=0 -k id\n             -a never,exit -F arch=b64 -S getpid,chmod,write -F auid=1\n             -a always,exit -F arch=b64 -F dir=/tmp -k tmp\n             -a never,exit -F arch=b64 -S write -F auid=2\n",
        );
        let span = |nr: u32| i.spans.iter().find(|(k, _)| *k == nr).map(|(_, s)| *s);
        let getpid = span(x86_64("getpid")).expect("getpid span");
        assert_eq!(
            getpid.count, 1,
            "only the uid=0 rule: the never after it is dropped"
        );
        let chmod = span(x86_64("chmod")).expect("chmod span");
        let ids = &i.candidates[chmod.start as usize..(chmod.start + chmod.count) as usize];
        assert_eq!(ids, [0, 1, 2]);
        let write = span(x86_64("write")).expect("write span");
        let ids = &i.candidates[write.start as usize..(write.start + write.count) as usize];
        assert_eq!(
            ids,
            [1, 3],
            "a write's never rules are all kept; dir= cannot hold"
        );
        let only_names = images("-a always,exit -F arch=b64 -F dir=/tmp -k tmp\n");
        let nr = x86_64("getpid");
        assert!(
            only_names.spans.iter().all(|(k, _)| *k != nr),
            "a dir= rule gives getpid no span"
        );
    }

    #[test]
    fn perm_tests_bring_the_syscall_classes() {
        let p = plan("-a always,exit -F arch=b64 -S openat -F perm=r\n").unwrap();
        assert!(p.rodata().have_perm && !p.rodata().have_watches);
        let i = p.map_images(&LivePaths::default()).unwrap();
        assert!(i.sysclass.iter().any(|(k, _)| *k == x86_64("openat")));
        assert!(i
            .sysclass
            .iter()
            .any(|(k, _)| *k == i386("openat") + NR_SYSCALLS));
    }

    #[test]
    fn the_task_lookup_is_off_where_a_raw_tp_program_attaches() {
        use crate::plan::test_rules::plan_in;
        use crate::plan::Environment;
        let rules = "-a always,exit -F arch=b64 -S chmod -k c\n";
        let tp_btf = plan_in(rules, Environment::assumed(&[Kind::TpBtf, Kind::RawTp])).unwrap();
        assert!(tp_btf.rodata().task_lookup);
        let raw_tp = plan_in(rules, Environment::assumed(&[Kind::RawTp])).unwrap();
        assert!(
            raw_tp
                .attachments
                .iter()
                .any(|a| a.program.starts_with("fa_rtp_")),
            "{:?}",
            raw_tp.attachments
        );
        assert!(!raw_tp.rodata().task_lookup);
    }
}
