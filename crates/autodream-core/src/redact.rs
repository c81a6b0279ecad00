//! Secret redaction: keys, tokens and passwords are replaced by `[REDACTED:<kind>]` before
//! anything is written to memory or shown to a language model.
//!
//! Transcripts are full of pasted configuration, shell sessions and HTTP traces, and memory
//! outlives them: a key that slipped into a topic file would be loaded into every future
//! session. Redaction therefore runs on everything a dream writes and on every piece of
//! transcript text an LLM engine reads.
//!
//! What is recognised (the `kind` in the marker):
//! - `private_key`: a whole PEM / PGP private key block (also a truncated one);
//! - `aws_access_key`: `AKIA…` / `ASIA…` key ids; `aws_secret`: the 40-character value of
//!   `aws_secret_access_key`;
//! - `api_key`: tokens with a well-known prefix (`sk-`, `sk-ant-`, `sk-proj-`, `ghp_`,
//!   `github_pat_`, `xoxb-`, `AIza`, `glpat-`, `npm_`, `hf_`, Stripe `sk_live_`, …);
//! - `jwt`: `eyJ….eyJ….…` JSON web tokens;
//! - `bearer_token` / `basic_auth`: the credential of an `Authorization` header, or a long
//!   token after the word `Bearer`;
//! - `url_password`: the password of `scheme://user:password@host` (only that part);
//! - `password` / `secret`: the value of an assignment whose key names a secret
//!   (`password=…`, `"api_key": "…"`, `token: …`, `SECRET_KEY=…`, `--password …`).
//!
//! The assignment rules are where false positives live, so they are conservative: keys that
//! describe a secret rather than hold one (`max_tokens`, `token_type`, `password_reset_url`,
//! `secret_name`) are ignored, and so are placeholders (`<your-token>`, `${VAR}`, `****`),
//! code (`password = get_password()`), type annotations (`token: string`) and prose
//! ("Token: counting them is hard"). A marker is never redacted again, so `redact` is
//! idempotent.
//!
//! All rules are compiled once into a single regular expression with one capture group per
//! rule ([`crate::rules`]): a scan is one pass over the text, and text without secrets is
//! returned borrowed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use regex::RegexSet;

use crate::rules::{Hit, RuleSet};

/// The text every marker starts with: `[REDACTED:<kind>]`.
pub const MARKER_PREFIX: &str = "[REDACTED:";

/// What sort of secret was replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecretKind {
    PrivateKey,
    AwsAccessKey,
    AwsSecret,
    ApiKey,
    Jwt,
    BearerToken,
    BasicAuth,
    UrlPassword,
    Password,
    Secret,
}

impl SecretKind {
    /// The name used in the marker, e.g. `api_key`.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private_key",
            SecretKind::AwsAccessKey => "aws_access_key",
            SecretKind::AwsSecret => "aws_secret",
            SecretKind::ApiKey => "api_key",
            SecretKind::Jwt => "jwt",
            SecretKind::BearerToken => "bearer_token",
            SecretKind::BasicAuth => "basic_auth",
            SecretKind::UrlPassword => "url_password",
            SecretKind::Password => "password",
            SecretKind::Secret => "secret",
        }
    }

    /// The replacement text, e.g. `[REDACTED:api_key]`.
    pub fn marker(self) -> String {
        format!("{MARKER_PREFIX}{}]", self.as_str())
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The redacted text and what was taken out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction<'a> {
    /// The text with every secret replaced; borrowed when nothing was found.
    pub text: Cow<'a, str>,
    /// How many secrets were replaced.
    pub count: usize,
    /// How many secrets of each kind were replaced.
    pub by_kind: BTreeMap<SecretKind, usize>,
}

impl Redaction<'_> {
    /// How many secrets of `kind` were replaced.
    pub fn count_of(&self, kind: SecretKind) -> usize {
        self.by_kind.get(&kind).copied().unwrap_or(0)
    }
}

