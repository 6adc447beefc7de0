//! `gate check --format human|json|github|markdown|sarif` and `--max-findings`
//! (docs/ci.md#report-formats): the renderings CI shows, built from the
//! same report as the JSON document.

use std::process::Output;

use crate::golden::{assert_golden, redact, transcript};
use crate::provenance::{assert_exit, json, refused_range, task_repo};
use crate::support::TestRepo;

fn check(repo: &TestRepo, range: &str, extra: &[&str]) -> Output {
    let mut args = vec!["check", "--range", range];
    args.extend_from_slice(extra);
    repo.gate().args(&args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The annotations on stdout, and the job summary appended after what an
/// earlier step wrote to `$GITHUB_STEP_SUMMARY`.
#[test]
fn github_annotates_the_paths_and_appends_the_job_summary() {
    let (repo, range) = refused_range();
    let summary = repo.path().join("../step-summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let out = repo
        .gate()
        .args(["check", "--range", &range, "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_exit(&out, 1);
    assert_golden("report/range-github.txt", &transcript(Some(&repo), &out));
    let written = std::fs::read_to_string(&summary).unwrap();
    let appended = written
        .strip_prefix("earlier step\n")
        .expect("the summary is appended after what was there");
    assert_golden("report/range-summary.md", &redact(Some(&repo), appended));
    // --format markdown prints the same summary.
    let out = check(&repo, &range, &["--format", "markdown"]);
    assert_exit(&out, 1);
    assert_eq!(stdout(&out), appended);
    // Without the variable, annotations only.
    let out = check(&repo, &range, &["--format", "github"]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    let readme = "::error file=README.md,title=gate provenance%3A path_outside_scope::README.md";
    assert!(text.lines().any(|l| l.starts_with(readme)), "{text}");
    assert!(text.ends_with("gate: check refused (exit 1)\n"), "{text}");
}

/// A job summary that cannot be written is an error that says where, not
/// a summary lost in silence.
#[test]
fn an_unwritable_job_summary_is_an_error() {
    let (repo, range) = refused_range();
    let out = repo
        .gate()
        .args(["check", "--range", &range, "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", repo.path())
        .output()
        .unwrap();
    assert_exit(&out, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot append the job summary"), "{err}");
    assert!(err.contains("hint: point GITHUB_STEP_SUMMARY"), "{err}");
}

/// GitHub shows 10 annotations of each level in a step and drops the rest
/// unseen: past 10 errors, a finding is counted on a `gate:` line and
/// listed in the job summary instead.
#[test]
fn github_annotates_ten_of_a_level_and_counts_the_rest() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    for i in 0..13 {
        repo.write(&format!("docs/out{i:02}.md"), "x\n");
    }
    repo.commit_all("thirteen paths outside the scope\n\nTask: T-1");
    let summary = repo.scratch("summary.md");
    let out = repo
        .gate()
        .args([
            "check",
            "--range",
            &format!("{base}..HEAD"),
            "--format",
            "github",
        ])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("::error ")).count(),
        10,
        "{text}"
    );
    assert!(
        text.contains(
            "gate: 3 more not annotated (GitHub shows 10 annotations of each level in a step): \
             3 errors; the job summary lists them"
        ),
        "{text}"
    );
    let listed = std::fs::read_to_string(&summary).unwrap();
    for i in 0..13 {
        assert!(
            listed.contains(&format!("docs/out{i:02}.md")),
            "{i}: {listed}"
        );
    }
}

/// `%`, `:` and `,` in a path are escaped in the annotation's `file`
/// property, as GitHub's toolkit escapes them.
#[test]
fn annotation_properties_are_escaped() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("docs/a,b:c%d.md", "x\n");
    repo.commit_all("odd name\n\nTask: T-1");
    let out = check(&repo, &format!("{base}..HEAD"), &["--format", "github"]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(
        text.starts_with("::error file=docs/a%2Cb%3Ac%25d.md,title="),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("::")).count(), 1);
}

/// Text from the repository — a `Task:` trailer, a path — reaches the
/// annotations with its control characters written out as the human report
/// writes them, and a path that is not UTF-8 git-quoted from its bytes:
/// nothing raw reaches the log (docs/ci.md#report-formats).
#[test]
fn annotations_write_out_control_characters_from_the_repository() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("docs/\u{1b}[31mred.md", "x\n");
    repo.write_at(b"docs/bad\xff.md", "x\n");
    repo.commit_all("odd names\n\nTask: T-1");
    repo.write("src/b.rs", "b\n");
    repo.commit_all("a trailer\n\nTask: T-\u{1b}]0;owned\u{7}\u{1b}[2J\u{8}\u{9b}1");
    let out = check(&repo, &format!("{base}..HEAD"), &["--format", "github"]);
    assert_exit(&out, 1);
    let text = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8: no raw path bytes");
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c))
        .collect();
    assert!(raw.is_empty(), "stdout holds {raw:?}\n{text}");
    assert!(
        text.contains("\\x1b]0;owned\\x07\\x1b[2J\\x08\\u{009b}1"),
        "{text}"
    );
    let files: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("::error file="))
        .filter_map(|l| l.split(",title=").next())
        .collect();
    assert!(files.contains(&"\"docs/\\033[31mred.md\""), "{files:?}");
    assert!(files.contains(&"\"docs/bad\\377.md\""), "{files:?}");
}

