// The floor's view. Every text from the tables goes in with textContent: data is never markup.
// Each poll updates the page in place: a table's card, an alert's line and its button stay the
// same elements from one update to the next (a click is never lost to a rebuilt button); only a
// text that changed is written.
"use strict";

function byId(id) { return document.getElementById(id); }
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function setText(node, text) {
  const value = text === undefined || text === null ? "" : String(text);
  if (node.textContent !== value) node.textContent = value;
}
function span(seconds) {
  const s = Math.max(0, Math.floor(Number(seconds) || 0));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}
// a time as the rest of tabled shows it: UTC, 24-hour
function clock(seconds) {
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace("T", " ") + " UTC";
}

// the lines of a list inside a card (faults, awards pending): rewritten only when they changed
function setLines(container, cls, lines) {
  const now = Array.from(container.children).map(n => n.textContent);
  if (now.length === lines.length && now.every((t, i) => t === lines[i])) return;
  container.replaceChildren(...lines.map(text => el("div", cls, text)));
}

const cards = new Map();   // table id -> its card's parts
function card(id) {
  let c = cards.get(id);
  if (c) return c;
  const node = el("section", "table");
  node.dataset.table = id;
  c = { node: node, name: el("h3", "name", id), state: el("div", "state"), today: el("div", "today"),
        lag: el("div", "lag"), verify: el("div", "verify"), stale: el("div", "stale-line"),
        faults: el("div", "faults"), pending: el("div", "pending") };
  c.stale.hidden = true;
  node.append(c.name, c.stale, c.state, c.today, c.lag, c.verify, c.faults, c.pending);
  cards.set(id, c);
  return c;
}

function showTable(t, stale) {
  const c = card(t.table);
  c.node.dataset.verify = t.verify.status;
  c.node.classList.toggle("fault", t.faults.length > 0);
  c.node.classList.toggle("failed", t.verify.status === "failed");
  c.node.classList.toggle("stale", stale);
  c.node.dataset.stale = stale ? "yes" : "no";
  c.stale.hidden = !stale;
  setText(c.stale, stale ? (t.read_s === null ? "stale: its central copy has not been read yet"
    : "stale: its central copy was last read at " + clock(t.read_s)) : "");
  setText(c.state, (t.round || "no round") + ": " + t.phase);
  setText(c.today, "today: " + t.today.rounds + " rounds, house win " + t.today.win);
  setText(c.lag, t.lag_s === null ? "nothing shipped yet"
    : "journal: record " + t.head + ", last shipped " + span(t.lag_s) + " ago"
      + (t.behind === null ? "" : ", " + t.behind + " records behind"));
  c.verify.className = "verify verify-" + t.verify.status;
  setText(c.verify, t.verify.text);
  setLines(c.faults, "fault-line", t.faults.map(f => "FAULT " + f.equipment + ": " + f.reason + " - open for " + span(f.stood_s)));
  setLines(c.pending, "award-line", t.pending.map(a => "progressive pending: round " + a.round_id + " spot " + a.spot
    + " " + a.category + " - for " + span(a.stood_s)));
  return c.node;
}

const alerts = new Map();   // alert id -> its line's parts
function alertLine(a) {
  let line = alerts.get(a.id);
  if (!line) {
    const li = el("li", "open");
    li.dataset.alert = a.id;
    line = { node: li, text: el("span", "text"), ack: el("span", "ack"), button: el("button", "ack-button", "acknowledge") };
    line.button.type = "button";
    line.button.addEventListener("click", () => acknowledge(a.id, line.button));
    li.append(line.text, line.button, line.ack);
    alerts.set(a.id, line);
  }
  setText(line.text, a.table + ": " + a.text + " (" + span(a.stood_s) + " ago)");
  line.node.className = a.ack ? "acked" : "open";
  setText(line.ack, a.ack ? " - acknowledged by " + a.ack.who + " at " + clock(a.ack.at_s) : "");
  if (a.ack && line.button.isConnected) line.button.remove();
  return line.node;
}

