//! End to end: a tournament's details over gRPC, on SQLite and (when configured) PostgreSQL:
//! given at creation, replaced by `SetTournamentDetails` (the same again changes nothing),
//! every bad field refused by name with nothing changed, and written to the TRF header.

use hanniball_e2e::{ADMIN_TOKEN, Bearer, databases};
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::refusal;

type Sched = SchedulerClient<InterceptedService<Channel, Bearer>>;

async fn count(s: &mut Sched) -> usize {
    s.list_tournaments(spb::ListTournamentsRequest::default())
        .await
        .expect("list")
        .into_inner()
        .tournaments
        .len()
}

/// Tournament `id`'s details as `GetTournament` sends them.
async fn stored(s: &mut Sched, id: i64) -> Option<spb::TournamentDetails> {
    s.get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await
        .expect("get")
        .into_inner()
        .tournament
        .and_then(|t| t.settings)
        .and_then(|s| s.details)
}

fn details() -> spb::TournamentDetails {
    spb::TournamentDetails {
        place: "Lyon".to_owned(),
        federation: "FRA".to_owned(),
        start_date: "2026-03-01".to_owned(),
        end_date: "2026-03-02".to_owned(),
        organiser: "Club <Échecs>".to_owned(),
        chief_arbiter: "Ivanova, Anna".to_owned(),
        deputy_arbiters: vec!["Dupont, Jean".to_owned()],
        time_control: "90'+30''".to_owned(),
        rating_type: "FIDE Elo".to_owned(),
        rules: "FIDE Laws; C.04.3 Dutch".to_owned(),
        round_dates: vec!["2026-03-01".to_owned(), "2026-03-02".to_owned()],
        note: String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn details_are_set_once_refused_by_field_and_exported() {
    for db in databases().await {
        let (url, shutdown) = hanniball_e2e::all_services(&db).await;
        let channel = Channel::from_shared(url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect");
        let mut s = SchedulerClient::with_interceptor(channel, Bearer::new(ADMIN_TOKEN));
        let settings = |details: spb::TournamentDetails| spb::TournamentSettings {
            name: "Spring".to_owned(),
            rounds: 2,
            details: Some(details),
            ..Default::default()
        };
        // Created with details; bad ones create nothing.
        let bad = spb::TournamentDetails {
            end_date: "2026-02-28".to_owned(),
            ..details()
        };
        let (code, message) = refusal(
            s.create_tournament(spb::CreateTournamentRequest {
                settings: Some(settings(bad)),
            })
            .await,
        );
        assert_eq!(code, Code::InvalidArgument, "{db}");
        assert!(message.contains("details.end_date"), "{message}");
        assert_eq!(count(&mut s).await, 0, "{db}: nothing created");
        let t = s
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(settings(details())),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament");
        assert_eq!(t.settings.and_then(|s| s.details), Some(details()), "{db}");
        let id = t.id;
        assert_eq!(stored(&mut s, id).await, Some(details()), "{db}");

        // Replaced; the same again changes nothing.
        let set = |details: spb::TournamentDetails| spb::SetTournamentDetailsRequest {
            tournament_id: id,
            details: Some(details),
        };
        let newer = spb::TournamentDetails {
            place: " Saint-Étienne ".to_owned(),
            note: "Rest day".to_owned(),
            ..details()
        };
        let answer = s
            .set_tournament_details(set(newer.clone()))
            .await
            .expect("set");
        let answer = answer.into_inner();
        assert!(answer.changed, "{db}");
        assert_eq!(answer.details.expect("details").place, "Saint-Étienne");
        let now = stored(&mut s, id).await.expect("details");
        assert_eq!(now.place, "Saint-Étienne", "{db}");
        assert_eq!(now.note, "Rest day", "{db}");
        let again = s
            .set_tournament_details(set(newer.clone()))
            .await
            .expect("again");
        assert!(
            !again.into_inner().changed,
            "{db}: the same details change nothing"
        );

        // Every bad field is named; nothing changes.
        type Change = fn(&mut spb::TournamentDetails);
        let cases: [(&str, Change); 6] = [
            ("details.start_date", |d| {
                d.start_date = "2026-02-30".to_owned()
            }),
            ("details.federation", |d| d.federation = "France".to_owned()),
            ("details.place", |d| d.place = "Lyon\n012 Forged".to_owned()),
            ("details.deputy_arbiters", |d| {
                d.deputy_arbiters = vec!["A".to_owned(); 11]
            }),
            ("details.round_dates", |d| {
                d.round_dates = vec!["1 March".to_owned()]
            }),
            ("details.chief_arbiter", |d| {
                d.chief_arbiter = "\u{202E}Anna".to_owned()
            }),
        ];
        for (field, change) in cases {
            let mut sent = newer.clone();
            change(&mut sent);
            let (code, message) = refusal(s.set_tournament_details(set(sent)).await);
            assert_eq!(code, Code::InvalidArgument, "{db}: {field}");
            assert!(message.contains(field), "{field}: {message}");
            assert_eq!(stored(&mut s, id).await, Some(now.clone()), "{db}: {field}");
        }
        let (code, _) = refusal(
            s.set_tournament_details(spb::SetTournamentDetailsRequest {
                tournament_id: 999_999,
                details: Some(details()),
            })
            .await,
        );
        assert_eq!(code, Code::NotFound, "{db}");

        // The TRF header carries them.
        let trf = s
            .export_trf(spb::ExportTrfRequest { tournament_id: id })
            .await
            .expect("export")
            .into_inner()
            .trf;
        for line in [
            "022 Saint-Étienne",
            "032 FRA",
            "042 2026/03/01",
            "052 2026/03/02",
            "062 0",
            "102 Ivanova, Anna",
            "112 Dupont, Jean",
            "122 90'+30''",
        ] {
            assert!(trf.lines().any(|l| l == line), "{line:?} in {trf}");
        }
        let dates = format!("{:<91}26/03/01  26/03/02", "132");
        assert!(trf.lines().any(|l| l == dates), "{trf}");
        shutdown.cancel();
    }
}
