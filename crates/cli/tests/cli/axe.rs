//! Every page type checked by axe-core (Deque's accessibility engine) in a real browser, in the
//! light and the dark colour scheme: no violation of impact "moderate" or worse.
//!
//! axe-core comes from the npm registry: `$HANNIBALL_AXE_JS`, else
//! `target/axe/node_modules/axe-core/axe.min.js` under the workspace, else the test installs it
//! there (`npm install --prefix target/axe axe-core@AXE_VERSION`). Without it (no npm, no network)
//! the test says "skipped" and passes, unless `HANNIBALL_REQUIRE_BROWSER=1`, where it fails.

use std::path::PathBuf;
use std::process::Command;

use fantoccini::{Client, Locator};

use crate::browser::{browser, cdp, club_tournament, count, eventually, js, screenshot, viewport};
use crate::common::{ServedGame, data_dir, ok_as};

/// The axe-core release the pages are checked with (pinned: a new release may add rules).
const AXE_VERSION: &str = "4.14.1";

/// axe.min.js's text, from where the module doc says; `None` when it is nowhere and cannot be
/// installed (a failure under `HANNIBALL_REQUIRE_BROWSER`).
fn axe_source() -> Option<String> {
    if let Some(path) = std::env::var_os("HANNIBALL_AXE_JS") {
        let path = PathBuf::from(path);
        return Some(std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "HANNIBALL_AXE_JS={}: {e} (point it at axe-core's axe.min.js, or unset \
                         it to use target/axe)",
                path.display()
            )
        }));
    }
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest
        .ancestors()
        .nth(2)
        .expect("crates/cli is in the workspace");
    let prefix = workspace.join("target/axe");
    let file = prefix.join("node_modules/axe-core/axe.min.js");
    // Another version there (an older pin) is replaced: the rules checked are the pinned ones.
    let pinned = std::fs::read_to_string(prefix.join("node_modules/axe-core/package.json"))
        .is_ok_and(|p| p.contains(&format!("\"version\": \"{AXE_VERSION}\"")));
    if !pinned {
        let failed = match Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg(format!("axe-core@{AXE_VERSION}"))
            .output()
        {
            Ok(out) if out.status.success() && file.exists() => None,
            Ok(out) => Some(String::from_utf8_lossy(&out.stderr).into_owned()),
            Err(e) => Some(format!("npm: {e}")),
        };
        if let Some(why) = failed {
            assert!(
                std::env::var_os("HANNIBALL_REQUIRE_BROWSER").is_none(),
                "HANNIBALL_REQUIRE_BROWSER is set but axe-core {AXE_VERSION} is missing and \
                 `npm install --prefix {} axe-core@{AXE_VERSION}` failed (or set \
                 HANNIBALL_AXE_JS to an axe.min.js): {why}",
                prefix.display()
            );
            eprintln!("skipped: no axe-core {AXE_VERSION} ({why})");
            return None;
        }
    }
    Some(std::fs::read_to_string(&file).expect("read axe.min.js"))
}

/// The open page's axe violations of impact moderate or worse, one line each:
/// `id (impact): target, target…`. Empty: none.
async fn violations(client: &Client, axe: &str) -> Vec<String> {
    // WebDriver's scripts run outside the page's Content-Security-Policy (which allows no
    // inline script), so axe goes in as one.
    client
        .execute(&format!("{axe}\nreturn typeof axe;"), vec![])
        .await
        .expect("axe-core loads");
    let found = client
        .execute_async(
            r"
            var done = arguments[arguments.length - 1];
            axe.run(document, {resultTypes: ['violations']}).then(function(r){
              done(r.violations
                .filter(function(v){ return ['moderate', 'serious', 'critical'].indexOf(v.impact) >= 0; })
                .map(function(v){
                  return v.id + ' (' + v.impact + '): ' + v.nodes.map(function(n){ return n.target.join(' '); }).join(', ');
                }));
            }, function(e){ done(['axe failed: ' + e]); });
            ",
            vec![],
        )
        .await
        .expect("axe.run");
    serde_json::from_value(found).expect("a list of violations")
}

