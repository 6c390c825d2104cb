//! What every page shares and nothing computes: the style sheet, the site's icon and the few
//! lines of script of live pages. All compiled in: no asset comes from another site.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// The site's icon: a ball on a pitch.
pub(crate) async fn favicon() -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
         <rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#2d5a27\"/>\
         <circle cx=\"8\" cy=\"8\" r=\"4.5\" fill=\"#fff\" stroke=\"#1d2327\"/></svg>",
    )
        .into_response()
}

pub(crate) const STYLE: &str = ":root{color-scheme:light dark;--bg:#f4f6f3;--line:#d5dbd2;--fg:#1d2327}\
body{font-family:system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}\
header{background:#2d5a27;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;justify-content:space-between}\
header a{color:#fff;text-decoration:none;font-weight:bold}form.search{display:flex;gap:.3rem}form.search input{width:12rem;max-width:55vw}\
main{max-width:60rem;margin:0 auto;padding:1rem}section{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line)}\
table.fixed td:first-child,table.fixed th:first-child{position:sticky;left:0;width:2.4rem;min-width:2.4rem;max-width:2.4rem;box-sizing:border-box;background:var(--bg)}\
table.fixed .name{position:sticky;left:2.4rem;background:var(--bg);box-shadow:2px 0 0 var(--line);overflow-wrap:anywhere;min-width:6rem}\
td a[href*=\"/players/\"]{overflow-wrap:anywhere}table.games td a[href*=\"/players/\"]{overflow-wrap:break-word}table.games .narrow{display:none}.cross td,.res,.pairings td:nth-child(3){white-space:nowrap}.num{text-align:right}td small{color:#4f5b4c;font-size:.85em}\
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;font-size:.9rem}dl.legend dt{font-weight:bold}dl.legend dd{margin:0}\
.game{display:flex;flex-wrap:wrap;gap:1.5rem}.board{width:100%;max-width:26rem;height:auto}\
.side{flex:1;min-width:16rem}.game>.now{flex:1 1 100%;display:flex;flex-wrap:wrap;gap:0 1.5rem;align-items:baseline}.game>.now p{margin:.2rem 0}.clock{font-variant-numeric:tabular-nums;font-size:1.4rem}\
.running{font-weight:bold;color:#2d5a27}ol.turns{max-height:24rem;overflow:auto;font-family:monospace}\
pre{background:#fff;padding:.5rem;overflow:auto}input[type=number]{width:5rem}[aria-current]{font-weight:bold;color:var(--fg)}\
a:focus,button:focus,input:focus{outline:3px solid #a04d00}header a:focus,header button:focus,header input:focus{outline-color:#fff}\
.rules-board{max-width:26rem;margin:1rem 0}.rules-board svg{width:100%;height:auto}\
.game>#board{flex:1 1 20rem;max-width:30rem}.game>#board svg{width:100%;max-width:none;height:auto}\
svg.chart{width:100%;height:13rem;display:block}svg.results{width:100%;max-width:36rem;height:auto;display:block}svg.results text{font-size:12px}table.statistics{font-size:.85rem}table.statistics th{white-space:nowrap}table.statistics th,table.statistics td{padding:.3rem .25rem}svg.chart text{font-size:12px;fill:currentColor}svg text.coord{fill:currentColor}\
nav.pages{display:flex;gap:1rem}h1{overflow-wrap:anywhere}header [aria-current]{color:#fff;text-decoration:underline}\
@media (max-width:40rem){main{padding:.5rem}table.fixed .name{max-width:8.5rem}th,td{padding:.25rem .3rem}h1{font-size:1.4rem}\
table.standings .rating,table.card .wide,table.games .wide{display:none}table.games .narrow{display:inline}table.standings,table.card,table.games{font-size:.9rem}:is(table.standings,table.card,table.games) :is(th,td){padding:.25rem .2rem}:is(table.standings,table.card) .name{max-width:7.5rem}\
table.statistics{font-size:.75rem}table.statistics th,table.statistics td{padding:.25rem .1rem}table.statistics thead th{white-space:normal}\
.game{gap:.8rem}.game>#board,.game>.side{flex:1 1 100%;max-width:none;min-width:0}.kind{display:block;font-size:.8em}}\
@media (prefers-color-scheme:dark){:root{--bg:#121712;--line:#3a4438;--fg:#e3e7e1}td small{color:#a9b4a5}\
pre{background:#1e251d;color:#e3e7e1}a{color:#8ab4f8}a:visited{color:#c58af9}header a,header a:visited{color:#fff}[aria-current]{color:#fff}\
.running{color:#7fd36f}a:focus,button:focus,input:focus{outline-color:#ffb347}}\
@media print,(min-width:40rem){.sheet h2{font-size:2rem}.sheet table{font-size:1.5rem}.sheet td,.sheet th{padding:.45rem .6rem}\
.sheet table.fixed td:first-child,.sheet table.fixed th:first-child{width:4rem;min-width:4rem;max-width:4rem}.sheet table.fixed .name{left:4rem}}\
table.fixed thead th{white-space:nowrap}\
@media print{:root{--bg:#fff;--fg:#000}body{background:#fff;color:#000}header,.noprint{display:none}main{max-width:none;padding:0}\
a{color:#000;text-decoration:none}.sheet{break-after:page;page-break-after:always}.sheet:last-child{break-after:auto;page-break-after:auto}\
section{overflow:visible}}";

