//! Editing an agent's JSON settings file in place: every other key keeps its place, its
//! formatting and its indentation, and every change is an [`JsonEdit`] that can be taken back.
//!
//! The file is edited through its concrete syntax tree (`jsonc-parser`'s CST), so a key added
//! goes at the end of its object in the file's own indentation style, and nothing else moves.
//! An install records the edits it made; [`JsonDoc::revert`] undoes them in reverse order,
//! removing only what is still as the install left it and the containers it had created.

use std::path::{Path, PathBuf};

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A settings file that is not an editable JSON object.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{path}: not JSON: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: expected a JSON object at the top, found {found}")]
    NotObject { path: PathBuf, found: String },
    #[error("{path}: `{key}` is {found}, expected {expected}; fix it by hand, then run again")]
    WrongType { path: PathBuf, key: String, found: String, expected: &'static str },
}

/// One change to a JSON document, recorded so it can be reverted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum JsonEdit {
    /// `value` appended to the array at `path`; `created` of the containers on the path (the
    /// deepest ones, the array included) did not exist before.
    Append { path: Vec<String>, value: Value, created: usize },
    /// The key at `path` set to `value`; `before` is what it held (`None`: absent), `created`
    /// the number of parent objects that did not exist before.
    Set { path: Vec<String>, value: Value, before: Option<Value>, created: usize },
    /// `value` removed from the array at `path` (a revert appends it back).
    Remove { path: Vec<String>, value: Value },
}

impl JsonEdit {
    /// "Stop hook appended to hooks.Stop", for the report.
    pub fn describe(&self) -> String {
        match self {
            JsonEdit::Append { path, value, .. } => {
                match value.pointer("/hooks/0/command").and_then(Value::as_str) {
                    Some(cmd) => format!("{}: added the hook `{cmd}`", path.join(".")),
                    None => format!("{}: appended {}", path.join("."), compact(value)),
                }
            }
            JsonEdit::Set { path, value, before, .. } => match before {
                None => format!("set {} = {}", path.join("."), compact(value)),
                Some(b) => format!("set {} = {} (was {})", path.join("."), compact(value), compact(b)),
            },
            JsonEdit::Remove { path, value } => format!("{}: removed {}", path.join("."), compact(value)),
        }
    }
}

/// A value on one line, long ones cut; a server or hook entry as its command line.
pub fn compact(v: &Value) -> String {
    if let Some(cmd) = v.get("command").and_then(Value::as_str) {
        let args: Vec<&str> =
            v.get("args").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        return format!("`{}`", std::iter::once(cmd).chain(args).collect::<Vec<_>>().join(" "));
    }
    let s = v.to_string();
    if s.chars().count() > 80 { format!("{}…", s.chars().take(79).collect::<String>()) } else { s }
}

/// A JSON settings document being edited.
pub struct JsonDoc {
    path: PathBuf,
    root: CstRootNode,
}

fn parse_options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        ..ParseOptions::default()
    }
}

impl JsonDoc {
    /// Parses `text` (empty or blank text is an empty object). `path` names the file in errors.
    pub fn parse(path: &Path, text: &str) -> Result<JsonDoc, SettingsError> {
        let root = CstRootNode::parse(text, &parse_options())
            .map_err(|e| SettingsError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        if let Some(v) = root.value()
            && v.as_object().is_none()
        {
            return Err(SettingsError::NotObject { path: path.to_path_buf(), found: kind_of_node(&v) });
        }
        Ok(JsonDoc { path: path.to_path_buf(), root })
    }

    /// The document's text.
    pub fn text(&self) -> String {
        self.root.to_string()
    }

    /// The whole document as a value (`{}` when empty).
    pub fn value(&self) -> Value {
        self.root.value().map_or_else(|| Value::Object(Default::default()), |v| node_value(&v))
    }

    /// The value at `path`, if any.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        let mut cur = self.value();
        for key in path {
            cur = cur.get(key)?.clone();
        }
        Some(cur)
    }

