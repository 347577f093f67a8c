//! No import circle in any crate, at the level of files.
//!
//! File A depends on file B when A names an item defined in B: in a `use`
//! or in a path (`crate::…`, `super::…`, `self::…`, a child module's or an
//! imported name). Names are resolved as rustc does, through re-exports
//! (`pub use` in lib.rs or a mod.rs) and glob imports to the file that
//! defines the item, so `use crate::Plan` depends on plan.rs, not on
//! lib.rs. A parent's `mod child;` is not a dependency, nor is naming a
//! module without an item of it. Names from other crates are not followed.
//! Paths inside macro calls are read when the macro's input is a list of
//! expressions (`format!`, `assert_eq!`, ...); other macro input is not.

use super::tree::{crate_roots, is_cfg_test, Tree};
use super::{crate_dirs, fail_on, relative, workspace_root};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use syn::visit::Visit;

/// What a path names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Named {
    /// A module of the tree.
    Module(usize),
    /// An item `name` defined in module `module`.
    Item { module: usize, name: String },
}

/// A `use` leaf: the name it binds (None for a glob or `_`), its path.
struct UseLeaf {
    binds: Option<String>,
    path: Vec<String>,
    glob: bool,
    line: usize,
    /// Whether the `use` is a re-export (not itself a dependency).
    reexport: bool,
}

