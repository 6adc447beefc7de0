//! The MCP server behind `gate mcp` (docs/agents.md#mcp-server): the
//! agent's questions and the appends it may make, as tools on stdio.
//!
//! A tool is a verb's command line: it builds the argument vector (always
//! with `--json`), and the dispatcher `commands::run` hands in parses and
//! runs it as `gate` would, with what the verb prints captured
//! ([`crate::context::captured`]). So each tool returns the very document
//! the CLI's `--json` prints (docs/decisions/0018-mcp-server.md).
//!
//! rmcp reads and writes through in-memory pipes; [`lines`] carries the
//! client's lines to it and its replies back, and answers a line that is
//! not JSON, or is longer than [`lines::MAX_LINE`], with a JSON-RPC error
//! where rmcp would drop it in silence.
//!
//! Stdout is the protocol's channel and stdin its requests: before serving,
//! both move to fresh descriptors, fd 1 becomes a copy of stderr and fd 0
//! `/dev/null`. Whatever else writes to stdout (a check's command under
//! `gate verify`, a panic) lands on stderr, and nothing but the protocol
//! reads its stream.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use crate::cli::CheckName;
use crate::error::Failure;

mod lines;

/// How many bytes each in-memory pipe between rmcp and the line layer
/// holds before its writer waits.
const PIPE: usize = 64 * 1024;

/// Parses a command line (`gate …`) and runs it; returns the exit code.
pub type Dispatch = fn(&[OsString]) -> i32;

/// Serve the tools on stdin and stdout until the client closes stdin.
pub fn serve(dir: Option<&Path>, dispatch: Dispatch) -> Result<(), Failure> {
    let dir = match dir {
        Some(d) => std::path::absolute(d),
        None => std::env::current_dir(),
    }
    .map_err(|e| Failure::unknown(format!("cannot read the current directory: {e}")))?;
    let (input, output) = crate::platform::take_stdio()
        .map_err(|e| Failure::unknown(format!("cannot set up stdin and stdout for MCP: {e}")))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::unknown(format!("cannot start the async runtime: {e}")))?;
    let server = Gate {
        dir,
        dispatch,
        tool_router: Gate::tool_router(),
    };
    let session = runtime.block_on(async move {
        // rmcp speaks through two in-memory pipes; the line layer stands
        // between them and the client and answers the lines rmcp would drop.
        let out = std::sync::Arc::new(tokio::sync::Mutex::new(tokio::fs::File::from_std(output)));
        let (rmcp_in, to_rmcp) = tokio::io::duplex(PIPE);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
        let input = tokio::io::BufReader::new(tokio::fs::File::from_std(input));
        // When the client closes stdin, or reading it fails, the line layer
        // drops its end of rmcp's input, and the session ends.
        tokio::spawn(lines::requests(
            input,
            to_rmcp,
            out.clone(),
            lines::MAX_LINE,
        ));
        let replies = tokio::spawn(lines::replies(from_rmcp, out));
        let running = server
            .serve((rmcp_in, rmcp_out))
            .await
            .map_err(|e| format!("the MCP session did not start: {e}"))?;
        let ended = running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("the MCP session ended abnormally: {e}"));
        // rmcp has closed its end: its last replies reach the client
        // before gate exits.
        let _ = replies.await;
        ended
    });
    // A read of the closed protocol stream may still sit on the blocking
    // pool: do not wait for it.
    runtime.shutdown_background();
    session.map_err(Failure::unknown)
}

/// The server: where the verbs run, and how.
#[derive(Clone)]
struct Gate {
    dir: PathBuf,
    dispatch: Dispatch,
    tool_router: ToolRouter<Gate>,
}

