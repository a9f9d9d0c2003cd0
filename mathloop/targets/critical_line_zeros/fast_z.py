"""Fast float Hardy Z for proposing: vectorised Riemann-Siegel main sum plus the C0 correction.

Not rigorous (error ~ 0.127 (t/2pi)^{-3/4} by Gabcke); values with |Z| below `TRUST` or at
t < `MIN_T` are recomputed with the Arb midpoint, so the proposer's signs agree with the
checker's except in pathological cases (which the checker then refutes, never accepts).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from mathloop.targets.critical_line_zeros.hardy_z import z_float

TRUST = 0.05
MIN_T = 300.0


def theta_float(t: np.ndarray) -> np.ndarray:
    """Return theta(t) by its Stirling expansion (accurate to ~1e-12 for t > 100)."""
    return t / 2 * np.log(t / (2 * np.pi)) - t / 2 - np.pi / 8 + 1 / (48 * t) + 7 / (5760 * t**3)


def z_rs(t: np.ndarray) -> np.ndarray:
    """Return Riemann-Siegel approximations of Z at the float array t (t > MIN_T)."""
    a = np.sqrt(t / (2 * np.pi))
    n_max = int(np.floor(a.max()))
    n = np.arange(1, n_max + 1, dtype=float)
    big_n = np.floor(a)
    th = theta_float(t)
    terms = np.cos(th[:, None] - t[:, None] * np.log(n)[None, :]) / np.sqrt(n)[None, :]
    terms *= n[None, :] <= big_n[:, None]
    main = 2 * terms.sum(axis=1)
    p = a - big_n
    den = np.cos(2 * np.pi * p)
    den = np.where(np.abs(den) < 1e-6, 1e-6, den)  # removable singularity at p = 1/4, 3/4
    c0 = np.cos(2 * np.pi * (p * p - p - 1 / 16)) / den
    sign = np.where(big_n % 2 == 1, 1.0, -1.0)  # (-1)^(N-1)
    return main + sign * a**-0.5 * c0


def z_values(texts: Sequence[str]) -> list[float]:
    """Return Z at the decimal strings `texts`: Riemann-Siegel, Arb where it cannot be trusted."""
    if not texts:
        return []
    t = np.array([float(x) for x in texts])
    out = np.empty_like(t)
    hi = t >= MIN_T
    if hi.any():
        out[hi] = z_rs(t[hi])
    fix = (~hi) | (np.abs(out) < TRUST)
    for i in np.nonzero(fix)[0]:
        out[i] = z_float(Fraction(texts[i]))
    return [float(x) for x in out]
