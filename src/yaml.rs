//! YAML in, closed-schema models out: the only module that names `serde_yaml`.
//!
//! `serde_yaml` is deprecated upstream; keeping every use of it here makes a
//! maintained fork a one-file swap. This module owns:
//!
//! - [`from_str`]: text to a `Deserialize` model. Schema errors (YAML syntax,
//!   unknown keys, missing keys, wrong types) name the file, line, column and
//!   key path (`intents[0].criteria[1].evidence`, via `serde_path_to_error`).
//! - a bounded pre-pass that refuses hostile input before any model is built:
//!   `serde_yaml` replays an alias each time it is used, so an alias bomb is
//!   walked *expanded*, and the walk stops at [`MAX_NODES`] nodes,
//!   [`MAX_SCALAR_BYTES`] bytes of scalars or [`MAX_DEPTH`] levels of nesting
//!   ([`LoadError::TooComplex`]). It allocates nothing. Before it, a linear
//!   scan of the raw text refuses flow collections nested past
//!   [`MAX_FLOW_NESTING`], which would make libyaml's own scanner quadratic.
//!   gate's own files ([`closed`]: models that deny unknown fields) skip the
//!   pre-pass where the text has no anchor, is short and does not look
//!   empty — it could refuse nothing such a model reads — and run it when
//!   the model fails, so the answer is the same and a valid file is parsed
//!   once.
//! - [`locate`]: the line and column of the node at a key path, so semantic
//!   errors found after loading (duplicate ids, bad globs) point at a line.
//! - strict string helpers for `#[serde(deserialize_with)]` ([`string`],
//!   [`opt_string`], [`strings`], [`id_string`]): YAML would read `id: 42` as
//!   a number and `serde_yaml` would quietly turn it into `"42"`; gate's files
//!   say what they mean, so a scalar that is not a string is a type error with
//!   a hint to quote it.
//!
//! Decisions: one document per file (a second `---` document is an error); an
//! empty document (empty file, only comments, or a bare `null`) is an error
//! rather than an empty mapping, so a truncated file can never read as "no
//! rules" — write `{}` for an explicitly empty file. A leading byte-order mark
//! is ignored and CRLF line ends are fine; lines and columns are 1-based.
//!
//! It must not validate meaning: ids, paths and references are checked by the
//! models (`policy`, `plan`), which call [`locate`] to place their errors.

use std::fmt;
use std::path::Path;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess,
    SeqAccess, Unexpected, VariantAccess, Visitor,
};

use crate::load::LoadError;

/// Most nodes (scalars, sequences, mappings, counting every alias expansion)
/// a document may hold.
pub const MAX_NODES: u64 = 250_000;
/// Most bytes of scalar text (keys included, aliases expanded) a document may hold.
pub const MAX_SCALAR_BYTES: u64 = 8 << 20;
/// Deepest nesting of sequences and mappings; gate's schemas need fewer than
/// ten levels (and `serde_yaml` stops at 128).
pub const MAX_DEPTH: usize = 64;

/// Deserialize one YAML document from `text`, naming `file` in errors.
///
/// The text is first scanned for flow nesting and the document walked by the
/// bounded pre-pass, then deserialized into `T`. Every error is a [`LoadError`]: `TooComplex` for input past the
/// limits, `Schema` (with line, column and key path) for anything else.
///
/// A document read before is not read again: one run reads the same policy
/// and task file from HEAD, the index and the work tree, often byte for
/// byte alike, and libyaml's reader is most of a hook's time (issue 29). The
/// model of each successful read is kept by (type, text) in a small
/// process-wide [`memo`] and cloned out (`file` only names the file in an
/// error); an error is made again each time, naming its own file.
pub fn from_str<T>(file: &Path, text: &str) -> Result<T, LoadError>
where
    T: DeserializeOwned + Clone + Send + 'static,
{
    read(file, text, false)
}

/// [`from_str`] for one of gate's own files, whose model is [`Closed`]:
/// the bounded pre-pass runs only where the text could hold what it
/// refuses, or where the model fails (to give the error it always gave),
/// so a valid file is parsed once, not twice. The answer is `from_str`'s.
pub fn closed<T>(file: &Path, text: &str) -> Result<T, LoadError>
where
    T: Closed + DeserializeOwned + Clone + Send + 'static,
{
    read(file, text, true)
}

/// A model that denies unknown fields at every level and nests a few levels
/// deep: text nesting past [`MAX_DEPTH`] cannot read as it, so the
/// pre-pass's depth limit need not run before it (see [`closed`]).
pub trait Closed {}

fn read<T>(file: &Path, text: &str, fast: bool) -> Result<T, LoadError>
where
    T: DeserializeOwned + Clone + Send + 'static,
{
    if let Some(known) = memo::get::<T>(text) {
        return Ok(known);
    }
    let read: T = deserialize(file, text, fast)?;
    memo::put(text, read.clone());
    Ok(read)
}

fn deserialize<T: DeserializeOwned>(file: &Path, text: &str, fast: bool) -> Result<T, LoadError> {
    let text = strip_bom(text);
    if let Err(message) = flow_nesting(text) {
        return Err(LoadError::TooComplex {
            file: file.to_path_buf(),
            message,
        });
    }
    if fast && !unbounded(text) && !maybe_empty(text) {
        // The pre-pass could refuse only what cannot be read as a closed
        // model (see `Closed`, `unbounded`, `maybe_empty`), so it runs only
        // when the model fails, to give the answer it always gave first.
        return model(file, text).map_err(|err| prepass(file, text).err().unwrap_or(err));
    }
    prepass(file, text)?;
    model(file, text)
}

