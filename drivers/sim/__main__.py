import sys

from drivers.sim.runner import main

sys.exit(main())
