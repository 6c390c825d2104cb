//! The organiser's commands that read or change one tournament's settings: show, details,
//! forbid, delete, organisers.

use super::*;

/// `tournament details`: each flag given replaces its field (an empty value clears it).
#[derive(Debug, clap::Args)]
pub struct DetailsArgs {
    pub id: i64,
    /// City or place (TRF 022).
    #[arg(long)]
    pub place: Option<String>,
    /// Three letters (TRF 032: FRA, GER).
    #[arg(long)]
    pub federation: Option<String>,
    /// First day, yyyy-mm-dd (TRF 042).
    #[arg(long)]
    pub start: Option<String>,
    /// Last day, yyyy-mm-dd (TRF 052).
    #[arg(long)]
    pub end: Option<String>,
    /// Who organises it (a club).
    #[arg(long)]
    pub organiser: Option<String>,
    /// TRF 102.
    #[arg(long)]
    pub chief_arbiter: Option<String>,
    /// Deputy arbiters separated by `;` (TRF 112, one line each).
    #[arg(long)]
    pub deputies: Option<String>,
    /// As TRF 122 writes it ("90'+30''"); empty: from the time control.
    #[arg(long)]
    pub time_control: Option<String>,
    /// "FIDE Elo", "club", ...
    #[arg(long)]
    pub rating_type: Option<String>,
    /// "FIDE Laws; C.04.3 Dutch", ...
    #[arg(long)]
    pub rules: Option<String>,
    /// Round dates yyyy-mm-dd separated by `;`, round 1 first (TRF 132; an empty one: not said).
    #[arg(long)]
    pub round_dates: Option<String>,
    #[arg(long)]
    pub note: Option<String>,
}

/// A list flag's items: `;`-separated, trimmed (empty: none).
fn items(text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    text.split(';').map(|s| s.trim().to_owned()).collect()
}

/// The details as `tournament show` prints them, a line each given field (nothing when none).
pub(super) fn details_text(details: Option<&spb::TournamentDetails>) -> String {
    let Some(d) = details else {
        return String::new();
    };
    let dates = match (d.start_date.as_str(), d.end_date.as_str()) {
        ("", "") => String::new(),
        (one, "") | ("", one) => one.to_owned(),
        (start, end) => format!("{start} to {end}"),
    };
    let round_dates: Vec<String> = d
        .round_dates
        .iter()
        .enumerate()
        .filter(|(_, date)| !date.is_empty())
        .map(|(i, date)| format!("{} {date}", i + 1))
        .collect();
    let mut out = String::new();
    for (label, value) in [
        ("place", d.place.clone()),
        ("federation", d.federation.clone()),
        ("dates", dates),
        ("organiser", d.organiser.clone()),
        ("chief arbiter", d.chief_arbiter.clone()),
        ("deputy arbiters", d.deputy_arbiters.join("; ")),
        ("time control", d.time_control.clone()),
        ("rating", d.rating_type.clone()),
        ("rules", d.rules.clone()),
        ("round dates", round_dates.join(", ")),
        ("note", d.note.clone()),
    ] {
        if !value.is_empty() {
            out.push_str(&format!("{label}: {value}\n"));
        }
    }
    out
}

impl Calls {
    /// `tournament show`: the tournament, its organisers and its pages.
    pub(super) async fn show(&mut self, id: i64) -> Result<()> {
        let answer = self
            .scheduler
            .get_tournament(spb::GetTournamentRequest { tournament_id: id })
            .await
            .map_err(rpc)?
            .into_inner();
        let t = answer.tournament.context("no tournament in the answer")?;
        let organisers = organisers(&mut self.accounts, &t.organiser_ids).await;
        print!("{}", show(&t, Some(&organisers)));
        if !answer.page_url.is_empty() {
            println!("\npage: {0}\nprint view: {0}/print", answer.page_url);
        }
        Ok(())
    }

    /// `tournament details`: the flags given replace their fields; none: print the details.
    pub(super) async fn details(&mut self, args: DetailsArgs) -> Result<()> {
        let t = get(&mut self.scheduler, args.id).await?;
        let mut d = t.settings.and_then(|s| s.details).unwrap_or_default();
        let before = d.clone();
        for (flag, field) in [
            (args.place, &mut d.place),
            (args.federation, &mut d.federation),
            (args.start, &mut d.start_date),
            (args.end, &mut d.end_date),
            (args.organiser, &mut d.organiser),
            (args.chief_arbiter, &mut d.chief_arbiter),
            (args.time_control, &mut d.time_control),
            (args.rating_type, &mut d.rating_type),
            (args.rules, &mut d.rules),
            (args.note, &mut d.note),
        ] {
            if let Some(value) = flag {
                *field = value;
            }
        }
        if let Some(deputies) = args.deputies {
            d.deputy_arbiters = items(&deputies);
        }
        if let Some(dates) = args.round_dates {
            d.round_dates = items(&dates);
        }
        if d == before {
            let text = details_text(Some(&d));
            if text.is_empty() {
                println!("tournament {} has no details yet", args.id);
            }
            print!("{text}");
            return Ok(());
        }
        let answer = self
            .scheduler
            .set_tournament_details(spb::SetTournamentDetailsRequest {
                tournament_id: args.id,
                details: Some(d),
            })
            .await
            .map_err(rpc)?
            .into_inner();
        print!("{}", details_text(answer.details.as_ref()));
        println!(
            "details of tournament {} {}",
            args.id,
            if answer.changed { "set" } else { "unchanged" }
        );
        Ok(())
    }

    /// `tournament forbid`: two players kept apart from the next round on (or no longer).
    pub(super) async fn forbid(
        &mut self,
        id: i64,
        first: &str,
        second: &str,
        allow: bool,
    ) -> Result<()> {
        let first_player_id = player_id(&mut self.accounts, first).await?;
        let second_player_id = player_id(&mut self.accounts, second).await?;
        let answer = self
            .scheduler
            .set_forbidden_pair(spb::SetForbiddenPairRequest {
                tournament_id: id,
                first_player_id,
                second_player_id,
                forbidden: !allow,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        let what = match (allow, answer.changed) {
            (false, true) => "must not meet from the next round on",
            (false, false) => "were already kept apart",
            (true, true) => "may meet again",
            (true, false) => "were not kept apart",
        };
        println!("{first} and {second} {what} in tournament {id}");
        Ok(())
    }

    /// `tournament delete` (before its start).
    pub(super) async fn delete(&mut self, id: i64) -> Result<()> {
        self.scheduler
            .delete_tournament(spb::DeleteTournamentRequest { tournament_id: id })
            .await
            .map_err(rpc)?;
        println!("tournament {id} deleted");
        Ok(())
    }

    /// `tournament organisers T add|remove NAME`.
    pub(super) async fn organisers(&mut self, id: i64, action: &str, player: &str) -> Result<()> {
        let player_id = player_id(&mut self.accounts, player).await?;
        let ids = if action == "add" {
            let answer = self
                .scheduler
                .add_organiser(spb::AddOrganiserRequest {
                    tournament_id: id,
                    player_id,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            if !answer.added {
                println!("{player} already organises tournament {id}");
            }
            answer.organiser_ids
        } else {
            let answer = self
                .scheduler
                .remove_organiser(spb::RemoveOrganiserRequest {
                    tournament_id: id,
                    player_id,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            if !answer.removed {
                println!("{player} did not organise tournament {id}");
            }
            answer.organiser_ids
        };
        println!(
            "tournament {id} organisers: {}",
            organisers(&mut self.accounts, &ids).await
        );
        Ok(())
    }
}
