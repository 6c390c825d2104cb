//! The organiser's console over plain HTTP, against `hanniball serve`: sign-in and its cookie,
//! CSRF, forms that act once, ownership, sign-out and revocation, the failed sign-in limit, and
//! passwords that are never stored or logged in clear.

use std::io::{Read, Write};

use crate::common::{data_dir, free_port, ok_as, serve};

/// An HTTP answer: status, headers (names in lower case) and body.
pub struct Answer {
    pub code: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `Set-Cookie` header setting `name`.
    pub fn set_cookie(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n == "set-cookie")
            .map(|(_, v)| v.as_str())
            .find(|v| v.starts_with(&format!("{name}=")))
    }

    /// The value of the first hidden `csrf` field of the page.
    pub fn csrf(&self) -> String {
        let at = self
            .body
            .find("name=\"csrf\" value=\"")
            .expect("a csrf field")
            + 19;
        self.body[at..at + 32].to_owned()
    }
}

/// One HTTP/1.1 request on its own connection.
pub fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if method == "POST" {
        request.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("answer");
    let answer = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let mut lines = head.lines();
    let code = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        code,
        headers,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

/// Form-encodes pairs.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", hanniball_web::query_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A browser: its cookies, kept across requests.
pub struct Browser {
    pub addr: String,
    pub cookies: Vec<(String, String)>,
}

impl Browser {
    pub fn new(addr: &str) -> Browser {
        Browser {
            addr: addr.to_owned(),
            cookies: Vec::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, answer: &Answer) {
        for (name, value) in &answer.headers {
            if name != "set-cookie" {
                continue;
            }
            let pair = value.split(';').next().unwrap_or_default();
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            self.cookies.retain(|(name, _)| name != k);
            if !v.is_empty() && !value.contains("Max-Age=0") {
                self.cookies.push((k.to_owned(), v.to_owned()));
            }
        }
    }

    pub fn get(&mut self, path: &str) -> Answer {
        let cookie = self.cookie_header();
        let answer = http(&self.addr, "GET", path, &[("Cookie", &cookie)], "");
        self.keep(&answer);
        answer
    }

    pub fn post(&mut self, path: &str, body: &str) -> Answer {
        let cookie = self.cookie_header();
        let answer = http(&self.addr, "POST", path, &[("Cookie", &cookie)], body);
        self.keep(&answer);
        answer
    }

    /// Signs in with a name and password; the answer to the form.
    pub fn sign_in(&mut self, name: &str, password: &str) -> Answer {
        let page = self.get("/sign-in");
        let csrf = page.csrf();
        self.post(
            "/sign-in",
            &form(&[("csrf", &csrf), ("name", name), ("password", password)]),
        )
    }

    pub fn session(&self) -> Option<String> {
        self.cookies
            .iter()
            .find(|(k, _)| k == "hb_session")
            .map(|(_, v)| v.clone())
    }
}

/// The tournament ids listed on `/console`.
fn my_tournaments(browser: &mut Browser) -> Vec<String> {
    let page = browser.get("/console");
    page.body
        .split("href=\"/console/tournaments/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_console_is_safe_against_forged_and_repeated_forms() {
    let dir = data_dir("console");
    let web = format!("127.0.0.1:{}", free_port());
    let (_server, url) = serve(
        &dir,
        &[
            ("HANNIBALL__SERVER__WEB_LISTEN", web.as_str()),
            ("HANNIBALL__SERVER__FAILED_AUTH_PER_MINUTE", "20"),
        ],
    );
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let as_admin = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(admin, &all)
    };
    let set_password = |name: &str, password: &str| {
        crate::common::set_password(&url, admin, name, password);
    };
    for name in ["olga", "petra", "carol"] {
        as_admin(&["player", "register", name]);
    }
    as_admin(&["player", "organiser", "olga", "--grant"]);
    as_admin(&["player", "organiser", "petra", "--grant"]);
    set_password("olga", "olga's long password");
    set_password("petra", "petra's long password");

    // The sign-in form refuses a post without its CSRF token; a wrong password is one answer.
    let mut olga = Browser::new(&web);
    let page = olga.get("/sign-in");
    assert_eq!(page.code, 200);
    let forged = olga.post(
        "/sign-in",
        &form(&[("name", "olga"), ("password", "olga's long password")]),
    );
    assert_eq!(forged.code, 403, "{}", forged.body);
    assert!(olga.session().is_none());
    let wrong = olga.sign_in("olga", "not the password");
    assert_eq!(wrong.code, 401);
    assert!(wrong.body.contains("Wrong name or password"));

    // Signed in: the cookie's attributes; no token in any URL.
    let signed = olga.sign_in("olga", "olga's long password");
    assert_eq!(signed.code, 303);
    assert_eq!(signed.header("location"), Some("/console"));
    let cookie = signed.set_cookie("hb_session").expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    let session = olga.session().expect("session");
    let console = olga.get("/console");
    assert_eq!(console.code, 200);
    assert!(!console.body.contains(&session), "the page shows no token");
    // Behind a proxy that says HTTPS, the cookie is Secure.
    let mut behind = Browser::new(&web);
    let csrf = behind.get("/sign-in").csrf();
    let pre = behind.cookie_header();
    let tls = http(
        &web,
        "POST",
        "/sign-in",
        &[("Cookie", &pre), ("X-Forwarded-Proto", "https")],
        &form(&[
            ("csrf", &csrf),
            ("name", "petra"),
            ("password", "petra's long password"),
        ]),
    );
    assert!(
        tls.set_cookie("hb_session")
            .is_some_and(|c| c.contains("Secure")),
        "{:?}",
        tls.headers
    );

    // Create a tournament; the same form again creates nothing more.
    let csrf = console.csrf();
    let create = form(&[
        ("csrf", &csrf),
        ("once", "create-1"),
        ("name", "Club night"),
        ("where", "board"),
        ("system", "swiss"),
        ("rounds", "3"),
        ("bye_points", "2"),
        ("time", "600+2.5"),
    ]);
    let made = olga.post("/console/tournaments", &create);
    assert_eq!(made.code, 303, "{}", made.body);
    let again = olga.post("/console/tournaments", &create);
    assert_eq!(again.header("location"), made.header("location"));
    let location = made.header("location").expect("location").to_owned();
    assert_eq!(my_tournaments(&mut olga).len(), 1);
    let shown = olga.get(&location);
    assert!(
        shown
            .body
            .contains("Tournament &quot;Club night&quot; created"),
        "{}",
        shown.body
    );
    let id = location
        .trim_start_matches("/console/tournaments/")
        .split('?')
        .next()
        .expect("id")
        .to_owned();

    // Without the CSRF token, or with another session's, nothing is created.
    let no_csrf = olga.post(
        "/console/tournaments",
        &form(&[("once", "create-2"), ("name", "Forged"), ("rounds", "3")]),
    );
    assert_eq!(no_csrf.code, 403);
    let mut petra = Browser::new(&web);
    assert_eq!(petra.sign_in("petra", "petra's long password").code, 303);
    let petra_csrf = petra.get("/console").csrf();
    assert_ne!(petra_csrf, csrf);
    let other = olga.post(
        "/console/tournaments",
        &form(&[
            ("csrf", &petra_csrf),
            ("once", "create-3"),
            ("name", "Forged"),
            ("rounds", "3"),
        ]),
    );
    assert_eq!(other.code, 403);
    // A post from another site (its Origin) is refused even with the right token.
    let cookie = olga.cookie_header();
    let cross = http(
        &web,
        "POST",
        "/console/tournaments",
        &[("Cookie", &cookie), ("Origin", "https://evil.example")],
        &form(&[
            ("csrf", &csrf),
            ("once", "create-4"),
            ("name", "Forged"),
            ("rounds", "3"),
        ]),
    );
    assert_eq!(cross.code, 403);
    assert_eq!(my_tournaments(&mut olga).len(), 1);

    // Petra does not organise Olga's tournament: her form changes nothing, and says why.
    let add = form(&[
        ("csrf", &petra_csrf),
        ("once", "petra-add"),
        ("name", "Intruder"),
    ]);
    let refused = petra.post(&format!("/console/tournaments/{id}/register"), &add);
    assert_eq!(refused.code, 303);
    let told = petra.get(refused.header("location").expect("location"));
    assert!(told.body.contains("Not allowed"), "{}", told.body);
    let show = as_admin(&["tournament", "show", &id]);
    assert!(!show.contains("Intruder"), "{show}");

    // Olga registers a player in another script from the console, once however often sent.
    let register = form(&[
        ("csrf", &csrf),
        ("once", "register-1"),
        ("name", "Иван Петров"),
        ("rating", "1650"),
    ]);
    for _ in 0..2 {
        let done = olga.post(&format!("/console/tournaments/{id}/register"), &register);
        assert_eq!(done.code, 303);
    }
    let show = as_admin(&["tournament", "show", &id]);
    assert_eq!(show.matches("Иван Петров").count(), 1, "{show}");

    // Sign-out ends the session at once: its token is refused by the API.
    let token = olga.session().expect("session");
    let out = olga.post("/sign-out", &form(&[("csrf", &csrf)]));
    assert_eq!(out.code, 303);
    assert!(olga.session().is_none());
    let whoami = crate::common::hanniball_as(&token, &["player", "whoami", "--server", &url]);
    assert!(
        !whoami.status.success(),
        "the signed-out session still works"
    );
    assert_eq!(
        http(
            &web,
            "GET",
            "/console",
            &[("Cookie", &format!("hb_session={token}"))],
            ""
        )
        .code,
        303
    );

    // "Sign out everywhere" from one session ends the others.
    let mut phone = Browser::new(&web);
    assert_eq!(phone.sign_in("petra", "petra's long password").code, 303);
    let account = petra.get("/account");
    assert!(account.body.contains("(this one)"));
    let everywhere = petra.post(
        "/account/sessions/revoke-all",
        &form(&[("csrf", &account.csrf()), ("once", "all-1")]),
    );
    assert_eq!(everywhere.code, 303);
    assert_eq!(phone.get("/console").code, 303, "the phone's session ended");
    assert_eq!(petra.get("/console").code, 303);

    // 20 wrong passwords lock the address out for the rest of the minute, right password too:
    // every browser here shares 127.0.0.1, which has one wrong password above.
    let mut guesser = Browser::new(&web);
    for _ in 1..20 {
        assert_eq!(guesser.sign_in("carol", "a wrong guess!").code, 401);
    }
    let locked = guesser.sign_in("olga", "olga's long password");
    assert_eq!(locked.code, 429, "{}", locked.body);
    assert!(guesser.session().is_none());

    // No password or session token in the log or the database in clear.
    drop(_server);
    let log = std::fs::read_to_string(dir.join("log")).expect("log");
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "log") && path.is_file() {
            stored.extend(std::fs::read(&path).expect("file"));
        }
    }
    let stored = String::from_utf8_lossy(&stored);
    for secret in [
        "olga's long password",
        "petra's long password",
        token.as_str(),
    ] {
        assert!(!log.contains(secret), "the log holds a secret");
        assert!(
            !stored.contains(secret),
            "the data directory holds a secret in clear"
        );
    }
    assert!(
        stored.contains("$argon2id$"),
        "passwords are stored as Argon2id hashes"
    );
}

