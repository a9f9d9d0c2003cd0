"""Target `critical-line-zeros`: every zeta zero with 0 < t <= T lies on the critical line.

Roles: hardy_z (rigorous Z and theta), gram (Gram points), turing (Turing's method with
Trudgian's constants), certificate (chunk schema), verify (chunk verification), crosscheck
(mpmath), pool (process pool), sampling + proposer (the local proposer), counting (N(T) from
certificates), export (certificate files), target (the Target subclass).
"""
