//! The renderings of verdicts and of every verb's answer: [`human`] (the
//! human text of every verb), [`json`] (the canonical `gate.report/1` and
//! `gate.error/1` documents) with [`wire`] (every JSON document's structs),
//! and the renderings built from the report's wire values, [`github`],
//! [`markdown`] and [`sarif`]. The model they render is `crate::verdict`;
//! nothing below the doors (`checks`, the cores, `verdict`) names this
//! module (docs/architecture.md). Nothing here prints: the dispatcher
//! writes what these return, through the run's `crate::ui::Ui`.

pub mod causes;
pub mod github;
pub mod human;
pub mod json;
pub mod limit;
pub mod markdown;
pub mod sarif;
pub mod style;
pub mod wire;

/// A report as a verb's answer (`gate task validate`, `gate plan
/// validate`): its `gate.report/1` document, or the report for people.
pub struct ReportAnswer(pub crate::verdict::Report);

impl crate::ui::Shown for ReportAnswer {
    type Wire<'a> = wire::report::ReportWire<'a>;
    fn wire(&self) -> Self::Wire<'_> {
        json::report(&self.0)
    }
    fn text(&self) -> String {
        human::render(&self.0)
    }
}
