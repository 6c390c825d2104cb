//! A tournament's details end to end, against `hanniball serve`: set in the console's form
//! (CSRF, a form sent twice acting once, a refusal shown beside the form and changing nothing)
//! and with `tournament details`; shown on the tournament page (escaped, dates in each
//! language's form) and by `tournament show`; written to the TRF header, and read back from it
//! by an import whose export writes the same header lines.

use crate::common::{data_dir, free_port, hanniball_as, ok_as, serve, token_in};
use crate::console::{Browser, form};

/// The header lines the details and the field write (`012`-`132` but `092`, `192`: the type of
/// tournament and the system come from the settings).
fn header(trf: &str) -> Vec<&str> {
    const DETAILS: [&str; 10] = [
        "022", "032", "042", "052", "062", "072", "102", "112", "122", "132",
    ];
    trf.lines()
        .filter(|l| DETAILS.iter().any(|tag| l.starts_with(tag)))
        .collect()
}

#[test]
fn details_are_set_shown_escaped_and_carried_by_the_trf() {
    let dir = data_dir("details");
    let web = format!("127.0.0.1:{}", free_port());
    let (_server, url) = serve(&dir, &[("HANNIBALL__SERVER__WEB_LISTEN", web.as_str())]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let as_admin = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(admin, &all)
    };
    for name in ["olga", "petra", "ann", "ben", "cat", "dan"] {
        as_admin(&["player", "register", name]);
    }
    as_admin(&["player", "organiser", "olga", "--grant"]);
    as_admin(&["player", "organiser", "petra", "--grant"]);
    crate::common::set_password(&url, admin, "olga", "olga's long password");
    let mut olga = Browser::new(&web);
    assert_eq!(olga.sign_in("olga", "olga's long password").code, 303);
    let csrf = olga.get("/console").csrf();
    let made = olga.post(
        "/console/tournaments",
        &form(&[
            ("csrf", &csrf),
            ("once", "create-details"),
            ("name", "Spring open"),
            ("where", "board"),
            ("system", "swiss"),
            ("rounds", "3"),
            ("bye_points", "2"),
            ("manual", "on"),
        ]),
    );
    assert_eq!(made.code, 303, "{}", made.body);
    let location = made.header("location").expect("location").to_owned();
    let id = location
        .trim_start_matches("/console/tournaments/")
        .split('?')
        .next()
        .expect("id")
        .to_owned();
    let console = format!("/console/tournaments/{id}");
    let none = as_admin(&["tournament", "details", &id]);
    assert_eq!(none, format!("tournament {id} has no details yet\n"));

    // The console's form: saved once; the same form again does nothing more; the same details
    // in a new form change nothing.
    let page = olga.get(&console);
    assert!(page.body.contains(&format!("action=\"{console}/details\"")));
    let csrf = page.csrf();
    let fields = |once: &str, start: &str| {
        form(&[
            ("csrf", &csrf),
            ("once", once),
            ("place", "Lyon"),
            ("federation", "fra"),
            ("start_date", start),
            ("end_date", "2026-03-03"),
            ("organiser", "<script>alert(1)</script> Club"),
            ("chief_arbiter", "Ivanova, Anna"),
            ("deputies", "Dupont, Jean\r\nMoreau, Lea\r\n"),
            ("time_control", "90'+30''"),
            ("rating_type", "FIDE Elo"),
            ("rules", "FIDE Laws; C.04.3 Dutch"),
            ("round_dates", "2026-03-01\r\n2026-03-02\r\n2026-03-03"),
            ("note", "Rest & <b>tea</b>"),
        ])
    };
    let saved = olga.post(
        &format!("{console}/details"),
        &fields("details-1", "2026-03-01"),
    );
    assert_eq!(saved.code, 303, "{}", saved.body);
    let back = saved.header("location").expect("location").to_owned();
    assert!(back.ends_with("#details"), "{back}");
    assert!(olga.get(&back).body.contains("The details are saved."));
    let again = olga.post(
        &format!("{console}/details"),
        &fields("details-1", "2026-03-01"),
    );
    assert_eq!(again.header("location"), Some(back.as_str()));
    let same = olga.post(
        &format!("{console}/details"),
        &fields("details-2", "2026-03-01"),
    );
    let said = olga.get(same.header("location").expect("location")).body;
    assert!(said.contains("The details were these already."), "{said}");
    // A refusal names the field beside the form, and nothing changes; a forged form does
    // nothing.
    let refused = olga.post(
        &format!("{console}/details"),
        &fields("details-3", "2026-02-30"),
    );
    let said = olga.get(refused.header("location").expect("location")).body;
    assert!(said.contains("details.start_date"), "{said}");
    let forged = olga.post(
        &format!("{console}/details"),
        &fields("details-4", "2026-03-02").replace(&csrf, &"0".repeat(32)),
    );
    assert_eq!(forged.code, 403);
    let shown = as_admin(&["tournament", "show", &id]);
    for line in [
        "place: Lyon\n",
        "federation: FRA\n",
        "dates: 2026-03-01 to 2026-03-03\n",
        "deputy arbiters: Dupont, Jean; Moreau, Lea\n",
        "round dates: 1 2026-03-01, 2 2026-03-02, 3 2026-03-03\n",
    ] {
        assert!(shown.contains(line), "{line:?} in {shown}");
    }

    // The page: every field, HTML escaped, dates as each language writes them.
    let (code, body) = crate::common::http_get(&web, &format!("/tournaments/{id}"));
    assert_eq!(code, 200);
    assert!(body.contains("<section id=\"details\">"), "{body}");
    assert!(
        body.contains("&lt;script&gt;alert(1)&lt;/script&gt; Club")
            && !body.contains("<script>alert"),
        "{body}"
    );
    assert!(body.contains("Rest &amp; &lt;b&gt;tea&lt;/b&gt;"), "{body}");
    for text in [
        "Lyon (FRA)",
        "1\u{a0}March\u{a0}2026 – 3\u{a0}March\u{a0}2026",
        "Ivanova, Anna",
        "Dupont, Jean, Moreau, Lea",
        "90'+30''",
        "FIDE Elo",
        "FIDE Laws; C.04.3 Dutch",
        "round 2: 2\u{a0}March\u{a0}2026",
    ] {
        let text = text.replace('\'', "&#39;");
        assert!(
            body.contains(&text) || body.contains(&text.replace("&#39;", "'")),
            "{text} in {body}"
        );
    }
    let (_, _, french) =
        crate::common::http_get_with(&web, &format!("/tournaments/{id}"), "Cookie: lang=fr\r\n");
    assert!(french.contains("1er\u{a0}mars\u{a0}2026"), "{french}");
    assert!(french.contains("Arbitre principal"), "{french}");

    // `tournament details`: the flags given replace their fields; another organiser is refused
    // and changes nothing.
    let out = as_admin(&[
        "tournament",
        "details",
        &id,
        "--place",
        "Lyon 3e",
        "--note",
        "",
    ]);
    assert!(
        out.contains("place: Lyon 3e") && out.contains("set"),
        "{out}"
    );
    assert!(!out.contains("note:"), "{out}");
    let petra = token_in(&as_admin(&[
        "player",
        "token",
        "petra",
        "--scope",
        "read,organise",
    ]));
    let denied = hanniball_as(
        &petra,
        &[
            "tournament",
            "details",
            &id,
            "--place",
            "Paris",
            "--server",
            &url,
        ],
    );
    assert!(!denied.status.success());
    let err = String::from_utf8_lossy(&denied.stderr);
    assert!(err.contains("do not organise"), "{err}");
    let bad = hanniball_as(
        admin,
        &[
            "tournament",
            "details",
            &id,
            "--federation",
            "France",
            "--server",
            &url,
        ],
    );
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("details.federation"), "{err}");
    assert!(as_admin(&["tournament", "show", &id]).contains("place: Lyon 3e\nfederation: FRA\n"));

    // The TRF: the header from the details; imported, the copy exports the same header lines.
    for player in ["ann", "ben", "cat", "dan"] {
        as_admin(&["tournament", "add", &id, player]);
    }
    as_admin(&["tournament", "start", &id]);
    as_admin(&["tournament", "result", &id, "1", "1", "1-0"]);
    as_admin(&["tournament", "result", &id, "1", "2", "1/2-1/2"]);
    // Each paired round's heading carries its date.
    let (_, round_one) = crate::common::http_get(&web, &format!("/tournaments/{id}"));
    assert!(
        round_one
            .contains("Round 1 · <time datetime=\"2026-03-01\">1\u{a0}March\u{a0}2026</time></h2>"),
        "{round_one}"
    );
    let trf = as_admin(&["tournament", "export", &id]);
    let lines = header(&trf);
    let dates = format!("{:<91}26/03/01  26/03/02  26/03/03", "132");
    for line in [
        "022 Lyon 3e",
        "032 FRA",
        "042 2026/03/01",
        "052 2026/03/03",
        "062 4",
        "102 Ivanova, Anna",
        "112 Dupont, Jean",
        "112 Moreau, Lea",
        "122 90'+30''",
        dates.as_str(),
    ] {
        assert!(lines.contains(&line), "{line:?} in {trf}");
    }
    assert!(lines.iter().any(|l| l.starts_with("072 ")), "{trf}");
    let file = dir.join("spring.trf");
    std::fs::write(&file, &trf).expect("write");
    let out = as_admin(&[
        "tournament",
        "import",
        file.to_str().expect("path"),
        "--name",
        "Spring copy",
        "--manual",
    ]);
    let copy = out
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"))
        .to_owned();
    let again = as_admin(&["tournament", "export", &copy]);
    assert_eq!(header(&again), lines, "{again}");
    let shown = as_admin(&["tournament", "show", &copy]);
    assert!(shown.contains("chief arbiter: Ivanova, Anna\n"), "{shown}");
    std::fs::remove_dir_all(&dir).ok();
}
