//! End to end: players and tournaments found by words of their names through the API, with a
//! read-only token (what the web pages call with), on SQLite and (when configured) PostgreSQL.
//! A search needs a token; an over-long or blank player query is refused.

use hanniball_e2e::{ADMIN_TOKEN, Bearer, databases};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Accounts = AccountsClient<InterceptedService<Channel, Bearer>>;
type Sched = SchedulerClient<InterceptedService<Channel, Bearer>>;

async fn clients(url: &str, bearer: Bearer) -> (Accounts, Sched) {
    let channel = Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    (
        AccountsClient::with_interceptor(channel.clone(), bearer.clone()),
        SchedulerClient::with_interceptor(channel, bearer),
    )
}

async fn search(
    accounts: &mut Accounts,
    query: &str,
    limit: u32,
) -> Result<(Vec<String>, bool), tonic::Status> {
    let answer = accounts
        .search_players(apb::SearchPlayersRequest {
            query: query.to_owned(),
            limit,
        })
        .await?
        .into_inner();
    Ok((
        answer.players.into_iter().map(|p| p.name).collect(),
        answer.more,
    ))
}

async fn tournaments(sched: &mut Sched, name_contains: &str) -> Result<Vec<String>, tonic::Status> {
    Ok(sched
        .list_tournaments(spb::ListTournamentsRequest {
            name_contains: name_contains.to_owned(),
            ..Default::default()
        })
        .await?
        .into_inner()
        .tournaments
        .into_iter()
        .filter_map(|t| t.settings.map(|s| s.name))
        .collect())
}

#[tokio::test]
async fn a_read_token_finds_players_and_tournaments_by_words_of_their_names() {
    for db in databases().await {
        let (url, shutdown) = hanniball_e2e::arbiter_and_scheduler(&db).await;
        let (mut admin, mut organiser) = clients(&url, Bearer::new(ADMIN_TOKEN)).await;
        let mut ids = Vec::new();
        for name in [
            "Zoë Ünal",
            "Müller",
            "Nguyễn Văn An",
            "李明",
            "ünal",
            "Łukasz Straße",
        ] {
            let player = admin
                .register_player(apb::RegisterPlayerRequest {
                    name: name.to_owned(),
                    ..Default::default()
                })
                .await
                .expect(name)
                .into_inner()
                .player
                .expect("player");
            ids.push(player.id);
        }
        for name in ["Riverside Open", "Winter Cup", "Coupe d'Été"] {
            organiser
                .create_tournament(spb::CreateTournamentRequest {
                    settings: Some(spb::TournamentSettings {
                        name: name.to_owned(),
                        rounds: 3,
                        ..Default::default()
                    }),
                })
                .await
                .expect(name);
        }
        let token = admin
            .issue_token(apb::IssueTokenRequest {
                player_id: ids[1],
                scopes: vec!["read".to_owned()],
                expires_in_seconds: 0,
            })
            .await
            .expect("a read token")
            .into_inner()
            .token
            .expect("token")
            .token;
        let (mut reader, mut viewer) = clients(&url, Bearer::new(&token)).await;

        // The exact name first, then by name; any script, any case.
        assert_eq!(
            search(&mut reader, "ÜNAL", 0).await.expect("search"),
            (vec!["ünal".to_owned(), "Zoë Ünal".to_owned()], false),
            "{db}"
        );
        assert_eq!(
            search(&mut reader, "nguyễn an", 0).await.expect("search").0,
            ["Nguyễn Văn An"]
        );
        assert_eq!(
            search(&mut reader, "李", 0).await.expect("search").0,
            ["李明"]
        );
        assert!(
            search(&mut reader, "%", 0)
                .await
                .expect("search")
                .0
                .is_empty()
        );
        assert_eq!(
            search(&mut reader, "ü", 1).await.expect("search"),
            (vec!["Łukasz Straße".to_owned()], true),
            "capped at the limit, saying more match"
        );
        assert_eq!(
            tournaments(&mut viewer, "OPEN river").await.expect("list"),
            ["Riverside Open"]
        );
        assert_eq!(tournaments(&mut viewer, "").await.expect("list").len(), 3);
        // Accents and the folds lower case lacks are ignored both ways.
        for (query, found) in [
            ("zoe", "Zoë Ünal"),
            ("lukasz", "Łukasz Straße"),
            ("STRASSE", "Łukasz Straße"),
            ("straße", "Łukasz Straße"),
            ("nguyen van", "Nguyễn Văn An"),
        ] {
            assert_eq!(
                search(&mut reader, query, 0).await.expect("search").0,
                [found],
                "{db}: {query}"
            );
        }
        assert_eq!(
            tournaments(&mut viewer, "ete").await.expect("list"),
            ["Coupe d'Été"]
        );

        // Refused: a blank or over-long query, a long tournament filter, no token.
        for query in ["  ", &"ü".repeat(101)] {
            let status = search(&mut reader, query, 0).await.expect_err(query);
            assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        }
        let status = tournaments(&mut viewer, &"x".repeat(101))
            .await
            .expect_err("too long");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains("name_contains"), "{status:?}");
        let status = viewer
            .list_tournaments(spb::ListTournamentsRequest {
                player_id: -3,
                ..Default::default()
            })
            .await
            .expect_err("a negative player id");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains("player_id"), "{status:?}");
        let (mut nobody, _) = clients(&url, Bearer::none()).await;
        let status = search(&mut nobody, "ünal", 0).await.expect_err("no token");
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        shutdown.cancel();
    }
}

