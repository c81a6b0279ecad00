//! A small stand-in for `autodream_core::redact` with the same call, used until the full
//! redactor is available: the most common secret shapes only.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Redacted text and how many secrets were replaced.
pub struct Redaction<'a> {
    pub text: Cow<'a, str>,
    pub count: usize,
}

static PATTERNS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        ("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
        ("aws-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        (
            "api-key",
            r"\b(?:sk-(?:ant-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[baprs]-[A-Za-z0-9-]{10,})",
        ),
        ("bearer", r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}"),
        ("url-password", r"://[^/\s:@]+:[^/\s@]+@"),
        ("password", r#"(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key)\s*[:=]\s*["']?[^\s"']{6,}"#),
    ]
    .into_iter()
    .map(|(kind, re)| (kind, Regex::new(re).expect("valid regex")))
    .collect()
});

/// Replaces secrets in `text` with `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Redaction<'_> {
    let mut current: Cow<'_, str> = Cow::Borrowed(text);
    let mut count = 0;
    for (kind, re) in PATTERNS.iter() {
        let n = re.find_iter(&current).count();
        if n == 0 {
            continue;
        }
        count += n;
        let replaced = re.replace_all(&current, format!("[REDACTED:{kind}]").as_str()).into_owned();
        current = Cow::Owned(replaced);
    }
    Redaction { text: current, count }
}