fn model<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, LoadError> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|err| {
        let key = err.path().to_string();
        convert(file, key, err.into_inner())
    })
}

/// Whether `text` could exceed the pre-pass's budgets as a model that
/// still reads: only through aliases (an anchor, `&`, somewhere) or by
/// holding more nodes than [`MAX_NODES`]. Without an anchor nothing is
/// expanded: a node takes at least two bytes of text (`-` and a line
/// break), so text shorter than `MAX_NODES` holds fewer nodes than that and
/// fewer scalar bytes than [`MAX_SCALAR_BYTES`].
fn unbounded(text: &str) -> bool {
    text.len() >= MAX_NODES as usize || text.contains('&')
}

/// Whether `text` might be an empty document, which the pre-pass refuses
/// and a model with every field optional would read as "nothing": no
/// content besides comments, blank lines and `---`, or content that starts
/// with a null (`null`, `~`), a tag (`!`) or a directive (`%`). A file that
/// starts with a key is not.
fn maybe_empty(text: &str) -> bool {
    for line in text.lines() {
        let mut content = line.trim();
        if let Some(rest) = content.strip_prefix("---") {
            content = rest.trim();
        }
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let lower = content.to_ascii_lowercase();
        return lower.starts_with("null")
            || ["~", "!", "%", "..."]
                .iter()
                .any(|p| content.starts_with(p));
    }
    true
}

/// Line and column (1-based) of the node at `key_path` in `text`, such as
/// `issues[2].serves[0]`, `checks[1].id` or `` (the root); `None` when there
/// is no such node, or the text stops parsing before it.
///
/// It walks the document along the path and fails on purpose at the target
/// node; `serde_yaml` attaches that node's position to the failure.
pub fn locate(text: &str, key_path: &str) -> Option<(usize, usize)> {
    let text = strip_bom(text);
    flow_nesting(text).ok()?;
    let segments = parse_key_path(key_path)?;
    let de = serde_yaml::Deserializer::from_str(text);
    match (Locate {
        path: &segments,
        depth: 0,
    })
    .deserialize(de)
    {
        Ok(()) => None,
        Err(err) if err.to_string().contains(FOUND) => {
            err.location().map(|at| (at.line(), at.column()))
        }
        Err(_) => None,
    }
}

/// A semantic error (`LoadError::Invalid`) about the node at `key`, placed at
/// its line and column in `text` when [`locate`] finds it.
pub fn invalid(
    file: &Path,
    text: &str,
    key: impl Into<String>,
    message: impl Into<String>,
) -> LoadError {
    let key = key.into();
    let at = locate(text, &key);
    LoadError::Invalid {
        file: file.to_path_buf(),
        line: at.map(|(line, _)| line),
        column: at.map(|(_, column)| column),
        key,
        message: message.into(),
    }
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

// ---------------------------------------------------------------------------
// Models already read

/// The models of documents already read in this process, by (type, text).
/// A successful read is a pure function of those two (the file's name is
/// only ever in an error), so a hit is the answer a second read would give. Bounded: at most [`memo::ENTRIES`] documents
/// (each at most 1 MiB, the read limit of gate's files), the oldest dropped
/// first, so a long-running `gate mcp` holds no more than a few.
mod memo {
    use std::any::{Any, TypeId};
    use std::sync::Mutex;

    /// Most documents remembered.
    pub const ENTRIES: usize = 16;

    struct Entry {
        kind: TypeId,
        text: String,
        model: Box<dyn Any + Send>,
    }

    static MEMO: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

    pub fn get<T: Clone + 'static>(text: &str) -> Option<T> {
        let memo = MEMO.lock().ok()?;
        memo.iter()
            .find(|e| e.kind == TypeId::of::<T>() && e.text == text)
            .and_then(|e| e.model.downcast_ref::<T>())
            .cloned()
    }

    pub fn put<T: Send + 'static>(text: &str, model: T) {
        let Ok(mut memo) = MEMO.lock() else {
            return;
        };
        if memo.len() >= ENTRIES {
            memo.remove(0);
        }
        memo.push(Entry {
            kind: TypeId::of::<T>(),
            text: text.to_owned(),
            model: Box::new(model),
        });
    }
}

// ---------------------------------------------------------------------------
// Errors

