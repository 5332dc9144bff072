"""Small table rules the controller enforces, one job per module, each citing its rule."""
