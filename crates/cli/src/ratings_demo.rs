//! The demo's view of the rating service: ratings before and after, as a table.

use std::collections::BTreeMap;
use std::time::Duration;

use hanniball_client::Bearer;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use tonic::transport::Channel;

/// (rating, games) per player.
pub type Snapshot = BTreeMap<i64, (f64, u32)>;

/// The players' ratings on the hanniball ladder now (empty if the rating service does not answer).
pub async fn snapshot(
    channel: &Channel,
    token: &Bearer,
    players: impl Iterator<Item = i64>,
) -> Snapshot {
    let mut client = RatingClient::with_interceptor(channel.clone(), token.clone());
    let request = rpb::GetRatingsRequest {
        ladder: "hanniball".to_owned(),
        player_ids: players.collect(),
    };
    match client.get_ratings(request).await {
        Ok(answer) => answer
            .into_inner()
            .ratings
            .into_iter()
            .map(|r| (r.player_id, (r.rating, r.games)))
            .collect(),
        Err(status) => {
            tracing::warn!(message = status.message(), "ratings unavailable");
            Snapshot::new()
        }
    }
}

/// Waits (at most 10 s) until the rating service has counted `games` more games in all.
pub async fn settled(
    channel: &Channel,
    token: &Bearer,
    players: impl Iterator<Item = i64> + Clone,
    before: &Snapshot,
    games: u32,
) -> Snapshot {
    let counted = |s: &Snapshot| s.values().map(|(_, g)| g).sum::<u32>();
    let target = counted(before) + 2 * games;
    let mut now = snapshot(channel, token, players.clone()).await;
    for _ in 0..100 {
        if counted(&now) >= target {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        now = snapshot(channel, token, players.clone()).await;
    }
    now
}

/// A table of rating changes, highest new rating first.
pub fn table(names: &BTreeMap<i64, String>, before: &Snapshot, after: &Snapshot) -> String {
    let mut rows: Vec<(i64, f64, f64, u32)> = after
        .iter()
        .map(|(id, (rating, games))| {
            let old = before.get(id).map_or(*rating, |(r, _)| *r);
            (*id, old, *rating, *games)
        })
        .collect();
    rows.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    let mut table = vec![vec![
        "player".to_owned(),
        "before".to_owned(),
        "after".to_owned(),
        "change".to_owned(),
        "games".to_owned(),
    ]];
    for (id, old, new, games) in rows {
        table.push(vec![
            names.get(&id).cloned().unwrap_or_else(|| id.to_string()),
            format!("{old:.0}"),
            format!("{new:.0}"),
            format!("{:+.0}", new - old),
            games.to_string(),
        ]);
    }
    crate::table::render(&table)
}
