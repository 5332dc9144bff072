"""A bad option to ``tabled report`` is one line naming it, exit status 2; the outputs hold the
same figures."""

from __future__ import annotations

import contextlib
import csv
import io
import json

import pytest

from tabled.cli import EX_USER, main


def one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == EX_USER
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("options, says", [
    (["--tz", "Mars/Olympus"], "--tz 'Mars/Olympus': no such time zone"),
    (["--day-start", "25:00"], "--day-start: '25:00' is not a time of day"),
    (["--shifts", "06:00,noon"], "--shifts: 'noon' is not a time of day"),
    (["--from", "2026-13-01"], "--from '2026-13-01': not a gaming day"),
    (["--from", "2026-11-30", "--to", "2026-11-01"], "--to 2026-11-01 is before --from 2026-11-30"),
    (["--to", "2026-11-30"], "--to goes with --from"),
    (["--shift", "4"], "no shift 4: the gaming day has shifts 1 to 3"),
    (["--shift", "0"], "argument --shift: must be an integer of at least 1, got 0"),
    (["--sigmas", "0"], "--sigmas 0: a number of standard deviations above 0"),
    (["--sigmas", "many"], "argument --sigmas: invalid float value"),
    (["--table", "T99"], "--table T99: the journal"),
    (["--profile", "{tmp}/none.toml"], "no profile"),
    (["--pdf", "{tmp}/missing/day.pdf"], "no folder {tmp}/missing to write it in"),
    (["--pdf", "{tmp}"], "is a folder; name the PDF file"),
    (["--printed-by", "A. Director"], "--printed-by names who printed the PDF: it goes with --pdf FILE"),
])
def test_a_bad_option_is_one_line(capsys, journals, tmp_path, options, says):
    argv = ["report", "shift", "--journal", str(journals["scripted"])]
    err = one_line_error(capsys, argv + [o.replace("{tmp}", str(tmp_path)) for o in options])
    assert says.replace("{tmp}", str(tmp_path)) in err


@pytest.mark.parametrize("argv, says", [
    (["report", "range", "--from", "2026-11-30T06:00"], "`tabled report range` needs --from and --to"),
    (["report", "range", "--from", "2026-11-30T06:00", "--to", "2026-11-30T05:00"], "the end is not after"),
    (["report", "range", "--from", "yesterday", "--to", "2026-11-30T05:00"], "--from 'yesterday': not a date"),
    (["report", "day", "--shift", "1"], "--shift N goes with `tabled report shift`"),
    (["report", "week"], "invalid choice: 'week'"),
])
def test_a_bad_period_is_one_line(capsys, journals, argv, says):
    assert says in one_line_error(capsys, argv + ["--journal", str(journals["scripted"])])


def test_no_journal_there(capsys, tmp_path):
    assert f"{tmp_path}/none.db: no journal there" in one_line_error(
        capsys, ["report", "day", "--journal", str(tmp_path / "none.db")])


