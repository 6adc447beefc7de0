//! The MCP server behind `gate mcp` (docs/agents.md#mcp-server): the
//! agent's questions and the appends it may make, as tools on stdio.
//!
//! A tool is a verb: it deserialises its arguments into the verb's own
//! arguments (`crate::cli`, `--json` set) and calls the same function the
//! CLI's dispatcher calls (`commands::answer`, handed in as [`Dispatch`]),
//! with a [`Ui`] that gives the texts the verb reads for `-` and never
//! reads stdin. The verb's answer is data: the tool returns its document,
//! serialised as the CLI's `--json` prints it — no command line is built
//! and no output parsed (docs/decisions/0018-mcp-server.md).
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

use std::path::{Path, PathBuf};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use crate::cli::{CheckName, Command, TaskCommand};
use crate::error::Failure;
use crate::ui::{Answer, Ui};

mod lines;

/// How many bytes each in-memory pipe between rmcp and the line layer
/// holds before its writer waits.
const PIPE: usize = 64 * 1024;

/// Runs a verb in a directory, saying what it says while it runs through
/// the `Ui` given: `commands::answer`.
pub type Dispatch = fn(Option<&Path>, Command, &Ui) -> Result<Answer, Failure>;

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

impl Gate {
    /// Call the verb on a blocking thread, the texts it reads for `-`
    /// given, and return its document.
    async fn call(
        &self,
        command: Command,
        inputs: crate::ui::Given,
    ) -> Result<CallToolResult, ErrorData> {
        let (dir, dispatch) = (self.dir.clone(), self.dispatch);
        tokio::task::spawn_blocking(move || {
            let ui = Ui::given(inputs);
            match dispatch(Some(&dir), command, &ui) {
                Ok(answer) => {
                    // What the CLI says on stderr after the document, the
                    // server says on its stderr.
                    answer.say_after(&ui, true);
                    answered(&answer)
                }
                Err(f) => {
                    ui.err(&crate::report::human::failure(&f));
                    could_not_run(&f)
                }
            }
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the verb did not finish: {e}"), None))
    }
}

/// The tool's result: the verb's document, as text exactly as the CLI
/// prints it and as structured content. A refusal or an unknown is an
/// answer, with its `exit_code` in the document.
fn answered(answer: &Answer) -> CallToolResult {
    let Some(doc) = answer.doc() else {
        // Every verb a tool calls answers with a document (docs/json.md):
        // anything else is gate's fault, said as such.
        return CallToolResult::error(vec![ContentBlock::text(
            "gate's verb answered with no JSON document",
        )]);
    };
    let mut printed = Vec::new();
    let _ = doc.json(&mut printed);
    let mut result = CallToolResult::structured(doc.value());
    result.content = vec![ContentBlock::text(String::from_utf8_lossy(&printed))];
    result
}

/// The verb could not run: its `gate.error/1`, with `isError` set.
fn could_not_run(f: &Failure) -> CallToolResult {
    let wire = crate::report::json::error(f);
    let mut result = CallToolResult::structured_error(
        serde_json::to_value(&wire).expect("wire structs always serialise"),
    );
    result.content = vec![ContentBlock::text(crate::report::json::to_string(&wire))];
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
    could_not_run(&failure)
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
    /// The naming as `gate binding` and `gate start` take it; `because`
    /// without `exempt` is refused, as the CLI's `--because` needs
    /// `--exempt`.
    fn args(self) -> Result<crate::cli::NamingArgs, String> {
        if self.because.is_some() && self.exempt.is_none() {
            return Err("`because` is the reason for an exemption: it needs `exempt`".into());
        }
        Ok(crate::cli::NamingArgs {
            issue: self.issue,
            intent: self.intent,
            paths: self.paths,
            exempt: self.exempt,
            because: self.because,
        })
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
        let naming = match args.args() {
            Ok(naming) => naming,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let args = crate::cli::BindingArgs { naming, json: true };
        self.call(Command::Binding(args), vec![]).await
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
        let naming = match args.naming.args() {
            Ok(naming) => naming,
            Err(wrong) => return Ok(wrong_arguments(&wrong)),
        };
        let start = crate::cli::StartArgs {
            naming,
            id: args.id,
            scope: args.scope,
            brief: Some("-".into()),
            operator: args.operator,
            json: true,
        };
        let brief = vec![("--brief", args.brief.into_bytes())];
        self.call(Command::Start(start), brief).await
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
        let args = crate::cli::StatusArgs {
            task: args.task,
            json: true,
        };
        self.call(Command::Status(args), vec![]).await
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
        let args = crate::cli::ContextArgs {
            task: args.task,
            json: true,
        };
        self.call(Command::Context(args), vec![]).await
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
        if args.paths.is_empty() {
            return Ok(wrong_arguments("`paths` names no path"));
        }
        let args = crate::cli::MayTouchArgs {
            paths: args.paths,
            json: true,
        };
        self.call(Command::MayTouch(args), vec![]).await
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
        // As the CLI's flags: --staged and --range exclude each other,
        // --policy-from judges a range.
        if args.staged && args.range.is_some() {
            return Ok(wrong_arguments("`staged` and `range` exclude each other"));
        }
        if args.policy_from.is_some() && args.range.is_none() {
            return Ok(wrong_arguments("`policy_from` judges a `range`: give one"));
        }
        let args = crate::cli::CheckArgs {
            staged: args.staged,
            range: args.range,
            not: vec![],
            policy_from: args.policy_from,
            run_unproved: false,
            task: args.task,
            only: args.only,
            json: true,
            format: None,
            max_findings: None,
            json_out: None,
            sarif_out: None,
        };
        self.call(Command::Check(args), vec![]).await
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
        let args = crate::cli::VerifyArgs {
            check: args.check,
            task: args.task,
            json: true,
        };
        self.call(Command::Verify(args), vec![]).await
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
        let args = crate::cli::AmendArgs {
            id: args.task,
            author: args.author,
            text: Some(args.text),
            file: None,
            json: true,
        };
        self.call(Command::Task(TaskCommand::Amend(args)), vec![])
            .await
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
        let mut texts = vec![
            ("--question-file", args.question.into_bytes()),
            ("--answer-file", args.answer.into_bytes()),
        ];
        let rationale_file = args.rationale.map(|r| {
            texts.push(("--rationale-file", r.into_bytes()));
            "-".to_string()
        });
        let args = crate::cli::AskArgs {
            id: args.task,
            stage: args.stage,
            question_file: "-".into(),
            answer_file: "-".into(),
            decided_by: match args.decided_by {
                DecidedBy::Operator => crate::cli::DecidedBy::Operator,
                DecidedBy::Agent => crate::cli::DecidedBy::Agent,
            },
            rationale_file,
            summary: args.summary,
            conflict: args.conflict.unwrap_or_else(|| "none".into()),
            resolves: args.resolves,
            author: args.author,
            json: true,
        };
        self.call(Command::Task(TaskCommand::Ask(args)), texts)
            .await
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
        let args = crate::cli::NoteArgs {
            id: args.task,
            text: args.text,
            author: args.author,
            json: true,
        };
        self.call(Command::Task(TaskCommand::Note(args)), vec![])
            .await
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
}
