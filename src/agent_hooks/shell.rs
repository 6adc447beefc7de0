//! A shell-word scanner: a command line as POSIX sh and bash would split it
//! into simple commands, each as its words (quotes removed, what an
//! expansion would put there kept apart) and its redirections, in the order
//! they run — the commands inside `$(…)`, backquotes, `<(…)`, subshells,
//! `if`/`for`/`while`/`case` bodies, function bodies and here-documents'
//! substitutions included.
//!
//! It reads; it never expands a glob, runs anything or reads the
//! environment. It is not a parser that refuses bad input: an unterminated
//! quote or substitution runs to the end of the text, so whatever follows is
//! still read. What a word holds beyond its literal text (a parameter, a
//! command's output) is said, so the rules decide what an unknown means.

/// A piece of a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Literal text; `quoted` when it came from quotes (or a backslash), so
    /// braces in it do not expand.
    Lit { text: String, quoted: bool },
    /// `$NAME` or `${NAME}`.
    Param { name: String, quoted: bool },
    /// What the scanner cannot know: `$(…)`, `` `…` ``, `$((…))`, `$1`,
    /// `${X:-…}`, a process substitution.
    Unknown,
}

/// A word: its parts, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Word {
    pub parts: Vec<Part>,
}

impl Word {
    /// The literal text, when the word holds nothing but literal text.
    pub fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Lit { text, .. } => out.push_str(text),
                _ => return None,
            }
        }
        Some(out)
    }

    fn push_lit(&mut self, c: char, quoted: bool) {
        if let Some(Part::Lit { text, quoted: q }) = self.parts.last_mut()
            && *q == quoted
        {
            text.push(c);
            return;
        }
        self.parts.push(Part::Lit {
            text: c.to_string(),
            quoted,
        });
    }

    /// An empty quoted string (`""`, `''`) is a word of its own.
    fn mark_quoted(&mut self) {
        if self.parts.is_empty() {
            self.parts.push(Part::Lit {
                text: String::new(),
                quoted: true,
            });
        }
    }
}

/// A redirection: its operator (`>`, `>>`, `<<<`, …) and target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    pub op: String,
    pub target: Word,
}

/// One simple command: its words and redirections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

/// A scanned command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    /// Every simple command, in the order it starts running (a
    /// substitution before the command whose word holds it).
    pub commands: Vec<Command>,
    /// The bodies of here-documents: what a command reading stdin reads.
    pub here_docs: Vec<String>,
}

/// Scan `text`.
pub fn scan(text: &str) -> Script {
    let mut script = Script::default();
    let chars: Vec<char> = text.chars().collect();
    let mut lexer = Lexer {
        chars: &chars,
        pos: 0,
        script: &mut script,
        pending: Vec::new(),
    };
    lexer.list(false);
    script
        .commands
        .retain(|c| !c.words.is_empty() || !c.redirects.is_empty());
    script
}

/// A here-document waiting for its body at the next newline.
struct Pending {
    delimiter: String,
    strip_tabs: bool,
    expands: bool,
}

struct Lexer<'a> {
    chars: &'a [char],
    pos: usize,
    script: &'a mut Script,
    pending: Vec<Pending>,
}

