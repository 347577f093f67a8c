//! Watched paths as the kernel side sees them: inode identities in the
//! `watched` map. Like the kernel's audit_watch (which follows its parent
//! directory with fsnotify), a file watch follows its path: when the name
//! is created, replaced or removed, the map is updated from inotify events
//! on the parent directory.
//!
//! Unlike the rest of the map images this is live state, not a compiled
//! decision: identities are read from the file system when the maps are
//! filled ([`crate::load::resolve`]) and kept current by the runtime's follower
//! thread ([`crate::load::watch_follow`]) for as long as it runs; the plan only
//! names the paths.

use crate::host::mountinfo::unescape_octal;
use crate::plan::rule::Watch;
use fastaudit_bpf::types::{fa_inode_key, fa_name_key, fa_path_key, fa_watch};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

/// Identity of an inode: (ino, kernel dev_t).
pub(crate) type Key = (u64, u32);

/// The identity of the object at `path` itself (a symlink is not followed,
/// as the kernel looks up a watch's last component without following).
fn identity(path: &[u8]) -> Option<Key> {
    let path = std::path::Path::new(OsStr::from_bytes(path));
    let m = std::fs::symlink_metadata(path).ok()?;
    Some(crate::host::identity::kernel_identity(path, &m))
}

/// Mount points strictly inside `dir`, from /proc/self/mountinfo.
fn mounts_below(dir: &[u8]) -> Vec<Vec<u8>> {
    let Ok(text) = std::fs::read("/proc/self/mountinfo") else {
        return Vec::new();
    };
    let mut prefix = dir.to_vec();
    if !prefix.ends_with(b"/") {
        prefix.push(b'/');
    }
    text.split(|&b| b == b'\n')
        .filter_map(|l| l.split(|&b| b == b' ').nth(4))
        .map(unescape_octal)
        .filter(|p| p.starts_with(&prefix))
        .collect()
}

/// The user-space mirror of the `watched` map.
pub struct WatchTable {
    pub(crate) watches: Vec<Watch>,
    /// Per watch: the id the kernel side reports (watches on the same
    /// object share the first one's id).
    ids: Vec<u32>,
    /// Per file watch: the object its path names now.
    current: Vec<Option<Key>>,
    entries: HashMap<Key, fa_watch>,
}

impl WatchTable {
    /// Resolve every watch on the live system.
    pub fn resolve(watches: &[Watch]) -> WatchTable {
        let mut t = WatchTable {
            watches: watches.to_vec(),
            ids: (1..=watches.len() as u32).collect(),
            current: vec![None; watches.len()],
            entries: HashMap::new(),
        };
        for i in 0..watches.len() {
            if let Some((pk, _)) = t.parent_and_name(i) {
                t.entries.entry(pk).or_default().parent = 1;
            }
        }
        for i in 0..watches.len() {
            let w = &t.watches[i];
            let Some(key) = identity(&w.path) else {
                continue;
            };
            let mut keys = vec![key];
            if w.tree {
                // A tree also covers file systems mounted inside it; the
                // inode-change hook cannot cross mounts, so mark their roots.
                keys.extend(mounts_below(&w.path).iter().filter_map(|p| identity(p)));
            } else {
                t.current[i] = Some(key);
            }
            let tree = w.tree;
            for k in keys {
                let e = t.entries.entry(k).or_default();
                let slot = if tree { &mut e.dir_id } else { &mut e.file_id };
                if *slot == 0 {
                    *slot = (i + 1) as u32;
                } else {
                    t.ids[i] = *slot;
                }
            }
        }
        t
    }

    /// For a file watch: its directory's identity and its name there.
    fn parent_and_name(&self, i: usize) -> Option<(Key, Vec<u8>)> {
        let w = &self.watches[i];
        if w.tree {
            return None;
        }
        let (parent, name) = split(&w.path);
        Some((identity(parent)?, name.to_vec()))
    }

    /// (directory identity, file name) → watch id, for the kernel side to
    /// follow creations and renames onto a watched path as they happen
    /// (its `watch_by_parent_name` map). Names longer than the key holds are
    /// followed by [`follow`] alone.
    pub fn by_parent_and_name(&self) -> Vec<(fa_name_key, u32)> {
        let mut out = Vec::new();
        for i in 0..self.watches.len() {
            let Some(((ino, dev), name)) = self.parent_and_name(i) else {
                continue;
            };
            let mut k = fa_name_key {
                parent_ino: ino,
                parent_dev: dev,
                len: name.len() as u32,
                ..fa_name_key::default()
            };
            if name.is_empty() || name.len() >= k.name.len() {
                continue;
            }
            for (d, &b) in k.name.iter_mut().zip(&name) {
                *d = b as _; // the skeleton's char: i8 (BPF's char is signed) on every target
            }
            out.push((k, self.ids[i]));
        }
        out
    }

    /// Watched file paths (normalized, zero-padded) → watch id.
    pub fn file_paths(&self) -> Vec<(fa_path_key, u32)> {
        self.path_keys(false)
    }

    /// Watched trees (`dir=`) by normalized path → watch id.
    pub fn tree_paths(&self) -> Vec<(fa_path_key, u32)> {
        self.path_keys(true)
    }

