//! Checks of the workspace's own shape, run as this crate's unit tests
//! (`cargo test -p fastaudit-testsupport --lib structure`): no function
//! outside tests over 120 lines in Rust or C (`fn_length`), no import
//! circle between the files of any crate (`imports`), and the engine's
//! layer rule, what each of its folders may not name (`layers`). Each reads
//! the source tree as it is on disk and fails listing every offender as
//! FILE:LINE, so a contributor sees the whole list at once.
//!
//! The Rust side is parsed with `syn` (spans with lines, from
//! `proc-macro2`'s span-locations); the module tree the checks walk is the
//! one rustc builds (`tree`): from each crate root along its `mod`
//! declarations, leaving out what `#[cfg(test)]` leaves out of a build.

mod c_source;
mod fn_length;
mod imports;
mod layers;
mod tree;

use std::path::{Path, PathBuf};

/// The workspace's root: this crate lives in `crates/testsupport`;
/// FASTAUDIT_STRUCTURE_ROOT checks another checkout (an older commit's
/// tree, to see what the checks say about it).
pub(crate) fn workspace_root() -> PathBuf {
    match std::env::var_os("FASTAUDIT_STRUCTURE_ROOT") {
        Some(root) => PathBuf::from(root),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
    }
}

/// `path` relative to the workspace root, as offenders are listed.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let path = path.strip_prefix(root).unwrap_or(path);
    path.display().to_string()
}

/// The workspace's crates: every directory of `crates/` with a Cargo.toml,
/// in name order.
pub(crate) fn crate_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("the workspace has a crates/ directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Offender lines (`FILE:LINE: ...`) in file order, then line order, once each.
pub(crate) fn sort_offenders(lines: &mut Vec<String>) {
    let key = |l: &String| {
        let mut parts = l.splitn(3, ':');
        let file = parts.next().unwrap_or("").to_string();
        let line: usize = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        (file, line, l.clone())
    };
    lines.sort_by_key(key);
    lines.dedup();
}

/// Fails the calling test with every offender, one a line, when there is any.
pub(crate) fn fail_on(what: &str, offenders: &[String]) {
    assert!(
        offenders.is_empty(),
        "{what}: {} found\n{}",
        offenders.len(),
        offenders.join("\n")
    );
}
