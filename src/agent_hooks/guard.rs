//! The Bash guard's rules (docs/agents.md): in a shell command, every
//! simple command [`super::shell`] finds — inside compound commands,
//! substitutions, `eval`, `sh -c`, the wrappers that run another command
//! (`env`, `timeout`, `xargs`, `find -exec`, `git rebase --exec`, …) — is
//! read for what would get past gate's git hooks:
//!
//! - `git commit`/`git push` skipping them (`--no-verify`, `-n`);
//! - `core.hooksPath` changed, for one run (`-c`, `--config-env`,
//!   `GIT_CONFIG_COUNT`/`KEY`/`VALUE`, `GIT_CONFIG_PARAMETERS`) or in a
//!   configuration (`git config core.hooksPath …`, `--unset`, …);
//! - the hooks uninstalled (`gate uninstall`, a hook manager's
//!   `uninstall`);
//! - and, for the hook to judge against the repository, the paths a
//!   command removes or overwrites (`rm`, `mv`, `> file`, …) and the
//!   directories it moves to (`cd`, `git -C`).
//!
//! Pure: the words only. Which repository each path and directory is in,
//! and whether a path is a hook, is `commands::claude_code`'s to decide.

use std::collections::HashMap;

use super::shell::{self, Part, Word};

/// What the guard denies in a command (before asking where it runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// `git commit` or `git push` that skips gate's hooks: `how` is
    /// `--no-verify`, `-n`, `-c core.hooksPath=…`.
    Bypass { subcommand: String, how: String },
    /// `git commit` or `git push` run with arguments the guard cannot read:
    /// `via` is `xargs` or `find -exec`.
    Unreadable { subcommand: String, via: String },
    /// `core.hooksPath` changed or removed: `how` is the words that do it.
    HooksPath { how: String },
    /// gate's hooks (or a hook manager's) uninstalled.
    Uninstall { how: String },
}

/// A path a command removes, replaces or changes, as written (relative to
/// the directory the command runs in), and the words that do it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub how: String,
}

/// What the guard read in a command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guard {
    pub findings: Vec<Finding>,
    pub changes: Vec<Change>,
    /// The directories the command moves to or names (`cd`, `pushd`, `git
    /// -C`, `--git-dir`, `--work-tree`, `env -C`, `sudo -D`), as written;
    /// `None` for one the guard cannot read (`cd "$X"`, `cd ~`, `cd -`).
    pub dirs: Vec<Option<String>>,
}

/// Read `command` as the Bash tool's shell would run it.
pub fn guard(command: &str) -> Guard {
    let mut reader = Reader::default();
    reader.script(command, 0);
    if reader.stdin_shell {
        // A shell reads a script from its input: what the command feeds it
        // (here-documents, here-strings, echo's words) is read as one too.
        let mut texts = std::mem::take(&mut reader.stdin_texts);
        texts.append(&mut reader.words);
        for text in texts {
            reader.script(&text, 1);
        }
    }
    reader.out
}

/// How deep `eval`, `sh -c`, aliases and wrappers nest before the guard
/// stops reading (a command that nests deeper is not judged deeper).
const MAX_DEPTH: usize = 8;

/// A word after expansion: its text, and whether all of it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Field {
    text: String,
    known: bool,
}

impl Field {
    fn lit(text: &str) -> Field {
        Field {
            text: text.to_string(),
            known: true,
        }
    }
}

#[derive(Default)]
struct Reader {
    out: Guard,
    /// Variables the command assigns itself (`None`: assigned from what
    /// the guard cannot read).
    vars: HashMap<String, Option<String>>,
    /// `git -c alias.NAME=…` seen: NAME (lower case) and its value.
    aliases: HashMap<String, String>,
    stdin_shell: bool,
    stdin_texts: Vec<String>,
    /// Every known word of every command: what `echo … | sh` may feed a
    /// shell.
    words: Vec<String>,
}

const SHELLS: [&str; 8] = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

/// Reserved words that may open a command: what follows is the command.
const OPENERS: [&str; 9] = [
    "if", "then", "elif", "else", "do", "while", "until", "!", "{",
];

/// Reserved words that open something that is not a command.
const NOT_COMMANDS: [&str; 9] = [
    "for", "select", "case", "[[", "fi", "done", "esac", "}", "in",
];

/// A wrapper runs the command after its options and positional arguments:
/// its name, its short options that take a value, its long ones, and how
/// many positional arguments come before the command.
struct Wrapper {
    name: &'static str,
    short_values: &'static str,
    long_values: &'static [&'static str],
    positionals: usize,
}

