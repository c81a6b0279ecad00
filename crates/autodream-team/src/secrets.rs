//! The check every file passes before it is committed: the same rules that redact a dream's
//! output ([`autodream_core::redact`]). A file that holds a secret blocks the push, named
//! with its line; it is never rewritten behind its author's back.

use autodream_core::redact;

/// Where a secret is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub line: usize,
    pub kind: String,
}

/// The first secret in `bytes`, with its 1-based line.
pub fn find(bytes: &[u8]) -> Option<Found> {
    let text = String::from_utf8_lossy(bytes);
    let r = redact::redact(&text);
    if r.count == 0 {
        return None;
    }
    let at = text.bytes().zip(r.text.bytes()).position(|(a, b)| a != b).unwrap_or(0);
    let line = text[..at].matches('\n').count() + 1;
    let kind = r.by_kind.keys().next().map(|k| k.to_string()).unwrap_or_default();
    Some(Found { line, kind })
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_line_of_the_secret() {
        let text = "# Deploy\n\n- the key is AKIAIOSFODNN7EXAMPLE for the bucket\n";
        let found = super::find(text.as_bytes()).expect("a secret");
        assert_eq!(found.line, 3);
        assert!(super::find(b"# Deploy\n- nothing here\n").is_none());
    }
}