    /// Appends `value` to the array at `path`, creating the objects and the array as needed.
    pub fn append(&self, path: &[String], value: &Value) -> Result<JsonEdit, SettingsError> {
        let (parent_path, key) = path.split_at(path.len() - 1);
        let (obj, mut created) = self.object_at(parent_path, true)?;
        let obj = obj.expect("created");
        let arr = match obj.get(&key[0]) {
            Some(prop) => match prop.value() {
                Some(v) if v.as_array().is_some() => v.as_array().expect("array"),
                other => return Err(self.wrong_type(path, other, "an array")),
            },
            None => {
                created += 1;
                obj.array_value_or_set(&key[0])
            }
        };
        arr.append(input(value));
        Ok(JsonEdit::Append { path: path.to_vec(), value: value.clone(), created })
    }

    /// Sets the key at `path` to `value`, creating parent objects as needed.
    pub fn set(&self, path: &[String], value: &Value) -> Result<JsonEdit, SettingsError> {
        let before = self.get(path);
        let (parent_path, key) = path.split_at(path.len() - 1);
        let (obj, created) = self.object_at(parent_path, true)?;
        let obj = obj.expect("created");
        match obj.get(&key[0]) {
            Some(prop) => prop.set_value(input(value)),
            None => {
                obj.append(&key[0], input(value));
            }
        }
        Ok(JsonEdit::Set { path: path.to_vec(), value: value.clone(), before, created })
    }

    /// Removes the last element equal to `value` from the array at `path`; `false` when there
    /// is none.
    pub fn remove_element(&self, path: &[String], value: &Value) -> bool {
        let Some(arr) = self.array_at(path) else { return false };
        let hit = arr.elements().into_iter().rev().find(|e| node_value(e) == *value);
        match hit {
            Some(e) => {
                e.remove();
                true
            }
            None => false,
        }
    }

    /// Removes the key at `path`; `false` when it was absent.
    pub fn remove_key(&self, path: &[String]) -> bool {
        let (parent_path, key) = path.split_at(path.len() - 1);
        let Ok((Some(obj), _)) = self.object_at(parent_path, false) else { return false };
        match obj.get(&key[0]) {
            Some(prop) => {
                prop.remove();
                true
            }
            None => false,
        }
    }

    /// Removes the container at `path` and then its parents, up to `levels` of them, while
    /// each is empty.
    pub fn prune_empty(&self, path: &[String], levels: usize) {
        for depth in 0..levels.min(path.len()) {
            let p = &path[..path.len() - depth];
            match self.get(p) {
                Some(Value::Array(a)) if a.is_empty() => {}
                Some(Value::Object(o)) if o.is_empty() => {}
                _ => return,
            }
            self.remove_key(p);
        }
    }

    /// Undoes `edits` (in reverse order) where the document still holds what they wrote.
    /// Returns a sentence for each edit that could not be undone because it had changed since.
    pub fn revert(&self, edits: &[JsonEdit]) -> Vec<String> {
        let mut kept = Vec::new();
        for edit in edits.iter().rev() {
            match edit {
                JsonEdit::Append { path, value, created } => {
                    if self.remove_element(path, value) {
                        self.prune_empty(path, *created);
                    } else {
                        kept.push(format!("the entry appended to {} is gone already", path.join(".")));
                    }
                }
                JsonEdit::Set { path, value, before, created } => {
                    let now = self.get(path);
                    if now.as_ref() != Some(value) {
                        kept.push(format!(
                            "{} was changed since ({}); left as it is",
                            path.join("."),
                            now.as_ref().map_or("removed".to_string(), compact)
                        ));
                        continue;
                    }
                    match before {
                        Some(b) => {
                            let _ = self.set(path, b);
                        }
                        None => {
                            self.remove_key(path);
                            let parent = &path[..path.len() - 1];
                            self.prune_empty(parent, *created);
                        }
                    }
                }
                JsonEdit::Remove { path, value } => {
                    let _ = self.append(path, value);
                }
            }
        }
        kept
    }

