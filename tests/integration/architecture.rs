//! The direction of dependencies (docs/architecture.md): `main` → `commands`
//! → `checks` and the shared modules → the pure cores → `git`,
//! `fingerprint`, `yaml`. A verb never names another verb, nothing below
//! the verbs names `commands`, and the renderers (`report`) are a leaf only
//! the doors name: `checks`, the cores and the verdict model never do. Read
//! from the source, so a new edge fails here rather than in review.

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The code of a file, its `//` comments left out: a comment may name a
/// module without depending on it.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable source file");
    text.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The verbs: one module each in `src/commands/`.
fn verbs() -> Vec<String> {
    let verbs: Vec<String> = rust_files(&src().join("commands"))
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_string))
        .filter(|v| v != "mod")
        .collect();
    assert!(
        ["check", "hook", "status", "task"]
            .iter()
            .all(|v| verbs.iter().any(|x| x == v)),
        "src/commands/ holds the verbs: {verbs:?}"
    );
    verbs
}

/// The first module of each path `code` starts with `prefix` (`super::`,
/// `crate::`): `prefix NAME::…`, or each name of a group `prefix{.., NAME, ..}`.
fn modules_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut named = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        rest = &rest[i + prefix.len()..];
        match rest.strip_prefix('{') {
            Some(group) => named.extend(
                group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(|n| n.trim().split("::").next().unwrap_or("").trim()),
            ),
            None => named.push(
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or(""),
            ),
        }
    }
    named
}

/// Where `code` (of the verb `own`) names another verb: `super::VERB`,
/// `super::{.., VERB, ..}`, or any path through `commands::`.
fn verb_edges(own: &str, code: &str, verbs: &[String]) -> Vec<String> {
    let mut edges = Vec::new();
    if code.contains("commands::") {
        edges.push("commands::".to_string());
    }
    for name in modules_after(code, "super::") {
        if name != own && verbs.iter().any(|v| v == name) {
            edges.push(format!("super::{name}"));
        }
    }
    edges
}

