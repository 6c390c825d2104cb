//! Live updates: the fan-out of each watched game's `WatchGame` stream to its pages, the poller
//! of each watched tournament, and the server-sent event streams the pages follow.

pub(crate) mod channels;

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::scheduler::v1 as spb;
use tokio_stream::StreamExt;

use crate::api::{Api, Scheduler};
use crate::game::{
    bad_game_id, board, board_title, clocks_at, now_ms, replay_nav, side_name, status_line,
};
use crate::html::{api_error, unavailable};
use crate::i18n::{Lang, within};
use crate::live::channels::TournamentFeeds;
use crate::tournament::{bad_tournament_id, is_live, tournament_of};
use crate::url::game_id;

/// Updates a page may fall behind before it is told to reload.
const FEED_BUFFER: usize = 64;

/// How often a watched tournament is asked for.
const TOURNAMENT_POLL: Duration = Duration::from_secs(1);

/// The update a page of game `id` gets for one game event (`None`: nothing to show). Once the
/// game is over it carries the replay links.
fn update(id: i64, kind: &str, event: pb::GameEvent) -> Option<serde_json::Value> {
    let (state, turn) = match event.event? {
        pb::game_event::Event::TurnPlayed(played) => (played.state?, played.record),
        pb::game_event::Event::GameOver(over) => (over.state?, None),
        pb::game_event::Event::DrawOffered(offer) => (offer.state?, None),
        _ => return None,
    };
    let clocks = state.clocks.as_ref().map(|c| {
        let (white, black) = clocks_at(c, now_ms());
        serde_json::json!({
            "white": white,
            "black": black,
            "running": side_name(c.running),
        })
    });
    // One update goes to every page watching, whatever its language: the words come in each
    // language and the page's script takes its own (`<html lang>`).
    let each = |f: &dyn Fn() -> String| {
        let mut words = serde_json::Map::new();
        for lang in Lang::ALL {
            words.insert(lang.code().to_owned(), within(lang, "/", f).into());
        }
        serde_json::Value::Object(words)
    };
    let replay = state.result.as_ref().map(|_| {
        let total = state.next_turn_number.saturating_sub(1) as usize;
        each(&|| replay_nav(id, total, total).into_string())
    });
    Some(serde_json::json!({
        "board": board(kind, &state, turn.as_ref().map(|t| t.turn.as_str())).into_string(),
        "replay": replay,
        "status": each(&|| status_line(&state)),
        "title": each(&|| board_title(&state)),
        "turn": turn.map(|t| serde_json::json!({"number": t.number, "text": t.turn})),
        "clocks": clocks,
        "over": state.result.is_some(),
    }))
}

impl Api {
    /// A subscription to the live updates of `game` (as just read), starting the game's upstream
    /// stream if no page watches it yet.
    async fn subscribe(
        &mut self,
        game: &pb::Game,
    ) -> Result<tokio::sync::broadcast::Receiver<std::sync::Arc<str>>, tonic::Status> {
        if let Some(feed) = self.feeds.lock().get(&game.id) {
            return Ok(feed.subscribe());
        }
        let from = game.state.as_ref().map_or(1, |s| s.next_turn_number.max(1));
        let mut stream = self
            .arbiter
            .watch_game(pb::WatchGameRequest {
                game_id: game.id,
                from_turn: from,
            })
            .await?
            .into_inner();
        let mut feeds = self.feeds.lock();
        if let Some(feed) = feeds.get(&game.id) {
            // Another page started it meanwhile: use that one (this stream is dropped).
            return Ok(feed.subscribe());
        }
        let (feed, receiver) = tokio::sync::broadcast::channel(FEED_BUFFER);
        feeds.insert(game.id, feed.clone());
        drop(feeds);
        let all = std::sync::Arc::clone(&self.feeds);
        let (id, kind) = (game.id, game.kind.clone());
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    event = stream.next() => event,
                    // Nobody watches any more: stop following the game.
                    () = tokio::time::sleep(Duration::from_secs(30)) => {
                        if feed.receiver_count() == 0 { break; }
                        continue;
                    }
                };
                let Some(Ok(event)) = event else { break };
                if let Some(update) = update(id, &kind, event) {
                    let _ = feed.send(update.to_string().into());
                }
                if feed.receiver_count() == 0 {
                    break;
                }
            }
            all.forget(id, &feed);
        });
        Ok(receiver)
    }
}

pub(crate) async fn game_events(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_game_id();
    };
    let game = match api.game(id).await {
        Ok(game) => game,
        Err(status) => return api_error(&status),
    };
    let receiver = match api.subscribe(&game).await {
        Ok(receiver) => receiver,
        Err(status) => return api_error(&status),
    };
    let events = tokio_stream::wrappers::BroadcastStream::new(receiver).map(|update| {
        Ok::<_, Infallible>(match update {
            Ok(update) => Event::default().event("update").data(&*update),
            // Fell behind: the page reloads to catch up.
            Err(_) => Event::default().event("reload").data("behind"),
        })
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

impl Api {
    /// Change notices of tournament `id` (as just read: `seen`), starting its poller if no page
    /// watches it yet.
    fn watch_tournament(
        &self,
        scheduler: Scheduler,
        seen: spb::Tournament,
    ) -> tokio::sync::broadcast::Receiver<()> {
        let id = seen.id;
        let mut feeds = self.tournaments.lock();
        if let Some(feed) = feeds.get(&id) {
            return feed.subscribe();
        }
        let (feed, receiver) = tokio::sync::broadcast::channel(4);
        feeds.insert(id, feed.clone());
        drop(feeds);
        let all = std::sync::Arc::clone(&self.tournaments);
        tokio::spawn(follow_tournament(scheduler, seen, feed, all));
        receiver
    }
}

/// The poller behind [`Api::watch_tournament`]: asks for the tournament every
/// [`TOURNAMENT_POLL`] while anyone watches and it can still change.
async fn follow_tournament(
    mut scheduler: Scheduler,
    mut seen: spb::Tournament,
    feed: tokio::sync::broadcast::Sender<()>,
    all: std::sync::Arc<TournamentFeeds>,
) {
    let id = seen.id;
    while feed.receiver_count() > 0 && is_live(&seen) {
        tokio::time::sleep(TOURNAMENT_POLL).await;
        let Ok(now) = tournament_of(&mut scheduler, id).await else {
            continue; // The scheduler is away for a moment: ask again later.
        };
        if now != seen {
            seen = now;
            let _ = feed.send(());
        }
    }
    all.forget(id, &feed);
}

/// `/tournaments/{id}/events`: server-sent `changed` events whenever the tournament changes.
pub(crate) async fn tournament_events(State(api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let Some(mut scheduler) = api.scheduler.clone() else {
        return unavailable(crate::html::Missing::Tournaments);
    };
    let tournament = match tournament_of(&mut scheduler, id).await {
        Ok(t) => t,
        Err(status) => return api_error(&status),
    };
    let receiver = api.watch_tournament(scheduler, tournament);
    // A page that fell behind has missed only "changed" notices: one more says the same. (An
    // event with empty data is never dispatched by a browser: hence the data.)
    let events = tokio_stream::wrappers::BroadcastStream::new(receiver)
        .map(|_| Ok::<_, Infallible>(Event::default().event("changed").data("changed")));
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