const WRAPPERS: [Wrapper; 18] = [
    Wrapper {
        name: "env",
        short_values: "uCS",
        long_values: &["unset", "chdir", "split-string"],
        positionals: 0,
    },
    Wrapper {
        name: "command",
        short_values: "",
        long_values: &[],
        positionals: 0,
    },
    Wrapper {
        name: "builtin",
        short_values: "",
        long_values: &[],
        positionals: 0,
    },
    Wrapper {
        name: "exec",
        short_values: "a",
        long_values: &[],
        positionals: 0,
    },
    Wrapper {
        name: "nohup",
        short_values: "",
        long_values: &[],
        positionals: 0,
    },
    Wrapper {
        name: "setsid",
        short_values: "",
        long_values: &[],
        positionals: 0,
    },
    Wrapper {
        name: "time",
        short_values: "fo",
        long_values: &["format", "output"],
        positionals: 0,
    },
    Wrapper {
        name: "nice",
        short_values: "n",
        long_values: &["adjustment"],
        positionals: 0,
    },
    Wrapper {
        name: "ionice",
        short_values: "cn",
        long_values: &["class", "classdata"],
        positionals: 0,
    },
    Wrapper {
        name: "timeout",
        short_values: "ks",
        long_values: &["kill-after", "signal"],
        positionals: 1,
    },
    Wrapper {
        name: "stdbuf",
        short_values: "ioe",
        long_values: &["input", "output", "error"],
        positionals: 0,
    },
    Wrapper {
        name: "sudo",
        short_values: "ugCDhprtUTR",
        long_values: &[
            "user",
            "group",
            "close-from",
            "chdir",
            "host",
            "prompt",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "chroot",
        ],
        positionals: 0,
    },
    Wrapper {
        name: "doas",
        short_values: "uC",
        long_values: &[],
        positionals: 0,
    },
    Wrapper {
        name: "chrt",
        short_values: "T",
        long_values: &["sched-runtime", "sched-deadline", "sched-period"],
        positionals: 1,
    },
    Wrapper {
        name: "taskset",
        short_values: "",
        long_values: &[],
        positionals: 1,
    },
    Wrapper {
        name: "flock",
        short_values: "wEc",
        long_values: &["timeout", "conflict-exit-code", "command"],
        positionals: 1,
    },
    Wrapper {
        name: "npx",
        short_values: "p",
        long_values: &["package"],
        positionals: 0,
    },
    Wrapper {
        name: "xargs",
        short_values: "adEeIiLlnPs",
        long_values: &[
            "arg-file",
            "delimiter",
            "eof",
            "replace",
            "max-lines",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
        positionals: 0,
    },
];

/// Hook managers whose `uninstall` takes their hooks (and gate's lines in
/// them) away.
const MANAGERS: [&str; 4] = ["lefthook", "pre-commit", "prek", "husky"];

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `NAME=VALUE` with NAME a shell variable name.
fn assignment(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once('=')?;
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then_some((name, value))
}

fn is_hooks_path(key: &str) -> bool {
    key.eq_ignore_ascii_case("core.hooksPath")
}

impl Reader {
    fn script(&mut self, text: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let script = shell::scan(text);
        self.stdin_texts.extend(script.here_docs);
        for command in script.commands {
            for r in &command.redirects {
                let target = self.expand(&r.target);
                match r.op.as_str() {
                    ">" | ">>" | ">|" | "&>" | "&>>" | "<>" => {
                        for f in target.iter().filter(|f| f.known) {
                            self.change(&f.text, format!("{} {}", r.op, f.text));
                        }
                    }
                    "<<<" => self.stdin_texts.extend(target.into_iter().map(|f| f.text)),
                    _ => {}
                }
            }
            let fields: Vec<Field> = command.words.iter().flat_map(|w| self.expand(w)).collect();
            if depth == 0 {
                self.words.extend(
                    fields
                        .iter()
                        .filter(|f| f.known && f.text.contains(' '))
                        .map(|f| f.text.clone()),
                );
            }
            self.simple(&fields, depth, None);
        }
    }

    fn change(&mut self, path: &str, how: String) {
        self.out.changes.push(Change {
            path: path.to_string(),
            how,
        });
    }

    fn find(&mut self, finding: Finding) {
        if !self.out.findings.contains(&finding) {
            self.out.findings.push(finding);
        }
    }

    fn dir(&mut self, field: Option<&Field>) {
        self.out.dirs.push(match field {
            Some(f) if f.known && !f.text.starts_with('~') && f.text != "-" => Some(f.text.clone()),
            _ => None,
        });
    }

    /// A word's fields: parameters the command assigned replaced by their
    /// value, braces expanded, an unquoted parameter split on blanks.
    fn expand(&self, word: &Word) -> Vec<Field> {
        if let [
            Part::Param {
                name,
                quoted: false,
            },
        ] = word.parts.as_slice()
        {
            return match self.vars.get(name) {
                Some(Some(value)) => value.split_whitespace().map(Field::lit).collect(),
                _ => vec![Field {
                    text: format!("${name}"),
                    known: false,
                }],
            };
        }
        // Characters, each with whether a brace there expands.
        let mut chars: Vec<(char, bool)> = Vec::new();
        let mut known = true;
        for part in &word.parts {
            match part {
                Part::Lit { text, quoted } => chars.extend(text.chars().map(|c| (c, !quoted))),
                Part::Param { name, .. } => match self.vars.get(name) {
                    Some(Some(value)) => chars.extend(value.chars().map(|c| (c, false))),
                    _ => {
                        known = false;
                        chars.extend(format!("${name}").chars().map(|c| (c, false)));
                    }
                },
                Part::Unknown => {
                    known = false;
                    chars.push(('\u{fffd}', false));
                }
            }
        }
        braces(&chars)
            .into_iter()
            .map(|text| Field { text, known })
            .collect()
    }

    fn assign(&mut self, name: &str, value: &str, known: bool) {
        let key = format!("{name}={value}");
        if name.starts_with("GIT_CONFIG_KEY_") && (!known || is_hooks_path(value)) {
            self.find(Finding::HooksPath { how: key.clone() });
        }
        if name == "GIT_CONFIG_PARAMETERS"
            && (!known || value.to_ascii_lowercase().contains("core.hookspath"))
        {
            self.find(Finding::HooksPath { how: key });
        }
        self.vars
            .insert(name.to_string(), known.then(|| value.to_string()));
    }

    /// One simple command's fields. `via`: the command that runs it with
    /// arguments of its own the guard cannot read (`xargs`, `find -exec`).
    fn simple(&mut self, fields: &[Field], depth: usize, via: Option<&str>) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut i = 0;
        while let Some(f) = fields.get(i) {
            if f.known && OPENERS.contains(&f.text.as_str()) {
                i += 1;
            } else if f.known && f.text == "function" {
                // `function NAME { …`: the body follows the name.
                i += 2;
            } else if f.known && NOT_COMMANDS.contains(&f.text.as_str()) {
                return;
            } else if let Some((name, value)) = assignment(&f.text) {
                self.assign(name, value, f.known);
                i += 1;
            } else {
                break;
            }
        }
        let Some(program) = fields.get(i).filter(|f| f.known) else {
            return;
        };
        let rest = &fields[i + 1..];
        let name = base_name(&program.text);
        let words = |fs: &[Field]| {
            fs.iter()
                .map(|f| f.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        match name {
            "eval" => self.script(&words(rest), depth + 1),
            "cd" | "pushd" => {
                let target = rest
                    .iter()
                    .find(|f| !f.text.starts_with('-') || f.text == "-");
                self.dir(target);
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for f in rest {
                    if let Some((n, v)) = assignment(&f.text) {
                        self.assign(n, v, f.known);
                    }
                }
            }
            "unset" => {
                for f in rest {
                    self.vars.remove(&f.text);
                }
            }
            "git" => self.git(rest, depth, via),
            "gate" => self.gate(rest),
            "find" => self.find_command(rest, depth),
            "watch" => {
                // watch runs its words as one `sh -c` string.
                let start = rest
                    .iter()
                    .position(|f| !f.text.starts_with('-'))
                    .unwrap_or(rest.len());
                let start = match rest.get(start.wrapping_sub(1)) {
                    Some(f) if f.text == "-n" || f.text == "--interval" => start + 1,
                    _ => start,
                };
                self.script(&words(rest.get(start..).unwrap_or(&[])), depth + 1);
            }
            _ if SHELLS.contains(&name) => self.shell(rest, depth),
            _ if MANAGERS.contains(&name) => {
                if rest.first().is_some_and(|f| f.text == "uninstall") {
                    self.find(Finding::Uninstall {
                        how: format!("{name} {}", words(rest)),
                    });
                }
            }
            _ => {
                if let Some(w) = WRAPPERS.iter().find(|w| w.name == name) {
                    self.wrapper(w, rest, depth, via);
                } else {
                    self.changes_of(name, rest);
                }
            }
        }
    }

    fn shell(&mut self, rest: &[Field], depth: usize) {
        let c = rest.iter().position(|f| {
            f.text.starts_with('-') && !f.text.starts_with("--") && f.text.contains('c')
        });
        match c {
            Some(c) => {
                if let Some(script) = rest[c + 1..].iter().find(|f| !f.text.starts_with('-')) {
                    self.script(&script.text, depth + 1);
                }
            }
            None => {
                let operand = rest.iter().any(|f| !f.text.starts_with('-'));
                let s = rest.iter().any(|f| {
                    f.text.starts_with('-') && !f.text.starts_with("--") && f.text.contains('s')
                });
                if !operand || s {
                    self.stdin_shell = true;
                }
            }
        }
    }

    fn wrapper(&mut self, w: &Wrapper, rest: &[Field], depth: usize, via: Option<&str>) {
        let mut i = 0;
        let mut split = None;
        while let Some(f) = rest.get(i) {
            let t = f.text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            if w.name == "env"
                && let Some((n, v)) = assignment(t)
            {
                self.assign(n, v, f.known);
                i += 1;
                continue;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            let (option, value, used_next) = option_value(t, rest.get(i + 1), w);
            i += 1 + usize::from(used_next);
            match (w.name, option.as_str()) {
                ("env", "C" | "chdir") | ("sudo", "D" | "chdir") => self.dir(value.as_ref()),
                ("env", "S" | "split-string") => split = value,
                ("flock", "c" | "command") => {
                    if let Some(v) = value {
                        self.script(&v.text, depth + 1);
                    }
                    return;
                }
                _ => {}
            }
        }
        i += w.positionals;
        let Some(command) = rest.get(i..) else {
            return;
        };
        // `env -S 'git commit -n' …`: the string is split into the words
        // that come first.
        let mut fields: Vec<Field> = match split {
            Some(s) => shell::scan(&s.text)
                .commands
                .into_iter()
                .flat_map(|c| c.words)
                .flat_map(|w| self.expand(&w))
                .collect(),
            None => Vec::new(),
        };
        fields.extend(command.iter().cloned());
        let via = if w.name == "xargs" {
            Some("xargs")
        } else {
            via
        };
        self.simple(&fields, depth + 1, via);
    }

    /// `find PATH… EXPRESSION`: the commands `-exec`/`-execdir`/`-ok`/
    /// `-okdir` run, and the start paths as changed when it deletes or
    /// runs a command that changes files.
    fn find_command(&mut self, rest: &[Field], depth: usize) {
        let mut i = 0;
        while rest.get(i).is_some_and(|f| {
            matches!(f.text.as_str(), "-H" | "-L" | "-P") || f.text.starts_with("-O")
        }) {
            i += 1;
        }
        let starts: Vec<&Field> = rest[i..]
            .iter()
            .take_while(|f| !f.text.starts_with('-') && f.text != "(" && f.text != "!")
            .collect();
        let mut changes = false;
        // Names the expression selects by; `None` once it selects by path.
        let mut names: Option<Vec<String>> = Some(Vec::new());
        let mut j = i + starts.len();
        while let Some(f) = rest.get(j) {
            match f.text.as_str() {
                "-delete" => changes = true,
                "-name" | "-iname" => {
                    if let (Some(list), Some(p)) = (names.as_mut(), rest.get(j + 1)) {
                        list.push(p.text.to_ascii_lowercase());
                    }
                    j += 1;
                }
                "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex" | "-iregex" => {
                    names = None;
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let end = rest[j + 1..]
                        .iter()
                        .position(|f| f.text == ";" || f.text == "+")
                        .map_or(rest.len(), |e| j + 1 + e);
                    let inner: Vec<Field> = rest[j + 1..end]
                        .iter()
                        .map(|f| {
                            if f.text.contains("{}") {
                                Field {
                                    text: f.text.clone(),
                                    known: false,
                                }
                            } else {
                                f.clone()
                            }
                        })
                        .collect();
                    if inner
                        .first()
                        .is_some_and(|p| CHANGERS.contains(&base_name(&p.text)))
                    {
                        changes = true;
                    }
                    self.simple(&inner, depth + 1, Some("find -exec"));
                    j = end;
                }
                _ => {}
            }
            j += 1;
        }
        // Selected by names none of which a hook's file could have: it
        // cannot reach the hooks, wherever it starts.
        let hook_names = HOOK_NAMES.iter().chain(&["hooks"]);
        let spares_hooks = names.is_some_and(|list| {
            !list.is_empty()
                && !list
                    .iter()
                    .any(|p| hook_names.clone().any(|h| glob_match(p, h)) || p.contains("gate"))
        });
        if changes && !spares_hooks {
            let paths: Vec<String> = if starts.is_empty() {
                vec![".".into()]
            } else {
                starts
                    .iter()
                    .filter(|f| f.known)
                    .map(|f| f.text.clone())
                    .collect()
            };
            for p in paths {
                self.change(&p, format!("find {p} …"));
            }
        }
    }

    fn gate(&mut self, rest: &[Field]) {
        let mut i = 0;
        while let Some(f) = rest.get(i) {
            if f.text == "-C" {
                self.dir(rest.get(i + 1));
                i += 2;
            } else if let Some(d) = f.text.strip_prefix("-C") {
                self.dir(Some(&Field::lit(d)));
                i += 1;
            } else if f.text.starts_with('-') {
                i += 1;
            } else {
                break;
            }
        }
        if rest.get(i).is_some_and(|f| f.text == "uninstall") {
            let how: Vec<&str> = rest[i..].iter().map(|f| f.text.as_str()).collect();
            self.find(Finding::Uninstall {
                how: format!("gate {}", how.join(" ")),
            });
        }
    }

    fn git(&mut self, args: &[Field], depth: usize, via: Option<&str>) {
        let mut override_how = None;
        let mut i = 0;
        while let Some(f) = args.get(i) {
            let a = f.text.as_str();
            if !a.starts_with('-') {
                break;
            }
            let next = args.get(i + 1);
            let (name, value, used_next) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (
                    n,
                    Some(Field {
                        text: v.into(),
                        known: f.known,
                    }),
                    false,
                ),
                _ if a.starts_with("-c") && a.len() > 2 => (
                    "-c",
                    Some(Field {
                        text: a[2..].into(),
                        known: f.known,
                    }),
                    false,
                ),
                _ if a.starts_with("-C") && a.len() > 2 => (
                    "-C",
                    Some(Field {
                        text: a[2..].into(),
                        known: f.known,
                    }),
                    false,
                ),
                _ if GIT_VALUE_OPTIONS.contains(&a) => (a, next.cloned(), true),
                _ => (a, None, false),
            };
            i += 1 + usize::from(used_next);
            match (name, value) {
                ("-C" | "--git-dir" | "--work-tree", v) => self.dir(v.as_ref()),
                ("-c", Some(v)) => {
                    let (key, val) = v.text.split_once('=').unwrap_or((&v.text, ""));
                    if is_hooks_path(key) || !v.known {
                        override_how = Some(format!("-c {}", v.text));
                    }
                    if let Some(alias) = key.to_ascii_lowercase().strip_prefix("alias.") {
                        self.aliases.insert(alias.to_string(), val.to_string());
                    }
                }
                ("--config-env", Some(v)) => {
                    let key = v.text.split_once('=').map_or(v.text.as_str(), |(k, _)| k);
                    if is_hooks_path(key) || !v.known {
                        override_how = Some(format!("--config-env {}", v.text));
                    }
                }
                _ => {}
            }
        }
        let Some(sub) = args.get(i).filter(|f| f.known) else {
            return;
        };
        let subcommand = sub.text.as_str();
        let rest = &args[i + 1..];
        if let Some(value) = self.aliases.get(&subcommand.to_ascii_lowercase()).cloned()
            && depth < MAX_DEPTH
        {
            let tail: Vec<&str> = rest.iter().map(|f| f.text.as_str()).collect();
            if let Some(command) = value.strip_prefix('!') {
                self.script(&format!("{command} {}", tail.join(" ")), depth + 1);
            } else {
                let mut fields: Vec<Field> = value.split_whitespace().map(Field::lit).collect();
                fields.extend(rest.iter().cloned());
                self.git(&fields, depth + 1, via);
            }
            return;
        }
        let hooked = subcommand == "commit" || subcommand == "push";
        if let Some(how) = override_how {
            self.find(if hooked {
                Finding::Bypass {
                    subcommand: subcommand.to_string(),
                    how,
                }
            } else {
                Finding::HooksPath {
                    how: format!("git {how} {subcommand}"),
                }
            });
        }
        match subcommand {
            "commit" | "push" => {
                if let Some(via) = via {
                    self.find(Finding::Unreadable {
                        subcommand: subcommand.to_string(),
                        via: via.to_string(),
                    });
                }
                let texts: Vec<&str> = rest.iter().map(|f| f.text.as_str()).collect();
                if let Some(how) = skips_hooks(subcommand, &texts) {
                    self.find(Finding::Bypass {
                        subcommand: subcommand.to_string(),
                        how,
                    });
                }
            }
            "config" => {
                if let Some(how) = config_changes_hooks_path(rest) {
                    self.find(Finding::HooksPath { how });
                }
            }
            "rebase" => {
                let mut j = 0;
                while let Some(f) = rest.get(j) {
                    let t = f.text.as_str();
                    let command = if t == "--exec" || t == "-x" {
                        j += 1;
                        rest.get(j).map(|f| f.text.clone())
                    } else if let Some(c) = t.strip_prefix("--exec=") {
                        Some(c.to_string())
                    } else if t.starts_with("-x") && t.len() > 2 {
                        Some(t[2..].to_string())
                    } else {
                        None
                    };
                    if let Some(c) = command {
                        self.script(&c, depth + 1);
                    }
                    j += 1;
                }
            }
            "submodule" => {
                if let Some(at) = rest.iter().position(|f| f.text == "foreach") {
                    let command: Vec<&str> = rest[at + 1..]
                        .iter()
                        .map(|f| f.text.as_str())
                        .filter(|t| !t.starts_with("--"))
                        .collect();
                    self.script(&command.join(" "), depth + 1);
                }
            }
            "bisect" if rest.first().is_some_and(|f| f.text == "run") => {
                self.simple(&rest[1..], depth + 1, None);
            }
            _ => {}
        }
    }

    /// The paths a command that removes, replaces or changes files names.
    fn changes_of(&mut self, name: &str, rest: &[Field]) {
        if !CHANGERS.contains(&name) {
            return;
        }
        let value_options: &[&str] = match name {
            "truncate" => &["-s", "-r", "--size", "--reference"],
            "shred" => &["-n", "-s", "--iterations", "--size"],
            "install" => &["-m", "-o", "-g", "-t", "-S", "--mode", "--owner", "--group"],
            "cp" | "mv" | "ln" => &["-t", "-S", "--suffix"],
            "sed" => &["-e", "-f", "-l", "--expression", "--file", "--line-length"],
            "perl" => &["-e", "-E", "-M", "-m", "-I"],
            _ => &[],
        };
        let mut operands: Vec<&Field> = Vec::new();
        let mut target_dir = None;
        let mut in_place = false;
        let mut script_given = false;
        let mut j = 0;
        let mut options_done = false;
        while let Some(f) = rest.get(j) {
            let t = f.text.as_str();
            j += 1;
            let mode =
                name == "chmod" && t.len() > 1 && t[1..].chars().all(|c| "rwxXst".contains(c));
            if options_done || !t.starts_with('-') || t == "-" || mode {
                operands.push(f);
                continue;
            }
            if t == "--" {
                options_done = true;
                continue;
            }
            if let Some(dir) = t.strip_prefix("--target-directory=") {
                target_dir = Some(Field::lit(dir));
            }
            if t == "--in-place" || t.starts_with("--in-place=") {
                in_place = true;
            }
            let short_cluster = !t.starts_with("--");
            if (name == "sed" || name == "perl") && short_cluster && t[1..].contains('i') {
                in_place = true;
            }
            if (name == "sed" || name == "perl")
                && (matches!(t, "-e" | "-f" | "-E" | "--expression" | "--file")
                    || t.starts_with("--expression=")
                    || t.starts_with("--file="))
            {
                script_given = true;
            }
            if value_options.contains(&t) {
                if t == "-t" {
                    target_dir = rest.get(j).cloned();
                }
                j += 1;
            }
        }
        let paths: Vec<&Field> = match name {
            "chmod" | "chown" | "chgrp" => operands.iter().skip(1).copied().collect(),
            "cp" | "install" | "ln" => match &target_dir {
                Some(_) => Vec::new(),
                None if operands.len() > 1 => operands.last().copied().into_iter().collect(),
                None => Vec::new(),
            },
            "sed" | "perl" if !in_place => Vec::new(),
            "sed" | "perl" => operands
                .iter()
                .skip(usize::from(!script_given))
                .copied()
                .collect(),
            "dd" => Vec::new(),
            _ => operands.clone(),
        };
        let mut named: Vec<String> = paths
            .iter()
            .filter(|f| f.known)
            .map(|f| f.text.clone())
            .collect();
        if let Some(d) = target_dir.filter(|d| d.known) {
            named.push(d.text);
        }
        if name == "dd" {
            named.extend(
                operands
                    .iter()
                    .filter(|f| f.known)
                    .filter_map(|f| f.text.strip_prefix("of=").map(str::to_string)),
            );
        }
        for p in named {
            self.change(&p, format!("{name} … {p}"));
        }
    }
}

/// The names of the hooks gate installs (`crate::hooks::HOOKS`).
const HOOK_NAMES: [&str; 4] = [
    "pre-commit",
    "prepare-commit-msg",
    "pre-push",
    "post-checkout",
];

/// Whether a removal or change of `path` may reach `target`: `path` is at,
/// below or above it. Both are absolute and without `..`; `path` may hold
/// glob characters (`*`, `?`, `[…]`), matched one component at a time, a
/// leading `.` only by a `.`, as the shell expands them.
pub fn reaches(path: &std::path::Path, target: &std::path::Path) -> bool {
    path.components().zip(target.components()).all(|(p, t)| {
        match (p.as_os_str().to_str(), t.as_os_str().to_str()) {
            (Some(p), Some(t)) => glob_match(p, t),
            _ => p == t,
        }
    })
}

/// Whether `name` matches the glob `pattern` (`*`, `?`, `[…]`, `[!…]`); a
/// leading `.` of `name` only by a `.` of the pattern.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches(&p, &n)
}

fn matches(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len()).any(|k| matches(&p[1..], &n[k..])),
        Some('?') => !n.is_empty() && matches(&p[1..], &n[1..]),
        Some('[') => {
            let Some(close) = p.iter().skip(2).position(|&c| c == ']').map(|k| k + 2) else {
                return n.first() == Some(&'[') && matches(&p[1..], &n[1..]);
            };
            let Some(&c) = n.first() else { return false };
            let set = &p[1..close];
            let (negate, set) = match set.first() {
                Some('!' | '^') => (true, &set[1..]),
                _ => (false, set),
            };
            let mut hit = false;
            let mut k = 0;
            while k < set.len() {
                if k + 2 < set.len() && set[k + 1] == '-' {
                    hit |= set[k] <= c && c <= set[k + 2];
                    k += 3;
                } else {
                    hit |= set[k] == c;
                    k += 1;
                }
            }
            hit != negate && matches(&p[close + 1..], &n[1..])
        }
        Some('\\') if p.len() > 1 => n.first() == Some(&p[1]) && matches(&p[2..], &n[1..]),
        Some(&c) => n.first() == Some(&c) && matches(&p[1..], &n[1..]),
    }
}

