//! Reading rules inputs: a file as `auditctl -R` reads it, a directory
//! combined as augenrules combines it, both read safely (regular text
//! files only, bounded), with what is worth a warning about each file:
//! empty inputs, files anyone could change, lines auditctl reads otherwise
//! than they are written.

use crate::content;
use crate::lexer::{self, RawLine};
use crate::origin::{LineError, Origin};
use crate::os_error::describe;
use crate::warning::Warning;
use std::cmp::Ordering;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

type Words = Vec<Vec<u8>>;

/// The command lines of one rules input, and its warnings.
#[derive(Clone, Debug, Default)]
pub struct Source {
    /// Each command line's origin and words, in the order auditctl runs them.
    pub lines: Vec<(Origin, Words)>,
    /// Warnings about the input (line 0: the whole file) and its lines.
    pub warnings: Vec<(Origin, Warning)>,
}

/// Largest rules file read, in bytes: far above any real rule set (100,000
/// rules are about 10 MB), and a bound so that an endless input cannot
/// exhaust memory.
pub const MAX_RULES_FILE: u64 = 64 << 20;

/// A rules file's bytes, read safely: only a regular file (a FIFO, device
/// or socket is refused before it is read, and opened without blocking),
/// at most `max` bytes. auditctl would block on a FIFO and read a device
/// until memory runs out; refusing them is deliberate. So is refusing a
/// file that is not text with Unix line endings (see [`content`]).
/// Also returns the owner and mode of the file read (see [`trust_warnings`]).
fn read_rules_file(path: &Path, max: u64) -> Result<(Vec<u8>, Metadata), String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let regular = |meta: &std::fs::Metadata| -> Result<(), String> {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let kind = if t.is_file() {
            return Ok(());
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() {
            "a character device"
        } else if t.is_block_device() {
            "a block device"
        } else if t.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        Err(format!("{kind}, not a regular file: refused"))
    };
    // Checked before opening (opening a device can have effects of its
    // own) and again on the opened file (the path may have changed).
    let unreadable = |e: std::io::Error| format!("cannot read: {}", describe(&e));
    regular(&std::fs::metadata(path).map_err(unreadable)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY | nix::libc::O_CLOEXEC)
        .open(path)
        .map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    regular(&meta)?;
    let mut data = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut data)
        .map_err(unreadable)?;
    if data.len() as u64 > max {
        return Err(format!("larger than {}: refused", crate::size::human(max)));
    }
    content::check(&data)?;
    Ok((data, meta))
}

/// Owner and mode warnings for a rules file or directory: auditctl -R
/// refuses a file not owned by root or writable by others; fastaudit
/// warns (see the README). A file owned by the user running fastaudit is
/// not reported: that user could change what is loaded anyway.
pub fn trust_warnings(meta: &Metadata) -> Vec<Warning> {
    let mut out = Vec::new();
    let uid = meta.uid();
    if uid != 0 && uid != nix::unistd::geteuid().as_raw() {
        out.push(Warning::NotOwnedByRoot { uid });
    }
    // A directory with the sticky bit (/tmp) still lets anyone add files.
    if meta.mode() & 0o002 != 0 {
        out.push(Warning::WorldWritable { mode: meta.mode() });
    }
    out
}

fn whole(path: &Path) -> Origin {
    Origin {
        file: path.to_path_buf(),
        line: 0,
    }
}

