//! Starting a tournament from a TRF file another program wrote: uploaded, its players found by
//! name (or registered), checked by the scheduler as `swiss check --strict` checks it, and its
//! problems listed in the page when it is refused.

use axum::extract::{Multipart, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::scheduler::v1 as spb;
use maud::html;

use super::{act_once, guard, layout, outcome, said, said_at};
use crate::api::{Api, UserApi};
use crate::i18n::tr;
use crate::session;

/// The largest file taken (the scheduler reads at most 200,000 bytes).
const MAX_FILE: usize = 200_000;

/// `GET /console/import`.
pub(crate) async fn import_page(
    State(api): State<Api>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(visitor) = session::visitor(&api, &headers).await else {
        return session::see_other("/sign-in");
    };
    let done = outcome(&api, query.as_deref(), &visitor);
    let body = html! {
        h1 id="import" { (tr!("import-title")) }
        (said_at(done.as_ref(), "import"))
        p { (tr!("import-intro")) " " code { "hanniball swiss check --strict" } ". " (tr!("import-intro-after")) }
        form.stack method="post" action="/console/import" enctype="multipart/form-data" {
            (guard(&visitor))
            label { (tr!("import-file")) " " input type="file" name="trf" accept=".trf,.txt,text/plain" required; }
            label { (tr!("import-name")) " " input type="text" name="name" maxlength="160"; }
            label { (tr!("import-rounds")) " " input type="number" name="rounds" min="1" max="99"; }
            fieldset {
                legend { (tr!("create-where")) }
                label { input type="radio" name="where" value="board" checked; " " (tr!("import-board")) }
                label { input type="radio" name="where" value="online"; " " (tr!("import-online")) }
            }
            label { input type="checkbox" name="rated"; " " (tr!("create-rated")) }
            label { input type="checkbox" name="manual" checked; " " (tr!("import-manual")) }
            label { input type="checkbox" name="accept"; " " (tr!("import-accept")) }
            button.big type="submit" { (tr!("import-button")) }
        }
    };
    layout(&tr!("import-title"), &visitor, None, body)
}

/// The fields of the upload form.
#[derive(Default)]
struct Upload {
    csrf: Option<String>,
    once: String,
    file: Vec<u8>,
    name: String,
    rounds: String,
    online: bool,
    rated: bool,
    manual: bool,
    accept: bool,
}

async fn upload(mut multipart: Multipart) -> Result<Upload, String> {
    let mut form = Upload::default();
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| format!("the upload was cut short or malformed: {e}"))?
    {
        let name = field.name().unwrap_or_default().to_owned();
        let bytes = field
            .bytes()
            .await
            .map_err(|e| format!("the upload was cut short: {e}"))?;
        if name == "trf" {
            if bytes.len() > MAX_FILE {
                return Err(format!(
                    "the file is {} bytes; at most {MAX_FILE} are read",
                    bytes.len()
                ));
            }
            form.file = bytes.to_vec();
            continue;
        }
        let text = String::from_utf8_lossy(&bytes).trim().to_owned();
        match name.as_str() {
            "csrf" => form.csrf = Some(text),
            "once" => form.once = text,
            "name" => form.name = text,
            "rounds" => form.rounds = text,
            "where" => form.online = text == "online",
            "rated" => form.rated = true,
            "manual" => form.manual = true,
            "accept" => form.accept = true,
            _ => {}
        }
    }
    Ok(form)
}

/// `POST /console/import`.
pub(crate) async fn import(
    State(api): State<Api>,
    headers: HeaderMap,
    multipart: Multipart,
) -> Response {
    let form = match upload(multipart).await {
        Ok(form) => form,
        Err(problem) => {
            return crate::html::error_page(axum::http::StatusCode::BAD_REQUEST, &problem);
        }
    };
    let csrf = form.csrf.clone();
    let once = form.once.clone();
    act_once(
        &api,
        &headers,
        csrf.as_deref(),
        &once,
        "/console/import#import",
        |_visitor, user| start(user, form),
    )
    .await
}

async fn start(user: UserApi, form: Upload) -> Result<(String, Option<String>), String> {
    if form.file.is_empty() {
        return Err(tr!("import-no-file"));
    }
    let (text, _) = hanniball_pairing::trf::decode(&form.file, None)
        .map_err(|e| tr!("import-unreadable", reason = e.to_string()))?;
    let read = hanniball_pairing::trf::read(
        text.as_bytes(),
        &hanniball_pairing::trf::ReadOptions::default(),
    )
    .map_err(|e| tr!("import-unreadable", reason = e.to_string()))?;
    let rounds = if form.rounds.is_empty() {
        0
    } else {
        form.rounds.parse().map_err(|_| {
            tr!(
                "field-not-number",
                field = tr!("field-rounds"),
                text = form.rounds.as_str()
            )
        })?
    };
    let mut accounts = user.accounts.clone();
    let mut ids = Vec::with_capacity(read.tournament.players.len());
    let mut registered = 0;
    for p in &read.tournament.players {
        let name = p.name.trim().to_owned();
        let found = accounts
            .get_player(apb::GetPlayerRequest {
                player: Some(apb::get_player_request::Player::Name(name.clone())),
            })
            .await;
        let id = match found {
            Ok(answer) => answer.into_inner().player.map_or(0, |p| p.id),
            Err(status) if status.code() == tonic::Code::NotFound => {
                registered += 1;
                accounts
                    .register_player(apb::RegisterPlayerRequest {
                        name: name.clone(),
                        kind: apb::PlayerKind::Human.into(),
                        issue_token: false,
                    })
                    .await
                    .map_err(|s| {
                        tr!(
                            "import-register-failed",
                            rank = p.id.to_string(),
                            name = name.as_str(),
                            reason = said(&s)
                        )
                    })?
                    .into_inner()
                    .player
                    .map_or(0, |p| p.id)
            }
            Err(status) => return Err(said(&status)),
        };
        ids.push(id);
    }
    let Some(mut scheduler) = user.scheduler else {
        return Err(tr!("no-scheduler"));
    };
    let settings = spb::TournamentSettings {
        name: form.name,
        rounds,
        rated: form.rated,
        over_the_board: !form.online,
        manual_pairing: form.manual,
        system: spb::PairingSystem::SwissDutch.into(),
        ..Default::default()
    };
    let t = scheduler
        .import_tournament(spb::ImportTournamentRequest {
            settings: Some(settings),
            trf: text,
            player_ids: ids,
            accept_differences: form.accept,
        })
        .await
        .map_err(|s| format!("{}\n{}", tr!("import-refused"), said(&s)))?
        .into_inner()
        .tournament
        .unwrap_or_default();
    let played = t.current_round;
    Ok((
        tr!(
            "imported",
            players = t.entrants.len(),
            played = played,
            rounds = t.rounds,
            registered = registered
        ),
        Some(format!("/console/tournaments/{}", t.id)),
    ))
}
