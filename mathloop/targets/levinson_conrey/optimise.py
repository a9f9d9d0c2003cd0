"""Float optimiser of κ over (P, Q, R) for the local proposer (never used to certify anything).

Parametrisation with the constraints built in and well-conditioned bases:
    P(u) = u + u(1−u)·Σ_j p_j L_j(2u−1)                       (P(0) = 0, P(1) = 1)
    Q(v) = 1 + Σ_{k odd} q_k (L_k(1−2v) − 1)                    (Q(0) = 1, Q(x) + Q(1−x) constant)
with L_k the Legendre polynomials. For fixed Q and R the constant c is a convex quadratic in p,
c = 1 + (1/θ)[A·∫P'² + θ·K + θ²·C·∫P²], so P is solved exactly by least squares and the search
runs over (q, R) only, with L-BFGS-B. Integrals use Gauss–Legendre nodes (exact for these degrees).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.polynomial import legendre as L
from scipy.optimize import minimize

N_NODES = 64
R_RANGE = (0.05, 10.0)


@dataclass(frozen=True)
class Optimum:
    """A float optimum at fixed degrees.

    Attributes:
        dP, dQ: degrees of P and Q (dQ odd).
        p: Legendre coefficients of P's free part (length dP − 1).
        q: Legendre coefficients q_1, q_3, ... of Q (length (dQ + 1) // 2).
        R: the shift.
        kappa: the float value of κ (an estimate, not a certificate).
    """

    dP: int
    dQ: int
    p: tuple[float, ...]
    q: tuple[float, ...]
    R: float
    kappa: float


class Evaluator:
    """Evaluates κ in floats at fixed degrees (dP, dQ) for a given θ."""

    def __init__(self, theta: float, dP: int, dQ: int) -> None:
        if dQ % 2 == 0 or dP < 1:
            raise ValueError("need dP >= 1 and odd dQ")
        self.theta, self.dP, self.dQ = theta, dP, dQ
        x, w = L.leggauss(N_NODES)
        self.t, self.w = (x + 1) / 2, w / 2  # nodes and weights on [0, 1]
        t = self.t
        # P basis: psi_j(u) = u(1−u) L_j(2u−1) and its derivative.
        eye = np.eye(max(dP - 1, 1))
        if dP >= 2:
            Lj = np.stack([L.legval(2 * t - 1, eye[j]) for j in range(dP - 1)], axis=1)
            dLj = np.stack([2 * L.legval(2 * t - 1, L.legder(eye[j])) for j in range(dP - 1)], axis=1)
            self.psi = (t * (1 - t))[:, None] * Lj
            self.dpsi = (1 - 2 * t)[:, None] * Lj + (t * (1 - t))[:, None] * dLj
        else:
            self.psi = self.dpsi = np.zeros((len(t), 0))
        # Q basis: phi_k(v) = L_k(1−2v) − 1 for odd k, and its derivative −2 L_k'(1−2v).
        ks = list(range(1, dQ + 1, 2))
        eyeq = np.eye(dQ + 1)
        self.phi = np.stack([L.legval(1 - 2 * t, eyeq[k]) - 1 for k in ks], axis=1)
        self.dphi = np.stack([-2 * L.legval(1 - 2 * t, L.legder(eyeq[k])) for k in ks], axis=1)
        self.q_at_one = np.array([-2.0 for _ in ks])  # L_k(−1) − 1 = −2 for odd k

    def _solve_p(self, A: float, C: float) -> tuple[np.ndarray, float, float]:
        """Return (p, ∫P'², ∫P²) minimising A·∫P'² + θ²C·∫P² over the free part of P."""
        t, w, th = self.t, self.w, self.theta
        sw = np.sqrt(w)
        if self.psi.shape[1] == 0:
            p = np.zeros(0)
        else:
            M = np.vstack([np.sqrt(A) * sw[:, None] * self.dpsi, th * np.sqrt(C) * sw[:, None] * self.psi])
            rhs = -np.concatenate([np.sqrt(A) * sw * 1.0, th * np.sqrt(C) * sw * t])
            p = np.linalg.lstsq(M, rhs, rcond=None)[0]
        dP = 1.0 + self.dpsi @ p
        P = t + self.psi @ p
        return p, float(w @ dP**2), float(w @ P**2)

    def c_value(self, q: np.ndarray, R: float) -> tuple[float, np.ndarray]:
        """Return (c, p) with P optimal for (q, R)."""
        t, w, th = self.t, self.w, self.theta
        Q = 1.0 + self.phi @ q
        B = -0.0 + self.dphi @ q + R * Q
        e = w * np.exp(2 * R * t)
        A, K, C = float(e @ Q**2), float(e @ (Q * B)), float(e @ B**2)
        p, i1, i3 = self._solve_p(A, C)
        return 1.0 + (i1 * A + th * K + th * th * i3 * C) / th, p

    def kappa(self, q: np.ndarray, R: float) -> float:
        """Return κ = 1 − log(c)/R with P optimal (−inf when c is not positive)."""
        c, _ = self.c_value(q, R)
        return 1.0 - np.log(c) / R if c > 0 else -np.inf

    def optimise(self, q0: np.ndarray, R0: float, max_iter: int = 400) -> Optimum:
        """Return the local optimum of κ over (q, R) from the start (q0, R0)."""
        nq = len(self.phi[0])
        x0 = np.concatenate([np.resize(np.asarray(q0, float), nq) if len(q0) >= nq else np.pad(np.asarray(q0, float), (0, nq - len(q0))), [R0]])
        x0[-1] = min(max(x0[-1], R_RANGE[0]), R_RANGE[1])

        def f(x: np.ndarray) -> float:
            k = self.kappa(x[:-1], x[-1])
            return -k if np.isfinite(k) else 1e6

        bounds = [(None, None)] * nq + [R_RANGE]
        res = minimize(f, x0, method="L-BFGS-B", bounds=bounds, options={"maxiter": max_iter, "ftol": 1e-15, "gtol": 1e-11})
        x = res.x if res.fun <= f(x0) else x0
        q, R = x[:-1], float(x[-1])
        _, p = self.c_value(q, R)
        return Optimum(self.dP, self.dQ, tuple(map(float, p)), tuple(map(float, q)), R, float(-f(x)))


def p_monomials(opt: Optimum) -> np.ndarray:
    """Return P's monomial coefficients in u (lowest first) as floats."""
    coeffs = np.zeros(opt.dP + 1)
    coeffs[1] = 1.0
    if opt.dP >= 2:
        free = L.Legendre(np.array(opt.p), domain=[0, 1]).convert(kind=np.polynomial.Polynomial).coef
        prod = np.polynomial.polynomial.polymul(free, [0.0, 1.0, -1.0])  # u(1−u)·free(u)
        coeffs[: len(prod)] += prod
    return coeffs


def q_odd_powers(opt: Optimum) -> dict[int, float]:
    """Return {k: d_k} with Σ_k q_k L_k(y) = Σ_k d_k y^k (odd k), so Q = 1 − Σd_k + Σ d_k (1−2v)^k."""
    leg = np.zeros(opt.dQ + 1)
    for i, k in enumerate(range(1, opt.dQ + 1, 2)):
        leg[k] = opt.q[i]
    power = np.pad(L.leg2poly(leg), (0, opt.dQ + 1))
    return {k: float(power[k]) for k in range(1, opt.dQ + 1, 2)}


def q_from_odd_powers(d: dict[int, float], dQ: int) -> np.ndarray:
    """Return Legendre coefficients q (odd k <= dQ) for Q = 1 − Σd_k + Σ d_k (1−2v)^k."""
    power = np.zeros(dQ + 1)
    for k, v in d.items():
        if k <= dQ:
            power[k] = v
    leg = np.pad(L.poly2leg(power), (0, dQ + 1))  # poly2leg trims trailing zeros
    return np.array([leg[k] for k in range(1, dQ + 1, 2)])
