//! The lease: one dreamer at a time across machines.
//!
//! `lease.json` on the branch names the holder (machine, PID, expiry) and a fencing token
//! that grows by one with every lease taken. A machine takes the lease by pushing a commit
//! that changes it; git's fast-forward rule lets exactly one of several racing pushes
//! through. The dream's result is pushed on top, and lands only while the branch's lease
//! still carries the dreamer's token (see `sync`): a lease past its expiry may be taken over,
//! as the local lock's stale rule allows, and the old holder's late push is then refused.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

/// The branch's `lease.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The machine dreaming now, if any.
    #[serde(default)]
    pub holder: Option<Holder>,
    /// Grows by one with every lease taken: a result lands only under its own token.
    #[serde(default)]
    pub token: u64,
    /// The last dream that landed: the team's shared "last consolidated at".
    #[serde(default)]
    pub last_dream: Option<LastDream>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub machine: String,
    pub pid: u32,
    pub acquired: Timestamp,
    pub expires: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastDream {
    pub machine: String,
    pub task: String,
    pub at: Timestamp,
    /// The lease it landed under.
    #[serde(default)]
    pub token: u64,
}

/// Why this machine may not take the lease now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Busy {
    /// Another live holder.
    Held(Holder),
    /// The team dreamt less than `min_hours` ago.
    Recent(LastDream),
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Busy::Held(h) => {
                write!(f, "the team lease is held by {} (PID {}) until {}", h.machine, h.pid, h.expires)
            }
            Busy::Recent(d) => write!(f, "the team dreamt at {} on {} (task {})", d.at, d.machine, d.task),
        }
    }
}

impl Lease {
    /// Reads `lease.json`; a missing or unreadable one is a free lease at token 0.
    pub fn parse(bytes: Option<&[u8]>) -> Lease {
        bytes.and_then(|b| serde_json::from_slice(b).ok()).unwrap_or_default()
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
        v.push(b'\n');
        v
    }

    /// The holder while the lease is live at `now`.
    pub fn live_holder(&self, now: Timestamp) -> Option<&Holder> {
        self.holder.as_ref().filter(|h| h.expires > now)
    }

    /// Whether `machine` (PID `pid`) may take the lease at `now`. A live holder on this same
    /// machine whose process is gone is stale, as with the local lock; `min_hours` is the
    /// team's time gate (`None` skips it).
    pub fn check(
        &self,
        machine: &str,
        now: Timestamp,
        min_hours: Option<f64>,
        pid_alive: impl Fn(u32) -> bool,
    ) -> Result<(), Busy> {
        if let Some(h) = self.live_holder(now) {
            let stale_here = h.machine == machine && !pid_alive(h.pid);
            if !stale_here {
                return Err(Busy::Held(h.clone()));
            }
        }
        if let (Some(hours), Some(last)) = (min_hours, &self.last_dream) {
            let next =
                last.at.saturating_add(SignedDuration::from_secs_f64(hours * 3600.0)).unwrap_or(last.at);
            if now < next {
                return Err(Busy::Recent(last.clone()));
            }
        }
        Ok(())
    }

    /// The lease taken by `machine`: the next token, expiring `minutes` after `now`.
    pub fn taken(&self, machine: &str, pid: u32, now: Timestamp, minutes: f64) -> Lease {
        let expires = now.saturating_add(SignedDuration::from_secs_f64(minutes * 60.0)).unwrap_or(now);
        Lease {
            holder: Some(Holder { machine: machine.into(), pid, acquired: now, expires }),
            token: self.token + 1,
            last_dream: self.last_dream.clone(),
        }
    }

    /// The lease given back; with the dream that landed, when one did.
    pub fn released(&self, landed: Option<LastDream>) -> Lease {
        Lease { holder: None, token: self.token, last_dream: landed.or_else(|| self.last_dream.clone()) }
    }

    /// Whether this lease is still the one `machine` took under `token`.
    pub fn is_ours(&self, machine: &str, token: u64) -> bool {
        self.token == token && self.holder.as_ref().is_some_and(|h| h.machine == machine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn a_live_lease_refuses_and_an_expired_one_is_taken_over_with_a_new_token() {
        let now = t("2026-05-08T12:00:00Z");
        let a = Lease::default().taken("a", 10, now, 60.0);
        assert_eq!(a.token, 1);
        assert!(matches!(a.check("b", t("2026-05-08T12:59:00Z"), None, |_| true), Err(Busy::Held(_))));
        assert!(a.check("b", t("2026-05-08T13:00:01Z"), None, |_| true).is_ok());
        let b = a.taken("b", 20, t("2026-05-08T13:00:01Z"), 60.0);
        assert_eq!(b.token, 2);
        assert!(!b.is_ours("a", 1), "the old holder is fenced off");
        assert!(b.is_ours("b", 2));
    }

    #[test]
    fn a_dead_holder_on_this_machine_is_stale_and_the_time_gate_holds() {
        let now = t("2026-05-08T12:00:00Z");
        let a = Lease::default().taken("a", 10, now, 60.0);
        assert!(a.check("a", now, None, |_| false).is_ok());
        assert!(a.check("a", now, None, |_| true).is_err());
        let done = a.released(Some(LastDream { machine: "a".into(), task: "x".into(), at: now, token: 1 }));
        assert!(matches!(
            done.check("b", t("2026-05-08T20:00:00Z"), Some(24.0), |_| true),
            Err(Busy::Recent(_))
        ));
        assert!(done.check("b", t("2026-05-09T12:00:01Z"), Some(24.0), |_| true).is_ok());
        assert_eq!(Lease::parse(Some(b"not json")), Lease::default());
    }
}