/// Commands that remove, replace or change the files they name.
const CHANGERS: [&str; 16] = [
    "rm", "unlink", "rmdir", "shred", "truncate", "chmod", "chown", "chgrp", "mv", "cp", "install",
    "ln", "tee", "sed", "perl", "dd",
];

/// git's global options that take the next word as their value.
const GIT_VALUE_OPTIONS: [&str; 8] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--attr-source",
];

/// An option of a wrapper: its name (a short option's letter, a long
/// option's name), its value, and whether the value was the next word.
fn option_value(t: &str, next: Option<&Field>, w: &Wrapper) -> (String, Option<Field>, bool) {
    if let Some(long) = t.strip_prefix("--") {
        return match long.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(Field::lit(v)), false),
            None if w.long_values.contains(&long) => (long.to_string(), next.cloned(), true),
            None => (long.to_string(), None, false),
        };
    }
    let cluster = &t[1..];
    for (k, c) in cluster.char_indices() {
        if w.short_values.contains(c) {
            let attached = &cluster[k + c.len_utf8()..];
            return if attached.is_empty() {
                (c.to_string(), next.cloned(), true)
            } else {
                (c.to_string(), Some(Field::lit(attached)), false)
            };
        }
    }
    (cluster.to_string(), None, false)
}

/// Brace expansion: `a{b,c}d` is `abd acd`; braces that do not expand
/// (quoted, or without a comma) stay.
fn braces(chars: &[(char, bool)]) -> Vec<String> {
    // The first `{` whose group holds a top-level comma.
    for (open, &(c, live)) in chars.iter().enumerate() {
        if c != '{' || !live {
            continue;
        }
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (k, &(d, live)) in chars.iter().enumerate().skip(open) {
            if !live {
                continue;
            }
            match d {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                ',' if depth == 1 => commas.push(k),
                _ => {}
            }
        }
        let Some(close) = close else { break };
        if commas.is_empty() {
            continue;
        }
        let mut bounds = vec![open];
        bounds.extend(&commas);
        bounds.push(close);
        let mut out = Vec::new();
        for pair in bounds.windows(2) {
            let mut alt: Vec<(char, bool)> = chars[..open].to_vec();
            alt.extend_from_slice(&chars[pair[0] + 1..pair[1]]);
            alt.extend_from_slice(&chars[close + 1..]);
            out.extend(braces(&alt));
        }
        return out;
    }
    vec![chars.iter().map(|&(c, _)| c).collect()]
}

