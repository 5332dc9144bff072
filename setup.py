"""The packages: ``tabled``, and the ``drivers/`` folder installed under the project's own name as
``tabled_drivers``, so the distribution claims no generic top-level name. Everything else is in
pyproject.toml."""

from setuptools import find_packages, setup

DRIVERS = ["tabled_drivers" + name.removeprefix("drivers") for name in find_packages(include=["drivers", "drivers.*"])]
#: folders of data files inside ``tabled`` (no code): listed as packages so setuptools ships them
#: as such (their files: pyproject.toml's package-data)
DATA = ["tabled.examples", "tabled.web_assets"]

setup(packages=find_packages(include=["tabled", "tabled.*"]) + DATA + DRIVERS,
      package_dir={"tabled_drivers": "drivers"})
