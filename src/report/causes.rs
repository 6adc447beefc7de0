//! docs/causes.md as data: each cause's meaning and what decides it, read
//! from the page's tables (built in), for renderings that describe a cause
//! beside a finding (SARIF's rules). The page stays the one place a cause
//! is described.

/// The page, as built into this binary.
const PAGE: &str = include_str!("../../docs/causes.md");

/// Where the page is published for this version: the crate's source on
/// docs.rs (the package is `git-gate`).
pub fn page_uri() -> String {
    format!(
        "https://docs.rs/crate/git-gate/{}/source/docs/causes.md",
        env!("CARGO_PKG_VERSION")
    )
}

/// A cause as the page describes it, in Markdown as written there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CauseDoc {
    pub meaning: String,
    pub decide: String,
}

/// The row of `cause` under `check`'s section, else the first row of
/// `cause` in any section (a cause one check shares with another).
pub fn describe(check: &str, cause: &str) -> Option<CauseDoc> {
    let rows = rows(PAGE);
    rows.iter()
        .find(|(c, name, _)| c == check && name == cause)
        .or_else(|| rows.iter().find(|(_, name, _)| name == cause))
        .map(|(_, _, doc)| doc.clone())
}

/// `(check, cause, doc)` for every table row of `page` that describes its
/// causes: a section's check is its heading's first word (`## plan (…)` is
/// `plan`); a row is `` | `cause` | severity | meaning | what decides it | ``
/// (some tables have no last column), and may name several causes
/// (`` `a`, `b` ``). A row that only points at another (`as above`, an
/// empty meaning) is left out: [`describe`] then finds the other.
fn rows(page: &str) -> Vec<(String, String, CauseDoc)> {
    let mut check = String::new();
    let mut rows = Vec::new();
    for line in page.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            check = heading
                .split([' ', ':'])
                .next()
                .unwrap_or_default()
                .to_string();
            continue;
        }
        let cells = cells(line);
        let (causes, meaning, decide) = match cells.as_slice() {
            [causes, _severity, meaning] => (causes, meaning, ""),
            [causes, _severity, meaning, decide] => (causes, meaning, decide.as_str()),
            _ => continue,
        };
        if meaning.is_empty() || !causes.starts_with('`') {
            continue;
        }
        for cause in causes.split(',') {
            let Some(cause) = cause
                .trim()
                .strip_prefix('`')
                .and_then(|c| c.strip_suffix('`'))
            else {
                continue;
            };
            rows.push((
                check.clone(),
                cause.to_string(),
                CauseDoc {
                    meaning: meaning.to_string(),
                    decide: decide.to_string(),
                },
            ));
        }
    }
    rows
}

/// The cells of a Markdown table row (`| a | b |`), trimmed; `\|` is a
/// `|` inside a cell. Empty for a line that is not a row.
fn cells(line: &str) -> Vec<String> {
    let Some(inner) = line
        .trim()
        .strip_prefix('|')
        .and_then(|l| l.strip_suffix('|'))
    else {
        return Vec::new();
    };
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().expect("one cell at least").push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            _ => cells.last_mut().expect("one cell at least").push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Markdown as plain text: links become their text, code spans lose their
/// backticks.
pub fn plain(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| {
            after[close + 2..]
                .find(')')
                .map(|end| (close, close + 2 + end))
        }) {
            Some((close, end)) if !after[..close].contains('[') => {
                out.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace('`', "")
}

/// Markdown with the page's relative links (`tasks.md#x`) made absolute,
/// beside the page as published.
pub fn absolute_links(markdown: &str) -> String {
    let base = page_uri();
    let dir = base.trim_end_matches("causes.md");
    markdown
        .replace("](", &format!("]({dir}"))
        .replace(&format!("]({dir}http"), "](http")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cause_the_page_names_is_described() {
        let rows = rows(PAGE);
        assert!(rows.len() >= 80, "{}", rows.len());
        for (check, cause, doc) in &rows {
            assert!(!check.is_empty(), "{cause}");
            assert!(!doc.meaning.is_empty(), "{check}: {cause}");
        }
        // Every cause in a table's first cell has a description somewhere,
        // the rows that say `as above` included.
        for line in PAGE.lines() {
            let cells = cells(line);
            let Some(first) = cells.first().filter(|c| c.starts_with('`')) else {
                continue;
            };
            for cause in first.split(',') {
                let cause = cause.trim().trim_matches('`');
                assert!(
                    rows.iter().any(|(_, c, _)| c == cause),
                    "{cause} is not described"
                );
            }
        }
    }

    #[test]
    fn a_cause_is_described_under_its_check_first() {
        let scope = describe("scope", "path_outside_scope").unwrap();
        let provenance = describe("provenance", "path_outside_scope").unwrap();
        assert!(scope.meaning.starts_with("a staged"), "{scope:?}");
        assert!(
            provenance.meaning.starts_with("a commit in the range"),
            "{provenance:?}"
        );
        assert_eq!(
            describe("nowhere", "shallow_history"),
            describe("provenance", "shallow_history")
        );
        assert_eq!(describe("scope", "no_such_cause"), None);
    }

    #[test]
    fn rows_split_on_unescaped_bars_only() {
        assert_eq!(cells("| `a` | b \\| c | d |"), ["`a`", "b | c", "d"]);
        assert!(cells("not a row").is_empty());
    }

    #[test]
    fn markdown_is_made_plain_and_its_links_absolute() {
        let text = "see [tasks.md](tasks.md#x) and `gate start`, [y](https://e.org/y)";
        assert_eq!(plain(text), "see tasks.md and gate start, y");
        let linked = absolute_links(text);
        assert!(
            linked.contains(&format!(
                "[tasks.md]({}",
                page_uri().trim_end_matches("causes.md")
            )),
            "{linked}"
        );
        assert!(linked.contains("[y](https://e.org/y)"), "{linked}");
        assert_eq!(plain("a [b] c"), "a [b] c");
    }
}