/// The command lines of a file, or of a directory combined as augenrules does.
pub fn read_source(path: &Path) -> Result<Source, LineError> {
    let fail = |message: String| LineError {
        origin: whole(path),
        message,
    };
    let meta =
        std::fs::metadata(path).map_err(|e| fail(format!("cannot read: {}", describe(&e))))?;
    if !meta.is_dir() {
        let (data, meta) = read_rules_file(path, MAX_RULES_FILE).map_err(fail)?;
        let mut src = Source::default();
        note_file(&mut src, path, &meta);
        for raw in lexer::scan(&data) {
            let origin = Origin {
                file: path.to_path_buf(),
                line: raw.lineno,
            };
            note_line(&mut src, &origin, &raw);
            if let Some(words) = lexer::words(raw.text) {
                src.lines.push((origin, words));
            }
        }
        if src.lines.is_empty() {
            src.warnings.push((whole(path), Warning::EmptyFile));
        }
        return Ok(src);
    }
    let mut src = Source::default();
    note_file(&mut src, path, &meta);
    let mut ignored = 0;
    let mut names = Vec::new();
    let unlistable = |e: std::io::Error| fail(format!("cannot read directory: {}", describe(&e)));
    for entry in std::fs::read_dir(path).map_err(unlistable)? {
        let entry = entry.map_err(unlistable)?;
        let name = entry.file_name();
        if name.as_encoded_bytes().ends_with(b".rules") {
            names.push(name);
        } else {
            ignored += 1;
        }
    }
    names.sort_by(|a, b| version_cmp(a.as_encoded_bytes(), b.as_encoded_bytes()));
    let mut raw = Vec::new();
    for name in &names {
        let file = path.join(name);
        let (data, meta) = read_rules_file(&file, MAX_RULES_FILE).map_err(|message| LineError {
            origin: whole(&file),
            message,
        })?;
        note_file(&mut src, &file, &meta);
        let before = raw.len();
        for line in lexer::scan(&data) {
            let origin = Origin {
                file: file.clone(),
                line: line.lineno,
            };
            note_line(&mut src, &origin, &line);
            raw.push((origin, line.text.to_vec()));
        }
        if raw[before..].iter().all(|(_, t)| lexer::words(t).is_none()) {
            src.warnings.push((whole(&file), Warning::EmptyFile));
        }
    }
    src.lines = augenrules_order(raw)
        .into_iter()
        .filter_map(|(o, text)| lexer::words(&text).map(|w| (o, w)))
        .collect();
    if src.lines.is_empty() {
        let files = names.len();
        src.warnings
            .push((whole(path), Warning::EmptyDirectory { files, ignored }));
    }
    Ok(src)
}

/// The command lines of a file, or of a directory combined as augenrules
/// does (without the warnings).
pub fn source_lines(path: &Path) -> Result<Vec<(Origin, Words)>, LineError> {
    read_source(path).map(|s| s.lines)
}

fn note_file(src: &mut Source, path: &Path, meta: &Metadata) {
    for w in trust_warnings(meta) {
        src.warnings.push((whole(path), w));
    }
}

fn note_line(src: &mut Source, origin: &Origin, raw: &RawLine) {
    for w in lexer::line_warnings(raw) {
        src.warnings.push((origin.clone(), w));
    }
}

/// augenrules' reordering: the last bare `-D` first, then the last `-b` and
/// `-f`, the other lines in order, and the last `-e` at the very end; empty
/// and comment lines dropped. Debian runs augenrules' awk program with mawk,
/// where its `\s` means a literal `s`, so an indented `-e` or a `-D ` with a
/// trailing space stays in place; this follows that awk, the oracle here.
fn augenrules_order(raw: Vec<(Origin, Vec<u8>)>) -> Vec<(Origin, Vec<u8>)> {
    let (mut d, mut b, mut f, mut e) = (None, None, None, None);
    let mut rest = Vec::new();
    for (o, text) in raw {
        let body = &text[text.iter().take_while(|&&c| c == b's').count()..];
        if text.is_empty() || body.starts_with(b"#") {
            continue;
        }
        if body.starts_with(b"-e") {
            e = Some((o, text));
        } else if body.starts_with(b"-D") && body[2..].iter().all(|&c| c == b's') {
            d = Some((o, text));
        } else if body.starts_with(b"-f") {
            f = Some((o, text));
        } else if body.starts_with(b"-b") {
            b = Some((o, text));
        } else {
            rest.push((o, text));
        }
    }
    [d, b, f]
        .into_iter()
        .flatten()
        .chain(rest)
        .chain(e)
        .collect()
}

