"""The simulated table and its people: players and a dealer driven by what the table shows."""
