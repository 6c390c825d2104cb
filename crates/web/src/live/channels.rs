//! The broadcast channel of each watched game or tournament, which the API state holds and
//! the live updates fill.

/// Live updates of the games being watched: one upstream `WatchGame` stream per game, however
/// many pages watch it, fanned out to them in this process (a thousand spectators cost the
/// arbiter one stream, and the web part's token one open call).
pub(crate) type Feeds = Channels<std::sync::Arc<str>>;

/// Change notices of the tournaments being watched: one poller per tournament in this process,
/// however many pages watch it, asking the scheduler for the tournament every
/// [`TOURNAMENT_POLL`](super::TOURNAMENT_POLL) and telling the pages when anything in it changed
/// (a result, a new round, an entrant). The scheduler has no watch stream: its replicas share
/// only the database, so one would need a notification channel between them; a poll per watched
/// tournament per second is cheap and works against any replica.
pub(crate) type TournamentFeeds = Channels<()>;

/// The broadcast channel of each watched game or tournament, by id.
pub(crate) struct Channels<T>(
    std::sync::Mutex<std::collections::HashMap<i64, tokio::sync::broadcast::Sender<T>>>,
);

impl<T> Default for Channels<T> {
    fn default() -> Self {
        Channels(std::sync::Mutex::default())
    }
}

impl<T> Channels<T> {
    pub(super) fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<i64, tokio::sync::broadcast::Sender<T>>>
    {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Drops `feed`, the channel of `id` whose source has ended, unless a newer one has
    /// replaced it meanwhile.
    pub(super) fn forget(&self, id: i64, feed: &tokio::sync::broadcast::Sender<T>) {
        let mut feeds = self.lock();
        if feeds
            .get(&id)
            .is_some_and(|current| current.same_channel(feed))
        {
            feeds.remove(&id);
        }
    }
}