fn convert(file: &Path, key: String, err: serde_yaml::Error) -> LoadError {
    let location = err.location();
    let (line, column) = match &location {
        Some(at) => (Some(at.line()), Some(at.column())),
        None => (None, None),
    };
    let mut message = err.to_string();
    if message.contains("recursion limit exceeded") {
        return LoadError::TooComplex {
            file: file.to_path_buf(),
            message: "the document nests too deeply; refused".into(),
        };
    }
    if message.contains("repetition limit exceeded") {
        return LoadError::TooComplex {
            file: file.to_path_buf(),
            message: "the document uses its aliases too many times; refused".into(),
        };
    }
    if message.contains("more than one document") {
        return LoadError::Schema {
            file: file.to_path_buf(),
            line,
            column,
            key: String::new(),
            message: "the file holds more than one YAML document; gate reads exactly one \
                      (remove the second `---`)"
                .into(),
        };
    }
    // serde_yaml appends the position and prefixes its own path; both are
    // reported separately.
    if let Some(at) = &location {
        for suffix in [
            format!(" at line {} column {}", at.line(), at.column()),
            format!(" at position {}", at.index()),
        ] {
            if let Some(i) = message.find(&suffix) {
                message.replace_range(i..i + suffix.len(), "");
                break;
            }
        }
    }
    if let Some((head, rest)) = message.split_once(": ")
        && !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.[]?".contains(c))
    {
        message = rest.to_owned();
    }
    let key = if key == "." { String::new() } else { key };
    // Name the key itself, not only the mapping it belongs to.
    let field = ["unknown field `", "missing field `", "duplicate field `"]
        .into_iter()
        .find_map(|prefix| field_in(&message, prefix));
    let key = match field {
        Some(field) if !key.ends_with(field) => join_key(&key, field),
        _ => key,
    };
    LoadError::Schema {
        file: file.to_path_buf(),
        line,
        column,
        key,
        message,
    }
}

fn field_in<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(field, _)| field)
}

fn join_key(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    }
}

// ---------------------------------------------------------------------------
// Flow nesting, before libyaml sees the text

/// Most flow collections (`[`, `{`) open at once, as [`flow_nesting`]
/// estimates it.
pub const MAX_FLOW_NESTING: usize = 256;

/// Refuse text whose flow collections nest past [`MAX_FLOW_NESTING`], by a
/// linear scan of the raw text.
///
/// libyaml's scanner does work proportional to the flow nesting level for
/// every token, so a megabyte of `{a: {a: {a: ...` takes minutes to parse —
/// before any event reaches the bounded pre-pass. This scan mirrors
/// libyaml's lexical rules closely enough for real files: quoted scalars
/// start only where a token can start, ` #` starts a comment. It counts every
/// `[` and `{` outside comments and a `]` or `}` outside quotes; inside a
/// quoted scalar brackets count until it ends, so a quote it misreads cannot
/// hide a run of opening brackets.
/// It is an estimate, not a YAML scanner: text crafted to confuse it could
/// still reach libyaml; a parser with its own nesting limit is the real fix.
fn flow_nesting(text: &str) -> Result<(), String> {
    #[derive(PartialEq)]
    enum In {
        Plain,
        Double,
        Single,
        Comment,
    }
    let bytes = text.as_bytes();
    let mut state = In::Plain;
    // Within the line: a plain scalar is being read (a quote in it is text),
    // or a node property (`&anchor`, `!tag`, `*alias`).
    let mut in_scalar = false;
    let mut in_property = false;
    let mut depth = 0usize;
    let mut string_base = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let prev = if i == 0 { b'\n' } else { bytes[i - 1] };
        let next = bytes.get(i + 1).copied().unwrap_or(b'\n');
        let opens = (c == b'[' || c == b'{') && state != In::Comment;
        if opens {
            depth += 1;
            if depth > MAX_FLOW_NESTING {
                return Err(format!(
                    "the document nests more than {MAX_FLOW_NESTING} flow collections ([ or {{) \
                     deep; refused"
                ));
            }
        }
        match state {
            In::Comment => {
                if c == b'\n' {
                    state = In::Plain;
                }
            }
            In::Double | In::Single => match c {
                b'\\' if state == In::Double => i += 1,
                b'\'' if state == In::Single && next == b'\'' => i += 1,
                // Brackets in a string count while it lasts (so one that is
                // not really a string still trips the limit), then drop out.
                b'"' if state == In::Double => {
                    state = In::Plain;
                    depth = string_base;
                }
                b'\'' if state == In::Single => {
                    state = In::Plain;
                    depth = string_base;
                }
                b']' | b'}' if depth > string_base => depth -= 1,
                _ => {}
            },
            In::Plain => {
                let blank = |b: u8| b == b' ' || b == b'\t' || b == b'\r' || b == b'\n';
                let token_start = blank(prev) || b"[]{},:".contains(&prev);
                match c {
                    b'\n' => {
                        in_scalar = false;
                        in_property = false;
                    }
                    b' ' | b'\t' | b'\r' => in_property = false,
                    b'[' | b'{' | b',' => {
                        in_scalar = false;
                        in_property = false;
                    }
                    b']' | b'}' => {
                        depth = depth.saturating_sub(1);
                        in_scalar = false;
                        in_property = false;
                    }
                    b'#' if blank(prev) => state = In::Comment,
                    b'"' | b'\'' if in_property || (token_start && !in_scalar) => {
                        state = if c == b'"' { In::Double } else { In::Single };
                        string_base = depth;
                        in_property = false;
                    }
                    // Indicators followed by a blank start no scalar.
                    b'-' | b'?' | b':' if blank(next) => in_scalar = false,
                    b'&' | b'!' | b'*' if token_start && !in_scalar => in_property = true,
                    _ if in_property => {}
                    _ => in_scalar = true,
                }
            }
        }
        i += 1;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The bounded pre-pass

struct Budget {
    nodes: u64,
    scalar_bytes: u64,
    /// Set when a limit was crossed; the walk then fails with a marker error.
    exceeded: Option<String>,
}

impl Budget {
    fn charge<E: de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        self.nodes += 1;
        self.scalar_bytes += bytes as u64;
        if self.nodes > MAX_NODES {
            return Err(self.exceed(format!(
                "the document expands to more than {MAX_NODES} nodes (aliases count each time \
                 they are used); refused"
            )));
        }
        if self.scalar_bytes > MAX_SCALAR_BYTES {
            return Err(self.exceed(format!(
                "the document expands to more than {MAX_SCALAR_BYTES} bytes of text (aliases \
                 count each time they are used); refused"
            )));
        }
        Ok(())
    }

    fn exceed<E: de::Error>(&mut self, message: String) -> E {
        self.exceeded = Some(message);
        E::custom("gate: pre-pass limit exceeded")
    }
}

