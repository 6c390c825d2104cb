//! A whole club night run from the organiser's console in a real browser (headless Chromium
//! through WebDriver), on a phone (390×844) and a desktop (1366×900): sign in as an organiser
//! who is not the admin, create a 5-round Swiss, add 12 players (two with non-Latin names, one
//! registered from the console), start, enter every result by clicking, correct a result
//! before the next round, withdraw a player after round 2, request a half-point bye, export the
//! TRF. The file passes `swiss check --strict`, and the page's standings are `tournament
//! standings`'. Screenshots of every console page at both sizes go to
//! `target/tmp/browser-screenshots`.

use std::io::Write as _;
use std::time::Duration;

use fantoccini::{Client, Locator};

use crate::browser::{browser, eventually, js, overflow, screenshot, standings, text};
use crate::common::{data_dir, free_port, hanniball_as, http_get, ok_as, serve};

/// The players the admin registers (the organiser adds them from the console) and the one the
/// organiser registers there.
const PLAYERS: [&str; 11] = [
    "Alice Martin",
    "Bruno Costa",
    "Анна Смирнова",
    "李明",
    "Dmitri Volkov",
    "Eva Novak",
    "Farid Haddad",
    "Grace Okafor",
    "Hugo Lefèvre",
    "Ines Garcia",
    "Jonas Berg",
];
/// The player the organiser registers at the console, on each night.
fn registered_here(tag: &str) -> &'static str {
    if tag == "phone" {
        "Zoë Ünal"
    } else {
        "Łukasz Żółw"
    }
}

async fn fill(client: &Client, css: &str, value: &str) {
    let field = client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
    field.clear().await.expect("clear");
    field.send_keys(value).await.expect("type");
}

