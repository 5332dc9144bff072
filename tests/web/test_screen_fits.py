"""The dealer's screen fits a dealer's monitor: at 1024x768, 1280x800 and 1920x1080, for the
longest real content (seven spots; a royal flush, a straight flush and three fixed awards; six
folds; a standing fault), the instruction with its amount, the next payment, every spot and every
standing fault lie inside the viewport, nothing scrolls, and no word is cut. What does not fit is
summarised (the payments made on one line). The screen's own server and page, fed by a table core
folding scripted rounds (the simulated shuffler cannot be told to deal them); a screenshot of each
size and moment goes to the test's folder (``-s`` prints it; docs/screenshots/ keeps some)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tabled.game.cards import parse_cards
from tests.table.harness import Harness
from tests.web.daemon import screen_page, shown

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

SIZES = [(1024, 768), (1280, 800), (1920, 1080)]
#: five progressive hands (12.1: royal, straight flush; fixed: four of a kind, full house, flush),
#: a pair, a fold
HITS = {1: "Ah Kh Qh Jh Th", 2: "9s 8s 7s 6s 5s", 3: "4c 4d 4h 4s 2c", 4: "Qc Qd Qs 3c 3d", 5: "2d 5d 9d Jd Kd",
        6: "7c 7d Tc 8c 6c", 7: "2h 3h 5h 6d 8d", "dealer": "Ac Kc 9c 3s 2s"}
SIX_FOLDS = {1: "2c 7d 9h Js Kd", 2: "3c 8d Th Qs 4d", 3: "4c 9d Jh 2s 6d", 4: "5c Td Qh 3s 7h",
             5: "6c Jd Kh 4s 8s", 6: "7c Qd 2h 5s 9c", 7: "As Ad Ah Ks 6h", "dealer": "Ac Kc 8h 3d 5h"}
METER_LOST = "link lost: port closed: device reports readiness to read but returned no data"

#: every box the dealer must act on, and whether it lies in the viewport, uncut
IN_VIEW = """() => {
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const out = [];
  const box = (e) => e.getBoundingClientRect();
  const check = (name, e, within) => {
    if (!e) { out.push(name + ": not on the page"); return; }
    const r = box(e);
    if (r.width === 0 || r.height === 0) out.push(name + ": not shown");
    if (r.top < -0.5 || r.left < -0.5 || r.bottom > vh + 0.5 || r.right > vw + 0.5)
      out.push(name + ": outside the viewport " + JSON.stringify([r.left, r.top, r.right, r.bottom]));
    if (within) {
      const b = box(within);
      if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) out.push(name + ": cut by its box");
    }
    for (const t of e.querySelectorAll("*")) {
      const inner = box(t);
      const out_of = inner.right > r.right + 0.5 || inner.left < r.left - 0.5 || inner.bottom > r.bottom + 0.5;
      if (inner.width > 0 && out_of)
        out.push(name + ": '" + t.textContent + "' sticks out of it");
    }
    if (e.scrollWidth > e.clientWidth + 1) out.push(name + ": words cut");
  };
  check("instruction", document.querySelector("#next"));
  const main = document.querySelector("main");
  document.querySelectorAll(".spot").forEach((e) => check("spot " + e.dataset.spot, e, main));
  document.querySelectorAll("#faults .fault, #faults .more").forEach((e, i) => check("fault " + (i + 1), e));
  const next = document.querySelector("#payments li.next");
  if (next) check("next payment", next, document.querySelector("#payments"));
  if (document.documentElement.scrollHeight > vh + 1 || document.documentElement.scrollWidth > vw + 1)
    out.push("the page scrolls");
  return out;
}"""


class Fed:
    """The screen's server fed by a scripted table core, as the daemon's listener feeds it."""

    def __init__(self) -> None:
        self.h = Harness()
        self.server = ScreenServer(SimpleNamespace(core=self.h.core), ScreenConfig(port=0))

    def feed(self, kind: str, **payload) -> None:
        self.server.listener(self.h.feed(kind, **payload))

    def panel(self, action: str, **fields) -> None:
        self.feed("panel", action=action, key="dealer", **fields)

    def deal(self, hands: dict) -> None:
        for target in self.h.round.dealt_to:
            self.feed("shuffler.hand", cards=list(parse_cards(hands[target])), back=self.h.round.back)


async def looked_at(fed: Fed, page, moment: str, folder) -> list[str]:
    """At each size: what is out of view (nothing, to pass); a screenshot of the viewport."""
    await shown(page, fed.server)
    problems = []
    for w, h in SIZES:
        await page.set_viewport_size({"width": w, "height": h})
        await page.wait_for_function(f"document.documentElement.clientWidth === {w}")
        await page.evaluate("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
        problems += [f"{w}x{h} {moment}: {p}" for p in await page.evaluate(IN_VIEW)]
        await page.screenshot(path=str(folder / f"screen-{moment}-{w}x{h}.png"))
    return problems


async def test_five_progressive_hands_a_fold_and_a_fault_fit_at_every_size(tmp_path):
    fed = Fed()
    async with screen_page(fed.server) as page:
        for spot in range(1, 8):
            fed.h.ante(spot, 50_000 if spot == 1 else 2500 * spot, progressive=True)
        fed.server.listener([])
        fed.panel("no_more_bets")
        fed.feed("equipment.fault", equipment="meter", reason=METER_LOST)
        fed.deal(HITS)
        fed.panel("fold", spot=7)
        for spot in range(1, 7):
            fed.feed("wager", spot=spot, area="bet", cents=2 * fed.h.round.spots[spot].locked_ante.cents)
        fed.panel("reveal")
        problems = await looked_at(fed, page, "progressive-revealed", tmp_path)
        assert (await page.text_content("#next")).startswith("collect spot 7: $175.00 (8.4)")
        fed.feed("wager", spot=7, area="ante", cents=0)  # the fold's ante collected
        await shown(page, fed.server, [])
        assert (await page.text_content("#next")).startswith("pay spot 6: ")
        fed.panel("settle")
        problems += await looked_at(fed, page, "progressive", tmp_path)
        assert "leave the cards face up" in await page.text_content("#banner")
        assert (await page.text_content("#next")).startswith("pay the progressive award on spot ")
        assert await page.get_attribute("#payments li.next", "data-kind") == "progressive"
        assert await page.locator("#faults .fault").count() == 1
        print(f"screenshots: {tmp_path}")
        assert problems == [], "\n".join(problems)


async def test_six_folds_and_a_fault_fit_at_every_size_and_every_fold_is_listed(tmp_path):
    fed = Fed()
    async with screen_page(fed.server) as page:
        for spot in range(1, 8):
            fed.h.ante(spot, 500 * spot, progressive=spot % 2 == 1)
        fed.server.listener([])
        fed.panel("no_more_bets")
        fed.feed("equipment.fault", equipment="meter", reason=METER_LOST)
        fed.deal(SIX_FOLDS)
        for spot in range(1, 7):
            fed.panel("fold", spot=spot)
        fed.feed("wager", spot=7, area="bet", cents=7000)
        fed.panel("reveal")
        problems = await looked_at(fed, page, "six-folds", tmp_path)
        listed = await page.eval_on_selector_all(
            "#payments li[data-kind=folded]", "items => items.map(li => [Number(li.dataset.spot), li.dataset.verb, "
            "Number(li.dataset.cents)])")
        assert listed == [[spot, "COLLECT", 500 * spot] for spot in range(6, 0, -1)]
        print(f"screenshots: {tmp_path}")
        assert problems == [], "\n".join(problems)
