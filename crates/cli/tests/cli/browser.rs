//! The web pages in a real browser: Debian's headless Chromium driven through WebDriver
//! (chromedriver). A game page open while turns are played through gRPC changes its turn list and
//! board without a reload and its clock ticks; a finished game replays step by step with the arrow
//! keys; a tournament page's standings are `hanniball tournament standings`', and a result shows on
//! the open page without a reload. Screenshots of every
//! page go to `target/tmp/browser-screenshots` for a person to look at.
//!
//! Needs `chromedriver` and `chromium` (`apt-get install chromium chromium-driver`; paths from
//! `HANNIBALL_CHROMEDRIVER` and `HANNIBALL_CHROMIUM`, else `/usr/bin`). Without them the test says
//! so and passes, unless `HANNIBALL_REQUIRE_BROWSER=1` (CI sets it), where it fails.

use crate::common::{KillOnDrop, ServedGame, data_dir, free_port, ok_as, read_token, web_only};

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};

fn tool(env: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from);
    path.exists().then_some(path)
}

/// Starts chromedriver and a headless Chromium session, or `None` when they are not installed.
pub(crate) async fn browser(dir: &std::path::Path) -> Option<(KillOnDrop, Client)> {
    let (Some(driver), Some(chromium)) = (
        tool("HANNIBALL_CHROMEDRIVER", "/usr/bin/chromedriver"),
        tool("HANNIBALL_CHROMIUM", "/usr/bin/chromium"),
    ) else {
        assert!(
            std::env::var_os("HANNIBALL_REQUIRE_BROWSER").is_none(),
            "HANNIBALL_REQUIRE_BROWSER is set but chromedriver or chromium is missing"
        );
        eprintln!("skipped: no chromedriver/chromium (apt-get install chromium chromium-driver)");
        return None;
    };
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = KillOnDrop(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver does not listen");
        std::thread::sleep(Duration::from_millis(100));
    }
    let profile = dir.join("chromium-profile");
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        serde_json::json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1100,1000",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    // A busy machine (several browser tests at once) may refuse the first session: try again.
    let mut tries = 0;
    let client = loop {
        let session = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match session {
            Ok(client) => break client,
            Err(error) if tries < 5 => {
                tries += 1;
                eprintln!("no browser session yet ({error}); trying again");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(error) => panic!("a browser session: {error}"),
        }
    };
    Some((driver, client))
}

/// Polls `check` (every 100 ms, at most 15 s).
pub(crate) async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(15);
    while !check().await {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) async fn screenshot(client: &Client, name: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let png = client.screenshot().await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).expect("write screenshot");
    println!("screenshot: {}", path.display());
}

pub(crate) async fn text(client: &Client, css: &str) -> String {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .text()
        .await
        .expect("text")
}

/// The (name, points) rows of the open tournament page's standings, those of
/// `hanniball tournament standings`, and the CLI's output.
pub(crate) async fn standings(
    client: &Client,
    admin: &str,
    tournament: &str,
    url: &str,
) -> (Vec<(String, String)>, Vec<(String, String)>, String) {
    let cli = ok_as(
        admin,
        &["tournament", "standings", tournament, "--server", url],
    );
    let mut from_cli = Vec::new();
    for line in cli.lines().skip(2) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        // Rows begin with their rank; the tie-break note under the table does not.
        if cells.len() >= 5 && cells[0].parse::<u32>().is_ok() {
            from_cli.push((cells[2].to_owned(), cells[4].to_owned()));
        }
    }
    let mut from_page = Vec::new();
    for row in client
        .find_all(Locator::Css("section:first-of-type tbody tr"))
        .await
        .unwrap_or_default()
    {
        let Ok(cells) = row.find_all(Locator::Css("td")).await else {
            continue; // Redrawn meanwhile.
        };
        if cells.len() >= 4 {
            from_page.push((
                cells[1].text().await.unwrap_or_default(),
                cells[3].text().await.unwrap_or_default(),
            ));
        }
    }
    (from_page, from_cli, cli)
}

