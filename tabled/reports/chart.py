"""The report's charts in one PDF (matplotlib, the ``plot`` extra), a page per period: the win
against the theoretical win as the rounds went, with its band of the flag's standard deviations;
rounds started in each hour; the wager mix. A start of the daemon within the period is a dotted
line on the first two, and what its configuration changed is written under the page."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from .figures import WAGERS, Report
from .render import change_text


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
            short = len(when) > 1 and (when[-1] - when[0]).total_seconds() < 3600  # a table run at full speed
            win.xaxis.set_major_formatter(DateFormatter("%H:%M:%S" if short else "%H:%M", tz=zone))
            hours.xaxis.set_major_formatter(DateFormatter("%H:%M", tz=zone))
            for ax in (win, hours):
                ax.set_xlabel(f"time ({zone})")
            notes = []
            for n, c in enumerate(r.configs, start=1):
                at = datetime.fromtimestamp(c.start.time_us / 1_000_000, zone)
                for ax in (win, hours):
                    ax.axvline(at, color="tab:red", linestyle=":", linewidth=1)
                win.annotate(f"start {n}", (at, 1), xycoords=("data", "axes fraction"), rotation=90, va="top",
                             ha="right", fontsize=7, color="tab:red")
                notes.append(f"start {n} at {at:%H:%M:%S} (record #{c.start.seq}): {change_text(c)}")
            fig.tight_layout(rect=(0, 0.02 * len(notes), 1, 1))
            for n, note in enumerate(notes):
                fig.text(0.02, 0.02 * (len(notes) - n) - 0.012, note[:150], fontsize=7, color="tab:red")
            pdf.savefig(fig)
            plt.close(fig)
