//! `gate mcp` (docs/agents.md#mcp-server): a real MCP client session over
//! stdio — rmcp's client spawning `gate mcp` in a repository — and each
//! tool's document compared with the CLI's `--json` for the same question,
//! asked of a twin repository in the same state. Then the protocol stream
//! byte for byte: nothing but JSON-RPC on stdout, even when a check's
//! command writes to stdout, and a verb's `-` input never reads stdin.

use std::io::{Read as _, Write as _};
use std::process::Stdio;

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::fixture::{plan_repo, show};
use crate::support::{TestRepo, git_env};

/// `gate mcp` in `repo`, with the environment `TestRepo::gate` gives.
fn mcp_command(repo: &TestRepo) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gate"));
    cmd.arg("mcp")
        .current_dir(repo.path())
        .env_clear()
        .envs(git_env())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", repo.scratch("home"));
    cmd
}

/// The CLI's document for `args` (with `--json`), and its exit code.
fn cli(repo: &TestRepo, args: &[&str], stdin: &str) -> (Value, Option<i32>) {
    let out = repo
        .gate()
        .args(args)
        .arg("--json")
        .write_stdin(stdin.as_bytes().to_vec())
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e})\n{}", show(&out)));
    (doc, out.status.code())
}

/// A document with what differs between two runs in two repositories made
/// alike written out: the repository's path, and a run's evidence id, times
/// and log (receipts name their run).
fn alike(doc: &Value, repo: &TestRepo) -> Value {
    let root = repo.path().to_str().unwrap();
    let text = doc.to_string().replace(root, "<repo>");
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    mask_runs(&mut doc);
    doc
}

/// Each run's own values, wherever a receipt or a status shows them: its
/// evidence and log, and every time (`started_at`, a task's `created_at`…),
/// which differ between the two twins by the second in which each ran.
fn mask_runs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                let run = ["evidence", "started_ns", "log"];
                let time = key.ends_with("_at");
                if (time || run.contains(&key.as_str())) && !v.is_null() {
                    *v = json!("<run>");
                } else {
                    mask_runs(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_runs),
        _ => {}
    }
}

/// A repository with the plan, a policy that asks the binding, and one
/// acceptance check whose command writes to both streams.
fn twin() -> TestRepo {
    let repo = plan_repo("required");
    repo.write(
        ".gate/plan.yaml",
        crate::fixture::PLAN.replace(
            "command: \"true\"",
            "command: \"printf 'LOUD-%s\\\\n' STDOUT; printf 'LOUD-%s\\\\n' STDERR >&2\"",
        ),
    );
    repo.commit_all("a loud check");
    repo
}

/// Each step: the tool, its arguments, and the CLI command line that asks
/// the same (without `--json`), with what it reads on stdin.
fn steps() -> Vec<(&'static str, Value, Vec<&'static str>, &'static str)> {
    let brief = "Add CSV export to the report page.\n  Keep the column order.\n";
    vec![
        (
            "binding",
            json!({"issue": "42"}),
            vec!["binding", "--issue", "42"],
            "",
        ),
        (
            "binding",
            json!({"issue": "999"}),
            vec!["binding", "--issue", "999"],
            "",
        ),
        (
            "start",
            json!({"issue": "42", "id": "T-42", "brief": brief}),
            vec!["start", "--issue", "42", "--id", "T-42", "--brief", "-"],
            brief,
        ),
        ("status", json!({}), vec!["status"], ""),
        ("context", json!({}), vec!["context"], ""),
        (
            "may_touch",
            json!({"paths": ["src/export/csv.rs", "README.md"]}),
            vec!["may-touch", "src/export/csv.rs", "README.md"],
            "",
        ),
        (
            "verify",
            json!({"check": "export-tests"}),
            vec!["verify", "export-tests"],
            "",
        ),
        (
            "verify",
            json!({"check": "no-such-check"}),
            vec!["verify", "no-such-check"],
            "",
        ),
        (
            "status",
            json!({"task": "T-42"}),
            vec!["status", "--task", "T-42"],
            "",
        ),
        (
            "check",
            json!({"only": ["scope", "receipts"]}),
            vec!["check", "--only", "scope,receipts"],
            "",
        ),
        (
            "amend",
            json!({"author": "Op", "text": "Also --no-verify is never an answer."}),
            vec![
                "task",
                "amend",
                "--author",
                "Op",
                "--text",
                "Also --no-verify is never an answer.",
            ],
            "",
        ),
        (
            "ask",
            json!({"stage": "design", "question": "Which separator?\n", "answer": "A comma.\n",
                   "decided_by": "operator", "summary": "CSV uses commas"}),
            vec![
                "task",
                "ask",
                "--stage",
                "design",
                "--question-file",
                "q.txt",
                "--answer-file",
                "a.txt",
                "--decided-by",
                "operator",
                "--summary",
                "CSV uses commas",
            ],
            "",
        ),
        (
            "note",
            json!({"text": "Kept the old exporter for now.", "task": "T-42"}),
            vec![
                "task",
                "note",
                "--text",
                "Kept the old exporter for now.",
                "T-42",
            ],
            "",
        ),
    ]
}

