// The pit's view: shows what the daemon pushes (Server-Sent Events), nothing else (live.js follows
// the daemon and holds the text-only helpers).
"use strict";

let pit = null;
let receivedAt = 0;

// a journal record's time, UTC, and its number
function when(w) {
  return new Date(w.time_ms).toISOString().slice(0, 19).replace("T", " ") + " UTC #" + w.record;
}

function list(id, items, make) {
  const box = byId(id);
  box.replaceChildren();
  for (const item of items) box.appendChild(make(item));
}

function renderJournal(j) {
  setText("head-seq", j.head_seq);
  setText("head-hash", j.head_hash);
  const chain = byId("chain");
  chain.className = j.ok ? "ok" : "broken";
  chain.textContent = j.ok ? "hash chain verified to record " + j.verified_seq
    : "HASH CHAIN BROKEN: " + j.problem + " (run tabled audit verify)";
  const shipping = byId("shipping");
  shipping.hidden = !j.shipping_waits;
  shipping.textContent = j.shipping_waits ? "NOT SHIPPED to the central copy: " + j.shipping_waits : "";
  document.body.dataset.head = String(j.head_seq);
}

// the players seated now: the card number comes masked, as every page shows it
function renderPlayers(players) {
  const body = byId("players").tBodies[0];
  body.replaceChildren();
  for (const p of players || []) {
    const row = el("tr", p.anonymous ? "anonymous" : "carded");
    row.dataset.spot = String(p.spot);
    row.appendChild(el("td", "spot", "spot " + p.spot));
    row.appendChild(el("td", "card", p.card));
    row.appendChild(el("td", "figures", p.text));
    body.appendChild(row);
  }
}

function renderDevices(devices) {
  const body = byId("devices").tBodies[0];
  body.replaceChildren();
  for (const d of devices) {
    const row = el("tr", d.up && !d.fault ? "up" : "down");
    row.dataset.device = d.device;
    row.appendChild(el("td", "name", d.name));
    row.appendChild(el("td", "link", "link " + d.link));
    row.appendChild(el("td", "fault", d.fault ? "fault (14.13): " + d.fault : ""));
    body.appendChild(row);
  }
}

function renderFaults(faults) {
  list("faults-open", faults.open, (f) => {
    const li = withRule(el("li", "fault", f.what), f.rule);
    li.dataset.since = String(f.since_ms);
    if (f.detail) li.appendChild(el("div", "detail", "reported: " + f.detail));  // the device's or library's words
    li.appendChild(el("div", "does", f.dealer_does + (f.key ? "; key: " + f.key : "")));
    li.appendChild(el("div", "for", ""));
    return li;
  });
  list("faults-cleared", faults.cleared, (c) => {
    const li = el("li", "cleared");
    li.dataset.equipment = c.equipment;
    li.appendChild(el("span", "what", c.name + (c.reason ? ": " + c.reason : "")));
    li.appendChild(el("div", "raised", c.raised ? "raised " + when(c.raised) : ""));
    li.appendChild(el("div", "by", "cleared " + when(c.cleared) + " by " + c.by_text +
                      (c.by ? " at " + when(c.by) : "")));
    return li;
  });
  tickFaults();
}

function tickFaults() {
  if (!pit) return;
  const now = pit.now_ms + (Date.now() - receivedAt);
  for (const li of byId("faults-open").children) {
    li.querySelector(".for").textContent = "for " + minutes(now - Number(li.dataset.since));
  }
}

// the rounds the supervisor opened or closed, kept across pushes (the newest is open unless closed)
const opened = new Set();
const closed = new Set();
let roundsShown = "";

function renderRounds(rounds) {
  const key = rounds.map((r) => r.record).join(",");
  if (key === roundsShown) return;  // the same rounds: the page is left as the supervisor set it
  roundsShown = key;
  list("rounds", rounds, (r) => {
    const id = r.round_id || "";
    const box = el("details", "round");
    box.dataset.round = id;
    let shown = opened.has(id) || (r === rounds[0] && !closed.has(id));
    box.open = shown;
    box.appendChild(el("summary", "", "round " + id + "  " + when(r) + (r.totals ? "  " + r.totals : "")));
    box.appendChild(el("pre", "settlement", r.table || r.problem));
    box.addEventListener("toggle", () => {
      if (box.open === shown) return;  // the page's own setting, not the supervisor's
      shown = box.open;
      (box.open ? opened : closed).add(id);
      (box.open ? closed : opened).delete(id);
    });
    return box;
  });
}

