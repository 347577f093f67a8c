//! No function outside tests over 120 lines, in Rust or in the BPF C.
//!
//! A Rust function's length runs from its signature's first line (the
//! `fn`, or `pub`/`const`/`unsafe` before it; attributes and doc comments
//! are not counted) to its closing brace; free functions, methods of impls
//! and traits, and functions nested in others are each measured. Items
//! under `#[cfg(test)]`, `#[test]` functions and the crates' `tests/`
//! directories are tests and left out; build.rs and src/bin are not. A C
//! function is measured the same way (`c_source`).

use super::c_source;
use super::tree::{crate_roots, is_cfg_test, is_test_fn, Tree};
use super::{crate_dirs, fail_on, relative, sort_offenders, workspace_root};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The most lines a function may have.
pub(crate) const MAX_LINES: usize = 120;

/// A function's name and lines, first and last, 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub name: String,
    pub first: usize,
    pub last: usize,
}

impl Span {
    pub fn lines(&self) -> usize {
        self.last + 1 - self.first
    }
}

/// Collects the functions of some items, leaving tests out.
#[derive(Default)]
struct Functions {
    found: Vec<Span>,
}

impl Functions {
    fn add(&mut self, name: String, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.span().start().line;
        let last = block.brace_token.span.close().end().line;
        self.found.push(Span { name, first, last });
    }
}

impl<'a> Visit<'a> for Functions {
    fn visit_item(&mut self, i: &'a syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Impl(m) => &m.attrs,
            syn::Item::Fn(m) => &m.attrs,
            syn::Item::Trait(m) => &m.attrs,
            _ => return syn::visit::visit_item(self, i),
        };
        if !is_cfg_test(attrs) {
            syn::visit::visit_item(self, i);
        }
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if is_test_fn(&f.attrs) {
            return;
        }
        self.add(f.sig.ident.to_string(), &f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        if is_cfg_test(&f.attrs) || is_test_fn(&f.attrs) {
            return;
        }
        self.add(f.sig.ident.to_string(), &f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        if is_cfg_test(&f.attrs) {
            return;
        }
        if let Some(block) = &f.default {
            self.add(f.sig.ident.to_string(), &f.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The functions of Rust items (their nested functions too), tests left out.
pub(crate) fn rust_functions(items: &[syn::Item]) -> Vec<Span> {
    let mut v = Functions::default();
    for item in items {
        v.visit_item(item);
    }
    v.found
}

/// Every function of the workspace over `MAX_LINES`, as FILE:LINE lines.
fn long_functions() -> Result<Vec<String>, String> {
    let root = workspace_root();
    let mut long = Vec::new();
    for dir in crate_dirs(&root) {
        for crate_root in crate_roots(&dir) {
            let tree = Tree::load(&crate_root)?;
            for m in &tree.modules {
                for f in rust_functions(&m.items) {
                    if f.lines() > MAX_LINES {
                        let file = relative(&root, &m.file);
                        long.push(format!(
                            "{file}:{}: fn {} is {} lines",
                            f.first,
                            f.name,
                            f.lines()
                        ));
                    }
                }
            }
        }
    }
    let bpf = root.join("crates/bpf/src/bpf");
    let mut c_files: Vec<_> = std::fs::read_dir(&bpf)
        .map_err(|e| format!("{}: {e}", bpf.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.ends_with(".bpf.c") || name.ends_with(".bpf.h")
        })
        .collect();
    c_files.sort();
    for path in c_files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = relative(&root, &path);
        for f in c_source::functions(&text).map_err(|e| format!("{file}: {e}"))? {
            if f.lines() > MAX_LINES {
                long.push(format!(
                    "{file}:{}: {} is {} lines",
                    f.first,
                    f.name,
                    f.lines()
                ));
            }
        }
    }
    sort_offenders(&mut long);
    Ok(long)
}

#[test]
fn no_function_over_120_lines() {
    match long_functions() {
        Ok(long) => fail_on(
            "functions over 120 lines (split them into named steps)",
            &long,
        ),
        Err(e) => panic!("the sources could not be read: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A function of `body` lines between its signature and closing brace.
    fn function(name: &str, body: usize) -> String {
        let mut s = format!("/// doc\n#[inline]\npub fn {name}() {{\n");
        for i in 0..body {
            s.push_str(&format!("    let _x{i} = {i};\n"));
        }
        s.push_str("}\n");
        s
    }

    fn spans(src: &str) -> Vec<Span> {
        rust_functions(&syn::parse_file(src).expect("the test source parses").items)
    }

    #[test]
    fn counts_from_the_signature_to_the_closing_brace() {
        let s = spans(&function("f", 118));
        assert_eq!(
            s,
            vec![Span {
                name: "f".into(),
                first: 3,
                last: 122
            }]
        );
        assert_eq!(s[0].lines(), MAX_LINES);
        assert_eq!(spans(&function("g", 119))[0].lines(), MAX_LINES + 1);
    }

    #[test]
    fn methods_and_nested_functions_are_measured() {
        let src = "impl A {\n    fn m(&self) {\n        fn inner() {}\n    }\n}\ntrait T {\n    fn d() {\n    }\n    fn no_body();\n}\n";
        let names: Vec<(String, usize)> = spans(src)
            .into_iter()
            .map(|s| (s.name.clone(), s.lines()))
            .collect();
        assert_eq!(
            names,
            vec![("m".into(), 3), ("inner".into(), 1), ("d".into(), 2)]
        );
    }

    #[test]
    fn tests_are_left_out() {
        let src = format!(
            "#[cfg(test)]\nmod tests {{\n{}}}\n#[test]\n{}\n#[cfg(test)]\nimpl A {{\n{}}}\n",
            function("in_tests", 200),
            function("a_test", 200),
            function("test_impl", 200)
        );
        assert_eq!(spans(&src), vec![]);
    }

    proptest! {
        /// Any body length is measured exactly, wherever the function is.
        #[test]
        fn any_length_is_measured(body in 0usize..300, before in 0usize..20) {
            let src = format!("{}{}", "\n".repeat(before), function("f", body));
            let s = spans(&src);
            prop_assert_eq!(s.len(), 1);
            prop_assert_eq!(s[0].first, before + 3);
            prop_assert_eq!(s[0].lines(), body + 2);
        }
    }
}
