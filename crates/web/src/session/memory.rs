//! What the process remembers between requests: failed sign-ins per address, and the forms
//! already acted on.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Failed sign-ins per address: past the cap in a minute, the address may not try again until
/// that minute ends (the same fixed window as the API's failed-authentication limit).
#[derive(Debug, Default)]
pub(crate) struct SignInLimit {
    cap: u32,
    failures: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

const MINUTE: Duration = Duration::from_secs(60);

impl SignInLimit {
    pub(crate) fn new(cap: u32) -> SignInLimit {
        SignInLimit {
            cap,
            failures: Mutex::default(),
        }
    }

    /// How long `ip` must wait before trying again, if it is locked out.
    pub(crate) fn locked(&self, ip: Option<IpAddr>) -> Option<Duration> {
        let ip = ip?;
        if self.cap == 0 {
            return None;
        }
        let failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let (start, count) = failures.get(&ip)?;
        let end = *start + MINUTE;
        let now = Instant::now();
        (*count >= self.cap && end > now).then(|| end - now)
    }

    /// Notes a failed sign-in from `ip`.
    pub(crate) fn failed(&self, ip: Option<IpAddr>) {
        let Some(ip) = ip else { return };
        let now = Instant::now();
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        if failures.len() > 100_000 {
            failures.retain(|_, (start, _)| now.duration_since(*start) < MINUTE);
        }
        let (start, count) = failures.entry(ip).or_insert((now, 0));
        if now.duration_since(*start) >= MINUTE {
            (*start, *count) = (now, 0);
        }
        *count += 1;
        if *count == self.cap {
            tracing::warn!(%ip, "too many failed sign-ins: refusing the address for the rest of the minute");
        }
    }
}

/// What a form did, kept so that the same form sent again does nothing and says what was done,
/// and so that the page it leads to can say it.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    player: i64,
    pub(crate) ok: bool,
    pub(crate) message: String,
    pub(crate) location: String,
    at: Instant,
}

/// Forms already acted on, by their one-time id (`once`), for an hour.
#[derive(Debug, Default)]
pub(crate) struct Done {
    outcomes: Mutex<HashMap<String, Outcome>>,
}

const KEEP: Duration = Duration::from_secs(3_600);
const KEEP_MAX: usize = 50_000;

impl Done {
    /// The outcome of form `once` sent by `player`, if any.
    pub(crate) fn get(&self, once: &str, player: i64) -> Option<Outcome> {
        let outcomes = self.outcomes.lock().unwrap_or_else(PoisonError::into_inner);
        outcomes
            .get(once)
            .filter(|o| o.player == player && o.at.elapsed() < KEEP)
            .cloned()
    }

    pub(crate) fn put(&self, once: &str, player: i64, ok: bool, message: String, location: &str) {
        if once.is_empty() || once.len() > 64 {
            return;
        }
        let mut outcomes = self.outcomes.lock().unwrap_or_else(PoisonError::into_inner);
        if outcomes.len() >= KEEP_MAX {
            outcomes.retain(|_, o| o.at.elapsed() < KEEP);
            if outcomes.len() >= KEEP_MAX {
                outcomes.clear();
            }
        }
        outcomes.insert(
            once.to_owned(),
            Outcome {
                player,
                ok,
                message,
                location: location.to_owned(),
                at: Instant::now(),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_past_its_failed_sign_ins_waits_for_the_minute() {
        let limit = SignInLimit::new(3);
        let ip = Some("192.0.2.1".parse().expect("ip"));
        let other = Some("192.0.2.2".parse().expect("ip"));
        for _ in 0..2 {
            limit.failed(ip);
        }
        assert_eq!(limit.locked(ip), None);
        limit.failed(ip);
        assert!(limit.locked(ip).is_some_and(|wait| wait <= MINUTE));
        assert_eq!(limit.locked(other), None);
        assert_eq!(SignInLimit::new(0).locked(ip), None);
    }

    #[test]
    fn a_form_acts_once_for_its_sender() {
        let done = Done::default();
        done.put("f1", 7, true, "done".to_owned(), "/console");
        assert_eq!(
            done.get("f1", 7).map(|o| o.message),
            Some("done".to_owned())
        );
        assert!(done.get("f1", 8).is_none());
        assert!(done.get("f2", 7).is_none());
    }
}
