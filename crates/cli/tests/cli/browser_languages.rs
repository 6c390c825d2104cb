//! The pages in each language in a real browser (as `browser.rs`: Debian's headless Chromium
//! through chromedriver): the header's switch (a plain link, no script) changes the language and
//! it sticks from page to page; at 1366×900 and 390×844 a club tournament's standings and
//! crosstable, a player's card and the statistics show the same numbers in English, Russian and
//! French (decimals written as each language writes them); no page overflows sideways, the
//! organisers' console's included. Screenshots of every kind of page in each language at both
//! sizes go to `target/tmp/browser-screenshots` (`lang-{en,ru,fr}-{desktop,phone}-{page}.png`) for
//! a person to look at.

use crate::browser::{
    browser, club_tournament, eventually, js, overflow, screenshot, text, viewport,
};
use crate::common::{ServedGame, data_dir};

use fantoccini::{Client, Locator};

/// The table `css` selects fits its section whole: no column cut off or behind a sideways
/// scroll.
async fn fits_whole(client: &Client, css: &str, what: &str) {
    let widths = js(
        client,
        &format!(
            "var s = document.querySelector({css:?}).closest('section'); \
             return [s.scrollWidth, s.clientWidth];"
        ),
    )
    .await;
    let (scroll, width) = (widths[0].as_f64(), widths[1].as_f64());
    assert!(scroll <= width, "{what}: {scroll:?} wide in {width:?}");
}

