//! JSON Schemas of gate's YAML files (`gate schema`, docs/schema.md),
//! generated from the closed models themselves with `schemars`, so a schema
//! cannot say other than what gate reads: `deny_unknown_fields` becomes
//! `additionalProperties: false`, `#[serde(default)]` an optional key.
//!
//! Draft 7, because editors validate with yaml-language-server, which
//! supports JSON Schema draft 7 and below (docs/schema.md). This module
//! reads no file and decides nothing about a change.

use schemars::generate::SchemaSettings;

/// The files gate can describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Document {
    /// `.gate/policy.yaml`.
    Policy,
    /// `.gate/plan.yaml`.
    Plan,
    /// The front matter of a task file, `.gate/tasks/ID.md`.
    Task,
}

impl Document {
    /// Every document, in the order `gate init` writes their schemas.
    pub const ALL: [Document; 3] = [Document::Policy, Document::Plan, Document::Task];

    /// `policy`, `plan`, `task`: the argument of `gate schema`.
    pub fn name(self) -> &'static str {
        match self {
            Document::Policy => "policy",
            Document::Plan => "plan",
            Document::Task => "task",
        }
    }

    /// Where `gate init` writes this schema, repository-relative
    /// (docs/decisions/0017-schema-files-beside-the-yaml.md).
    pub fn path(self) -> String {
        format!("{SCHEMA_DIR}/{}.json", self.name())
    }
}

/// The directory `gate init` writes the schemas to.
pub const SCHEMA_DIR: &str = ".gate/schema";

/// The schema of `document`, as a JSON value.
pub fn generate(document: Document) -> serde_json::Value {
    let generator = SchemaSettings::draft07().into_generator();
    let schema = match document {
        Document::Policy => generator.into_root_schema_for::<crate::policy::RawPolicy>(),
        Document::Plan => generator.into_root_schema_for::<crate::plan::Plan>(),
        Document::Task => generator.into_root_schema_for::<crate::task::TaskRecord>(),
    };
    schema.to_value()
}

/// The schema of `document` as `gate schema` prints it and `gate init`
/// writes it: pretty JSON with a final newline.
pub fn text(document: Document) -> String {
    let mut text =
        serde_json::to_string_pretty(&generate(document)).expect("a JSON value always serialises");
    text.push('\n');
    text
}

/// The comment that points yaml-language-server at the schema, for a file
/// in `.gate/` (the path is relative to that file).
pub fn modeline(document: Document) -> String {
    format!(
        "# yaml-language-server: $schema=schema/{}.json\n",
        document.name()
    )
}
