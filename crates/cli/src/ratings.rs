//! `hanniball ratings`: leaderboards, a player's rating and history, and the admin's adjustments
//! and rebuilds, as aligned tables for people or as JSON (`--json`) for scripts.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use hanniball_client::Bearer;
use hanniball_proto::rating::v1 as pb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::client::{Connection, channel, rpc};

/// Options of every `ratings` command.
#[derive(Debug, Args)]
pub struct RatingsArgs {
    /// The ladder (`hanniball`, `paper-football`, or e.g. `hanniball/blitz` when ladders are
    /// split by time control); default: hanniball.
    #[arg(long, default_value = "", global = true)]
    ladder: String,
    /// Print JSON (one document) instead of a table.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
pub enum RatingsCommand {
    /// The leaderboard: the highest rated players first.
    Top {
        /// How many players.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Only players with at least this many rated games.
        #[arg(long, default_value_t = 0)]
        min_games: u32,
        /// Only players who played in the last N days.
        #[arg(long)]
        active_days: Option<u32>,
    },
    /// A player's rating (by name, or by id when all digits).
    Show { player: String },
    /// A player's rating history, newest first.
    History {
        player: String,
        /// How many points.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Set a player's rating (admin), with a reason for the audit.
    Adjust {
        player: String,
        rating: f64,
        #[arg(long)]
        reason: String,
        /// Who is acting, for the audit.
        #[arg(long, default_value = "")]
        operator: String,
    },
    /// The adjustments made so far (admin), newest first.
    Adjustments {
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Recompute every rating from the stored history (admin).
    Rebuild,
    /// The ladders and their rating systems.
    Ladders,
}

fn player_ref(text: &str) -> Option<pb::PlayerRef> {
    let player = match text.parse::<i64>() {
        Ok(id) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            pb::player_ref::Player::Id(id)
        }
        _ => pb::player_ref::Player::Name(text.to_owned()),
    };
    Some(pb::PlayerRef {
        player: Some(player),
    })
}

/// A JSON string literal.
fn js(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number (JSON has no NaN or infinity).
fn jn(value: f64) -> String {
    if value.is_finite() {
        value.to_string()
    } else {
        "null".to_owned()
    }
}

fn jo(value: Option<f64>) -> String {
    value.map_or_else(|| "null".to_owned(), jn)
}

/// A rating for people: whole for Elo, one decimal for Glicko-2.
fn shown(rating: f64) -> String {
    if rating.fract() == 0.0 {
        format!("{rating:.0}")
    } else {
        format!("{rating:.1}")
    }
}

fn deviation(value: Option<f64>) -> String {
    value.map_or_else(String::new, |d| format!("±{d:.0}"))
}

/// Unix ms as `YYYY-MM-DD HH:MM` (UTC).
fn when(ms: i64) -> String {
    if ms == 0 {
        return "-".to_owned();
    }
    let seconds = ms.div_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        of_day / 3600,
        (of_day % 3600) / 60
    )
}

fn score(value: i32) -> &'static str {
    match pb::Score::try_from(value) {
        Ok(pb::Score::Win) => "win",
        Ok(pb::Score::Draw) => "draw",
        Ok(pb::Score::Loss) => "loss",
        _ => "-",
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

type Client = RatingClient<InterceptedService<Channel, Bearer>>;

pub async fn run(connection: Connection, args: RatingsArgs, command: RatingsCommand) -> Result<()> {
    let (channel, bearer) = channel(&connection).await?;
    let mut client = RatingClient::with_interceptor(channel, bearer);
    let ladder = args.ladder.clone();
    let json = args.json;
    match command {
        RatingsCommand::Top {
            limit,
            min_games,
            active_days,
        } => {
            let active_since_ms = active_days.map_or(0, |days| {
                now_ms().saturating_sub(i64::from(days) * 86_400_000)
            });
            let entries =
                leaderboard(&mut client, ladder, limit, min_games, active_since_ms).await?;
            print_leaderboard(&entries, json);
        }
        RatingsCommand::Show { player } => {
            let r = client
                .get_rating(pb::GetRatingRequest {
                    player: player_ref(&player),
                    ladder,
                })
                .await
                .map_err(rpc)?
                .into_inner()
                .rating
                .context("no rating in the answer")?;
            print_rating(&r, json);
        }
        RatingsCommand::History { player, limit } => {
            let points = history(&mut client, &player, ladder, limit).await?;
            print_history(&points, json);
        }
        RatingsCommand::Adjust {
            player,
            rating,
            reason,
            operator,
        } => {
            let a = client
                .adjust_rating(pb::AdjustRatingRequest {
                    player: player_ref(&player),
                    ladder,
                    rating,
                    reason,
                    operator,
                })
                .await
                .map_err(rpc)?
                .into_inner()
                .adjustment
                .context("no adjustment in the answer")?;
            print_adjustments(std::slice::from_ref(&a), json);
        }
        RatingsCommand::Adjustments { limit } => {
            let list = client
                .list_adjustments(pb::ListAdjustmentsRequest {
                    ladder,
                    player: None,
                    page_size: limit.min(500),
                    page_token: String::new(),
                })
                .await
                .map_err(rpc)?
                .into_inner()
                .adjustments;
            print_adjustments(&list, json);
        }
        RatingsCommand::Rebuild => {
            let r = client
                .rebuild(pb::RebuildRequest {})
                .await
                .map_err(rpc)?
                .into_inner();
            print_rebuild(&r, json);
        }
        RatingsCommand::Ladders => {
            let answer = client
                .list_ladders(pb::ListLaddersRequest {})
                .await
                .map_err(rpc)?
                .into_inner();
            print_ladders(&answer.ladders, json);
        }
    }
    Ok(())
}

/// The first `limit` entries of `ladder`'s leaderboard, page by page.
async fn leaderboard(
    client: &mut Client,
    ladder: String,
    limit: u32,
    min_games: u32,
    active_since_ms: i64,
) -> Result<Vec<pb::LeaderboardEntry>> {
    let mut entries = Vec::new();
    let mut page_token = String::new();
    while entries.len() < limit as usize {
        let page = client
            .leaderboard(pb::LeaderboardRequest {
                ladder: ladder.clone(),
                page_size: (limit - entries.len() as u32).min(500),
                page_token,
                min_games,
                active_since_ms,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        entries.extend(page.entries);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    Ok(entries)
}

fn print_leaderboard(entries: &[pb::LeaderboardEntry], json: bool) {
    if json {
        let rows: Vec<String> = entries
            .iter()
            .map(|e| {
                format!(
                    "{{\"rank\":{},\"player_id\":{},\"name\":{},\"rating\":{},\"deviation\":{},\"games\":{},\"provisional\":{}}}",
                    e.rank,
                    e.player_id,
                    js(&e.name),
                    jn(e.rating),
                    jo(e.deviation),
                    e.games,
                    e.provisional
                )
            })
            .collect();
        println!("[{}]", rows.join(","));
    } else {
        let width = entries
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        println!(
            "{:>5}  {:<width$}  {:>7}  {:>5}  {:>6}",
            "rank", "name", "rating", "±", "games"
        );
        for e in entries {
            println!(
                "{:>5}  {:<width$}  {:>7}  {:>5}  {:>6}{}",
                e.rank,
                e.name,
                shown(e.rating),
                deviation(e.deviation),
                e.games,
                if e.provisional { "  provisional" } else { "" }
            );
        }
    }
}

fn print_rating(r: &pb::PlayerRating, json: bool) {
    if json {
        println!(
            "{{\"player_id\":{},\"name\":{},\"ladder\":{},\"rating\":{},\"deviation\":{},\"volatility\":{},\"provisional\":{},\"games\":{},\"wins\":{},\"draws\":{},\"losses\":{},\"peak\":{},\"rank\":{},\"last_played_ms\":{}}}",
            r.player_id,
            js(&r.name),
            js(&r.ladder),
            jn(r.rating),
            jo(r.deviation),
            jo(r.volatility),
            r.provisional,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            jn(r.peak),
            r.rank,
            r.last_played_ms
        );
    } else {
        let rank = if r.rank == 0 {
            "unranked".to_owned()
        } else {
            format!("rank {}", r.rank)
        };
        println!("{} (id {}) on {}", r.name, r.player_id, r.ladder);
        println!(
            "  rating  {} {}{}",
            shown(r.rating),
            deviation(r.deviation),
            if r.provisional { " (provisional)" } else { "" }
        );
        if let Some(v) = r.volatility {
            println!("  volatility {v:.5}");
        }
        println!("  {rank} · peak {}", shown(r.peak));
        println!(
            "  games {} (+{} ={} -{}) · last played {}",
            r.games,
            r.wins,
            r.draws,
            r.losses,
            when(r.last_played_ms)
        );
    }
}

/// The newest `limit` points of `player`'s history on `ladder`, page by page.
async fn history(
    client: &mut Client,
    player: &str,
    ladder: String,
    limit: u32,
) -> Result<Vec<pb::HistoryPoint>> {
    let mut points = Vec::new();
    let mut page_token = String::new();
    while points.len() < limit as usize {
        let page = client
            .history(pb::HistoryRequest {
                player: player_ref(player),
                ladder: ladder.clone(),
                page_size: (limit - points.len() as u32).min(500),
                page_token,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        points.extend(page.points);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    Ok(points)
}

fn print_history(points: &[pb::HistoryPoint], json: bool) {
    if json {
        let rows: Vec<String> = points
            .iter()
            .map(|p| {
                format!(
                    "{{\"sequence\":{},\"kind\":{},\"game_id\":{},\"opponent_id\":{},\"opponent_name\":{},\"score\":{},\"opponent_rating_before\":{},\"rating_before\":{},\"rating_after\":{},\"at_ms\":{},\"reason\":{}}}",
                    p.sequence,
                    js(kind_name(p.kind)),
                    p.game_id,
                    p.opponent_id,
                    js(&p.opponent_name),
                    js(score(p.score)),
                    jn(p.opponent_rating_before),
                    jn(p.rating_before),
                    jn(p.rating_after),
                    p.at_ms,
                    js(&p.reason)
                )
            })
            .collect();
        println!("[{}]", rows.join(","));
    } else {
        let width = points
            .iter()
            .map(|p| p.opponent_name.len())
            .max()
            .unwrap_or(8)
            .max(8);
        println!(
            "{:<16}  {:>7}  {:<width$}  {:>7}  {:<5}  {:>7} → {:<7} {:>6}",
            "when", "game", "opponent", "its rtg", "score", "before", "after", "change"
        );
        for p in points {
            let change = p.rating_after - p.rating_before;
            if p.kind == pb::PointKind::Adjustment as i32 {
                println!(
                    "{:<16}  {:>7}  {:<width$}  {:>7}  {:<5}  {:>7} → {:<7} {:>+6}  {}",
                    when(p.at_ms),
                    "-",
                    "(adjusted)",
                    "",
                    "",
                    shown(p.rating_before),
                    shown(p.rating_after),
                    shown(change),
                    p.reason
                );
            } else {
                let corrected = if p.kind == pb::PointKind::Correction as i32 {
                    "  (result corrected: the old result taken back, this one rated)"
                } else {
                    ""
                };
                println!(
                    "{:<16}  {:>7}  {:<width$}  {:>7}  {:<5}  {:>7} → {:<7} {:>+6}{corrected}",
                    when(p.at_ms),
                    p.game_id,
                    p.opponent_name,
                    shown(p.opponent_rating_before),
                    score(p.score),
                    shown(p.rating_before),
                    shown(p.rating_after),
                    shown(change)
                );
            }
        }
    }
}

/// A history point's kind as scripts read it.
fn kind_name(kind: i32) -> &'static str {
    match pb::PointKind::try_from(kind) {
        Ok(pb::PointKind::Adjustment) => "adjustment",
        Ok(pb::PointKind::Correction) => "correction",
        _ => "game",
    }
}

fn print_rebuild(r: &pb::RebuildResponse, json: bool) {
    if json {
        println!(
            "{{\"events\":{},\"games\":{},\"adjustments\":{},\"ratings\":{},\"changed_points\":{},\"changed_ratings\":{},\"matched\":{},\"duration_ms\":{}}}",
            r.events,
            r.games,
            r.adjustments,
            r.ratings,
            r.changed_points,
            r.changed_ratings,
            r.matched,
            r.duration_ms
        );
    } else {
        println!(
            "replayed {} events ({} games, {} adjustments) into {} ratings in {:.2} s",
            r.events,
            r.games,
            r.adjustments,
            r.ratings,
            r.duration_ms as f64 / 1000.0
        );
        if r.matched {
            println!("the stored ratings matched the replay exactly");
        } else {
            println!(
                "rewrote {} ratings and {} history points that differed from the replay",
                r.changed_ratings, r.changed_points
            );
        }
    }
}

fn print_ladders(ladders: &[pb::Ladder], json: bool) {
    if json {
        let rows: Vec<String> = ladders
            .iter()
            .map(|l| {
                format!(
                    "{{\"name\":{},\"system\":{},\"initial_rating\":{},\"parameters\":{}}}",
                    js(&l.name),
                    js(&l.system),
                    jn(l.initial_rating),
                    js(&l.parameters)
                )
            })
            .collect();
        println!("[{}]", rows.join(","));
    } else {
        let width = ladders.iter().map(|l| l.name.len()).max().unwrap_or(6);
        for l in ladders {
            println!("{:<width$}  {:<7}  {}", l.name, l.system, l.parameters);
        }
    }
}

fn print_adjustments(list: &[pb::Adjustment], json: bool) {
    if json {
        let rows: Vec<String> = list
            .iter()
            .map(|a| {
                format!(
                    "{{\"sequence\":{},\"ladder\":{},\"player_id\":{},\"player_name\":{},\"rating_before\":{},\"rating_after\":{},\"reason\":{},\"by\":{},\"at_ms\":{}}}",
                    a.sequence,
                    js(&a.ladder),
                    a.player_id,
                    js(&a.player_name),
                    jn(a.rating_before),
                    jn(a.rating_after),
                    js(&a.reason),
                    js(&a.by),
                    a.at_ms
                )
            })
            .collect();
        println!("[{}]", rows.join(","));
        return;
    }
    let width = list
        .iter()
        .map(|a| a.player_name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "{:<16}  {:<16}  {:<width$}  {:>7} → {:<7} {:<16} reason",
        "when", "ladder", "player", "before", "after", "by"
    );
    for a in list {
        println!(
            "{:<16}  {:<16}  {:<width$}  {:>7} → {:<7} {:<16} {}",
            when(a.at_ms),
            a.ladder,
            a.player_name,
            shown(a.rating_before),
            shown(a.rating_after),
            a.by,
            a.reason
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(when(0), "-");
        assert_eq!(when(1_700_000_000_000), "2023-11-14 22:13");
        assert_eq!(when(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(js("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(jn(f64::NAN), "null");
        assert_eq!(shown(1520.0), "1520");
        assert_eq!(shown(1464.0506), "1464.1");
        assert!(matches!(
            player_ref("42").and_then(|p| p.player),
            Some(pb::player_ref::Player::Id(42))
        ));
        assert!(matches!(
            player_ref("alice").and_then(|p| p.player),
            Some(pb::player_ref::Player::Name(n)) if n == "alice"
        ));
    }
}
