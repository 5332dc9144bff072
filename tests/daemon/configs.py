"""Config text the daemon tests start from: the smallest table a config may describe."""

#: [table] alone, with the keys every table needs; the rest is left to the defaults
MINIMAL_TABLE = """
[table]
id = "T01"
spots = 7
profile = "nsw"
minimum_cents = 500
maximum_cents = 50_000
unit_cents = 100
"""
