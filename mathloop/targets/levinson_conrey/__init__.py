"""The Levinson–Conrey target: exact, certified lower bounds for the proportion κ of zeta zeros on the line.

Modules by role: schema (payload -> Candidate), config (contract -> Settings), admissibility (exact
conditions), closed_form (c = a + b·e^{2R} in rationals), taylor and certificate (the integer
inequality N1 <= N2), crosscheck (mpmath at two precisions), target (the Target), optimise,
rationalise and proposer (the local proposer and polish).
"""
