"""``tabled simulate``: deal and settle many rounds, compare with the exact mathematics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tabled.commands._arguments import UserError, whole_number
from tabled.profiles import load_profile
from tabled.math import analysis, report, simulator
from tabled.math.paytable import Paytable
from tabled.math.strategy import STRATEGIES
from tabled.game.seats import MAX_SPOTS, MIN_SPOTS

NAME = "simulate"
HELP = "simulate rounds through the game's settlement; return with a 95% CI beside the exact value"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", required=True,
                        help="shipped profile name (nsw, us-standard, nz-irregularities) or a TOML file")
    parser.add_argument("--rounds", type=whole_number(1, simulator.MAX_ROUNDS), required=True,
                        help=f"rounds to deal, 1 to {simulator.MAX_ROUNDS:,}")
    parser.add_argument("--spots", type=whole_number(MIN_SPOTS, MAX_SPOTS), default=MAX_SPOTS,
                        help=f"playing spots per round, {MIN_SPOTS} to {MAX_SPOTS} (default {MAX_SPOTS})")
    parser.add_argument("--seed", type=whole_number(0), default=0,
                        help="random seed, 0 or more: the same seed, the same result")
    parser.add_argument("--strategy", default="optimal", choices=list(STRATEGIES),
                        help="how every spot decides to bet or fold (default optimal)")
    parser.add_argument("--ante-cents", type=whole_number(1), default=100, help="each spot's ante (default 100)")
    parser.add_argument("--meter-cents", type=whole_number(0), default=None,
                        help="progressive meter held for the run (default: the profile's reset value)")
    parser.add_argument("--no-progressive", action="store_true", help="no progressive wagers")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the running return (needs matplotlib)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def check_plot_path(path: str) -> None:
    """Before a long run: matplotlib is there, it draws this kind of file, and the file can be
    written (made and removed again when it was not there)."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise UserError("--plot needs matplotlib: pip install 'tabled[plot]'") from None
    p = Path(path)
    kind = p.suffix[1:].lower()
    kinds = FigureCanvasBase.get_supported_filetypes()
    if kind and kind not in kinds:
        raise UserError(f"--plot {path}: cannot draw a .{kind} file; name one of "
                        + ", ".join(f".{k}" for k in sorted(kinds)))
    if p.is_dir():
        raise UserError(f"--plot {path}: is a folder; name a file such as {p / 'run.png'}")
    existed = p.exists()
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise UserError(f"--plot {path}: cannot write there: {exc.strerror}") from None
    if not existed:
        p.unlink()


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)
    if args.plot:
        check_plot_path(args.plot)
    sim = simulator.simulate(profile, args.rounds, args.spots, args.seed, args.strategy,
                             ante_cents=args.ante_cents, progressive=not args.no_progressive,
                             pool_cents=args.meter_cents,
                             progress=not args.no_progress and sys.stderr.isatty())
    exact = analysis.par_sheet(Paytable.from_profile(profile), args.strategy)
    # the results first: a plot that fails now loses nothing of the run
    if args.json:
        print(json.dumps(report.simulation_data(profile, sim, exact), indent=2), flush=True)
    else:
        print(report.simulation_text(profile, sim, exact), flush=True)
    if args.plot:
        report.plot_running(sim, exact, args.plot)
        if not args.json:
            print(f"plot written to {args.plot}")
    return 0