/// The contrast between the focus ring of the first `css` element, focused, and the background
/// of the header around it.
async fn focus_ring_contrast(client: &Client, css: &str) -> f64 {
    let script = format!(
        r"
        var el = document.querySelector('{css}');
        el.focus();
        function rgb(text){{ return text.match(/[\d.]+/g).slice(0, 3).map(Number); }}
        function lum(c){{
          var l = c.map(function(v){{ v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }});
          return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
        }}
        var ring = lum(rgb(getComputedStyle(el).outlineColor));
        var back = lum(rgb(getComputedStyle(document.querySelector('header')).backgroundColor));
        return (Math.max(ring, back) + 0.05) / (Math.min(ring, back) + 0.05);
        "
    );
    let ratio = js(client, &script).await;
    ratio
        .as_f64()
        .unwrap_or_else(|| panic!("a contrast ratio: {ratio}"))
}

/// Signs the browser in with `token` (the sign-in page's token form).
async fn sign_in(client: &Client, web: &str, token: &str) {
    client
        .goto(&format!("http://{web}/sign-in"))
        .await
        .expect("sign-in");
    client
        .find(Locator::Css("details summary"))
        .await
        .expect("the token form")
        .click()
        .await
        .expect("open it");
    client
        .find(Locator::Css("input[name=token]"))
        .await
        .expect("the token field")
        .send_keys(token)
        .await
        .expect("typed");
    client
        .find(Locator::Css("details form button"))
        .await
        .expect("the token form's button")
        .click()
        .await
        .expect("sent");
    eventually("signed in with the token", || async {
        client
            .current_url()
            .await
            .is_ok_and(|u| u.path() != "/sign-in")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_type_passes_axe_in_light_and_dark() {
    let Some(axe) = axe_source() else {
        return;
    };
    let dir = data_dir("browser-axe");
    std::fs::create_dir_all(&dir).expect("dir");
    let Some((_driver, client)) = browser(&dir).await else {
        return;
    };
    let (mut served, web) = ServedGame::start_with_web(&dir).await;
    let club = club_tournament(&served).await;
    // The home page open while a game starts and ends: its tables follow without a reload.
    client.goto(&format!("http://{web}/")).await.expect("home");
    js(&client, "window.hanniballMarker = 42; return 1;").await;
    let finished = served.another_game("hanniball", true).await;
    let listed = |section: &'static str| {
        let css = format!("#{section} a[href='/games/{}']", finished.id);
        let client = &client;
        async move {
            count(client, &css).await == 1
                && js(client, "return window.hanniballMarker || 0;").await == 42
        }
    };
    eventually("a new game in the home page's live list", || {
        listed("live-games")
    })
    .await;
    served.both_move(finished.id).await;
    served.black_resigns(finished.id).await;
    eventually("the game ended, in the finished list", || {
        listed("finished-games")
    })
    .await;
    served.play(1, "d4-c6").await.expect("turn 1");
    let white = served.game.white_player_id;
    // The console's pages as an organiser sees them (the admin token signs in to no console).
    let as_admin = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", served.url.as_str()]);
        ok_as(&served.admin, &all)
    };
    as_admin(&["player", "register", "Olga Organiser"]);
    as_admin(&["player", "organiser", "Olga Organiser", "--grant"]);
    let club_text = club.to_string();
    as_admin(&[
        "tournament",
        "organisers",
        &club_text,
        "add",
        "Olga Organiser",
    ]);
    let organiser = as_admin(&["player", "token", "Olga Organiser"])
        .split_whitespace()
        .find(|w| w.starts_with("hb_"))
        .expect("a token")
        .to_owned();
    let base = format!("http://{web}");
    let mut pages = vec![
        ("home", format!("{base}/")),
        ("game-live", format!("{base}/games/{}", served.game.id)),
        ("game-finished", format!("{base}/games/{}", finished.id)),
        (
            "game-replayed",
            format!("{base}/games/{}?turn=1", finished.id),
        ),
        ("tournament", format!("{base}/tournaments/{club}")),
        (
            "crosstable",
            format!("{base}/tournaments/{club}?order=rank#crosstable"),
        ),
        ("print", format!("{base}/tournaments/{club}/print")),
        (
            "statistics",
            format!("{base}/tournaments/{club}/statistics"),
        ),
        ("player", format!("{base}/players/{white}")),
        ("ladder", format!("{base}/ladders/hanniball")),
        ("search", format!("{base}/search?q=ale")),
        ("search-empty", format!("{base}/search")),
        ("rules", format!("{base}/rules")),
        ("sign-in", format!("{base}/sign-in")),
    ];
    client.goto(&pages[4].1).await.expect("tournament");
    let card = client
        .find(Locator::Css("a[href*='/players/'][href^='/tournaments/']"))
        .await
        .expect("a player's card link")
        .attr("href")
        .await
        .expect("href")
        .expect("a link");
    pages.push(("card", format!("{base}{card}")));
    // That player's own page, with the tournament in its list.
    let entrant = card.rsplit('/').next().expect("a player id").to_owned();
    pages.push(("player-entrant", format!("{base}/players/{entrant}")));
    let console = [
        ("console", format!("{base}/console")),
        ("console-import", format!("{base}/console/import")),
        (
            "console-tournament",
            format!("{base}/console/tournaments/{club}"),
        ),
        ("account", format!("{base}/account")),
    ];
    let mut wrong = Vec::new();
    for scheme in ["light", "dark"] {
        cdp(
            &client,
            "Emulation.setEmulatedMedia",
            serde_json::json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        )
        .await;
        for (size, (width, height), mobile) in
            [("desktop", (1366, 900), false), ("phone", (390, 844), true)]
        {
            viewport(&client, width, height, mobile).await;
            for (name, url) in &pages {
                client.goto(url).await.expect("open");
                for v in violations(&client, &axe).await {
                    wrong.push(format!("{name} ({scheme}, {size}): {v}"));
                }
                screenshot(&client, &format!("axe-{scheme}-{size}-{name}")).await;
            }
            // The print view's standings: no heading or rank drawn wider than its cell (the
            // name column, sticky beside it, would cover the rest).
            client.goto(&pages[6].1).await.expect("print");
            let clipped = js(
                &client,
                r"
                var out = [];
                document.querySelectorAll('.sheet table.fixed tr > :first-child').forEach(function(c){
                  if (c.scrollWidth > c.clientWidth + 1) out.push(c.textContent + ' ' + c.scrollWidth + '>' + c.clientWidth);
                });
                document.getElementById('sheet-standings').scrollIntoView();
                return out.join(', ');
                ",
            )
            .await;
            if clipped.as_str() != Some("") {
                wrong.push(format!("print ({size}): clipped {clipped}"));
            }
            screenshot(&client, &format!("axe-{scheme}-{size}-print-standings")).await;
        }
        // axe does not judge focus rings: the header's, against the header, at least 3:1 (WCAG
        // 1.4.11), for a link, the search field and its button.
        client.goto(&pages[0].1).await.expect("home");
        for target in ["header a", "header input", "header button"] {
            let ratio = focus_ring_contrast(&client, target).await;
            if ratio < 3.0 {
                wrong.push(format!(
                    "home ({scheme}): the focus ring of `{target}` has {ratio:.2}:1 contrast"
                ));
            }
        }
        // The organiser's pages, signed in (the public pages above were seen signed out).
        sign_in(&client, &web, &organiser).await;
        for (name, url) in &console {
            client.goto(url).await.expect("open");
            for v in violations(&client, &axe).await {
                wrong.push(format!("{name} ({scheme}): {v}"));
            }
            screenshot(&client, &format!("axe-{scheme}-{name}")).await;
        }
        client
            .find(Locator::Css("form[action='/sign-out'] button"))
            .await
            .expect("the sign-out button")
            .click()
            .await
            .expect("signed out");
        eventually("signed out", || async {
            client
                .current_url()
                .await
                .is_ok_and(|u| u.path() != "/account")
        })
        .await;
    }
    assert!(
        wrong.is_empty(),
        "{} problems (axe-core {AXE_VERSION}'s violations of impact moderate or worse, weak \
         focus rings, clipped cells):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    client.close().await.expect("close the browser");
    std::fs::remove_dir_all(&dir).ok();
}