pub(crate) async fn count(client: &Client, css: &str) -> usize {
    client
        .find_all(Locator::Css(css))
        .await
        .expect("find all")
        .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_in_a_real_browser() {
    let dir = data_dir("browser-test");
    std::fs::create_dir_all(&dir).expect("dir");
    let Some((_driver, client)) = browser(&dir).await else {
        return;
    };
    let (mut served, web) = ServedGame::start_with_web(&dir).await;
    let (url, admin, game) = (
        served.url.clone(),
        served.admin.clone(),
        served.game.clone(),
    );
    let admin = admin.as_str();
    served.play(1, "d4-c6").await.expect("turn 1");

    // The live game: the page stays (a marker survives), the turns and the board change.
    client
        .goto(&format!("http://{web}/games/{}", game.id))
        .await
        .expect("open the game");
    assert_eq!(count(&client, "#turns li").await, 1);
    client
        .execute("window.hanniballMarker = 42; return 1;", vec![])
        .await
        .expect("script");
    let board = async || {
        client
            .execute("return document.getElementById('board').innerHTML;", vec![])
            .await
            .expect("script")
    };
    let board_before = board().await;
    // Black's clock runs and ticks.
    let clock = text(&client, "#clock-black").await;
    tokio::time::sleep(Duration::from_millis(1_600)).await;
    assert_ne!(
        text(&client, "#clock-black").await,
        clock,
        "the clock ticks"
    );
    served.play(2, "d12-c10").await.expect("turn 2");
    served.play(3, "c6-b8").await.expect("turn 3");
    eventually("the new turns appear without a reload", || async {
        count(&client, "#turns li").await == 3
    })
    .await;
    assert_eq!(text(&client, "#turns li:last-child").await, "c6-b8");
    assert_ne!(board().await, board_before, "the board changed");
    assert_eq!(
        count(&client, "#board line.step").await,
        1,
        "the last turn's arrow"
    );
    let marker = client
        .execute("return window.hanniballMarker;", vec![])
        .await
        .expect("script");
    assert_eq!(marker, serde_json::json!(42), "the page was not reloaded");
    screenshot(&client, "game-live").await;
    // The board takes the room it has (it was drawn 300 px wide at any window size).
    let width = client
        .execute(
            "return document.querySelector('#board svg').getBoundingClientRect().width;",
            vec![],
        )
        .await
        .expect("script");
    assert!(
        width.as_f64().is_some_and(|w| w >= 400.0),
        "board width {width} at a 1100 px window"
    );

    // The current-turn marker moved with the turns.
    assert_eq!(count(&client, "#turns [aria-current]").await, 1);
    assert_eq!(
        count(&client, "#turns li:last-child a[aria-current='step']").await,
        1,
        "the marker is on the last turn"
    );
    // The game ends while the page is open: the replay links come without a reload.
    assert_eq!(count(&client, "nav.replay").await, 0);
    served.black_resigns(game.id).await;
    eventually("the replay links on the open page", || async {
        count(&client, "nav.replay a#prev").await == 1
    })
    .await;
    assert!(text(&client, "#status").await.contains("Game over"));
    // The board's accessible name followed the status line there.
    let named = js(
        &client,
        "return document.querySelector('#board svg > title').textContent;",
    )
    .await;
    let status = text(&client, "#status").await;
    assert_eq!(named.as_str(), Some(format!("Board: {status}").as_str()));
    let marker = client
        .execute("return window.hanniballMarker;", vec![])
        .await
        .expect("script");
    assert_eq!(marker, serde_json::json!(42), "the page was not reloaded");
    screenshot(&client, "game-over-live").await;

    // Replay of the finished game with the arrow keys.
    client
        .goto(&format!("http://{web}/games/{}?turn=0", game.id))
        .await
        .expect("open the replay");
    assert_eq!(count(&client, "#board line.step").await, 0);
    for step in 1..=3 {
        client
            .find(Locator::Css("body"))
            .await
            .expect("body")
            .send_keys(&String::from(char::from(Key::Right)))
            .await
            .expect("arrow key");
        let wanted = format!("turn={step}");
        eventually("the arrow key steps forward", || async {
            client
                .current_url()
                .await
                .is_ok_and(|u| u.as_str().ends_with(&wanted))
        })
        .await;
        assert!(
            text(&client, "nav.replay")
                .await
                .contains(&format!("after turn {step} of 3"))
        );
    }
    screenshot(&client, "game-replay").await;

    // The leaderboard pages: a rated game puts both players on the ladder, one a page.
    let rated = served.another_game("hanniball", true).await;
    served.both_move(rated.id).await;
    served.black_resigns(rated.id).await;
    let ladder = format!("http://{web}/ladders/hanniball?size=1");
    eventually("both players on the ladder", || async {
        client.goto(&ladder).await.is_ok() && count(&client, "a#next-page").await == 1
    })
    .await;
    assert_eq!(count(&client, "tbody tr").await, 1);
    let first = text(&client, "tbody tr td:nth-child(2)").await;
    assert_eq!(first, "white", "the winner leads");
    screenshot(&client, "ladder").await;
    client
        .find(Locator::Id("next-page"))
        .await
        .expect("next page link")
        .click()
        .await
        .expect("click");
    eventually("the second page", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.as_str().contains("page="))
    })
    .await;
    assert_eq!(count(&client, "tbody tr").await, 1);
    assert_eq!(text(&client, "tbody tr td:nth-child(2)").await, "black");
    assert_eq!(count(&client, "a#next-page").await, 0, "the last page");
    // And back: the previous page is the first again.
    client
        .find(Locator::Id("previous-page"))
        .await
        .expect("previous page link")
        .click()
        .await
        .expect("click");
    eventually("the first page again", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| !u.as_str().contains("page="))
    })
    .await;
    assert_eq!(text(&client, "tbody tr td:nth-child(2)").await, "white");
    assert_eq!(count(&client, "a#previous-page").await, 0, "the top");

    // A tournament page's standings are the CLI's.
    let tournament = served.tournament("Browser Cup");
    client
        .goto(&format!("http://{web}/tournaments/{tournament}"))
        .await
        .expect("open the tournament");
    let (from_page, from_cli, cli) = standings(&client, admin, &tournament, &url).await;
    assert_eq!(from_page.len(), 2, "{cli}");
    assert_eq!(
        from_page, from_cli,
        "page vs `tournament standings`:\n{cli}"
    );
    screenshot(&client, "tournament").await;

    // Results come in live: the tournament's game ends and the open page shows it, no reload.
    client
        .execute("window.hanniballMarker = 7; return 1;", vec![])
        .await
        .expect("mark the page");
    let href = client
        .find(Locator::Css("main a[href^='/games/']"))
        .await
        .expect("the round's game link")
        .attr("href")
        .await
        .expect("href")
        .expect("a link");
    let game = href.trim_start_matches("/games/").to_owned();
    ok_as(
        &served.tokens[0],
        &["game", "resign", &game, "--server", &url],
    );
    eventually("the result on the open tournament page", || async {
        let (page, cli, _) = standings(&client, admin, &tournament, &url).await;
        page == cli && page.len() == 2 && page[0].1 != page[1].1
    })
    .await;
    let marker = client
        .execute("return window.hanniballMarker;", vec![])
        .await
        .expect("marker");
    assert_eq!(marker, serde_json::json!(7), "the page was not reloaded");
    assert!(
        text(&client, "main").await.contains("finished"),
        "the page says the tournament is over"
    );
    screenshot(&client, "tournament-finished").await;

    client
        .goto(&format!("http://{web}/"))
        .await
        .expect("open home");
    assert!(text(&client, "main").await.contains("Browser Cup"));
    screenshot(&client, "home").await;

    // The rules, linked from every page, with both games' boards drawn.
    client
        .find(Locator::LinkText("Rules"))
        .await
        .expect("the rules link")
        .click()
        .await
        .expect("click");
    eventually("the rules page", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path() == "/rules")
    })
    .await;
    assert_eq!(
        text(&client, "h1").await,
        "Rules as the arbiter enforces them"
    );
    assert_eq!(count(&client, "figure.rules-board svg").await, 2);
    screenshot(&client, "rules").await;
    client.close().await.expect("close the browser");
    std::fs::remove_dir_all(&dir).ok();
}

