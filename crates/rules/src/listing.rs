//! Printing rules exactly as `auditctl -l` prints what the kernel lists back.

use crate::abi::{action, field, list, op, perm, KEY_SEPARATOR};
use crate::host::Host;
use crate::rule::Rule;
use crate::tables::{self, Machine};
use std::io::{self, Write};

fn list_name(l: u32) -> &'static str {
    match l {
        list::TASK => "task",
        list::EXIT => "exit",
        list::USER => "user",
        list::EXCLUDE => "exclude",
        list::FS => "filesystem",
        list::URING_EXIT => "io_uring",
        _ => "(null)",
    }
}

fn action_name(a: u32) -> &'static str {
    match a {
        action::NEVER => "never",
        action::POSSIBLE => "possible",
        action::ALWAYS => "always",
        _ => "(null)",
    }
}

/// auditctl shows a rule as a watch (`-w path -p perm -k key`) when it selects
/// every syscall and carries only path/dir, perm and key fields.
fn is_watch(r: &Rule) -> bool {
    let only_watch_fields = r.fields.iter().all(|f| {
        matches!(
            f.field,
            field::PERM | field::FILTERKEY | field::DIR | field::WATCH
        )
    });
    let has_perm = r.fields.iter().any(|f| f.field == field::PERM);
    let all =
        matches!(r.list, list::USER | list::TASK | list::EXCLUDE | list::FS) || r.all_syscalls();
    only_watch_fields && has_perm && all
}

/// Writes a listing; carries auditctl's "current arch" from rule to rule,
/// because auditctl names the syscalls of a rule without an arch with the
/// table of the last arch it printed.
pub struct Lister<'h> {
    host: &'h dyn Host,
    elf: u32,
}

impl<'h> Lister<'h> {
    /// A lister for rules loaded on `host`.
    pub fn new(host: &'h dyn Host) -> Self {
        Lister { host, elf: 0 }
    }