/// The numbers of the cells `css` selects, as a reader compares them: decimal commas read as
/// points, words and colour letters left out (`5w1` and `5б1` are both `51`).
async fn numbers(client: &Client, css: &str) -> Vec<String> {
    let script = format!(
        "return Array.from(document.querySelectorAll({css:?})).map(function(c){{ \
         return c.textContent.replace(/,/g, '.').replace(/[^0-9.½+\\-−]/g, ''); }});"
    );
    js(client, &script)
        .await
        .as_array()
        .expect("cells")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_language_shows_the_same_numbers_and_fits_the_screen() {
    let dir = data_dir("browser-languages");
    std::fs::create_dir_all(&dir).expect("dir");
    let Some((_driver, client)) = browser(&dir).await else {
        return;
    };
    let (mut served, web) = ServedGame::start_with_web(&dir).await;
    let club = club_tournament(&served).await;
    let base = format!("http://{web}");
    let tournament = format!("{base}/tournaments/{club}");
    client.goto(&tournament).await.expect("the tournament");
    let card = client
        .find(Locator::Css("#standings tbody a"))
        .await
        .expect("a player in the standings")
        .attr("href")
        .await
        .expect("href")
        .expect("a card link");
    let game = served.game.id;
    let white = served.game.white_player_id;
    // An organiser, signed in once: the console's pages are screenshot too.
    let as_admin = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", served.url.as_str()]);
        crate::common::ok_as(&served.admin, &all)
    };
    as_admin(&["player", "register", "Olga Organiser"]);
    as_admin(&["player", "organiser", "Olga Organiser", "--grant"]);
    crate::common::set_password(
        &served.url,
        &served.admin,
        "Olga Organiser",
        "olga's long password",
    );
    // The sign-in page in each language (`?lang=` as the switch's links say it).
    for (size, (width, height), mobile) in
        [("desktop", (1366, 900), false), ("phone", (390, 844), true)]
    {
        viewport(&client, width, height, mobile).await;
        for lang in ["en", "ru", "fr"] {
            client
                .goto(&format!("{base}/sign-in?lang={lang}"))
                .await
                .expect("sign-in");
            assert_eq!(
                js(&client, "return document.documentElement.lang;")
                    .await
                    .as_str(),
                Some(lang)
            );
            screenshot(&client, &format!("lang-{lang}-{size}-sign-in")).await;
            let wrong = overflow(&client).await;
            assert!(wrong.is_empty(), "{lang} sign-in at {width} px: {wrong}");
        }
    }
    for (field, value) in [
        ("name", "Olga Organiser"),
        ("password", "olga's long password"),
    ] {
        client
            .find(Locator::Css(&format!("input[name={field}]")))
            .await
            .expect("a field")
            .send_keys(value)
            .await
            .expect("typed");
    }
    client
        .find(Locator::Css("form[action='/sign-in'] button.big"))
        .await
        .expect("the button")
        .click()
        .await
        .expect("signed in");
    eventually("signed in", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path() == "/console")
    })
    .await;
    // Every kind of page, for the screenshots and the overflow check.
    let others = [
        ("home", format!("{base}/")),
        ("print", format!("{tournament}/print")),
        ("game", format!("{base}/games/{game}")),
        ("player", format!("{base}/players/{white}")),
        ("ladder", format!("{base}/ladders/hanniball")),
        ("search", format!("{base}/search?q=a")),
        ("rules", format!("{base}/rules")),
        ("console", format!("{base}/console")),
        (
            "console-tournament",
            format!("{base}/console/tournaments/{club}"),
        ),
        ("console-import", format!("{base}/console/import")),
        ("account", format!("{base}/account")),
        ("not-found", format!("{base}/no-such-page")),
    ];
    let headings = [
        ("en", "Crosstable"),
        ("ru", "Кросс-таблица"),
        ("fr", "Grille américaine"),
    ];
    // (what, numbers) as English shows them at 1366×900: every other view must match.
    let mut expected: Vec<(String, Vec<String>)> = Vec::new();
    for (lang, heading) in headings {
        // The switch in the header: a link, then the language stays on every page.
        client.goto(&format!("{base}/")).await.expect("home");
        let current = js(&client, "return document.documentElement.lang;").await;
        if current.as_str() != Some(lang) {
            client
                .find(Locator::Css(&format!("#lang-{lang}")))
                .await
                .expect("a link to the language")
                .click()
                .await
                .expect("switched");
        }
        eventually("the page in the language chosen", || async {
            js(&client, "return document.documentElement.lang;")
                .await
                .as_str()
                == Some(lang)
        })
        .await;
        for (size, (width, height), mobile) in
            [("desktop", (1366, 900), false), ("phone", (390, 844), true)]
        {
            viewport(&client, width, height, mobile).await;
            let mut seen: Vec<(String, Vec<String>)> = Vec::new();
            client.goto(&tournament).await.expect("the tournament");
            assert_eq!(
                js(&client, "return document.documentElement.lang;")
                    .await
                    .as_str(),
                Some(lang),
                "the language sticks"
            );
            assert_eq!(text(&client, "#crosstable h2").await, heading);
            seen.push((
                "standings".to_owned(),
                numbers(&client, "#standings table.standings tbody td").await,
            ));
            seen.push((
                "crosstable".to_owned(),
                numbers(&client, "#crosstable tbody td").await,
            ));
            screenshot(&client, &format!("lang-{lang}-{size}-tournament")).await;
            let wrong = overflow(&client).await;
            assert!(wrong.is_empty(), "{lang} tournament at {width} px: {wrong}");
            // The standings fit whole (the crosstable, a round per column, may scroll).
            let what = format!("{lang} standings at {width} px");
            fits_whole(&client, "#standings table.standings", &what).await;
            client
                .goto(&format!("{base}{card}"))
                .await
                .expect("the card");
            seen.push((
                "card".to_owned(),
                numbers(&client, "table.card tbody td").await,
            ));
            screenshot(&client, &format!("lang-{lang}-{size}-card")).await;
            let wrong = overflow(&client).await;
            assert!(wrong.is_empty(), "{lang} card at {width} px: {wrong}");
            fits_whole(&client, "table.card", &format!("{lang} card at {width} px")).await;
            client
                .goto(&format!("{tournament}/statistics"))
                .await
                .expect("the statistics");
            seen.push((
                "statistics".to_owned(),
                numbers(&client, "table.statistics td, table.statistics tbody th").await,
            ));
            screenshot(&client, &format!("lang-{lang}-{size}-statistics")).await;
            let wrong = overflow(&client).await;
            assert!(wrong.is_empty(), "{lang} statistics at {width} px: {wrong}");
            for (what, cells) in &seen {
                assert!(
                    cells.iter().filter(|c| !c.is_empty()).count() >= 10,
                    "{lang} {what}: {cells:?}"
                );
            }
            if expected.is_empty() {
                expected = seen;
            } else {
                assert_eq!(seen, expected, "{lang} at {width}×{height}");
            }
            for (name, url) in &others {
                client.goto(url).await.expect("open");
                screenshot(&client, &format!("lang-{lang}-{size}-{name}")).await;
                let wrong = overflow(&client).await;
                assert!(wrong.is_empty(), "{lang} {name} at {width} px: {wrong}");
                let scroll = js(
                    &client,
                    "return document.scrollingElement.scrollWidth <= window.innerWidth;",
                )
                .await;
                assert_eq!(scroll.as_bool(), Some(true), "{lang} {name} at {width} px");
            }
        }
    }
    // A live game in French (the language chosen last): a turn played comes in with French words.
    client
        .goto(&format!("{base}/games/{game}"))
        .await
        .expect("the game");
    assert_eq!(
        text(&client, "#status").await,
        "Aux blancs de jouer, coup 1"
    );
    js(&client, "window.stayed = true; return null;").await;
    served.play(1, "d4-c6").await.expect("turn 1");
    eventually("the turn, in French", || async {
        text(&client, "#status").await == "Aux noirs de jouer, coup 2"
    })
    .await;
    assert_eq!(
        js(&client, "return window.stayed === true;")
            .await
            .as_bool(),
        Some(true),
        "no reload: the turn came live"
    );
    client.close().await.expect("close the browser");
    std::fs::remove_dir_all(&dir).ok();
}
