//! `-w`/`-W path` watches and `-p` permissions (also `-F perm=`'s letters).

use super::{contains, err, show, State, SyntaxError};
use crate::abi::{self, field, op, perm};
use crate::warning::Warning;

impl State<'_> {
    /// `-w`/`-W PATH`: check, trim trailing slashes, and build the watch rule.
    pub(super) fn setup_watch(&mut self, arg: Vec<u8>) -> Result<(), SyntaxError> {
        let mut path = arg;
        if path.len() >= abi::PATH_MAX {
            return err("the path passed for the watch is too big");
        }
        if path.first() != Some(&b'/') {
            return err(format!("watch path {} must start with '/'", show(&path)));
        }
        if basename(&path).len() > abi::NAME_MAX {
            return err("the base name of the watch path is too big");
        }
        if contains(&path, b"..") {
            self.warn(Warning::RelativePath);
        }
        if path.contains(&b'*') || path.contains(&b'?') {
            self.warn(Warning::Wildcard);
        }
        // auditctl trims only paths longer than two bytes, so `//` stays.
        if path.len() > 2 && path.ends_with(b"/") {
            while path.len() > 1 && path.ends_with(b"/") {
                path.pop();
            }
        }
        // The live system decides: a directory becomes a dir= tree watch.
        let ty = if self.host.is_dir(&path) {
            field::DIR
        } else {
            field::WATCH
        };
        if !self.rule.fields.is_empty() {
            return err("a watch must come before any field");
        }
        self.rule.add_all_syscalls();
        let len = path.len() as u32;
        self.push(ty, op::EQUAL, len, path);
        self.push(
            field::PERM,
            op::EQUAL,
            perm::READ | perm::WRITE | perm::EXEC | perm::ATTR,
            Vec::new(),
        );
        self.perm_added = true;
        Ok(())
    }

    /// `-p rwxa`: set (or add) the rule's permission filter.
    pub(super) fn setup_perms(&mut self, arg: &[u8]) -> Result<(), SyntaxError> {
        if arg.len() > 4 {
            return err(format!("-p {}: permission is too long", show(arg)));
        }
        let val = perm_bits(arg).ok_or_else(|| {
            SyntaxError(format!("-p {}: permission must be some of rwxa", show(arg)))
        })?;
        if self.rule.fields.is_empty() {
            return err("-p: permissions should be preceded by other fields");
        }
        let mut done = false;
        for f in self
            .rule
            .fields
            .iter_mut()
            .filter(|f| f.field == field::PERM)
        {
            f.value = val;
            done = true;
        }
        if !done {
            self.room()?;
            self.push(field::PERM, op::EQUAL, val, Vec::new());
        }
        self.perm_added = true;
        Ok(())
    }
}

/// Permission letters to bits; `None` on any other letter.
pub(super) fn perm_bits(s: &[u8]) -> Option<u32> {
    s.iter().try_fold(0, |acc, b| {
        Some(
            acc | match b.to_ascii_lowercase() {
                b'r' => perm::READ,
                b'w' => perm::WRITE,
                b'x' => perm::EXEC,
                b'a' => perm::ATTR,
                _ => return None,
            },
        )
    })
}

/// POSIX `basename` (trailing slashes ignored).
fn basename(p: &[u8]) -> &[u8] {
    let trimmed = {
        let mut end = p.len();
        while end > 1 && p[end - 1] == b'/' {
            end -= 1;
        }
        &p[..end]
    };
    match trimmed.iter().rposition(|&b| b == b'/') {
        Some(i) if trimmed.len() > 1 => &trimmed[i + 1..],
        _ => trimmed,
    }
}
