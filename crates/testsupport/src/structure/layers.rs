//! The engine's layer rule, as data: what the files of each of its folders
//! may not name. Planning is pure (no libbpf, no file system, no process,
//! no kernel: the host's facts come in as data), decoding does not load or
//! read the ring, and probing the host does not reach past itself.
//!
//! A name is another crate's when the path as written starts with it (`use
//! std::fs`, `libbpf_rs::MapCore`); an engine folder's when the path
//! resolves, through re-exports, to a module or an item defined under it.
//! A folder the table names must exist: a missing one is an error, so the
//! check cannot pass by having nothing to look at.

use super::imports::{Named, Resolver};
use super::tree::Tree;
use super::{fail_on, relative, sort_offenders, workspace_root};
use std::path::Path;

/// One rule: the files under `folder` (of crates/engine/src) may not name
/// the other crates' paths `extern_paths` nor the engine's own `folders`.
pub(crate) struct Rule {
    pub folder: &'static str,
    pub extern_paths: &'static [&'static str],
    pub folders: &'static [&'static str],
}

/// The engine's layers.
pub(crate) const ENGINE_RULES: &[Rule] = &[
    Rule {
        folder: "plan",
        extern_paths: &["libbpf_rs", "std::fs", "std::process", "nix"],
        folders: &["host", "load", "read", "decode"],
    },
    Rule {
        folder: "decode",
        extern_paths: &["libbpf_rs"],
        folders: &["load", "read"],
    },
    Rule {
        folder: "host",
        extern_paths: &[],
        folders: &["load", "read", "decode"],
    },
];

/// Whether `path` starts with the `::`-separated `prefix`.
fn starts_with(path: &[String], prefix: &str) -> bool {
    let prefix: Vec<&str> = prefix.split("::").collect();
    path.len() >= prefix.len() && path.iter().zip(&prefix).all(|(a, b)| a == b)
}

/// Every breach of `rules` in the crate whose sources are `src` (its
/// lib.rs the root), as FILE:LINE lines; `root` shortens the file names.
pub(crate) fn breaches(src: &Path, rules: &[Rule], root: &Path) -> Result<Vec<String>, String> {
    for rule in rules {
        let dir = src.join(rule.folder);
        if !dir.is_dir() {
            return Err(format!(
                "no {}/: the layer check has nothing to check",
                relative(root, &dir)
            ));
        }
    }
    let tree = Tree::load(&src.join("lib.rs"))?;
    let r = Resolver::new(&tree);
    let mut out = Vec::new();
    for (m, module) in tree.modules.iter().enumerate() {
        let Some(rule) = rules
            .iter()
            .find(|rule| module.file.starts_with(src.join(rule.folder)))
        else {
            continue;
        };
        let file = relative(root, &module.file);
        let forbidden_home =
            |home: &Path| rule.folders.iter().find(|f| home.starts_with(src.join(f)));
        for (path, line) in r.written(m) {
            let shown = path.join("::");
            if let Some(e) = rule.extern_paths.iter().find(|e| starts_with(&path, e)) {
                out.push(format!(
                    "{file}:{line}: {shown} ({}/ may not use {e})",
                    rule.folder
                ));
                continue;
            }
            let home = match r.resolve(m, &path) {
                Some(Named::Module(x)) => &tree.modules[x].file,
                Some(Named::Item { module, .. }) => &tree.modules[module].file,
                None => continue,
            };
            if let Some(f) = forbidden_home(home) {
                out.push(format!(
                    "{file}:{line}: {shown} is in {} ({}/ may not use crate::{f})",
                    relative(root, home),
                    rule.folder
                ));
            }
        }
    }
    sort_offenders(&mut out);
    Ok(out)
}

#[test]
fn the_engine_keeps_its_layers() {
    let root = workspace_root();
    match breaches(&root.join("crates/engine/src"), ENGINE_RULES, &root) {
        Ok(found) => fail_on(
            "the engine's layer rule broken (crates/engine/src/*/ may not name these)",
            &found,
        ),
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::imports::tests::tree_of;

    const RULES: &[Rule] = &[Rule {
        folder: "plan",
        extern_paths: &["std::fs", "nix"],
        folders: &["host"],
    }];

    #[test]
    fn a_breach_is_found_through_a_re_export() {
        let (dir, _) = tree_of(&[
            (
                "lib.rs",
                "mod plan;\nmod host;\npub use host::probe::Facts;\n",
            ),
            (
                "plan/mod.rs",
                "use std::fs;\nuse crate::Facts;\npub fn f() { nix::unistd::getpid(); }\n",
            ),
            ("host/mod.rs", "pub mod probe;\n"),
            ("host/probe.rs", "pub struct Facts;\n"),
        ]);
        let found = breaches(&dir.0, RULES, &dir.0).expect("the folders exist");
        assert_eq!(
            found,
            vec![
                "plan/mod.rs:1: std::fs (plan/ may not use std::fs)".to_string(),
                "plan/mod.rs:2: crate::Facts is in host/probe.rs (plan/ may not use crate::host)"
                    .to_string(),
                "plan/mod.rs:3: nix::unistd::getpid (plan/ may not use nix)".to_string(),
            ]
        );
    }

    #[test]
    fn a_clean_layer_passes_and_a_missing_folder_is_an_error() {
        let (dir, _) = tree_of(&[
            ("lib.rs", "mod plan;\nmod host;\n"),
            ("plan/mod.rs", "use std::io;\npub struct Plan;\n"),
            (
                "host/mod.rs",
                "pub fn probe() -> crate::plan::Plan { crate::plan::Plan }\n",
            ),
        ]);
        assert_eq!(breaches(&dir.0, RULES, &dir.0), Ok(vec![]));
        let missing = [Rule {
            folder: "decode",
            extern_paths: &[],
            folders: &[],
        }];
        let e = breaches(&dir.0, &missing, &dir.0).expect_err("decode/ is missing");
        assert_eq!(e, "no decode/: the layer check has nothing to check");
    }
}
