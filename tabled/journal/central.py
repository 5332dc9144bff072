"""The central PostgreSQL's copy of the journals, as its readers share it: the role whose members
read every table's shipped records (the floor, an inspector's tools), granted by the shipper's
schema (tabled/daemon/shipping.py)."""

AUDITOR = "tabled_auditor"

__all__ = ["AUDITOR"]
