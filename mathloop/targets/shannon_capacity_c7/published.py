"""The published lower bounds on Θ(C7) (constants/9a.md of teorth/optimizationproblems), as (|S|, n)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from mathloop.targets.shannon_capacity_c7.graph import certified_root


@dataclass(frozen=True)
class Published:
    """One published construction: an independent set of `size` vertices in C7^⊠n.

    Attributes:
        size: |S|.
        n: the power.
        source: who, where.
        data: the file under data/ holding the set, or None when it could not be obtained.
    """

    size: int
    n: int
    source: str
    data: str | None = None

    def bound(self, digits: int = 12) -> Fraction:
        """Return the certified grid value of size^{1/n} (the bound a checked copy of the set gets)."""
        return certified_root(self.size, self.n, digits)


PUBLISHED = (
    Published(3, 1, "trivial: {0, 2, 4}"),
    Published(343, 5, "Baumert, McEliece, Rodemich, Rumsey, Stanley, Taylor (1971)", "baumert_343.txt"),
    Published(108, 4, "Vesel, Žerovnik (2002)"),
    Published(350, 5, "Mathew, Östergård (2017)"),
    Published(367, 5, "Polak, Schrijver (2018), arXiv:1808.07438", "polak_schrijver_367.txt"),
)
# The best published lower bound: a set beyond it is re-checked by a second code path (target.py).
RECORD = max(PUBLISHED, key=lambda p: p.bound())
# ϑ(C7) = 7cos(π/7)/(1 + cos(π/7)) = 3.3176672073940953927..., Lovász (1979): Θ(C7) ≤ ϑ(C7).
LOVASZ_THETA_DECIMAL = "3.31766720739409539273"