/// Live updates on a game's page: each `update` event carries the new board, the turn played,
/// the status line and the board's title (the same words) in each language and the clocks (and, once the game is over, the replay
/// links in each language: the page takes those of its `<html lang>`); the clocks
/// tick in between, and the current-turn marker moves to the turn just played.
pub(crate) const LIVE_SCRIPT: &str = r"
(function(){
  var data = document.currentScript.dataset, game = data.game;
  var source = new EventSource('/games/' + game + '/events');
  var clocks = {white: document.getElementById('clock-white'), black: document.getElementById('clock-black')};
  var running = null, since = Date.now();
  function show(el, ms){ if(!el) return; var s = Math.max(0, Math.floor(ms/1000)); el.textContent = Math.floor(s/60) + ':' + String(s%60).padStart(2,'0'); }
  function tick(){ if(running && clocks[running]){ show(clocks[running], Number(clocks[running].dataset.ms) - (Date.now() - since)); } }
  ['white','black'].forEach(function(side){ if(clocks[side] && clocks[side].classList.contains('running')) running = side; });
  setInterval(tick, 250);
  var last = Number(data.turns), lang = document.documentElement.lang;
  function words(w){ return w && typeof w === 'object' ? (w[lang] || w.en) : w; }
  source.addEventListener('reload', function(){ location.reload(); });
  source.addEventListener('update', function(e){
    var u = JSON.parse(e.data);
    if (u.turn && u.turn.number <= last) return;
    if (u.turn && u.turn.number > last + 1) { location.reload(); return; }
    if (u.turn) last = u.turn.number;
    document.getElementById('board').innerHTML = u.board;
    document.getElementById('status').textContent = words(u.status);
    var title = document.querySelector('#board svg > title'); if (title && u.title) title.textContent = words(u.title);
    if (u.turn) {
      var ol = document.getElementById('turns');
      ol.querySelectorAll('[aria-current]').forEach(function(el){ el.removeAttribute('aria-current'); });
      var li = document.createElement('li'); li.value = u.turn.number;
      var a = document.createElement('a'); a.href = '/games/' + game + '?turn=' + u.turn.number; a.textContent = u.turn.text;
      a.setAttribute('aria-current', 'step'); li.appendChild(a); ol.appendChild(li); ol.scrollTop = ol.scrollHeight;
    }
    if (u.clocks) { ['white','black'].forEach(function(side){ var el = clocks[side]; if(!el) return; el.dataset.ms = u.clocks[side]; el.classList.toggle('running', u.clocks.running === side); show(el, u.clocks[side]); }); running = u.clocks.running; since = Date.now(); }
    if (u.replay && !document.querySelector('nav.replay')) { document.querySelector('.game').insertAdjacentHTML('beforebegin', words(u.replay)); }
    if (u.over) { running = null; source.close(); }
  });
})();
";

/// The arrow keys (and Home, End) follow a game page's replay links, whenever they are there.
pub(crate) const KEYS_SCRIPT: &str = "document.addEventListener('keydown',function(e){var a=null;\
if(e.key==='ArrowLeft')a=document.getElementById('prev');\
if(e.key==='ArrowRight')a=document.getElementById('next');\
if(e.key==='Home')a=document.getElementById('first');\
if(e.key==='End')a=document.getElementById('last');\
if(a){e.preventDefault();location.href=a.href;}});";

/// A live tournament page: on each change notice, fetch the page again and swap its main part in
/// (the scroll position and anything the reader opened stay); stop when the tournament is over.
pub(crate) const TOURNAMENT_SCRIPT: &str = r"
(function(){
  var source = new EventSource('/tournaments/' + document.currentScript.dataset.tournament + '/events');
  var busy = false, again = false;
  function refresh(){
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, {headers: {'Accept': 'text/html'}})
      .then(function(r){ return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function(html){
        var next = new DOMParser().parseFromString(html, 'text/html').querySelector('main');
        if (next) { document.querySelector('main').innerHTML = next.innerHTML; }
        if (next && !next.querySelector('[data-live]')) { source.close(); }
      })
      .catch(function(){})
      .finally(function(){ busy = false; if (again) { again = false; refresh(); } });
  }
  source.addEventListener('changed', refresh);
})();
";

/// The home page: every 5 s while it is in view, fetch the game tables again
/// (`/fragments/games`) and swap them in when they changed, so that a game started or ended
/// shows without a reload.
pub(crate) const HOME_SCRIPT: &str = r"
(function(){
  var box = document.getElementById('games'), busy = false, last = box && box.innerHTML;
  if (!box) return;
  setInterval(function(){
    if (busy || document.hidden) return;
    busy = true;
    fetch('/fragments/games', {headers: {'Accept': 'text/html'}})
      .then(function(r){ return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function(html){ if (html !== last) { box.innerHTML = html; last = html; } })
      .catch(function(){})
      .finally(function(){ busy = false; });
  }, 5000);
})();
";

/// `GET /assets/{name}.js`: the pages' scripts, from the site itself (the Content-Security-Policy
/// allows no inline script); what a page's script needs comes in its `data-*` attributes.
pub(crate) async fn script(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    let body = match name.as_str() {
        "live.js" => LIVE_SCRIPT,
        "keys.js" => KEYS_SCRIPT,
        "tournament.js" => TOURNAMENT_SCRIPT,
        "home.js" => HOME_SCRIPT,
        _ => return crate::html::not_found().await,
    };
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        body,
    )
        .into_response()
}