/// `--max-findings` lists at most N and counts them all by cause and by
/// commit, in human, github and markdown; the exit code is the same; JSON
/// keeps every finding.
#[test]
fn max_findings_caps_the_listings_not_the_json() {
    let (repo, range) = refused_range();
    let out = check(&repo, &range, &["--max-findings", "2"]);
    assert_exit(&out, 1);
    assert_golden(
        "report/range-max-findings.txt",
        &transcript(Some(&repo), &out),
    );
    let out = check(
        &repo,
        &range,
        &["--format", "github", "--max-findings", "2"],
    );
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert_eq!(text.lines().filter(|l| l.starts_with("::")).count(), 2);
    assert!(text.contains("gate: 2 of 5 findings annotated"), "{text}");
    let out = check(
        &repo,
        &range,
        &["--format", "markdown", "--max-findings", "2"],
    );
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(text.contains("### Findings (the first 2 of 5: --max-findings)"));
    assert_eq!(text.lines().filter(|l| l.starts_with("- ")).count(), 2);
    assert!(
        text.contains("| provenance | `path_outside_scope` | 4 |"),
        "{text}"
    );
    let out = check(&repo, &range, &["--json", "--max-findings", "2"]);
    assert_exit(&out, 1);
    let doc = json(&out);
    assert_eq!(doc["checks"][0]["findings"].as_array().unwrap().len(), 5);
    let out = check(&repo, &range, &["--max-findings", "5"]);
    assert!(!stdout(&out).contains("--max-findings"));
}

/// `--json` is `--format json`: one document, the same bytes; both at
/// once is a usage error, still answered with a `gate.error/1`.
#[test]
fn json_is_format_json() {
    let (repo, range) = refused_range();
    let a = check(&repo, &range, &["--json"]);
    let b = check(&repo, &range, &["--format", "json"]);
    assert_exit(&b, 1);
    assert_eq!(stdout(&a), stdout(&b));
    let out = check(&repo, &range, &["--json", "--format", "markdown"]);
    assert_exit(&out, 2);
    assert_eq!(json(&out)["schema"], "gate.error/1");
    let out = check(&repo, &range, &["--format", "json", "--bogus"]);
    assert_exit(&out, 2);
    assert_eq!(json(&out)["schema"], "gate.error/1");
    let out = check(&repo, &range, &["--format=json", "--bogus"]);
    assert_eq!(json(&out)["schema"], "gate.error/1");
}

/// The SARIF 2.1.0 schema (tests/fixtures/sarif/README.md says whence).
fn sarif_validator() -> jsonschema::Validator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