#[test]
fn no_verb_names_another_verb() {
    let verbs = verbs();
    let mut found = Vec::new();
    for verb in &verbs {
        let path = src().join("commands").join(format!("{verb}.rs"));
        for edge in verb_edges(verb, &code(&path), &verbs) {
            found.push(format!("src/commands/{verb}.rs names {edge}"));
        }
    }
    assert!(
        found.is_empty(),
        "a verb depends on the library only; move what verbs share out of \
         src/commands/ (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

/// Each `.rs` file under `src/` that `skip` does not leave out: its path
/// under `src/`, and its code.
fn sources(skip: impl Fn(&Path) -> bool) -> Vec<(PathBuf, String)> {
    let root = src();
    rust_files(&root)
        .into_iter()
        .filter_map(|path| {
            let rel = path.strip_prefix(&root).expect("under src/").to_path_buf();
            (!skip(&rel)).then(|| (rel, code(&path)))
        })
        .collect()
}

#[test]
fn nothing_below_the_verbs_names_commands() {
    // `main` and `lib` sit above the verbs; the verbs are the test above.
    let read = sources(|rel| {
        rel.starts_with("commands") || rel == Path::new("main.rs") || rel == Path::new("lib.rs")
    });
    let found: Vec<String> = read
        .iter()
        .filter(|(_, code)| code.contains("commands::"))
        .map(|(rel, _)| format!("src/{} names commands::", rel.display()))
        .collect();
    assert!(read.len() > 20, "only {} files read under src/", read.len());
    assert!(
        found.is_empty(),
        "report, checks and the cores never depend on a verb (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

/// Where `code` names the crate's module `module`: `crate::MODULE`, or
/// `crate::{.., MODULE, ..}` (`MODULE::…` inside the group too).
fn module_edges(code: &str, module: &str) -> Vec<String> {
    modules_after(code, "crate::")
        .into_iter()
        .filter(|name| *name == module)
        .map(|name| format!("crate::{name}"))
        .collect()
}

#[test]
fn only_the_doors_name_the_renderers() {
    // The doors render: the verbs, `main` and `lib` above them, and
    // `mcp.rs`, which runs a verb's command line and reads its document;
    // `report` itself.
    let read = sources(|rel| {
        rel.starts_with("commands")
            || rel.starts_with("report")
            || [
                Path::new("main.rs"),
                Path::new("lib.rs"),
                Path::new("mcp.rs"),
            ]
            .contains(&rel)
    });
    let found: Vec<String> = read
        .iter()
        .filter(|(_, code)| !module_edges(code, "report").is_empty())
        .map(|(rel, _)| format!("src/{} names crate::report", rel.display()))
        .collect();
    assert!(
        read.len() > 20
            && read
                .iter()
                .filter(|(rel, _)| rel.starts_with("checks"))
                .count()
                > 5,
        "only {} files read under src/",
        read.len()
    );
    assert!(
        found.is_empty(),
        "checks, the cores and the verdict model build findings (crate::verdict) and never \
         name a renderer; the edge runs report → verdict, one way (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_module_edge_finder_sees_each_way_of_naming_a_module() {
    let edges = |code| module_edges(code, "report");
    assert_eq!(edges("use crate::report::human;"), ["crate::report"]);
    assert_eq!(
        edges("use crate::{context, report::text::shown};"),
        ["crate::report"]
    );
    assert_eq!(
        edges("crate::report::json::to_string(&x)"),
        ["crate::report"]
    );
    assert!(edges("use crate::reports; crate::verdict::Report; crate::{checks}").is_empty());
}

#[test]
fn the_edge_finder_sees_each_way_of_naming_a_verb() {
    let verbs: Vec<String> = ["check", "hook", "status"].map(String::from).to_vec();
    let edges = |code| verb_edges("hook", code, &verbs);
    assert_eq!(edges("use super::check::Target;"), ["super::check"]);
    assert_eq!(
        edges("use super::{Ctx, status, check::build};"),
        ["super::status", "super::check"]
    );
    assert_eq!(edges("crate::commands::status::CHECK"), ["commands::"]);
    assert!(edges("use super::*; super::hook_helper(); super::hook::x").is_empty());
}

#[test]
fn only_the_transport_module_runs_git() {
    let root = src();
    let mut found = Vec::new();
    let mut transport = false;
    for path in rust_files(&root) {
        let rel = path.strip_prefix(&root).expect("under src/");
        let code = code(&path);
        let runs_git = code.contains("Command::new(\"git\")");
        if rel == Path::new("git/transport.rs") {
            transport = runs_git;
        } else if runs_git {
            found.push(format!("src/{} runs git", rel.display()));
        }
    }
    assert!(
        transport,
        "src/git/transport.rs no longer runs git: update this test"
    );
    assert!(
        found.is_empty(),
        "only src/git/transport.rs spawns git, to move refs/notes/gate (docs/architecture.md, decision 0019); everything else is gix:\n{}",
        found.join("\n")
    );
}

/// A test that cannot run here says so through `support::skip`, which
/// writes past the harness's capture and fails under the full suite: an
/// `eprintln!` of a skip is captured, so the test would pass silently.
#[test]
fn every_skip_is_said_and_fails_the_full_suite() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let mut found = Vec::new();
    for path in rust_files(&tests) {
        let text = std::fs::read_to_string(&path).expect("a readable test file");
        // A skip printed by `eprintln!`, its message on the same line or
        // the next.
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let said = line.to_lowercase();
            let next = lines
                .get(i + 1)
                .map(|l| l.to_lowercase())
                .unwrap_or_default();
            if said.contains("eprintln!(")
                && (said.contains("skip") || (!said.contains('"') && next.contains("skip")))
            {
                found.push(format!("{}:{}", path.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a skip printed with eprintln! passes silently: use support::skip\n{}",
        found.join("\n")
    );
}

/// The names that tie code to one operating system.
const PLATFORM_APIS: &[&str] = &[
    "std::os::unix",
    "std::os::fd",
    "std::os::windows",
    "os::unix::",
    "rustix::",
    "libc::",
];

/// The code of `code` that a build for the platform compiles: what comes
/// before the file's test module (`#[cfg(test)] mod …`, at the end; a test
/// may make a FIFO or a link with unix calls).
fn built(code: &str) -> &str {
    const MARK: &str = "#[cfg(test)]";
    code.match_indices(MARK)
        .find(|(i, _)| code[i + MARK.len()..].trim_start().starts_with("mod "))
        .map_or(code, |(i, _)| &code[..i])
}

#[test]
fn only_the_platform_module_names_operating_system_apis() {
    let mut found = Vec::new();
    let mut platform = false;
    for (rel, code) in sources(|_| false) {
        let names: Vec<&str> = PLATFORM_APIS
            .iter()
            .copied()
            .filter(|api| built(&code).contains(api))
            .collect();
        if rel.starts_with("platform") {
            platform |= !names.is_empty();
        } else if !names.is_empty() {
            found.push(format!("src/{} names {}", rel.display(), names.join(", ")));
        }
    }
    assert!(
        platform,
        "src/platform/ names no operating-system API any more: update this test"
    );
    assert!(
        found.is_empty(),
        "only src/platform/ calls what one operating system offers; everything \
         else asks it, so that a build for another platform is a target away \
         (docs/platforms.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn built_code_stops_at_the_tests() {
    let code = "use std::fs;\n#[cfg(test)]\nmod tests { use std::os::unix::fs::symlink; }";
    assert_eq!(built(code), "use std::fs;\n");
    let code = "#[cfg(test)]\nfn helper() {}\nuse rustix::fs;\n#[cfg(test)]\nmod t {}";
    assert_eq!(
        built(code),
        "#[cfg(test)]\nfn helper() {}\nuse rustix::fs;\n"
    );
    assert_eq!(built("fn f() {}"), "fn f() {}");
}

/// Ways of writing to the process's stdout or stderr.
const STREAM_WRITES: &[&str] = &[
    "io::stdout(",
    "io::stderr(",
    "println!(",
    "eprintln!(",
    "print!(",
    "eprint!(",
    "context::out(",
    "context::err(",
];

/// A verb answers with data and says what it says while it runs through
/// the `Ui` passed down (docs/architecture.md, "The output seam"): only
/// `ui.rs` writes to stdout and stderr, besides the progress meters
/// (`progress.rs`, drawn and erased on a terminal's stderr) and the
/// platform module, which hands `gate mcp` its streams.
#[test]
fn only_the_ui_writes_to_stdout_and_stderr() {
    let allowed = |rel: &Path| {
        rel == Path::new("ui.rs") || rel == Path::new("progress.rs") || rel.starts_with("platform")
    };
    let mut found = Vec::new();
    let mut ui = false;
    for (rel, code) in sources(|_| false) {
        let built = built(&code);
        let writes: Vec<&str> = STREAM_WRITES
            .iter()
            .copied()
            .filter(|w| built.contains(w))
            .collect();
        if rel == Path::new("ui.rs") {
            ui = writes.contains(&"io::stdout(");
        } else if !allowed(&rel) && !writes.is_empty() {
            found.push(format!(
                "src/{} writes with {}",
                rel.display(),
                writes.join(", ")
            ));
        }
    }
    assert!(ui, "src/ui.rs no longer writes stdout: update this test");
    assert!(
        found.is_empty(),
        "verbs return an Answer and say the rest through the Ui passed down; nothing else \
         writes to the process's streams:\n{}",
        found.join("\n")
    );
}

/// `gate mcp` calls the verbs with their own arguments and takes their
/// answer's document: it builds no command line and parses no output
/// (docs/decisions/0018-mcp-server.md).
#[test]
fn the_mcp_server_builds_no_command_line() {
    let signs = [
        "OsString",
        "try_parse_from",
        "parse_from(",
        "\"--json\"",
        "serde_json::from_str",
        "captured(",
        "run_line",
    ];
    let read = sources(|rel| !(rel == Path::new("mcp.rs") || rel.starts_with("mcp")));
    assert!(
        read.iter().any(|(rel, _)| rel == Path::new("mcp.rs")),
        "src/mcp.rs was not read"
    );
    let found: Vec<String> = read
        .iter()
        .flat_map(|(rel, code)| {
            signs
                .iter()
                .filter(|s| built(code).contains(*s))
                .map(move |s| format!("src/{} uses {s}", rel.display()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "each MCP tool deserialises its arguments into the verb's and calls it:\n{}",
        found.join("\n")
    );
}

/// The crate's top-level modules (`src/NAME.rs` or `src/NAME/`) and the
/// others each names, test modules left out.
fn module_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut graph = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    for (rel, code) in sources(|rel| rel == Path::new("main.rs") || rel == Path::new("lib.rs")) {
        let own = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|c| c.trim_end_matches(".rs").to_string())
            .expect("a file under src/");
        let named: Vec<String> = modules_after(built(&code), "crate::")
            .into_iter()
            .filter(|name| !name.is_empty() && *name != own)
            .map(str::to_string)
            .collect();
        graph.entry(own).or_default().extend(named);
    }
    graph
}

/// A circle of `graph`, as the modules in order, if there is one.
fn circle(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Option<Vec<String>> {
    fn visit(
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        at: &str,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|m| m == at) {
            let mut found = path[i..].to_vec();
            found.push(at.to_string());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in graph.get(at).into_iter().flatten() {
            if let Some(found) = visit(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(graph, start, &mut Vec::new(), &mut done))
}

/// The modules depend one way: no module reaches itself through the
/// modules it names (the `binding` ↔ `brief` ↔ `task` circle, and the
/// larger one through `task`'s local state and `plan` ↔ `fingerprint`, are
/// gone: docs/architecture.md).
#[test]
fn no_module_names_its_way_back_to_itself() {
    let graph = module_graph();
    assert!(
        ["task", "brief", "binding", "checks", "commands"]
            .iter()
            .all(|m| graph.contains_key(*m)),
        "the module graph was not read: {:?}",
        graph.keys().collect::<Vec<_>>()
    );
    assert!(
        graph["brief"].contains("task") && graph["binding"].contains("task"),
        "the edge finder no longer sees brief → task and binding → task"
    );
    assert_eq!(circle(&graph), None, "a circle of modules");
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let graph: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a", "d"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_string(), to.into_iter().map(str::to_string).collect()))
    .collect();
    assert_eq!(
        circle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let mut one_way = graph.clone();
    one_way.get_mut("c").unwrap().remove("a");
    assert_eq!(circle(&one_way), None);
}
