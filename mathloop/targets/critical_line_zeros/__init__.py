"""Target `critical-line-zeros`: every zeta zero with 0 < t <= T lies on the critical line.

Roles: hardy_z (rigorous Z and theta), gram (Gram points), turing (Turing's method with
Trudgian's constants), certificate (chunk schema), verify (chunk verification), placement (points
against Gram points), derive (a range candidate's points), digest (compact evidence), crosscheck
(mpmath), sampling + proposer (the local proposer), counting (N(T) from certificates), export
(certificate files), target (the Target subclass); rs_* the fast path. No process pool of its own:
a session's executor (check/executors.py, dask) checks several chunks at once.
"""
