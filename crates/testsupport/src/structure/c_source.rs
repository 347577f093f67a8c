//! The functions of a BPF C source and their lines.
//!
//! Hand-written on purpose: the BPF sources are mostly macros a C grammar
//! cannot see through without the preprocessor (`SEC("...")` before a
//! definition, `int BPF_PROG(name, struct file *f)` as the declarator,
//! `static __always_inline` as specifiers), so a C parser such as
//! tree-sitter-c recovers from them with error nodes whose extent is
//! guesswork, and would add a C build to the tests. What a length needs is
//! less than a parse: blank comments, string and character literals and
//! preprocessor lines (continued lines too), then a `{` at file level whose
//! head ends in `)` opens a function, which its matching `}` closes. The
//! signature's first line is the first of the identifiers and `*`s before
//! the declarator's name, so a `SEC(...)` or a macro call before it is not
//! counted.

use super::fn_length::Span;

/// `src` with comments, literals and preprocessor lines blanked (each
/// character a space, newlines kept, so lines and columns stay).
pub(crate) fn blank(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let skip_to = if line_start && c == '#' {
            // A directive runs to the end of its line and every line a
            // backslash continues it onto (comments in it blank with it).
            let mut j = i;
            while j < chars.len() && chars[j] != '\n' {
                if chars[j] == '\\' && chars.get(j + 1) == Some(&'\n') {
                    j += 1;
                } else if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    j = block_comment_end(&chars, j);
                    continue;
                }
                j += 1;
            }
            Some(j)
        } else if c == '/' && next == Some('/') {
            let mut j = i;
            while j < chars.len() && chars[j] != '\n' {
                j += 1;
            }
            Some(j)
        } else if c == '/' && next == Some('*') {
            Some(block_comment_end(&chars, i))
        } else if c == '"' || c == '\'' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c && chars[j] != '\n' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            Some((j + 1).min(chars.len()))
        } else {
            None
        };
        match skip_to {
            Some(end) => {
                for &ch in &chars[i..end] {
                    out.push(if ch == '\n' { '\n' } else { ' ' });
                }
                line_start = chars[..end].last() == Some(&'\n');
                i = end;
            }
            None => {
                out.push(c);
                if c == '\n' {
                    line_start = true;
                } else if !c.is_whitespace() {
                    line_start = false;
                }
                i += 1;
            }
        }
    }
    out
}

