//! The service's clock: the system clock in production, a manual clock in tests (time moves only
//! when the test says so, so loss on time is tested without sleeping).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hanniball_ids::Timestamp;
use tokio::sync::watch;

/// A source of time that can also wait for a moment to come.
#[derive(Clone, Debug)]
pub enum Clock {
    System,
    Manual(Arc<ManualClock>),
}

/// A clock that moves only when advanced.
#[derive(Debug)]
pub struct ManualClock {
    now: AtomicI64,
    changed: watch::Sender<i64>,
}

impl ManualClock {
    /// Moves time forward by `ms` and wakes every waiter.
    pub fn advance(&self, ms: i64) {
        let now = self.now.fetch_add(ms, Ordering::SeqCst) + ms;
        self.changed.send_replace(now);
    }

    /// The time it shows, in ms since the epoch.
    #[must_use]
    pub fn now(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
}

impl Clock {
    /// A manual clock starting at `start`.
    #[must_use]
    pub fn manual(start: Timestamp) -> (Clock, Arc<ManualClock>) {
        let (changed, _) = watch::channel(start.0);
        let manual = Arc::new(ManualClock {
            now: AtomicI64::new(start.0),
            changed,
        });
        (Clock::Manual(Arc::clone(&manual)), manual)
    }

    /// The current time.
    #[must_use]
    pub fn now(&self) -> Timestamp {
        match self {
            Clock::System => Timestamp(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as i64),
            ),
            Clock::Manual(manual) => Timestamp(manual.now.load(Ordering::SeqCst)),
        }
    }

    /// Waits until `deadline` has come.
    pub async fn sleep_until(&self, deadline: Timestamp) {
        match self {
            Clock::System => {
                let wait = deadline.0 - self.now().0;
                if wait > 0 {
                    tokio::time::sleep(Duration::from_millis(wait as u64)).await;
                }
            }
            Clock::Manual(manual) => {
                let mut changed = manual.changed.subscribe();
                while manual.now.load(Ordering::SeqCst) < deadline.0 {
                    if changed.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            }
        }
    }
}