/// A Chrome DevTools Protocol command through chromedriver's bridge
/// (`POST /session/{id}/goog/cdp/execute`): what WebDriver itself cannot do, such as a phone's
/// screen or the dark colour scheme.
#[derive(Debug)]
struct Cdp {
    cmd: &'static str,
    params: serde_json::Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/goog/cdp/execute",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = serde_json::json!({"cmd": self.cmd, "params": self.params});
        (http::Method::POST, Some(body.to_string()))
    }
}

pub(crate) async fn cdp(client: &Client, cmd: &'static str, params: serde_json::Value) {
    client
        .issue_cmd(Cdp { cmd, params })
        .await
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
}

/// The page's viewport: `width`×`height` CSS pixels, as a phone (`mobile`) or a desktop.
pub(crate) async fn viewport(client: &Client, width: u32, height: u32, mobile: bool) {
    cdp(
        client,
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
    )
    .await;
}

pub(crate) async fn js(client: &Client, script: &str) -> serde_json::Value {
    client
        .execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// What overflows the open page sideways: the document wider than the viewport, or a table
/// that scrolls without its player column staying in view (its rank/number and name columns
/// sticky, and the name cell still seen with the table scrolled to its far end). Empty: nothing.
pub(crate) async fn overflow(client: &Client) -> String {
    js(
        client,
        r"
        var out = [];
        var doc = document.documentElement;
        if (doc.scrollWidth > window.innerWidth + 1) out.push('document ' + doc.scrollWidth + ' > ' + window.innerWidth);
        document.querySelectorAll('main table').forEach(function(table, i){
          var box = table.parentElement;
          if (table.scrollWidth <= box.clientWidth + 1) return;
          var name = table.querySelector('tbody .name');
          if (!name || getComputedStyle(name).position !== 'sticky') { out.push('table ' + i + ' (' + table.className + ') scrolls without a fixed player column'); return; }
          box.scrollLeft = box.scrollWidth;
          var seen = name.getBoundingClientRect(), frame = box.getBoundingClientRect();
          if (seen.left < frame.left - 1 || seen.right > frame.right + 1) out.push('table ' + i + ': the player column left the view');
          box.scrollLeft = 0;
        });
        return out.join('; ');
        ",
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// A club's Swiss: seven players with long names (a bye each round), four rounds with four
/// tie-breaks, three rounds played (every result kind), the fourth paired; its id.
pub(crate) async fn club_tournament(served: &ServedGame) -> i64 {
    use hanniball_proto::accounts::v1 as apb;
    use hanniball_proto::scheduler::v1 as spb;
    let url = served.url.as_str();
    let admin = served.admin.as_str();
    let mut accounts =
        hanniball_proto::accounts::v1::accounts_client::AccountsClient::connect(url.to_owned())
            .await
            .expect("connect");
    let mut names = Vec::new();
    for name in [
        "Alexandra.Konstantinopoulou",
        "Bartholomew_Featherstonehaugh",
        "Chidimma-Okonkwo-Adeyemi",
        "Dmitri.Vasilyevich.Sokolov",
        "Eleanor_Whitfield-Harrington",
        "Fernando.Alvarez.de.la.Cruz",
        "Gwendolyn_Abernathy",
    ] {
        accounts
            .register_player(crate::common::authed(
                apb::RegisterPlayerRequest {
                    name: name.to_owned(),
                    kind: apb::PlayerKind::Human.into(),
                    issue_token: false,
                },
                admin,
            ))
            .await
            .expect("register");
        names.push(name);
    }
    let created = ok_as(
        admin,
        &[
            "tournament",
            "create",
            "Riverside Club Championship",
            "--rounds",
            "4",
            "--time",
            "600+5",
            "--tiebreaks",
            "BH-C1,BH,SB,WIN",
            "--tiebreak-rules",
            "2024",
            "--unrated",
            "1400",
            "--server",
            url,
        ],
    );
    let id: i64 = created
        .split_whitespace()
        .nth(1)
        .and_then(|i| i.parse().ok())
        .expect("id");
    let mut add = vec!["tournament", "add"];
    let id_text = id.to_string();
    add.push(&id_text);
    add.extend(names.iter().copied());
    add.extend(["--server", url]);
    ok_as(admin, &add);
    ok_as(admin, &["tournament", "start", &id_text, "--server", url]);
    let mut scheduler =
        hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient::connect(url.to_owned())
            .await
            .expect("connect");
    let outcomes = ["1-0", "1/2-1/2", "0-1", "+/-"];
    for round in 1..=3u32 {
        let deadline = Instant::now() + Duration::from_secs(15);
        let tournament = loop {
            let t = scheduler
                .get_tournament(crate::common::authed(
                    spb::GetTournamentRequest { tournament_id: id },
                    admin,
                ))
                .await
                .expect("tournament")
                .into_inner()
                .tournament
                .expect("tournament");
            if t.current_round == round
                && t.boards
                    .iter()
                    .filter(|b| b.round == round && b.kind() == spb::BoardKind::Game)
                    .all(|b| b.game_id > 0)
            {
                break t;
            }
            assert!(Instant::now() < deadline, "round {round} not paired: {t:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let results = tournament
            .boards
            .iter()
            .filter(|b| b.round == round && b.kind() == spb::BoardKind::Game)
            .enumerate()
            .map(|(i, b)| spb::BoardResult {
                round,
                board: b.number,
                result: outcomes[(i + round as usize) % outcomes.len()].to_owned(),
            })
            .collect();
        scheduler
            .set_results(crate::common::authed(
                spb::SetResultsRequest {
                    tournament_id: id,
                    results,
                },
                admin,
            ))
            .await
            .expect("results");
    }
    id
}

/// The pages as a person sees them on a desktop (1366×900) and a phone (390×844): nothing
/// overflows sideways on the phone (wide tables keep the player column in view), the home
/// page's last column is seen, chart labels are legible, the board fills the width; the print
/// view puts each round's pairings and the standings on pages of their own; the dark scheme
/// follows the browser's preference; search finds players, tournaments and games, also through
/// pages that call with a read-only token, as deployed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_on_a_phone_in_print_and_in_the_dark() {
    let dir = data_dir("browser-phone");
    std::fs::create_dir_all(&dir).expect("dir");
    let Some((_driver, client)) = browser(&dir).await else {
        return;
    };
    let (mut served, web) = ServedGame::start_with_web(&dir).await;
    let club = club_tournament(&served).await;
    let rated = served.another_game("hanniball", true).await;
    served.both_move(rated.id).await;
    served.black_resigns(rated.id).await;
    served.play(1, "d4-c6").await.expect("turn 1");
    let white = served.game.white_player_id;
    let player = format!("http://{web}/players/{white}");
    eventually("the rated game charted", || async {
        client.goto(&player).await.is_ok() && count(&client, "svg.chart").await == 1
    })
    .await;
    let pages = [
        ("home", format!("http://{web}/")),
        ("club", format!("http://{web}/tournaments/{club}")),
        (
            "club-by-rank",
            format!("http://{web}/tournaments/{club}?order=rank"),
        ),
        ("player", player.clone()),
        ("game", format!("http://{web}/games/{}", served.game.id)),
        ("search", format!("http://{web}/search?q=ale")),
        ("print", format!("http://{web}/tournaments/{club}/print")),
    ];
    for (size, (width, height), mobile) in
        [("desktop", (1366, 900), false), ("phone", (390, 844), true)]
    {
        viewport(&client, width, height, mobile).await;
        for (name, url) in &pages {
            client.goto(url).await.expect("open");
            screenshot(&client, &format!("{size}-{name}")).await;
            if mobile {
                let wrong = overflow(&client).await;
                assert!(wrong.is_empty(), "{name} at {width} px: {wrong}");
            }
        }
        // The home page's last column (the result) is inside the viewport.
        client.goto(&pages[0].1).await.expect("home");
        let right = js(
            &client,
            "var r = 0; document.querySelectorAll('main table th:last-child, main table td:last-child').forEach(function(c){ r = Math.max(r, c.getBoundingClientRect().right); }); return r;",
        )
        .await;
        assert!(
            right
                .as_f64()
                .is_some_and(|r| r > 0.0 && r <= f64::from(width)),
            "home's result column ends at {right} in a {width} px viewport"
        );
        // Chart labels as rendered: the font size times the scale the SVG is drawn at.
        client.goto(&player).await.expect("player");
        let smallest = js(
            &client,
            "var m = 1e9; document.querySelectorAll('svg.chart text').forEach(function(t){ m = Math.min(m, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a); }); return m;",
        )
        .await;
        assert!(
            smallest
                .as_f64()
                .is_some_and(|s| (11.0..100.0).contains(&s)),
            "chart labels at {smallest} px in a {width} px viewport"
        );
        // The board takes the width there is, up to 30rem.
        client.goto(&pages[4].1).await.expect("game");
        let fill = js(
            &client,
            "var b = document.querySelector('#board svg').getBoundingClientRect().width; var m = document.querySelector('main').clientWidth - 2 * parseFloat(getComputedStyle(document.querySelector('main')).paddingLeft); return b / Math.min(m, 480);",
        )
        .await;
        assert!(
            fill.as_f64().is_some_and(|f| f > 0.95),
            "the board fills {fill} of the room at {width} px"
        );
        // Beside the board on a desktop, under it on a phone: never squeezed.
        let side = js(
            &client,
            "return document.querySelector('.side').getBoundingClientRect().width;",
        )
        .await;
        assert!(
            side.as_f64().is_some_and(|w| w >= 250.0),
            "the turns get {side} px at {width} px"
        );
        // Whose turn it is and both clocks are in view without scrolling.
        let below = js(
            &client,
            "var h = window.innerHeight; return ['status', 'clock-white', 'clock-black'].filter(function(id){ var e = document.getElementById(id); return !e || e.getBoundingClientRect().bottom > h; }).join(' ');",
        )
        .await;
        assert_eq!(
            below.as_str(),
            Some(""),
            "below the screen at {width}x{height} px"
        );
    }

    // Links and context on the pages a person follows.
    viewport(&client, 1366, 900, false).await;
    client.goto(&pages[1].1).await.expect("club");
    assert!(
        text(&client, "#tiebreak-legend")
            .await
            .contains("Buchholz Cut-1")
    );
    // The stored C.07 text and unrated policy, under the legend.
    let rules = text(&client, "#tiebreak-rules").await;
    assert!(
        rules.contains("FIDE C.07, 2024 text") && rules.contains("count as rated 1400"),
        "{rules}"
    );
    assert!(
        text(&client, "#round-4").await.contains("bye"),
        "{}",
        text(&client, "#round-4").await
    );
    let round_two = text(&client, "#round-2").await;
    assert!(
        round_two.contains("(1)") || round_two.contains("(0.5)"),
        "points before the round: {round_two}"
    );
    client.goto(&pages[2].1).await.expect("by rank");
    let first = text(&client, "#crosstable tbody tr:first-child td:first-child").await;
    assert_eq!(
        first, "1",
        "the crosstable by final rank starts with rank 1"
    );
    let tournament_game = client
        .find(Locator::Css("#round-1 a[href^='/games/']"))
        .await
        .expect("a round-1 game")
        .attr("href")
        .await
        .expect("href")
        .expect("a link");
    client
        .goto(&format!("http://{web}{tournament_game}"))
        .await
        .expect("game");
    let context = text(&client, "#context").await;
    assert!(
        context.contains("Riverside Club Championship")
            && context.contains("round 1")
            && context.contains("board ")
            && context.contains("time control 600+5")
            && context.contains("UTC"),
        "{context}"
    );
    client.goto(&pages[5].1).await.expect("search");
    assert!(
        text(&client, "#found-players")
            .await
            .contains("Alexandra.Konstantinopoulou")
    );
    // Search as deployed: the pages call with a read-only token. Part of a name in another case
    // and script, typed into the form; a word of a tournament's name; a game's number.
    ok_as(
        &served.admin,
        &["player", "register", "Zoë Ünal", "--server", &served.url],
    );
    let reader = read_token(&served.url, &served.admin, "white");
    let (_pages, public) = web_only(&dir.join("pages"), &served.url, &reader);
    client
        .goto(&format!("http://{public}/"))
        .await
        .expect("home");
    let field = client
        .find(Locator::Css("form.search input[name='q']"))
        .await
        .expect("the search field");
    field.send_keys("ünal").await.expect("typed");
    client
        .find(Locator::Css("form.search button[type='submit']"))
        .await
        .expect("the search button")
        .click()
        .await
        .expect("searched");
    eventually("the search page", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path() == "/search")
    })
    .await;
    assert!(
        text(&client, "#found-players").await.contains("Zoë Ünal"),
        "{}",
        text(&client, "#found-players").await
    );
    client
        .goto(&format!("http://{public}/search?q=RIVERSIDE"))
        .await
        .expect("search");
    assert!(
        text(&client, "#found-tournaments")
            .await
            .contains("Riverside Club Championship")
    );
    client
        .goto(&format!("http://{public}/search?q={}", rated.id))
        .await
        .expect("search");
    assert!(
        text(&client, "#found-games")
            .await
            .contains(&format!("game {}", rated.id))
    );

    // Printed: a page per round's pairings, then the standings.
    client.goto(&pages[6].1).await.expect("print");
    let pdf = client
        .print(
            fantoccini::wd::PrintConfiguration::builder()
                .build()
                .expect("print settings"),
        )
        .await
        .expect("a PDF");
    let pdf_text = String::from_utf8_lossy(&pdf);
    let printed =
        pdf_text.matches("/Type /Page").count() - pdf_text.matches("/Type /Pages").count();
    assert_eq!(printed, 5, "four rounds and the standings, a page each");

    // The dark scheme, as a browser set to prefer it shows the page.
    cdp(
        &client,
        "Emulation.setEmulatedMedia",
        serde_json::json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    )
    .await;
    client.goto(&pages[1].1).await.expect("club");
    let background = js(
        &client,
        "return getComputedStyle(document.body).backgroundColor;",
    )
    .await;
    let channels: Vec<f64> = background
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    assert!(
        channels.len() == 3 && channels.iter().all(|c| *c < 60.0),
        "a dark background: {background}"
    );
    screenshot(&client, "dark-club").await;
    viewport(&client, 390, 844, true).await;
    client.goto(&pages[4].1).await.expect("game");
    screenshot(&client, "dark-phone-game").await;
    // The board's coordinates are drawn in the text colour, so they show on the dark page too.
    let ink = js(
        &client,
        "return getComputedStyle(document.querySelector('#board text.coord')).fill;",
    )
    .await;
    let ink: Vec<f64> = ink
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    assert!(
        ink.len() == 3 && ink.iter().all(|c| *c > 150.0),
        "light coordinates on the dark page: {ink:?}"
    );
    client.close().await.expect("close the browser");
    std::fs::remove_dir_all(&dir).ok();
}
