// What every page of the table's screen shares: text-only DOM helpers, and following the daemon
// live (Server-Sent Events with a heartbeat). Loaded before each page's own script.
// Every text from the table goes in with textContent: data is never markup.
"use strict";

const LOST_AFTER_MS = 1500;   // the daemon sends a heartbeat every 0.5 s

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

function showLink(up) {
  const link = byId("link");
  link.textContent = up ? "live" : "disconnected";
  link.className = up ? "link-up" : "link-down";
  document.body.dataset.link = up ? "up" : "down";
}

// Follow the daemon's `name` events at `path`: `show(data)` for each, `tick()` every 250 ms. A page
// that hears nothing (not even a heartbeat) for LOST_AFTER_MS says "disconnected" and connects
// again by itself: the connection is dead even if the socket is not closed yet.
function follow(path, name, show, tick) {
  let source = null;
  let lastHeard = 0;
  function connect() {
    if (source) source.close();
    source = new EventSource(path);
    source.addEventListener(name, (ev) => {
      lastHeard = Date.now();
      showLink(true);
      show(JSON.parse(ev.data));
      document.body.dataset.seq = ev.lastEventId;
    });
    source.addEventListener("beat", () => { lastHeard = Date.now(); showLink(true); });
    source.onerror = () => { showLink(false); };
    lastHeard = Date.now();
  }
  function watch() {
    tick();
    if (Date.now() - lastHeard > LOST_AFTER_MS || (source && source.readyState === EventSource.CLOSED)) {
      showLink(false);
      connect();
    }
  }
  showLink(false);
  connect();
  setInterval(watch, 250);
}