/// Whether `git config ARGS` sets, unsets or edits `core.hooksPath`: the
/// words that do it.
fn config_changes_hooks_path(args: &[Field]) -> Option<String> {
    let mut positionals: Vec<&Field> = Vec::new();
    let mut action: Option<&str> = None;
    let mut j = 0;
    // git 2.46's verbs: `git config set|unset|edit|rename-section|…`.
    if let Some(verb) = args.first().map(|f| f.text.as_str())
        && matches!(
            verb,
            "set" | "unset" | "edit" | "rename-section" | "remove-section" | "get" | "list"
        )
    {
        action = Some(verb);
        j = 1;
    }
    while let Some(f) = args.get(j) {
        let t = f.text.as_str();
        j += 1;
        match t {
            "--unset" | "--unset-all" => action = Some("unset"),
            "--replace-all" | "--add" => action = Some("set"),
            "--edit" | "-e" => action = Some("edit"),
            "--rename-section" => action = Some("rename-section"),
            "--remove-section" => action = Some("remove-section"),
            "--get" | "--get-all" | "--get-regexp" | "--get-urlmatch" | "--list" | "-l" => {
                action = Some("get")
            }
            "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment" | "--value" => j += 1,
            _ if t.starts_with('-') => {}
            _ => positionals.push(f),
        }
    }
    let key = positionals.first();
    let hooks_key = key.is_some_and(|k| !k.known || is_hooks_path(&k.text));
    let core = key.is_some_and(|k| !k.known || k.text.eq_ignore_ascii_case("core"));
    let words: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    let how = format!("git config {}", words.join(" "));
    let changes = match action {
        Some("edit") => true,
        Some("set" | "unset") => hooks_key,
        Some("rename-section" | "remove-section") => core,
        Some(_) => false,
        // `git config KEY VALUE` sets; `git config KEY` reads.
        None => hooks_key && positionals.len() > 1,
    };
    changes.then_some(how)
}