/// `ls -v` order: digit runs compare by value, the rest byte by byte.
pub fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let (x, y) = (trim_zeros(&a[si..i]), trim_zeros(&b[sj..j]));
            let ord = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if ord != Ordering::Equal {
                return ord;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fa-source-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let d = temp("fifo");
        let fifo = d.join("x.rules");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        for path in [fifo.clone(), d.clone(), PathBuf::from("/dev/zero")] {
            let err = read_source(&path).unwrap_err();
            assert!(
                err.message.contains("not a regular file"),
                "{}: {}",
                err.origin.file.display(),
                err.message
            );
        }
        // In a directory the refusal names the file.
        assert_eq!(read_source(&d).unwrap_err().origin.file, fifo);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn inputs_past_the_bound_are_refused() {
        let d = temp("big");
        let f = d.join("a.rules");
        std::fs::write(&f, vec![b'#'; 100]).unwrap();
        assert!(read_rules_file(&f, 100).is_ok());
        let err = read_rules_file(&f, 99).unwrap_err();
        assert!(err.contains("larger than 99 bytes"), "{err}");
        // The real bound, as a reader takes it in.
        std::fs::write(&f, vec![b'#'; (MAX_RULES_FILE + 1) as usize]).unwrap();
        let err = read_rules_file(&f, MAX_RULES_FILE).unwrap_err();
        assert_eq!(err, "larger than 64 MiB: refused");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn binary_and_crlf_files_are_refused_whole_by_name() {
        let d = temp("text");
        std::fs::write(d.join("10-ok.rules"), "-D\n").unwrap();
        let dos = d.join("20-dos.rules");
        std::fs::write(&dos, "-D\r\n-w /etc/passwd\r\n").unwrap();
        let err = read_source(&d).unwrap_err();
        assert_eq!(err.origin, whole(&dos), "the member is named");
        assert!(
            err.message.starts_with(
                "CRLF line endings (2 lines end in \\r, the first is line 1), refused"
            ),
            "{}",
            err.message
        );
        let bin = d.join("x.bin");
        std::fs::write(&bin, [b'-', b'D', b'\n', 0, 0]).unwrap();
        let err = read_source(&bin).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: binary data (a NUL byte at line 2), refused: not a rules file",
                bin.display()
            )
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn unreadable_inputs_say_why_as_the_system_does() {
        let err = read_source(Path::new("/nonexistent/x.rules")).unwrap_err();
        assert_eq!(err.message, "cannot read: No such file or directory");
    }

    #[test]
    fn version_sort() {
        let mut v = vec!["10-a.rules", "9-b.rules", "99-z.rules", "10-A.rules"];
        v.sort_by(|a, b| version_cmp(a.as_bytes(), b.as_bytes()));
        assert_eq!(
            v,
            vec!["9-b.rules", "10-A.rules", "10-a.rules", "99-z.rules"]
        );
    }

    #[test]
    fn empty_inputs_are_noted() {
        let d = temp("empty");
        let whole_warnings = |p: &Path| -> Vec<Warning> {
            read_source(p)
                .unwrap()
                .warnings
                .into_iter()
                .filter(|(o, _)| o.line == 0)
                .map(|(_, w)| w)
                .collect()
        };
        assert_eq!(
            whole_warnings(&d),
            vec![Warning::EmptyDirectory {
                files: 0,
                ignored: 0
            }]
        );
        std::fs::write(d.join("a.rules"), "# only a comment\n\n").unwrap();
        std::fs::write(d.join("README"), "").unwrap();
        assert_eq!(
            whole_warnings(&d),
            vec![
                Warning::EmptyFile,
                Warning::EmptyDirectory {
                    files: 1,
                    ignored: 1
                }
            ]
        );
        assert_eq!(whole_warnings(&d.join("a.rules")), vec![Warning::EmptyFile]);
        std::fs::write(d.join("b.rules"), "-D\n").unwrap();
        assert_eq!(whole_warnings(&d), vec![Warning::EmptyFile]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn world_writable_inputs_are_noted() {
        use std::os::unix::fs::PermissionsExt;
        let d = temp("mode");
        let f = d.join("a.rules");
        std::fs::write(&f, "-D\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o646)).unwrap();
        let src = read_source(&f).unwrap();
        assert_eq!(
            src.warnings,
            vec![(whole(&f), Warning::WorldWritable { mode: 0o100646 })]
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