    /// Print all rules, or `No rules`.
    pub fn write_all<'r>(
        &mut self,
        out: &mut dyn Write,
        rules: impl IntoIterator<Item = &'r Rule>,
    ) -> io::Result<()> {
        let mut any = false;
        for r in rules {
            any = true;
            out.write_all(&self.line(r))?;
            out.write_all(b"\n")?;
        }
        if !any {
            out.write_all(b"No rules\n")?;
        }
        Ok(())
    }

    /// One rule as auditctl prints it (without the newline).
    pub fn line(&mut self, r: &Rule) -> Vec<u8> {
        let mut o: Vec<u8> = Vec::new();
        let watch = is_watch(r);
        if !watch {
            o.extend(format!("-a {},{}", action_name(r.action), list_name(r.list)).bytes());
            for f in r.fields.iter().filter(|f| f.field == field::ARCH) {
                self.elf = f.value;
                let sym = op::symbol(f.op);
                match Machine::from_elf(f.value) {
                    None => o.extend(format!(" -F arch{sym}0x{:X}", f.value).bytes()),
                    Some(m) => o.extend(
                        format!(" -F arch{sym}{}", if m.is_64bit() { "b64" } else { "b32" })
                            .bytes(),
                    ),
                }
            }
            self.syscalls(r, &mut o);
        }
        for f in &r.fields {
            let sym = op::symbol(f.op);
            let v = f.value;
            let Some(name) = tables::field_name(f.field) else {
                o.extend(format!(" f{}{sym}{}", f.field, v as i32).bytes());
                continue;
            };
            match f.field {
                field::ARCH => {}
                field::MSGTYPE => match tables::msgtypes().name(v) {
                    Some(t) => o.extend(format!(" -F {name}{sym}{t}").bytes()),
                    None => o.extend(format!(" -F {name}{sym}{}", v as i32).bytes()),
                },
                field::SUBJ_USER..=field::SUBJ_CLR | field::OBJ_USER..=field::OBJ_LEV_HIGH => {
                    o.extend(format!(" -F {name}{sym}").bytes());
                    o.extend(&f.text);
                }
                field::WATCH | field::DIR => {
                    if watch {
                        o.extend(b"-w ");
                    } else {
                        o.extend(if f.field == field::WATCH {
                            &b" -F path="[..]
                        } else {
                            &b" -F dir="[..]
                        });
                    }
                    o.extend(&f.text);
                }
                field::EXE => {
                    o.extend(b" -F exe=");
                    o.extend(&f.text);
                }
                field::FILTERKEY => {
                    for k in f
                        .text
                        .split(|&b| b == KEY_SEPARATOR)
                        .filter(|k| !k.is_empty())
                    {
                        o.extend(if watch {
                            &b" -k "[..]
                        } else {
                            &b" -F key="[..]
                        });
                        o.extend(k);
                    }
                }
                field::PERM => {
                    let mut p = String::new();
                    for (bit, c) in [
                        (perm::READ, 'r'),
                        (perm::WRITE, 'w'),
                        (perm::EXEC, 'x'),
                        (perm::ATTR, 'a'),
                    ] {
                        if v & bit != 0 {
                            p.push(c);
                        }
                    }
                    o.extend(
                        if watch {
                            format!(" -p {p}")
                        } else {
                            format!(" -F perm={p}")
                        }
                        .bytes(),
                    );
                }
                field::INODE => o.extend(format!(" -F {name}{sym}{v}").bytes()),
                field::FIELD_COMPARE => {
                    if let Some((a, b, _)) = tables::COMPARISONS.iter().find(|(_, _, c)| *c == v) {
                        let (a, b) = (
                            tables::field_name(*a).unwrap_or("?"),
                            tables::field_name(*b).unwrap_or("?"),
                        );
                        o.extend(format!(" -C {a}{sym}{b}").bytes());
                    }
                }
                field::ARG0..=field::ARG3 => {
                    // auditctl shows arguments in hex unless asked to interpret.
                    o.extend(format!(" -F {name}{sym}0x{v:X}").bytes());
                }
                field::EXIT => {
                    let e = (v as i32).unsigned_abs();
                    match tables::errnos().name(e) {
                        Some(err) if (v as i32) < 0 => {
                            o.extend(format!(" -F {name}{sym}-{err}").bytes())
                        }
                        _ => o.extend(format!(" -F {name}{sym}{}", v as i32).bytes()),
                    }
                }
                field::FSTYPE => match tables::name_of(tables::FSTYPES, v) {
                    Some(t) => o.extend(format!(" -F {name}{sym}{t}").bytes()),
                    None => o.extend(format!(" -F {name}{sym}{}", v as i32).bytes()),
                },
                _ => o.extend(format!(" -F {name}{sym}{}", v as i32).bytes()),
            }
        }
        o
    }

    /// ` -S ...` (or ` -S all`), for the lists that take syscalls.
    fn syscalls(&mut self, r: &Rule, o: &mut Vec<u8>) {
        if matches!(r.list, list::USER | list::TASK | list::EXCLUDE | list::FS) {
            return;
        }
        if r.list == list::URING_EXIT {
            let n = tables::URING_OPS.len() as u32;
            if (0..n).all(|i| r.has_syscall(i)) && (n..2048).all(|i| !r.has_syscall(i)) {
                o.extend(b" -S all");
                return;
            }
            let names: Vec<String> = (0..2048)
                .filter(|&i| r.has_syscall(i))
                .map(|i| {
                    tables::URING_OPS
                        .get(i as usize)
                        .map_or_else(|| i.to_string(), |s| s.to_string())
                })
                .collect();
            if !names.is_empty() {
                o.extend(format!(" -S {}", names.join(",")).bytes());
            }
            return;
        }
        if r.all_syscalls() {
            o.extend(b" -S all");
            return;
        }
        let machine = if self.elf != 0 {
            Machine::from_elf(self.elf)
        } else {
            self.host.machine()
        };
        let names: Vec<String> = (0..2048)
            .filter(|&i| r.has_syscall(i))
            .map(|i| {
                machine
                    .and_then(|m| m.syscall_name(i))
                    .map_or_else(|| i.to_string(), str::to_string)
            })
            .collect();
        if !names.is_empty() {
            o.extend(format!(" -S {}", names.join(",")).bytes());
        }
    }
}