/// The console in English, Russian and French: every page of it (one's tournaments, the account,
/// the import form, a running tournament's page with its players, results and corrections) says
/// its language, shows no message id and none of the English words its language has its own for;
/// a form's message comes back in the language of the page that sent it.
#[test]
fn the_console_reads_in_each_language() {
    let dir = data_dir("console-languages");
    let web = format!("127.0.0.1:{}", free_port());
    let (_server, url) = serve(&dir, &[("HANNIBALL__SERVER__WEB_LISTEN", web.as_str())]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let as_admin = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url.as_str()]);
        ok_as(admin, &all)
    };
    for name in ["olga", "ann", "ben", "cat"] {
        as_admin(&["player", "register", name]);
    }
    as_admin(&["player", "organiser", "olga", "--grant"]);
    crate::common::set_password(&url, admin, "olga", "olga's long password");
    let mut olga = Browser::new(&web);
    // Signing in, in French: a wrong password is refused in French.
    olga.cookies.push(("lang".to_owned(), "fr".to_owned()));
    let wrong = olga.sign_in("olga", "not the password");
    assert_eq!(wrong.code, 401);
    assert!(
        wrong.body.contains("Nom ou mot de passe incorrect."),
        "{}",
        wrong.body
    );
    assert_eq!(olga.sign_in("olga", "olga's long password").code, 303);
    // A tournament created in Russian says so in Russian.
    olga.cookies.retain(|(k, _)| k != "lang");
    olga.cookies.push(("lang".to_owned(), "ru".to_owned()));
    let csrf = olga.get("/console").csrf();
    let made = olga.post(
        "/console/tournaments",
        &form(&[
            ("csrf", &csrf),
            ("once", "create-ru"),
            ("name", "Клубный вечер"),
            ("where", "board"),
            ("system", "swiss"),
            ("rounds", "3"),
            ("bye_points", "2"),
        ]),
    );
    assert_eq!(made.code, 303, "{}", made.body);
    let location = made.header("location").expect("location").to_owned();
    let shown = olga.get(&location);
    assert!(
        shown.body.contains("Турнир «Клубный вечер» создан"),
        "{}",
        shown.body
    );
    let id = location
        .trim_start_matches("/console/tournaments/")
        .split('?')
        .next()
        .expect("id")
        .to_owned();
    as_admin(&["tournament", "add", &id, "ann", "ben", "cat"]);
    as_admin(&["tournament", "start", &id]);
    as_admin(&["tournament", "result", &id, "1", "1", "1-0"]);

    let english = crate::web::plain_messages("en");
    let pages = [
        "/console".to_owned(),
        "/account".to_owned(),
        "/console/import".to_owned(),
        format!("/console/tournaments/{id}"),
        format!("/console/tournaments/{id}?q=a"),
    ];
    for lang in ["en", "ru", "fr"] {
        let own = crate::web::plain_messages(lang);
        let foreign: Vec<&String> = english
            .iter()
            .filter(|(id, text)| text.chars().count() >= 8 && own.get(*id) != Some(*text))
            .map(|(_, text)| text)
            .collect();
        olga.cookies.retain(|(k, _)| k != "lang");
        olga.cookies.push(("lang".to_owned(), lang.to_owned()));
        for path in &pages {
            let page = olga.get(path);
            assert_eq!(page.code, 200, "{lang} {path}: {}", page.body);
            assert!(
                page.body.contains(&format!("<html lang=\"{lang}\">")),
                "{lang} {path}"
            );
            assert!(!page.body.contains('⟦'), "{lang} {path}: {}", page.body);
            let read = crate::web::words(&page.body);
            for text in &foreign {
                assert!(
                    !read.contains(text.as_str()),
                    "{lang} {path}: untranslated \"{text}\" in {read}"
                );
            }
        }
    }
    // The console's own words, in each language, on the running tournament's page.
    let mut page = |lang: &str| {
        olga.cookies.retain(|(k, _)| k != "lang");
        olga.cookies.push(("lang".to_owned(), lang.to_owned()));
        olga.get(&format!("/console/tournaments/{id}")).body
    };
    assert!(page("ru").contains("Исправить результат"));
    assert!(page("fr").contains("Corriger un résultat"));
    assert!(page("en").contains("Correct a result"));
    std::fs::remove_dir_all(&dir).ok();
}
