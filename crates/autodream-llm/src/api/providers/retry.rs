//! Retrying transient provider failures: exponential backoff with full jitter, honouring the
//! provider's `retry-after`, for rate limits (429), server errors (5xx, 529 "overloaded") and
//! network failures. Authentication, not-found and malformed-request errors are final.

use std::time::Duration;

use super::{ChatRequest, ChatResponse, Provider, ProviderError};

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` attempts in all).
    pub max_retries: u32,
    /// The first backoff step; doubled on every retry.
    pub base_delay: Duration,
    /// No single wait is longer than this (a longer `retry-after` is cut to it).
    pub max_delay: Duration,
}

impl RetryPolicy {
    pub fn new(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }

    /// The wait before retry number `retry` (0-based): the provider's `retry-after` when
    /// given, else a random point in `[step/2, step]` where `step = base · 2^retry`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_delay);
        }
        let step = self.base_delay.saturating_mul(2u32.saturating_pow(retry.min(16))).min(self.max_delay);
        let half = step / 2;
        let jitter_ms = rand::random_range(0..=half.as_millis().max(1) as u64);
        half + Duration::from_millis(jitter_ms)
    }
}

/// One attempt that failed and will be retried (for progress reporting).
#[derive(Debug, Clone)]
pub struct RetryNotice {
    pub attempt: u32,
    pub error: ProviderError,
    pub wait: Duration,
}

/// Sends `request`, retrying transient failures per `policy`. `on_retry` hears about each
/// retry before the wait. Cancellation is the caller's: drop the future.
pub async fn send_with_retries(
    provider: &Provider,
    request: &ChatRequest<'_>,
    policy: RetryPolicy,
    mut on_retry: impl FnMut(&RetryNotice),
) -> Result<ChatResponse, ProviderError> {
    let mut retry = 0u32;
    loop {
        match provider.send_once(request).await {
            Ok(response) => return Ok(response),
            Err(error) if error.is_retryable() && retry < policy.max_retries => {
                let wait = policy.delay(retry, error.retry_after());
                on_retry(&RetryNotice { attempt: retry + 1, error, wait });
                tokio::time::sleep(wait).await;
                retry += 1;
            }
            Err(error) if error.is_retryable() && policy.max_retries > 0 => {
                return Err(match error {
                    ProviderError::Server { status, message, retry_after } => ProviderError::Server {
                        status,
                        message: format!("{message} (gave up after {} attempts)", retry + 1),
                        retry_after,
                    },
                    ProviderError::RateLimited { message, retry_after } => ProviderError::RateLimited {
                        message: format!("{message} (gave up after {} attempts)", retry + 1),
                        retry_after,
                    },
                    ProviderError::Network(message) => {
                        ProviderError::Network(format!("{message} (gave up after {} attempts)", retry + 1))
                    }
                    other => other,
                });
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_exponentially_within_jitter_bounds() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(10),
        };
        for retry in 0..4 {
            let step = 100u64 << retry;
            for _ in 0..50 {
                let d = policy.delay(retry, None).as_millis() as u64;
                assert!(d >= step / 2 && d <= step, "retry {retry}: {d} ms outside [{}, {step}]", step / 2);
            }
        }
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let policy = RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
        };
        assert_eq!(policy.delay(0, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(policy.delay(0, Some(Duration::from_secs(500))), Duration::from_secs(5));
    }

    #[test]
    fn the_step_never_exceeds_the_cap() {
        let policy = RetryPolicy {
            max_retries: 40,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(8),
        };
        assert!(policy.delay(30, None) <= Duration::from_secs(8));
    }
}