/// A verb's command line, built from a tool's arguments: options as
/// `--flag=VALUE` (a value starting with `-` stays a value), positionals
/// after `--`, and texts the verb reads with `-` given beside it.
struct Line {
    args: Vec<OsString>,
    positionals: Vec<String>,
    inputs: Vec<(&'static str, Vec<u8>)>,
}

impl Line {
    fn new(dir: &Path, verb: &[&str]) -> Line {
        let mut args: Vec<OsString> = vec!["gate".into(), "-C".into(), dir.into()];
        args.extend(verb.iter().map(OsString::from));
        args.push("--json".into());
        Line {
            args,
            positionals: Vec::new(),
            inputs: Vec::new(),
        }
    }

    fn opt(mut self, flag: &str, value: Option<&str>) -> Line {
        if let Some(v) = value {
            self.args.push(format!("{flag}={v}").into());
        }
        self
    }

    fn opts(self, flag: &str, values: &[String]) -> Line {
        values
            .iter()
            .fold(self, |line, v| line.opt(flag, Some(v.as_str())))
    }

    fn switch(mut self, flag: &str, on: bool) -> Line {
        if on {
            self.args.push(flag.into());
        }
        self
    }

    /// `flag -`, the verb reading `text` where it would read stdin.
    fn text(mut self, flag: &'static str, text: Option<&str>) -> Line {
        if let Some(t) = text {
            self.args.push(flag.into());
            self.args.push("-".into());
            self.inputs.push((flag, t.as_bytes().to_vec()));
        }
        self
    }

    fn positional(mut self, value: Option<&str>) -> Line {
        self.positionals.extend(value.map(str::to_string));
        self
    }

    fn positionals(mut self, values: &[String]) -> Line {
        self.positionals.extend(values.iter().cloned());
        self
    }

    /// The argument vector, and the texts to give for `-`.
    fn finish(self) -> (Vec<OsString>, Vec<(&'static str, Vec<u8>)>) {
        let mut args = self.args;
        if !self.positionals.is_empty() {
            args.push("--".into());
            args.extend(self.positionals.into_iter().map(OsString::from));
        }
        (args, self.inputs)
    }
}

impl Gate {
    /// Run the verb on a blocking thread with its stdout captured, and
    /// return its document.
    async fn run(&self, line: Line) -> Result<CallToolResult, ErrorData> {
        let (args, inputs) = line.finish();
        let dispatch = self.dispatch;
        let (_code, printed) = tokio::task::spawn_blocking(move || {
            crate::context::captured(inputs, || dispatch(&args))
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the verb did not finish: {e}"), None))?;
        Ok(result(printed))
    }
}

/// The tool's result: the verb's document, as text exactly as the CLI
/// prints it and as structured content. `isError` is set only when the verb
/// could not run (its document is a `gate.error/1`); a refusal or an
/// unknown is an answer, with its `exit_code` in the document.
fn result(printed: String) -> CallToolResult {
    let doc: serde_json::Value = match serde_json::from_str(&printed) {
        Ok(doc) => doc,
        // Every verb a tool runs prints one document under --json
        // (docs/json.md): anything else is gate's fault, said as such.
        Err(e) => {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "gate printed no JSON document ({e}): {printed:?}"
            ))]);
        }
    };
    let could_not_run = doc["schema"] == crate::report::wire::error::ERROR_SCHEMA;
    let mut result = if could_not_run {
        CallToolResult::structured_error(doc)
    } else {
        CallToolResult::structured(doc)
    };
    result.content = vec![ContentBlock::text(printed)];
    result
}

/// A tool's arguments as the client gave them: `Ok` when they are the
/// tool's (its `inputSchema`, which is `T`'s), else what is wrong with
/// them. Deserialising never fails here, so a wrong argument is answered
/// as the verb's own usage errors are, a `gate.error/1` document
/// (docs/agents.md#tools), not a JSON-RPC error that names no action.
struct Args<T>(Result<T, String>);

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Args<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let given = serde_json::Value::deserialize(deserializer)?;
        Ok(Args(
            serde_json::from_value(given).map_err(|e| e.to_string()),
        ))
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Args<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// The answer to arguments that are not the tool's: `gate.error/1` with
/// exit code 2, as the CLI's usage errors, and `isError` set.
fn wrong_arguments(wrong: &str) -> CallToolResult {
    let failure = Failure::usage(format!("the tool's arguments are not valid: {wrong}")).hint(
        "call the tool again with arguments its inputSchema (tools/list) allows: \
         docs/agents.md#tools names each",
    );
    let doc = crate::report::json::error(&failure);
    result(crate::report::json::to_string(&doc))
}

