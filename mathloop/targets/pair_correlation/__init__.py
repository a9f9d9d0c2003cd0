"""Targets `pair-correlation` (unconditional) and `pair-correlation-rh` (assuming RH): the
Montgomery–Taylor slice of the proportion of simple zeta zeros, certified exactly."""
