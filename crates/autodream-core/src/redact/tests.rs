//! The redactor's tests: every secret kind, what must stay, and properties.

use super::*;
use proptest::prelude::*;

/// A token body of `len` letters and digits. Test secrets are assembled at run time so
/// that no key-shaped literal sits in the source for scanners to flag.
fn body(len: usize) -> String {
    "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6".chars().cycle().take(len).collect()
}

fn upper_body(len: usize) -> String {
    "Q7W3E9R2T5Y8U1I4O6P0".chars().cycle().take(len).collect()
}

/// Redacts `input` and checks the result text, the count and that it is stable.
fn assert_redacts(input: &str, expected: &str, kinds: &[SecretKind]) {
    let redaction = redact(input);
    assert_eq!(redaction.text, expected, "input: {input:?}");
    assert_eq!(redaction.count, kinds.len(), "input: {input:?}");
    for kind in kinds {
        let want = kinds.iter().filter(|k| *k == kind).count();
        assert_eq!(redaction.count_of(*kind), want, "{kind} in {input:?}");
    }
    let again = redact(&redaction.text);
    assert_eq!(again.count, 0, "redacting twice must change nothing: {:?}", redaction.text);
    assert!(matches!(again.text, Cow::Borrowed(_)));
}

fn assert_untouched(input: &str) {
    let redaction = redact(input);
    assert_eq!(redaction.count, 0, "{input:?} became {:?}", redaction.text);
    assert!(matches!(redaction.text, Cow::Borrowed(_)), "{input:?}");
}

#[test]
fn rules_compile() {
    assert!(RULES.rules.len() > 10);
    assert!(!TOKEN_SHAPES.1.is_empty());
}

