"""The best published explicit independent set of a strong power of C7, read from data/records.toml."""

from __future__ import annotations

import functools
from fractions import Fraction

PACKAGE = "mathloop.targets.shannon_capacity_c7"
# ϑ(C7) = 7cos(π/7)/(1 + cos(π/7)) = 3.3176672073940953927..., Lovász (1979): Θ(C7) ≤ ϑ(C7).
LOVASZ_THETA_DECIMAL = "3.31766720739409539273"


@functools.lru_cache(maxsize=1)
def record_bound() -> Fraction:
    """Return the certified grid value of the best published set stored as a file (a candidate above it is a
    new record and is re-checked by a second code path).

    The recursive constructions (certified by shannon-capacity-c7-recursive, conditional on product theorems) are not
    sets a candidate could be compared with, and are left out.
    """
    from mathloop.targets.records import load

    return max(Fraction(p.certified) for p in load(PACKAGE).published if p.certified and not p.contract)
