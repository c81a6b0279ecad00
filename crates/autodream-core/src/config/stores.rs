//! The client's memory stores (seen in client builds 2.1.221+): with `CLAUDE_MEMORY_STORES`
//! set to a JSON list of stores (`{"path", "mode": "rw"|"ro", "scope": "user"|"team", …}`),
//! the client recalls memory bodies from the stores, hides the MEMORY.md index and turns its
//! own extraction and dream off, so that two writers never change one folder. autodream
//! stands down the same way: gate 1 closes with that reason, and `doctor` says how to use both.

use serde::Deserialize;

/// The client's variable.
pub const MEMORY_STORES_VAR: &str = "CLAUDE_MEMORY_STORES";

/// One store, as far as autodream reads it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MemoryStore {
    pub path: String,
    /// `rw` or `ro`; the client's default is taken to be `rw` (the safe reading: a writer).
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

impl MemoryStore {
    /// Whether the client may write this store.
    pub fn writable(&self) -> bool {
        !self.mode.as_deref().is_some_and(|m| m.eq_ignore_ascii_case("ro"))
    }
}

/// The stores `text` lists: a JSON list of objects with a `path`. An empty list is no store.
pub fn parse_stores(text: &str) -> Result<Vec<MemoryStore>, String> {
    serde_json::from_str::<Vec<MemoryStore>>(text.trim())
        .map_err(|e| format!("expected a JSON list of stores with a `path` each: {e}"))
}

/// The stores `CLAUDE_MEMORY_STORES` configures: `None` when it is unset or empty.
pub fn configured_stores() -> Option<Result<Vec<MemoryStore>, String>> {
    let text = std::env::var(MEMORY_STORES_VAR).ok().filter(|v| !v.trim().is_empty())?;
    Some(parse_stores(&text))
}

/// Gate 1's reason when the stores are configured.
pub fn stand_down_reason(stores: &[MemoryStore]) -> String {
    format!(
        "{MEMORY_STORES_VAR} is set ({} store{}): the client's memory stores own memory \
         (it hides MEMORY.md and turns its own extraction and dream off)",
        stores.len(),
        if stores.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_parse_with_their_mode() {
        let s = parse_stores(
            r#"[{"path": "/m/user", "mode": "rw", "scope": "user", "mount": "x"}, {"path": "/m/team", "mode": "ro"}]"#,
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].writable());
        assert!(!s[1].writable());
        assert!(parse_stores(r#"[{"path": "/m"}]"#).unwrap()[0].writable());
        assert!(parse_stores("[]").unwrap().is_empty());
        for bad in ["{}", "not json", r#"[{"mode": "rw"}]"#] {
            assert!(parse_stores(bad).is_err(), "{bad}");
        }
        assert_eq!(
            stand_down_reason(&s),
            "CLAUDE_MEMORY_STORES is set (2 stores): the client's memory stores own memory \
             (it hides MEMORY.md and turns its own extraction and dream off)"
        );
    }
}
