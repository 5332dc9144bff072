"""The floor's view of every table, read from the casino's central PostgreSQL (``tabled floor``):
tabled/floor/watch.py folds each table's shipped records, tabled/floor/service.py serves the page
and takes acknowledgements, tabled/floor/central.py is the floor's own schema (:func:`migrate`, run
by the administrator after the journal's)."""

from tabled.floor.central import migrate

__all__ = ["migrate"]
