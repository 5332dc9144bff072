"""The read models: what the dealer's screen, the pit, the hand-pay slip and a player see, each
computed from the fold's effects and notes. They judge nothing."""