    /// True when the document holds no key at all.
    pub fn is_empty_object(&self) -> bool {
        matches!(self.value(), Value::Object(o) if o.is_empty())
    }

    fn array_at(&self, path: &[String]) -> Option<jsonc_parser::cst::CstArray> {
        let (parent_path, key) = path.split_at(path.len() - 1);
        let (obj, _) = self.object_at(parent_path, false).ok()?;
        obj?.get(&key[0])?.value()?.as_array()
    }

    /// The object at `path`; with `create`, missing objects are made. Also returns how many
    /// were created.
    fn object_at(&self, path: &[String], create: bool) -> Result<(Option<CstObject>, usize), SettingsError> {
        let mut created = 0;
        let mut obj = if create {
            self.root.object_value_or_set()
        } else {
            match self.root.object_value() {
                Some(o) => o,
                None => return Ok((None, 0)),
            }
        };
        for (i, key) in path.iter().enumerate() {
            obj = match obj.get(key) {
                Some(prop) => match prop.value() {
                    Some(v) if v.as_object().is_some() => v.as_object().expect("object"),
                    other => return Err(self.wrong_type(&path[..=i], other, "an object")),
                },
                None if create => {
                    created += 1;
                    obj.object_value_or_set(key)
                }
                None => return Ok((None, 0)),
            };
        }
        Ok((Some(obj), created))
    }

    fn wrong_type(&self, path: &[String], found: Option<CstNode>, expected: &'static str) -> SettingsError {
        SettingsError::WrongType {
            path: self.path.clone(),
            key: path.join("."),
            found: found.map_or("empty".into(), |n| kind_of_node(&n)),
            expected,
        }
    }
}

fn kind_of_node(n: &CstNode) -> String {
    match node_value(n) {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A CST node as a `serde_json` value (keys in a map: their order is not kept here).
fn node_value(n: &CstNode) -> Value {
    let text = n.to_string();
    match jsonc_parser::parse_to_value(&text, &parse_options()) {
        Ok(Some(v)) => jsonc_to_serde(v),
        _ => Value::Null,
    }
}

fn jsonc_to_serde(v: jsonc_parser::JsonValue<'_>) -> Value {
    use jsonc_parser::JsonValue as J;
    match v {
        J::Null => Value::Null,
        J::Boolean(b) => Value::Bool(b),
        J::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        J::String(s) => Value::String(s.into_owned()),
        J::Array(a) => Value::Array(a.into_iter().map(jsonc_to_serde).collect()),
        J::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k.into_owned(), jsonc_to_serde(v))).collect())
        }
    }
}

/// Keys written first, in this order, when a new object goes into a settings file (the order
/// the clients' own documentation shows); other keys follow alphabetically.
const KEY_ORDER: [&str; 7] = ["matcher", "hooks", "type", "command", "args", "env", "timeout"];

