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

use crate::common::{KillOnDrop, ServedGame, data_dir, free_port, ok_as};

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
async fn browser(dir: &std::path::Path) -> Option<(KillOnDrop, Client)> {
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
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a browser session");
    Some((driver, client))
}

/// Polls `check` (every 100 ms, at most 15 s).
async fn eventually<F, Fut>(what: &str, mut check: F)
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

async fn screenshot(client: &Client, name: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let png = client.screenshot().await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).expect("write screenshot");
    println!("screenshot: {}", path.display());
}

async fn text(client: &Client, css: &str) -> String {
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
async fn standings(
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
        if cells.len() >= 5 {
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

async fn count(client: &Client, css: &str) -> usize {
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

    // Replay of the finished game with the arrow keys.
    served.black_resigns(game.id).await;
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
