// The dealer's screen: shows what the daemon pushes (Server-Sent Events), nothing else (live.js
// follows the daemon and holds the text-only helpers). The page is the viewport: fit() summarises
// what does not fit (payments already made, then the details, then the payments after the next),
// so the instruction, the next payment, the spots and the faults are always in view.
"use strict";

const AREAS = ["ante", "progressive", "bet"];
const FAULTS_SHOWN = 3;   // more standing faults than this: the rest named on one line
let screen = null;
let receivedAt = 0;

function renderFaults(s) {
  const box = byId("faults");
  box.replaceChildren();
  for (const f of s.faults.slice(0, FAULTS_SHOWN)) {
    const row = el("div", "fault");
    row.dataset.since = String(f.since_ms);
    row.appendChild(el("span", "what", f.what));
    withRule(row, f.rule);
    const how = el("div", "how");
    how.appendChild(el("span", "does", f.dealer_does));
    if (f.key) how.appendChild(el("span", "key", " - key: " + f.key));
    how.appendChild(el("span", "for", ""));
    row.appendChild(how);
    box.appendChild(row);
  }
  const rest = s.faults.slice(FAULTS_SHOWN);
  if (rest.length) {
    box.appendChild(el("div", "more", "and " + rest.length + " more " + (rest.length === 1 ? "fault" : "faults") +
                       ": " + rest.map((f) => f.what).join("; ")));
  }
  box.hidden = s.faults.length === 0;
  tickFaults();
}

function tickFaults() {
  if (!screen) return;
  const now = screen.now_ms + (Date.now() - receivedAt);
  for (const row of byId("faults").querySelectorAll(".fault")) {
    row.querySelector(".for").textContent = " - for " + minutes(now - Number(row.dataset.since));
  }
}

function area(name, sensed, locked, check) {
  const row = el("div", "area" + (check ? " check-" + check.state.replace(" ", "-") : ""));
  row.dataset.area = name;
  row.appendChild(el("span", "name", name));
  const value = el("span", "sensed", sensed.text || "-");
  if (sensed.stacks > 1) value.textContent += " (" + sensed.stacks + " stacks)";
  row.appendChild(value);
  if (locked && locked.cents !== sensed.cents && !check) {
    row.appendChild(el("span", "locked", "locked " + (locked.text || "-")));
  }
  if (check) row.appendChild(el("span", "check", check.text));  // the board's check of the payment (9.4)
  return row;
}

function renderSpots(s) {
  const box = byId("spots");
  box.replaceChildren();
  for (const spot of s.spots) {   // spot 1 is the dealer's far left: the felt as the dealer sees it
    const wagered = AREAS.some((a) => spot.sensed[a].cents > 0 || (spot.locked[a] && spot.locked[a].cents > 0));
    const card = el("div", "spot " + spot.status + (spot.award_held ? " held" : "") + (wagered ? "" : " idle"));
    card.dataset.spot = String(spot.spot);
    const head = el("div", "head");
    head.appendChild(el("span", "num", spot.spot));
    head.appendChild(el("span", "decision", spot.decision));
    card.appendChild(head);
    for (const a of AREAS) card.appendChild(area(a, spot.sensed[a], spot.locked[a], spot.check && spot.check[a]));
    card.appendChild(el("div", "cards", spot.cards.join(" ")));
    card.appendChild(el("div", "hand", spot.hand || ""));
    if (spot.past_posting) card.appendChild(withRule(el("div", "pp", "PAST POSTING: " + spot.past_posting), "5.6"));
    if (spot.net) {  // the words per wager are in the payments column
      const net = el("div", "net" + (spot.net_cents > 0 ? " pay" : ""));
      const [verb, amount] = spot.net.split(" ");
      net.appendChild(el("span", "verb", verb + " "));
      net.appendChild(el("span", "amount", amount || ""));
      card.appendChild(net);
    }
    box.appendChild(card);
  }
}

// the printable hand-pay slip of a progressive award (9.5, 12.2): a page of its own, read-only
function slipLink(roundId, spot, text) {
  const a = el("a", "slip", text);
  a.href = "/slip?round=" + encodeURIComponent(roundId) + "&spot=" + encodeURIComponent(spot);
  a.target = "_blank";
  a.dataset.spot = String(spot);
  return a;
}

function renderSettlement(s) {
  const box = byId("settlement");
  const st = s.settlement;
  box.hidden = !st;
  const list = byId("payments");
  list.replaceChildren();
  if (!st) return;
  setText("settlement-title", "round " + st.round_id + (st.void ? " void (" + st.void + ")" : "") +
          (st.finished ? ": settled" : st.preview ? ": payments" : ": settlement"));
  for (const p of st.payments) {
    const li = el("li", p.state);
    li.dataset.kind = p.kind;
    li.dataset.spot = String(p.spot);
    li.dataset.cents = String(p.cents);
    li.dataset.verb = p.verb;
    li.appendChild(el("span", "text", p.text));
    withRule(li, p.rule);
    if (p.kind === "progressive") li.appendChild(slipLink(st.round_id, p.spot, "slip"));
    li.appendChild(el("span", "detail", p.detail));
    list.appendChild(li);
  }
  setText("totals", "house pays " + st.house_pays + ", collects " + st.house_collects);
}

