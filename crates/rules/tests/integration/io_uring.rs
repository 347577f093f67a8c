//! The io_uring list: auditctl 3.0.9 does not know it, so these follow the
//! kernel's AUDIT_FILTER_URING_EXIT semantics and auditctl 4's listing.

use fastaudit_rules::{lexer, FixedHost, Origin, RuleSet};

fn load(text: &str) -> Result<String, Vec<String>> {
    let mut set = RuleSet::default();
    let mut errs = Vec::new();
    for l in lexer::lines(text.as_bytes()) {
        if let Err(e) = set.apply_words(
            &l.words,
            &Origin {
                file: "t".into(),
                line: l.lineno,
            },
            &FixedHost,
        ) {
            errs.push(e.to_string());
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut out = Vec::new();
    set.write_listing(&mut out, &FixedHost).expect("listing");
    Ok(String::from_utf8(out).expect("utf8"))
}

#[test]
fn operations_by_name_number_and_all() {
    assert_eq!(
        load("-a always,io_uring -U openat,connect -U 28 -F uid=0 -k ring").unwrap(),
        "-a always,io_uring -S connect,openat,openat2 -F uid=0 -F key=ring\n"
    );
    assert_eq!(
        load("-a never,io_uring -S all").unwrap(),
        "-a never,io_uring -S all\n"
    );
    assert_eq!(
        load("-a always,io_uring -U OPENAT -F success=0 -F exit=-EACCES").unwrap(),
        "-a always,io_uring -S openat -F success=0 -F exit=-EACCES\n"
    );
}

#[test]
fn io_uring_rules_list_after_exit_rules() {
    let l = load("-a always,io_uring -U nop\n-a always,exit -F arch=b64 -S open\n").unwrap();
    assert_eq!(
        l,
        "-a always,exit -F arch=b64 -S open\n-a always,io_uring -S nop\n"
    );
}

#[test]
fn refusals() {
    for bad in [
        "-a always,io_uring -U nosuchop",
        "-a always,io_uring -U openat -F perm=r",
        "-a always,io_uring -U openat -F path=/etc/passwd",
        "-a always,exit -U openat",
        "-U openat",
    ] {
        let e = load(bad).expect_err(bad);
        assert!(e[0].starts_with("t:1: "), "{e:?}");
    }
}