/// What the root of a document is, as far as the pre-pass cares.
#[derive(PartialEq)]
enum Shape {
    Null,
    Other,
}

fn prepass(file: &Path, text: &str) -> Result<(), LoadError> {
    let mut budget = Budget {
        nodes: 0,
        scalar_bytes: 0,
        exceeded: None,
    };
    let de = serde_yaml::Deserializer::from_str(text);
    let walked = Walk {
        budget: &mut budget,
        depth: 0,
    }
    .deserialize(de);
    if let Some(message) = budget.exceeded {
        return Err(LoadError::TooComplex {
            file: file.to_path_buf(),
            message,
        });
    }
    match walked {
        Ok(Shape::Null) => Err(LoadError::Schema {
            file: file.to_path_buf(),
            line: None,
            column: None,
            key: String::new(),
            message: "the document is empty (or only comments, or null); expected a mapping \
                      — write `{}` for an explicitly empty one"
                .into(),
        }),
        Ok(Shape::Other) => Ok(()),
        Err(err) => Err(convert(file, String::new(), err)),
    }
}

/// Walks any value, charging every node to the budget; keeps nothing.
struct Walk<'b> {
    budget: &'b mut Budget,
    depth: usize,
}

impl Walk<'_> {
    fn nested(&mut self) -> Walk<'_> {
        Walk {
            budget: self.budget,
            depth: self.depth + 1,
        }
    }

    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        self.budget.charge(0)?;
        if self.depth >= MAX_DEPTH {
            return Err(self.budget.exceed(format!(
                "the document nests more than {MAX_DEPTH} levels deep; refused"
            )));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Shape, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Other)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Other)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Other)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Shape, E> {
        self.budget.charge(v.len()).map(|()| Shape::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Shape, E> {
        self.budget.charge(0).map(|()| Shape::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Shape, D::Error> {
        de.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Shape, A::Error> {
        self.enter()?;
        while seq.next_element_seed(self.nested())?.is_some() {}
        Ok(Shape::Other)
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Shape, A::Error> {
        self.enter()?;
        while map.next_key_seed(self.nested())?.is_some() {
            map.next_value_seed(self.nested())?;
        }
        Ok(Shape::Other)
    }

    /// A tagged node (`!tag value`): walk the tag and the value.
    fn visit_enum<A: EnumAccess<'de>>(mut self, data: A) -> Result<Shape, A::Error> {
        self.enter()?;
        let (_, variant) = data.variant_seed(self.nested())?;
        variant.newtype_variant_seed(self.nested())?;
        Ok(Shape::Other)
    }
}

// ---------------------------------------------------------------------------
// locate

const FOUND: &str = "gate: located the node";

#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// `a.b[2].c` → `[Key(a), Key(b), Index(2), Key(c)]`; `` and `.` are the root.
fn parse_key_path(path: &str) -> Option<Vec<Segment>> {
    let mut segments = Vec::new();
    if path == "." {
        return Some(segments);
    }
    let mut rest = path;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let (index, tail) = after.split_once(']')?;
            segments.push(Segment::Index(index.parse().ok()?));
            rest = tail;
        } else {
            let body = if first { rest } else { rest.strip_prefix('.')? };
            let end = body.find(['.', '[']).unwrap_or(body.len());
            if end == 0 {
                return None;
            }
            segments.push(Segment::Key(body[..end].to_owned()));
            rest = &body[end..];
        }
        first = false;
    }
    Some(segments)
}

struct Locate<'p> {
    path: &'p [Segment],
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Locate<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        if self.path.is_empty() {
            de.deserialize_any(Found)
        } else {
            de.deserialize_any(self)
        }
    }
}

impl<'de> Visitor<'de> for Locate<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping or a sequence")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        Ok(())
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Segment::Index(target), rest)) = self.path.split_first() else {
            return Ok(());
        };
        if self.depth >= MAX_DEPTH {
            return Ok(());
        }
        let mut index = 0;
        loop {
            if index == *target {
                seq.next_element_seed(Locate {
                    path: rest,
                    depth: self.depth + 1,
                })?;
                return Ok(());
            }
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Segment::Key(target), rest)) = self.path.split_first() else {
            return Ok(());
        };
        if self.depth >= MAX_DEPTH {
            return Ok(());
        }
        while let Some(key) = map.next_key_seed(KeyText)? {
            if key.as_deref() == Some(target.as_str()) {
                return map.next_value_seed(Locate {
                    path: rest,
                    depth: self.depth + 1,
                });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// The text of a mapping key, when it is a scalar.
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<String>, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyText {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping key")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// Fails at whatever node it is asked to visit, so the failure carries that
/// node's position.
struct Found;

impl<'de> Visitor<'de> for Found {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}

// ---------------------------------------------------------------------------
// Strict strings for `#[serde(deserialize_with)]`

/// A string, and only a string: `42`, `true` or an empty value are type
/// errors with a hint to quote them.
pub fn string<'de, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    de.deserialize_any(StrictString { key: None })
}

/// Like [`string`], for an id: a bare number gets the hint `id: "42"`.
pub fn id_string<'de, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    de.deserialize_any(StrictString { key: Some("id") })
}

/// An optional [`string`]: absent (with `#[serde(default)]`), empty or `null`
/// is `None`.
pub fn opt_string<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    de.deserialize_option(OptString)
}

