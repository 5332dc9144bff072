// A progressive award's hand-pay slip: what /slip.json says, as text (textContent), nothing else.
"use strict";

function setText(id, text) { document.getElementById(id).textContent = text === undefined || text === null ? "" : String(text); }

async function load() {
  const query = new URLSearchParams(location.search);
  const url = "/slip.json?round=" + encodeURIComponent(query.get("round") || "") +
              "&spot=" + encodeURIComponent(query.get("spot") || "");
  const response = await fetch(url, { credentials: "same-origin" });
  const slip = await response.json();
  if (!response.ok) {
    setText("problem", slip.problem || "no slip");
    document.getElementById("problem").hidden = false;
    document.body.dataset.state = "problem";
    return;
  }
  setText("property", slip.property);
  setText("number", "no. " + slip.number);
  setText("time-local", slip.time_local);
  setText("time-utc", slip.time_utc);
  setText("table-id", slip.table_name === slip.table_id ? slip.table_id : slip.table_name + " (" + slip.table_id + ")");
  setText("round-id", slip.round_id);
  setText("spot", slip.spot);
  setText("cards", slip.cards.join(" "));
  setText("hand", slip.hand);
  setText("amount", slip.amount + " (" + slip.category + ", " + slip.rule + "; payment " + slip.order + " of " + slip.of + ")");
  setText("from-pool", slip.from_pool);
  setText("topup", slip.operator_topup);
  setText("pool-before", slip.pool_before);
  setText("pool-after", slip.pool_after);
  setText("round-pool-after", slip.round_pool_after + (slip.reset ? " (jackpot won: reset)" : ""));
  setText("confirmed", slip.confirmed ? slip.confirmed.text : "not yet confirmed on the panel (9.5)");
  const numbers = ["settlement " + slip.settled.record, "pool's awards " + slip.awards.record];
  if (slip.confirmed) numbers.push("confirmation " + slip.confirmed.records.join(", "));
  setText("records", numbers.join("; "));
  for (const [id, key] of [["amount", "amount_cents"], ["from-pool", "from_pool_cents"], ["topup", "operator_topup_cents"],
                           ["pool-before", "pool_before_cents"], ["pool-after", "pool_after_cents"]]) {
    document.getElementById(id).dataset.cents = String(slip[key]);
  }
  document.getElementById("slip").hidden = false;
  document.body.dataset.state = "shown";
}

document.getElementById("print").addEventListener("click", () => window.print());
load();