/// The tools `gate mcp` lists.
const TOOLS: &[&str] = &[
    "amend",
    "ask",
    "binding",
    "check",
    "context",
    "may_touch",
    "note",
    "start",
    "status",
    "verify",
];

#[test]
fn a_client_session_gets_the_cli_documents_from_every_tool() {
    let (served, asked) = (twin(), twin());
    // The CLI's `ask` reads its texts from files: the same texts.
    for repo in [&served, &asked] {
        repo.write("q.txt", "Which separator?\n");
        repo.write("a.txt", "A comma.\n");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let transport = TokioChildProcess::new(tokio::process::Command::from(mcp_command(&served)))
            .expect("spawn gate mcp");
        let client = ().serve(transport).await.expect("initialize");
        let info = client.peer_info().expect("the server's info");
        let server = info.server_info.as_ref().map(|i| i.name.as_str());
        assert_eq!(server, Some("gate"));
        let mut names: Vec<String> = client
            .list_all_tools()
            .await
            .expect("tools/list")
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        assert_eq!(names, TOOLS);
        for (tool, arguments, line, stdin) in steps() {
            let result = client
                .call_tool(
                    CallToolRequestParams::new(tool)
                        .with_arguments(arguments.as_object().unwrap().clone()),
                )
                .await
                .unwrap_or_else(|e| panic!("{tool} {arguments}: {e}"));
            let doc = result
                .structured_content
                .clone()
                .unwrap_or_else(|| panic!("{tool}: no structured content: {result:?}"));
            // The text is the document as the CLI prints it.
            let text = result.content[0]
                .as_text()
                .expect("a text block")
                .text
                .clone();
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), doc);
            assert!(text.ends_with("}\n"), "{tool}: {text:?}");
            let (expected, code) = cli(&asked, &line, stdin);
            assert_eq!(
                alike(&doc, &served),
                alike(&expected, &asked),
                "{tool} {arguments} against {line:?}"
            );
            // isError only when the verb could not run.
            let could_not_run = expected["schema"] == "gate.error/1";
            assert_eq!(result.is_error, Some(could_not_run), "{tool}: {doc}");
            if let Some(exit) = doc.get("exit_code") {
                assert_eq!(exit.as_i64(), code.map(i64::from), "{tool}: {doc}");
            }
        }
        client.cancel().await.expect("close the session");
    });
    // The appends landed in the task file as the CLI's did.
    let file =
        |repo: &TestRepo| std::fs::read_to_string(repo.path().join(".gate/tasks/T-42.md")).unwrap();
    let (a, b) = (file(&served), file(&asked));
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("_at:") && !l.starts_with("### ") && !l.contains("at: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&a), strip(&b));
    assert!(a.contains("Also --no-verify is never an answer."), "{a}");
}

/// `gate mcp` spoken to in bytes, one JSON-RPC message a line.
struct Session {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    /// Every line read from stdout.
    lines: Vec<String>,
}

