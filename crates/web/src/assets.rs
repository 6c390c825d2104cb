//! What pages load beside themselves and nothing computes: the site's icon and the few lines of
//! script of live pages. All compiled in: no asset comes from another site.

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