async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// The page's message after a form: what was done (or why not).
async fn flash(client: &Client) -> String {
    match client.find(Locator::Css(".flash")).await {
        Ok(element) => element.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

async fn select(client: &Client, css: &str, label_starts: &str) {
    let options = client
        .find_all(Locator::Css(&format!("{css} option")))
        .await
        .expect("options");
    for option in options {
        if option
            .text()
            .await
            .unwrap_or_default()
            .starts_with(label_starts)
        {
            option.click().await.expect("choose");
            return;
        }
    }
    panic!("{css}: no option starting {label_starts:?}");
}

/// The elements that reach past the window's right edge (to say what overflows).
async fn wide(client: &Client) -> String {
    js(
        client,
        "var out = []; document.querySelectorAll('main *').forEach(function(e){ \
         var r = e.getBoundingClientRect(); if (r.right > window.innerWidth + 1) \
         out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right)); }); \
         return out.slice(0, 8).join(', ');",
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// The results entered, by round and board (a pattern that gives every kind of result).
fn result_for(round: u32, board: u32) -> &'static str {
    match (round + board) % 7 {
        0 | 3 => "0-1",
        1 | 5 => "1-0",
        2 | 6 => "1/2-1/2",
        _ => "+/-",
    }
}

/// Runs the night at one size; `tag` names the screenshots and the tournament.
#[allow(clippy::too_many_lines)]
async fn club_night(
    client: &Client,
    web: &str,
    url: &str,
    admin: &str,
    tag: &str,
    size: (u32, u32),
) {
    // A real window of that size (not an emulated viewport): clicks land where the page is.
    client
        .set_window_size(size.0, size.1)
        .await
        .expect("window size");
    let page = |path: &str| format!("http://{web}{path}");

    // Sign in.
    client.goto(&page("/sign-in")).await.expect("sign-in page");
    screenshot(client, &format!("console-{tag}-sign-in")).await;
    fill(client, "input[name=name]", "Olga Organiser").await;
    fill(client, "input[name=password]", "olga's long password").await;
    click(client, "form[action='/sign-in'] button.big").await;
    eventually("signed in", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path() == "/console")
    })
    .await;
    assert_eq!(overflow(client).await, "", "{tag}: /console overflows");
    let width = js(client, "return window.innerWidth;").await;
    assert!(
        width.as_u64().is_some_and(|w| w <= u64::from(size.0)),
        "{tag}: the page is {width} wide"
    );
    screenshot(client, &format!("console-{tag}-my-tournaments")).await;

    // Create a 5-round Swiss, over the board, rated, paired by hand.
    let name = format!("Club night {tag}");
    fill(client, "#create ~ form input[name=name]", &name).await;
    fill(client, "input[name=rounds]", "5").await;
    click(client, "input[name=rated]").await;
    click(client, "input[name=manual]").await;
    fill(client, "input[name=tiebreaks]", "BH-C1, BH, SB").await;
    click(client, "#create ~ form button.big").await;
    eventually("created", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path().starts_with("/console/tournaments/"))
    })
    .await;
    let current = client.current_url().await.expect("url");
    let id = current
        .path()
        .trim_start_matches("/console/tournaments/")
        .to_owned();
    let console = page(&format!("/console/tournaments/{id}"));
    assert!(flash(client).await.contains("created"), "{tag}");

    // Players: each found by name and added with a rating; one registered here.
    for (i, player) in PLAYERS.iter().enumerate() {
        fill(client, "form.stack input[name=q]", player).await;
        click(client, "form[role=search].stack button").await;
        let add = format!("button[aria-label='Add {player}']");
        eventually("found", || async {
            client.find(Locator::Css(&add)).await.is_ok()
        })
        .await;
        let rating = (2_000 - 37 * i).to_string();
        fill(client, "ul.found input[name=rating]", &rating).await;
        click(client, &add).await;
        eventually("added", || async {
            flash(client).await.contains("is entered")
        })
        .await;
    }
    fill(
        client,
        "form[action$='/register'] input[name=name]",
        registered_here(tag),
    )
    .await;
    fill(
        client,
        "form[action$='/register'] input[name=rating]",
        "1550",
    )
    .await;
    click(client, "form[action$='/register'] button").await;
    eventually("registered", || async {
        flash(client).await.contains("registered and entered")
    })
    .await;
    // Two players kept apart (a family): exported as XXP, honoured by every pairing.
    select(client, "#apart ~ form select[name=first]", PLAYERS[0]).await;
    select(client, "#apart ~ form select[name=second]", PLAYERS[1]).await;
    click(client, "#apart ~ form button").await;
    eventually("kept apart", || async {
        flash(client)
            .await
            .contains("will not be paired with each other")
    })
    .await;
    assert_eq!(overflow(client).await, "", "{tag}: the players overflow");
    screenshot(client, &format!("console-{tag}-players")).await;

    // Start: round 1 is paired.
    click(client, "form[action$='/start'] button").await;
    eventually("started", || async {
        flash(client).await.contains("round 1 is paired")
    })
    .await;
    for round in 1..=5u32 {
        let boards = client
            .find_all(Locator::Css("li.pairing.open"))
            .await
            .expect("boards")
            .len();
        assert!(boards >= 5, "{tag}: round {round} has {boards} open boards");
        for board in 1..=boards as u32 {
            let result = result_for(round, board);
            click(
                client,
                &format!("li#board-{board} button[value='{result}']"),
            )
            .await;
            eventually("recorded", || async {
                flash(client)
                    .await
                    .contains(&format!("Round {round}, board {board}:"))
            })
            .await;
            if round == 1 && board == 1 {
                screenshot(client, &format!("console-{tag}-results")).await;
                // A wrong button: corrected before the next round.
                select(client, "select[name=board_key]", "Round 1, board 1").await;
                select(client, "#correct ~ form select[name=result]", "0–1").await;
                fill(client, "input[name=note]", "score sheet misread").await;
                click(client, "#correct ~ form button").await;
                eventually("corrected", || async {
                    flash(client).await.contains("corrected from")
                })
                .await;
                screenshot(client, &format!("console-{tag}-corrected")).await;
            }
        }
        assert!(
            text(client, "p.open-count")
                .await
                .starts_with("Every board"),
            "{tag}: round {round} still has open boards"
        );
        if round == 2 {
            // A withdrawal after round 2, and a half-point bye asked for round 4.
            click(
                client,
                &format!("button[aria-label='Withdraw {}']", PLAYERS[6]),
            )
            .await;
            eventually("withdrawn", || async {
                flash(client).await.contains("not paired from round 3")
            })
            .await;
            select(
                client,
                "form[action$='/bye'] select[name=player_id]",
                PLAYERS[3],
            )
            .await;
            fill(client, "form[action$='/bye'] input[name=round]", "4").await;
            click(client, "form[action$='/bye'] button").await;
            eventually("bye", || async {
                flash(client).await.contains("half-point bye")
            })
            .await;
        }
        click(client, "form[action$='/pair'] button").await;
        let expected = if round < 5 {
            format!("Round {} is paired", round + 1)
        } else {
            "The tournament is finished".to_owned()
        };
        eventually("paired", || async {
            flash(client).await.contains(&expected)
        })
        .await;
        assert_eq!(
            overflow(client).await,
            "",
            "{tag}: round {round} overflows: {}",
            wide(client).await
        );
    }
    client.goto(&console).await.expect("console");
    assert!(text(client, "main > p").await.contains("finished"), "{tag}");

    // The TRF, as the page's link gives it, passes the strict check.
    let (code, trf) = http_get(web, &format!("/tournaments/{id}/trf"));
    assert_eq!(code, 200);
    let file = std::env::temp_dir().join(format!("console-{tag}-{}.trf", std::process::id()));
    std::fs::File::create(&file)
        .and_then(|mut f| f.write_all(trf.as_bytes()))
        .expect("write the TRF");
    let check = hanniball_as(
        admin,
        &["swiss", "check", "--strict", file.to_str().expect("path")],
    );
    assert!(
        check.status.success(),
        "{tag}: the exported TRF fails the strict check:\n{}\n{trf}",
        String::from_utf8_lossy(&check.stdout)
    );
    assert!(
        trf.contains(registered_here(tag)) && trf.contains("李明") && trf.contains("Анна Смирнова")
    );
    assert!(trf.lines().any(|l| l.starts_with("XXP ")), "{trf}");

    // The page's standings are the CLI's.
    client
        .goto(&page(&format!("/tournaments/{id}")))
        .await
        .expect("tournament page");
    let (from_page, _, cli) = standings(client, admin, &id, url).await;
    // The CLI's rows: rank, number, the name (words), rating, points and three tie-breaks.
    let from_cli: Vec<(String, String)> = cli
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            (cells.len() >= 8 && cells[0].parse::<u32>().is_ok()).then(|| {
                let n = cells.len();
                (cells[2..n - 5].join(" "), cells[n - 4].to_owned())
            })
        })
        .collect();
    assert_eq!(from_page.len(), 12, "{tag}: {cli}");
    assert_eq!(from_page, from_cli, "{tag}: {cli}");

    // The account page.
    client.goto(&page("/account")).await.expect("account");
    assert!(text(client, "main").await.contains("(this one)"));
    screenshot(client, &format!("console-{tag}-account")).await;
    click(client, "form[action='/sign-out'] button").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    client.goto(&page("/console")).await.expect("console");
    assert_eq!(
        client.current_url().await.expect("url").path(),
        "/sign-in",
        "{tag}: signed out"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_club_night_from_the_console_on_a_phone_and_a_desktop() {
    let dir = data_dir("console-browser");
    std::fs::create_dir_all(&dir).expect("dir");
    let Some((_driver, client)) = browser(&dir).await else {
        return;
    };
    let web = format!("127.0.0.1:{}", free_port());
    let (_server, url) = serve(&dir, &[("HANNIBALL__SERVER__WEB_LISTEN", web.as_str())]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let as_admin = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(admin, &all)
    };
    as_admin(&["player", "register", "Olga Organiser"]);
    as_admin(&["player", "organiser", "Olga Organiser", "--grant"]);
    crate::common::set_password(&url, admin, "Olga Organiser", "olga's long password");
    for player in PLAYERS {
        as_admin(&["player", "register", player]);
    }
    club_night(&client, &web, &url, admin, "phone", (390, 844)).await;
    club_night(&client, &web, &url, admin, "desktop", (1366, 900)).await;
    client.close().await.ok();
}

/// The TRF file the test uploads: a bbpPairings tournament of 10 players and 7 rounds played
/// (committed with the pairing tests), given two more rounds (`XXR 9`).
fn uploaded_file(dir: &std::path::Path) -> std::path::PathBuf {
    let source = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pairing/tests/data/bbp/dutch-p10-r7-s1002.trf"
    );
    let mut bytes = std::fs::read(source).expect("the test file");
    bytes.extend_from_slice(b"XXR 9\r");
    let path = dir.join("upload.trf");
    std::fs::write(&path, bytes).expect("write");
    path
}

