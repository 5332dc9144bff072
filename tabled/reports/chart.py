"""The report for filing and signing, as a PDF (matplotlib, the ``plot`` extra).

Each period gets a page of figures (the text report's own lines, the money as a table) and a page
of charts beside them: the win against the theoretical win as the rounds went, with its band of
the flag's standard deviations; rounds started in each hour; the wager mix. A start of the daemon
within the period is a dotted line on the first two charts, and what its configuration changed is
written under them. Every page names the table, the period, who printed it and when, and its number
of the whole; the last page carries the signature block. Text is embedded as TrueType so the PDF
can be searched and read back.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from .figures import WAGERS, Report
from .render import change_text, money_rows, shift_rows, text

A4 = (8.27, 11.69)
#: the figures' lines: characters a line and lines a page at the size they are set in
WRAP, LINES_A_PAGE = 110, 66
LINE_STEP = 0.0125            # figure fraction between two lines of figures
SIGNATURES = ("Prepared by", "Reviewed by (supervisor)", "Approved by (table games manager)")


@dataclass(frozen=True)
class Printed:
    """Who printed the report and when (the caller's clock)."""

    by: str
    at: datetime


def table_name(r: Report) -> str:
    """The table the report is of: the one asked for, else the one its rounds were played at."""
    if r.table is not None:
        return r.table
    tables = sorted({rid.rsplit("-", 1)[0] for rid in r.round_ids if "-" in rid})
    return ", ".join(tables) if tables else "(no round)"


def figure_lines(r: Report, zone: tzinfo) -> list[str]:
    """The text report's lines for the page, less the money table (drawn as a table), wrapped."""
    lines = text(r, zone).splitlines()
    money_table = 2 + 1 + len(WAGERS) + 1          # after the period and play lines: header, wagers, total
    out: list[str] = []
    for line in [lines[1], *lines[money_table:]]:
        indent = len(line) - len(line.lstrip())
        out += textwrap.wrap(line, WRAP, subsequent_indent=" " * (indent + 2)) or [""]
    return out


def _pages_of_figures(lines: list[str], shifts: int) -> list[list[str]]:
    first = LINES_A_PAGE - 14 - (shifts + 3 if shifts else 0)   # the first page also holds the tables
    chunks = [lines[:first]]
    rest = lines[first:]
    while rest:
        chunks.append(rest[:LINES_A_PAGE])
        rest = rest[LINES_A_PAGE:]
    return chunks


def write_pdf(reports: Sequence[Report], zone: tzinfo, path: str, printed: Printed,
              parts: Sequence[Sequence[Report]] = ()) -> int:
    """Write the PDF; return its number of pages. ``parts[i]``, when given, are the shifts of
    ``reports[i]`` (a gaming day's), set out in a table of their own under its money."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError("--pdf needs matplotlib: pip install 'tabled[plot]'") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42   # TrueType: the text can be searched and read back
    matplotlib.rcParams["text.parse_math"] = False  # "$5.00 ... $6.00" is money, not mathematics
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    shifts = list(parts) or [()] * len(reports)
    plan = [(r, split, _pages_of_figures(figure_lines(r, zone), len(split)))
            for r, split in zip(reports, shifts, strict=True)]
    total = sum(len(chunks) + 1 for _, _, chunks in plan) + 1   # figures, charts, the signatures
    page = 0

    def frame(fig: Any, r: Report | None) -> None:
        nonlocal page
        page += 1
        title = "Caribbean Stud Poker" + ("" if r is None else f": table {table_name(r)}, {r.period.name}")
        fig.text(0.06, 0.975, title, fontsize=11, weight="bold", va="top")
        fig.text(0.94, 0.975, f"page {page} of {total}", fontsize=8, ha="right", va="top")
        fig.text(0.06, 0.018, f"printed {printed.at:%Y-%m-%d %H:%M:%S %Z} by {printed.by}; figures from the "
                 "table's journal, as `tabled report` prints them", fontsize=7, color="0.3")

    with PdfPages(path) as pdf:
        for r, split, chunks in plan:
            for n, chunk in enumerate(chunks):
                fig = plt.figure(figsize=A4)
                frame(fig, r)
                top = 0.94
                if n == 0:
                    top = _money_table(fig, r, zone, top)
                    if split:
                        top = _table(fig, "by shift", *shift_rows(split), top)
                for i, line in enumerate(chunk):
                    fig.text(0.06, top - i * LINE_STEP, line, fontsize=7.4, family="monospace", va="top",
                             color="tab:red" if line.startswith(("PROBLEM", "  ** FLAG")) else "black")
                pdf.savefig(fig)
                plt.close(fig)
            fig = _charts(plt, r, zone)
            frame(fig, r)
            pdf.savefig(fig)
            plt.close(fig)
        fig = plt.figure(figsize=A4)
        frame(fig, None)
        _signatures(fig, reports, zone)
        pdf.savefig(fig)
        plt.close(fig)
    return total


def _money_table(fig: Any, r: Report, zone: tzinfo, top: float) -> float:
    """The period, then the money per wager as a table; returns where the next line starts."""
    first_line = text(r, zone).splitlines()[0]
    for i, line in enumerate(textwrap.wrap(first_line, WRAP)):
        fig.text(0.06, top - i * LINE_STEP, line, fontsize=7.5, va="top")
    return _table(fig, "money", *money_rows(r), top - 0.03)


def _table(fig: Any, title: str, header: Sequence[str], rows: list[list[str]], top: float) -> float:
    """A table of figures under ``title`` from ``top`` down; returns where the next line starts."""
    fig.text(0.06, top, title, fontsize=8, weight="bold", va="top")
    height = 0.019 * (len(rows) + 1)
    ax = fig.add_axes((0.06, top - 0.015 - height, 0.88, height))
    ax.axis("off")
    chars = [max(len(text) for text in column) + 4 for column in zip(header, *rows, strict=True)]
    table = ax.table(cellText=rows, colLabels=list(header), cellLoc="right", colLoc="right", bbox=(0, 0, 1, 1),
                     colWidths=[c / sum(chars) for c in chars])   # each column as wide as its longest text
    table.auto_set_font_size(False)
    table.set_fontsize(6.8)
    for (row, col), cell in table.get_celld().items():
        if col == 0:
            cell.set_text_props(ha="left")
        if row == 0 or rows[row - 1][0] == "total":
            cell.set_text_props(weight="bold")
    return top - 0.04 - height


def _charts(plt: Any, r: Report, zone: tzinfo) -> Any:
    from matplotlib.dates import DateFormatter

    fig, (win, hours, mix) = plt.subplots(3, 1, figsize=A4)
    t = r.theory
    when = [datetime.fromtimestamp(us / 1_000_000, zone) for us, _, _, _ in t.running]
    expected = [e / 100 for _, _, e, _ in t.running]
    band = [t.sigmas * sd / 100 for _, _, _, sd in t.running]
    win.fill_between(when, [e - b for e, b in zip(expected, band)], [e + b for e, b in zip(expected, band)],
                     color="0.85", label=f"theoretical \u00b1 {t.sigmas:g} standard deviations")
    win.plot(when, expected, color="black", linestyle="--", label="theoretical win")
    win.plot(when, [a / 100 for _, a, _, _ in t.running], label="actual win")
    win.set_title("the house's win on ante and bet, hand by hand", fontsize=9)
    win.set_ylabel("win ($)")
    win.legend(loc="best", fontsize=7)
    starts = sorted(r.hourly)
    hours.bar([datetime.fromtimestamp(us / 1_000_000, zone) for us in starts], [r.hourly[us] for us in starts],
              width=1 / 24 * 0.9, align="edge")
    hours.set_title("rounds started each hour", fontsize=9)
    hours.set_ylabel("rounds")
    wagered = [r.money[w].wagered_cents / 100 for w in WAGERS]
    bars = mix.bar(WAGERS, wagered)
    mix.set_title("wager mix (chips and tokens)", fontsize=9)
    mix.set_ylabel("wagered ($)")
    mix.bar_label(bars, labels=[f"{r.money[w].wagers} wagers" for w in WAGERS], label_type="center", fontsize=8,
                  color="white")
    short = len(when) > 1 and (when[-1] - when[0]).total_seconds() < 3600  # a table run at full speed
    win.xaxis.set_major_formatter(DateFormatter("%H:%M:%S" if short else "%H:%M", tz=zone))
    hours.xaxis.set_major_formatter(DateFormatter("%H:%M", tz=zone))
    for ax in (win, hours):
        ax.set_xlabel(f"time ({zone})", fontsize=8)
    notes = []
    for n, c in enumerate(r.configs, start=1):
        at = datetime.fromtimestamp(c.start.time_us / 1_000_000, zone)
        for ax in (win, hours):
            ax.axvline(at, color="tab:red", linestyle=":", linewidth=1)
        win.annotate(f"start {n}", (at, 0.97), xycoords=("data", "axes fraction"), rotation=90, va="top",
                     ha="left", fontsize=7, color="tab:red", annotation_clip=False)
        notes += textwrap.wrap(f"start {n} at {at:%H:%M:%S} (record #{c.start.seq}): {change_text(c)}", WRAP + 10)
    room = 0.04 + 0.014 * len(notes)
    fig.tight_layout(rect=(0.02, room, 0.98, 0.955))
    for n, note in enumerate(notes):
        fig.text(0.06, room - 0.014 * (n + 1), note, fontsize=6.6, color="tab:red")
    return fig


def _signatures(fig: Any, reports: Sequence[Report], zone: tzinfo) -> None:
    periods = "; ".join(f"table {table_name(r)}, {r.period.name}" for r in reports)
    fig.text(0.06, 0.92, "Review and approval", fontsize=11, weight="bold", va="top")
    for i, line in enumerate(textwrap.wrap(f"This report covers: {periods}.", 100)):
        fig.text(0.06, 0.88 - i * 0.018, line, fontsize=8.5, va="top")
    y = 0.78
    for role in SIGNATURES:
        fig.text(0.06, y, role, fontsize=9, weight="bold")
        for x, label in ((0.06, "name"), (0.40, "signature"), (0.74, "date and time")):
            fig.add_artist(_rule(x, y - 0.05, 0.28 if x < 0.7 else 0.2))
            fig.text(x, y - 0.065, label, fontsize=7, color="0.35")
        y -= 0.14
    fig.text(0.06, y, "Comments", fontsize=9, weight="bold")
    for k in range(4):
        fig.add_artist(_rule(0.06, y - 0.04 - k * 0.035, 0.88))


def _rule(x: float, y: float, width: float) -> Any:
    from matplotlib.lines import Line2D

    return Line2D([x, x + width], [y, y], color="black", linewidth=0.6)