fn sarif_errors(validator: &jsonschema::Validator, log: &serde_json::Value) -> Vec<String> {
    validator
        .iter_errors(log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Microsoft's SARIF multitool, as npm installs it: the program its
/// `sarif-multitool` wrapper runs (the wrapper hands its arguments to a
/// shell, where `Gh;Sarif` would be two commands).
fn sarif_multitool() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let wrapper = std::env::split_paths(&path)
        .map(|d| d.join("sarif-multitool"))
        .find(|p| p.is_file())?;
    let package = std::fs::canonicalize(wrapper).ok()?.parent()?.to_path_buf();
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg("process.stdout.write(require(process.argv[1]))")
        .arg(&package)
        .output()
        .ok()?;
    let program = std::path::PathBuf::from(String::from_utf8(out.stdout).ok()?);
    program.is_file().then_some(program)
}

/// The SARIF multitool's own validation, with the SARIF rules and GitHub
/// code scanning's ingestion rules (`--rule-kind "Gh;Sarif"`), finds no
/// error in `--format sarif`; what it says is shown when it does.
#[test]
fn the_sarif_multitool_finds_no_error_with_githubs_rules() {
    let test = crate::this_test!();
    let Some(multitool) = sarif_multitool() else {
        crate::support::skip(
            test,
            "sarif-multitool is not on PATH; npm install -g @microsoft/sarif-multitool (see .ci/run)",
            None,
        );
        return;
    };
    let (repo, range) = refused_range();
    let out = check(&repo, &range, &["--format", "sarif"]);
    assert_exit(&out, 1);
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("gate.sarif");
    std::fs::write(&log, &out.stdout).unwrap();
    let report = scratch.path().join("validation.sarif");
    let ran = std::process::Command::new(&multitool)
        .args(["validate", "--rule-kind", "Gh;Sarif", "--output"])
        .arg(&report)
        .arg(&log)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&ran.stdout).to_string();
    assert!(ran.status.success(), "{said}");
    let validation: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let results = validation["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let errors: Vec<&serde_json::Value> =
        results.iter().filter(|r| r["level"] == "error").collect();
    assert!(errors.is_empty(), "{said}");
    // It does judge: a result without a location is an error there.
    let mut broken: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("locations");
    std::fs::write(&log, serde_json::to_vec(&broken).unwrap()).unwrap();
    let _ = std::fs::remove_file(&report);
    let ran = std::process::Command::new(&multitool)
        .args(["validate", "--rule-kind", "Gh;Sarif", "--output"])
        .arg(&report)
        .arg(&log)
        .output()
        .unwrap();
    let validation: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let errors = validation["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r["level"] == "error")
        .count();
    assert!(errors > 0, "{}", String::from_utf8_lossy(&ran.stdout));
}

/// `--format sarif` validates against the SARIF 2.1.0 schema and holds one
/// result per finding of the JSON report, with its cause, level, path
/// (the exact bytes of a path that is not UTF-8) and commit.
#[test]
fn sarif_validates_and_holds_every_finding() {
    let (repo, range) = refused_range();
    let out = check(&repo, &range, &["--format", "sarif", "--max-findings", "1"]);
    assert_exit(&out, 1);
    assert_golden("report/range.sarif", &transcript(Some(&repo), &out));
    let log = json(&out);
    let validator = sarif_validator();
    let errors = sarif_errors(&validator, &log);
    assert!(errors.is_empty(), "not SARIF 2.1.0: {errors:#?}");
    // The validator refuses what is not SARIF.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    broken.as_object_mut().unwrap().remove("version");
    assert_eq!(sarif_errors(&validator, &broken).len(), 2);

    let report = json(&check(&repo, &range, &["--json"]));
    let findings = report["checks"][0]["findings"].as_array().unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    for (r, f) in results.iter().zip(findings) {
        assert_eq!(r["ruleId"], f["cause"]);
        assert_eq!(r["level"], "error");
        assert_eq!(r["properties"]["commit"], f["commit"]);
        let rule =
            &log["runs"][0]["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], f["cause"]);
    }
    let uris: Vec<&str> = results
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str())
        .collect();
    assert_eq!(
        uris,
        // The first finding is about no path: it is placed on its task.
        [
            ".gate/tasks/T-1.md",
            "data/bad%FFname.txt",
            "docs/x.md",
            "notes.md",
            "README.md"
        ]
    );
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    // What GitHub code scanning asks beyond the schema: a location on
    // every result, fingerprints that keep findings apart, rules that say
    // what the cause means and what decides it.
    let mut prints = std::collections::BTreeSet::new();
    for r in results {
        assert!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string(),
            "{r}"
        );
        let print = r["partialFingerprints"]["gateFinding/v1"].as_str().unwrap();
        assert_eq!(print.len(), 32, "{r}");
        assert!(
            prints.insert(print.to_owned()),
            "two findings, one fingerprint: {r}"
        );
    }
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
    {
        for key in ["fullDescription", "help"] {
            let text = rule[key]["text"].as_str().unwrap_or_default();
            assert!(!text.is_empty() && !text.contains("]("), "{key}: {rule}");
            assert!(rule[key]["markdown"].is_string(), "{key}: {rule}");
        }
        assert!(
            rule["helpUri"]
                .as_str()
                .is_some_and(|u| u.starts_with("https://") && u.ends_with("docs/causes.md")),
            "{rule}"
        );
    }
    // The same range judged again: the same fingerprints.
    let again = json(&check(&repo, &range, &["--format", "sarif"]));
    let again: std::collections::BTreeSet<String> = again["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["gateFinding/v1"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(again, prints);
}