/// The name of start rank `rank` in that file.
fn name_of(rank: u32) -> String {
    format!("Test{rank:04} Player{rank:04}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_started_from_an_uploaded_trf_pairs_as_the_file_would() {
    let dir = data_dir("console-import");
    std::fs::create_dir_all(&dir).expect("dir");
    let Some((_driver, client)) = browser(&dir).await else {
        return;
    };
    let web = format!("127.0.0.1:{}", free_port());
    let (_server, url) = serve(&dir, &[("HANNIBALL__SERVER__WEB_LISTEN", web.as_str())]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    ok_as(
        admin,
        &["player", "register", "Olga Organiser", "--server", &url],
    );
    ok_as(
        admin,
        &[
            "player",
            "organiser",
            "Olga Organiser",
            "--grant",
            "--server",
            &url,
        ],
    );
    // Sign in with a pasted token this time (a server that uses tokens only).
    let issued = ok_as(
        admin,
        &["player", "token", "Olga Organiser", "--server", &url],
    );
    let token = issued
        .split_whitespace()
        .find(|w| w.starts_with("hb_"))
        .expect("a token");
    client
        .set_window_size(1366, 900)
        .await
        .expect("window size");
    let page = |path: &str| format!("http://{web}{path}");
    client.goto(&page("/sign-in")).await.expect("sign-in");
    click(&client, "details summary").await;
    fill(&client, "input[name=token]", token).await;
    click(
        &client,
        "form[action='/sign-in'] input[name=token] ~ button, details form button",
    )
    .await;
    eventually("signed in with the token", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path() == "/console")
    })
    .await;

    // A file that is not TRF: its problem is shown, nothing is created.
    let bad = dir.join("bad.trf");
    std::fs::write(&bad, "001 this is not a player line\n").expect("write");
    client
        .goto(&page("/console/import"))
        .await
        .expect("import page");
    screenshot(&client, "console-desktop-import").await;
    fill(&client, "input[type=file]", bad.to_str().expect("path")).await;
    click(&client, "form[action='/console/import'] button.big").await;
    eventually("refused", || async {
        flash(&client).await.contains("cannot be read")
    })
    .await;

    // The real file: imported, and round 8 paired as `swiss pair` pairs it.
    let file = uploaded_file(&dir);
    fill(&client, "input[type=file]", file.to_str().expect("path")).await;
    click(&client, "form[action='/console/import'] button.big").await;
    eventually("imported", || async {
        flash(&client)
            .await
            .contains("Imported: 10 players, 7 rounds played of 9")
    })
    .await;
    click(&client, "form[action$='/pair'] button").await;
    eventually("paired", || async {
        flash(&client).await.contains("Round 8 is paired")
    })
    .await;
    screenshot(&client, "console-desktop-imported").await;
    let mut on_page = Vec::new();
    for board in client
        .find_all(Locator::Css("li.pairing span.pair"))
        .await
        .expect("boards")
    {
        let text = board.text().await.expect("text");
        if let Some((_, pair)) = text.split_once(": ")
            && let Some((white, black)) = pair.split_once(" – ")
        {
            on_page.push((white.trim().to_owned(), black.trim().to_owned()));
        }
    }
    let pair = crate::common::hanniball_as(admin, &["swiss", "pair", file.to_str().expect("path")]);
    assert!(pair.status.success());
    let engine: Vec<(String, String)> = String::from_utf8_lossy(&pair.stdout)
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (white, black) = line.split_once(' ')?;
            Some((name_of(white.parse().ok()?), name_of(black.parse().ok()?)))
        })
        .collect();
    assert_eq!(engine.len(), 5);
    assert_eq!(on_page, engine);
    client.close().await.ok();
}
