//! Skipping, saying so, a test whose oracle is the kernel's own audit when
//! that audit is locked.

use crate::kernel::kernel_audit_locked;

/// `crate_name::test_name` of the running test: libtest names each test's
/// thread after the test's path in its crate, and `krate` is the test
/// binary's `CARGO_CRATE_NAME` (see [`crate::skip_without_kernel_oracle!`]).
pub fn current_test(krate: &str) -> String {
    let thread = std::thread::current();
    let name = thread
        .name()
        .expect("called on a test's own thread (libtest names it after the test)");
    format!("{krate}::{name}")
}

/// Whether a test that needs the kernel's own audit as its oracle must be
/// skipped here, saying so: with `enabled 2` (sent once by mistake on a
/// development machine; only a reboot clears it) the kernel refuses every
/// rule change, so there is nothing to compare with. The skip is printed,
/// and appended to `$FASTAUDIT_SKIPPED_LOG` for scripts/test.sh's summary;
/// `FASTAUDIT_REQUIRE_ORACLE=1` turns it into a failure.
pub fn skip_without_kernel_oracle(test: &str) -> bool {
    if !kernel_audit_locked() {
        return false;
    }
    let why = "the kernel audit is locked (enabled 2) until reboot: no rule can be loaded into it to compare with";
    assert!(
        std::env::var_os("FASTAUDIT_REQUIRE_ORACLE").is_none(),
        "{test}: {why}"
    );
    crate::skipped::say_skipped(test, why);
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_running_test() {
        assert_eq!(
            super::current_test(env!("CARGO_CRATE_NAME")),
            "fastaudit_testsupport::oracle::tests::names_the_running_test"
        );
    }
}
