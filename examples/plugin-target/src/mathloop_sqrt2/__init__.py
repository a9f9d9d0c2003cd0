"""Example mathloop target `sqrt2-below`: exact rational lower bounds x <= sqrt(2), proved by x^2 <= 2."""
