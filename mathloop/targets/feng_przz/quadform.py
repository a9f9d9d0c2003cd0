"""c as a quadratic form in the coefficients of P₁..P_K and of Q, at fixed R and θ (the proposer's model).

c is bilinear in each pair of pieces and in Q⊗Q (main_term.py), so with the basis
    e₀ = (piece 0, x),  (piece 0, x^j − x) for 2 <= j <= d₁,  (piece i, x^j) for 1 <= j <= d_i,
every P₁ with P₁(0) = 0, P₁(1) = 1 and every P_i with P_i(0) = 0 is e₀ + Σ u_m e_m, and
c = Σ_{m,n} v_m v_n Σ_{a,b} Q_a Q_b T_mn[a][b] (v = (1, u)). At fixed Q the best u is one linear
solve; at fixed u the best Q = Σ_k q_k (1−2x)^k (k = 0 and odd, Σ q_k = Q(0) = 1) is another. The
tensor T comes from the exact pair series, evaluated with mpmath at WORK_DPS digits: the weights
are ~10¹¹ with c ~ 2 (cancellation). Exploratory only: the checker decides.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Sequence

import mpmath

from mathloop.targets.feng_przz.main_term import pair_series

WORK_DPS = 45


def basis(degrees: Sequence[int]) -> list[tuple[int, tuple[Fraction, ...]]]:
    """Return [(piece index, monomial coefficients)], e₀ first (see the module docstring)."""
    out = [(0, (Fraction(0), Fraction(1)))]
    for j in range(2, degrees[0] + 1):
        out.append((0, (Fraction(0), Fraction(-1)) + (Fraction(0),) * (j - 2) + (Fraction(1),)))
    for i, d in enumerate(degrees[1:], start=1):
        for j in range(1, d + 1):
            out.append((i, (Fraction(0),) * j + (Fraction(1),)))
    return out


def q_basis(dQ: int) -> list[tuple[int, ...]]:
    """Return the integer monomial coefficients of (1−2x)^k for k = 0 and odd k <= dQ (all of degree <= dQ)."""
    out = []
    for k in [0, *range(1, dQ + 1, 2)]:
        out.append(tuple(math.comb(k, i) * (-2) ** i for i in range(k + 1)))
    return out


class QuadForm:
    """T_mn[a][b] for one (pieces, degrees, deg Q, R, θ); see the module docstring.

    `deadline_check` is called before each pair series (it raises to abandon the build).
    """

    def __init__(self, pieces: Sequence[int], degrees: Sequence[int], dQ: int, R: Fraction, theta: Fraction,
                 deadline_check: Callable[[], None] | None = None) -> None:
        self.pieces, self.degrees, self.dQ, self.R = tuple(pieces), tuple(degrees), dQ, R
        self.basis = basis(degrees)
        n = len(self.basis)
        self.T: dict[tuple[int, int], list[list[mpmath.mpf]]] = {}
        with mpmath.workdps(WORK_DPS):
            for m in range(n):
                for k in range(m, n):
                    if deadline_check is not None:
                        deadline_check()
                    (im, pm), (ik, pk) = self.basis[m], self.basis[k]
                    km, kk = pieces[im], pieces[ik]
                    sm = tuple(c * (-1) ** km for c in pm)
                    sk = tuple(c * (-1) ** kk for c in pk)
                    M = pair_series(sm, sk, km + 1, kk + 1, dQ, R, theta)
                    t = [[mpmath.mpf(0)] * (dQ + 1) for _ in range(dQ + 1)]
                    for (a, b, c0), v in M.items():
                        f = (-1) ** (a + b) * math.factorial(a) * math.factorial(b)
                        t[a][b] += mpmath.mpf(v.numerator * f) / v.denominator * mpmath.exp(mpmath.mpf(c0.numerator) / c0.denominator)
                    self.T[(m, k)] = t

    def _qq(self, t, Q) -> mpmath.mpf:
        return mpmath.fsum(Q[a] * Q[b] * t[a][b] for a in range(len(Q)) for b in range(len(Q)))

    def c_matrix(self, Q: Sequence[float]) -> mpmath.matrix:
        """Return G with c = vᵀGv at this Q (monomial coefficients, length dQ + 1)."""
        n = len(self.basis)
        G = mpmath.matrix(n, n)
        for (m, k), t in self.T.items():
            g = self._qq(t, Q)
            if m == k:
                G[m, m] = g
            else:
                G[m, k] = G[k, m] = g  # c_{mk} + c_{km} = 2·c_{mk}: the form is symmetric
        return G

    def solve_p(self, Q) -> tuple[list, mpmath.mpf]:
        """Return (v, c) minimising c over the P coefficients at fixed Q."""
        with mpmath.workdps(WORK_DPS):
            G = self.c_matrix(Q)
            n = G.rows
            if n == 1:
                return [mpmath.mpf(1)], G[0, 0]
            H = mpmath.matrix([[G[i, j] for j in range(1, n)] for i in range(1, n)])
            g = mpmath.matrix([G[i, 0] for i in range(1, n)])
            u = mpmath.lu_solve(H, -g)
            v = [mpmath.mpf(1)] + [u[i] for i in range(n - 1)]
            return v, self._value(G, v)

    @staticmethod
    def _value(G, v) -> mpmath.mpf:
        return mpmath.fsum(v[i] * v[j] * G[i, j] for i in range(len(v)) for j in range(len(v)))

    def solve_q(self, v) -> tuple[list, mpmath.mpf]:
        """Return (Q monomial coefficients, c) minimising c over symmetric Q with Q(0) = 1 at fixed P."""
        with mpmath.workdps(WORK_DPS):
            d = self.dQ + 1
            W = [[mpmath.mpf(0)] * d for _ in range(d)]
            for (m, k), t in self.T.items():
                f = v[m] * v[k] * (1 if m == k else 2)
                for a in range(d):
                    for b in range(d):
                        W[a][b] += f * (t[a][b] + t[b][a]) / 2
            S = [[mpmath.mpf(x) for x in s] + [mpmath.mpf(0)] * (d - len(s)) for s in q_basis(self.dQ)]
            A = mpmath.matrix([[mpmath.fsum(S[i][a] * W[a][b] * S[j][b] for a in range(d) for b in range(d))
                                for j in range(len(S))] for i in range(len(S))])
            y = mpmath.lu_solve(A, mpmath.matrix([1] * len(S)))
            q = [y[i] / mpmath.fsum(y) for i in range(len(S))]
            self.last_q = q  # coefficients of (1−2x)^k, k = 0 and odd
            Q = [mpmath.fsum(q[i] * S[i][a] for i in range(len(S))) for a in range(d)]
            return Q, mpmath.fsum(Q[a] * Q[b] * W[a][b] for a in range(d) for b in range(d))

    def optimise(self, Q0, rounds: int = 8) -> tuple[list, list, mpmath.mpf]:
        """Return (v, Q, c) after alternating P and Q solves from Q0."""
        Q = [mpmath.mpf(x) for x in Q0] + [mpmath.mpf(0)] * (self.dQ + 1 - len(Q0))
        v, c = self.solve_p(Q)
        for _ in range(rounds):
            Q, _ = self.solve_q(v)
            v, c = self.solve_p(Q)
        return v, Q, c

    def polynomials(self, v) -> list[list]:
        """Return the monomial coefficients of each piece for the vector v."""
        out = [[mpmath.mpf(0)] * (d + 1) for d in self.degrees]
        for (i, p), x in zip(self.basis, v):
            for j, cj in enumerate(p):
                out[i][j] += x * cj
        return out
