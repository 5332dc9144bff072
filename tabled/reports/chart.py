"""The report's charts in one PDF (matplotlib, the ``plot`` extra), a page per period: the win
against the theoretical win as the rounds went, with its band of the flag's standard deviations;
rounds started in each hour; the wager mix."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from .figures import WAGERS, Report


def write_pdf(reports: Sequence[Report], zone: tzinfo, path: str) -> None:
    try:
        import matplotlib
    except ImportError:
        raise ValueError("--pdf needs matplotlib: pip install 'tabled[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.dates import DateFormatter

    with PdfPages(path) as pdf:
        for r in reports:
            fig, (win, hours, mix) = plt.subplots(3, 1, figsize=(8.27, 11.69))
            fig.suptitle(r.period.name)
            t = r.theory
            when = [datetime.fromtimestamp(us / 1_000_000, zone) for us, _, _, _ in t.running]
            expected = [e / 100 for _, _, e, _ in t.running]
            band = [t.sigmas * sd / 100 for _, _, _, sd in t.running]
            win.fill_between(when, [e - b for e, b in zip(expected, band)], [e + b for e, b in zip(expected, band)],
                             color="0.85", label=f"theoretical \u00b1 {t.sigmas:g} standard deviations")
            win.plot(when, expected, color="black", linestyle="--", label="theoretical win")
            win.plot(when, [a / 100 for _, a, _, _ in t.running], label="actual win")
            win.set_title("the house's win on ante and bet, hand by hand")
            win.set_ylabel("win ($)")
            win.legend(loc="best")
            starts = sorted(r.hourly)
            hours.bar([datetime.fromtimestamp(us / 1_000_000, zone) for us in starts], [r.hourly[us] for us in starts],
                      width=1 / 24 * 0.9, align="edge")
            hours.set_title("rounds started each hour")
            hours.set_ylabel("rounds")
            wagered = [r.money[w].wagered_cents / 100 for w in WAGERS]
            mix.bar(WAGERS, wagered)
            mix.set_title("wager mix (chips and tokens)")
            mix.set_ylabel("wagered ($)")
            for i, w in enumerate(WAGERS):
                mix.annotate(f"{r.money[w].wagers} wagers", (i, wagered[i]), ha="center", va="bottom")
            for ax in (win, hours):
                ax.xaxis.set_major_formatter(DateFormatter("%H:%M", tz=zone))
                ax.set_xlabel(f"time ({zone})")
            fig.tight_layout()
            pdf.savefig(fig)
            plt.close(fig)