function overflows(box) { return box.scrollHeight > box.clientHeight + 1; }

function spotsOf(items) { return items.map((li) => li.dataset.spot).join(", "); }

// What does not fit is summarised, never cut: first the details of the payments made, then those
// payments themselves (one line: how many, which spots), then the details of those to come, then
// those after the next (one line). The next payment always stays, with its words.
function fitPayments() {
  const list = byId("payments");
  const done = byId("paid-summary");
  const more = byId("more-summary");
  const items = [...list.children];
  for (const li of items) { li.hidden = false; delete li.dataset.fit; }
  done.hidden = more.hidden = true;
  if (byId("settlement").hidden) return;
  const made = items.filter((li) => li.classList.contains("done"));
  const waiting = items.filter((li) => li.classList.contains("todo"));
  const steps = [
    () => made.forEach((li) => { li.dataset.fit = "compact"; }),
    () => {
      made.forEach((li) => { li.hidden = true; });
      done.textContent = made.length + " " + (made.length === 1 ? "payment" : "payments") + " made (spots " + spotsOf(made) + ")";
      done.hidden = made.length === 0;
    },
    () => waiting.forEach((li) => { li.dataset.fit = "compact"; }),
  ];
  for (const step of steps) {
    if (!overflows(list)) return;
    step();
  }
  const after = [];
  for (let i = waiting.length - 1; i >= 0 && overflows(list); i--) {
    if (waiting[i].classList.contains("next")) break;
    waiting[i].hidden = true;
    after.unshift(waiting[i]);
    more.textContent = "and " + after.length + " more to make (spots " + spotsOf(after) + ")";
    more.hidden = false;
  }
}

// The spots in full; a spot with a figure wider than itself in smaller type; where the spots do
// not fit in height, smaller type for all and only the wagers that differ from those locked.
function fitSpots() {
  delete document.body.dataset.fit;
  for (const spot of byId("spots").children) {
    delete spot.dataset.fit;
    if (spot.scrollWidth > spot.clientWidth + 1) spot.dataset.fit = "narrow";
  }
  if (overflows(byId("spots"))) document.body.dataset.fit = "tight";
}

// The dealer's lines only inform: the newest first, as many as there is room for.
function fitLines() {
  const box = byId("messages");
  const bottom = box.getBoundingClientRect().bottom;
  for (const li of byId("lines").children) li.hidden = false;
  for (const li of byId("lines").children) if (li.getBoundingClientRect().bottom > bottom + 0.5) li.hidden = true;
}

function fit() {
  fitSpots();
  fitPayments();
  fitLines();
}

function render(s) {
  setText("table-id", "table " + s.table.id);
  setText("profile", "profile " + s.table.profile + (s.table.open ? "" : " - closed"));
  setText("limits", s.limits.text);
  setText("meter", s.meter.text);
  setText("meter-note", s.meter.meter_fault ? "meter out of order (14.13)" : "");
  const pending = byId("award-pending");
  pending.hidden = !s.meter.award_pending;
  pending.textContent = s.meter.award_pending ? s.meter.award_pending.text : "";
  const r = s.round;
  setText("round-id", r ? "round " + r.id : "no round");
  setText("phase", r ? r.phase_text : "");
  document.body.dataset.phase = r ? r.phase : "";
  setText("next", s.next);
  const banner = byId("banner");
  banner.hidden = !s.banner;
  banner.replaceChildren();
  if (s.banner) {
    banner.appendChild(el("span", "text", s.banner.text + " - " + s.banner.spots_text + " (" + s.banner.rule + ")"));
    const slips = el("div", "slips", "hand-pay slip:");
    for (const spot of s.banner.spots) slips.appendChild(slipLink(r.id, spot, "spot " + spot));
    banner.appendChild(slips);
  }
  const locked = byId("locked");
  locked.hidden = !s.meter.locked;
  locked.textContent = s.meter.offline ? "PROGRESSIVE LOCKED: progressive offline, no progressive wagers (14.13)"
    : s.meter.locked ? "PROGRESSIVE LOCKED: the pool cannot be reached (14.13)" : "";
  renderFaults(s);
  const d = s.dealer;
  setText("dealer-cards", d.cards.length ? d.cards.join(" ") : d.up.length ? "up: " + d.up.join(" ") : "");
  setText("dealer-hand", d.hand || "");
  renderSpots(s);
  renderSettlement(s);
  const lines = byId("lines");
  lines.replaceChildren();
  for (const m of s.messages.slice().reverse()) lines.appendChild(withRule(el("li", m.level, m.text), m.rule));
  fit();
}

window.addEventListener("resize", fit);

follow("/events", "screen", (data) => {
  screen = data;
  receivedAt = Date.now();
  render(screen);
}, tickFaults);
