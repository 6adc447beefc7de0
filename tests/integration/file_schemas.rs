//! `gate schema policy|plan|task` and the schemas `gate init` writes
//! (docs/schema.md): each schema is a valid draft-7 schema, accepts the
//! files gate ships and documents, and rejects an unknown key, as gate does.

use std::path::Path;

use serde_json::Value;

use crate::fixture::{plan_repo, show, start_42};
use crate::support::TestRepo;

/// The schema `gate schema NAME` prints.
fn schema(name: &str) -> Value {
    let repo = TestRepo::new();
    let out = repo.gate().args(["schema", name]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("gate schema prints JSON");
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-07/schema#",
        "draft 7: what yaml-language-server reads"
    );
    assert!(
        jsonschema::meta::is_valid(&schema),
        "{name}: not a valid JSON Schema"
    );
    schema
}

/// A YAML document as the JSON value an editor validates.
fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).expect("the example is YAML")
}

/// The validation errors of `instance`, one line each.
fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("the schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn accepts(schema: &Value, what: &str, instance: &Value) {
    let errors = errors(schema, instance);
    assert!(errors.is_empty(), "{what} is refused: {errors:#?}");
}

fn rejects_unknown(schema: &Value, what: &str, instance: &Value, key: &str) {
    let errors = errors(schema, instance);
    assert!(
        errors.iter().any(|e| e.contains(key)),
        "{what}: the unknown key {key:?} is accepted: {errors:#?}"
    );
}

/// The first fenced YAML block of a document in docs/.
fn doc_example(doc: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = start + text[start..].find("```").expect("a closed block");
    text[start..end].to_string()
}

#[test]
fn the_policy_schema_accepts_the_shipped_policies_and_rejects_an_unknown_key() {
    let schema = schema("policy");
    let default = yaml(gate::policy::DEFAULT_POLICY_YAML);
    accepts(&schema, "the embedded default policy", &default);
    let documented = doc_example("policy.md");
    gate::policy::parse(Path::new("docs/policy.md"), &documented).expect("gate reads it");
    accepts(&schema, "docs/policy.md's policy", &yaml(&documented));
    accepts(&schema, "a minimal policy", &yaml("version: 1\n"));

    let mut unknown = default.clone();
    unknown["colour"] = "red".into();
    rejects_unknown(&schema, "a top-level key", &unknown, "colour");
    let mut nested = default.clone();
    nested["provenance"]["mergs"] = "inspect".into();
    rejects_unknown(&schema, "a key in provenance", &nested, "mergs");
    // What gate refuses besides unknown keys: another version, a mode
    // misspelt, a section present but empty, a limit of zero.
    for (text, key) in [
        ("version: 2\n", "version"),
        ("version: 1\nscope: requird\n", "scope"),
        ("version: 1\nreceipts:\n", "receipts"),
        (
            "version: 1\nreceipts: {mode: off, max_entries: 0}\n",
            "max_entries",
        ),
        (
            "version: 1\nbrief: {mode: off, required_since: soon}\n",
            "required_since",
        ),
    ] {
        assert!(
            gate::policy::parse(Path::new("p.yaml"), text).is_err(),
            "gate accepts {text:?}"
        );
        rejects_unknown(&schema, text, &yaml(text), key);
    }
}

#[test]
fn the_plan_schema_accepts_the_shipped_plans_and_rejects_an_unknown_key() {
    let schema = schema("plan");
    let example = yaml(gate::commands::init::EXAMPLE_PLAN);
    accepts(&schema, "the example plan gate init writes", &example);
    accepts(
        &schema,
        "docs/plan.md's plan",
        &yaml(&doc_example("plan.md")),
    );
    accepts(&schema, "the tests' plan", &yaml(crate::fixture::PLAN));
    accepts(&schema, "an empty plan", &yaml("{}"));

    let mut unknown = example.clone();
    unknown["milestones"] = Value::Array(vec![]);
    rejects_unknown(&schema, "a top-level key", &unknown, "milestones");
    let mut nested = example.clone();
    nested["checks"][0]["timeout"] = 10.into();
    rejects_unknown(&schema, "a key in a check", &nested, "timeout");
    let mut number = example.clone();
    number["issues"][0]["id"] = 42.into();
    rejects_unknown(
        &schema,
        "an issue id written as a number",
        &number,
        "issues/0/id",
    );
}

#[test]
fn the_task_schema_accepts_a_started_task_and_rejects_an_unknown_key() {
    let schema = schema("task");
    let repo = plan_repo("advisory");
    start_42(&repo);
    let text = std::fs::read_to_string(repo.path().join(".gate/tasks/T-42.md")).unwrap();
    let front_matter = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .expect("front matter")
        .0;
    let record = yaml(front_matter);
    accepts(&schema, "the front matter gate start wrote", &record);

    let mut unknown = record.clone();
    unknown["priority"] = "high".into();
    rejects_unknown(&schema, "a top-level key", &unknown, "priority");
    let mut nested = record.clone();
    nested["pins"]["when"] = "now".into();
    rejects_unknown(&schema, "a key in pins", &nested, "when");
    // The nullable keys must be present (docs/tasks.md), `null` or not.
    let mut missing = record.clone();
    missing.as_object_mut().unwrap().remove("exemption");
    rejects_unknown(&schema, "a missing nullable key", &missing, "exemption");
    let mut wrong = record.clone();
    wrong["schema"] = "gate.task/2".into();
    rejects_unknown(&schema, "another schema", &wrong, "schema");
}

#[test]
fn init_writes_the_schemas_and_points_the_yaml_files_at_them() {
    let repo = TestRepo::new();
    let out = repo.gate().arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for (file, name) in [("policy.yaml", "policy"), ("plan.yaml", "plan")] {
        let text = std::fs::read_to_string(repo.path().join(".gate").join(file)).unwrap();
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            format!("# yaml-language-server: $schema=schema/{name}.json"),
        );
        // The modeline's path is relative to the YAML file (docs/schema.md).
        let written = repo
            .path()
            .join(".gate/schema")
            .join(format!("{name}.json"));
        let written: Value = serde_json::from_slice(&std::fs::read(&written).unwrap()).unwrap();
        assert_eq!(written, schema(name), "{name}: init and gate schema agree");
        accepts(&written, file, &yaml(&text));
    }
    let task: Value =
        serde_json::from_slice(&std::fs::read(repo.path().join(".gate/schema/task.json")).unwrap())
            .unwrap();
    assert_eq!(task, schema("task"));
}