/// A tool's arguments as the schema says them: an optional argument is
/// one that may be left out, not one that may be `null` (schemars writes
/// `Option<String>` as `["string", "null"]`, which clients warn about as
/// unportable). gate still reads a `null` as left out.
fn not_nullable(schema: &mut schemars::Schema) {
    let Some(properties) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    for property in properties.values_mut() {
        if let Some(types) = property.get_mut("type")
            && let Some(list) = types.as_array()
            && list.iter().any(|t| t == "null")
        {
            let kept: Vec<serde_json::Value> =
                list.iter().filter(|t| *t != "null").cloned().collect();
            *types = match kept.as_slice() {
                [one] => one.clone(),
                _ => serde_json::Value::Array(kept),
            };
        }
    }
}

/// A tool's `outputSchema`: its document (`T`'s JSON Schema, from the
/// same wire structs the CLI's `--json` prints) or, when it could not run,
/// `gate.error/1`.
fn output_schema<T: schemars::JsonSchema>() -> std::sync::Arc<rmcp::model::JsonObject> {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let answer = generator.subschema_for::<T>();
    let error = generator.subschema_for::<crate::report::wire::error::ErrorWire<'static>>();
    let definitions = generator.take_definitions(true);
    let mut schema = serde_json::json!({
        "type": "object",
        "anyOf": [answer, error],
        "$defs": definitions,
    });
    one_type_each(&mut schema);
    match schema {
        serde_json::Value::Object(object) => std::sync::Arc::new(object),
        _ => std::sync::Arc::default(),
    }
}

