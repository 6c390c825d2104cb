//! The organiser's commands that read or change one tournament's settings: show, forbid,
//! delete, organisers.

use super::*;

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
