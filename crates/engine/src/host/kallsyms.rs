//! /proc/kallsyms: the addresses of the kernel's own symbols (root sees
//! them), for the text range of a function and the address of a datum.

/// The address of kernel data symbol `name` in /proc/kallsyms (0 or
/// absent: hidden from this user, or no such symbol).
pub(crate) fn kernel_symbol(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/kallsyms").ok()?;
    let found = kallsyms(&text)
        .find(|&(_, _, sym)| sym == name)
        .map(|(a, _, _)| a);
    found.filter(|&a| a != 0)
}

/// The kernel's own symbols in /proc/kallsyms text, as (address, kind,
/// name); module symbols (which carry a `[module]` field) are left out.
pub(crate) fn kallsyms(text: &str) -> impl Iterator<Item = (u64, &str, &str)> {
    text.lines().filter_map(|line| {
        let mut f = line.split_whitespace();
        let (a, kind, sym) = (f.next()?, f.next()?, f.next()?);
        if f.next().is_some() {
            return None;
        }
        Some((u64::from_str_radix(a, 16).ok()?, kind, sym))
    })
}

/// Where kernel function `name` lies in the kernel's text: its address and
/// the next symbol's, from /proc/kallsyms (root sees the addresses).
pub(crate) fn kernel_function_range(name: &str) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/kallsyms").ok()?;
    let text_syms = || kallsyms(&text).filter(|&(_, kind, _)| matches!(kind, "t" | "T"));
    let start = text_syms()
        .find(|&(_, _, sym)| sym == name)
        .map(|(a, _, _)| a)
        .filter(|&a| a != 0)?;
    let end = text_syms()
        .map(|(a, _, _)| a)
        .filter(|&a| a > start)
        .min()?;
    Some((start, end))
}

#[cfg(test)]
mod kallsyms_tests {
    use super::*;

    #[test]
    fn kallsyms_lines_give_the_kernels_own_symbols() {
        let text = "ffffffff81000000 T _text\nffffffff81001000 t vfs_read\nffffffff81002000 T vfs_write\nffffffffc0001000 t mod_fn\t[kvm]\n";
        let syms: Vec<_> = kallsyms(text).collect();
        assert_eq!(syms.len(), 3, "the module's symbol is left out");
        assert_eq!(syms[1], (0xffffffff81001000, "t", "vfs_read"));
    }
}
