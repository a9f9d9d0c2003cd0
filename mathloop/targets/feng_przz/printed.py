"""PRZZ's printed optimal parameters (arXiv:1802.10521v3, §8), read as exact rationals.

κ: R = 1.3036, θ = 4/7,
    P₁(x) = x + 0.261076·x(1−x) − 1.071007·x(1−x)² − 0.236840·x(1−x)³ + 0.260233·x(1−x)⁴,
    P₂(x) = 1.048274x + 1.319912x² − 0.940058x³,   P₃(x) = 0.522811x − 0.686510x² − 0.049923x³,
    Q(x) = 0.490464 + 0.636851(1−2x) − 0.159327(1−2x)³ + 0.032011(1−2x)⁵;  κ ≥ 0.417293962.
κ* (simple zeros, linear Q): R = 1.1167,
    P₁(x) = x + 0.052703·x(1−x) − 0.657999·x(1−x)² − 0.003193·x(1−x)³ − 0.101832·x(1−x)⁴,
    P₂(x) = 1.049837x − 0.097446x²,   P₃(x) = 0.035113x − 0.156465x²,
    Q(x) = 0.483777 + 0.516223(1−2x);  κ* ≥ 0.407511457.
Transcribed from the stored copy of §8 in JohnNDvorak/przz-extension (data/przz_parameters*.json);
the printed Q coefficients of κ sum to Q(0) = 0.999999 (rounding), the method needs Q(0) = 1.
P₂ and P₃ multiply Feng's pieces with k = 2 and k = 3 prime logarithms (docs/przz.md, step 7).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from mathloop.targets.polynomial import Poly, add, mul, scale

THETA = Fraction(4, 7)


def _f(s: str) -> Fraction:
    return Fraction(s)


def p1_form(coeffs: list[str]) -> Poly:
    """Return x + Σ_i c_i·x(1−x)^{i+1} (PRZZ's form of P₁, so P₁(0) = 0, P₁(1) = 1)."""
    x, one_minus = (Fraction(0), Fraction(1)), (Fraction(1), Fraction(-1))
    P, pw = x, one_minus
    for c in coeffs:
        P = add(P, scale(mul(x, pw), _f(c)))
        pw = mul(pw, one_minus)
    return P


def q_form(coeffs: dict[int, str]) -> Poly:
    """Return Σ_k c_k (1−2x)^k."""
    out: Poly = ()
    for k, c in coeffs.items():
        pw: Poly = (Fraction(1),)
        for _ in range(k):
            pw = mul(pw, (Fraction(1), Fraction(-2)))
        out = add(out, scale(pw, _f(c)))
    return out


@dataclass(frozen=True)
class Printed:
    """One printed optimum.

    Attributes:
        pieces: ((k, P_k), ...) Feng pieces with k prime logarithms.
        Q, R, theta: as printed.
        kappa: the printed bound, as a decimal string.
    """

    pieces: tuple[tuple[int, Poly], ...]
    Q: Poly
    R: Fraction
    theta: Fraction
    kappa: str

    def with_q0_one(self) -> "Printed":
        """Return the same optimum with Q's constant term moved so that Q(0) = 1 exactly.

        For κ this moves the (1−2x)⁰ coefficient 0.490464 to 0.490465 (1 − 0.636851 + 0.159327 − 0.032011).
        """
        Q = (Fraction(1),) + tuple(self.Q[1:])
        return Printed(self.pieces, Q, self.R, self.theta, self.kappa)


KAPPA = Printed(
    pieces=(
        (0, p1_form(["0.261076", "-1.071007", "-0.236840", "0.260233"])),
        (2, (Fraction(0), _f("1.048274"), _f("1.319912"), _f("-0.940058"))),
        (3, (Fraction(0), _f("0.522811"), _f("-0.686510"), _f("-0.049923"))),
    ),
    Q=q_form({0: "0.490464", 1: "0.636851", 3: "-0.159327", 5: "0.032011"}),
    R=_f("1.3036"),
    theta=THETA,
    kappa="0.417293962",
)

KAPPA_STAR = Printed(
    pieces=(
        (0, p1_form(["0.052703", "-0.657999", "-0.003193", "-0.101832"])),
        (2, (Fraction(0), _f("1.049837"), _f("-0.097446"))),
        (3, (Fraction(0), _f("0.035113"), _f("-0.156465"))),
    ),
    Q=q_form({0: "0.483777", 1: "0.516223"}),
    R=_f("1.1167"),
    theta=THETA,
    kappa="0.407511457",
)

# PRZZ print c = 2.13745440613217263636…, i.e. e^{R(1−κ)} at the printed κ
C_PRINTED = "2.13745440613217263636"
