//! Reading the daemons' logs: the records of the test's actions,
//! normalized for comparison, a LOGIN event's records, ausearch.

use std::path::Path;
use std::process::Command;

/// The records of `pids` (and the CONFIG_CHANGE of the fa-behind key) in
/// log order, as "TYPE body" (the enriched part included) with the stamp dropped, pids replaced by the
/// action's label and session ids by "S".
pub fn records_of(log: &Path, pids: &[(String, &str)]) -> Vec<String> {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let mut out = Vec::new();
    // The stamp of the last record taken: records after it with the same
    // stamp (a PROCTITLE, which has no pid=) belong to the same event.
    let mut last_stamp = None;
    for l in text.lines() {
        let Some((head, body)) = l.split_once("): ") else {
            continue;
        };
        let ty = head
            .strip_prefix("type=")
            .and_then(|h| h.split(' ').next())
            .unwrap_or("");
        let stamp = head.split_once("msg=audit(").map(|x| x.1.to_string());
        let mine = pids
            .iter()
            .find(|(p, _)| body.split(' ').any(|w| w == format!("pid={p}")));
        let config = ty == "CONFIG_CHANGE" && body.contains("key=\"fa-behind\"");
        if mine.is_none() && !config && (stamp.is_none() || stamp != last_stamp) {
            continue;
        }
        last_stamp = stamp;
        let norm: Vec<String> = body
            .split(' ')
            .map(|w| match w.split_once('=') {
                Some(("pid", _)) => format!("pid={}", mine.map_or("?", |m| m.1)),
                Some(("ses" | "old-ses", v)) if v != "4294967295" => {
                    format!("{}=S", w.split('=').next().unwrap_or(""))
                }
                // A SYSCALL's buffer address and parent differ by run.
                Some((k @ ("a1" | "ppid"), _)) if ty == "SYSCALL" => format!("{k}=X"),
                _ => w.to_string(),
            })
            .collect();
        out.push(format!("{ty} {}", norm.join(" ")));
    }
    out
}

/// The types of the three records from the LOGIN of auid 1000 on, and
/// whether they share one stamp.
pub fn login_event(log: &Path) -> (Vec<String>, bool) {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let Some(i) = lines
        .iter()
        .position(|l| l.starts_with("type=LOGIN ") && l.contains(" auid=1000 "))
    else {
        return (Vec::new(), false);
    };
    let three = &lines[i..(i + 3).min(lines.len())];
    let stamp = |l: &str| {
        l.split_once("msg=audit(")
            .map(|x| x.1.split(')').next().map(str::to_string))
    };
    let types = three
        .iter()
        .map(|l| l.split(' ').next().unwrap_or("").to_string())
        .collect();
    (types, three.iter().all(|l| stamp(l) == stamp(three[0])))
}

/// `ausearch -if LOG ARGS...`: its output, which must not be empty.
pub fn ausearch(log: &Path, args: &[&str]) -> String {
    let out = Command::new("ausearch")
        .arg("-if")
        .arg(log)
        .args(args)
        .output()
        .expect("ausearch");
    assert!(
        out.status.success(),
        "ausearch {args:?} finds nothing in {}",
        log.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
