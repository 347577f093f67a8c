//! Directory mode against the real augenrules: the corpus files that load
//! cleanly, combined by Debian's augenrules (run in a private mount
//! namespace so /etc/audit is untouched), must give the same settings and
//! listing as `fastaudit rules list DIR`; the combined file itself is held
//! against the kernel line for line.

use fastaudit_testsupport as support;
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn directory_matches_real_augenrules() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let ka = KernelAudit::acquire();
    let dir = tempdir();
    let rulesd = dir.join("rules.d");
    std::fs::create_dir_all(&rulesd).unwrap();
    let mut used = 0;
    for f in corpus_files() {
        let check = fastaudit(FASTAUDIT, &["rules", "check", f.to_str().unwrap()]);
        if check.status.success() {
            std::fs::copy(&f, rulesd.join(f.file_name().unwrap())).unwrap();
            used += 1;
        }
    }
    // Lines augenrules moves around, and ones it leaves in place under mawk.
    std::fs::write(
        rulesd.join("5-extra.rules"),
        "-D\n-b 320\n -e 1\n-a always,exit -F arch=b64 -S close -k extra\n",
    )
    .unwrap();
    std::fs::write(
        rulesd.join("100-last.rules"),
        "-f 2\n-a always,exit -F arch=b64 -S dup -k last\n",
    )
    .unwrap();
    std::fs::write(rulesd.join("not-a-rules-file.txt"), "-a bogus\n").unwrap();
    assert!(used > 20, "too few clean corpus files: {used}");

    let combined = dir.join("audit.rules");
    let script = format!(
        "mount -t tmpfs none /etc/audit && mkdir /etc/audit/rules.d && cp {src}/* /etc/audit/rules.d/ && augenrules >/dev/null && cp /etc/audit/audit.rules {out}",
        src = rulesd.display(),
        out = combined.display()
    );
    let st = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .status()
        .expect("unshare");
    assert!(
        st.success(),
        "augenrules in a private mount namespace failed"
    );

    let lines = raw_lines(&combined);
    let diffs = differential(FASTAUDIT, &ka, "augenrules-combined", &lines);
    assert_agrees(&diffs);

    let from_dir = fastaudit(
        FASTAUDIT,
        &["rules", "list", "--settings", rulesd.to_str().unwrap()],
    );
    let from_file = fastaudit(
        FASTAUDIT,
        &["rules", "list", "--settings", combined.to_str().unwrap()],
    );
    // A member file with no rule (the samples that are all comments) is
    // worth a warning in directory mode; augenrules' combined file has no
    // members to name. Every other warning must be the same in number.
    let member_empty = ": warning: no rule or setting in this file";
    let dir_warnings = String::from_utf8_lossy(&from_dir.stderr).into_owned();
    let (empty_members, dir_rest): (Vec<&str>, Vec<&str>) =
        dir_warnings.lines().partition(|l| l.contains(member_empty));
    for l in &empty_members {
        let file = l.split(member_empty).next().unwrap_or("");
        let text = std::fs::read_to_string(file).unwrap_or_default();
        assert!(
            text.lines()
                .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')),
            "{file} is said to hold no rule but does:\n{text}"
        );
    }
    assert_eq!(
        dir_rest.len(),
        String::from_utf8_lossy(&from_file.stderr).lines().count(),
        "warnings from the directory: {dir_warnings}\nfrom augenrules' file: {}",
        String::from_utf8_lossy(&from_file.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&from_dir.stdout),
        String::from_utf8_lossy(&from_file.stdout)
    );
    assert!(from_dir.status.success() == from_file.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}