function render(p) {
  const s = p.screen;
  setText("table-id", "table " + s.table.id);
  setText("profile", "profile " + s.table.profile + (s.table.open ? "" : " - closed"));
  setText("limits", s.limits.text);
  setText("round-id", s.round ? "round " + s.round.id : "no round");
  setText("phase", s.round ? s.round.phase_text : "");
  setText("next", s.next);
  renderJournal(p.journal);
  renderDevices(p.devices);
  renderPlayers(p.players);
  setText("pool-meter", s.meter.text + (s.meter.locked ? "  (progressive locked, 14.13)" : "") +
          (s.meter.award_pending ? "  " + s.meter.award_pending.text : ""));
  list("hits", p.pool.hits, (h) => {
    const li = el("li", "hit");
    li.appendChild(el("span", "when", when(h)));
    li.appendChild(el("span", "text", "round " + h.round_id + " " + h.text));
    withRule(li, h.rule);
    // the award's hand-pay slip (9.5), as on the dealer's screen
    const slip = el("a", "slip", "slip");
    slip.href = "/slip?round=" + encodeURIComponent(h.round_id) + "&spot=" + encodeURIComponent(h.spot);
    slip.target = "_blank";
    li.appendChild(slip);
    return li;
  });
  renderFaults(p.faults);
  list("decisions", p.decisions, (d) => {
    const li = el("li", d.verdict);
    li.appendChild(el("span", "when", when(d)));
    li.appendChild(el("span", "text", d.key + " key: " + d.action + " " + d.verdict));
    return withRule(li, d.rule);
  });
  list("mispays", p.mispays || [], (m) => {  // the board's check of the payments (9.3, 9.4)
    const li = el("li", m.kind.replace(".", "-"));
    li.appendChild(el("span", "when", when(m)));
    li.appendChild(el("span", "text", "round " + m.round_id + ": " + m.text));
    return withRule(li, m.rule);
  });
  renderRounds(p.rounds);
  // game protection's alerts: evidence for people, the rounds that carry it and their records
  list("protection", p.protection || [], (a) => {
    const li = el("li", "alert");
    li.dataset.spot = String(a.spot);
    li.appendChild(el("span", "when", when(a)));
    li.appendChild(el("span", "text", a.text));
    const rounds = el("ol", "evidence");
    for (const r of a.rounds) {
      rounds.appendChild(el("li", "", r.round_id + " " + r.time + (r.clock ? " (" + r.clock + ")" : "") + ": " +
                            r.cards.join(" ") + " vs " + r.up +
                            " (hole " + r.holes.join(" ") + "): " + r.decision + "; records " + r.records.join(",")));
    }
    li.appendChild(rounds);
    return li;
  });
}

follow("/pit/events", "pit", (data) => {
  pit = data;
  receivedAt = Date.now();
  render(pit);
  document.body.dataset.screenSeq = String(pit.screen_seq);  // the dealer's screen it was made with
}, tickFaults);

// the inspector's answer (tabled/daemon/answers.py): badge and PIN in the request's body, never in a URL
document.getElementById("answer-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("answer");
  const pin = document.getElementById("answer-pin");
  const body = {badge: document.getElementById("answer-badge").value, pin: pin.value,
                method: document.getElementById("answer-method").value,
                seed: document.getElementById("answer-seed").value || null};
  pin.value = "";
  out.textContent = "computing...";
  out.dataset.state = "asked";
  try {
    const r = await fetch("/pit/answer", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify(body), credentials: "same-origin"});
    const a = await r.json();
    out.textContent = r.ok ? a.files + " files, " + a.method + (a.seed ? " seed " + a.seed : "") + ": " + a.answer
                           : "refused: " + a.error;
    out.dataset.state = r.ok ? "answered" : "refused";
  } catch (e) {
    out.textContent = "no answer: " + e;
    out.dataset.state = "refused";
  }
});