/// Hostile names and payloads stay in bounds: a tournament name with a line break (it would be
/// lines of its TRF), a direction override or an invisible filler is refused like a player's;
/// player names hiding invisible characters are refused; a name looked up is normalised as it
/// was registered; a list of tournaments does not grow with their fields.
#[tokio::test]
async fn names_and_lists_stay_in_bounds() {
    let db = databases().await.remove(0);
    let (url, shutdown) = hanniball_e2e::arbiter_and_scheduler(&db).await;
    let (mut admin, mut organiser) = clients(&url, Bearer::new(ADMIN_TOKEN)).await;
    let create = |name: &str| spb::CreateTournamentRequest {
        settings: Some(spb::TournamentSettings {
            name: name.to_owned(),
            rounds: 3,
            ..Default::default()
        }),
    };
    for bad in [
        "Evil\n001    1      Injected Player\nXXR 1",
        "Cup \u{202E}gnp.exe",
        "Ad\u{3164}min Open",
        "",
        "   ",
    ] {
        let refused = organiser
            .create_tournament(create(bad))
            .await
            .expect_err("refused");
        assert_eq!(
            refused.code(),
            Code::InvalidArgument,
            "{bad:?}: {refused:?}"
        );
        assert!(refused.message().contains("tournament name"), "{refused:?}");
    }
    for bad in [
        "Ad\u{3164}min",
        "\u{115F}Bob",
        "Bo\u{FFA0}b",
        "Bo\u{2800}b",
        "Bo\u{34F}b",
        "Bob\u{FE0F}",
        "Bo\u{17B4}b",
        "\u{301}",
    ] {
        let refused = admin
            .register_player(apb::RegisterPlayerRequest {
                name: bad.to_owned(),
                ..Default::default()
            })
            .await
            .expect_err("refused");
        assert_eq!(
            refused.code(),
            Code::InvalidArgument,
            "{bad:?}: {refused:?}"
        );
    }
    // Forty 4-byte characters are a legal name; found as typed, decomposed or padded.
    let long = "𝔄".repeat(40);
    for name in ["Zoë", &long] {
        admin
            .register_player(apb::RegisterPlayerRequest {
                name: name.to_owned(),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    for typed in ["Zoe\u{308}", " Zoë ", &long] {
        admin
            .get_player(apb::GetPlayerRequest {
                player: Some(apb::get_player_request::Player::Name(typed.to_owned())),
            })
            .await
            .unwrap_or_else(|e| panic!("{typed:?}: {e:?}"));
    }
    // Lists are summaries: their size does not grow with the entrants.
    let mut ids = Vec::new();
    for i in 0..300 {
        let player = admin
            .register_player(apb::RegisterPlayerRequest {
                name: format!("entrant {i}"),
                ..Default::default()
            })
            .await
            .expect("register")
            .into_inner()
            .player
            .expect("player");
        ids.push(player.id);
    }
    let mut sizes = Vec::new();
    for round in 0..2 {
        let t = organiser
            .create_tournament(create(&format!("Big open {round}")))
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament");
        organiser
            .add_players(spb::AddPlayersRequest {
                tournament_id: t.id,
                players: ids
                    .iter()
                    .map(|id| spb::PlayerEntry {
                        player_id: *id,
                        rating: 0,
                    })
                    .collect(),
            })
            .await
            .expect("add");
        let list = organiser
            .list_tournaments(spb::ListTournamentsRequest {
                name_contains: "big open".to_owned(),
                ..Default::default()
            })
            .await
            .expect("list")
            .into_inner();
        assert!(list.tournaments.iter().all(|t| t.entrants.is_empty()));
        assert!(list.tournaments.iter().all(|t| t.entrant_count == 300));
        // The debug text stands in for the encoding: it grows wherever the encoding grows.
        sizes.push(format!("{list:?}").len() / list.tournaments.len());
    }
    assert!(
        sizes.iter().all(|s| *s < 1_000),
        "bytes per listed tournament: {sizes:?}"
    );
    shutdown.cancel();
}

/// A name that only differs from a registered one by case or spacing looks the same in every
/// list: refused, naming the name it looks like.
#[tokio::test]
async fn look_alike_names_are_refused_with_the_name_they_look_like() {
    let db = databases().await.remove(0);
    let (url, shutdown) = hanniball_e2e::arbiter_and_scheduler(&db).await;
    let (mut admin, _) = clients(&url, Bearer::new(ADMIN_TOKEN)).await;
    let register = |name: &str| apb::RegisterPlayerRequest {
        name: name.to_owned(),
        ..Default::default()
    };
    admin
        .register_player(register("Zoë Ünal"))
        .await
        .expect("the first");
    for alike in ["zoë ünal", "Zoë  Ünal", "ZOË ÜNAL", "Zoe\u{308} Ünal"] {
        let refused = admin
            .register_player(register(alike))
            .await
            .expect_err("looks the same");
        assert_eq!(
            refused.code(),
            Code::AlreadyExists,
            "{alike:?}: {refused:?}"
        );
        assert!(refused.message().contains("Zoë Ünal"), "{refused:?}");
    }
    admin
        .register_player(register("Zoë Ünal-Smith"))
        .await
        .expect("another name");
    shutdown.cancel();
}
