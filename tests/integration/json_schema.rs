//! The JSON documents decode into `deny_unknown_fields` structs: a field
//! cannot be added, renamed or dropped without this test (and docs/json.md)
//! changing with it.

use serde::Deserialize;

use crate::fixture::{self, plan_repo, show};

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    schema: String,
    verb: String,
    outcome: String,
    exit_code: i32,
    blocks: bool,
    policy: Policy,
    task: Option<Task>,
    checks: Vec<Check>,
    skipped: Vec<Skipped>,
    notes: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Policy {
    source: String,
    file: Option<String>,
    revision: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Task {
    id: String,
    issue: Option<String>,
    intent: Option<String>,
    exemption: Option<String>,
    brief: Option<Brief>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Brief {
    head: Vec<String>,
    more: bool,
    addenda: usize,
    latest: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Check {
    check: String,
    mode: String,
    outcome: String,
    blocks: bool,
    summary: String,
    findings: Vec<Finding>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Finding {
    check: String,
    cause: String,
    severity: String,
    unknown: bool,
    message: String,
    decide: String,
    commit: Option<String>,
    path: Option<String>,
    path_hex: Option<String>,
    change: Option<String>,
    task: Option<String>,
    check_id: Option<String>,
    #[serde(rename = "ref")]
    ref_name: Option<String>,
    file: Option<String>,
    line: Option<usize>,
    key: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Skipped {
    check: String,
    reason: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskList {
    schema: String,
    active: Option<String>,
    tasks: Vec<TaskEntry>,
    errors: Vec<TaskListError>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskEntry {
    id: String,
    status: String,
    active: bool,
    issue: Option<String>,
    intent: Option<String>,
    exemption: Option<String>,
    created_at: String,
    operator: String,
    baseline: String,
    file: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskListError {
    message: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorDoc {
    schema: String,
    exit_code: i32,
    message: String,
    hint: Option<String>,
}

fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(bytes)))
}

#[test]
fn reports_decode_strictly() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.write("README.md", "# changed\n");
    repo.git(&["add", "-A"]);
    for args in [
        &["check", "--staged", "--json"][..],
        &["check", "--json"],
        &["plan", "validate", "--json"],
    ] {
        let out = repo.gate().args(args).output().unwrap();
        let doc: Report = decode(&out.stdout);
        assert_eq!(doc.schema, "gate.report/1", "{args:?}");
        assert_eq!(
            Some(doc.exit_code),
            out.status.code(),
            "{args:?}\n{}",
            show(&out)
        );
    }
    repo.commit_all("work");
    let out = repo
        .gate()
        .args(["check", "--range", "HEAD~1..HEAD", "--json"])
        .output()
        .unwrap();
    let doc: Report = decode(&out.stdout);
    assert!(
        doc.checks.iter().any(|c| c.check == "provenance"),
        "{}",
        show(&out)
    );
}

#[test]
fn task_lists_and_errors_decode_strictly() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let out = repo
        .gate()
        .args(["task", "list", "--json"])
        .output()
        .unwrap();
    let doc: TaskList = decode(&out.stdout);
    assert_eq!(doc.schema, "gate.tasks/1");
    assert_eq!(doc.active.as_deref(), Some("T-42"));
    let out = repo
        .gate()
        .args(["check", "--range", "nope..HEAD", "--json"])
        .output()
        .unwrap();
    let doc: Report = decode(&out.stdout);
    assert_eq!(doc.outcome, "unknown");
    let bare = crate::support::TestRepo::bare();
    let out = bare.gate().args(["check", "--json"]).output().unwrap();
    let doc: ErrorDoc = decode(&out.stdout);
    assert_eq!(doc.schema, "gate.error/1");
    assert_eq!(Some(doc.exit_code), out.status.code());
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusDoc {
    schema: String,
    outcome: String,
    exit_code: i32,
    task: Option<Task>,
    worktree: String,
    checks: Vec<StatusCheck>,
    criteria: Vec<StatusCriterion>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusCheck {
    check: String,
    state: String,
    why: Option<String>,
    reason: Option<String>,
    path: Option<String>,
    evidence: Option<String>,
    exit_code: Option<i32>,
    started_at: Option<String>,
    ended_at: Option<String>,
    log: Option<String>,
    unreadable_receipts: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusCriterion {
    intent: String,
    criterion: String,
    text: String,
    evidence: Vec<String>,
    state: String,
}

/// `gate.note/1`: the note on a commit under `refs/notes/gate`.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteDoc {
    schema: String,
    checks: Vec<NoteEntry>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteEntry {
    check: String,
    evidence: String,
    contract: String,
    fingerprint: String,
    exit_code: Option<i32>,
    signal: Option<i32>,
    passed: bool,
    started_at: String,
    ended_at: String,
    started_ns: u128,
    task: Option<String>,
    gate_version: String,
    log_digest: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReceiptDoc {
    schema: String,
    evidence: String,
    check: String,
    contract: String,
    command: String,
    fingerprint_before: PrintDoc,
    fingerprint_after: PrintDoc,
    exit_code: Option<i32>,
    signal: Option<i32>,
    started_at: String,
    ended_at: String,
    started_ns: u128,
    head: Option<String>,
    worktree: String,
    task: Option<String>,
    task_created_at: Option<String>,
    log: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrintDoc {
    digest: Option<String>,
    entries: Option<u64>,
    bytes: Option<u64>,
    unavailable: Option<String>,
    path: Option<String>,
}

#[test]
fn status_documents_and_receipts_decode_strictly() {
    let repo = plan_repo("off");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nreceipts:\n  mode: required\n",
    );
    // Without a task: every acceptance check, receipts made without a task.
    let status = |repo: &crate::support::TestRepo| {
        let out = repo.gate().args(["status", "--json"]).output().unwrap();
        let doc: StatusDoc = decode(&out.stdout);
        assert_eq!(doc.schema, "gate.status/1");
        assert_eq!(Some(doc.exit_code), out.status.code(), "{}", show(&out));
        doc
    };
    let doc = status(&repo);
    assert!(doc.task.is_none());
    assert_eq!(doc.checks[0].state, "missing");
    fixture::start_42(&repo);
    let mut states = vec![status(&repo).checks[0].state.clone()];
    let out = repo
        .gate()
        .args(["verify", "export-tests"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = status(&repo);
    assert_eq!(doc.criteria.len(), 1);
    assert!(doc.checks[0].evidence.is_some() && doc.checks[0].log.is_some());
    states.push(doc.checks[0].state.clone());
    repo.write("src/lib.rs", "pub fn f() { changed() }\n");
    states.push(status(&repo).checks[0].state.clone());
    repo.symlink(b"src/link.rs", b"lib.rs");
    let doc = status(&repo);
    assert_eq!(doc.checks[0].reason.as_deref(), Some("symlink"));
    states.push(doc.checks[0].state.clone());
    assert_eq!(states, ["missing", "passed", "stale", "unknown"]);

    let dir = repo.path().join(".git/gate/receipts/export-tests");
    for entry in std::fs::read_dir(dir).unwrap() {
        let doc: ReceiptDoc = decode(&std::fs::read(entry.unwrap().path()).unwrap());
        assert_eq!(doc.schema, "gate.receipt/1");
    }
    let note = repo.git(&["notes", "--ref", "gate", "show", "HEAD"]);
    let doc: NoteDoc = decode(note.as_bytes());
    assert_eq!(doc.schema, "gate.note/1");
    assert_eq!(doc.checks.len(), 1);
}

// ---------------------------------------------------------------------------
// The binding's documents: gate.binding/1, gate.handover/1, gate.resolve/1.

mod binding_documents {
    use serde::Deserialize;

    use super::decode;
    use crate::fixture::{self, plan_repo, show};

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Binding {
        schema: String,
        standing: String,
        exit_code: i32,
        named: Named,
        issues: Vec<String>,
        intents: Vec<String>,
        notes: Vec<String>,
        refusals: Vec<Refusal>,
        pins: Pins,
        criteria: Vec<Criterion>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Named {
        issue: Option<String>,
        intent: Option<String>,
        paths: Vec<String>,
        exemption: Option<NamedExemption>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NamedExemption {
        class: String,
        because: Option<String>,
        description: Option<String>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Refusal {
        issue: Option<String>,
        cause: String,
        message: String,
        decide: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Pins {
        plan_pin: String,
        plan_revision: String,
        evidence_standing: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Criterion {
        intent: String,
        criterion: String,
        state: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Handover {
        schema: String,
        task: String,
        head: Option<String>,
        issue: Option<String>,
        intent: Option<String>,
        exemption: Option<Exemption>,
        pins: Pins,
        brief: Option<String>,
        addenda: String,
        commit: Option<Commit>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Commit {
        path: String,
        command: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Change {
        schema: String,
        task: String,
        change: String,
        status: String,
        commit: Commit,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Exemption {
        class: String,
        because: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Resolve {
        schema: String,
        task: String,
        answer: String,
        exit_code: i32,
        intents: Vec<String>,
        standing: Option<String>,
        message: String,
        recorded: Pins,
        current: Option<Pins>,
    }

    #[test]
    fn binding_documents_decode_strictly() {
        let repo = plan_repo("advisory");
        for args in [
            &["binding", "--issue", "42", "--json"][..],
            &["binding", "--path", "docs/guide.md", "--json"],
            &["binding", "--json"],
            &[
                "binding",
                "--exempt",
                "dependency-bump",
                "--because",
                "bump",
                "--json",
            ],
        ] {
            let out = repo.gate().args(args).output().unwrap();
            let doc: Binding = decode(&out.stdout);
            assert_eq!(doc.schema, "gate.binding/1", "{args:?}");
            assert_eq!(Some(doc.exit_code), out.status.code(), "{}", show(&out));
        }
        fixture::start_42(&repo);
        let out = repo.gate().args(["handover", "--json"]).output().unwrap();
        let doc: Handover = decode(&out.stdout);
        assert_eq!(doc.schema, "gate.handover/1");
        assert!(doc.commit.is_some(), "the task file is not committed");
        let out = repo
            .gate()
            .args(["handover", "--resolve", "--json"])
            .output()
            .unwrap();
        let doc: Resolve = decode(&out.stdout);
        assert_eq!(doc.schema, "gate.resolve/1");
        assert_eq!(doc.answer, "unchanged");
        assert_eq!(Some(doc.exit_code), out.status.code());
        repo.write(".gate/plan.yaml", "intents: [\n");
        let out = repo
            .gate()
            .args(["handover", "--resolve", "--json"])
            .output()
            .unwrap();
        let doc: Resolve = decode(&out.stdout);
        assert_eq!(doc.answer, "unknown");
        assert!(doc.current.is_none());
        // Under --json, what cannot be answered is a gate.error/1 document.
        for args in [
            &["binding", "--issue", "42", "--json"][..],
            &["handover", "--json"],
            &["handover", "--task", "T-404", "--resolve", "--json"],
        ] {
            let out = repo.gate().args(args).output().unwrap();
            let doc: super::ErrorDoc = decode(&out.stdout);
            assert_eq!(doc.schema, "gate.error/1", "{args:?}");
            assert_eq!(Some(doc.exit_code), out.status.code(), "{}", show(&out));
        }
        repo.write(".gate/plan.yaml", crate::fixture::PLAN);
        for args in [
            &["task", "note", "--text", "n", "--json"][..],
            &["task", "finish", "--json"],
        ] {
            let out = repo.gate().args(args).output().unwrap();
            let doc: Change = decode(&out.stdout);
            assert_eq!(doc.schema, "gate.task-change/1", "{args:?}");
        }
    }
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MayTouch {
    schema: String,
    outcome: String,
    exit_code: i32,
    task: Option<Task>,
    paths: Vec<TouchDoc>,
    notes: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TouchDoc {
    path: String,
    given: String,
    verdict: String,
    pattern: Option<String>,
    issues: Vec<IssueCoverDoc>,
    reason: String,
    decide: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IssueCoverDoc {
    issue: String,
    intent: Option<String>,
}

#[test]
fn may_touch_documents_decode_strictly() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let out = repo
        .gate()
        .args(["may-touch", "src/export/mod.rs", "docs/guide.md", "--json"])
        .output()
        .unwrap();
    let doc: MayTouch = decode(&out.stdout);
    assert_eq!(doc.schema, "gate.may-touch/1");
    assert_eq!(Some(doc.exit_code), out.status.code(), "{}", show(&out));
    assert_eq!(doc.paths[1].issues[0].issue, "7");
}

// ---------------------------------------------------------------------------
// gate.start/1 and gate.verify/1: the documents `gate mcp`'s start and verify
// tools return.

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartDoc {
    schema: String,
    task: Task,
    baseline: String,
    scope: Vec<String>,
    binding: Option<String>,
    notes: Vec<String>,
    warnings: Vec<String>,
    commit: CommitDoc,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommitDoc {
    path: String,
    command: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VerifyDoc {
    schema: String,
    check: String,
    outcome: String,
    exit_code: i32,
    task: Option<Task>,
    receipt: ReceiptDoc,
}

#[test]
fn start_and_verify_documents_decode_strictly() {
    let repo = plan_repo("off");
    let out = repo
        .gate()
        .args([
            "start", "--issue", "42", "--brief", "-", "--json", "--id", "T-42",
        ])
        .write_stdin("Add CSV export.\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: StartDoc = decode(&out.stdout);
    assert_eq!(doc.schema, "gate.start/1");
    assert_eq!(doc.task.id, "T-42");
    assert_eq!(doc.baseline, repo.head());
    assert_eq!(doc.commit.path, ".gate/tasks/T-42.md");
    // The check's output goes to stderr: stdout holds the document alone.
    repo.write(
        ".gate/plan.yaml",
        fixture::PLAN.replace("command: \"true\"", "command: \"echo out; exit 4\""),
    );
    let out = repo
        .gate()
        .args(["verify", "export-tests", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: VerifyDoc = decode(&out.stdout);
    assert_eq!(doc.schema, "gate.verify/1");
    assert_eq!((doc.outcome.as_str(), doc.exit_code), ("failed", 1));
    assert_eq!(doc.receipt.exit_code, Some(4));
    assert_eq!(doc.task.map(|t| t.id).as_deref(), Some("T-42"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("out\n"),
        "{}",
        show(&out)
    );
    // The receipt in the document is the file recorded.
    let file = repo
        .path()
        .join(".git/gate/receipts/export-tests")
        .read_dir()
        .unwrap();
    let files: Vec<_> = file.map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1);
    let recorded: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["receipt"], recorded);
}

// ---------------------------------------------------------------------------
// gate.context/1

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextDoc {
    schema: String,
    outcome: String,
    exit_code: i32,
    task: Option<ContextTask>,
    brief: Option<String>,
    addenda: Vec<Addendum>,
    conflicts: Vec<ContextConflict>,
    external_edits: Option<ContextExternal>,
    scope: Option<ContextScope>,
    intents: Vec<ContextIntent>,
    criteria: Vec<ContextCriterion>,
    critiques: Vec<ContextCritique>,
    binding: Option<ContextBinding>,
    next: Vec<ContextNext>,
    unknowns: Vec<ContextUnknown>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextExternal {
    policy: String,
    edits: Vec<ContextExternalEdit>,
    dropped: u64,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextExternalEdit {
    path: String,
    tool: String,
    first_at: String,
    last_at: String,
    count: u64,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextConflict {
    round: usize,
    line: usize,
    stage: String,
    summary: String,
    conflict: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextTask {
    id: String,
    status: String,
    file: String,
    operator: String,
    created_at: String,
    baseline: String,
    issue: Option<String>,
    intent: Option<String>,
    exemption: Option<ContextExemption>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextExemption {
    class: String,
    because: String,
    description: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Addendum {
    heading: String,
    text: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextScope {
    recorded: Vec<String>,
    added: Vec<ContextAdded>,
    effective: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextAdded {
    glob: String,
    because: String,
    author: String,
    time: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextIntent {
    id: String,
    status: String,
    statement: String,
    invariants: Vec<String>,
    non_goals: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextCriterion {
    intent: String,
    criterion: String,
    text: String,
    state: String,
    evidence: Vec<ContextEvidence>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextEvidence {
    check: String,
    state: String,
    why: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextCritique {
    intent: String,
    reviewed_at: String,
    reviewed_by: Option<String>,
    findings: Vec<ContextFinding>,
    open_blocking: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextFinding {
    id: String,
    blocking: bool,
    open: bool,
    text: String,
    resolution: Option<String>,
    planned_in: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextBinding {
    standing: String,
    mode: String,
    issues: Vec<String>,
    intents: Vec<String>,
    notes: Vec<String>,
    refusals: Vec<ContextRefusal>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextRefusal {
    cause: String,
    message: String,
    decide: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextNext {
    command: String,
    why: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextUnknown {
    part: String,
    reason: String,
    decide: String,
}

#[test]
fn context_documents_decode_strictly() {
    let repo = plan_repo("required");
    let out = repo.gate().args(["context", "--json"]).output().unwrap();
    let doc: ContextDoc = decode(&out.stdout);
    assert_eq!(doc.schema, "gate.context/1");
    assert_eq!(Some(doc.exit_code), out.status.code(), "{}", show(&out));
    fixture::start_42(&repo);
    repo.gate()
        .args(["task", "amend", "--author", "Ada", "--text", "More."])
        .output()
        .unwrap();
    let out = repo.gate().args(["context", "--json"]).output().unwrap();
    let doc: ContextDoc = decode(&out.stdout);
    assert_eq!(Some(doc.exit_code), out.status.code(), "{}", show(&out));
    assert_eq!(doc.criteria.len(), 1);
    assert_eq!(doc.addenda.len(), 1);
}
