//! Web pages for players and spectators, served over HTTP. The web part is a client of the public
//! gRPC API like any bot (it calls the arbiter with a token of its own, read calls only), so it
//! runs in the all-in-one `hanniball serve` or as its own process, and never sees more than the
//! API shows. Pages are plain server-rendered HTML, readable without JavaScript; a game's page
//! updates live through server-sent events (`/games/{id}/events`, from `WatchGame`). No asset
//! comes from another site; pages are maud templates (every value escaped), scripts are files
//! of the site (`/assets/*.js`), so the Content-Security-Policy forbids inline script.
//!
//! Pages: `/` (live and recent games), `/games/{id}` (board, players, clocks, turns, record),
//! `/games/{id}/record` (the game record, docs/RULES.md Part 3), `/games/{id}/events` (SSE),
//! `/tournaments/{id}` (standings after any round, crosstable, pairings), its `/print` sheets,
//! `/statistics` and players' cards (`/players/{player}`), `/players/{id}`, `/ladders/{name}`,
//! `/search?q=`, `/rules`; the organiser's `/sign-in`, `/account` and `/console`.
//!
//! Languages: every page in English, Russian or French (`i18n`: Fluent messages in
//! `locales/{en,ru,fr}/main.ftl`), chosen by the `lang` cookie the header's switch sets, else
//! by `Accept-Language`.
//!
//! What this crate does NOT do: no SQL, no rules of its own (it draws positions with the rules
//! crate's renderer), no process set-up.
//!
//! Code map: `api` (where the API is, its clients, the state every handler shares); `app`
//! (router, serving, ETags); a module per page family (`home`, `game` and `record`,
//! `tournament`, `card`, `statistics`, `player`, `ladder`, `rules`, `search`); `console`
//! (sign-in, account, the organiser's console); `session` (cookies, CSRF, failed sign-ins, forms
//! that act once); `html` (layout, style sheet, error pages); `i18n` (languages, the switch,
//! dates and numbers); `url` (ids in paths, query strings); `assets` (icon, scripts); `live` (the
//! fan-out of watched games, the poller of watched tournaments, their event streams). Imports
//! run one way: `app` on the pages, the pages on the shared modules; nothing on `app`.

mod api;
mod app;
mod assets;
mod card;
mod console;
mod game;
mod home;
mod html;
mod i18n;
mod ladder;
mod live;
mod player;
mod record;
mod rules;
mod search;
mod session;
mod statistics;
mod tournament;
mod url;

pub use api::WebOptions;
pub use app::{router, serve};
pub use record::record;
pub use url::query_encode;
