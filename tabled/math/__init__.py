"""Game mathematics: exact analysis (par sheet), playing strategies, and a fast simulator.

* :mod:`tabled.math.counting`: how many dealer hands beat, tie or lose to a player's hand for a
  given up card, counted exactly by inclusion-exclusion over rank patterns (no enumeration of
  the 19.9 trillion deals).
* :mod:`tabled.math.analysis`: the par sheet of a paytable under every strategy at once.
* :mod:`tabled.math.strategy`: ``decide(strategy, hand, up_card) -> raise?``.
* :mod:`tabled.math.progressive`: the progressive wager's return as a function of the meter.
* :mod:`tabled.math.simulator`: many rounds dealt and settled in NumPy batches.

The method is written up in ``docs/mathematics.md``.
"""
