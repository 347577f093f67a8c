//! The README's commands and code blocks still do what it says, read from
//! README.md itself (parsed as Markdown), not copied here: so a README that
//! drifts from the binary fails this test.
//!
//! - the jq example, run as written against a JSON log this binary writes,
//!   prints the event it is about;
//! - every `fastaudit rules check` example in README.md and docs/*.md that
//!   names a real path loads that path (exit 0, nothing on stdout);
//! - the README's two commands are what `.ci/run` runs: the first's setup
//!   script exists and builds `./target/release/fastaudit`, whose `run`
//!   takes the rules file it names; the second is `bash scripts/test.sh`.

use fastaudit_testsupport as support;
use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The text of every code block (indented or fenced) of a Markdown file.
fn code_blocks(markdown: &str) -> Vec<String> {
    let (mut blocks, mut current) = (Vec::new(), None::<String>);
    for ev in Parser::new(markdown) {
        match ev {
            Event::Start(Tag::CodeBlock(_)) => current = Some(String::new()),
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    blocks
}

/// Every line of every code block, with a trailing `# comment` cut off.
fn code_lines(markdown: &str) -> Vec<String> {
    code_blocks(markdown)
        .iter()
        .flat_map(|b| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .map(|l| match l.find(" #") {
            Some(i) if !l.starts_with("jq ") => l[..i].trim().to_owned(),
            _ => l.trim().to_owned(),
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// The docs a reader is sent to: README.md and docs/*.md.
fn doc_files() -> Vec<String> {
    let mut files = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.ends_with(".md").then(|| format!("docs/{name}"))
        })
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn readme_jq_example_prints_the_event_from_a_real_json_log() {
    let readme = read("README.md");
    let jq_lines: Vec<String> = code_lines(&readme)
        .into_iter()
        .filter(|l| l.starts_with("jq "))
        .collect();
    assert_eq!(
        jq_lines.len(),
        1,
        "one jq example in README.md: {jq_lines:?}"
    );
    let example = &jq_lines[0];
    // `jq OPTIONS 'FILTER' LOGFILE`: the log it names is replaced by the
    // one this test writes; everything else runs as written.
    let (command, named_log) = example.rsplit_once(' ').expect("jq ... FILE");
    assert!(
        named_log.ends_with("audit.log"),
        "the example reads a log file: {example}"
    );

    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    let target = dir.join("file");
    std::fs::write(&target, "").unwrap();
    std::fs::write(
        &rules,
        format!(
            "-a always,exit -F arch=b64 -S fchmodat -F path={} -k readme-jq\n",
            target.display()
        ),
    )
    .unwrap();
    let log = dir.join("audit.log");
    let run = FastauditRun::start(FASTAUDIT, &rules, &log, &["--bpf-only", "--format", "json"]);
    let chmod = Command::new("chmod")
        .arg("600")
        .arg(&target)
        .status()
        .unwrap();
    assert!(chmod.success());
    wait_until(20, "the chmod in the JSON log", || {
        file_holds(&log, "readme-jq")
    });
    run.stop();

    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("{command} \"$1\""))
        .arg("bash")
        .arg(&log)
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    assert!(
        out.status.success(),
        "README's jq example failed (jq is installed by scripts/setup.sh --tests): {example}\n{out:?}"
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = printed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // The example is about syscall events: the chmod's must be printed,
    // with the syscall's name, the executable and the rule's key.
    let chmod_event = lines
        .iter()
        .find(|v| v.to_string().contains("readme-jq"))
        .unwrap_or_else(|| {
            panic!(
                "README's jq example printed no line for the chmod event: {example}\nprinted: {printed}\nlog: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            )
        });
    let text = chmod_event.to_string();
    assert!(
        text.contains("\"fchmodat\"") && text.contains("chmod\""),
        "the syscall's name and exe in {text}"
    );
}

#[test]
fn rules_check_examples_load_the_files_they_name() {
    let mut ran = 0;
    for file in doc_files() {
        for line in code_lines(&read(&file)) {
            let Some(args) = line.strip_prefix("fastaudit rules check ") else {
                continue;
            };
            let args: Vec<&str> = args.split_whitespace().collect();
            // `PATH...` and the like are placeholders, not examples.
            if args
                .iter()
                .any(|a| !a.starts_with('-') && !a.starts_with('/') && !a.contains('/'))
            {
                continue;
            }
            for a in args.iter().filter(|a| !a.starts_with('-')) {
                assert!(
                    Path::new(a).exists() || repo().join(a).exists(),
                    "{file}: `{line}` names {a}, which does not exist here (scripts/setup.sh installs auditd)"
                );
            }
            let out = Command::new(FASTAUDIT)
                .args(["rules", "check"])
                .args(&args)
                .current_dir(repo())
                .output()
                .unwrap();
            assert!(
                out.status.success() && out.stdout.is_empty(),
                "{file}: `{line}` should print nothing and exit 0 on the files it names: {out:?}"
            );
            ran += 1;
        }
    }
    assert!(ran >= 2, "the README's rules check examples were found");
}

#[test]
fn readme_commands_are_what_ci_runs() {
    let readme = read("README.md");
    let blocks = code_blocks(&readme);
    let first = blocks
        .iter()
        .find(|b| b.contains("scripts/setup.sh") && b.contains("fastaudit run"))
        .expect("the README's first command: setup, then run");
    let first = first.trim();
    let (setup, run) = first.split_once(" && ").expect("SETUP && RUN");
    assert_eq!(setup, "bash scripts/setup.sh", "{first}");
    assert!(repo().join("scripts/setup.sh").is_file());
    // setup.sh builds the binary the command then starts.
    let setup_text = read("scripts/setup.sh");
    assert!(
        setup_text
            .lines()
            .any(|l| l.trim_start().starts_with("cargo build --release")),
        "scripts/setup.sh builds target/release"
    );
    let run_words: Vec<&str> = run.split_whitespace().collect();
    assert_eq!(
        &run_words[..2],
        ["./target/release/fastaudit", "run"],
        "{run}"
    );
    // The options it gives are ones `run` takes, and the rules file loads.
    let help = fastaudit(FASTAUDIT, &["run", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for w in run_words[2..].iter().filter(|w| w.starts_with("--")) {
        assert!(help.contains(*w), "`run` takes {w}: {help}");
    }
    if let Some(i) = run_words.iter().position(|w| *w == "--rules") {
        let rules = run_words[i + 1];
        let out = Command::new(FASTAUDIT)
            .args(["rules", "check", rules])
            .current_dir(repo())
            .output()
            .unwrap();
        assert!(out.status.success(), "{rules} loads: {out:?}");
    }

    let second = blocks
        .iter()
        .map(|b| b.trim())
        .find(|b| b.contains("scripts/test.sh"))
        .expect("the README's test command");
    assert_eq!(second, "bash scripts/test.sh");

    // .ci/run calls exactly those, in that order.
    let ci = read(".ci/run");
    let steps: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let at = |cmd: &str| {
        steps
            .iter()
            .position(|s| *s == cmd)
            .unwrap_or_else(|| panic!(".ci/run runs `{cmd}`: {steps:?}"))
    };
    assert!(at(setup) < at(second), ".ci/run: setup, then the tests");
}