/// Replaces every recognised secret in `text` by `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Redaction<'_> {
    let mut redaction = Redaction { text: Cow::Borrowed(text), count: 0, by_kind: BTreeMap::new() };
    let mut output: Option<String> = None;
    let mut copied = 0;
    RULES.scan(text, |rule, hit| match (rule.judge)(hit, rule.kind) {
        Verdict::Replace(secrets) if secrets.iter().flatten().all(|s| s.start < s.end) => {
            let buffer = output.get_or_insert_with(|| String::with_capacity(text.len()));
            let before = copied;
            for secret in secrets.into_iter().flatten() {
                if secret.start < copied {
                    continue;
                }
                buffer.push_str(&text[copied..secret.start]);
                buffer.push_str(MARKER_PREFIX);
                buffer.push_str(secret.kind.as_str());
                buffer.push(']');
                copied = secret.end;
                redaction.count += 1;
                *redaction.by_kind.entry(secret.kind).or_insert(0) += 1;
            }
            // Scanning goes on right after what was replaced: the rest of the match (the host
            // after a URL's password, a closing quote) is read again, so that whatever a second
            // pass would find there is found now.
            Some(if copied > before { copied } else { hit.end().max(copied) })
        }
        Verdict::Replace(_) => None,
        // Not a secret after all: resume past what was ruled out; a skip from the start of
        // the match resumes one character later, where a shorter match may still start.
        Verdict::Skip { resume_at } => Some(resume_at),
    });
    if let Some(mut buffer) = output {
        buffer.push_str(&text[copied..]);
        redaction.text = Cow::Owned(buffer);
    }
    redaction
}

// ---------------------------------------------------------------------------------- engine

/// One stretch of text to replace: byte offsets and what it is.
#[derive(Clone, Copy)]
struct Secret {
    start: usize,
    end: usize,
    kind: SecretKind,
}

/// A rule's decision about its match.
enum Verdict {
    /// Replace these stretches (in text order, not overlapping) by markers: usually one,
    /// two for a URL whose user name is itself a token.
    Replace([Option<Secret>; 2]),
    /// Not a secret; resume scanning at `resume_at` (past what was ruled out).
    Skip { resume_at: usize },
}

/// The verdicts a judge hands down about its [`Hit`].
trait Judgement {
    /// Replaces the whole match.
    fn whole(&self, kind: SecretKind) -> Verdict;
    /// Capture group `k` as a secret of `kind`, if it took part in the match.
    fn group_secret(&self, k: usize, kind: SecretKind) -> Option<Secret>;
    /// Replaces capture group `k` only (the value of `key=value`, the password of a URL).
    fn only_group(&self, k: usize, kind: SecretKind) -> Verdict;
    /// Not a secret: resume scanning one character after the start of the match.
    fn skip(&self) -> Verdict;
}

impl Judgement for Hit<'_> {
    fn whole(&self, kind: SecretKind) -> Verdict {
        Verdict::Replace([Some(Secret { start: self.start(), end: self.end(), kind }), None])
    }

    fn group_secret(&self, k: usize, kind: SecretKind) -> Option<Secret> {
        self.span(k).map(|(start, end)| Secret { start, end, kind })
    }

    fn only_group(&self, k: usize, kind: SecretKind) -> Verdict {
        match self.group_secret(k, kind) {
            Some(secret) => Verdict::Replace([Some(secret), None]),
            None => self.skip(),
        }
    }

    fn skip(&self) -> Verdict {
        Verdict::Skip { resume_at: self.start() }
    }
}

