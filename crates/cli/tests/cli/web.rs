//! The web pages of `hanniball serve` over plain HTTP: the home page lists the games, a game's page
//! draws the board as SVG with its players and turns, updates live by server-sent events as turns
//! are played through gRPC, offers the game record (the same as `hanniball game export`), and bad
//! or unknown ids get 400 and 404 pages.

use crate::common::{
    ServedGame, authed, data_dir, http_get, http_get_with, ok_as, read_token, web_only,
};

use hanniball_proto::arbiter::v1 as pb;

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

#[tokio::test]
async fn pages_show_games_live_and_offer_their_records() {
    let dir = data_dir("web-test");
    let (mut served, web) = ServedGame::start_with_web(&dir).await;
    let (url, admin, game) = (
        served.url.clone(),
        served.admin.clone(),
        served.game.clone(),
    );
    let admin = admin.as_str();
    served.play(1, "d4-c6").await.expect("turn 1");

    // Home: the live game with its players.
    let (code, home) = http_get(&web, "/");
    assert_eq!(code, 200, "{home}");
    assert!(
        home.contains(&format!("href=\"/games/{}\"", game.id)),
        "{home}"
    );
    assert!(
        home.contains(&format!(
            "<td><a href=\"/players/{w}\">white</a><span class=\"narrow\"><br>\
             <a href=\"/players/{b}\">black</a></span></td>\
             <td class=\"wide\"><a href=\"/players/{b}\">black</a></td>",
            w = game.white_player_id,
            b = game.black_player_id
        )),
        "players are linked: {home}"
    );

    // The game: the board as SVG after turn 1 (its arrow), players, clocks, the turn list.
    let path = format!("/games/{}", game.id);
    let (code, page) = http_get(&web, &path);
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("<svg") && page.contains("</svg>"), "{page}");
    assert_eq!(page.matches("class=\"piece\"").count(), 22);
    assert_eq!(page.matches("class=\"step\"").count(), 1, "turn 1's arrow");
    assert!(
        page.contains(&format!(
            "<li value=\"1\"><a href=\"/games/{}?turn=1\" aria-current=\"step\">d4-c6</a></li>",
            game.id
        )),
        "{page}"
    );
    assert!(
        page.contains("id=\"clock-black\"") && page.contains("running"),
        "{page}"
    );
    assert!(page.contains("Black to move, turn 2"), "{page}");
    assert!(!page.contains(admin), "the page must not show the token");

    // Live: an event stream opened now hears turn 2, played through gRPC.
    let mut stream = std::net::TcpStream::connect(&web).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path}/events HTTP/1.1\r\nHost: {web}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .expect("request");
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    // Headers, then the turn.
    loop {
        line.clear();
        reader.read_line(&mut line).expect("header");
        if line == "\r\n" {
            break;
        }
    }
    served.play(2, "d12-c10").await.expect("turn 2");
    let mut event = String::new();
    while !event.contains("d12-c10") {
        line.clear();
        let read = reader.read_line(&mut line).expect("an event within 10 s");
        assert!(read > 0, "the event stream ended: {event}");
        event.push_str(&line);
    }
    assert!(event.contains("event: update"), "{event}");
    assert!(
        event.contains("<svg"),
        "the new board comes with the event: {event}"
    );
    assert!(event.contains("White to move, turn 3"), "{event}");
    // The same words in each language: the page takes those of its own.
    assert!(event.contains("Ходят белые, ход 3"), "{event}");
    assert!(event.contains("Aux blancs de jouer, coup 3"), "{event}");

    // The record is the one `game export` writes, and it replays.
    let (code, record) = http_get(&web, &format!("{path}/record"));
    assert_eq!(code, 200);
    let exported = ok_as(
        admin,
        &["game", "export", &game.id.to_string(), "--server", &url],
    );
    assert_eq!(record, exported);
    assert!(record.contains("2. d12-c10"), "{record}");

    // A tournament of the two: its page shows the round's pairing with the game linked, the
    // standings, and offers the same TRF as `tournament export`.
    let tournament = served.tournament("Web Open");
    let (code, page) = http_get(&web, &format!("/tournaments/{tournament}"));
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("<h1>Web Open</h1>"), "{page}");
    assert!(
        page.contains("Round 1") && page.contains("Standings"),
        "{page}"
    );
    assert!(
        page.contains("playing</a>"),
        "the round's game is linked: {page}"
    );
    assert!(
        page.contains("http-equiv=\"refresh\""),
        "a running tournament reloads"
    );
    // The printable view: a sheet per round and the standings, each a printed page.
    let (code, print) = http_get(&web, &format!("/tournaments/{tournament}/print"));
    assert_eq!(code, 200, "{print}");
    assert_eq!(
        print.matches("<section class=\"sheet\"").count(),
        2,
        "{print}"
    );
    assert!(print.contains("Web Open: round 1 pairings"), "{print}");
    assert!(
        print.contains("@media print{") && print.contains(".sheet{break-after:page"),
        "{print}"
    );
    assert_eq!(
        http_get(&web, &format!("/tournaments/{tournament}/print?round=1"))
            .1
            .matches("<section class=\"sheet\"")
            .count(),
        2
    );
    assert_eq!(
        http_get(&web, &format!("/tournaments/{tournament}/print?round=9")).0,
        404
    );
    // Search: a form on every page, a results page; bad input is refused.
    assert!(page.contains("<form action=\"/search\""), "{page}");
    let (code, found) = http_get(&web, "/search?q=Web+open");
    assert_eq!(code, 200, "{found}");
    assert!(
        found.contains(&format!(
            "<a href=\"/tournaments/{tournament}\">Web Open</a>"
        )),
        "{found}"
    );
    let (code, found) = http_get(&web, "/search?q=whit");
    assert_eq!(code, 200);
    assert!(
        found.contains(&format!(
            "href=\"/players/{}\">white</a>",
            game.white_player_id
        )) && found.contains(&format!("href=\"/games/{}\">game {}</a>", game.id, game.id)),
        "{found}"
    );
    assert_eq!(
        http_get(&web, &format!("/search?q={}", "x".repeat(101))).0,
        400
    );
    // As deployed, the pages call with a read-only token: search still finds a player by part
    // of a name in another case and script, a tournament by a word of its name, and a game.
    ok_as(admin, &["player", "register", "Zoë Ünal", "--server", &url]);
    let reader = read_token(&url, admin, "white");
    let (_pages, public) = web_only(&dir.join("pages"), &url, &reader);
    let (code, found) = http_get(&public, "/search?q=%C3%BCnal");
    assert_eq!(code, 200, "{found}");
    assert!(found.contains(">Zoë Ünal</a>"), "{found}");
    let (_, found) = http_get(&public, "/search?q=OPEN");
    assert!(
        found.contains(&format!(
            "<a href=\"/tournaments/{tournament}\">Web Open</a>"
        )),
        "{found}"
    );
    let (_, found) = http_get(&public, "/search?q=whit");
    assert!(
        found.contains(&format!("href=\"/games/{}\">game {}</a>", game.id, game.id)),
        "the found player's games: {found}"
    );
    let (code, trf) = http_get(&web, &format!("/tournaments/{tournament}/trf"));
    assert_eq!(code, 200);
    let exported = ok_as(
        admin,
        &["tournament", "export", &tournament, "--server", &url],
    );
    assert_eq!(trf, exported);
    assert_eq!(http_get(&web, "/tournaments/987654").0, 404);

    // The tie-break rules a tournament stores are shown: on its page and its printed standings
    // under the legend, and by `tournament show` and `tournament standings`.
    assert!(
        page.contains("Tie-breaks follow FIDE C.07, 2026 text. Unrated players: rating-based"),
        "the text in force when it was created, FIDE's policy: {page}"
    );
    let created = ok_as(
        admin,
        &[
            "tournament",
            "create",
            "Old Rules Open",
            "--rounds",
            "1",
            "--tiebreaks",
            "BH-C2,ARO",
            "--tiebreak-rules",
            "2024",
            "--unrated",
            "1400",
            "--server",
            &url,
        ],
    );
    let old = created.split_whitespace().nth(1).expect("id").to_owned();
    ok_as(
        admin,
        &[
            "tournament",
            "add",
            &old,
            "white",
            "black",
            "--server",
            &url,
        ],
    );
    ok_as(admin, &["tournament", "start", &old, "--server", &url]);
    let note = "Tie-breaks follow FIDE C.07, 2024 text. Unrated players: they count as rated 1400.";
    for path in [
        format!("/tournaments/{old}"),
        format!("/tournaments/{old}/print"),
    ] {
        let (code, page) = http_get(&web, &path);
        assert_eq!(code, 200, "{page}");
        assert!(page.contains(note), "{path}: {page}");
        assert!(
            page.contains("Buchholz: the sum of the opponents' scores, without the 2 lowest"),
            "{path}: {page}"
        );
    }
    let line = "tie-breaks: BH-C2, ARO; FIDE C.07, 2024 text; unrated players: 1400";
    let shown = ok_as(admin, &["tournament", "show", &old, "--server", &url]);
    assert!(shown.lines().any(|l| l == line), "{shown}");
    let standings = ok_as(admin, &["tournament", "standings", &old, "--server", &url]);
    assert!(standings.lines().any(|l| l == line), "{standings}");

    // The home page lists the tournament and the ladders; a ladder's page answers.
    let (_, home) = http_get(&web, "/");
    assert!(home.contains("Web Open"), "{home}");
    assert!(home.contains("href=\"/ladders/hanniball\""), "{home}");
    let (code, ladder) = http_get(&web, "/ladders/hanniball?min_games=0");
    assert_eq!(code, 200, "{ladder}");
    assert!(ladder.contains("Ladder hanniball"), "{ladder}");
    assert_ne!(http_get(&web, "/ladders/no-such-ladder").0, 200);

    // Replay step by step: the start (no arrow, a link to the next turn), then turn 1.
    let (code, start) = http_get(&web, &format!("{path}?turn=0"));
    assert_eq!(code, 200);
    assert_eq!(start.matches("class=\"step\"").count(), 0, "{start}");
    assert!(start.contains("the ball on e8"));
    assert!(start.contains(&format!("href=\"/games/{}?turn=1\" id=\"next\"", game.id)));
    assert!(!start.contains("id=\"prev\""), "no turn before the start");
    assert!(!start.contains("/assets/live.js"), "a replay is not live");
    let (_, first) = http_get(&web, &format!("{path}?turn=1"));
    assert_eq!(first.matches("class=\"step\"").count(), 1);
    assert!(first.contains("after turn 1 of 2") && first.contains("id=\"prev\""));

    // Players are linked from the standings and the pairings, to their cards for the tournament.
    assert!(
        page.matches("<a href=\"/tournaments/").count() >= 4 && page.contains("/players/"),
        "standings and pairings link their players: {page}"
    );
    // The crosstable: a row per player, the round's cell naming the opponent's number and colour.
    assert!(page.contains("<h2>Crosstable</h2>"), "{page}");
    assert!(
        page.contains("<td>2w</td>") || page.contains("<td>1w</td>"),
        "{page}"
    );

    // A rated game, resigned: the players' pages chart their ratings and count the meeting.
    let ids = [game.white_player_id, game.black_player_id];
    let rated = served.another_game("hanniball", true).await;
    served.both_move(rated.id).await;
    served.black_resigns(rated.id).await;
    let player_page = format!("/players/{}", ids[0]);
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let player = loop {
        let (code, player) = http_get(&web, &player_page);
        assert_eq!(code, 200, "{player}");
        if player.contains("class=\"chart\"") {
            break player;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no rating chart: {player}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(player.contains("<h1>white</h1>"), "{player}");
    assert!(player.contains("Head to head"), "{player}");
    assert!(
        player.contains(&format!(
            "href=\"/players/{}\">black</a></td><td>1</td><td>0</td><td>0</td>",
            ids[1]
        )),
        "one win against black: {player}"
    );
    assert!(
        player.contains(&format!("href=\"/games/{}\"", rated.id)),
        "{player}"
    );
    assert_eq!(http_get(&web, "/players/987654").0, 404);

    // Paper football is drawn as SVG too: the segment of the last turn highlighted.
    let paper = served.another_game("paper-football", false).await;
    let white = served.tokens[0].clone();
    served
        .arbiter
        .submit_turn(authed(
            pb::SubmitTurnRequest {
                game_id: paper.id,
                turn_number: 1,
                turn: "N".to_owned(),
            },
            &white,
        ))
        .await
        .expect("a paper-football turn");
    let (code, page) = http_get(&web, &format!("/games/{}", paper.id));
    assert_eq!(code, 200, "{page}");
    // The field named as the status line says; the ball one step up, at (4, 7).
    assert!(
        page.contains("role=\"img\"><title>Board: Black to move, turn 2</title>"),
        "{page}"
    );
    assert!(
        page.contains("class=\"ball\" cx=\"156\" cy=\"188\""),
        "{page}"
    );
    assert_eq!(page.matches("class=\"segment\"").count(), 1);
    assert_eq!(page.matches("class=\"step\"").count(), 1);

    // Bad and unknown ids, unknown pages.
    assert_eq!(http_get(&web, "/games/abc").0, 400);
    assert_eq!(http_get(&web, "/games/0").0, 400);
    assert_eq!(http_get(&web, "/games/987654").0, 404);
    assert_eq!(http_get(&web, "/nope").0, 404);
    std::fs::remove_dir_all(&dir).ok();
}

/// The head of an answer to `GET path` with `extra` request headers: the status line and the
/// headers, lower-cased.
fn head_of(web: &str, path: &str, extra: &str) -> String {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(web).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {web}\r\n{extra}Connection: close\r\n\r\n"
    )
    .expect("request");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer");
    let text = String::from_utf8_lossy(&answer);
    text.split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

#[tokio::test]
async fn answers_carry_security_headers_an_icon_and_gzip() {
    let dir = data_dir("web-hygiene");
    let (_served, web) = ServedGame::start_with_web(&dir).await;
    let plain = head_of(&web, "/", "");
    for header in [
        "content-security-policy: default-src 'self'",
        "frame-ancestors 'none'",
        "x-content-type-options: nosniff",
        "x-frame-options: deny",
        "referrer-policy: same-origin",
        "cache-control: no-cache",
    ] {
        assert!(plain.contains(header), "{header}: {plain}");
    }
    assert!(!plain.contains("content-encoding"), "{plain}");
    let gzip = head_of(&web, "/", "Accept-Encoding: gzip\r\n");
    assert!(gzip.contains("content-encoding: gzip"), "{gzip}");
    let br = head_of(&web, "/rules", "Accept-Encoding: br, gzip\r\n");
    assert!(br.contains("content-encoding: br"), "{br}");
    // A page or asset that did not change is answered 304, with no body, on its ETag.
    for path in ["/rules", "/assets/live.js", "/favicon.svg"] {
        let first = head_of(&web, path, "");
        let tag = first
            .lines()
            .find_map(|l| l.strip_prefix("etag: "))
            .unwrap_or_else(|| panic!("{path} has no etag: {first}"))
            // The head is read in lower case; the tag's hex is, its weak prefix is not.
            .replacen("w/", "W/", 1);
        let again = head_of(&web, path, &format!("If-None-Match: {tag}\r\n"));
        assert!(again.starts_with("http/1.1 304"), "{path}: {again}");
        let other = head_of(&web, path, "If-None-Match: W/\"other\"\r\n");
        assert!(other.starts_with("http/1.1 200"), "{path}: {other}");
    }
    // Every page names the icon, and the icon is there (no 404 in every console).
    let (code, home) = http_get(&web, "/");
    assert_eq!(code, 200);
    assert!(
        home.contains("rel=\"icon\" href=\"/favicon.svg\""),
        "{home}"
    );
    // The home page's title says what it shows, not the site's name twice.
    assert!(
        home.contains("<title>Live games, tournaments and ladders · HanniBall</title>"),
        "{home}"
    );
    // A dark scheme follows the browser's preference.
    assert!(
        home.contains("@media (prefers-color-scheme:dark)"),
        "{home}"
    );
    for icon in ["/favicon.ico", "/favicon.svg"] {
        let head = head_of(&web, icon, "");
        assert!(head.starts_with("http/1.1 200"), "{icon}: {head}");
        assert!(head.contains("content-type: image/svg+xml"), "{head}");
        assert!(
            head.contains("cache-control: public, max-age=86400"),
            "{head}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_live_game_reloads_without_script_and_a_replay_shows_its_turn() {
    let dir = data_dir("web-replay");
    let (mut served, web) = ServedGame::start_with_web(&dir).await;
    let game = served.game.id;
    // Live, the page reloads itself without script; over, it does not.
    let (_, live) = http_get(&web, &format!("/games/{game}"));
    assert!(
        live.contains("<noscript><meta http-equiv=\"refresh\""),
        "{live}"
    );
    served.play(1, "d4-c6").await.expect("turn 1");
    served.play(2, "d12-c10").await.expect("turn 2");
    served.black_resigns(game).await;
    let (_, end) = http_get(&web, &format!("/games/{game}"));
    assert!(end.contains("Game over: 1-0 resignation"), "{end}");
    let (_, _, ru) = http_get_with(&web, &format!("/games/{game}"), "Cookie: lang=ru\r\n");
    assert!(ru.contains("Партия окончена: 1-0 (сдача)"), "{ru}");
    let (_, _, fr) = http_get_with(&web, &format!("/games/{game}"), "Cookie: lang=fr\r\n");
    assert!(fr.contains("Partie terminée\u{a0}: 1-0 (abandon)"), "{fr}");
    assert!(!end.contains("http-equiv=\"refresh\""), "{end}");
    let (_, after_one) = http_get(&web, &format!("/games/{game}?turn=1"));
    assert!(!after_one.contains("Game over"), "{after_one}");
    assert!(after_one.contains("Black to move, turn 2"), "{after_one}");
    let (_, start) = http_get(&web, &format!("/games/{game}?turn=0"));
    assert!(start.contains("White to move, turn 1"), "{start}");
    // The board's accessible name says what the status line says: whose turn at the turn shown,
    // or the result and how the game ended.
    for (page, title) in [
        (&end, "Board: Game over: 1-0 resignation"),
        (&ru, "Доска: Партия окончена: 1-0 (сдача)"),
        (&after_one, "Board: Black to move, turn 2"),
        (&start, "Board: White to move, turn 1"),
    ] {
        let (status, named) = status_and_board_title(page);
        assert_eq!(named, title, "{page}");
        assert!(named.ends_with(&status), "{named} / {status}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A game page's status line and its board's `<title>`.
fn status_and_board_title(html: &str) -> (String, String) {
    let between = |from: &str, to: &str| {
        let start = html
            .find(from)
            .unwrap_or_else(|| panic!("{from} in {html}"))
            + from.len();
        let end = start + html[start..].find(to).expect("its end");
        html[start..end].to_owned()
    };
    (
        between("<p id=\"status\" aria-live=\"polite\">", "</p>"),
        between("class=\"board\" role=\"img\"><title>", "</title>"),
    )
}

/// The (name, points) rows of a tournament page's standings table.
fn page_standings(html: &str) -> Vec<(String, String)> {
    let table = html
        .split("<table class=\"fixed standings\">")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .expect("a standings table");
    table
        .split("<tr>")
        .skip(2)
        .map(|row| {
            let cells: Vec<String> = row
                .split("<td")
                .skip(1)
                .map(|cell| {
                    let text = cell.split_once('>').map_or("", |(_, rest)| rest);
                    let mut plain = String::new();
                    let mut inside = false;
                    for c in text.split("</td>").next().unwrap_or("").chars() {
                        match c {
                            '<' => inside = true,
                            '>' => inside = false,
                            c if !inside => plain.push(c),
                            _ => {}
                        }
                    }
                    plain
                })
                .collect();
            (cells[1].clone(), cells[3].clone())
        })
        .collect()
}

/// The (name, points) rows of `tournament standings`.
fn cli_standings(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            (cells.len() >= 5 && cells[0].parse::<u32>().is_ok())
                .then(|| (cells[2].to_owned(), cells[4].to_owned()))
        })
        .collect()
}

/// An over-the-board Swiss of five new players (`create` takes `args` too), paired by hand:
/// round 1 played (board 1 `1-0`, board 2 `1/2-1/2`) and round 2 paired; its id.
fn five_players_one_round(run: &dyn Fn(&[&str]) -> String, args: &[&str]) -> String {
    for name in ["ann", "ben", "cat", "dan", "eve"] {
        run(&["player", "register", name]);
    }
    let mut create = vec!["tournament", "create"];
    create.extend(args);
    create.extend(["--manual", "--over-the-board"]);
    let id = run(&create)
        .split_whitespace()
        .nth(1)
        .expect("id")
        .to_owned();
    run(&["tournament", "add", &id, "ann", "ben", "cat", "dan", "eve"]);
    run(&["tournament", "start", &id]);
    run(&["tournament", "result", &id, "1", "1", "1-0"]);
    run(&["tournament", "result", &id, "1", "2", "1/2-1/2"]);
    run(&["tournament", "pair", &id]);
    id
}

#[tokio::test]
async fn standings_after_any_round_are_stated_and_equal_the_clis() {
    let dir = data_dir("web-after");
    let (served, web) = ServedGame::start_with_web(&dir).await;
    let (url, admin) = (served.url.clone(), served.admin.clone());
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(&admin, &all)
    };
    let id = five_players_one_round(&run, &["After", "--rounds", "3"]);
    // Round 2 under way: one board of two has its result.
    run(&["tournament", "result", &id, "2", "1", "0-1"]);

    let (code, page) = http_get(&web, &format!("/tournaments/{id}"));
    assert_eq!(code, 200);
    assert!(page.contains("Standings after round 1"), "{page}");
    assert_eq!(
        page_standings(&page),
        cli_standings(&run(&["tournament", "standings", &id, "--after", "1"]))
    );
    assert_eq!(page_standings(&page).len(), 5);
    // The crosstable carries the tie-break columns.
    let cross = page.split("id=\"crosstable\"").nth(1).expect("crosstable");
    assert!(cross.contains("<th scope=\"col\">BH-C1</th>"), "{cross}");

    // Round 2 complete: the page follows it, and round 1 stays reachable.
    run(&["tournament", "result", &id, "2", "2", "1-0"]);
    let (_, page) = http_get(&web, &format!("/tournaments/{id}"));
    assert!(page.contains("Standings after round 2"), "{page}");
    assert!(page.contains(&format!("href=\"/tournaments/{id}?after=1#standings\"")));
    let (code, first) = http_get(&web, &format!("/tournaments/{id}?after=1"));
    assert_eq!(code, 200);
    assert!(first.contains("Standings after round 1"));
    assert_eq!(
        page_standings(&first),
        cli_standings(&run(&["tournament", "standings", &id, "--after", "1"]))
    );
    assert_ne!(page_standings(&first), page_standings(&page));

    // A round not complete is refused with the reason, on the page and at the CLI.
    let (code, refused) = http_get(&web, &format!("/tournaments/{id}?after=3"));
    assert_eq!(code, 404, "{refused}");
    assert!(
        refused.contains("the last complete round is 2"),
        "{refused}"
    );
    let out = crate::common::hanniball_as(
        &admin,
        &[
            "tournament",
            "standings",
            &id,
            "--after",
            "3",
            "--server",
            &url,
        ],
    );
    assert!(!out.status.success());
    let (code, _) = http_get(&web, &format!("/tournaments/{id}?after=x"));
    assert_eq!(code, 400);
}

#[tokio::test]
async fn a_players_card_shows_each_round_the_rating_change_and_the_tiebreaks() {
    let dir = data_dir("web-card");
    let (served, web) = ServedGame::start_with_web(&dir).await;
    let (url, admin) = (served.url.clone(), served.admin.clone());
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(&admin, &all)
    };
    let id = five_players_one_round(&run, &["Card", "--rounds", "2", "--rated"]);
    run(&["tournament", "result", &id, "2", "1", "0-1"]);
    run(&["tournament", "result", &id, "2", "2", "1-0"]);

    // Every name on the tournament page leads to that player's card.
    let (_, page) = http_get(&web, &format!("/tournaments/{id}"));
    let prefix = format!("href=\"/tournaments/{id}/players/");
    let cards: std::collections::BTreeSet<String> = page
        .split(prefix.as_str())
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect();
    assert_eq!(cards.len(), 5, "{page}");
    assert!(
        !page.contains("href=\"/players/"),
        "names link to cards: {page}"
    );

    for player in &cards {
        let path = format!("/tournaments/{id}/players/{player}");
        // The rating service rates the games as they come out of the arbiter: wait for it.
        let mut card = String::new();
        for _ in 0..100 {
            let (code, body) = http_get(&web, &path);
            assert_eq!(code, 200, "{body}");
            card = body;
            let byes = card.matches(">bye<").count();
            if card.matches("<td>+").count() + card.matches("<td>−").count() + byes >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Two rounds: two rows, a running score that ends at the standings' points.
        let rows = card
            .split("<table class=\"fixed card\">")
            .nth(1)
            .expect("rounds");
        let rows = rows.split("</table>").next().expect("end");
        assert_eq!(rows.matches("<tr>").count(), 3, "{card}");
        let summary = card.split("id=\"card-summary\">").nth(1).expect("summary");
        let total = summary
            .split(" point")
            .next()
            .expect("points")
            .rsplit(" · ")
            .next()
            .expect("points");
        let last_score = rows.rsplit("<tr>").next().expect("last row");
        assert!(last_score.contains(&format!("<td>{total}</td>")), "{card}");
        // The player's own page lists the tournament: linked, its status, the same points, and
        // the way back to this card.
        let (_, own) = http_get(&web, &format!("/players/{player}"));
        let entered = own
            .split("<section id=\"tournaments\">")
            .nth(1)
            .and_then(|s| s.split("</section>").next())
            .unwrap_or_else(|| panic!("a tournaments section: {own}"));
        for part in [
            format!("<td><a href=\"/tournaments/{id}\">Card</a></td><td>running</td>"),
            format!("<td class=\"num\">{total}</td>"),
            format!("<a href=\"{path}\">card</a>"),
        ] {
            assert!(entered.contains(&part), "{part} in {entered}");
        }
        // Rated games change the rating; two played games give a performance.
        if !rows.contains(">bye<") {
            assert!(card.contains("id=\"rating-change\""), "{card}");
            assert!(
                card.contains("id=\"performance\">Performance rating "),
                "{card}"
            );
        }
        // Each tie-break value with the rule's words.
        assert!(card.contains("<dt>BH-C1: "), "{card}");
        assert!(card.contains("Buchholz Cut-1"), "{card}");
    }
    // The statistics: in all, 4 games played (2 White wins, 1 draw, 1 Black win) and 2 byes.
    let (code, stats) = http_get(&web, &format!("/tournaments/{id}/statistics"));
    assert_eq!(code, 200, "{stats}");
    let total = stats.split("<tfoot>").nth(1).expect("a total row");
    let cells: Vec<&str> = total
        .split("<td class=\"num\">")
        .skip(1)
        .map(|c| c.split('<').next().unwrap_or(""))
        .collect();
    assert_eq!(&cells[..6], ["4", "2", "1", "1", "0", "2"], "{stats}");
    assert!(stats.contains("<svg class=\"results\""), "{stats}");
    assert!(page.contains(&format!("href=\"/tournaments/{id}/statistics\"")));
    let (code, _) = http_get(&web, &format!("/tournaments/{id}/players/999999"));
    assert_eq!(code, 404);
    let (code, _) = http_get(&web, &format!("/tournaments/{id}/players/x"));
    assert_eq!(code, 400);
}

/// No page carries script of its own: the policy allows only the site's script files, the pages
/// name them (`src`, `defer`) with their data in `data-*` attributes, and the files are served as
/// JavaScript, cached a while.
#[tokio::test]
async fn pages_load_their_scripts_from_the_site_and_the_policy_allows_no_other() {
    let dir = data_dir("web-scripts");
    let (served, web) = ServedGame::start_with_web(&dir).await;
    let game = &served.game;
    let head = head_of(&web, "/", "");
    let policy = head
        .lines()
        .find_map(|line| line.strip_prefix("content-security-policy: "))
        .unwrap_or_else(|| panic!("a policy: {head}"));
    let scripts = policy
        .split(';')
        .map(str::trim)
        .find(|directive| directive.starts_with("script-src"))
        .unwrap_or_else(|| panic!("script-src: {policy}"));
    assert_eq!(scripts, "script-src 'self'", "{policy}");
    for path in [
        "/".to_owned(),
        "/rules".to_owned(),
        format!("/games/{}", game.id),
        format!("/games/{}?turn=0", game.id),
        format!("/players/{}", game.white_player_id),
        "/search?q=white".to_owned(),
    ] {
        let (code, page) = http_get(&web, &path);
        assert_eq!(code, 200, "{path}: {page}");
        for tag in page.split("<script").skip(1) {
            let tag = tag.split("</script>").next().unwrap_or_default();
            assert!(
                tag.starts_with(" src=\"/assets/") && tag.ends_with(" defer>"),
                "{path}: inline or foreign script <script{tag}"
            );
        }
        assert!(!page.contains(" onclick="), "{path}: {page}");
    }
    let (_, live) = http_get(&web, &format!("/games/{}", game.id));
    assert!(
        live.contains(&format!(
            "<script src=\"/assets/live.js\" data-game=\"{}\" data-turns=\"0\" defer></script>",
            game.id
        )),
        "{live}"
    );
    // The home page keeps its game tables current: its script fetches them alone, uncached.
    let (_, home) = http_get(&web, "/");
    assert!(
        home.contains("<script src=\"/assets/home.js\" defer></script>")
            && home.contains("<div id=\"games\"><section id=\"live-games\">"),
        "{home}"
    );
    let fragment = head_of(&web, "/fragments/games", "");
    assert!(fragment.contains("cache-control: no-store"), "{fragment}");
    let (code, games) = http_get(&web, "/fragments/games");
    assert_eq!(code, 200, "{games}");
    assert!(
        games.starts_with("<section id=\"live-games\">")
            && games.contains(&format!("href=\"/games/{}\"", game.id))
            && !games.contains("<html"),
        "{games}"
    );
    for script in ["live.js", "keys.js", "tournament.js", "home.js"] {
        let head = head_of(&web, &format!("/assets/{script}"), "");
        assert!(head.starts_with("http/1.1 200"), "{script}: {head}");
        assert!(head.contains("content-type: text/javascript"), "{head}");
        assert!(head.contains("cache-control: public, max-age="), "{head}");
    }
    assert_eq!(http_get(&web, "/assets/other.js").0, 404);
    std::fs::remove_dir_all(&dir).ok();
}

/// The messages of one language's `.ftl` file that are plain text (no placeable, one line), by id.
pub(crate) fn plain_messages(lang: &str) -> std::collections::BTreeMap<String, String> {
    let path = format!(
        "{}/../web/locales/{lang}/main.ftl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|line| !line.starts_with(['#', ' ']))
        .filter_map(|line| line.split_once(" = "))
        .filter(|(_, value)| !value.contains('{') && !value.is_empty())
        .map(|(id, value)| (id.to_owned(), value.to_owned()))
        .collect()
}

/// What a person reads on a page in its language: the text between its tags (style sheet,
/// scripts and what is marked English left out) and the titles, labels and placeholders of its
/// elements, a piece a line, unescaped.
pub(crate) fn words(html: &str) -> String {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        out.push(&rest[..start]);
        let tag_end = rest[start..]
            .find('>')
            .map_or(rest.len(), |e| start + e + 1);
        let tag = &rest[start..tag_end];
        for attribute in ["title=\"", "aria-label=\"", "placeholder=\""] {
            for value in tag.split(attribute).skip(1) {
                out.push(value.split('"').next().unwrap_or_default());
            }
        }
        rest = &rest[tag_end..];
        // A style sheet's or a script's text is not read; what is marked English (the rules
        // document, the game server's own messages) is English in every language.
        for element in ["style", "script", "p lang=\"en\"", "div lang=\"en\""] {
            if tag.starts_with(&format!("<{element}")) {
                let close = format!("</{}>", element.split(' ').next().unwrap_or_default());
                rest = rest.find(&close).map_or("", |e| &rest[e..]);
            }
        }
    }
    out.push(rest);
    out.iter()
        .map(|piece| {
            piece
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The (name, points) rows of a tournament page's standings with a decimal point.
fn standings_numbers(html: &str) -> Vec<(String, String)> {
    page_standings(html)
        .into_iter()
        .map(|(name, points)| (name, points.replace(',', ".")))
        .collect()
}

/// Every kind of page in English, Russian and French: each says its language, shows no message
/// id or formatting error where a message should be, and none of the English words its language
/// has its own for (the rules text aside, which is English only, as the page says); the language
/// comes from the `lang` cookie, else `Accept-Language`; `?lang=` sets the cookie and goes back to
/// the page; answers vary by both headers, and each language's page has its own ETag; the
/// numbers of the standings are the same in every language.
#[tokio::test]
async fn every_page_reads_in_each_language_with_no_message_missing() {
    let dir = data_dir("web-languages");
    let (served, web) = ServedGame::start_with_web(&dir).await;
    let (url, admin) = (served.url.clone(), served.admin.clone());
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(&admin, &all)
    };
    let id = five_players_one_round(&run, &["Langues", "--rounds", "3", "--rated"]);
    run(&["tournament", "result", &id, "2", "1", "0-1"]);
    let (_, page) = http_get(&web, &format!("/tournaments/{id}"));
    let prefix = format!("href=\"/tournaments/{id}/players/");
    let card = page
        .split(prefix.as_str())
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a card")
        .to_owned();
    let game = served.game.id;
    let white = served.game.white_player_id;
    let pages: Vec<(String, u16)> = vec![
        ("/".to_owned(), 200),
        ("/rules".to_owned(), 200),
        (format!("/tournaments/{id}"), 200),
        (format!("/tournaments/{id}?order=rank&after=1"), 200),
        (format!("/tournaments/{id}/print"), 200),
        (format!("/tournaments/{id}/statistics"), 200),
        (format!("/tournaments/{id}/players/{card}"), 200),
        (format!("/games/{game}"), 200),
        (format!("/games/{game}?turn=0"), 200),
        (format!("/players/{white}"), 200),
        ("/ladders/hanniball".to_owned(), 200),
        ("/search".to_owned(), 200),
        ("/search?q=ann".to_owned(), 200),
        ("/sign-in".to_owned(), 200),
        ("/no-such-page".to_owned(), 404),
        ("/games/x".to_owned(), 400),
        (format!("/tournaments/{id}?after=3"), 404),
    ];
    let english = plain_messages("en");
    for lang in ["en", "ru", "fr"] {
        let own = plain_messages(lang);
        // English words that this language says otherwise (long enough not to be a name).
        let foreign: Vec<&String> = english
            .iter()
            .filter(|(id, text)| text.chars().count() >= 8 && own.get(*id) != Some(*text))
            .map(|(_, text)| text)
            .collect();
        assert!(
            lang == "en" || foreign.len() >= 80,
            "{lang}: {}",
            foreign.len()
        );
        for (path, expected) in &pages {
            let (code, head, body) = http_get_with(&web, path, &format!("Cookie: lang={lang}\r\n"));
            assert_eq!(code, *expected, "{lang} {path}: {body}");
            assert!(
                body.contains(&format!("<html lang=\"{lang}\">")),
                "{lang} {path}: {body}"
            );
            assert!(
                head.contains("vary: accept-language, cookie"),
                "{lang} {path}: {head}"
            );
            for marker in ["⟦", "{ $", "{$"] {
                assert!(!body.contains(marker), "{lang} {path}: {marker} in {body}");
            }
            // The rules document itself is English in every language.
            let chrome = words(&body);
            for text in &foreign {
                assert!(
                    !chrome.contains(text.as_str()),
                    "{lang} {path}: untranslated \"{text}\" in {chrome}"
                );
            }
        }
    }
    // Russian and French pages say the rules are in English; the English one need not.
    let (_, _, ru) = http_get_with(&web, "/rules", "Cookie: lang=ru\r\n");
    assert!(ru.contains("id=\"rules-language\""), "{ru}");
    assert!(!http_get(&web, "/rules").1.contains("id=\"rules-language\""));

    // Without the cookie, Accept-Language decides by its weights; the cookie overrides it.
    let lang_of = |extra: &str| {
        let (_, _, body) = http_get_with(&web, "/", extra);
        body.split("<html lang=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(lang_of(""), "en");
    assert_eq!(
        lang_of("Accept-Language: de-DE, fr-CA;q=0.8, en;q=0.5\r\n"),
        "fr"
    );
    assert_eq!(lang_of("Accept-Language: en;q=0.4, ru;q=0.9\r\n"), "ru");
    assert_eq!(lang_of("Accept-Language: de, it\r\n"), "en");
    assert_eq!(
        lang_of("Accept-Language: fr\r\nCookie: hb_x=1; lang=ru\r\n"),
        "ru"
    );
    // The switch: a cookie for a year, and back to the same page without `lang=`.
    let (code, head, _) = http_get_with(&web, &format!("/tournaments/{id}?after=1&lang=fr"), "");
    assert_eq!(code, 303, "{head}");
    assert!(
        head.contains("set-cookie: lang=fr; path=/; max-age=31536000"),
        "{head}"
    );
    assert!(
        head.contains(&format!("location: /tournaments/{id}?after=1\r\n")),
        "{head}"
    );
    assert!(head.contains("content-security-policy"), "{head}");
    let (code, head, _) = http_get_with(&web, "//elsewhere.example/?lang=ru", "");
    assert_eq!(code, 303);
    assert!(head.contains("location: /elsewhere.example/\r\n"), "{head}");
    // Each language's page has its own tag, and a tag of one is no 304 for another.
    let tag = |lang: &str| {
        let (_, head, _) = http_get_with(&web, "/rules", &format!("Cookie: lang={lang}\r\n"));
        head.lines()
            .find_map(|l| l.strip_prefix("etag: "))
            .expect("an etag")
            .replacen("w/", "W/", 1)
    };
    assert_ne!(tag("en"), tag("ru"));
    assert_ne!(tag("ru"), tag("fr"));
    let (code, _, _) = http_get_with(
        &web,
        "/rules",
        &format!("Cookie: lang=fr\r\nIf-None-Match: {}\r\n", tag("ru")),
    );
    assert_eq!(code, 200);
    // The same standings in every language, points written as each writes them.
    let standings = |lang: &str| {
        let (_, _, body) = http_get_with(
            &web,
            &format!("/tournaments/{id}"),
            &format!("Cookie: lang={lang}\r\n"),
        );
        body
    };
    let (en, ru, fr) = (standings("en"), standings("ru"), standings("fr"));
    assert_eq!(standings_numbers(&ru), standings_numbers(&en));
    assert_eq!(standings_numbers(&fr), standings_numbers(&en));
    assert!(
        en.contains("<td>0.5</td>") && ru.contains("<td>0,5</td>"),
        "{ru}"
    );
    assert!(ru.contains("Турнирная таблица после тура 1"), "{ru}");
    assert!(fr.contains("Classement après la ronde 1"), "{fr}");
    std::fs::remove_dir_all(&dir).ok();
}