/// A list of [`string`]s. An empty value (`key:` with nothing after it, or
/// `null`) is an empty list, as `serde_yaml` reads an empty value for every
/// list; a lone string gets a hint to bracket it.
pub fn strings<'de, D: Deserializer<'de>>(de: D) -> Result<Vec<String>, D::Error> {
    de.deserialize_any(StringList)
}

struct StrictString {
    /// The key to show in the quoting hint, if any.
    key: Option<&'static str>,
}

impl StrictString {
    fn quote_hint(&self, text: &str) -> String {
        match self.key {
            Some(key) => format!("quote it: {key}: \"{text}\""),
            None => format!("quote it: \"{text}\""),
        }
    }
}

impl<'de> DeserializeSeed<'de> for StrictString {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<String, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictString {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Err(E::custom(format!(
            "expected a string, found the boolean {v}; {}",
            self.quote_hint(&v.to_string())
        )))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Err(E::custom(format!(
            "expected a string, found the number {v}; {}",
            self.quote_hint(&v.to_string())
        )))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Err(E::custom(format!(
            "expected a string, found the number {v}; {}",
            self.quote_hint(&v.to_string())
        )))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<String, E> {
        Err(E::custom(format!(
            "expected a string, found the number {v}; {}",
            self.quote_hint(&v.to_string())
        )))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<String, E> {
        Err(E::custom(format!(
            "expected a string, found the number {v}; {}",
            self.quote_hint(&v.to_string())
        )))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Err(E::custom(format!(
            "expected a string, found the number {v}; quote it as written"
        )))
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Err(E::custom("expected a string, found an empty value (null)"))
    }

    fn visit_none<E: de::Error>(self) -> Result<String, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Seq, &self))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Map, &self))
    }
}

struct OptString;

impl<'de> Visitor<'de> for OptString {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or nothing")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Option<String>, D::Error> {
        string(de).map(Some)
    }
}

struct StringList;