/// A schema where every `type` names one type: `"type": ["string",
/// "null"]` (schemars' `Option<String>`; the documents do print `null`)
/// becomes `"anyOf": [{"type": "string"}, {"type": "null"}]`, the same
/// values, which clients that map schemas onto a one-type dialect (the
/// OpenAPI subset of Gemini's function declarations) read, and which the
/// MCP Inspector's `--strict` asks for. Other keywords stay where they were
/// (each applies to the values of its own type); a schema with an `anyOf`
/// already gets both as an `allOf`.
fn one_type_each(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(object) => {
            for inner in object.values_mut() {
                one_type_each(inner);
            }
            let Some(serde_json::Value::Array(types)) = object.get("type") else {
                return;
            };
            if types.len() < 2 {
                return;
            }
            let branches: Vec<serde_json::Value> = types
                .iter()
                .map(|t| serde_json::json!({ "type": t }))
                .collect();
            object.remove("type");
            match object.remove("anyOf") {
                Some(existing) => {
                    object.insert(
                        "allOf".into(),
                        serde_json::json!([{ "anyOf": existing }, { "anyOf": branches }]),
                    );
                }
                None => {
                    object.insert("anyOf".into(), serde_json::Value::Array(branches));
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(one_type_each),
        _ => {}
    }
}

/// What the work serves, as `gate binding` and `gate start` take it.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct Naming {
    /// The plan issue the work serves
    issue: Option<String>,
    /// The plan intent the work serves
    intent: Option<String>,
    /// Paths the work will touch (names the one open issue covering them)
    #[serde(default)]
    paths: Vec<String>,
    /// A declared exemption class (needs `because`)
    exempt: Option<String>,
    /// Why the exemption applies
    because: Option<String>,
}

impl Naming {
    fn onto(&self, line: Line) -> Line {
        line.opt("--issue", self.issue.as_deref())
            .opt("--intent", self.intent.as_deref())
            .opts("--path", &self.paths)
            .opt("--exempt", self.exempt.as_deref())
            .opt("--because", self.because.as_deref())
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct StartArgs {
    #[serde(flatten)]
    naming: Naming,
    /// The operator's request, verbatim (the task keeps it byte for byte)
    brief: String,
    /// The task id (default: `T-<what is named>-` and 5 fresh characters; an id in use is refused)
    id: Option<String>,
    /// Scope globs, relative to the repository root or as `:/GLOB` (default: the named issue's paths)
    #[serde(default)]
    scope: Vec<String>,
    /// Who asked for the work (default: git user.name)
    operator: Option<String>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct TaskArgs {
    /// The task (default: the worktree's active task)
    task: Option<String>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct CheckArgs {
    /// Check the staged changes against HEAD (what pre-commit runs)
    #[serde(default)]
    staged: bool,
    /// Check every commit in the range A..B
    range: Option<String>,
    /// Judge the range with the policy at REV (default: the range's base)
    policy_from: Option<String>,
    /// The task to check (default: the worktree's active task)
    task: Option<String>,
    /// Run only these checks
    #[serde(default)]
    only: Vec<CheckName>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct MayTouchArgs {
    /// The paths, relative to the repository gate mcp serves (`:/PATH` from its root, or absolute)
    paths: Vec<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct VerifyArgs {
    /// The acceptance check to run, by its id in .gate/plan.yaml (its command comes from the plan, never from here)
    check: String,
    /// The task the run is for (default: the active task)
    task: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct AmendArgs {
    /// The task (default: the active task)
    task: Option<String>,
    /// Who is amending: the operator
    author: String,
    /// The operator's clarification, verbatim
    text: String,
}

/// Who decided a question.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum DecidedBy {
    Operator,
    Agent,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct AskArgs {
    /// The task (default: the active task)
    task: Option<String>,
    /// The stage the question came up in (requirements, design, …)
    stage: String,
    /// The question, verbatim
    question: String,
    /// The answer, verbatim
    answer: String,
    /// Who decided: the operator, or the agent alone
    decided_by: DecidedBy,
    /// Why the agent decided as it did (at least 50 non-whitespace characters; required when the agent decided)
    rationale: Option<String>,
    /// One line: how this changes the initial conditions
    summary: String,
    /// What it contradicts (default: none)
    conflict: Option<String>,
    /// The round of the agent's conflicting decision this operator's answer closes (decided_by operator only)
    resolves: Option<usize>,
    /// Who records it (default: git user.name)
    author: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = not_nullable)]
struct NoteArgs {
    /// The task (default: the active task)
    task: Option<String>,
    /// The note: where the work diverges, and why
    text: String,
    /// Who writes it (default: git user.name)
    author: Option<String>,
}

#[tool_router]
impl Gate {
    /// `gate binding --json`: what a naming serves and whether work may
    /// start (read-only; gate.binding/1).
    #[tool(
        title = "What a naming serves",
        description = "Ask what a naming serves and whether work may start (read-only). Returns gate.binding/1, as `gate binding --json`.",
        annotations(
            title = "What a naming serves",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::binding::BindingWire<'static>>()
    )]
    async fn binding(
        &self,
        Parameters(args): Parameters<Args<Naming>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        self.run(args.onto(Line::new(&self.dir, &["binding"])))
            .await
    }

    #[tool(
        title = "Start a task",
        description = "Start a task: name what it serves, keep the operator's brief verbatim, make it the worktree's active task. Returns gate.start/1, as `gate start --json`.",
        annotations(
            title = "Start a task",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::start::StartWire<'static>>()
    )]
    async fn start(
        &self,
        Parameters(args): Parameters<Args<StartArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = args
            .naming
            .onto(Line::new(&self.dir, &["start"]))
            .opt("--id", args.id.as_deref())
            .opts("--scope", &args.scope)
            .opt("--operator", args.operator.as_deref())
            .text("--brief", Some(&args.brief));
        self.run(line).await
    }

    #[tool(
        title = "Acceptance checks of the task",
        description = "Show each acceptance check the task depends on: passed, failed, stale, running, missing. Returns gate.status/1, as `gate status --json`.",
        annotations(
            title = "Acceptance checks of the task",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::status::StatusWire<'static>>()
    )]
    async fn status(
        &self,
        Parameters(args): Parameters<Args<TaskArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = Line::new(&self.dir, &["status"]).opt("--task", args.task.as_deref());
        self.run(line).await
    }

    #[tool(
        title = "The task before any edit",
        description = "Before touching anything: the task, its brief and addenda verbatim, the effective scope, the intents served, each criterion's acceptance checks and their states, the critique, the binding and the next commands. Returns gate.context/1, as `gate context --json`.",
        annotations(
            title = "The task before any edit",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::context::ContextWire>()
    )]
    async fn context(
        &self,
        Parameters(args): Parameters<Args<TaskArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = Line::new(&self.dir, &["context"]).opt("--task", args.task.as_deref());
        self.run(line).await
    }

    #[tool(
        title = "May the task touch these paths",
        description = "Before an edit: may the active task touch each of these paths, and why (which scope pattern, or which issue would cover it). Returns gate.may-touch/1, as `gate may-touch PATH... --json`.",
        annotations(
            title = "May the task touch these paths",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::may_touch::MayTouchWire<'static>>()
    )]
    async fn may_touch(
        &self,
        Parameters(args): Parameters<Args<MayTouchArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = Line::new(&self.dir, &["may-touch"]).positionals(&args.paths);
        self.run(line).await
    }

    #[tool(
        title = "Run gate's checks",
        description = "Run gate's checks under the policy (the task's scope, provenance, receipts, binding, brief). Returns gate.report/1, as `gate check --json`.",
        annotations(
            title = "Run gate's checks",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::report::ReportWire<'static>>()
    )]
    async fn check(
        &self,
        Parameters(args): Parameters<Args<CheckArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let only: Vec<String> = args.only.iter().map(|c| c.as_str().to_string()).collect();
        let line = Line::new(&self.dir, &["check"])
            .switch("--staged", args.staged)
            .opt("--range", args.range.as_deref())
            .opt("--policy-from", args.policy_from.as_deref())
            .opt("--task", args.task.as_deref())
            .opt(
                "--only",
                (!only.is_empty()).then(|| only.join(",")).as_deref(),
            );
        self.run(line).await
    }

    #[tool(
        title = "Run an acceptance check",
        description = "Run an acceptance check by its id (the command comes from .gate/plan.yaml, never from the caller) and record a receipt bound to the sources. Returns gate.verify/1, as `gate verify --json`; the command's output goes to the server's stderr and the receipt's log.",
        annotations(
            title = "Run an acceptance check",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        ),
        output_schema = output_schema::<crate::report::wire::verify::VerifyWire<'static>>()
    )]
    async fn verify(
        &self,
        Parameters(args): Parameters<Args<VerifyArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = Line::new(&self.dir, &["verify"])
            .opt("--task", args.task.as_deref())
            .positional(Some(&args.check));
        self.run(line).await
    }

    #[tool(
        title = "Append the operator's clarification",
        description = "Append the operator's clarification, verbatim, to the task's addenda. Returns gate.task-change/1, as `gate task amend --json`.",
        annotations(
            title = "Append the operator's clarification",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::task_change::ChangeWire<'static>>()
    )]
    async fn amend(
        &self,
        Parameters(args): Parameters<Args<AmendArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = Line::new(&self.dir, &["task", "amend"])
            .opt("--author", Some(&args.author))
            .opt("--text", Some(&args.text))
            .positional(args.task.as_deref());
        self.run(line).await
    }

    #[tool(
        title = "Record a question and its decision",
        description = "Record a question, its answer and who decided (the operator, or the agent alone with a rationale) in the task's addenda. Returns gate.task-change/1, as `gate task ask --json`.",
        annotations(
            title = "Record a question and its decision",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::task_change::ChangeWire<'static>>()
    )]
    async fn ask(
        &self,
        Parameters(args): Parameters<Args<AskArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let decided_by = match args.decided_by {
            DecidedBy::Operator => "operator",
            DecidedBy::Agent => "agent",
        };
        let line = Line::new(&self.dir, &["task", "ask"])
            .opt("--stage", Some(&args.stage))
            .text("--question-file", Some(&args.question))
            .text("--answer-file", Some(&args.answer))
            .opt("--decided-by", Some(decided_by))
            .text("--rationale-file", args.rationale.as_deref())
            .opt("--summary", Some(&args.summary))
            .opt("--conflict", args.conflict.as_deref())
            .opt(
                "--resolves",
                args.resolves.map(|r| r.to_string()).as_deref(),
            )
            .opt("--author", args.author.as_deref())
            .positional(args.task.as_deref());
        self.run(line).await
    }

    #[tool(
        title = "Append an implementation note",
        description = "Append to the task's implementation notes (where the work diverges, and why). Returns gate.task-change/1, as `gate task note --json`.",
        annotations(
            title = "Append an implementation note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = output_schema::<crate::report::wire::task_change::ChangeWire<'static>>()
    )]
    async fn note(
        &self,
        Parameters(args): Parameters<Args<NoteArgs>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = match args.0 {
            Ok(args) => args,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let line = Line::new(&self.dir, &["task", "note"])
            .opt("--text", Some(&args.text))
            .opt("--author", args.author.as_deref())
            .positional(args.task.as_deref());
        self.run(line).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Gate {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "gate's questions and appends for the task in this repository. Each tool returns \
                 the JSON document the CLI's --json prints (docs/json.md). The loop: binding, \
                 start, may_touch before each edit, verify each acceptance check, status until \
                 every one passed, check before pushing; ask for a decision made alone, amend for \
                 the operator's clarification, note where the work diverges. Never bypass \
                 gate's hooks with --no-verify.",
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_names_one_type_and_the_same_values_pass() {
        let mut schema = serde_json::json!({
            "type": "object",
            "properties": {
                "hint": {"type": ["string", "null"], "description": "d"},
                "kept": {"type": "string"},
                "list": {"type": "array", "items": {"type": ["integer", "null"], "minimum": 0}},
                "both": {"type": ["string", "null"], "anyOf": [{"maxLength": 3}, {"type": "null"}]},
            },
        });
        one_type_each(&mut schema);
        let properties = &schema["properties"];
        assert_eq!(
            properties["hint"],
            serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}], "description": "d"})
        );
        assert_eq!(properties["kept"], serde_json::json!({"type": "string"}));
        assert_eq!(
            properties["list"]["items"],
            serde_json::json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "minimum": 0})
        );
        assert_eq!(
            properties["both"],
            serde_json::json!({"allOf": [
                {"anyOf": [{"maxLength": 3}, {"type": "null"}]},
                {"anyOf": [{"type": "string"}, {"type": "null"}]},
            ]})
        );
        assert_eq!(schema["type"], "object");
    }

    fn args(line: Line) -> Vec<String> {
        line.finish()
            .0
            .into_iter()
            .map(|a| a.into_string().expect("UTF-8"))
            .collect()
    }

    #[test]
    fn values_that_look_like_flags_stay_values() {
        let line = Line::new(Path::new("/r"), &["task", "note"])
            .opt("--text", Some("--no-verify"))
            .positional(Some("-T1"));
        assert_eq!(
            args(line),
            [
                "gate",
                "-C",
                "/r",
                "task",
                "note",
                "--json",
                "--text=--no-verify",
                "--",
                "-T1"
            ]
        );
    }
}