    fn path_keys(&self, trees: bool) -> Vec<(fa_path_key, u32)> {
        let mut out = Vec::new();
        for (i, w) in self.watches.iter().enumerate() {
            let mut k = fa_path_key::default();
            let path = normalize(&w.path);
            if w.tree != trees || path.len() >= k.path.len() {
                continue;
            }
            for (d, &b) in k.path.iter_mut().zip(&path) {
                *d = b as _; // the skeleton's char: i8 (BPF's char is signed) on every target
            }
            out.push((k, self.ids[i]));
        }
        out
    }

    /// The id rules must test for watch number `n` (1-based, as in the plan).
    pub fn id(&self, n: u32) -> u32 {
        self.ids.get(n as usize - 1).copied().unwrap_or(n)
    }

    /// Per watch: the id the kernel side reports.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Every entry, for filling the map.
    pub fn entries(&self) -> impl Iterator<Item = (fa_inode_key, fa_watch)> + '_ {
        self.entries
            .iter()
            .map(|(&(ino, dev), &w)| (key(ino, dev), w))
    }

    /// Re-resolve file watch `i`; returns the map changes to make.
    pub(crate) fn refresh(&mut self, i: usize) -> Vec<(Key, Option<fa_watch>)> {
        let now = identity(&self.watches[i].path);
        let before = self.current[i];
        if now == before {
            return Vec::new();
        }
        let id = self.ids[i];
        let mut changes = Vec::new();
        self.current[i] = now;
        // Another watch with the same id may still name the old object.
        let still_named = |t: &WatchTable, k: Key| {
            (0..t.ids.len()).any(|j| t.ids[j] == id && t.current[j] == Some(k))
        };
        if let Some(old) = before.filter(|&k| !still_named(self, k)) {
            if let Some(e) = self.entries.get_mut(&old) {
                if e.file_id == id {
                    e.file_id = 0;
                }
                if e.file_id == 0 && e.dir_id == 0 && e.parent == 0 {
                    self.entries.remove(&old);
                    changes.push((old, None));
                } else {
                    changes.push((old, Some(*e)));
                }
            }
        }
        if let Some(new) = now {
            let e = self.entries.entry(new).or_default();
            e.file_id = id;
            changes.push((new, Some(*e)));
        }
        changes
    }
}

/// A path's directory and last component.
pub(crate) fn split(path: &[u8]) -> (&[u8], &[u8]) {
    match path.iter().rposition(|&b| b == b'/') {
        Some(0) => (b"/", &path[1..]),
        Some(p) => (&path[..p], &path[p + 1..]),
        None => (b".", path),
    }
}

pub(crate) fn key(ino: u64, dev: u32) -> fa_inode_key {
    fa_inode_key { ino, dev, pad: 0 }
}

/// An absolute path spelled lexically, as the BPF side spells a failed
/// syscall's path argument: no empty or "." components, ".." removes the
/// component before it (never above the root).
pub fn normalize(path: &[u8]) -> Vec<u8> {
    let mut kept: Vec<&[u8]> = Vec::new();
    for c in path.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                kept.pop();
            }
            _ => kept.push(c),
        }
    }
    if kept.is_empty() {
        return b"/".to_vec();
    }
    let mut out = Vec::new();
    for c in kept {
        out.push(b'/');
        out.extend_from_slice(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        for (p, want) in [
            (&b"/etc/passwd"[..], &b"/etc/passwd"[..]),
            (b"//etc//./passwd", b"/etc/passwd"),
            (b"/etc/ssh/../passwd", b"/etc/passwd"),
            (b"/../etc/passwd/", b"/etc/passwd"),
            (b"/", b"/"),
            (b"/a/..", b"/"),
        ] {
            assert_eq!(normalize(p), want, "{}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn same_object_shares_an_id_and_follows_its_path() {
        let dir = std::env::temp_dir().join(format!("fa-watches-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f");
        std::fs::write(&f, "x").unwrap();
        let link = dir.join("hard");
        let _ = std::fs::remove_file(&link);
        std::fs::hard_link(&f, &link).unwrap();
        let w = |p: &std::path::Path| Watch {
            path: p.as_os_str().as_bytes().to_vec(),
            tree: false,
        };
        let mut t = WatchTable::resolve(&[w(&f), w(&link), w(&dir.join("missing"))]);
        assert_eq!((t.id(1), t.id(2), t.id(3)), (1, 1, 3));
        assert_eq!(t.entries().count(), 2, "the file and its directory");
        // Replace the file by rename: the watch moves to the new inode; the
        // old one stays, as the hard link's watch (same id) still names it.
        let tmp = dir.join("tmp");
        std::fs::write(&tmp, "y").unwrap();
        std::fs::rename(&tmp, &f).unwrap();
        let changes = t.refresh(0);
        assert_eq!(changes.len(), 1, "{changes:?}");
        std::fs::remove_file(&link).unwrap();
        assert_eq!(t.refresh(1).len(), 1, "gone from the old inode now");
        assert!(t.refresh(0).is_empty(), "no change the second time");
        // The missing one appears.
        std::fs::write(dir.join("missing"), "z").unwrap();
        assert_eq!(t.refresh(2).len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