impl<'de> Visitor<'de> for StringList {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictString { key: None })? {
            out.push(item);
        }
        Ok(out)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<String>, E> {
        Err(E::custom(format!(
            "expected a list of strings, found the string \"{v}\"; write [{v}] for a list of one"
        )))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }

    fn visit_none<E: de::Error>(self) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Clone, Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[serde(default)]
        items: Vec<Item>,
        #[serde(default, deserialize_with = "opt_string")]
        note: Option<String>,
    }

    #[derive(Clone, Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Item {
        #[serde(deserialize_with = "id_string")]
        id: String,
        #[serde(default, deserialize_with = "strings")]
        tags: Vec<String>,
        #[serde(default)]
        count: u32,
    }

    fn parse(text: &str) -> Result<Doc, LoadError> {
        from_str(Path::new(".gate/x.yaml"), text)
    }

    impl Closed for Doc {}

    /// `closed` answers what `from_str` answers (the pre-pass first) for
    /// text of every kind: valid, empty in each spelling, nested past the
    /// limit, alias bombs, several documents, wrong keys and syntax.
    #[test]
    fn a_closed_model_reads_as_the_pre_pass_first_would() {
        let bomb = {
            let mut t = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
            for i in 1..8 {
                t.push_str(&format!(
                    "{}: &{} [*{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}]\n",
                    (b'a' + i) as char,
                    (b'a' + i) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                    (b'a' + i - 1) as char,
                ));
            }
            t
        };
        let mut texts: Vec<String> = [
            "items:\n  - id: a\n    tags: [x, y]\n    count: 2\nnote: n\n",
            "# a comment first\n---\nitems: []\n",
            "{}",
            "",
            "\n\n",
            "# only a comment\n",
            "null\n",
            "Null",
            "~",
            "--- null\n",
            "---\n",
            "--- !!null\n",
            "!!null ''\n",
            "%YAML 1.2\n---\n",
            "...\n",
            "items: []\n---\nitems: []\n",
            "items:\n  - id: a\n    colour: red\n",
            "items: [\n",
            "note: &n x\nitems: []\n",
            "items:\n  - id: 7\n",
        ]
        .map(str::to_owned)
        .to_vec();
        texts.push(bomb);
        for depth in [MAX_DEPTH - 1, MAX_DEPTH + 1, 130, 1_000] {
            texts.push(format!("note: {}x\n", "- ".repeat(depth)));
            texts.push(format!("items:\n{}x\n", "- ".repeat(depth)));
            let mut mappings = String::from("items:\n");
            for level in 1..depth {
                mappings.push_str(&" ".repeat(level));
                mappings.push_str("a:\n");
            }
            texts.push(mappings);
        }
        texts.push(format!("items:\n{}", "  - id: a\n".repeat(60_000)));
        for text in &texts {
            let file = Path::new("closed.yaml");
            let slow = deserialize::<Doc>(file, text, false);
            let fast = deserialize::<Doc>(file, text, true);
            match (&slow, &fast) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:.80?}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:.80?}"),
                _ => panic!("{text:.80?}: {slow:?} against {fast:?}"),
            }
        }
    }

    #[test]
    fn an_empty_document_in_any_spelling_takes_the_pre_pass() {
        for text in [
            "",
            "\n",
            "# c\n",
            "---\n",
            "--- # c\n",
            "null",
            "NULL\n",
            "~\n",
            "--- ~\n",
            "!!null\n",
            "%YAML 1.2\n",
            "...\n",
        ] {
            assert!(maybe_empty(text), "{text:?}");
        }
        for text in [
            "version: 1\n",
            "# c\nitems: []\n",
            "--- {}\n",
            "{}",
            "- a\n",
        ] {
            assert!(!maybe_empty(text), "{text:?}");
        }
        assert!(unbounded("a: &x 1\n"));
        assert!(!unbounded("a: 1\n"));
        assert!(unbounded(&"a".repeat(MAX_NODES as usize)));
    }

    /// A document read again is the model read before, kept by type and
    /// text; an error is never kept, and names its own file each time; the
    /// memo stays bounded.
    #[test]
    fn a_document_read_again_is_remembered_and_errors_are_not() {
        let text = "items:\n  - id: memo-a\n    count: 3\n";
        let file = Path::new("memo/a.yaml");
        assert_eq!(memo::get::<Doc>(text), None);
        let first: Doc = from_str(file, text).expect("reads");
        assert_eq!(memo::get::<Doc>(text), Some(first.clone()));
        assert_eq!(from_str::<Doc>(file, text).expect("reads again"), first);
        // The same text under another name (HEAD's file, the index's, the
        // work tree's) is the same model; another text or type is not.
        assert_eq!(
            from_str::<Doc>(Path::new("memo/b.yaml"), text).expect("reads"),
            first
        );
        assert_eq!(memo::get::<Doc>("items: []\n"), None);
        assert_eq!(memo::get::<Vec<Item>>(text), None);
        // An error is made again each time, naming the file it was read as.
        let bad = "items:\n  - id: memo-b\n    count: lots\n";
        let once = from_str::<Doc>(file, bad).unwrap_err().to_string();
        assert!(once.starts_with("memo/a.yaml:3:"), "{once}");
        assert_eq!(memo::get::<Doc>(bad), None);
        assert_eq!(from_str::<Doc>(file, bad).unwrap_err().to_string(), once);
        let other = from_str::<Doc>(Path::new("memo/c.yaml"), bad).unwrap_err();
        assert!(other.to_string().starts_with("memo/c.yaml:3:"), "{other}");
        // Bounded: the oldest go first.
        for n in 0..2 * memo::ENTRIES {
            let text = format!("note: memo-{n}\n");
            let _: Doc = from_str(Path::new("memo/n.yaml"), &text).expect("reads");
        }
        assert_eq!(memo::get::<Doc>(text), None);
        let newest = format!("note: memo-{}\n", 2 * memo::ENTRIES - 1);
        assert!(memo::get::<Doc>(&newest).is_some());
    }

    fn schema(err: LoadError) -> (Option<usize>, Option<usize>, String, String) {
        match err {
            LoadError::Schema {
                line,
                column,
                key,
                message,
                ..
            } => (line, column, key, message),
            other => panic!("expected a schema error, got {other:?}"),
        }
    }

    #[test]
    fn parses_a_valid_document() {
        let doc = parse("items:\n  - id: a\n    tags: [x, y]\nnote: hi\n").unwrap();
        assert_eq!(doc.items[0].tags, ["x", "y"]);
        assert_eq!(doc.note.as_deref(), Some("hi"));
        let doc = parse("{}").unwrap();
        assert!(doc.items.is_empty() && doc.note.is_none());
        let doc = parse("note:\nitems:\n").unwrap();
        assert!(doc.items.is_empty() && doc.note.is_none());
    }

    #[test]
    fn unknown_key_at_depth_names_file_line_column_key_and_allowed_keys() {
        let err = parse("items:\n  - id: a\n    tags: []\n    colour: red\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with(".gate/x.yaml:4:5: items[0].colour: ")
        );
        let (line, column, key, message) = schema(err);
        assert_eq!((line, column), (Some(4), Some(5)));
        assert_eq!(key, "items[0].colour");
        assert!(message.starts_with("unknown field `colour`, expected one of `id`, `tags`"));
    }

    #[test]
    fn missing_key_names_the_key() {
        let (line, _, key, message) = schema(parse("items:\n  - tags: [x]\n").unwrap_err());
        assert_eq!(line, Some(2));
        assert_eq!(key, "items[0].id");
        assert_eq!(message, "missing field `id`");
    }

    #[test]
    fn wrong_type_says_what_was_expected() {
        let (line, column, key, message) =
            schema(parse("items:\n  - id: a\n    count: many\n").unwrap_err());
        assert_eq!((line, column), (Some(3), Some(12)));
        assert_eq!(key, "items[0].count");
        assert!(message.contains("expected u32"), "{message}");

        let (line, _, key, message) =
            schema(parse("items:\n  - id: a\n    tags: [x, 7]\n").unwrap_err());
        assert_eq!(line, Some(3));
        assert_eq!(key, "items[0].tags[1]");
        assert_eq!(
            message,
            "expected a string, found the number 7; quote it: \"7\""
        );

        let (_, _, key, message) = schema(parse("items:\n  - id: a\n    tags: x\n").unwrap_err());
        assert_eq!(key, "items[0].tags");
        assert!(message.contains("write [x]"), "{message}");

        let (_, _, _, message) = schema(parse("note: [a]\n").unwrap_err());
        assert_eq!(message, "invalid type: sequence, expected a string");
        let (_, _, _, message) = schema(parse("items:\n  - id:\n").unwrap_err());
        assert_eq!(message, "expected a string, found an empty value (null)");
        let (_, _, _, message) = schema(parse("items:\n  - id: true\n").unwrap_err());
        assert!(message.contains("quote it: id: \"true\""), "{message}");
    }

    #[test]
    fn bare_number_id_hints_to_quote_it() {
        let (line, column, key, message) = schema(parse("items:\n  - id: 42\n").unwrap_err());
        assert_eq!((line, column), (Some(2), Some(9)));
        assert_eq!(key, "items[0].id");
        assert_eq!(
            message,
            "expected a string, found the number 42; quote it: id: \"42\""
        );
        assert_eq!(parse("items:\n  - id: \"42\"\n").unwrap().items[0].id, "42");
    }

    #[test]
    fn syntax_error_has_a_position() {
        let (line, column, key, message) = schema(parse("items:\n  - id: [a\n").unwrap_err());
        assert_eq!((line, column), (Some(3), Some(1)));
        assert_eq!(key, "");
        // The problem's own position is reported separately; the context's stays.
        assert_eq!(
            message,
            "did not find expected ',' or ']', while parsing a flow sequence at line 2 column 9"
        );
    }

    #[test]
    fn crlf_and_bom_keep_line_numbers() {
        let crlf = "items:\r\n  - id: a\r\n\r\n    colour: red\r\n";
        let (line, column, key, _) = schema(parse(crlf).unwrap_err());
        assert_eq!((line, column), (Some(4), Some(5)));
        assert_eq!(key, "items[0].colour");
        assert_eq!(parse("items:\r\n  - id: a\r\n").unwrap().items[0].id, "a");

        let bom = "\u{feff}items:\n  - id: a\n    colour: red\n";
        let (line, column, _, _) = schema(parse(bom).unwrap_err());
        assert_eq!((line, column), (Some(3), Some(5)));
        assert_eq!(
            parse("\u{feff}note: x\n").unwrap().note.as_deref(),
            Some("x")
        );

        assert_eq!(locate(crlf, "items[0].colour"), Some((4, 13)));
        assert_eq!(
            locate("\u{feff}items:\n  - id: a\n", "items[0].id"),
            Some((2, 9))
        );
    }

    #[test]
    fn empty_document_is_an_error() {
        for text in ["", "\n\n", "# only a comment\n", "null\n", "~"] {
            let (line, _, key, message) = schema(parse(text).unwrap_err());
            assert_eq!((line, key.as_str()), (None, ""), "{text:?}");
            assert!(message.contains("empty"), "{message}");
        }
    }

    #[test]
    fn more_than_one_document_is_an_error() {
        let (_, _, _, message) = schema(parse("note: a\n---\nnote: b\n").unwrap_err());
        assert!(message.contains("more than one YAML document"), "{message}");
        let (_, _, key, message) = schema(parse("{note: a, note: b}\n").unwrap_err());
        assert_eq!(
            (key.as_str(), message.as_str()),
            ("note", "duplicate field `note`")
        );
        // A single document with an explicit start marker is fine.
        assert!(parse("---\nnote: a\n").is_ok());
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut bomb = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["b", "c", "d", "e", "f", "g", "h", "i"];
        let mut prev = "a";
        for name in names {
            let refs = vec![format!("*{prev}"); 9].join(",");
            bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
            prev = name;
        }
        let err = from_str::<Doc>(Path::new("bomb.yaml"), &bomb).unwrap_err();
        assert!(matches!(err, LoadError::TooComplex { .. }), "{err:?}");
        assert!(
            err.to_string().starts_with("bomb.yaml: the document "),
            "{err}"
        );
    }

    #[test]
    fn few_aliases_of_a_large_node_are_refused() {
        // 5,000 nodes used 100 times: few alias jumps, 500,000 nodes expanded.
        let items = vec!["1"; 5_000].join(",");
        let refs = vec!["*a"; 100].join(",");
        let text = format!("a: &a [{items}]\nb: [{refs}]\n");
        let err = from_str::<Doc>(Path::new("n.yaml"), &text).unwrap_err();
        assert!(
            matches!(&err, LoadError::TooComplex { message, .. } if message.contains("250000 nodes")),
            "{err:?}"
        );
    }

    #[test]
    fn long_scalars_through_aliases_are_refused() {
        // 64 KiB of text used 200 times: small on disk, 12.5 MiB expanded.
        let big = "x".repeat(64 << 10);
        let refs = vec!["*s"; 200].join(", ");
        let text = format!("s: &s {big}\nl: [{refs}]\n");
        let err = from_str::<Doc>(Path::new("b.yaml"), &text).unwrap_err();
        assert!(
            matches!(&err, LoadError::TooComplex { message, .. } if message.contains("bytes")),
            "{err:?}"
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        for depth in [MAX_DEPTH + 1, 200, 10_000, 100_000] {
            // Block nesting reaches the pre-pass's depth limit.
            let block = format!("{}x", "- ".repeat(depth));
            let mut mappings = String::new();
            for level in 0..depth.min(2_000) {
                mappings.push_str(&" ".repeat(level));
                mappings.push_str("a:\n");
            }
            // Flow nesting is stopped before libyaml sees it.
            let flow = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            for text in [block, mappings, flow] {
                let err = from_str::<Doc>(Path::new("d.yaml"), &text).unwrap_err();
                assert!(
                    matches!(&err, LoadError::TooComplex { message, .. } if message.contains("deep")),
                    "{depth}: {err:?}"
                );
            }
        }
        // Just under the limit is fine.
        let text = format!("{}x", "- ".repeat(MAX_DEPTH));
        from_str::<IgnoredAny>(Path::new("d.yaml"), &text).unwrap();
        let text = format!("{}x", "- ".repeat(MAX_DEPTH + 1));
        assert!(from_str::<IgnoredAny>(Path::new("d.yaml"), &text).is_err());
    }

    #[test]
    fn deep_flow_mappings_are_refused_before_parsing() {
        // libyaml would take minutes on this megabyte.
        let text = "{a: ".repeat(250_000);
        let err = from_str::<Doc>(Path::new("f.yaml"), &text).unwrap_err();
        assert!(
            matches!(&err, LoadError::TooComplex { message, .. } if message.contains("flow")),
            "{err:?}"
        );
        assert_eq!(locate(&text, "a"), None);
        let ok = format!(
            "{}x{}",
            "{a: ".repeat(MAX_DEPTH - 1),
            "}".repeat(MAX_DEPTH - 1)
        );
        assert!(flow_nesting(&ok).is_ok());
    }

    #[test]
    fn flow_nesting_is_not_fooled_by_closers_in_strings_and_comments() {
        // Closers that libyaml reads as text must not hide real nesting.
        for filler in [
            "\"]]]]\"",
            "']]]]'",
            "'it''s ]]]'",
            "# ]]]]\n",
            "\"\\\"]]]]\"",
            "&a \"]]]]\"",
            "!t ']]]]'",
            "x\n  \"]]]]\"",
        ] {
            let text = format!("{{a: {filler}, b: ").repeat(MAX_FLOW_NESTING + 1);
            assert!(flow_nesting(&text).is_err(), "{filler}");
        }
        // A quote that never closes does not hide what follows it.
        let text = format!("[a\n\"{}", "{a: ".repeat(MAX_FLOW_NESTING + 1));
        assert!(flow_nesting(&text).is_err());
    }

    #[test]
    fn flow_nesting_accepts_real_files() {
        let lines = [
            "paths: [\"src/[ab]/**\", 'x{y}', \"a]\"]",
            "text: it's a [b] c # [d",
            "# evidence: [a, b",
            "#   ]",
            "title: a \"quoted ]\" word [x]",
            "title: 12\" vinyl [x]",
            "note: say \"hi]\" and [x]",
            "- \"[\"",
            "cmd: |",
            "  echo ${X} [1]",
            "map: {a: [1, {b: c}], 'd': \"]\"}",
        ];
        for line in lines {
            assert_eq!(
                flow_nesting(&format!("{line}\n").repeat(1_000)),
                Ok(()),
                "{line}"
            );
        }
        let text = lines.join("\n").repeat(10_000);
        assert_eq!(flow_nesting(&text), Ok(()));
    }

    #[test]
    fn locate_finds_nodes_by_key_path() {
        let text = "\
checks:
  - id: one
    sources: [a, b]
  - id: two
    sources:
      - c
issues:
  - id: \"1\"
    serves: [C1, C2, C3]
";
        assert_eq!(locate(text, "checks[0].id"), Some((2, 9)));
        assert_eq!(locate(text, "checks[1].id"), Some((4, 9)));
        assert_eq!(locate(text, "checks[0].sources[1]"), Some((3, 18)));
        assert_eq!(locate(text, "checks[1].sources[0]"), Some((6, 9)));
        assert_eq!(locate(text, "checks[1].sources"), Some((6, 7)));
        assert_eq!(locate(text, "issues[0].serves[2]"), Some((9, 22)));
        assert_eq!(locate(text, "issues[0].id"), Some((8, 9)));
        assert_eq!(locate(text, "issues"), Some((8, 3)));
        assert_eq!(locate(text, ""), Some((1, 1)));
        assert_eq!(locate(text, "checks[2].id"), None);
        assert_eq!(locate(text, "checks[0].nope"), None);
        assert_eq!(locate(text, "issues[0].id[0]"), None);
        assert_eq!(locate(text, "checks.[0"), None);
        // Text that breaks after the node still locates it; before, not.
        assert_eq!(locate("a: [", "a"), Some((1, 4)));
        assert_eq!(locate("a: [", "b"), None);
        assert_eq!(locate("a: 1\nb: 2\n---\nc: 3\n", "b"), Some((2, 4)));
    }

    #[test]
    fn key_paths_parse() {
        use Segment::*;
        assert_eq!(
            parse_key_path("a.b[2].c").unwrap(),
            [Key("a".into()), Key("b".into()), Index(2), Key("c".into())]
        );
        assert_eq!(parse_key_path("[0]").unwrap(), [Index(0)]);
        assert!(parse_key_path("").unwrap().is_empty());
        assert!(parse_key_path(".").unwrap().is_empty());
        assert!(parse_key_path("a..b").is_none());
        assert!(parse_key_path("a[x]").is_none());
        assert!(parse_key_path("a[1").is_none());
    }
}