/// A value as the CST's input, keys in [`KEY_ORDER`].
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            let rank = |k: &str| KEY_ORDER.iter().position(|x| *x == k).unwrap_or(KEY_ORDER.len());
            let mut entries: Vec<(&String, &Value)> = o.iter().collect();
            entries.sort_by_key(|(k, _)| rank(k));
            CstInputValue::Object(entries.into_iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// The document's content with its formatting taken out and its key order kept: two texts
/// with the same canonical form say the same thing in the same order.
pub fn canonical(text: &str) -> Option<String> {
    fn walk(v: jsonc_parser::JsonValue<'_>, out: &mut String) {
        use jsonc_parser::JsonValue as J;
        match v {
            J::Null => out.push_str("null"),
            J::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
            J::Number(n) => out.push_str(n),
            J::String(s) => out.push_str(&Value::String(s.to_string()).to_string()),
            J::Array(a) => {
                out.push('[');
                for (i, e) in a.take_inner().into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    walk(e, out);
                }
                out.push(']');
            }
            J::Object(o) => {
                out.push('{');
                for (i, (k, e)) in o.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.into_owned()).to_string());
                    out.push(':');
                    walk(e, out);
                }
                out.push('}');
            }
        }
    }
    match jsonc_parser::parse_to_value(text, &parse_options()).ok()? {
        None => Some("{}".into()),
        Some(v) => {
            let mut out = String::new();
            walk(v, &mut out);
            Some(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Vec<String> {
        s.split('.').map(str::to_string).collect()
    }

    fn doc(text: &str) -> JsonDoc {
        JsonDoc::parse(Path::new("settings.json"), text).unwrap()
    }

    #[test]
    fn append_then_revert_gives_back_the_same_text() {
        for text in [
            "{}",
            "{}\n",
            "{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n",
            "{\n\t\"z\": 1\n}\n",
            "{\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": []}\n        ]\n    }\n}",
        ] {
            let d = doc(text);
            let mut edits =
                vec![d.append(&p("hooks.Stop"), &json!({"hooks": [{"type": "command"}]})).unwrap()];
            edits.push(d.set(&p("autoDreamEnabled"), &json!(false)).unwrap());
            assert_ne!(d.text(), text);
            let again = doc(&d.text());
            assert!(again.revert(&edits).is_empty());
            assert_eq!(again.text(), text, "from {text:?}");
        }
    }

    #[test]
    fn indentation_and_key_order_are_kept() {
        let d = doc("{\n\t\"z\": 1,\n\t\"a\": 2\n}\n");
        d.set(&p("autoDreamEnabled"), &json!(false)).unwrap();
        assert_eq!(d.text(), "{\n\t\"z\": 1,\n\t\"a\": 2,\n\t\"autoDreamEnabled\": false\n}\n");
    }

    #[test]
    fn set_records_and_restores_the_old_value() {
        let d = doc("{\"autoDreamEnabled\": true, \"x\": 1}");
        let e = d.set(&p("autoDreamEnabled"), &json!(false)).unwrap();
        assert_eq!(
            e,
            JsonEdit::Set {
                path: p("autoDreamEnabled"),
                value: json!(false),
                before: Some(json!(true)),
                created: 0
            }
        );
        assert!(d.revert(&[e]).is_empty());
        assert_eq!(d.get(&p("autoDreamEnabled")), Some(json!(true)));
    }

    #[test]
    fn a_value_changed_since_is_left_alone() {
        let d = doc("{}");
        let e = d.set(&p("autoDreamEnabled"), &json!(false)).unwrap();
        d.set(&p("autoDreamEnabled"), &json!(true)).unwrap();
        let kept = d.revert(&[e]);
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(d.get(&p("autoDreamEnabled")), Some(json!(true)));
    }

    #[test]
    fn wrong_types_are_refused_with_the_key() {
        let d = doc("{\"hooks\": []}");
        let err = d.append(&p("hooks.Stop"), &json!(1)).unwrap_err().to_string();
        assert!(err.contains("`hooks` is an array, expected an object"), "{err}");
        assert!(JsonDoc::parse(Path::new("s.json"), "[1]").is_err());
        let err = JsonDoc::parse(Path::new("s.json"), "{\"a\": }").err().unwrap().to_string();
        assert!(err.starts_with("s.json: not JSON"), "{err}");
    }

    #[test]
    fn canonical_keeps_order_and_drops_layout() {
        assert_eq!(canonical("{\n \"b\": 1, \"a\": [1, 2]\n}"), Some("{\"b\":1,\"a\":[1,2]}".into()));
        assert_ne!(canonical("{\"a\":1,\"b\":2}"), canonical("{\"b\":2,\"a\":1}"));
        assert_eq!(canonical(""), Some("{}".into()));
    }
}