/// Expands a use tree into its leaves.
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseLeaf>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let (path, binds) = if name == "self" {
                (prefix.clone(), prefix.last().cloned())
            } else {
                let mut p = prefix.clone();
                p.push(name.clone());
                (p, Some(name))
            };
            out.push(UseLeaf {
                binds,
                path,
                glob: false,
                line: n.ident.span().start().line,
                reexport: false,
            });
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            let binds = Some(r.rename.to_string()).filter(|n| n != "_");
            out.push(UseLeaf {
                binds,
                path,
                glob: false,
                line: r.ident.span().start().line,
                reexport: false,
            });
        }
        syn::UseTree::Glob(g) => {
            out.push(UseLeaf {
                binds: None,
                path: prefix.clone(),
                glob: true,
                line: g.star_token.spans[0].start().line,
                reexport: false,
            });
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// Every path and `use` leaf of some items, with its line; test items and
/// inline child modules (modules of their own) left out.
#[derive(Default)]
pub(crate) struct Paths {
    /// Paths as written: segments and line.
    pub paths: Vec<(Vec<String>, usize)>,
    uses: Vec<UseLeaf>,
    /// Items defined here, by name.
    defined: BTreeSet<String>,
}

impl<'a> Visit<'a> for Paths {
    fn visit_item(&mut self, i: &'a syn::Item) {
        let skip = match i {
            syn::Item::Mod(_) => true,
            syn::Item::Use(u) => is_cfg_test(&u.attrs),
            syn::Item::Fn(f) => is_cfg_test(&f.attrs),
            syn::Item::Impl(m) => is_cfg_test(&m.attrs),
            _ => false,
        };
        if !skip {
            syn::visit::visit_item(self, i);
        }
    }
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        if u.leading_colon.is_none() {
            let first = self.uses.len();
            use_leaves(&u.tree, &mut Vec::new(), &mut self.uses);
            // A re-export (`pub use`, `pub(crate) use`) is the module's
            // face for others: it binds names, and a file naming them
            // depends on where they are defined, not on this file.
            let face = !matches!(u.vis, syn::Visibility::Inherited);
            for leaf in &mut self.uses[first..] {
                leaf.reexport = face;
            }
        }
    }
    fn visit_path(&mut self, p: &'a syn::Path) {
        if p.leading_colon.is_none() {
            let segs = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let line = p
                .segments
                .first()
                .map(|s| s.ident.span().start().line)
                .unwrap_or(0);
            self.paths.push((segs, line));
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        use syn::parse::Parser;
        let exprs = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(list) = exprs.parse2(m.tokens.clone()) {
            for e in &list {
                self.visit_expr(e);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Names defined by an item (its own name; a macro_rules is not a path item).
fn defined_name(i: &syn::Item) -> Option<String> {
    Some(match i {
        syn::Item::Const(i) => i.ident.to_string(),
        syn::Item::Enum(i) => i.ident.to_string(),
        syn::Item::Fn(i) => i.sig.ident.to_string(),
        syn::Item::Static(i) => i.ident.to_string(),
        syn::Item::Struct(i) => i.ident.to_string(),
        syn::Item::Trait(i) => i.ident.to_string(),
        syn::Item::TraitAlias(i) => i.ident.to_string(),
        syn::Item::Type(i) => i.ident.to_string(),
        syn::Item::Union(i) => i.ident.to_string(),
        _ => return None,
    })
}

/// A tree with every module's names, ready to resolve paths in it.
pub(crate) struct Resolver<'t> {
    pub tree: &'t Tree,
    /// Per module: its paths, use leaves and defined names.
    pub scopes: Vec<Paths>,
}

impl<'t> Resolver<'t> {
    pub fn new(tree: &'t Tree) -> Resolver<'t> {
        let scopes = tree
            .modules
            .iter()
            .map(|m| {
                let mut p = Paths::default();
                for item in &m.items {
                    p.visit_item(item);
                    if let Some(n) = defined_name(item) {
                        p.defined.insert(n);
                    }
                }
                p
            })
            .collect();
        Resolver { tree, scopes }
    }

    /// What `name` means in module `m`: a child module, an item defined
    /// there, an imported name, or a name a glob import brings.
    fn lookup(&self, m: usize, name: &str, seen: &mut HashSet<(usize, String)>) -> Option<Named> {
        if !seen.insert((m, name.to_string())) {
            return None;
        }
        if let Some(&c) = self.tree.modules[m].children.get(name) {
            return Some(Named::Module(c));
        }
        let scope = &self.scopes[m];
        if scope.defined.contains(name) {
            return Some(Named::Item {
                module: m,
                name: name.to_string(),
            });
        }
        for u in scope
            .uses
            .iter()
            .filter(|u| u.binds.as_deref() == Some(name))
        {
            if let Some(n) = self.resolve_in(m, &u.path, seen) {
                return Some(n);
            }
        }
        for u in scope.uses.iter().filter(|u| u.glob) {
            if let Some(Named::Module(g)) = self.resolve_in(m, &u.path, seen) {
                if let Some(n) = self.lookup(g, name, seen) {
                    return Some(n);
                }
            }
        }
        None
    }

    /// What the path `segs`, written in module `m`, names: None for
    /// another crate's, a local variable or a generic.
    pub fn resolve(&self, m: usize, segs: &[String]) -> Option<Named> {
        self.resolve_in(m, segs, &mut HashSet::new())
    }

    fn resolve_in(
        &self,
        m: usize,
        segs: &[String],
        seen: &mut HashSet<(usize, String)>,
    ) -> Option<Named> {
        let (first, rest) = segs.split_first()?;
        let mut at = match first.as_str() {
            "crate" => Named::Module(self.tree.root()),
            "self" => Named::Module(m),
            "super" => Named::Module(self.tree.modules[m].parent?),
            "Self" => return None,
            _ => self.lookup(m, first, seen)?,
        };
        for seg in rest {
            let Named::Module(cur) = at else { break };
            at = if seg == "super" {
                Named::Module(self.tree.modules[cur].parent?)
            } else {
                self.lookup(cur, seg, seen)?
            };
        }
        Some(at)
    }

    /// Every path written in module `m` (its use leaves but re-exports,
    /// and its paths), with its line.
    pub fn written(&self, m: usize) -> Vec<(Vec<String>, usize)> {
        let scope = &self.scopes[m];
        scope
            .uses
            .iter()
            .filter(|u| !u.reexport)
            .map(|u| (u.path.clone(), u.line))
            .chain(scope.paths.iter().cloned())
            .collect()
    }

    /// Every item module `m` names in another file: (its file, its name, line).
    pub fn named_elsewhere(&self, m: usize) -> Vec<(PathBuf, String, usize)> {
        let here = &self.tree.modules[m].file;
        let mut out = Vec::new();
        for (path, line) in self.written(m) {
            if let Some(Named::Item { module, name }) = self.resolve(m, &path) {
                let file = &self.tree.modules[module].file;
                if file != here {
                    out.push((file.clone(), name, line));
                }
            }
        }
        out
    }
}

/// A file's dependencies: the files it names items of, each with the
/// names and the line of the first.
type Graph = BTreeMap<PathBuf, BTreeMap<PathBuf, (BTreeSet<String>, usize)>>;

fn graph(tree: &Tree) -> Graph {
    let r = Resolver::new(tree);
    let mut g = Graph::new();
    for (m, module) in tree.modules.iter().enumerate() {
        let deps = g.entry(module.file.clone()).or_default();
        for (file, name, line) in r.named_elsewhere(m) {
            let e = deps.entry(file).or_insert_with(|| (BTreeSet::new(), line));
            e.0.insert(name);
            e.1 = e.1.min(line);
        }
    }
    g
}

/// The graph's strongly connected parts of more than one file (Tarjan).
fn circles(g: &Graph) -> Vec<Vec<PathBuf>> {
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        on_stack: BTreeSet<&'g PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g PathBuf) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.g.get(v).into_iter().flat_map(|d| d.keys()) {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut part = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                part.push(w.clone());
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                s.out.push(part);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// Each circle of `tree`: its files and, per dependency inside it,
/// FILE:LINE -> FILE and the names that tie them.
fn describe(tree: &Tree, root: &std::path::Path) -> Vec<String> {
    let g = graph(tree);
    let mut out = Vec::new();
    for part in circles(&g) {
        let files: Vec<String> = part.iter().map(|f| relative(root, f)).collect();
        let mut text = format!("circle of {} files: {}", part.len(), files.join(", "));
        for a in &part {
            for (b, (names, line)) in &g[a] {
                if part.contains(b) {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    text.push_str(&format!(
                        "\n    {}:{line} -> {} ({})",
                        relative(root, a),
                        relative(root, b),
                        names.join(", ")
                    ));
                }
            }
        }
        out.push(text);
    }
    out
}

#[test]
fn no_import_circle_in_any_crate() {
    let root = workspace_root();
    let mut found = Vec::new();
    for dir in crate_dirs(&root) {
        for crate_root in crate_roots(&dir) {
            let tree = Tree::load(&crate_root).unwrap_or_else(|e| panic!("{e}"));
            found.extend(describe(&tree, &root));
        }
    }
    fail_on(
        "import circles between files (each file names an item of the next)",
        &found,
    );
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;

    /// A tree written out in a temporary directory: (relative path, text).
    pub(crate) fn tree_of(files: &[(&str, &str)]) -> (tempdir::Dir, Tree) {
        let dir = tempdir::Dir::new();
        for (path, text) in files {
            let p = dir.0.join(path);
            std::fs::create_dir_all(p.parent().expect("a file has a parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        let tree = Tree::load(&dir.0.join(files[0].0)).expect("the test tree loads");
        (dir, tree)
    }

    pub(crate) mod tempdir {
        /// A directory removed at drop.
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let base = std::env::temp_dir().join(format!(
                    "fastaudit-structure-{}-{:?}",
                    std::process::id(),
                    std::thread::current().id()
                ));
                let _ = std::fs::remove_dir_all(&base);
                std::fs::create_dir_all(&base).expect("mkdir");
                Dir(base)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn circles_of(files: &[(&str, &str)]) -> Vec<String> {
        let (dir, tree) = tree_of(files);
        describe(&tree, Path::new(&dir.0))
    }

    #[test]
    fn a_two_file_circle_is_found_with_its_names() {
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            (
                "b.rs",
                "pub struct B;\npub fn f() -> super::a::A { super::a::A }\n",
            ),
        ]);
        assert_eq!(
            found,
            vec![
                "circle of 2 files: a.rs, b.rs\n    a.rs:1 -> b.rs (B)\n    b.rs:2 -> a.rs (A)"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_re_export_is_followed_to_the_defining_file() {
        // a names crate::B, re-exported by lib.rs from b: the edge is a -> b,
        // and b naming lib.rs's own item closes a circle only through b.
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\npub use b::B;\npub use a::A;\n"),
            ("a.rs", "use crate::B;\npub struct A;\n"),
            ("b.rs", "pub struct B;\npub fn f(_: crate::A) {}\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("circle of 2 files: a.rs, b.rs"),
            "{found:?}"
        );
    }

    #[test]
    fn a_parent_declaring_its_child_is_no_dependency() {
        let found = circles_of(&[
            ("lib.rs", "mod a;\npub struct Root;\n"),
            (
                "a.rs",
                "mod inner;\nuse crate::Root;\npub fn f(_: Root) {}\n",
            ),
            ("a/inner.rs", "pub fn g() { super::f(crate::Root) }\n"),
        ]);
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn globs_paths_and_inline_modules_resolve() {
        let found = circles_of(&[
            ("main.rs", "mod x;\n#[path = \"other/y.rs\"]\nmod y;\n"),
            ("x.rs", "use crate::y::*;\npub fn fx() { helper() }\n"),
            (
                "other/y.rs",
                "pub fn helper() {}\nmod z { pub fn g() { crate::x::fx() } }\n",
            ),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("x.rs:2 -> other/y.rs (helper)"),
            "{found:?}"
        );
        assert!(found[0].contains("other/y.rs:2 -> x.rs (fx)"), "{found:?}");
    }

    /// The files on a circle, by the transitive closure of `edges` among
    /// `n` files: the property test's independent answer.
    fn on_circles(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut reach = vec![vec![false; n]; n];
        for &(a, b) in edges {
            if a != b {
                reach[a][b] = true;
            }
        }
        // Warshall: after step k, i reaches j through files 0..=k.
        for k in 0..n {
            let through = reach[k].clone();
            for row in reach.iter_mut() {
                if row[k] {
                    for (j, &r) in through.iter().enumerate() {
                        row[j] |= r;
                    }
                }
            }
        }
        let mut parts: Vec<Vec<usize>> = Vec::new();
        for (i, row) in reach.iter().enumerate() {
            let part: Vec<usize> = (0..n)
                .filter(|&j| j == i || (row[j] && reach[j][i]))
                .collect();
            if part.len() > 1 && !parts.contains(&part) {
                parts.push(part);
            }
        }
        parts
    }

    proptest::proptest! {
        /// Any dependency graph among a crate's files, each dependency
        /// written one of several ways (a use, a path, a re-export, a
        /// relative path), gives exactly the circles its closure has.
        #[test]
        fn circles_are_exactly_the_closures(
            n in 2usize..6,
            raw in proptest::collection::vec((0usize..6, 0usize..6, 0usize..4), 0..12),
        ) {
            let edges: Vec<(usize, usize, usize)> =
                raw.into_iter().filter(|&(a, b, _)| a < n && b < n).collect();
            let mut lib = String::new();
            for i in 0..n {
                lib.push_str(&format!("mod m{i};\npub use m{i}::S{i};\n"));
            }
            let mut files = vec![("lib.rs".to_string(), lib)];
            for i in 0..n {
                let mut text = format!("pub struct S{i};\n");
                for &(a, b, how) in &edges {
                    if a != i {
                        continue;
                    }
                    text.push_str(&match how {
                        0 => format!("use crate::m{b}::S{b};\n"),
                        1 => format!("pub fn f{b}() -> usize {{ std::mem::size_of::<crate::S{b}>() }}\n"),
                        2 => format!("pub fn g{b}(_: super::m{b}::S{b}) {{}}\n"),
                        _ => format!("pub fn h{b}() {{ let _ = format!(\"{{}}\", std::mem::size_of::<crate::m{b}::S{b}>()); }}\n"),
                    });
                }
                files.push((format!("m{i}.rs"), text));
            }
            let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
            let (dir, tree) = tree_of(&refs);
            let g = graph(&tree);
            let found: Vec<Vec<String>> = circles(&g)
                .into_iter()
                .map(|part| part.iter().map(|f| relative(&dir.0, f)).collect())
                .collect();
            let plain: Vec<(usize, usize)> = edges.iter().map(|&(a, b, _)| (a, b)).collect();
            let mut expected: Vec<Vec<String>> = on_circles(n, &plain)
                .into_iter()
                .map(|part| part.iter().map(|i| format!("m{i}.rs")).collect())
                .collect();
            expected.sort();
            proptest::prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn test_modules_are_left_out() {
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            (
                "b.rs",
                "pub struct B;\n#[cfg(test)]\nmod tests { use crate::a::A; }\n",
            ),
        ]);
        assert_eq!(found, Vec::<String>::new());
    }
}