fn is_meta(c: char) -> bool {
    c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// A list of commands, to the end or (`nested`) to the `)` that closes
    /// a `$(` / `<(`, which is consumed.
    fn list(&mut self, nested: bool) {
        let mut command = Command::default();
        // Subshell parentheses opened inside this list.
        let mut open = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '\n' => {
                    self.pos += 1;
                    self.finish(&mut command);
                    self.here_doc_bodies();
                }
                c if c.is_whitespace() => self.pos += 1,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                ';' | '&' | '|' => {
                    // `&>` and `&>>` are redirections.
                    if c == '&' && self.peek_at(1) == Some('>') {
                        self.pos += 1;
                        self.redirect(&mut command, "&");
                        continue;
                    }
                    self.pos += 1;
                    self.finish(&mut command);
                }
                '(' => {
                    self.pos += 1;
                    open += 1;
                    self.finish(&mut command);
                }
                ')' => {
                    self.pos += 1;
                    self.finish(&mut command);
                    if open == 0 && nested {
                        return;
                    }
                    open = open.saturating_sub(1);
                }
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    // A process substitution: a word whose text is unknown.
                    self.pos += 2;
                    self.list(true);
                    command.words.push(Word {
                        parts: vec![Part::Unknown],
                    });
                }
                '<' | '>' => self.redirect(&mut command, ""),
                _ => {
                    let word = self.word();
                    // `2>file`: digits right before a redirection name a
                    // descriptor, not a word.
                    let fd = matches!(self.peek(), Some('<' | '>'))
                        && word.literal().is_some_and(|w| {
                            !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
                        });
                    // A line continuation alone is no word.
                    if !fd && !word.parts.is_empty() {
                        command.words.push(word);
                    }
                }
            }
        }
        self.finish(&mut command);
    }

    fn finish(&mut self, command: &mut Command) {
        let done = std::mem::take(command);
        if !done.words.is_empty() || !done.redirects.is_empty() {
            self.script.commands.push(done);
        }
    }

    /// A redirection operator at `pos` (after `prefix`, already consumed),
    /// and its target.
    fn redirect(&mut self, command: &mut Command, prefix: &str) {
        let mut op = prefix.to_string();
        while let Some(c) = self.peek() {
            if matches!(c, '<' | '>' | '&' | '|' | '-') && op.len() < 4 {
                // `-` only in `<<-`.
                if c == '-' && op != "<<" {
                    break;
                }
                // `|` only in `>|`.
                if c == '|' && op != ">" {
                    break;
                }
                op.push(c);
                self.pos += 1;
            } else {
                break;
            }
        }
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
        let target = if self.peek().is_some_and(|c| !is_meta(c)) {
            self.word()
        } else {
            Word::default()
        };
        if op == "<<" || op == "<<-" {
            let quoted = target
                .parts
                .iter()
                .any(|p| matches!(p, Part::Lit { quoted: true, .. }));
            let delimiter = target
                .parts
                .iter()
                .map(|p| match p {
                    Part::Lit { text, .. } => text.clone(),
                    Part::Param { name, .. } => format!("${name}"),
                    Part::Unknown => String::new(),
                })
                .collect();
            self.pending.push(Pending {
                delimiter,
                strip_tabs: op == "<<-",
                expands: !quoted,
            });
        }
        command.redirects.push(Redirect { op, target });
    }

    /// The bodies of the here-documents declared on the line just ended.
    fn here_doc_bodies(&mut self) {
        for doc in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.peek().is_some() {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                self.next();
                let bare = if doc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if bare == doc.delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if doc.expands {
                // Substitutions in an unquoted here-document run.
                self.substitutions_in(&body);
            }
            self.script.here_docs.push(body);
        }
    }

    /// The commands the substitutions in `text` run, `text` read as the
    /// inside of double quotes.
    fn substitutions_in(&mut self, text: &str) {
        let chars: Vec<char> = text.chars().collect();
        let mut inner = Lexer {
            chars: &chars,
            pos: 0,
            script: self.script,
            pending: Vec::new(),
        };
        inner.double_quoted(&mut Word::default(), None);
    }

    /// One word, up to an unquoted metacharacter.
    fn word(&mut self) -> Word {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            if is_meta(c) {
                break;
            }
            self.pos += 1;
            match c {
                '\\' => match self.next() {
                    Some('\n') | None => {}
                    Some(n) => word.push_lit(n, true),
                },
                '\'' => {
                    word.mark_quoted();
                    while let Some(q) = self.next() {
                        if q == '\'' {
                            break;
                        }
                        word.push_lit(q, true);
                    }
                }
                '"' => {
                    word.mark_quoted();
                    self.double_quoted(&mut word, Some('"'));
                }
                '$' if self.peek() == Some('\'') => {
                    self.pos += 1;
                    word.mark_quoted();
                    self.ansi_c(&mut word);
                }
                '$' if self.peek() == Some('"') => {}
                '$' => self.dollar(&mut word, false),
                '`' => self.backquoted(&mut word),
                c => word.push_lit(c, false),
            }
        }
        word
    }

    /// The inside of double quotes (or of an unquoted here-document when
    /// `end` is `None`), after the opening quote.
    fn double_quoted(&mut self, word: &mut Word, end: Option<char>) {
        while let Some(c) = self.next() {
            match c {
                c if Some(c) == end => return,
                '\\' => match self.peek() {
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        self.pos += 1;
                        word.push_lit(n, true);
                    }
                    Some('\n') => self.pos += 1,
                    _ => word.push_lit('\\', true),
                },
                '$' => self.dollar(word, true),
                '`' => self.backquoted(word),
                c => word.push_lit(c, true),
            }
        }
    }

    /// `$'…'`: the escapes bash reads in it.
    fn ansi_c(&mut self, word: &mut Word) {
        while let Some(c) = self.next() {
            match c {
                '\'' => return,
                '\\' => {
                    let Some(e) = self.next() else { return };
                    let decoded = match e {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        'e' | 'E' => Some('\u{1b}'),
                        'f' => Some('\u{c}'),
                        'v' => Some('\u{b}'),
                        'x' => self.radix(16, 2),
                        'u' => self.radix(16, 4),
                        'U' => self.radix(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.radix(8, 3)
                        }
                        other => Some(other),
                    };
                    if let Some(d) = decoded {
                        word.push_lit(d, true);
                    }
                }
                c => word.push_lit(c, true),
            }
        }
    }

    /// Up to `max` digits in `radix`, as a character.
    fn radix(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut value = 0u32;
        let mut n = 0;
        while n < max
            && let Some(d) = self.peek().and_then(|c| c.to_digit(radix))
        {
            value = value * radix + d;
            self.pos += 1;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        char::from_u32(value)
    }

    /// After a `$`.
    fn dollar(&mut self, word: &mut Word, quoted: bool) {
        match self.peek() {
            Some('(') if self.peek_at(1) == Some('(') => {
                // Arithmetic: its value is unknown; a substitution inside
                // it still runs.
                self.pos += 2;
                self.list(true);
                if self.peek() == Some(')') {
                    self.pos += 1;
                }
                word.parts.push(Part::Unknown);
            }
            Some('(') => {
                self.pos += 1;
                self.list(true);
                word.parts.push(Part::Unknown);
            }
            Some('{') => {
                self.pos += 1;
                let start = self.pos;
                let mut depth = 1;
                while let Some(c) = self.next() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let inner: String = self.chars[start..self.pos.saturating_sub(1)]
                    .iter()
                    .collect();
                if is_name(&inner) {
                    word.parts.push(Part::Param {
                        name: inner,
                        quoted,
                    });
                } else {
                    // `${X:-$(cmd)}`: what it may run is read too.
                    self.substitutions_in(&inner);
                    word.parts.push(Part::Unknown);
                }
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
                word.parts.push(Part::Param {
                    name: self.chars[start..self.pos].iter().collect(),
                    quoted,
                });
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 1;
                word.parts.push(Part::Unknown);
            }
            _ => word.push_lit('$', quoted),
        }
    }

    /// After a backquote: the command up to the closing one.
    fn backquoted(&mut self, word: &mut Word) {
        let mut body = String::new();
        while let Some(c) = self.next() {
            match c {
                '`' => break,
                '\\' => match self.next() {
                    Some(n @ ('`' | '\\' | '$')) => body.push(n),
                    Some(n) => {
                        body.push('\\');
                        body.push(n);
                    }
                    None => {}
                },
                c => body.push(c),
            }
        }
        let nested = scan(&body);
        self.script.commands.extend(nested.commands);
        self.script.here_docs.extend(nested.here_docs);
        word.parts.push(Part::Unknown);
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each command's words, `?` for what is unknown and `$NAME` for a
    /// parameter.
    fn words(text: &str) -> Vec<String> {
        scan(text)
            .commands
            .iter()
            .map(|c| {
                c.words
                    .iter()
                    .map(|w| {
                        w.parts
                            .iter()
                            .map(|p| match p {
                                Part::Lit { text, .. } => text.clone(),
                                Part::Param { name, .. } => format!("${name}"),
                                Part::Unknown => "?".into(),
                            })
                            .collect::<String>()
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn commands_are_split_as_a_shell_splits_them() {
        assert_eq!(
            words("a 1 && b 2 || c; d | e & f\ng"),
            ["a 1", "b 2", "c", "d", "e", "f", "g"]
        );
        assert_eq!(words("(cd x && y)"), ["cd x", "y"]);
        assert_eq!(
            words("if a; then b; elif c; else d; fi"),
            ["if a", "then b", "elif c", "else d", "fi"]
        );
        assert_eq!(words("a # b; c\nd"), ["a", "d"]);
        assert_eq!(words("a#b"), ["a#b"]);
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(words(r#"a 'b c' "d $X e" f\ g"#), ["a b c d $X e f g"]);
        assert_eq!(words(r#"a "" ''"#), ["a  "]);
        assert_eq!(words(r"a $'\x2d\x2dno\055x\n'"), ["a --no-x\n"]);
        assert_eq!(words("a \\\n b"), ["a b"]);
        assert_eq!(words(r#"a "x\"y\\z\q""#), [r#"a x"y\z\q"#]);
    }

    #[test]
    fn substitutions_are_commands_and_unknown_words() {
        assert_eq!(words("a $(b c) d"), ["b c", "a ? d"]);
        assert_eq!(words("a \"$(b \"c\")\""), ["b c", "a ?"]);
        assert_eq!(words("a `b \\`c\\``"), ["c", "b ?", "a ?"]);
        assert_eq!(words("a $((1 + $(b)))"), ["b", "1 + ?", "a ?"]);
        assert_eq!(words("diff <(a) >(b)"), ["a", "b", "diff ? ?"]);
        assert_eq!(words("a $(b; (c); d) e"), ["b", "c", "d", "a ? e"]);
        assert_eq!(words("a ${X:-$(b)} ${Y}"), ["b", "a ? $Y"]);
        // Unterminated: what follows is still read.
        assert_eq!(words("a $(b c"), ["b c", "a ?"]);
        assert_eq!(words("a 'b c"), ["a b c"]);
    }

    #[test]
    fn redirections_and_here_documents() {
        let s = scan("cat >out.txt 2>&1 <in <<<'word'");
        assert_eq!(s.commands.len(), 1);
        let ops: Vec<(String, Option<String>)> = s.commands[0]
            .redirects
            .iter()
            .map(|r| (r.op.clone(), r.target.literal()))
            .collect();
        assert_eq!(
            ops,
            [
                (">".into(), Some("out.txt".into())),
                (">&".into(), Some("1".into())),
                ("<".into(), Some("in".into())),
                ("<<<".into(), Some("word".into())),
            ]
        );
        let s = scan("sh <<EOF\ngit $(id)\nEOF\nnext\ncat <<-'X'\n\t$(no)\n\tX\n");
        assert_eq!(s.here_docs, ["git $(id)\n", "\t$(no)\n"]);
        let names: Vec<String> = s
            .commands
            .iter()
            .map(|c| c.words.first().and_then(Word::literal).unwrap_or_default())
            .collect();
        assert_eq!(names, ["sh", "id", "next", "cat"]);
        assert_eq!(words("a &>x b"), ["a b"]);
    }
}