def test_not_a_journal(capsys, tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("shopping list\n" * 20)
    assert "not a journal" in one_line_error(capsys, ["report", "day", "--journal", str(path)])


def run(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.mark.slow
def test_text_json_csv_and_pdf_give_the_same_figures(journals, tmp_path):
    path = str(journals["scripted"])
    (data,) = [json.loads(line) for line in run("report", "day", "--journal", path, "--json").splitlines()]
    (row,) = list(csv.DictReader(io.StringIO(run("report", "day", "--journal", path, "--csv"))))
    assert int(row["total_win_cents"]) == data["money"]["total"]["win_cents"]
    assert int(row["actual_win_cents"]) == data["theoretical"]["actual_win_cents"]
    assert row["theoretical_win_cents"] == data["theoretical"]["theoretical_win_cents"]
    pdf = tmp_path / "day.pdf"
    shown = run("report", "day", "--journal", path, "--pdf", str(pdf))
    assert pdf.read_bytes().startswith(b"%PDF")
    assert f"for filing: {pdf} (3 pages)" in shown
    assert f"rounds settled, {data['play']['void_rounds']} void" in shown
    assert "3.7 round void: invalidated: 1" in shown


def pdf_pages(path) -> list[str]:
    from pypdf import PdfReader

    return [" ".join(page.extract_text().split()) for page in PdfReader(path).pages]


def test_the_pdf_is_the_text_reports_figures_laid_out_for_filing_and_signing(journals, tmp_path):
    """The PDF a director files carries the text report's figures (money per wager and per shift, the
    win against the mathematics, the integrity lines), names the table, the period and who printed
    it on every numbered page, and ends with a signature block."""
    from tabled.game.settlement import money

    path = str(journals["scripted"])
    (data,) = [json.loads(line) for line in run("report", "day", "--journal", path, "--json").splitlines()]
    shifts = [json.loads(line) for line in run("report", "shift", "--journal", path, "--from",
                                               data["period"]["gaming_day"], "--json").splitlines()]
    pdf = tmp_path / "day.pdf"
    run("report", "day", "--journal", path, "--pdf", str(pdf), "--printed-by", "A. Director")
    pages = pdf_pages(pdf)
    assert len(pages) == 3
    for n, page in enumerate(pages, start=1):
        assert f"page {n} of 3" in page
        assert "printed 20" in page and "UTC by A. Director" in page
    figures, charts, signatures = pages
    assert f"table SIM01, {data['period']['name']}" in figures and f"table SIM01, {data['period']['name']}" in charts
    for wager in ("ante", "bet", "progressive", "total"):
        m = data["money"][wager]
        row = (f"{wager} {m['wagers']} {money(m['chips_cents'])} {money(m['tokens_cents'])} {money(m['paid_cents'])} "
               f"{money(m['collected_cents'])} {money(m['returned_cents'])} {money(m['tokens_taken_cents'])} "
               f"{money(m['win_cents'])}")
        assert row in figures, row
    played = [s for s in shifts if s["play"]["rounds"]]
    assert played, "the fixture's rounds fall in a shift"
    for s in played:
        shift = s["period"]["name"].removeprefix(f"gaming day {s['period']['gaming_day']} ")
        assert (f"{shift} {s['play']['rounds']} {s['play']['hands']} {money(s['money']['total']['wagered_cents'])} "
                f"{money(s['money']['total']['win_cents'])}") in figures
    theory = data["theoretical"]
    assert f"actual win {money(theory['actual_win_cents'])}" in figures
    assert "3.7 round void: invalidated: 1" in figures
    assert "the house's win on ante and bet, hand by hand" in charts and "wager mix" in charts
    assert "This report covers: table SIM01, " + data["period"]["name"] in signatures
    for role in ("Prepared by", "Reviewed by (supervisor)", "Approved by (table games manager)", "Comments"):
        assert role in signatures
    assert signatures.count("signature") == 3 and signatures.count("date and time") == 3


@pytest.mark.slow  # the optimal strategy's par sheet: the whole exact analysis
def test_par_sheet_takes_the_optimal_strategys_deviation_per_hand(journals):
    """`tabled report day --par-sheet` as a user runs it: the NSW paytable's optimal play has a
    standard deviation of 2.2821 antes a hand (docs/mathematics.md), scaled by the root of the
    antes squared."""
    path = str(journals["scripted"])
    shown = run("report", "day", "--journal", path, "--par-sheet")
    assert "(the par sheet's 2.2821 antes a hand x root of the antes squared)" in shown, shown
    (data,) = [json.loads(line) for line in run("report", "day", "--journal", path, "--par-sheet", "--json")
               .splitlines()]
    theory = data["theoretical"]
    assert theory["std_dev_source"] == "par sheet" and round(theory["par_sheet_std_dev_antes"], 4) == 2.2821
    (hands_only,) = [json.loads(line) for line in run("report", "day", "--journal", path, "--json").splitlines()]
    assert hands_only["theoretical"]["std_dev_source"] == "hands"
    assert hands_only["theoretical"]["par_sheet_std_dev_antes"] is None


def test_an_empty_journal_has_nothing_to_report(tmp_path):
    from tabled.journal.store import Journal

    Journal.open(tmp_path / "j.db").close()
    assert "no records yet" in run("report", "shift", "--journal", str(tmp_path / "j.db"))


def test_the_calendar_comes_from_the_config_and_the_options_override_it(journals, tmp_path):
    config = tmp_path / "tabled.toml"
    config.write_text(f"""
[table]
id = "SIM01"
spots = 7
profile = "nsw"
minimum_cents = 500
maximum_cents = 50_000
unit_cents = 100

[journal]
path = "{journals['scripted']}"

[reports]
time_zone = "Australia/Sydney"
day_start = "05:00"
shifts = ["13:00", "21:00"]
flag_sigmas = 2.5
""")
    (day,) = [json.loads(line) for line in run("report", "day", "--config", str(config), "--json").splitlines()]
    assert day["period"]["name"].startswith("gaming day ")
    assert day["theoretical"]["flag_beyond"] == 2.5
    shown = run("report", "shift", "--config", str(config))
    assert "shift 1 (05:00-13:00)" in shown and "(Australia/Sydney)" in shown  # 05:28 there
    shown = run("report", "shift", "--config", str(config), "--tz", "UTC", "--shifts", "05:00,17:00")
    assert "(17:00-05:00)" in shown and "(UTC)" in shown


def test_a_bad_reports_section_is_one_line(capsys, tmp_path):
    config = tmp_path / "tabled.toml"
    config.write_text('[table]\nid = "T01"\nspots = 7\nprofile = "nsw"\nminimum_cents = 500\n'
                      'maximum_cents = 50_000\nunit_cents = 100\n[reports]\nshifts = ["06:00", "lunch"]\n')
    assert "reports.shifts: 'lunch' is not a time of day" in one_line_error(
        capsys, ["report", "day", "--config", str(config)])


def test_table_keeps_the_rounds_of_that_table(journals):
    path = str(journals["scripted"])
    (everything,) = [json.loads(x) for x in run("report", "day", "--journal", path, "--json").splitlines()]
    (table,) = [json.loads(x) for x in run("report", "day", "--journal", path, "--json", "--table", "SIM01")
                .splitlines()]
    assert table["table"] == "SIM01" and table["rounds"] == everything["rounds"] != []
    assert table["money"] == everything["money"]


@pytest.mark.slow
def test_a_report_names_the_configuration_changed_between_two_starts(tmp_path, capsys):
    """Two runs of the simulated table on one journal, the table's minimum lowered in between
    (6.1): the report over both names the start, the rounds either side of it and the change, in
    text, JSON, CSV and the PDF; `tabled recall` shows it at the first round after it."""
    import subprocess
    from datetime import UTC, datetime, timedelta

    from tests.integration.test_restart_sim import child_env, sim_config, tabled_argv

    config = sim_config(tmp_path / "sim")
    began = datetime.now(UTC)
    for minimum, card in ((500, "4000100010001001"), (300, "4000100010007777")):  # a player's card too
        config.write_text(config.read_text().replace("minimum_cents = 500", f"minimum_cents = {minimum}")
                          .replace('card = "4000100010001001"', f'card = "{card}"'))
        done = subprocess.run(tabled_argv("run", "--config", str(config), "--rounds", "2", "--pace-ms", "0"),
                              capture_output=True, text=True, env=child_env(tmp_path), timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
    journal = str(tmp_path / "sim" / "journal.db")
    span = ["report", "range", "--journal", journal, "--tz", "UTC",
            "--from", (began - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M"),
            "--to", (datetime.now(UTC) + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")]

    (data,) = [json.loads(line) for line in run(*span, "--json").splitlines()]
    first, second = data["configuration_starts"]
    assert first["first"] and first["round_before"] is None and first["round_after"] == "SIM01-000001"
    assert second["changes"] == [  # a player card only masked, as every view shows one
        {"key": "simulation.players.0.card", "before": "\u2022" * 4 + "1001", "after": "\u2022" * 4 + "7777"},
        {"key": "table.minimum_cents", "before": 500, "after": 300}]
    # the rounds either side of the start were started under the old minimum and the new one
    from tabled.journal.store import Journal
    with Journal.open(tmp_path / "sim" / "journal.db", readonly=True) as j:
        minimum = {r.round_id: r.payload["limits"]["minimum_cents"]
                   for r in j.records_after(0) if r.kind == "round.started"}
    assert (minimum[second["round_before"]], minimum[second["round_after"]]) == (500, 300)

    shown = run(*span)
    assert (f"after round {second['round_before']}, before round {second['round_after']}: CHANGED "
            'simulation.players.0.card "\u2022\u2022\u2022\u20221001" -> "\u2022\u2022\u2022\u20227777"; '
            "table.minimum_cents $5.00 -> $3.00" in shown), shown
    assert "4000100010007777" not in shown
    assert "the journal's first configuration" in shown

    (row,) = list(csv.DictReader(io.StringIO(run(*span, "--csv"))))
    assert row["configuration_starts"] == "2"
    assert row["settings_changed"] == "simulation.players.0.card table.minimum_cents"

    pdf = tmp_path / "span.pdf"
    run(*span, "--pdf", str(pdf))
    assert pdf.read_bytes().startswith(b"%PDF")

    assert main(["recall", "--journal", journal, "--last", "4"]) == 0
    recalled = capsys.readouterr().out
    assert ("CHANGED since the round before: simulation.players.0.card \u2022\u2022\u2022\u20221001 -> "
            "\u2022\u2022\u2022\u20227777; table.minimum_cents $5.00 -> $3.00") in recalled
    assert "4000100010007777" not in recalled


def test_a_period_without_a_start_says_so(journals):
    shown = run("report", "day", "--journal", str(journals["scripted"]))
    assert "configuration: " in shown


@pytest.mark.parametrize("options, says", [
    (["--to", "2026-11-30"], "--to goes with --from"),
    (["--from", "2026-11-30T06:00"], "shuffles --from a date-time needs --to"),
    (["--from", "2026-11-30T06:00", "--to", "2026-11-30T05:00"], "the end is not after the start"),
    (["--from", "2026-02-30"], "--from '2026-02-30': not a gaming day"),
    (["--shift", "1"], "--shift does not go with `tabled report shuffles`"),
    (["--pdf", "x.pdf"], "--pdf does not go with `tabled report shuffles`"),
    (["--csv"], "--csv does not go with `tabled report shuffles`"),
])
def test_a_bad_shuffles_span_is_one_line(capsys, journals, options, says):
    assert says in one_line_error(capsys, ["report", "shuffles", "--journal", str(journals["scripted"]), *options])


def test_shuffles_over_gaming_days_name_their_span(journals):
    path = str(journals["simulated"])
    shown = run("report", "shuffles", "--journal", path, "--from", "2000-01-01")
    assert shown.startswith("shuffles: gaming day 2000-01-01\n") and "without card recognition" in shown
    assert run("report", "shuffles", "--journal", path).startswith("shuffles: the whole journal\n")
