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

pub(crate) const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#1d2327;background:#f4f6f3}\
header{background:#2d5a27;color:#fff;padding:.6rem 1rem}header a{color:#fff;text-decoration:none;font-weight:bold}\
main{max-width:60rem;margin:0 auto;padding:1rem}section{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d5dbd2}\
.game{display:flex;flex-wrap:wrap;gap:1.5rem}.board{width:100%;max-width:26rem;height:auto}\
.side{flex:1;min-width:16rem}.clock{font-variant-numeric:tabular-nums;font-size:1.4rem}\
.running{font-weight:bold;color:#2d5a27}ol.turns{max-height:24rem;overflow:auto;font-family:monospace}\
pre{background:#fff;padding:.5rem;overflow:auto}input[type=number]{width:5rem}[aria-current]{font-weight:bold;color:#1d2327}\
a:focus,button:focus{outline:3px solid #a04d00}\
.rules-board{max-width:26rem;margin:1rem 0}.rules-board svg{width:100%;height:auto}\
.game>#board{flex:1 1 20rem;max-width:30rem}\
:root{color-scheme:light dark}\
@media (prefers-color-scheme:dark){body{color:#e3e7e1;background:#121712}th,td{border-bottom-color:#3a4438}\
pre{background:#1e251d;color:#e3e7e1}a{color:#8ab4f8}a:visited{color:#c58af9}[aria-current]{color:#fff}\
.running{color:#7fd36f}a:focus,button:focus{outline-color:#ffb347}}";

/// Live updates on a game's page: each `update` event carries the new board, the turn played,
/// the status line and the clocks; the clocks tick in between.
pub(crate) const LIVE_SCRIPT: &str = r"
(function(){
  var source = new EventSource('/games/GAME_ID/events');
  var clocks = {white: document.getElementById('clock-white'), black: document.getElementById('clock-black')};
  var running = null, since = Date.now();
  function show(el, ms){ if(!el) return; var s = Math.max(0, Math.floor(ms/1000)); el.textContent = Math.floor(s/60) + ':' + String(s%60).padStart(2,'0'); }
  function tick(){ if(running && clocks[running]){ show(clocks[running], Number(clocks[running].dataset.ms) - (Date.now() - since)); } }
  ['white','black'].forEach(function(side){ if(clocks[side] && clocks[side].classList.contains('running')) running = side; });
  setInterval(tick, 250);
  var last = TURNS_SHOWN;
  source.addEventListener('reload', function(){ location.reload(); });
  source.addEventListener('update', function(e){
    var u = JSON.parse(e.data);
    if (u.turn && u.turn.number <= last) return;
    if (u.turn && u.turn.number > last + 1) { location.reload(); return; }
    if (u.turn) last = u.turn.number;
    document.getElementById('board').innerHTML = u.board;
    document.getElementById('status').textContent = u.status;
    if (u.turn) { var li = document.createElement('li'); li.value = u.turn.number; var a = document.createElement('a'); a.href = '/games/GAME_ID?turn=' + u.turn.number; a.textContent = u.turn.text; li.appendChild(a); var ol = document.getElementById('turns'); ol.appendChild(li); ol.scrollTop = ol.scrollHeight; }
    if (u.clocks) { ['white','black'].forEach(function(side){ var el = clocks[side]; if(!el) return; el.dataset.ms = u.clocks[side]; el.classList.toggle('running', u.clocks.running === side); show(el, u.clocks[side]); }); running = u.clocks.running; since = Date.now(); }
    if (u.over) { running = null; source.close(); }
  });
})();
";

/// A live tournament page: on each change notice, fetch the page again and swap its main part in
/// (the scroll position and anything the reader opened stay); stop when the tournament is over.
pub(crate) const TOURNAMENT_SCRIPT: &str = r"
(function(){
  var source = new EventSource('/tournaments/TOURNAMENT_ID/events');
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
