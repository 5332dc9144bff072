"""What the game-protection benchmarks (bench_protection.py, bench_collusion.py) share: their
command line, and when simulated sessions are first flagged, printed as a curve."""

from __future__ import annotations

import argparse
import sys

import numpy as np


def session_arguments(doc: str, prog: str, pool: int, pool_help: str, sessions: int) -> argparse.Namespace:
    """``--pool`` (deals weighed exactly), ``--sessions``, ``--rounds`` and ``--seed``, each checked."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    ap.add_argument("--pool", type=int, default=pool, help=pool_help)
    ap.add_argument("--sessions", type=int, default=sessions)
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--seed", type=int, default=25)
    args = ap.parse_args()
    if min(args.sessions, args.rounds, args.pool) < 1:
        sys.exit(f"{prog}: --pool, --sessions and --rounds must be at least 1")
    return args


def first_hit(hit: np.ndarray) -> np.ndarray:
    """The round (from 1) at which each session (a row of ``hit``) is first flagged; 0 if never."""
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0)


def curve(first: np.ndarray, checkpoints: tuple[int, ...]) -> str:
    """The share of sessions flagged by each checkpoint round."""
    return "  ".join(f"{r}:{100 * ((first > 0) & (first <= r)).mean():5.1f}%" for r in checkpoints)
