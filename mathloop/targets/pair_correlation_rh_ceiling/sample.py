"""f and a of a dual in floats: a fine FFT sample and refined minima (the proposer's cuts and its screening).

Floats propose, they never certify. With t = h x and the nodes k_0 .. k_M of k on hZ,
f(t) = a(t) + h sinc^2(pi t) P(2 pi t) = a(t) + h sum_{j>=1} j^2 d_j sinc^2(pi j t), a(t) = 1 + 2 sum w_i cos(2 pi b_i t),
P(theta) = k_0 + 2 sum k_j cos(j theta) and d the second differences of the even node sequence (`kink_positivity`).
On the sample t = i/K, P is one real FFT of the nodes; at other points f comes from the kink form, whose cost
follows the knots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ZOOMS, ZOOM_POINTS = 4, 33  # a minimum is refined 4 times on 33 points, each time 16x narrower


@dataclass(frozen=True)
class FloatDual:
    """A dual in floats: 1/h = N, nodes k_0 .. k_M, weights w at grid indices `at`, and its kinks (j >= 1, d_j)."""

    N: int
    k: np.ndarray
    w: np.ndarray
    at: np.ndarray
    j: np.ndarray
    d: np.ndarray

    @classmethod
    def of(cls, N: int, k: np.ndarray, w: np.ndarray, at) -> "FloatDual":
        k = np.asarray(k, dtype=float)
        ext = np.concatenate([[k[1] if len(k) > 1 else 0.0], k, [0.0]])
        d = ext[2:] - 2 * ext[1:-1] + ext[:-2]
        scale = max(float(np.max(np.abs(k))), 1.0)
        j = np.flatnonzero(np.abs(d[1:]) > 1e-14 * scale) + 1
        return cls(N, k, np.asarray(w, dtype=float), np.asarray(at, dtype=int), j, d[j])

    @property
    def top(self) -> int:
        return max([len(self.k) - 1, *self.at.tolist()])

    def a_at(self, t: np.ndarray) -> np.ndarray:
        return 1.0 + 2.0 * np.cos(2 * np.pi * np.outer(t, self.at)) @ self.w if len(self.at) else np.ones(len(t))

    def f_at(self, t: np.ndarray) -> np.ndarray:
        """Return f at arbitrary t (kink form; chunked so that the sinc matrix stays small)."""
        out = np.empty(len(t))
        step = max(1, 2_000_000 // max(len(self.j), 1))
        for s in range(0, len(t), step):
            tt = t[s:s + step]
            out[s:s + step] = self.a_at(tt) + (np.sinc(np.outer(tt, self.j)) ** 2) @ (self.d * self.j.astype(float) ** 2) / self.N
        return out


@dataclass(frozen=True)
class Sample:
    """f and a on t = i/K, i = 0 .. K (one period of the oscillating part), and the dual they came from."""

    dual: FloatDual
    t: np.ndarray
    f: np.ndarray
    a: np.ndarray


def _cosine_sum(coef: np.ndarray, points: int) -> np.ndarray:
    """Return sum_j coef_j cos(2 pi j i/points) for i = 0 .. points (coef shorter than points)."""
    c = np.zeros(points)
    c[:len(coef)] = coef
    half = np.fft.rfft(c).real
    full = np.concatenate([half, half[::-1][1:]])[:points]  # cos is even: index i and points - i agree
    return np.append(full, full[0])


def sample_dual(dual: FloatDual, points: int) -> Sample:
    """Return f and a of `dual` on t = i/points (points above the highest frequency)."""
    coef = dual.k.copy()
    coef[1:] *= 2
    P = _cosine_sum(coef, points)
    w = np.zeros(points)
    np.add.at(w, dual.at % points, 2 * dual.w)
    a = 1.0 + _cosine_sum(w, points)
    t = np.arange(points + 1) / points
    return Sample(dual, t, a + np.sinc(t) ** 2 * P / dual.N, a)


def sample(N: int, k: np.ndarray, w: np.ndarray, at, points: int) -> Sample:
    return sample_dual(FloatDual.of(N, k, w, at), points)


def local_minima(t: np.ndarray, v: np.ndarray, below: float) -> np.ndarray:
    """Return the indices of the sample's local minima whose value is below `below`."""
    if len(v) < 2:
        return np.flatnonzero(v < below)
    inner = (v[1:-1] <= v[:-2]) & (v[1:-1] <= v[2:])
    is_min = np.concatenate([[v[0] <= v[1]], inner, [v[-1] <= v[-2]]])
    return np.flatnonzero(is_min & (v < below))


def refine(fn, t0: np.ndarray, step: float, lo: float, hi: float) -> np.ndarray:
    """Return the points of t0 moved to the minimum of fn nearby (ZOOMS zooms of ZOOM_POINTS points)."""
    if not len(t0):
        return t0
    steps = np.full(len(t0), step)
    for _ in range(ZOOMS):
        grid = np.clip(t0[:, None] + steps[:, None] * np.linspace(-1, 1, ZOOM_POINTS)[None, :], lo, hi)
        vals = fn(grid.ravel()).reshape(grid.shape)
        t0 = grid[np.arange(len(t0)), np.argmin(vals, axis=1)]
        steps = steps / 16
    return t0


def minima_below(s: Sample, below: float, heavy: bool, refine_below: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Return (refined minima of f below `below`, those of a on [0, 1/2], the lowest value seen).

    Only sample minima under `refine_below` are refined; the lowest value is over the sample and the refined minima.
    """
    step = float(s.t[1] - s.t[0])
    tf = refine(s.dual.f_at, s.t[local_minima(s.t, s.f, refine_below)], step, 0.0, 1.0)
    vf = s.dual.f_at(tf)
    low = min(float(s.f.min()), float(vf.min()) if len(vf) else np.inf)
    ta, va = np.zeros(0), np.zeros(0)
    if heavy:
        half = s.t <= 0.5
        ta = refine(s.dual.a_at, s.t[half][local_minima(s.t[half], s.a[half], refine_below)], step, 0.0, 0.5)
        va = s.dual.a_at(ta)
        low = min(low, float(s.a[half].min()), float(va.min()) if len(va) else np.inf)
    return tf[vf < below], ta[va < below], low
