"""Evidence for the Lean tests, built from the targets' pure certificate functions (no contract file).

The certificate is computed here in exact Fractions with the Levinson–Conrey target's own closed
form and certificate builder, so the Lean tests do not depend on the contract files or the target
classes being in a loadable state; one test per file also goes through the real target.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

import mpmath

from mathloop.domain import Evidence

THETA = Fraction(4, 7) - Fraction(1, 10**9)
GRID = 10**12


@dataclass(frozen=True)
class StubContract:
    """The attributes of a Contract that rendering and export read."""

    target: str
    name: str
    sha256: str = "5" * 64
    limits: Mapping[str, Any] = field(default_factory=dict)
    lean_timeout_s: int | None = None


def lc_evidence(P: Sequence[str], Q: Sequence[str], R: str) -> tuple[StubContract, Evidence]:
    """Return (contract stub, evidence) whose certificate proves the largest grid k0 it can."""
    from mathloop.targets.levinson_conrey.certificate import build_certificate
    from mathloop.targets.levinson_conrey.closed_form import closed_form

    Pq, Qq, Rq = [Fraction(x) for x in P], [Fraction(x) for x in Q], Fraction(R)
    cf = closed_form(Pq, Qq, Rq, THETA)
    with mpmath.workdps(50):
        c = mpmath.mpf(cf.a.numerator) / cf.a.denominator + mpmath.mpf(cf.b.numerator) / cf.b.denominator * mpmath.exp(
            2 * mpmath.mpf(Rq.numerator) / Rq.denominator)
        kappa = 1 - mpmath.log(c) / (mpmath.mpf(Rq.numerator) / Rq.denominator)
        k = int(mpmath.floor(kappa * GRID))
    for step in range(5):
        cert = build_certificate(Pq, Qq, Rq, THETA, cf.a, cf.b, Fraction(k - step, GRID))
        if cert is not None:
            break
    else:
        raise AssertionError("no certificate near the computed kappa")
    ev = Evidence("levinson-conrey", "test", (), {"kappa": Fraction(cert["k0"])}, {"P": list(P), "Q": list(Q), "R": R},
                  {"certificate": cert})
    return StubContract("levinson-conrey", "levinson-conrey"), ev


def pc_evidence(even_coeffs: Sequence[str]) -> tuple[StubContract, Evidence]:
    """Return (contract stub, evidence) with the pair-correlation `moments` artifact of g."""
    from mathloop.targets.pair_correlation.functional import functional

    f = functional([Fraction(x) for x in even_coeffs])
    ev = Evidence("pair-correlation", "test", (), {"proportion": f.B}, {"g": list(even_coeffs)},
                  {"moments": f.artifact(), "positivity": {"cell_count": 1}})
    return StubContract("pair-correlation", "pair-correlation"), ev


def real_target_evidence(name: str, payload: Mapping[str, Any] | None = None) -> tuple[Any, Evidence]:
    """Return (contract, evidence) through the real contract file and target class."""
    from mathloop.targets import load_contract
    from mathloop.targets import build_target

    contract = load_contract(name)
    target = build_target(contract)
    return contract, target.check(None, target.parse(dict(payload if payload is not None else contract.seed)))
