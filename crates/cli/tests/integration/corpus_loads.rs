//! Every rule set of the shared corpus loads into `fastaudit run`: the
//! only lines left out are those auditctl or the kernel refuse on this
//! machine (`fastaudit rules check` reproduces them: missing paths,
//! unknown users, syscalls newer than auditctl 3.0.9), never a rule the
//! engine cannot enforce. `--explain` compiles the plan and loads no
//! rule; its hook-kind probes attach BPF for a moment, so it runs under
//! the kernel-audit lock.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn corpus() -> PathBuf {
    if let Some(dir) = std::env::var_os("FASTAUDIT_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/rules")
}

fn rule_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading the corpus {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rule_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rules") {
            out.push(p);
        }
    }
}

/// The lines `fastaudit rules check` refuses in `file`, with the reasons.
fn refused(file: &Path) -> Vec<(usize, String)> {
    let out = Command::new(FASTAUDIT)
        .args(["rules", "check"])
        .arg(file)
        .output()
        .unwrap();
    let prefix = format!("{}:", file.display());
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(&prefix)?;
            let (line, why) = rest.split_once(':')?;
            Some((line.parse().ok()?, why.trim().to_string()))
        })
        .collect()
}

#[test]
fn every_corpus_set_loads_but_the_lines_this_machine_refuses() {
    let mut files = Vec::new();
    rule_files(&corpus(), &mut files);
    assert!(files.len() > 30, "the corpus is there: {files:?}");
    let dir = std::env::temp_dir().join(format!("fastaudit-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut loaded = 0;
    for file in &files {
        let bad = refused(file);
        for (line, why) in &bad {
            assert!(
                !why.contains("cannot enforce"),
                "{}:{line}: the engine refuses a rule: {why}",
                file.display()
            );
            eprintln!("{}:{line}: refused on this machine: {why}", file.display());
        }
        let skip: BTreeSet<usize> = bad.iter().map(|(l, _)| *l).collect();
        let text = std::fs::read_to_string(file).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, _)| !skip.contains(&(i + 1)))
            .map(|(_, l)| l)
            .collect();
        let copy = dir.join(file.file_name().unwrap());
        std::fs::write(&copy, kept.join("\n") + "\n").unwrap();
        let out = Command::new("flock")
            .arg(fastaudit_netlink::lock::KERNEL_AUDIT_LOCK)
            .arg(FASTAUDIT)
            .args(["run", "--explain", "--rules"])
            .arg(&copy)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: fastaudit run refuses the set without its refused lines:\n{}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        loaded += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(loaded, files.len());
}
