"""Target `pair-correlation` (unconditional): the Montgomery–Taylor slice of the proportion of simple
zeta zeros, B(g) for even polynomials g >= 0, certified exactly."""
