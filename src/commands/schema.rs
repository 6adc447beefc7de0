//! `gate schema policy|plan|task`: print the JSON Schema of a gate file
//! (docs/schema.md). Needs no repository.

use crate::cli::{SchemaArgs, SchemaDocument};
use crate::context::out;
use crate::error::Failure;
use crate::schema::{self, Document};
use crate::verdict::ExitCode;

pub fn run(args: &SchemaArgs) -> Result<ExitCode, Failure> {
    let document = match args.document {
        SchemaDocument::Policy => Document::Policy,
        SchemaDocument::Plan => Document::Plan,
        SchemaDocument::Task => Document::Task,
    };
    out(&schema::text(document));
    Ok(ExitCode::Pass)
}
