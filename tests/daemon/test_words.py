"""What ``tabled run`` says on exit is in people's words: "1 round", never "1 rounds"."""

from __future__ import annotations

import io

from tabled.daemon.report import Session, summary
from tests.table.harness import Harness


def test_the_summary_counts_one_round_as_one_round():
    session = Session()
    session.rounds = 1
    out = io.StringIO()
    summary(out, True, Harness().core, session)
    assert out.getvalue().startswith("stopped: 1 round this run, house net win $0.00")
    session.rounds = 2
    out = io.StringIO()
    summary(out, True, Harness().core, session)
    assert out.getvalue().startswith("stopped: 2 rounds this run")
