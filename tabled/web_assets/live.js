// What every page of the table's screen shares: text-only DOM helpers, and following the daemon
// live (Server-Sent Events with a heartbeat). Loaded before each page's own script.
// Every text from the table goes in with textContent: data is never markup.
"use strict";

const LOST_AFTER_MS = 1200;   // the daemon sends a heartbeat every 0.5 s
const WATCH_MS = 100;         // how often the page looks (and its timers tick)
const NOT_LIVE = "NOT LIVE: do not pay from this screen";

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function byId(id) { return document.getElementById(id); }

function setText(id, text) { byId(id).textContent = text === undefined || text === null ? "" : String(text); }

function withRule(node, rule) {
  if (rule) node.appendChild(el("span", "rule", "(" + rule + ")"));
  return node;
}

function minutes(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? m + " min " + (s % 60) + " s" : s + " s";
}

function utcTime(ms) { return new Date(ms).toISOString().slice(11, 19) + " UTC"; }

// The page is live only while the daemon speaks: a state, or a heartbeat after a state on the same
// stream. Otherwise the whole page says NOT LIVE over greyed figures, with when the table last spoke.
function showLive(live, why, lastHeard) {
  const link = byId("link");
  link.textContent = live ? "live" : "NOT LIVE";
  link.className = live ? "link-up" : "link-down";
  document.body.dataset.link = live ? "up" : "down";
  let cover = byId("not-live");
  if (!cover) {
    cover = el("div", "not-live");
    cover.id = "not-live";
    cover.appendChild(el("div", "say", NOT_LIVE));
    cover.appendChild(el("div", "why", ""));
    document.body.appendChild(cover);
  }
  cover.hidden = live;
  if (!live) {
    cover.querySelector(".why").textContent = why + (lastHeard ? "; last word from the table at " + utcTime(lastHeard) : "");
  }
}

// Follow the daemon's `name` events at `path`: `show(data)` for each, `tick()` every WATCH_MS while
// live. A page that hears nothing (not even a heartbeat) for LOST_AFTER_MS is NOT LIVE, its timers
// stop, and it connects again by itself: the connection is dead even if the socket is not closed
// yet. It is live again only with a state received on the new stream, never with the old one.
function follow(path, name, show, tick) {
  let source = null;
  let lastHeard = 0;      // when this stream last spoke (ms, the page's clock)
  let stateHeard = false; // this stream has sent a state
  let live = false;
  let lastLive = 0;       // when the page last was live, for the words on the cover
  function set(up, why) {
    if (up) lastLive = Date.now();
    if (up === live && up) return;
    live = up;
    showLive(up, why, lastLive);
  }
  function connect() {
    if (source) source.close();
    stateHeard = false;
    const stream = new EventSource(path);
    source = stream;
    stream.addEventListener(name, (ev) => {
      if (stream !== source) return;
      lastHeard = Date.now();
      stateHeard = true;
      show(JSON.parse(ev.data));
      document.body.dataset.seq = ev.lastEventId;
      set(true);
    });
    stream.addEventListener("beat", (ev) => {
      if (stream !== source) return;
      lastHeard = Date.now();
      const beat = ev.data ? JSON.parse(ev.data) : {};
      if (beat.table === false) set(false, "the table is not answering");
      else if (stateHeard) set(true);
    });
    stream.onerror = () => { if (stream === source) set(false, "no connection to the table"); };
    lastHeard = Date.now();
  }
  function watch() {
    if (live) tick();
    if (Date.now() - lastHeard > LOST_AFTER_MS || (source && source.readyState === EventSource.CLOSED)) {
      set(false, "no word from the table");
      connect();
    }
  }
  showLive(false, "connecting to the table", 0);
  connect();
  setInterval(watch, WATCH_MS);
}
