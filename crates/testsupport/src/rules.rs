//! The rules oracle: the shared corpus, and a set of lines compared with
//! what the kernel (through auditctl) accepts and lists.

use crate::kernel::KernelAudit;
use crate::run::{fastaudit, tempdir};
use std::path::{Path, PathBuf};

/// The shared test material (`../shared/corpus`) beside the checkout.
pub fn corpus() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/rules");
    root.canonicalize().unwrap_or(root)
}

/// Every rules file of the shared corpus.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["audit-userspace", "community"] {
        let mut v: Vec<_> = std::fs::read_dir(corpus().join(dir))
            .expect("shared corpus present beside the checkout")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rules"))
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}
/// Raw lines of a file (split on newlines, as written).
pub fn raw_lines(path: &Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).expect("read rules file");
    let mut lines: Vec<Vec<u8>> = data.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if data.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

/// Compare one set of lines against the kernel: the refused lines must be
/// the same, and the listing of the accepted lines must be identical.
/// Returns a description of every difference. `bin`: the fastaudit binary.
pub fn differential(bin: &str, ka: &KernelAudit, name: &str, lines: &[Vec<u8>]) -> Vec<String> {
    let (verdicts, kernel_listing) = ka.load_lines(lines);
    let dir = tempdir();
    let file = dir.join(format!("{}.rules", name.replace('/', "_")));
    std::fs::write(&file, lines.join(&b"\n"[..])).expect("write rules");
    // Every refusal listed: the verdicts are read per line.
    let check = fastaudit(
        bin,
        &[
            "rules",
            "check",
            "--max-messages",
            "0",
            file.to_str().expect("utf8 path"),
        ],
    );
    let stderr = String::from_utf8_lossy(&check.stderr).into_owned();
    let prefix = format!("{}:", file.display());
    let refused: std::collections::BTreeSet<usize> = stderr
        .lines()
        // Warnings and notes (what becomes of -e 2, ...) refuse nothing.
        .filter(|l| !l.contains(": warning: ") && !l.contains(": note: "))
        .filter_map(|l| l.strip_prefix(&prefix)?.split(':').next()?.parse().ok())
        .collect();
    let mut diffs = Vec::new();
    for (i, v) in verdicts.iter().enumerate() {
        let fa_ok = !refused.contains(&(i + 1));
        let line = String::from_utf8_lossy(&lines[i]);
        match v {
            Some(k) if *k != fa_ok => diffs.push(format!(
                "{name}:{}: kernel {} but fastaudit {}: {line}",
                i + 1,
                if *k { "accepts" } else { "refuses" },
                if fa_ok { "accepts" } else { "refuses" }
            )),
            None if !fa_ok => diffs.push(format!(
                "{name}:{}: control line refused by fastaudit: {line}",
                i + 1
            )),
            _ => {}
        }
    }
    if !refused.is_empty() && check.status.success() {
        diffs.push(format!("{name}: errors printed but exit status 0"));
    }
    // Keep only what the kernel accepted (blank the rest, keeping line numbers).
    let kept: Vec<Vec<u8>> = lines
        .iter()
        .zip(&verdicts)
        .map(|(l, v)| {
            if *v == Some(false) {
                Vec::new()
            } else {
                l.clone()
            }
        })
        .collect();
    std::fs::write(&file, kept.join(&b"\n"[..])).expect("write rules");
    let list = fastaudit(bin, &["rules", "list", file.to_str().expect("utf8 path")]);
    let ours = String::from_utf8_lossy(&list.stdout).into_owned();
    if ours != kernel_listing {
        let k: Vec<&str> = kernel_listing.lines().collect();
        let o: Vec<&str> = ours.lines().collect();
        for i in 0..k.len().max(o.len()) {
            if k.get(i) != o.get(i) {
                diffs.push(format!(
                    "{name}: listing line {}:\n  auditctl -l: {}\n  fastaudit:   {}",
                    i + 1,
                    k.get(i).unwrap_or(&"<none>"),
                    o.get(i).unwrap_or(&"<none>")
                ));
                break;
            }
        }
        if !list.status.success() {
            diffs.push(format!(
                "{name}: fastaudit list failed: {}",
                String::from_utf8_lossy(&list.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    diffs
}
/// Fail the test with every difference listed.
pub fn assert_agrees(diffs: &[String]) {
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
