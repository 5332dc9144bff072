"""Shift, day and range reports computed from journal records alone (``tabled report``).

Pure computations: records in (anything with ``seq``, ``time_us``, ``round_id``, ``kind`` and
``payload``, as :class:`tabled.journal.store.Record` has), figures out. The command opens the
journal; these modules never touch a file. Money is integer cents; the exact mathematics gives
fractions of a cent, kept as :class:`fractions.Fraction` until shown.
"""