impl Session {
    fn start(repo: &TestRepo) -> Session {
        let mut child = mcp_command(repo)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            stdin,
            stdout,
            lines: Vec::new(),
        }
    }

    /// Send `messages` in one write.
    fn send(&mut self, messages: &[Value]) {
        let text: String = messages.iter().map(|m| format!("{m}\n")).collect();
        self.send_bytes(text.as_bytes());
    }

    /// Send `bytes` as they are, in one write.
    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// A session past `initialize`.
    fn initialized(repo: &TestRepo) -> Session {
        let mut session = Session::start(repo);
        session.send(&[
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bytes", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ]);
        session.replies(&[0]);
        session
    }

    /// Read stdout until a reply to each of `ids` has come.
    fn replies(&mut self, ids: &[i64]) {
        use std::io::BufRead as _;
        let answered = |lines: &[String]| {
            ids.iter().all(|id| {
                lines.iter().any(|l| {
                    serde_json::from_str::<Value>(l).is_ok_and(|v| v["id"].as_i64() == Some(*id))
                })
            })
        };
        while !answered(&self.lines) {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(
                n > 0,
                "gate mcp closed stdout before answering {ids:?}: {:?}",
                self.lines
            );
            self.lines.push(line.trim_end_matches('\n').to_string());
        }
    }

    /// Close stdin; return what stdout still held and all of stderr.
    fn end(mut self) -> (Vec<String>, String) {
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        self.lines.extend(rest.lines().map(str::to_string));
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "gate mcp exited {status}\n{stderr}");
        (self.lines, stderr)
    }
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

#[test]
fn stdout_carries_only_the_protocol_and_stdin_only_requests() {
    let repo = twin();
    let mut session = Session::start(&repo);
    session.send(&[
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bytes", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]);
    session.replies(&[0]);
    // A brief that looks like a request, and a request right behind it in
    // the same write: a verb that read stdin would swallow request 2.
    let brief = "Export CSV.\n{\"jsonrpc\": \"2.0\", \"id\": 99}\n";
    session.send(&[
        call(
            1,
            "start",
            json!({"issue": "42", "id": "T-42", "brief": brief}),
        ),
        call(2, "binding", json!({"issue": "42"})),
    ]);
    session.replies(&[1, 2]);
    session.send(&[call(3, "verify", json!({"check": "export-tests"}))]);
    session.replies(&[3]);
    let (lines, stderr) = session.end();
    let replies: Vec<Value> = lines
        .iter()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| {
                panic!("stdout holds a line that is not JSON-RPC ({e}): {l:?}\n{lines:?}")
            })
        })
        .collect();
    assert!(replies.iter().all(|r| r["jsonrpc"] == "2.0"), "{lines:?}");
    let mut ids: Vec<i64> = replies.iter().filter_map(|r| r["id"].as_i64()).collect();
    ids.sort();
    assert_eq!(ids, [0, 1, 2, 3], "each request answered once: {lines:?}");
    let reply = |id: i64| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["result"]["structuredContent"].clone())
            .unwrap()
    };
    assert_eq!(reply(1)["schema"], "gate.start/1", "{lines:?}");
    assert_eq!(reply(2)["schema"], "gate.binding/1", "{lines:?}");
    // The check's command wrote to its stdout: that went to gate's stderr.
    assert_eq!(reply(3)["outcome"], "passed", "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.contains("LOUD-STDOUT")),
        "{lines:?}"
    );
    assert!(stderr.contains("LOUD-STDOUT"), "{stderr}");
    assert!(stderr.contains("LOUD-STDERR"), "{stderr}");
    // The brief came from the tool's argument, verbatim, not from stdin.
    let task = std::fs::read_to_string(repo.path().join(".gate/tasks/T-42.md")).unwrap();
    assert!(task.contains(brief), "{task}");
}

/// Every line `gate mcp` wrote, each one JSON.
fn parsed(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| {
                panic!("stdout holds a line that is not JSON-RPC ({e}): {l:?}\n{lines:?}")
            })
        })
        .collect()
}

/// The error responses among `replies`: each has `"id": null`, as JSON-RPC
/// 2.0 says for a request whose id could not be read.
fn id_null_errors(replies: &[Value]) -> Vec<&Value> {
    let errors: Vec<&Value> = replies
        .iter()
        .filter(|r| r.get("error").is_some())
        .collect();
    for e in &errors {
        assert_eq!(e["jsonrpc"], "2.0", "{e}");
        assert!(
            e.as_object().unwrap().get("id") == Some(&Value::Null),
            "the id is there, and null: {e}"
        );
    }
    errors
}

/// A line that is not JSON (text, a cut-off request, bytes that are not
/// UTF-8) is answered with a parse error, not dropped in silence, and the
/// server goes on serving.
#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error() {
    let repo = twin();
    let mut session = Session::initialized(&repo);
    session.send_bytes(b"this is not JSON\n{\"jsonrpc\": \"2.0\", \"id\": 5,\n\xff\xfe\n");
    session.send(&[call(1, "binding", json!({"issue": "42"}))]);
    session.replies(&[1]);
    let (lines, _) = session.end();
    let replies = parsed(&lines);
    let errors = id_null_errors(&replies);
    assert_eq!(errors.len(), 3, "one answer a bad line: {lines:?}");
    for e in errors {
        assert_eq!(e["error"]["code"], -32700, "{e}");
        let message = e["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Parse error: "), "{message}");
    }
    let served = replies.iter().find(|r| r["id"] == 1).unwrap();
    assert_eq!(
        served["result"]["structuredContent"]["schema"], "gate.binding/1",
        "{lines:?}"
    );
}