#[test]
fn private_key_blocks_are_replaced_whole() {
    let key =
        format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----", body(64), body(40));
    assert_redacts(
        &format!("here is the key:\n{key}\nkeep it safe"),
        "here is the key:\n[REDACTED:private_key]\nkeep it safe",
        &[SecretKind::PrivateKey],
    );
    // Inside a JSON string the newlines are escaped.
    let escaped = format!(
        r#"{{"content":"-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n"}}"#,
        body(70)
    );
    assert_redacts(&escaped, r#"{"content":"[REDACTED:private_key]\n"}"#, &[SecretKind::PrivateKey]);
    // A paste cut off before the END line still loses its body.
    let truncated = format!("-----BEGIN PRIVATE KEY-----\n{}\n{}", body(64), body(20));
    assert_redacts(&truncated, "[REDACTED:private_key]", &[SecretKind::PrivateKey]);
    assert_untouched(&format!("-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----", body(64)));
    assert_untouched("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
}

#[test]
fn aws_keys() {
    let id = format!("AKIA{}", upper_body(16));
    assert_redacts(
        &format!("key id {id} in use"),
        "key id [REDACTED:aws_access_key] in use",
        &[SecretKind::AwsAccessKey],
    );
    let session = format!("ASIA{}", upper_body(16));
    assert_redacts(&session, "[REDACTED:aws_access_key]", &[SecretKind::AwsAccessKey]);
    assert_untouched(&format!("AKIA{}", upper_body(15)));
    assert_untouched(&format!("XAKIA{}", upper_body(16)));
    assert_untouched(&format!("akia{}", upper_body(16).to_lowercase()));

    let secret = format!("{}/{}", body(20), body(19));
    assert_eq!(secret.len(), 40);
    assert_redacts(
        &format!("aws_secret_access_key = {secret}\nregion = us-east-1"),
        "aws_secret_access_key = [REDACTED:aws_secret]\nregion = us-east-1",
        &[SecretKind::AwsSecret],
    );
    assert_redacts(
        &format!(r#""SecretAccessKey": "{secret}""#),
        r#""SecretAccessKey": "[REDACTED:aws_secret]""#,
        &[SecretKind::AwsSecret],
    );
    // Forty-one characters is not an AWS secret, but the key still names a secret.
    let longer = format!("{secret}x");
    assert_redacts(
        &format!("AWS_SECRET_ACCESS_KEY={longer}"),
        "AWS_SECRET_ACCESS_KEY=[REDACTED:secret]",
        &[SecretKind::Secret],
    );
}

#[test]
fn env_style_key_names_and_short_known_prefixes() {
    assert_redacts("STRIPE_KEY=sk-live-4f9a", "STRIPE_KEY=[REDACTED:api_key]", &[SecretKind::ApiKey]);
    assert_redacts(
        "export GEOIP_LICENSE_KEY=Rk7vQ2xT9LmN4pzW",
        "export GEOIP_LICENSE_KEY=[REDACTED:secret]",
        &[SecretKind::Secret],
    );
    assert_untouched("sort_key = created_at");
    assert_untouched("primary_key: id");
}

#[test]
fn api_keys_with_well_known_prefixes() {
    let keys = [
        format!("sk-ant-api03-{}", body(60)),
        format!("sk-proj-{}", body(48)),
        format!("sk-{}", body(48)),
        format!("sk_live_{}", body(24)),
        format!("ghp_{}", body(36)),
        format!("gho_{}", body(36)),
        format!("ghs_{}", body(36)),
        format!("github_pat_{}_{}", body(22), body(59)),
        format!("xoxb-{}-{}", "1234567890", body(24)),
        format!("xoxp-{}-{}", "1234567890", body(24)),
        format!("AIza{}", body(35)),
        format!("glpat-{}", body(20)),
        format!("npm_{}", body(36)),
        format!("hf_{}", body(34)),
    ];
    for key in &keys {
        assert_redacts(&format!("use {key} here"), "use [REDACTED:api_key] here", &[SecretKind::ApiKey]);
        assert_redacts(&format!("\"{key}\""), "\"[REDACTED:api_key]\"", &[SecretKind::ApiKey]);
    }
}

#[test]
fn key_look_alikes_are_not_keys() {
    assert_untouched("we use sk-learn and scikit-learn for the baseline");
    assert_untouched("the risk-assessment-framework-document is long");
    assert_untouched("task-a1b2c3d4e5f6g7h8i9j0k1 failed");
    assert_untouched("sk-abcdefghijklmnopqrstuvwxyz is only letters");
    assert_untouched("ghp_short and hf_tiny are too short");
    assert_untouched(
        "request 550e8400-e29b-41d4-a716-446655440000 and commit 3f2a9c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291",
    );
    assert_untouched("the token budget ran out during the password reset flow");
    assert_untouched("a secret: nobody reads the docs");
}

#[test]
fn json_web_tokens() {
    let jwt = format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", body(30), body(43));
    assert_redacts(
        &format!("cookie session={jwt}; Path=/"),
        "cookie session=[REDACTED:jwt]; Path=/",
        &[SecretKind::Jwt],
    );
    assert_redacts(&jwt, "[REDACTED:jwt]", &[SecretKind::Jwt]);
    assert_untouched("eyJ alone, or eyJabc.def.ghi is not a token");
}

#[test]
fn bearer_and_basic_credentials() {
    assert_redacts(
        "curl -H 'Authorization: Bearer abc123def456ghi789' https://api",
        "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://api",
        &[SecretKind::BearerToken],
    );
    assert_redacts(
        r#"{"authorization": "Basic dXNlcjpwYXNzd29yZA=="}"#,
        r#"{"authorization": "Basic [REDACTED:basic_auth]"}"#,
        &[SecretKind::BasicAuth],
    );
    let token = body(32);
    assert_redacts(
        &format!("send Bearer {token} to it"),
        "send Bearer [REDACTED:bearer_token] to it",
        &[SecretKind::BearerToken],
    );
    // A JWT in a header keeps its more precise kind.
    let jwt = format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", body(30), body(43));
    assert_redacts(
        &format!("Authorization: Bearer {jwt}"),
        "Authorization: Bearer [REDACTED:jwt]",
        &[SecretKind::Jwt],
    );
    assert_untouched("Authorization: Bearer <token>");
    assert_untouched("Authorization: Bearer $TOKEN");
    assert_untouched("the bearer of bad news, Bearer authentication schemes");
}

#[test]
fn url_passwords_lose_only_the_password() {
    assert_redacts(
        "DATABASE_URL=postgres://admin:s3cr3tP4ss@db.internal:5432/app",
        "DATABASE_URL=postgres://admin:[REDACTED:url_password]@db.internal:5432/app",
        &[SecretKind::UrlPassword],
    );
    assert_redacts(
        "redis://:p@ss:w0rd@cache:6379",
        "redis://:[REDACTED:url_password]@cache:6379",
        &[SecretKind::UrlPassword],
    );
    let pat = format!("ghp_{}", body(36));
    assert_redacts(
        &format!("git clone https://x-access-token:{pat}@github.com/o/r.git"),
        "git clone https://x-access-token:[REDACTED:api_key]@github.com/o/r.git",
        &[SecretKind::ApiKey],
    );
    assert_redacts(
        &format!("https://{pat}:x-oauth-basic@github.com/o/r"),
        "https://[REDACTED:api_key]:[REDACTED:url_password]@github.com/o/r",
        &[SecretKind::ApiKey, SecretKind::UrlPassword],
    );
    assert_untouched("https://user:password@example.com and https://user:pass@host");
    assert_untouched("http://localhost:8080/path?q=1 and git@github.com:org/repo.git");
    assert_untouched("ssh://git@github.com:22/org/repo");
}

#[test]
fn secret_assignments() {
    assert_redacts("password=hunter22", "password=[REDACTED:password]", &[SecretKind::Password]);
    assert_redacts(
        r#"{"api_key": "abcd1234efgh"}"#,
        r#"{"api_key": "[REDACTED:secret]"}"#,
        &[SecretKind::Secret],
    );
    assert_redacts("token: 9f8e7d6c5b4a", "token: [REDACTED:secret]", &[SecretKind::Secret]);
    assert_redacts(
        "SECRET_KEY=django-insecure-abc123xyz\nDEBUG=1",
        "SECRET_KEY=[REDACTED:secret]\nDEBUG=1",
        &[SecretKind::Secret],
    );
    assert_redacts(
        "export DB_PASSWD='Tr0ub4dor&3'",
        "export DB_PASSWD='[REDACTED:password]'",
        &[SecretKind::Password],
    );
    assert_redacts(
        r#"{\"client_secret\": \"q8w7e6r5t4y3\"}"#,
        r#"{\"client_secret\": \"[REDACTED:secret]\"}"#,
        &[SecretKind::Secret],
    );
    assert_redacts(
        "mysql --password hunter22 db",
        "mysql --password [REDACTED:password] db",
        &[SecretKind::Password],
    );
    assert_redacts(
        "GET /cb?access_token=a1b2c3d4e5&state=xyz",
        "GET /cb?access_token=[REDACTED:secret]&state=xyz",
        &[SecretKind::Secret],
    );
    assert_redacts(
        "password_hash: $2b$12$abcdefghijk",
        "password_hash: [REDACTED:password]",
        &[SecretKind::Password],
    );
    // A token-shaped value keeps its precise kind.
    let key = format!("sk-proj-{}", body(48));
    assert_redacts(
        &format!("OPENAI_API_KEY={key}"),
        "OPENAI_API_KEY=[REDACTED:api_key]",
        &[SecretKind::ApiKey],
    );
}

#[test]
fn assignments_that_hold_no_secret_are_left_alone() {
    for text in [
        "max_tokens: 100000",
        "max_tokens=100000",
        "\"input_tokens\": 123456",
        "token_type: bearer_token_value",
        "password: string",
        "token: String,",
        "api_key: Option<String>,",
        "token = self.tokenizer.encode(text)",
        "password = get_password()",
        "let api_key = api_key;",
        "secret = os.environ[\"SECRET\"]",
        "PWD=/home/user/project",
        "password: \"<your-password>\"",
        "token=${GITHUB_TOKEN}",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password: ********",
        "api_key=your_api_key_here",
        "Token: counting tokens is hard",
        "secret_name: prod-db-credentials",
        "password_reset_url: https://example.com/reset",
        "\"password\": \"Enter your password\"",
        "token: null",
        "access_key_id: something123",
        "\"secretId\": \"prod/db/credentials-42\"",
        "password == expected",
        "secret = something else entirely",
        // What is left of a value around an earlier marker is not a secret of its own.
        "\"api_key\": \"A[REDACTED:private_key]\"",
    ] {
        assert_untouched(text);
    }
}

#[test]
fn counts_by_kind_add_up() {
    let text = format!(
        "password=hunter22 and ghp_{} and AKIA{} and postgres://u:pw123456@db/x and password=hunter22",
        body(36),
        upper_body(16)
    );
    let redaction = redact(&text);
    assert_eq!(redaction.count, 5);
    assert_eq!(redaction.count_of(SecretKind::Password), 2);
    assert_eq!(redaction.count_of(SecretKind::ApiKey), 1);
    assert_eq!(redaction.count_of(SecretKind::AwsAccessKey), 1);
    assert_eq!(redaction.count_of(SecretKind::UrlPassword), 1);
    assert_eq!(redaction.by_kind.values().sum::<usize>(), redaction.count);
    assert!(!redaction.text.contains("hunter22"));
}

#[test]
fn clean_text_is_borrowed() {
    let text = "Nothing to hide here: just a plan for the week.";
    let redaction = redact(text);
    assert!(matches!(redaction.text, Cow::Borrowed(t) if std::ptr::eq(t, text)));
    assert!(redaction.by_kind.is_empty());
}

/// Fragments that combine into secrets, near-secrets and glue.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("password=".to_string()),
        Just("token: ".to_string()),
        Just("\"api_key\": \"".to_string()),
        Just("Authorization: Bearer ".to_string()),
        Just("-----BEGIN PRIVATE KEY-----\n".to_string()),
        Just("-----END PRIVATE KEY-----".to_string()),
        Just("https://user:".to_string()),
        Just("@host".to_string()),
        Just("AKIA".to_string()),
        Just("sk-".to_string()),
        Just("ghp_".to_string()),
        Just("eyJ".to_string()),
        Just("[REDACTED:secret]".to_string()),
        Just("前天 密码=".to_string()),
        "[A-Za-z0-9]{1,48}",
        "[ =:_\\-\"'/@.\\n]{1,4}",
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn redact_never_panics_and_borrows_when_clean(parts in prop::collection::vec(fragment(), 0..10)) {
        let text = parts.concat();
        let redaction = redact(&text);
        prop_assert_eq!(redaction.count == 0, matches!(redaction.text, Cow::Borrowed(_)));
        prop_assert_eq!(redaction.by_kind.values().sum::<usize>(), redaction.count);
        if redaction.count == 0 {
            prop_assert_eq!(redaction.text.as_ref(), text.as_str());
        } else {
            prop_assert!(redaction.text.contains(MARKER_PREFIX));
        }
        let again = redact(&redaction.text);
        prop_assert_eq!(again.count, 0, "not idempotent: {:?} -> {:?}", text, redaction.text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let redaction = redact(&text);
        prop_assert_eq!(redaction.count == 0, matches!(redaction.text, Cow::Borrowed(_)));
    }
}

#[test]
fn a_url_password_is_cut_at_the_at_sign_that_leads_to_a_host_so_a_second_pass_finds_nothing() {
    for (text, once) in [
        (
            "https://user:a@hostpassword=®A@:மힰ ",
            "https://user:[REDACTED:url_password]@hostpassword=[REDACTED:password] ",
        ),
        (
            "https://user:a@host[REDACTED:secret]password=@host前天 密码=",
            "https://user:[REDACTED:url_password]@host[REDACTED:secret]password=[REDACTED:password] 密码=",
        ),
        (
            "postgres://app:p@ss@db.internal:5432/app",
            "postgres://app:[REDACTED:url_password]@db.internal:5432/app",
        ),
        // What follows the '@' is read again: a secret there is found in the same pass.
        (
            "https://user:=@password=A0aA0A",
            "https://user:[REDACTED:url_password]@password=[REDACTED:password]",
        ),
    ] {
        let first = redact(text).text.into_owned();
        assert_eq!(first, once, "{text}");
        assert_eq!(redact(&first).count, 0, "{first}");
    }
}
