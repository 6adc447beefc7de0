//! Commit-message trailers, found as git finds them (`git interpret-trailers`).

/// The values of trailer `key` (case-insensitive) in a commit message, as
/// git finds trailers: in the last paragraph, never in the title paragraph,
/// and only when that paragraph is a trailer block — every line a
/// `Token: value` trailer or an indented continuation, or (git's rule for
/// mixed blocks) at least a quarter trailers with a `Signed-off-by:` or
/// `(cherry picked from commit` line among them. Repeated values count once.
pub fn trailer_values(message: &[u8], key: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(message);
    // Only the last paragraph can hold trailers, and only when another comes
    // before it: found from the end, as most of a message is never looked at.
    let mut lines = text.lines().rev().skip_while(|line| line.trim().is_empty());
    let mut block: Vec<&str> = lines
        .by_ref()
        .take_while(|line| !line.trim().is_empty())
        .collect();
    if block.is_empty() || !lines.any(|line| !line.trim().is_empty()) {
        return Vec::new();
    }
    block.reverse();
    let trailer = |line: &str| -> Option<(String, String)> {
        let (token, value) = line.split_once(':')?;
        let token = token.trim_end();
        let ok = !token.is_empty()
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        ok.then(|| (token.to_string(), value.trim().to_string()))
    };
    let continuation = |line: &str| line.starts_with([' ', '\t']);
    // Counted as git's trailer.c counts, bottom up: indented lines continue
    // the trailer above them, or else are not trailers.
    let (mut trailers, mut others, mut maybe_continued, mut generated) = (0, 0, 0, false);
    for line in block.iter().rev() {
        if line.starts_with("Signed-off-by: ") || line.starts_with("(cherry picked from commit ") {
            generated = true;
            trailers += 1;
        } else if trailer(line).is_some() {
            trailers += 1;
            maybe_continued = 0;
        } else if continuation(line) {
            maybe_continued += 1;
        } else {
            others += maybe_continued + 1;
            maybe_continued = 0;
        }
    }
    if trailers == 0 || (others > 0 && !(generated && trailers * 3 >= others)) {
        return Vec::new();
    }
    // Unfold continuation lines into the trailer above them.
    let mut unfolded: Vec<(String, String)> = Vec::new();
    for line in &block {
        match (trailer(line), unfolded.last_mut()) {
            (Some(t), _) => unfolded.push(t),
            (None, Some((_, value))) if continuation(line) => {
                value.push(' ');
                value.push_str(line.trim());
            }
            _ => {}
        }
    }
    let mut values: Vec<String> = Vec::new();
    for (token, value) in unfolded {
        if token.eq_ignore_ascii_case(key) && !value.is_empty() && !values.contains(&value) {
            values.push(value);
        }
    }
    values
}
