//! `gate init`: write `.gate/policy.yaml` (the embedded default, commented),
//! `.gate/plan.yaml` (a commented example plan) and the JSON Schemas of
//! gate's files under `.gate/schema/`, which the two YAML files name in
//! their first line so editors validate them (docs/schema.md). Existing
//! files are kept unless `--force` is given.

use std::path::Path;

use crate::cli::InitArgs;
use crate::context::{Ctx, out};
use crate::error::Failure;
use crate::fsutil;
use crate::report::ExitCode;
use crate::schema::{self, Document};

/// The example plan `gate init` writes.
pub const EXAMPLE_PLAN: &str = include_str!("../../policy/plan.example.yaml");

pub fn run(dir: Option<&Path>, args: &InitArgs) -> Result<ExitCode, Failure> {
    let ctx = Ctx::open(dir)?;
    let mut files = vec![
        (
            crate::policy::POLICY_PATH.to_string(),
            schema::modeline(Document::Policy) + crate::policy::DEFAULT_POLICY_YAML,
        ),
        (
            crate::plan::PLAN_PATH.to_string(),
            schema::modeline(Document::Plan) + EXAMPLE_PLAN,
        ),
    ];
    for document in Document::ALL {
        files.push((document.path(), schema::text(document)));
    }
    let mut text = String::new();
    for (rel, content) in &files {
        let rel = rel.as_str();
        let path = ctx.root().join(rel);
        if path.exists() && !args.force {
            text.push_str(&format!("kept {rel} (it exists; --force overwrites it)\n"));
            continue;
        }
        let verb = if path.exists() { "overwrote" } else { "wrote" };
        // Never through a link: a `.gate` that is one is refused, named.
        fsutil::write_within(
            ctx.root(),
            Path::new(rel),
            content.as_bytes(),
            None,
            Some(&ctx.state_dir().join("tmp")),
        )?;
        text.push_str(&format!("{verb} {rel}\n"));
    }
    text.push_str(
        "next: edit .gate/plan.yaml, `gate plan validate`, commit .gate/ (before `gate install`), then on the work's branch `gate start --issue ID --brief -`\n",
    );
    out(&text);
    Ok(ExitCode::Pass)
}
