//! The tests' log readers on hostile input (bounded to seconds): any
//! bytes as a log and any text as fastaudit's stderr are read without a
//! panic, and what a reader finds in a log made of real lines is what was
//! written.

use fastaudit_testsupport as support;
use fastaudit_testsupport::daemon_log as records;
use proptest::prelude::*;
use support::logread::*;

/// A record line as fastaudit writes it, or bytes that damage one.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (any::<u32>(), 0u32..1000, any::<u32>(), "[ -~]{0,40}").prop_map(
            |(s, ms, serial, body)| {
                format!("type=SYSCALL msg=audit({s}.{ms:03}:{serial}): {body}").into_bytes()
            }
        ),
        proptest::collection::vec(any::<u8>(), 0..80),
        Just(b"type=PROCTITLE msg=audit(1.000:2".to_vec()),
        Just(b"node=x type=LOGIN msg=audit(1.000:2): pid=1 auid=1000 ses=3\x1dAUID=\"x\"".to_vec()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_log_is_read_without_a_panic(lines in proptest::collection::vec(line(), 0..20)) {
        let bytes = lines.join(&b"\n"[..]);
        let recs = records_in(&bytes);
        let _ = repeated_serials(&recs);
        for r in &recs {
            let _ = field(&r.body, "pid");
        }
        let dir = support::tempdir();
        let log = dir.join("log");
        std::fs::write(&log, &bytes).unwrap();
        let _ = records::records_of(&log, &[("1".into(), "x")]);
        let _ = records::login_event(&log);
        prop_assert_eq!(records(&log), recs);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn any_stderr_is_read_without_a_panic(said in proptest::collection::vec("[ -~]{0,120}", 0..5)) {
        let _ = final_counts(&said);
    }

    #[test]
    fn final_counts_read_what_run_prints(g in any::<u64>(), l in any::<u64>(), r in any::<u64>(), d in any::<u64>()) {
        let said = vec![
            "fastaudit: ready".to_string(),
            format!("fastaudit: stopped: {g} events generated, {l} logged, {r} lost in the ring buffer, {d} dropped by the log"),
        ];
        prop_assert_eq!(final_counts(&said), Some((g, l, r, d)));
    }

    #[test]
    fn records_written_are_read_back(serials in proptest::collection::vec(any::<u32>(), 1..30)) {
        let text: String = serials
            .iter()
            .map(|s| format!("type=SYSCALL msg=audit(1.000:{s}): a=1\n"))
            .collect();
        let recs = records_in(text.as_bytes());
        let got: Vec<u64> = recs.iter().map(|r| r.serial).collect();
        let want: Vec<u64> = serials.iter().map(|&s| u64::from(s)).collect();
        prop_assert_eq!(got, want);
        // The same stamp twice in a row is one event; apart, a repeat.
        let mut distinct = serials.clone();
        distinct.dedup();
        let mut seen = std::collections::HashSet::new();
        let repeats = distinct.iter().filter(|s| !seen.insert(**s)).count();
        prop_assert_eq!(repeated_serials(&recs).len(), repeats);
    }
}
