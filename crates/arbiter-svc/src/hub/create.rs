//! Creating games: one, or a round's batch in one transaction; idempotency keys.

use std::collections::HashMap;
use std::sync::Arc;

use hanniball_arbiter::{GameId, Match, PlayerId, Setup};
use hanniball_proto::arbiter::v1 as pb;

use crate::convert;
use crate::error::{ServiceError, ServiceResult};
use crate::store::{NewGame, StoreError};
use crate::view::GameView;

use super::Hub;

impl Hub {
    /// Creates a game (or returns the one created earlier with the same idempotency key).
    pub async fn create_game(
        self: &Arc<Self>,
        setup: Setup,
        idempotency_key: Option<&str>,
    ) -> ServiceResult<GameView> {
        if let Some(key) = idempotency_key
            && let Some(id) = self.store.game_by_idempotency_key(key).await?
        {
            return self.view(id, true).await;
        }
        for (side, player) in [("white", setup.white), ("black", setup.black)] {
            if self.directory.player(player).await?.is_none() {
                return Err(ServiceError::NotFound {
                    what: "player",
                    id: format!("{player} ({side})"),
                });
            }
        }
        self.create_checked(setup, idempotency_key).await
    }

    /// Games in one call: every setup and player is checked first (a refusal creates none,
    /// naming the request by its index), then the new ones are inserted in one transaction (a
    /// key already used answers with its game, as [`Hub::create_game`]). Views in the order
    /// asked.
    pub async fn create_games(
        self: &Arc<Self>,
        games: Vec<(Setup, Option<String>)>,
    ) -> ServiceResult<Vec<GameView>> {
        let mut players: Vec<PlayerId> = games
            .iter()
            .flat_map(|(setup, _)| [setup.white, setup.black])
            .collect();
        players.sort_unstable();
        players.dedup();
        let known = self.directory.player_names(&players).await?;
        let now = self.clock.now();
        let mut checked: Vec<(Match, Option<String>)> = Vec::with_capacity(games.len());
        for (index, (setup, key)) in games.into_iter().enumerate() {
            for (side, player) in [("white", setup.white), ("black", setup.black)] {
                if !known.contains_key(&player) {
                    return Err(ServiceError::NotFound {
                        what: "player",
                        id: format!("{player} ({side} of games[{index}])"),
                    });
                }
            }
            if setup.white == setup.black {
                return Err(ServiceError::InvalidArgument(format!(
                    "games[{index}]: a player cannot play both sides"
                )));
            }
            let game = Match::new(GameId(0), setup, now).map_err(|error| {
                ServiceError::InvalidArgument(format!("games[{index}]: {error}"))
            })?;
            checked.push((game, key));
        }
        // Games already created under their keys are answered as they are; the others are
        // inserted in one transaction (all or none) and then loaded here.
        // One lookup for the batch's keys (a round's 2,500 games are one query, not 2,500).
        let keys: Vec<&str> = checked
            .iter()
            .filter_map(|(_, key)| key.as_deref())
            .collect();
        let taken = if keys.is_empty() {
            HashMap::new()
        } else {
            self.store.games_by_idempotency_keys(&keys).await?
        };
        let mut views: Vec<Option<GameView>> = Vec::with_capacity(checked.len());
        let mut fresh: Vec<(usize, Match, Option<String>)> = Vec::new();
        for (index, (game, key)) in checked.into_iter().enumerate() {
            let existing = key.as_deref().and_then(|key| taken.get(key).copied());
            match existing {
                Some(id) => views.push(Some(self.view(id, false).await?)),
                None => {
                    views.push(None);
                    fresh.push((index, game, key));
                }
            }
        }
        if !fresh.is_empty() {
            // As in `create_checked`: nobody loads a second copy between the commit and the
            // install.
            let loading = self.loading.lock().await;
            let rows: Vec<NewGame> = fresh
                .iter()
                .map(|(_, game, key)| NewGame::of(game, key.as_deref()))
                .collect();
            match self.store.insert_games(&rows).await {
                Ok(ids) => {
                    for ((index, mut game, _), id) in fresh.into_iter().zip(ids) {
                        game.id = id;
                        if let Some(slot) = views.get_mut(index) {
                            *slot = Some(self.started(game));
                        }
                    }
                }
                // A key taken meanwhile (another creator of the same games: a retry, or the
                // scheduler's reconciliation): nothing was inserted. Each game then as
                // `CreateGame`, which answers a taken key with its game.
                Err(StoreError::Conflict(_)) => {
                    drop(loading);
                    for (index, game, key) in fresh {
                        let view = self.create_checked(game.setup, key.as_deref()).await?;
                        if let Some(slot) = views.get_mut(index) {
                            *slot = Some(view);
                        }
                    }
                }
                Err(error) => return Err(error.into()),
            }
        }
        tracing::info!(games = views.len(), "games created");
        views
            .into_iter()
            .map(|view| view.ok_or(ServiceError::LostRace))
            .collect()
    }

    /// [`Hub::create_game`] once its players are known to exist.
    async fn create_checked(
        self: &Arc<Self>,
        setup: Setup,
        idempotency_key: Option<&str>,
    ) -> ServiceResult<GameView> {
        if setup.white == setup.black {
            return Err(ServiceError::InvalidArgument(
                "a player cannot play both sides".to_owned(),
            ));
        }
        let now = self.clock.now();
        let mut game = Match::new(GameId(0), setup, now)
            .map_err(|error| ServiceError::InvalidArgument(error.to_string()))?;
        // From the commit until its slot is in the map, the game is in the database but not
        // here: hold the loading lock across both, so that nobody (a reader, or this replica
        // hearing its own notification) loads a second copy meanwhile. A second copy would take
        // the map's place while watchers stay on the first, and never hear of the game again.
        let loading = self.loading.lock().await;
        game.id = match self
            .writer
            .create(NewGame::of(&game, idempotency_key))
            .await
        {
            Ok(id) => id,
            // Two creations raced with one key: the other one won; answer with its game.
            Err(StoreError::Conflict(_)) if idempotency_key.is_some() => {
                drop(loading);
                let key = idempotency_key.expect("checked above");
                let id = self
                    .store
                    .game_by_idempotency_key(key)
                    .await?
                    .ok_or(ServiceError::LostRace)?;
                return self.view(id, true).await;
            }
            Err(error) => return Err(error.into()),
        };
        tracing::info!(game_id = %game.id, white = %game.setup.white, black = %game.setup.black, "game created");
        let view = self.started(game);
        drop(loading);
        Ok(view)
    }

    /// A game just stored: its players hear of it, the side to move that it is its turn, and it
    /// is installed here (the caller holds the loading lock).
    fn started(self: &Arc<Self>, game: Match) -> GameView {
        let view = GameView::of(&game, true);
        let started = convert::game(&view);
        for side in [hanniball_rules::Side::White, hanniball_rules::Side::Black] {
            self.tell_player(game.player(side), game.id, || {
                pb::player_event::Event::GameStarted(started.clone())
            });
        }
        self.announce_turn(&game, &view.state);
        self.install(game, 0);
        view
    }
}
