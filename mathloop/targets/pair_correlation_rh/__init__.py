"""Target `pair-correlation-rh` (ASSUMING RH): Montgomery's pair correlation with Cohn–Elkies-type r
(Chirre–Gonçalves–de Laat), piecewise-linear r-hat, certified exactly; an LP as the local proposer."""