// the children of ``parent`` in this order, moving only those out of place
function arrange(parent, nodes) {
  nodes.forEach((node, i) => {
    if (parent.children[i] !== node) parent.insertBefore(node, parent.children[i] || null);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild.remove();
}

async function acknowledge(id, button) {
  const who = byId("who").value.trim();
  const error = byId("ack-error");
  if (!who) { error.textContent = "type your name first: an alert is acknowledged by a named person"; return; }
  error.textContent = "";
  button.disabled = true;
  try {
    const answer = await fetch("/floor/ack", { method: "POST", headers: { "Content-Type": "application/json" },
                                               body: JSON.stringify({ alert: id, who: who }) });
    if (!answer.ok) error.textContent = (await answer.json()).error || ("refused: " + answer.status);
  } catch (e) {
    error.textContent = "not sent: the floor service cannot be reached";
  } finally {
    button.disabled = false;
  }
}

let linkUp = false;
let lastView = 0;            // the page's own clock (ms) when the last view came
let staleAfterMs = 5000;
let centralDown = false;

function showLink() {
  const link = byId("link");
  const quiet = linkUp && Date.now() - lastView > staleAfterMs;   // beats, but no view: the floor is stuck
  const state = !linkUp ? "down" : centralDown || quiet ? "stale" : "up";
  setText(link, { up: "live", down: "disconnected", stale: "stale: the central data is not moving" }[state]);
  link.className = "link-" + state;
  document.body.dataset.link = state;
  if (quiet) {
    for (const c of cards.values()) {
      c.node.classList.add("stale");
      c.node.dataset.stale = "yes";
    }
  }
}

function show(v) {
  lastView = Date.now();
  staleAfterMs = Number(v.stale_after_s) * 1000 || staleAfterMs;
  const stale = new Set(v.tables.filter(t => t.stale).map(t => t.table));
  arrange(byId("tables"), v.tables.map(t => showTable(t, stale.has(t.table))));
  for (const id of Array.from(cards.keys())) {
    if (!v.tables.some(t => t.table === id)) cards.delete(id);
  }
  const open = v.alerts.filter(a => !a.ack).length;
  setText(byId("summary"), v.tables.length + " tables, " + open + " alerts open, as of " + clock(v.now_s));
  const central = byId("central");
  central.hidden = !v.central;
  setText(central, v.central ? "central database unreachable: " + v.central : "");
  centralDown = Boolean(v.central) || stale.size > 0;
  arrange(byId("alert-list"), v.alerts.map(alertLine));
  for (const id of Array.from(alerts.keys())) {
    if (!v.alerts.some(a => a.id === id)) alerts.delete(id);
  }
  latest = v;
  applyFilters();
  document.body.dataset.polls = String(v.polls);
  showLink();
}

// the filters: a pit, tables in trouble, a table's id (a part of it); the alerts follow the pit and the id
let latest = null;
function filtered(v) {
  const pit = byId("pit-filter").value;
  const trouble = byId("trouble-filter").checked;
  const text = byId("table-filter").value.trim().toLowerCase();
  const alerted = new Set(v.alerts.filter(a => !a.ack).map(a => a.table));
  const pitOf = new Map(v.tables.map(t => [t.table, t.pit]));
  const place = id => (!pit || pitOf.get(id) === pit) && (!text || id.toLowerCase().includes(text));
  const tables = v.tables.filter(t => place(t.table)
    && (!trouble || t.faults.length > 0 || alerted.has(t.table) || t.verify.status === "failed"));
  return { tables: new Set(tables.map(t => t.table)), alerts: new Set(v.alerts.filter(a => place(a.table)).map(a => a.id)) };
}
function applyFilters() {
  if (!latest) return;
  const pits = byId("pit-filter");
  const names = Array.from(pits.options).slice(1).map(o => o.value);
  if (names.join("\n") !== latest.pits.join("\n")) {
    const chosen = pits.value;
    pits.replaceChildren(pits.options[0], ...latest.pits.map(p => el("option", null, p)));
    pits.value = latest.pits.includes(chosen) ? chosen : "";
  }
  const shown = filtered(latest);
  for (const [id, c] of cards) c.node.hidden = !shown.tables.has(id);
  for (const [id, line] of alerts) line.node.hidden = !shown.alerts.has(id);
  byId("tables").dataset.shown = String(shown.tables.size);
  setText(byId("shown"), shown.tables.size === latest.tables.length ? ""
    : "showing " + shown.tables.size + " of " + latest.tables.length + " tables");
}

function connect() {
  const source = new EventSource("/floor/events");
  source.addEventListener("floor", e => { linkUp = true; show(JSON.parse(e.data)); });
  source.addEventListener("beat", () => { linkUp = true; showLink(); });
  source.onerror = () => { linkUp = false; showLink(); };
}
document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["pit-filter", "trouble-filter", "table-filter"]) {
    byId(id).addEventListener("input", applyFilters);
  }
  connect();
  setInterval(showLink, 1000);
});