/// A line longer than the cap (4 MiB) is answered with an invalid request
/// naming the cap — even a well-formed request is not run — and the server
/// goes on serving.
#[test]
fn an_oversized_line_is_answered_with_an_error_naming_the_cap() {
    let repo = twin();
    let mut session = Session::initialized(&repo);
    let pad = "x".repeat(5 * 1024 * 1024);
    session.send(&[json!({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"pad": pad}})]);
    session.send(&[call(8, "binding", json!({"issue": "42"}))]);
    session.replies(&[8]);
    let (lines, _) = session.end();
    let replies = parsed(&lines);
    assert!(
        !replies.iter().any(|r| r["id"] == 7),
        "the oversized request was not run"
    );
    let errors = id_null_errors(&replies);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["error"]["code"], -32600);
    let message = errors[0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("longer than 4194304 bytes (4 MiB)"),
        "{message}"
    );
    let served = replies.iter().find(|r| r["id"] == 8).unwrap();
    assert_eq!(
        served["result"]["structuredContent"]["schema"],
        "gate.binding/1"
    );
}

/// Arguments that are not the tool's (a required one missing, a value of
/// the wrong type or outside its choices, a name the tool does not know of
/// a choice) are answered as the CLI answers a usage error: a
/// `gate.error/1` document with exit code 2, its message naming what is
/// wrong and a hint to act on, `isError` set — not a JSON-RPC error
/// (docs/agents.md#tools). Nothing is run or written, and the session
/// goes on.
#[test]
fn wrong_arguments_are_answered_with_a_gate_error_document() {
    let repo = twin();
    let mut session = Session::start(&repo);
    session.send(&[
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wrong", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]);
    session.replies(&[0]);
    let wrong = [
        // `brief` is required.
        (1, "start", json!({"issue": "42"}), "brief"),
        // `decided_by` is `operator` or `agent`.
        (
            2,
            "ask",
            json!({"stage": "design", "question": "q", "answer": "a",
                   "decided_by": "nobody", "summary": "s"}),
            "nobody",
        ),
        // `paths` is a list.
        (3, "may_touch", json!({"paths": "src/a.rs"}), "sequence"),
        // `only` names checks.
        (4, "check", json!({"only": ["speed"]}), "speed"),
        // The CLI's flag rules: `--because` needs `--exempt`, `--staged`
        // and `--range` exclude each other, `--policy-from` needs
        // `--range`, and may-touch needs a path.
        (6, "binding", json!({"because": "docs only"}), "exempt"),
        (
            7,
            "check",
            json!({"staged": true, "range": "HEAD~1..HEAD"}),
            "range",
        ),
        (8, "check", json!({"policy_from": "HEAD"}), "range"),
        (9, "may_touch", json!({"paths": []}), "paths"),
    ];
    session.send(
        &wrong
            .iter()
            .map(|(id, tool, args, _)| call(*id, tool, args.clone()))
            .collect::<Vec<_>>(),
    );
    session.replies(&[1, 2, 3, 4, 6, 7, 8, 9]);
    session.send(&[call(5, "binding", json!({"issue": "42"}))]);
    session.replies(&[5]);
    let (lines, _) = session.end();
    let replies = parsed(&lines);
    for (id, tool, _, named) in &wrong {
        let reply = replies.iter().find(|r| r["id"] == *id).unwrap();
        assert!(reply.get("error").is_none(), "{tool}: {reply}");
        let result = &reply["result"];
        assert_eq!(result["isError"], true, "{tool}: {reply}");
        let doc = &result["structuredContent"];
        assert_eq!(doc["schema"], "gate.error/1", "{tool}: {reply}");
        assert_eq!(doc["exit_code"], 2, "{tool}: {reply}");
        let message = doc["message"].as_str().unwrap();
        assert!(
            message.starts_with("the tool's arguments are not valid: ") && message.contains(named),
            "{tool}: {message}"
        );
        assert!(
            doc["hint"].as_str().unwrap().contains("inputSchema"),
            "{reply}"
        );
        // The text is the document, as for every other answer.
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, doc, "{tool}");
    }
    assert!(
        !repo.path().join(".gate/tasks").exists()
            || std::fs::read_dir(repo.path().join(".gate/tasks"))
                .unwrap()
                .next()
                .is_none(),
        "nothing was started"
    );
    let binding = replies.iter().find(|r| r["id"] == 5).unwrap();
    assert_eq!(
        binding["result"]["structuredContent"]["schema"], "gate.binding/1",
        "the session goes on: {binding}"
    );
}

/// What clients read before calling (MCP 2025-06-18, tools/list): every
/// tool has a title and annotations — the questions say they are
/// read-only, the appends that they are not, and only `verify` (which
/// runs the plan's command) reaches beyond the repository; an optional
/// argument may be left out and is never typed `null`; and each tool's
/// `outputSchema`, made from the wire structs the CLI's `--json` prints,
/// holds every answer of a whole session, a `gate.error/1` included
/// (checked with a JSON Schema validator).
#[test]
fn tools_say_what_they_are_and_answer_within_their_output_schema() {
    let repo = twin();
    let mut session = Session::start(&repo);
    session.send(&[
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "schemas", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ]);
    session.replies(&[0, 1]);
    let steps = steps();
    for (n, (tool, arguments, _, _)) in steps.iter().enumerate() {
        // The CLI steps read question and answer files; the tool takes them.
        session.send(&[call(100 + n as i64, tool, arguments.clone())]);
        session.replies(&[100 + n as i64]);
    }
    let (lines, _) = session.end();
    let replies = parsed(&lines);
    let listed = &replies.iter().find(|r| r["id"] == 1).unwrap()["result"]["tools"];
    let read_only = ["binding", "check", "context", "may_touch", "status"];
    let mut validators = std::collections::BTreeMap::new();
    for tool in listed.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        assert!(
            tool["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{name}: {tool}"
        );
        let hints = &tool["annotations"];
        assert_eq!(
            hints["readOnlyHint"],
            read_only.contains(&name),
            "{name}: {hints}"
        );
        assert_eq!(hints["destructiveHint"], false, "{name}: {hints}");
        assert_eq!(hints["openWorldHint"], name == "verify", "{name}: {hints}");
        for (arg, schema) in tool["inputSchema"]["properties"].as_object().unwrap() {
            let nullable = schema.get("type").is_some_and(|t| {
                t == "null"
                    || t.as_array()
                        .is_some_and(|ts| ts.iter().any(|t| t == "null"))
            });
            assert!(!nullable, "{name}.{arg} may be null: {schema}");
        }
        let output = &tool["outputSchema"];
        assert_eq!(output["type"], "object", "{name}: {output}");
        let validator = jsonschema::validator_for(output)
            .unwrap_or_else(|e| panic!("{name}'s outputSchema does not compile: {e}"));
        validators.insert(name.to_owned(), validator);
    }
    assert_eq!(
        validators.keys().map(String::as_str).collect::<Vec<_>>(),
        TOOLS
    );
    let mut schemas_seen = std::collections::BTreeSet::new();
    for (n, (tool, arguments, _, _)) in steps.iter().enumerate() {
        let reply = replies.iter().find(|r| r["id"] == 100 + n as i64).unwrap();
        let doc = &reply["result"]["structuredContent"];
        let wrong: Vec<String> = validators[*tool]
            .iter_errors(doc)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            wrong.is_empty(),
            "{tool} {arguments}: outside its outputSchema:\n{}\n{doc}",
            wrong.join("\n")
        );
        schemas_seen.insert(doc["schema"].as_str().unwrap().to_owned());
    }
    // The session's answers cover every document, the error included.
    assert!(schemas_seen.contains("gate.error/1"), "{schemas_seen:?}");
    assert!(schemas_seen.contains("gate.report/1"), "{schemas_seen:?}");
    // And a document that is not the tool's is outside it.
    let not_a_report = json!({"schema": "gate.report/1", "verb": 1});
    assert!(!validators["check"].is_valid(&not_a_report));
}

/// The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, as
/// `.ci/run` installs it) lists gate's tools with `--strict`: no tool
/// schema has a portability problem, error or warning (it reports each on
/// stderr, and exits 6 on an error).
#[test]
fn the_mcp_inspector_strict_finds_no_portability_problem() {
    let test = crate::this_test!();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(inspector) = std::env::split_paths(&path)
        .map(|d| d.join("mcp-inspector"))
        .find(|p| p.is_file())
    else {
        crate::support::skip(
            test,
            "mcp-inspector is not on PATH; npm install -g @modelcontextprotocol/inspector (see .ci/run)",
            None,
        );
        return;
    };
    let repo = plan_repo("required");
    let gate = assert_cmd::cargo::cargo_bin!("gate");
    let out = std::process::Command::new(inspector)
        .args(["--cli", "--strict", "--method", "tools/list", "--"])
        .arg(gate)
        .arg("mcp")
        .current_dir(repo.path())
        .envs(git_env())
        .env("HOME", repo.scratch("home"))
        .env("MCP_CATALOG_PATH", repo.scratch("catalog.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Warning") && !stderr.contains("Error"),
        "{stderr}"
    );
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        listed["tools"].as_array().map(Vec::len),
        Some(10),
        "{listed}"
    );
}
