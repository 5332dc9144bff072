import sys

from tabled_drivers.sim.runner import main

sys.exit(main())
