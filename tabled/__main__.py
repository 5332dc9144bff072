"""``python -m tabled``: the ``tabled`` command."""

import sys

from tabled.cli import main

sys.exit(main())
