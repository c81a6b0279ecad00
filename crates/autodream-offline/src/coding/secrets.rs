//! Secrets and personal data said in prose: a sentence that holds one is never kept.
//!
//! Key/value shapes the redactor knows (`API_KEY=…`, provider token formats) are caught by
//! `autodream_core::redact`; here are the ways people say a secret in a sentence, however the key
//! word is put ("the password is …", "pw: …", "token's …", "creds for the mirror are …", "the
//! admin login is admin / …", "密码是 …"), a random-looking credential on its own, and personal
//! e-mail addresses.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

/// A secret word near a value that looks random.
static SECRET_WORD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:passwords?|passwd|pwd|passphrase|secrets?|tokens?|api[ _-]?keys?|keys?|credentials?|pat|logins?|log in|sign in|username|user name)\b|密码|密钥|口令|令牌|秘钥|账号",
    )
});
static BOUND_SECRET: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:password|passwd|pwd|pw|pass|passcode|passphrase|secret|token|api[ _-]?key|license key|creds?|credentials?)\b(?:'s\s+|\s+(?:is|was|are|should be)\s+|\s*[=:]\s*|\s+for\s+(?:\S+\s+){1,3}(?:is|are|=|:)\s+)["'`]?([^\s"'`，。,;]+)|(?:密码|密钥|口令|令牌|秘钥)\s*(?:是|为|:|：)?\s*([^\s，。,;]+)"#,
    )
});
/// A login given as a user and a password: "the admin login is admin / Sunset-42".
static LOGIN_PAIR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:logins?|log in|sign in|credentials?|creds|user(?:name)?\s*/\s*pass(?:word)?|账号)\b[^.\n]{0,40}?[\w.@-]+\s*/\s*\S{4,}|账号\S{0,10}密码",
    )
});
static PERSONAL_EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b[\w.+-]+@(?:gmail|googlemail|yahoo|hotmail|outlook|live|icloud|me|proton(?:mail)?|qq|163|126|aol|gmx|mail|yandex)\.[a-z.]+\b",
    )
});

/// A password said as the word it is: "the root password for the VPS is correcthorsebattery".
static PASSWORD_IS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:password|passwd|pwd|pw|passcode|passphrase)\b(?:'s\s+|\s+(?:is|was|should be)\s+|\s*[=:]\s*|\s+for\s+(?:\S+\s+){1,3}(?:is|was|=|:)\s+)["'`]?([\p{L}\p{N}][^\s"'`，。,;]*)"#,
    )
});

/// Is a password given as a word, however plain? A value that is an ordinary English word
/// ("the password is stored in 1Password", "… is required", "… should be rotated") describes
/// the password instead of giving it.
fn password_in_words(text: &str) -> bool {
    PASSWORD_IS.captures_iter(text).any(|c| {
        let v = c.get(1).map_or("", |m| m.as_str()).trim_end_matches(['.', '!', '?']);
        v.chars().count() >= 4 && !crate::text::is_known_word(v)
    })
}

/// Does a token look like a generated secret (mixed letters and digits, long or mixed case)?
pub fn looks_random(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !c.is_alphanumeric());
    if t.len() < 8 {
        return false;
    }
    let digits = t.chars().filter(|c| c.is_ascii_digit()).count();
    let upper = t.chars().filter(|c| c.is_ascii_uppercase()).count();
    let lower = t.chars().filter(|c| c.is_ascii_lowercase()).count();
    if digits == 0 || upper + lower == 0 {
        return false;
    }
    let hexish = t.chars().all(|c| c.is_ascii_hexdigit());
    // Letter–digit changes: generated strings switch often, names and versions rarely.
    let kinds: Vec<u8> = t
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| if c.is_ascii_digit() { 0 } else { 1 })
        .collect();
    let switches = kinds.windows(2).filter(|w| w[0] != w[1]).count();
    let dotted = t.contains('.') || t.contains(':');
    (hexish && t.len() >= 16 && digits >= 4)
        || (upper > 0 && lower > 0 && digits >= 2 && t.len() >= 10 && switches >= 3)
        || (!dotted && t.len() >= 20 && upper + lower >= 6 && digits >= 3 && switches >= 6)
}

/// Does the sentence hold a secret (a value beside a secret word, or a random-looking
/// credential on its own) or personal data?
pub fn holds_secret(text: &str) -> bool {
    if text.contains(autodream_core::redact::MARKER_PREFIX)
        || PERSONAL_EMAIL.is_match(text)
        || autodream_core::redact::redact(text).count > 0
    {
        return true;
    }
    // A value right after a secret word ("the password is hunter2-prod", "密码是 hunter2-prod").
    let bound = BOUND_SECRET.captures_iter(text).any(|c| {
        let v = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
        v.chars().count() >= 6
            && v.chars().any(|ch| ch.is_ascii_digit() || "-_@!#$%^&*+=".contains(ch))
            && v.chars().any(|ch| ch.is_ascii_alphanumeric())
    });
    if bound || LOGIN_PAIR.is_match(text) || password_in_words(text) {
        return true;
    }
    let tokens: Vec<&str> =
        text.split(|c: char| c.is_whitespace() || matches!(c, '，' | '：' | '。' | '、')).collect();
    let worded = SECRET_WORD.is_match(text);
    tokens.iter().any(|t| {
        let t = t.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '"' | '\'' | '(' | ')' | '`'));
        if t.starts_with("0x") || t.contains("://") || t.contains('/') {
            return false;
        }
        if looks_random(t) && (worded || t.len() >= 20) {
            return true;
        }
        // A short password bound to a secret word: `密码 Mall@2026test`, `password is tundra-Hx92-quill`.
        worded
            && t.len() >= 8
            && t.chars().any(|c| c.is_ascii_digit())
            && t.chars().any(|c| c.is_ascii_alphabetic())
            && t.chars().any(|c| matches!(c, '@' | '!' | '-' | '_' | '#' | '$' | '%'))
            && t.chars().any(|c| c.is_ascii_uppercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_said_in_prose_however_the_key_word_is_put_are_never_kept() {
        for s in [
            "The staging db pw: Harbor-77-lights, keep it handy.",
            "Build server pass is Quartz-9-lantern if you need the dashboard.",
            "The admin login is admin / Sunset-42 on the test box.",
            "Token's ghx_7hQ2kP9mZ for the deploy bot.",
            "Creds for the mirror are mirror-bot = Tidal-3-fern.",
            "测试环境的密码是 Lotus-2026-mist，别外传。",
            "The root password for the VPS is correcthorsebattery.",
            "The wifi passphrase is bluefrogsky.",
        ] {
            assert!(holds_secret(s), "{s}");
        }
        for s in [
            "The tests pass on CI now that the cache is warm.",
            "Log in with SSO, never a shared account.",
            "The password is stored in 1Password, never in the repo.",
            "The admin password should be rotated every quarter.",
            "The password is required for the staging dashboard.",
        ] {
            assert!(!holds_secret(s), "{s}");
        }
    }
}