type Judge = fn(&Hit<'_>, SecretKind) -> Verdict;

/// What a pattern of the table finds, and the judge of its matches.
struct Rule {
    kind: SecretKind,
    judge: Judge,
}

/// ASCII word boundary: transcripts mix scripts, and the ASCII form keeps the lazy DFA
/// working on non-ASCII text.
const B: &str = r"(?-u:\b)";

/// Tokens recognisable by their shape alone. Also used to name the kind of a value found
/// in an assignment (`token: ghp_…` is an `api_key`, not a generic `secret`).
fn token_patterns() -> Vec<(SecretKind, Judge, String)> {
    let api_key = |p: &str| (SecretKind::ApiKey, token_judge as Judge, format!("{B}(?:{p})"));
    vec![
        (
            SecretKind::Jwt,
            token_judge,
            format!(r"{B}eyJ[A-Za-z0-9_\-]{{5,}}\.eyJ[A-Za-z0-9_\-]{{5,}}\.[A-Za-z0-9_\-]*"),
        ),
        api_key(r"sk-ant-[A-Za-z0-9_\-]{20,}"),
        api_key(r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"),
        // Old-style OpenAI keys: only letters and digits after `sk-`, with at least one digit
        // (checked by the judge) so that `sk-` + a long word is not taken for a key.
        (SecretKind::ApiKey, token_with_digit_judge, format!(r"{B}sk-[A-Za-z0-9]{{20,}}")),
        api_key(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        // A known secret prefix is a secret however short the rest ("sk-live-4f9a").
        api_key(r"(?:sk|rk)[_\-](?:live|test)[_\-][A-Za-z0-9]{4,}"),
        api_key(r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"),
        api_key(r"xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-[A-Za-z0-9\-]{10,}"),
        api_key(r"AIza[0-9A-Za-z_\-]{35,}"),
        api_key(r"glpat-[A-Za-z0-9_\-]{20,}"),
        api_key(r"npm_[A-Za-z0-9]{36,}"),
        api_key(r"hf_[A-Za-z0-9]{30,}"),
        api_key(r"pypi-[A-Za-z0-9_\-]{50,}"),
        api_key(r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
        api_key(
            r"gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|dop_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
        ),
        (SecretKind::AwsAccessKey, token_judge, format!(r"{B}(?:AKIA|ASIA)[A-Z0-9]{{16}}{B}")),
    ]
}

fn token_judge(hit: &Hit<'_>, kind: SecretKind) -> Verdict {
    hit.whole(kind)
}

fn token_with_digit_judge(hit: &Hit<'_>, kind: SecretKind) -> Verdict {
    if hit.as_str().bytes().any(|b| b.is_ascii_digit()) { hit.whole(kind) } else { hit.skip() }
}

/// Key names that hold a secret, as a regex fragment.
/// An environment-style name ending in `_KEY` (`STRIPE_KEY`, `MAXMIND_LICENSE_KEY`) names a
/// secret too; lower-case `_key` (`sort_key`, `primary_key`) does not.
const SECRET_KEY_WORDS: &str = r"(?:(?i:password|passwd|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key)|[A-Z0-9]_KEY)";

fn rules() -> Vec<(String, Rule)> {
    let rule = |kind, judge: Judge, pattern: String| (pattern, Rule { kind, judge });
    let mut rules = vec![
        // A PEM or PGP private key block, whole; a block cut off before its END line
        // (a truncated paste) is redacted up to the end of its base64 body.
        rule(
            SecretKind::PrivateKey,
            token_judge,
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s:,\-]|\\[nr])*)"
                .to_string(),
        ),
        rule(
            SecretKind::AwsSecret,
            aws_secret_judge,
            format!(
                r#"{B}(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)(?:\\?["'])?[ \t]*(?::=|=>|=|:)[ \t]*(?:\\?["'])?([A-Za-z0-9/+=]{{40}})"#
            ),
        ),
        rule(
            SecretKind::UrlPassword,
            url_password_judge,
            // The '@' that ends the password leads to a host: its first character is part of
            // the match, so a password with '@' in it is as long as the host allows and no longer
            // (one rejected match would hide the shorter one, and a second pass would find it).
            // Brackets are no password's (a URL must encode them) and keep a marker out of one.
            format!(r#"{B}[A-Za-z][A-Za-z0-9+.\-]{{1,20}}://([^\s:/@'"<>]*):([^\s/'"<>@\[\]]+(?:@[^\s/'"<>@\[\]]+)*)@[\p{{Alphabetic}}\p{{N}}\[]"#),
        ),
        rule(
            SecretKind::BearerToken,
            authorization_judge,
            r#"(?i:authorization)(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?(?i:(bearer|token|basic))[ \t]+([A-Za-z0-9._~+/\-]+=*)"#
                .to_string(),
        ),
        // `key = value` where the key names a secret: 1 key, 2 operator, 3 double-quoted
        // value, 4 single-quoted value, 5 bare value.
        rule(
            SecretKind::Secret,
            assignment_judge,
            format!(
                r#"([A-Za-z0-9_.\-]*{SECRET_KEY_WORDS}[A-Za-z0-9_.\-]*)(?:\\?["'])?[ \t]*(:=|=>|=|:)[ \t]*(?:\\?"((?:[^"\\\r\n]|\\[^"\r\n])*)\\?"|'([^'\r\n]*)'|([^\s"'`,;&)}}\]>]+))"#
            ),
        ),
        // `--password hunter2` on a command line: 1 flag name, 2 value.
        rule(
            SecretKind::Secret,
            flag_judge,
            format!(r#"--([A-Za-z0-9\-]*{SECRET_KEY_WORDS}[A-Za-z0-9\-]*)[ \t]+([^\s"'`\-][^\s"'`]*)"#),
        ),
    ];
    rules.extend(token_patterns().into_iter().map(|(kind, judge, pattern)| rule(kind, judge, pattern)));
    // Last: a long token after the bare word "Bearer" (an Authorization header is matched
    // above, with its scheme).
    rules.push(rule(
        SecretKind::BearerToken,
        bare_bearer_judge,
        format!(r"{B}(?i:bearer)[ \t]+([A-Za-z0-9._~+/\-]{{16,}}=*)"),
    ));
    rules
}

static RULES: LazyLock<RuleSet<Rule>> = LazyLock::new(|| RuleSet::compile(rules()));

/// The token shapes, anchored, to name the kind of an assigned value.
static TOKEN_SHAPES: LazyLock<(RegexSet, Vec<SecretKind>)> = LazyLock::new(|| {
    let patterns = token_patterns();
    let kinds = patterns.iter().map(|(kind, _, _)| *kind).collect();
    let set = RegexSet::new(patterns.iter().map(|(_, _, p)| format!("^(?:{p})$")))
        .expect("built-in secret patterns are valid");
    (set, kinds)
});

/// The specific kind of a value that is itself a recognisable token, if it is one.
fn token_kind_of(value: &str) -> Option<SecretKind> {
    let (set, kinds) = &*TOKEN_SHAPES;
    set.matches(value).iter().next().and_then(|i| kinds.get(i)).copied()
}

// ------------------------------------------------------------------------------- judges

fn aws_secret_judge(hit: &Hit<'_>, kind: SecretKind) -> Verdict {
    // Exactly forty characters: a longer run is something else.
    let followed_by_more = hit.char_after().is_some_and(|c| c.is_ascii_alphanumeric() || "/+=".contains(c));
    if followed_by_more { hit.skip() } else { hit.only_group(1, kind) }
}

fn url_password_judge(hit: &Hit<'_>, kind: SecretKind) -> Verdict {
    let (Some(user), Some(password)) = (hit.group(1), hit.group(2)) else {
        return hit.skip();
    };
    // The '@' leads to a host: the pattern holds the host's first character.
    if is_marker(password) {
        return hit.skip();
    }
    // `https://<token>:x-oauth-basic@host`: the user name is the credential.
    let user_secret = token_kind_of(user).and_then(|user_kind| hit.group_secret(1, user_kind));
    let password_secret = if is_placeholder(password) {
        None
    } else {
        hit.group_secret(2, token_kind_of(password).unwrap_or(kind))
    };
    match (user_secret, password_secret) {
        (None, None) => hit.skip(),
        (Some(user), password) => Verdict::Replace([Some(user), password]),
        (None, password) => Verdict::Replace([password, None]),
    }
}

fn authorization_judge(hit: &Hit<'_>, _: SecretKind) -> Verdict {
    let (Some(scheme), Some(credential)) = (hit.group(1), hit.group(2)) else {
        return hit.skip();
    };
    if credential.len() < 8 || is_placeholder(credential) {
        return hit.skip();
    }
    let kind = if scheme.eq_ignore_ascii_case("basic") {
        SecretKind::BasicAuth
    } else {
        token_kind_of(credential).unwrap_or(SecretKind::BearerToken)
    };
    hit.only_group(2, kind)
}

fn bare_bearer_judge(hit: &Hit<'_>, kind: SecretKind) -> Verdict {
    let Some(token) = hit.group(1) else {
        return hit.skip();
    };
    let has_digit = token.bytes().any(|b| b.is_ascii_digit());
    let has_letter = token.bytes().any(|b| b.is_ascii_alphabetic());
    if !has_digit || !has_letter || is_placeholder(token) {
        return hit.skip();
    }
    hit.only_group(1, token_kind_of(token).unwrap_or(kind))
}

fn assignment_judge(hit: &Hit<'_>, _: SecretKind) -> Verdict {
    let (Some(key), Some(operator)) = (hit.group(1), hit.group(2)) else {
        return hit.skip();
    };
    let (value_group, quoted) = if hit.group(3).is_some() {
        (3, true)
    } else if hit.group(4).is_some() {
        (4, true)
    } else {
        (5, false)
    };
    let (Some(value), Some((value_start, _))) = (hit.group(value_group), hit.span(value_group)) else {
        return hit.skip();
    };
    // On a rejection, scanning resumes at the value: it may still hold a token by shape.
    let reject = Verdict::Skip { resume_at: value_start.max(hit.start() + 1) };
    if !key_holds_a_secret(key) || !value_is_secret(value, quoted, operator, hit.rest()) {
        return reject;
    }
    hit.only_group(value_group, token_kind_of(value).unwrap_or_else(|| kind_of_key(key)))
}

fn flag_judge(hit: &Hit<'_>, _: SecretKind) -> Verdict {
    let (Some(flag), Some(value)) = (hit.group(1), hit.group(2)) else {
        return hit.skip();
    };
    if !key_holds_a_secret(flag) || !value_is_secret(value, false, "=", "") {
        return hit.skip();
    }
    hit.only_group(2, token_kind_of(value).unwrap_or_else(|| kind_of_key(flag)))
}

/// `password` for password-like keys, `secret` for the rest (tokens, API keys ...).
fn kind_of_key(key: &str) -> SecretKind {
    let key = key.to_ascii_lowercase();
    if key.contains("pass") || key.contains("pwd") { SecretKind::Password } else { SecretKind::Secret }
}

/// Words in a key that say it describes a secret rather than holds one: `max_tokens`,
/// `token_type`, `password_reset_url`, `secret_name`, `access_key_id` ...
const DESCRIPTIVE_KEY_WORDS: [&str; 40] = [
    "tokens",
    "tokenize",
    "max",
    "min",
    "count",
    "limit",
    "budget",
    "usage",
    "used",
    "len",
    "size",
    "type",
    "num",
    "total",
    "input",
    "output",
    "cache",
    "ttl",
    "expir",
    "url",
    "uri",
    "endpoint",
    "file",
    "path",
    "name",
    "field",
    "header",
    "policy",
    "reset",
    "rotat",
    "hint",
    "prompt",
    "required",
    "enabled",
    "strength",
    "valid",
    "placeholder",
    "label",
    "format",
    "mode",
];

fn key_holds_a_secret(key: &str) -> bool {
    let name = key.trim_start_matches('-');
    let lower = name.to_ascii_lowercase();
    if DESCRIPTIVE_KEY_WORDS.iter().any(|word| lower.contains(word)) {
        return false;
    }
    // An identifier (`secret_id`, `accessKeyId`, `token_ids`) names a secret, it is not one.
    let last_segment = lower.rsplit(['_', '-', '.']).next().unwrap_or_default();
    let camel_case_id = name.ends_with("Id") || name.ends_with("Ids");
    !(matches!(last_segment, "id" | "ids") || camel_case_id)
}

/// Is the value of a secret-named key a real secret (not a placeholder, code or prose)?
/// `after` is the text right after the value.
fn value_is_secret(value: &str, quoted: bool, operator: &str, after: &str) -> bool {
    if value.chars().count() < 6 || is_marker(value) || is_placeholder(value) {
        return false;
    }
    if quoted {
        // A quoted sentence is a label or a message ("Enter your password"), not a secret.
        return !value.contains(char::is_whitespace);
    }
    if looks_like_code(value) || looks_like_path(value) {
        return false;
    }
    let alphabetic = value.chars().all(|c| c.is_ascii_alphabetic());
    if alphabetic && operator == ":" {
        // "Token: counting ...", "secret: nobody" — prose or a type, not a credential.
        return false;
    }
    let sentence_goes_on = after.starts_with(' ') && after[1..].starts_with(|c: char| c.is_alphabetic());
    !(alphabetic && value.chars().all(|c| c.is_ascii_lowercase()) && sentence_goes_on)
}

/// Does the value hold a marker already? Then what is left around it is no secret of its
/// own, and redacting it again would break idempotence.
fn is_marker(value: &str) -> bool {
    value.contains("[REDACTED")
}

/// Template and documentation placeholders: `<your-token>`, `${VAR}`, `$TOKEN`,
/// `{{ secrets.X }}`, `****`, `xxxx`, `your_api_key_here`, `changeme`, `null` ...
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let lower = lower.as_str();
    if lower.starts_with('<') || lower.starts_with("{{") || lower.starts_with("%(") || lower.starts_with("%s")
    {
        return true;
    }
    if let Some(rest) = lower.strip_prefix('$') {
        // `$VAR`, `${VAR}`, `$(cmd)`; a bcrypt hash (`$2b$12$…`) is a secret.
        if rest.starts_with(|c: char| c.is_ascii_alphabetic() || "_{(".contains(c)) {
            return true;
        }
    }
    let first = lower.chars().next();
    if lower.chars().all(|c| Some(c) == first || c == '-' || c == '_')
        && matches!(first, Some('*' | 'x' | '.' | '#' | '-' | '0'))
    {
        return true;
    }
    const EXACT: [&str; 24] = [
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "string",
        "str",
        "number",
        "boolean",
        "optional",
        "required",
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "user",
        "username",
        "changeme",
        "change_me",
        "redacted",
        "empty",
    ];
    const PREFIXES: [&str; 7] = ["your", "my_", "example", "placeholder", "dummy", "sample", "replace"];
    const INSIDE: [&str; 6] = ["xxxx", "****", "placeholder", "example", "your_", "your-"];
    EXACT.contains(&lower)
        || PREFIXES.iter().any(|p| lower.starts_with(p))
        || INSIDE.iter().any(|w| lower.contains(w))
}

/// `get_password()`, `os.environ["X"]`, `self.token`, `settings.SECRET_KEY`,
/// `Option<String>`, `api_key` (a variable named like the key): code on the right of `=`
/// or a type after `:`, not a literal secret.
fn looks_like_code(value: &str) -> bool {
    if value.contains(['(', '[', '{', '<']) {
        return true;
    }
    let identifier = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() > 1 && parts.iter().all(|p| identifier(p)) {
        return true;
    }
    if identifier(value) && !value.bytes().any(|b| b.is_ascii_digit()) {
        let lower = value.to_ascii_lowercase();
        return ["pass", "pwd", "secret", "token", "key"].iter().any(|w| lower.contains(w));
    }
    false
}

fn looks_like_path(value: &str) -> bool {
    value.starts_with('/') || value.starts_with("~/") || value.starts_with("./") || value.starts_with("../")
}

#[cfg(test)]
mod tests;
