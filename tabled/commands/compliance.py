"""``tabled compliance``: every check a regulator's inspector would run on this table PC, each
requirement with its source, the evidence found and PASS or FAIL (tabled/daemon/compliance.py;
docs/compliance.md maps each to its code and test). Exit 0: every requirement passes; 1: one fails;
2: the config cannot be read.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabled.commands._arguments import UserError
from tabled.daemon.config import ConfigError, find_config, load_config

NAME = "compliance"
HELP = "run the inspector's checks: software, journal and seals, clock, doors, PINs, pool settings, pages"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="the daemon's config (default: $TABLED_CONFIG, else "
                        "/etc/tabled/tabled.toml)")
    parser.add_argument("--public-key", metavar="FILE", action="append", default=[],
                        help="the journal's public key (default: /etc/tabled/journal-signing.pub or the one "
                             "beside the journal)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from tabled.daemon import compliance
    try:
        cfg = load_config(find_config(args.config))
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    findings = compliance.check(cfg, cfg.journal.path, public_keys_given=[Path(k) for k in args.public_key])
    failed = sum(1 for f in findings if not f.passed)
    if args.json:
        print(json.dumps({"passed": len(findings) - failed, "failed": failed,
                          "requirements": [f.as_dict() for f in findings]}, indent=1))
    else:
        for f in findings:
            print(f"{'PASS' if f.passed else 'FAIL'}  {f.requirement}  [{f.source}; {f.nature}]")
            print(f"      {f.evidence}")
        print(f"{len(findings) - failed} of {len(findings)} requirements pass, {failed} fail")
    return 0 if failed == 0 else 1