/// Whether `git commit ARGS`/`git push ARGS` skips gate's hooks:
/// `--no-verify` (or an abbreviation git accepts), `-n` for commit (for
/// push `-n` is `--dry-run`, which sends nothing).
fn skips_hooks(subcommand: &str, rest: &[&str]) -> Option<String> {
    let mut j = 0;
    while j < rest.len() {
        let a = rest[j];
        if a == "--" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            // git takes any unambiguous prefix: `--no-veri` is the shortest
            // (`--no-ver` could be `--no-verbose`).
            if name.len() >= "no-veri".len() && "no-verify".starts_with(name) {
                return Some(a.to_string());
            }
            if !long.contains('=') && long_takes_value(subcommand, name) {
                j += 1;
            }
        } else if let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (k, c) in cluster.char_indices() {
                if c == 'n' && subcommand == "commit" {
                    return Some(if a == "-n" {
                        "-n".into()
                    } else {
                        format!("-n (in {a})")
                    });
                }
                if short_takes_value(subcommand, c) {
                    // The rest of the cluster is the value, or the next word.
                    if k + c.len_utf8() == cluster.len() {
                        j += 1;
                    }
                    break;
                }
                if short_takes_attached_value(subcommand, c) {
                    break;
                }
            }
        }
        j += 1;
    }
    None
}

