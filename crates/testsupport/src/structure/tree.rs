//! A crate's module tree as rustc builds it: from a root file (lib.rs,
//! main.rs, a src/bin file, build.rs) along `mod x;` (x.rs or x/mod.rs,
//! `#[path]` relative to the declaring file's directory) and inline
//! `mod x { }`, leaving out every item under `#[cfg(test)]` so the tree is
//! the crate as built, not as tested.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One module: its file (an inline module shares its parent's) and items.
pub(crate) struct Module {
    /// The file the module's items are written in.
    pub file: PathBuf,
    /// The enclosing module (None for the root).
    pub parent: Option<usize>,
    /// Child modules by name.
    pub children: BTreeMap<String, usize>,
    /// The module's items, test items left out.
    pub items: Vec<syn::Item>,
}

/// A module tree: `modules[0]` is the root.
pub(crate) struct Tree {
    pub modules: Vec<Module>,
}

/// Whether `attrs` hold `#[cfg(test)]` (alone, not inside `any`/`not`).
pub(crate) fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// Whether `attrs` mark a test function (`#[test]`, or `#[...::test]` as
/// async runtimes and proptest spell it).
pub(crate) fn is_test_fn(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"))
}

/// Parses one Rust source file.
pub(crate) fn parse_file(path: &Path) -> Result<syn::File, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        format!("{}:{}: {e}", path.display(), at.line)
    })
}

/// The item of a `#[path = "..."]` attribute, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

impl Tree {
    /// The tree whose root is `root_file` (a crate root: its children are
    /// beside it, as lib.rs's are).
    pub fn load(root_file: &Path) -> Result<Tree, String> {
        let file = parse_file(root_file)?;
        let dir = root_file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut tree = Tree {
            modules: Vec::new(),
        };
        tree.add(root_file.to_path_buf(), None, file.items, dir)?;
        Ok(tree)
    }

    /// The index of the root module.
    pub fn root(&self) -> usize {
        0
    }

    /// Adds a module with its items, and its child modules after it.
    fn add(
        &mut self,
        file: PathBuf,
        parent: Option<usize>,
        items: Vec<syn::Item>,
        child_dir: PathBuf,
    ) -> Result<usize, String> {
        let index = self.modules.len();
        let kept: Vec<syn::Item> = items.into_iter().filter(|i| !item_is_test(i)).collect();
        self.modules.push(Module {
            file: file.clone(),
            parent,
            children: BTreeMap::new(),
            items: Vec::new(),
        });
        let mut own = Vec::new();
        for item in kept {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let child = self.add_mod(index, &file, &child_dir, m)?;
                    self.modules[index].children.insert(name, child);
                }
                other => own.push(other),
            }
        }
        self.modules[index].items = own;
        Ok(index)
    }

    /// Adds the module `m` declared in `file` (children looked for in `dir`).
    fn add_mod(
        &mut self,
        parent: usize,
        file: &Path,
        dir: &Path,
        m: syn::ItemMod,
    ) -> Result<usize, String> {
        let name = m.ident.to_string();
        let declared_in = file.parent().unwrap_or(Path::new("."));
        if let Some((_, items)) = m.content {
            // Inline: its items are in this file; its own `mod y;` children
            // are in dir/name/ (or beside the #[path] it names).
            let child_dir = match path_attr(&m.attrs) {
                Some(p) => declared_in.join(p),
                None => dir.join(&name),
            };
            return self.add(file.to_path_buf(), Some(parent), items, child_dir);
        }
        let (path, child_dir) = match path_attr(&m.attrs) {
            // A #[path] file is a "mod-rs" file: its children are beside it.
            Some(p) => {
                let path = declared_in.join(p);
                let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
                (path, dir)
            }
            None => {
                let flat = dir.join(format!("{name}.rs"));
                if flat.is_file() {
                    (flat, dir.join(&name))
                } else {
                    (dir.join(&name).join("mod.rs"), dir.join(&name))
                }
            }
        };
        let parsed = parse_file(&path)
            .map_err(|e| format!("{e} (module `{name}` declared in {})", file.display()))?;
        self.add(path, Some(parent), parsed.items, child_dir)
    }
}

/// Whether an item is left out of a build: `#[cfg(test)]`.
fn item_is_test(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => return is_cfg_test(&i.attrs) || is_test_fn(&i.attrs),
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => return false,
    };
    is_cfg_test(attrs)
}

/// Every crate root of the crate in `dir`: src/lib.rs, src/main.rs, each
/// src/bin target, and build.rs; each is a tree of its own.
pub(crate) fn crate_roots(dir: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for f in ["src/lib.rs", "src/main.rs", "build.rs"] {
        if dir.join(f).is_file() {
            roots.push(dir.join(f));
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir.join("src/bin")) {
        let mut bins: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|p| {
                if p.extension().is_some_and(|e| e == "rs") {
                    Some(p)
                } else if p.join("main.rs").is_file() {
                    Some(p.join("main.rs"))
                } else {
                    None
                }
            })
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    roots
}
