//! `gate schema policy|plan|task`: print the JSON Schema of a gate file
//! (docs/schema.md). Needs no repository.

use crate::cli::{SchemaArgs, SchemaDocument};
use crate::error::Failure;
use crate::schema::{self, Document};
use crate::ui::Answer;
use crate::verdict::ExitCode;

pub fn run(args: &SchemaArgs) -> Result<Answer, Failure> {
    let document = match args.document {
        SchemaDocument::Policy => Document::Policy,
        SchemaDocument::Plan => Document::Plan,
        SchemaDocument::Task => Document::Task,
    };
    Ok(Answer::text(ExitCode::Pass, schema::text(document)))
}
