//! The HTTP side both provider clients share: the `reqwest` client and its timeouts, the
//! endpoint URL built from `agent.base_url`, the API key header, and the POST of one request
//! body. What differs between the APIs (extra headers, the key's header, how an error body
//! reads) is passed in by each client.

use std::time::Duration;

use serde_json::Value;

use super::{ClientSettings, ProviderConfigError, ProviderError, parse_retry_after, transport_error};

/// Where an API's endpoint lives below a base URL.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route {
    /// The base URL when `agent.base_url` is not set.
    pub default_base: &'static str,
    /// A version segment (`/v1`) a configured base URL may or may not end in; empty when
    /// the base URL always includes it.
    pub version: &'static str,
    /// The endpoint below the version segment.
    pub path: &'static str,
}

/// How the API key is sent.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The bare key in the named header.
    Named(&'static str),
}

/// One API endpoint of one configured client.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    settings: ClientSettings,
    http: reqwest::Client,
    url: String,
    key_header: KeyHeader,
}

impl Endpoint {
    pub(crate) fn new(
        settings: ClientSettings,
        route: Route,
        key_header: KeyHeader,
    ) -> Result<Endpoint, ProviderConfigError> {
        let http = http_client(settings.request_timeout)?;
        let base = settings.base_url.as_deref().unwrap_or(route.default_base);
        let url = endpoint_url(base, route.version, route.path);
        Ok(Endpoint { settings, http, url, key_header })
    }

    pub(crate) fn settings(&self) -> &ClientSettings {
        &self.settings
    }

    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// POSTs `body` as JSON with `headers` and the API key, if there is one. A 2xx answer's
    /// body is returned; any other status becomes `refused(status, body, retry_after)`.
    pub(crate) async fn post_json(
        &self,
        body: &Value,
        headers: &[(&'static str, &'static str)],
        refused: impl FnOnce(u16, &str, Option<Duration>) -> ProviderError,
    ) -> Result<String, ProviderError> {
        let mut call = self.http.post(&self.url);
        for (name, value) in headers {
            call = call.header(*name, *value);
        }
        call = call.json(body);
        if let Some(key) = &self.settings.api_key {
            call = match self.key_header {
                KeyHeader::Bearer => call.bearer_auth(key),
                KeyHeader::Named(name) => call.header(name, key),
            };
        }
        let response = call.send().await.map_err(transport_error)?;
        let status = response.status().as_u16();
        let retry_after = parse_retry_after(response.headers());
        let text = response.text().await.map_err(transport_error)?;
        if !(200..300).contains(&status) {
            return Err(refused(status, &text, retry_after));
        }
        Ok(text)
    }
}

/// `base` (trailing slashes dropped) joined with `version` and `path`. A base that already
/// ends in the whole endpoint or in the version segment is not doubled: the SDKs take the
/// bare host as base URL, while users often paste one ending in `/v1` or the full endpoint.
fn endpoint_url(base: &str, version: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    let full = format!("{version}{path}");
    if base.ends_with(&full) {
        base.to_string()
    } else if !version.is_empty() && base.ends_with(version) {
        format!("{base}{path}")
    } else {
        format!("{base}{full}")
    }
}

/// Builds the HTTP client (rustls, request timeout).
fn http_client(timeout: Duration) -> Result<reqwest::Client, ProviderConfigError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(30)))
        .user_agent(concat!("autodream/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ProviderConfigError(format!("cannot build the HTTP client: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{body_json, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn settings(base: &str, api_key: Option<&str>) -> ClientSettings {
        ClientSettings {
            model: "m".into(),
            base_url: Some(base.into()),
            api_key: api_key.map(str::to_string),
            api_key_env: "KEY".into(),
            request_timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn a_post_carries_the_headers_and_the_key_and_hands_refusals_back() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .and(path("/v1/messages"))
                .and(header("x-api-key", "k1"))
                .and(header("anthropic-version", "v"))
                .and(header("content-type", "application/json"))
                .and(body_json(serde_json::json!({"a": 1})))
                .respond_with(ResponseTemplate::new(200).set_body_string("named"))
                .mount(&server)
                .await;
            Mock::given(method("POST"))
                .and(path("/v1/chat/completions"))
                .and(header("authorization", "Bearer k2"))
                .respond_with(ResponseTemplate::new(200).set_body_string("bearer"))
                .mount(&server)
                .await;
            Mock::given(method("POST"))
                .and(path("/v1/chat/completions"))
                .respond_with(
                    ResponseTemplate::new(429).insert_header("retry-after", "2").set_body_string("slow"),
                )
                .mount(&server)
                .await;
            let body = serde_json::json!({"a": 1});
            let never = |status, _: &str, _| panic!("refused with {status}");
            let named = Route { default_base: "", version: "/v1", path: "/messages" };
            let endpoint =
                Endpoint::new(settings(&server.uri(), Some("k1")), named, KeyHeader::Named("x-api-key"))
                    .unwrap();
            let headers = [("anthropic-version", "v"), ("content-type", "application/json")];
            assert_eq!(endpoint.post_json(&body, &headers, never).await.unwrap(), "named");

            let bearer = Route { default_base: "", version: "", path: "/chat/completions" };
            let base = format!("{}/v1", server.uri());
            let endpoint = Endpoint::new(settings(&base, Some("k2")), bearer, KeyHeader::Bearer).unwrap();
            assert_eq!(endpoint.post_json(&body, &[], never).await.unwrap(), "bearer");

            // Without a key, no authorization header: the catch-all refuses.
            let endpoint = Endpoint::new(settings(&base, None), bearer, KeyHeader::Bearer).unwrap();
            let refused = endpoint
                .post_json(&body, &[], |status, text, retry_after| {
                    assert_eq!((status, text, retry_after), (429, "slow", Some(Duration::from_secs(2))));
                    ProviderError::Decode("refused".into())
                })
                .await;
            assert_eq!(refused, Err(ProviderError::Decode("refused".into())));
        });
    }

    #[test]
    fn the_endpoint_is_not_doubled_when_the_base_already_has_it() {
        let messages = |base| endpoint_url(base, "/v1", "/messages");
        assert_eq!(messages("http://h:1"), "http://h:1/v1/messages");
        assert_eq!(messages("http://h:1//"), "http://h:1/v1/messages");
        assert_eq!(messages("http://h:1/v1/"), "http://h:1/v1/messages");
        assert_eq!(messages("http://h:1/v1/messages"), "http://h:1/v1/messages");
        let completions = |base| endpoint_url(base, "", "/chat/completions");
        assert_eq!(completions("http://h:1/v1"), "http://h:1/v1/chat/completions");
        assert_eq!(completions("http://h:1/v1/chat/completions/"), "http://h:1/v1/chat/completions");
        // Without a version segment nothing is read as one.
        assert_eq!(completions("http://h:1/chat"), "http://h:1/chat/chat/completions");
    }
}