/// Short options whose value may be the next word (git-commit(1),
/// git-push(1)).
fn short_takes_value(subcommand: &str, c: char) -> bool {
    match subcommand {
        "commit" => matches!(c, 'm' | 'F' | 'C' | 'c' | 't'),
        _ => matches!(c, 'o'),
    }
}

/// Short options whose optional value can only be attached (`-S<key>`,
/// `-u<mode>`).
fn short_takes_attached_value(subcommand: &str, c: char) -> bool {
    subcommand == "commit" && matches!(c, 'S' | 'u')
}

/// Long options whose value may be the next word.
fn long_takes_value(subcommand: &str, name: &str) -> bool {
    let commit = [
        "message",
        "file",
        "author",
        "date",
        "reuse-message",
        "reedit-message",
        "fixup",
        "squash",
        "template",
        "cleanup",
        "pathspec-from-file",
        "trailer",
    ];
    let push = [
        "repo",
        "receive-pack",
        "exec",
        "push-option",
        "recurse-submodules",
    ];
    match subcommand {
        "commit" => commit.contains(&name),
        _ => push.contains(&name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Each finding, as a short line.
    fn found(command: &str) -> Vec<String> {
        guard(command)
            .findings
            .iter()
            .map(|f| match f {
                Finding::Bypass { subcommand, how } => format!("bypass {subcommand} {how}"),
                Finding::Unreadable { subcommand, via } => format!("unreadable {subcommand} {via}"),
                Finding::HooksPath { how } => format!("hooksPath {how}"),
                Finding::Uninstall { how } => format!("uninstall {how}"),
            })
            .collect()
    }

    fn first(command: &str) -> String {
        found(command).into_iter().next().unwrap_or_default()
    }

    fn changed(command: &str) -> Vec<String> {
        guard(command).changes.into_iter().map(|c| c.path).collect()
    }

    #[test]
    fn compound_commands_are_read() {
        for command in [
            "if true; then git commit -n -m x; fi",
            "if git commit -n -m x; then :; fi",
            "while true; do git commit --no-verify; break; done",
            "until false; do git commit -n; done",
            "for f in a b; do git commit -n $f; done",
            "case $x in a) git commit -n ;; esac",
            "case $x in (a) echo; git commit -n;; esac",
            "{ git commit -n; }",
            "! git commit -n",
            "f() { git commit -n; }; f",
            "function f { git commit -n; }",
            "true && (git commit -n) || false",
            "x=$(git commit -n)",
            "echo `git commit -n`",
            "cat <(git commit -n)",
            "echo \"${X:-$(git commit -n)}\"",
            "cat <<EOF\n$(git commit -n)\nEOF",
        ] {
            assert!(first(command).starts_with("bypass commit -"), "{command}");
        }
    }

    #[test]
    fn eval_shells_and_what_a_shell_reads_on_stdin_are_read() {
        for command in [
            "eval git commit -n",
            "eval 'git commit -n'",
            "eval \"$(echo x)\"; eval 'git' 'commit' '-n'",
            "bash -c 'git commit -n'",
            "sh -xc \"git commit -n\"",
            "bash -lc 'eval \"git commit -n\"'",
            "bash <<EOF\ngit commit -n\nEOF",
            "sh <<<'git commit -n'",
            "echo 'git commit -n' | sh",
            "printf '%s\\n' 'git commit -n' | bash -s",
        ] {
            assert_eq!(first(command), "bypass commit -n", "{command}");
        }
        // A here-document fed to anything but a shell is data.
        for command in [
            "cat > notes.md <<'EOF'\nnever run git commit -n\nEOF",
            "echo 'git commit -n is forbidden'",
            "bash script.sh 'git commit -n'",
        ] {
            assert_eq!(found(command), Vec::<String>::new(), "{command}");
        }
    }

    #[test]
    fn wrappers_are_looked_through() {
        for command in [
            "timeout 60 git commit -n",
            "timeout -s KILL -k 5 1m git commit -n",
            "timeout --signal=TERM 10 git commit -n",
            "stdbuf -oL git commit -n",
            "stdbuf -o L -e 0 git commit -n",
            "env -i PATH=/bin git commit -n",
            "env -u HOME -C sub git commit -n",
            "env -S 'git commit -n'",
            "nice -n 10 git commit -n",
            "nice -10 git commit -n",
            "sudo -u bob git commit -n",
            "nohup git commit -n",
            "command git commit -n",
            "exec -a x git commit -n",
            "time -p git commit -n",
            "ionice -c 3 git commit -n",
            "taskset -c 0 git commit -n",
            "flock /tmp/l git commit -n",
            "flock -c 'git commit -n' /tmp/l",
            "watch -n 1 git commit -n",
            "git rebase --exec 'git commit -n' main",
            "git rebase -x 'git commit --amend -n' HEAD~2",
            "git rebase --exec='git commit -n' main",
            "git submodule foreach 'git commit -n'",
            "git bisect run git commit -n",
            "G=git; $G commit -n",
            "F=-n; git commit $F",
            "export F='-a -n'; git commit $F",
            "git commit --no-ver{ify,x}",
            "git commit $'-\\x6e'",
            "git -c alias.ci='commit -n' ci",
            "git -c alias.ci='!git commit -n' ci",
        ] {
            assert!(
                first(command).starts_with("bypass commit -"),
                "{command}: {:?}",
                found(command)
            );
        }
        for command in [
            "ls | xargs git commit -m x",
            "xargs -I{} git commit {}",
            "find . -name x -exec git commit -m x {} +",
        ] {
            assert!(first(command).starts_with("unreadable commit"), "{command}");
        }
        for command in [
            "timeout 60 cargo test -- -n",
            "xargs git add",
            "find . -name '*.rs' -exec grep -n x {} +",
            "nice git log -n 3",
            "git rebase --exec 'cargo test' main",
            "env -S 'git status' -n",
        ] {
            assert_eq!(found(command), Vec::<String>::new(), "{command}");
        }
    }

    #[test]
    fn every_form_of_the_hooks_path_override_is_seen() {
        for (command, expected) in [
            (
                "git -c core.hooksPath=/dev/null commit",
                "bypass commit -c core.hooksPath=/dev/null",
            ),
            (
                "git --config-env=core.hooksPath=H push",
                "bypass push --config-env core.hooksPath=H",
            ),
            (
                "git --config-env core.HOOKSPATH=H commit",
                "bypass commit --config-env core.HOOKSPATH=H",
            ),
            (
                "git -c core.hooksPath=x merge topic",
                "hooksPath git -c core.hooksPath=x merge",
            ),
            (
                "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit",
                "hooksPath GIT_CONFIG_KEY_0=core.hooksPath",
            ),
            (
                "export GIT_CONFIG_KEY_3=Core.HooksPath",
                "hooksPath GIT_CONFIG_KEY_3=Core.HooksPath",
            ),
            (
                "env GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/x'\" git commit",
                "hooksPath GIT_CONFIG_PARAMETERS='core.hooksPath'='/x'",
            ),
            (
                "git config core.hooksPath /dev/null",
                "hooksPath git config core.hooksPath /dev/null",
            ),
            (
                "git config --global core.hooksPath ~/h",
                "hooksPath git config --global core.hooksPath ~/h",
            ),
            (
                "git config --unset core.hooksPath",
                "hooksPath git config --unset core.hooksPath",
            ),
            (
                "git config --unset-all core.hookspath",
                "hooksPath git config --unset-all core.hookspath",
            ),
            (
                "git config unset core.hooksPath",
                "hooksPath git config unset core.hooksPath",
            ),
            (
                "git config set core.hooksPath x",
                "hooksPath git config set core.hooksPath x",
            ),
            (
                "git config --file .git/config core.hooksPath x",
                "hooksPath git config --file .git/config core.hooksPath x",
            ),
            (
                "git config --remove-section core",
                "hooksPath git config --remove-section core",
            ),
            ("git config --edit", "hooksPath git config --edit"),
            (
                "git -C sub config core.hooksPath x",
                "hooksPath git config core.hooksPath x",
            ),
        ] {
            assert_eq!(first(command), expected, "{command}");
        }
        for command in [
            "git config core.hooksPath",
            "git config --get core.hooksPath",
            "git config get core.hooksPath",
            "git config --list",
            "git config user.name 'A B'",
            "git -c user.name=x commit -m 'core.hooksPath'",
            "GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x git commit",
            "echo git config core.hooksPath x",
            "GIT_CONFIG_PARAMETERS=\"'user.name'='x'\" git log",
        ] {
            assert_eq!(found(command), Vec::<String>::new(), "{command}");
        }
    }

    #[test]
    fn uninstalling_the_hooks_is_seen() {
        for (command, expected) in [
            ("gate uninstall", "uninstall gate uninstall"),
            (
                "gate -C . uninstall --agent claude-code",
                "uninstall gate uninstall --agent claude-code",
            ),
            ("/usr/local/bin/gate uninstall", "uninstall gate uninstall"),
            ("lefthook uninstall", "uninstall lefthook uninstall"),
            ("npx lefthook uninstall", "uninstall lefthook uninstall"),
            (
                "pre-commit uninstall -t pre-push",
                "uninstall pre-commit uninstall -t pre-push",
            ),
        ] {
            assert_eq!(first(command), expected, "{command}");
        }
        for command in [
            "gate install",
            "gate status",
            "echo gate uninstall",
            "pre-commit run -a",
        ] {
            assert_eq!(found(command), Vec::<String>::new(), "{command}");
        }
    }

    #[test]
    fn the_paths_a_command_removes_or_changes_are_named() {
        for (command, expected) in [
            ("rm .git/hooks/pre-commit", vec![".git/hooks/pre-commit"]),
            ("rm -rf -- .git/hooks", vec![".git/hooks"]),
            ("unlink .git/hooks/pre-push", vec![".git/hooks/pre-push"]),
            (
                "mv .git/hooks/pre-commit /tmp/x",
                vec![".git/hooks/pre-commit", "/tmp/x"],
            ),
            (
                "cp /bin/true .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "ln -sf /bin/true .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            ("install -m 755 x -t .git/hooks", vec![".git/hooks"]),
            (
                "chmod -x .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "chmod 644 .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "truncate -s 0 .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "echo exit 0 > .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "echo >>.git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "true | tee .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "sed -i 's/gate/true/' .git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            ("sed -i.bak -e s/a/b/ h1 h2", vec!["h1", "h2"]),
            ("perl -pi -e 's/a/b/' h", vec!["h"]),
            (
                "dd if=/dev/null of=.git/hooks/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            ("find .git/hooks -delete", vec![".git/hooks"]),
            ("find . -name pre-commit -exec rm {} +", vec!["."]),
            ("find -type f -delete", vec!["."]),
            (
                "H=.git/hooks; rm $H/pre-commit",
                vec![".git/hooks/pre-commit"],
            ),
            (
                "rm .git/hooks/{pre-commit,pre-push}",
                vec![".git/hooks/pre-commit", ".git/hooks/pre-push"],
            ),
        ] {
            assert_eq!(changed(command), expected, "{command}");
        }
        for command in [
            "sed 's/a/b/' .git/hooks/pre-commit",
            "cat .git/hooks/pre-commit",
            "cp .git/hooks/pre-commit",
            "find . -name '*.pyc' -delete",
            "find . -name '*.orig' -exec rm {} +",
            "echo rm .git/hooks/pre-commit",
            "rm \"$F\"",
        ] {
            assert_eq!(changed(command), Vec::<String>::new(), "{command}");
        }
    }

    #[test]
    fn the_directories_a_command_moves_to_are_named() {
        let dirs = |c: &str| guard(c).dirs;
        assert_eq!(
            dirs("cd /r && git -C sub commit -n; git --git-dir=/g/.git log"),
            [
                Some("/r".into()),
                Some("sub".into()),
                Some("/g/.git".into())
            ]
        );
        assert_eq!(
            dirs("cd \"$X\"; cd; cd -; cd ~/r"),
            [None, None, None, None]
        );
        assert_eq!(
            dirs("env -C /a git status; sudo -D /b ls"),
            [Some("/a".into()), Some("/b".into())]
        );
    }

    #[test]
    fn a_removal_reaches_what_is_at_below_or_above_it() {
        let hooks = Path::new("/r/.git/hooks");
        for path in [
            "/r/.git/hooks/pre-commit",
            "/r/.git/hooks",
            "/r/.git",
            "/r",
            "/r/.git/hoo*",
            "/r/.g?t/*/x",
            "/r/.*",
        ] {
            assert!(reaches(Path::new(path), hooks), "{path}");
        }
        for path in [
            "/r/src",
            "/r/*",
            "/r/src/*",
            "/other/.git/hooks",
            "/r/.git/objects",
        ] {
            assert!(!reaches(Path::new(path), hooks), "{path}");
        }
        assert!(glob_match("pre-*", "pre-commit"));
        assert!(glob_match("[p]re-comm?t", "pre-commit"));
        assert!(!glob_match("[!p]re-commit", "pre-commit"));
        assert!(!glob_match("*", ".git"));
        assert!(glob_match(".*", ".git"));
    }
}