/// The index just past the `*/` closing the comment opened at `i`.
fn block_comment_end(chars: &[char], i: usize) -> usize {
    let mut j = i + 2;
    while j + 1 < chars.len() && !(chars[j] == '*' && chars[j + 1] == '/') {
        j += 1;
    }
    (j + 2).min(chars.len())
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The functions defined in C source `src`, in order.
pub(crate) fn functions(src: &str) -> Result<Vec<Span>, String> {
    let text: Vec<char> = blank(src).chars().collect();
    let line_of = |at: usize| 1 + text[..at].iter().filter(|&&c| c == '\n').count();
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut open = 0;
    for (i, &c) in text.iter().enumerate() {
        match c {
            '{' => {
                if depth == 0 {
                    open = i;
                }
                depth += 1;
            }
            '}' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("{}: a `}}` closes nothing", line_of(i)))?;
                if depth == 0 {
                    if let Some((name, first)) = signature(&text, open) {
                        found.push(Span {
                            name,
                            first: line_of(first),
                            last: line_of(i),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("{}: a `{{` is never closed", line_of(open)));
    }
    Ok(found)
}

/// When the file-level `{` at `open` opens a function body: the function's
/// name and where its signature starts.
fn signature(text: &[char], open: usize) -> Option<(String, usize)> {
    let mut j = open;
    while j > 0 && text[j - 1].is_whitespace() {
        j -= 1;
    }
    if j == 0 || text[j - 1] != ')' {
        return None; // a struct, an enum or an initialiser
    }
    let close = j - 1;
    let paren = matching_open(text, close)?;
    let (name_start, name) = ident_before(text, paren)?;
    // BPF_PROG(name, ...), BPF_KPROBE(name, ...): the program's name.
    let name = if name
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        let inner: String = text[paren + 1..close].iter().collect();
        let first = inner.split(',').next().unwrap_or("").trim().to_string();
        format!("{name}({first})")
    } else {
        name
    };
    // Back over the specifiers: identifiers and `*`s.
    let mut first = name_start;
    let mut k = name_start;
    loop {
        while k > 0 && text[k - 1].is_whitespace() {
            k -= 1;
        }
        if k > 0 && text[k - 1] == '*' {
            k -= 1;
            first = k;
        } else if k > 0 && is_ident(text[k - 1]) {
            while k > 0 && is_ident(text[k - 1]) {
                k -= 1;
            }
            first = k;
        } else {
            break;
        }
    }
    Some((name, first))
}

/// The `(` matching the `)` at `close`.
fn matching_open(text: &[char], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for k in (0..=close).rev() {
        match text[k] {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The identifier just before `at` (spaces between allowed): its start and text.
fn ident_before(text: &[char], at: usize) -> Option<(usize, String)> {
    let mut end = at;
    while end > 0 && text[end - 1].is_whitespace() {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && is_ident(text[start - 1]) {
        start -= 1;
    }
    (start < end).then(|| (start, text[start..end].iter().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn measured(src: &str) -> Vec<(String, usize, usize)> {
        functions(src)
            .expect("the test source is balanced")
            .into_iter()
            .map(|s| (s.name, s.first, s.last))
            .collect()
    }

    #[test]
    fn braces_in_strings_comments_and_directives_do_not_count() {
        let src = "#define OPEN {\n\
                   static __always_inline int\n\
                   helper(const char *s)\n\
                   {\n\
                   \tchar c = '{';\n\
                   \tchar q = '\\'';\n\
                   \t/* } */ // }\n\
                   \tbpf_printk(\"}\\\" {\");\n\
                   \treturn 0;\n\
                   }\n";
        assert_eq!(measured(src), vec![("helper".into(), 2, 10)]);
    }

    #[test]
    fn bpf_programs_count_from_the_signature() {
        let src = "struct {\n\t__uint(type, 1);\n} map SEC(\".maps\");\n\
                   SEC(\"fentry/do_init_module\")\n\
                   int BPF_PROG(fa_module_init, struct module *mod)\n\
                   {\n\
                   \treturn 0;\n\
                   }\n\
                   static const int table[] = { 1, 2 };\n";
        assert_eq!(
            measured(src),
            vec![("BPF_PROG(fa_module_init)".into(), 5, 8)]
        );
    }

    #[test]
    fn continued_directives_are_blanked_whole() {
        let src = "#define F(x) \\\n\tint x(void) { \\\n\t\treturn 0; \\\n\t}\nF(a)\nint b(void) { return 1; }\n";
        assert_eq!(measured(src), vec![("b".into(), 6, 6)]);
    }

    #[test]
    fn an_unbalanced_source_is_an_error() {
        assert!(functions("int f(void) {\n").is_err());
        assert!(functions("}\n").is_err());
    }

    proptest! {
        /// Braces in comments and literals never change a function's lines,
        /// whatever text they carry.
        #[test]
        fn noise_in_the_body_is_ignored(
            lines in proptest::collection::vec("[a-z{}();'\" ]{0,12}", 0..40),
            before in 0usize..5,
        ) {
            let mut src = "\n".repeat(before);
            src.push_str("static int\nf(int a)\n{\n");
            for l in &lines {
                // Each line's noise inside a comment or a string.
                let cleaned: String = l.chars().filter(|&c| c != '"' && c != '\'').collect();
                src.push_str(&format!("\t/* {} */ s = \"{}\";\n", cleaned.replace("*/", ""), cleaned));
            }
            src.push_str("}\n");
            let m = measured(&src);
            prop_assert_eq!(m, vec![("f".to_string(), before + 1, before + 4 + lines.len())]);
        }
    }
}
