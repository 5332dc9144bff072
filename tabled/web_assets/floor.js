// The floor's view. Every text from the tables goes in with textContent: data is never markup.
"use strict";

function byId(id) { return document.getElementById(id); }
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function span(seconds) {
  const s = Math.max(0, Number(seconds) || 0);
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}
function clock(seconds) { return new Date(Number(seconds) * 1000).toLocaleTimeString(); }

function tableCard(t) {
  const card = el("section", "table");
  card.dataset.table = t.table;
  card.dataset.verify = t.verify.status;
  if (t.faults.length) card.classList.add("fault");
  if (t.verify.status === "failed") card.classList.add("failed");
  card.appendChild(el("h3", "name", t.table));
  card.appendChild(el("div", "state", (t.round || "no round") + ": " + t.phase));
  card.appendChild(el("div", "today", "today: " + t.today.rounds + " rounds, house win " + t.today.win));
  card.appendChild(el("div", "lag", t.lag_s === null ? "nothing shipped yet"
    : "journal: record " + t.head + ", last shipped " + span(t.lag_s) + " ago"
      + (t.behind === null ? "" : ", " + t.behind + " records behind")));
  card.appendChild(el("div", "verify verify-" + t.verify.status, t.verify.text));
  for (const f of t.faults) {
    card.appendChild(el("div", "fault-line", "FAULT " + f.equipment + ": " + f.reason + " - open for " + span(f.stood_s)));
  }
  for (const a of t.pending) {
    card.appendChild(el("div", "award-line", "progressive pending: round " + a.round_id + " spot " + a.spot + " "
      + a.category + " - for " + span(a.stood_s)));
  }
  return card;
}

function alertItem(a) {
  const li = el("li", a.ack ? "acked" : "open");
  li.dataset.alert = a.id;
  li.appendChild(el("span", "text", a.table + ": " + a.text + " (" + span(a.stood_s) + " ago)"));
  if (a.ack) {
    li.appendChild(el("span", "ack", " - acknowledged by " + a.ack.who + " at " + clock(a.ack.at_s)));
  } else {
    const button = el("button", "ack-button", "acknowledge");
    button.type = "button";
    button.addEventListener("click", () => acknowledge(a.id));
    li.appendChild(button);
  }
  return li;
}

async function acknowledge(id) {
  const who = byId("who").value.trim();
  const error = byId("ack-error");
  if (!who) { error.textContent = "type your name first: an alert is acknowledged by a named person"; return; }
  error.textContent = "";
  try {
    const answer = await fetch("/floor/ack", { method: "POST", headers: { "Content-Type": "application/json" },
                                               body: JSON.stringify({ alert: id, who: who }) });
    if (!answer.ok) error.textContent = (await answer.json()).error || ("refused: " + answer.status);
  } catch (e) {
    error.textContent = "not sent: the floor service cannot be reached";
  }
}

function show(v) {
  const tables = byId("tables");
  tables.replaceChildren(...v.tables.map(tableCard));
  const open = v.alerts.filter(a => !a.ack).length;
  byId("summary").textContent = v.tables.length + " tables, " + open + " alerts open, as of " + clock(v.now_s);
  const central = byId("central");
  central.hidden = !v.central;
  central.textContent = v.central ? "central database unreachable: " + v.central : "";
  byId("alert-list").replaceChildren(...v.alerts.map(alertItem));
  document.body.dataset.polls = String(v.polls);
}

let source = null;
function setLink(up) {
  const link = byId("link");
  link.textContent = up ? "live" : "disconnected";
  link.className = up ? "link-up" : "link-down";
  document.body.dataset.link = up ? "up" : "down";
}
function connect() {
  source = new EventSource("/floor/events");
  source.addEventListener("floor", e => { setLink(true); show(JSON.parse(e.data)); });
  source.addEventListener("beat", () => setLink(true));
  source.onerror = () => setLink(false);
}
document.addEventListener("DOMContentLoaded", connect);
