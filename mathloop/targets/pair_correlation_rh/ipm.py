"""A dense interior-point LP solver (Mehrotra predictor-corrector) for the bracket's tall, dense LPs.

Problem: maximise c.x subject to blocks of rows G_b x[cols_b] >= g_b and 0 <= x <= u (every bound finite).
Floats only: the answer is a proposal, which the caller rationalises and the checker certifies. Both ends of the
pair-correlation bracket use it: the primal's LP (`lp.solve`) and the ceiling's (`pair_correlation_rh_ceiling.lp_dense`).

Why not HiGHS: the ceiling LP has a few hundred columns and tens of thousands of dense rows (a cosine sum per
point t). HiGHS's interior point (IPX) treats the matrix as sparse and took 357-528 s per cutting-plane round at
(1/80, 60) (issue 24). Here each iteration forms the normal matrix G' D G with one dense BLAS product
(m n^2 flops: 0.5 s for 19 201 x 679 on this machine) and factors it by Cholesky (n^3, milliseconds), so a whole
solve is 25-45 iterations. The normal equations lose accuracy near the optimum (D spans ~10^20); a small
diagonal regularisation keeps Cholesky going, and the solve stops at a relative gap of `tol`, which is all
a proposal needs (the rationalisation and the mixing absorb the rest).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

def single_thread_blas() -> bool:
    """Limit BLAS to one thread for the rest of the process; return False when threadpoolctl is missing.

    Measured: the same 9 602 x 334 solve took 1.4 s with one OpenBLAS thread and 36.6 s with two at load 5 (the
    threads spin against the other processes of a shared machine).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return False
    threadpool_limits(1)
    return True


STEP = 0.995  # fraction of the largest step to the boundary
MAX_ITERATIONS = 80
# The dual residual q - G'z - lam + mu stalls near 10^-8 in double precision (cancellation in G'z with z up to
# ~10^4 at the active rows) while the gap and the primal residual keep falling: x is primal feasible and its
# objective optimal to `tol`, which is what a proposal needs.
DUAL_TOL = 1e-6


@dataclass(frozen=True)
class Block:
    """Rows G x[cols] >= g: `cols` is a slice of the variables (the mass rows touch only the masses)."""

    G: np.ndarray
    g: np.ndarray
    cols: slice


@dataclass(frozen=True)
class IpmResult:
    """A solve: the primal x, the row duals z per block (the weights of the active points), status and counts."""

    x: np.ndarray
    z: tuple[np.ndarray, ...]
    status: str  # "optimal", "iterations", "time" or "failed"
    iterations: int
    gap: float


def _normal(blocks, d, n):
    H = np.zeros((n, n))
    for b, db in zip(blocks, d):
        Gs = b.G * np.sqrt(db)[:, None]
        H[b.cols, b.cols] += Gs.T @ Gs
    return H


def _times(blocks, x):
    return [b.G @ x[b.cols] for b in blocks]


def _times_t(blocks, zs, n):
    out = np.zeros(n)
    for b, z in zip(blocks, zs):
        out[b.cols] += b.G.T @ z
    return out


def _max_step(v, dv):
    neg = dv < 0
    return 1.0 if not neg.any() else min(1.0, float(np.min(-v[neg] / dv[neg])))


def _cholesky_solve(H):
    """Return a function solving H y = r (Cholesky, regularised until it factors)."""
    scale = max(float(np.max(np.abs(np.diag(H)))), 1e-300)
    reg = 1e-14 * scale
    for _ in range(12):
        try:
            C = np.linalg.cholesky(H + reg * np.eye(len(H)))
            break
        except np.linalg.LinAlgError:
            reg *= 100
    else:
        raise np.linalg.LinAlgError("normal matrix not positive definite")
    from scipy.linalg import cho_solve

    return lambda r: cho_solve((C, True), r)


def solve(c: np.ndarray, u: np.ndarray, blocks: list[Block], *, tol: float = 1e-10,
          deadline: float | None = None) -> IpmResult:
    """Return the IPM optimum of max c.x s.t. every block's rows, 0 <= x <= u (see the module doc).

    The columns are scaled to unit norm first: at (1/20, 40) that took the objective's error against HiGHS's
    dual simplex from 1.3e-8 to 1.1e-9 (the normal matrix's conditioning is what limits the accuracy).
    """
    n = len(c)
    norms = np.zeros(n)
    for b in blocks:
        norms[b.cols] += np.einsum("ij,ij->j", b.G, b.G)
    scale = 1 / np.sqrt(np.maximum(norms, 1e-300))
    scaled = [Block(b.G * scale[b.cols], b.g, b.cols) for b in blocks]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # an infeasible LP ends "failed" (below)
        res = _solve(np.asarray(c, dtype=float) * scale, np.asarray(u, dtype=float) / scale, scaled, tol, deadline)
    return IpmResult(res.x * scale, res.z, res.status, res.iterations, res.gap)


def _solve(c: np.ndarray, u: np.ndarray, blocks: list[Block], tol: float, deadline: float | None) -> IpmResult:
    n = len(c)
    q = -np.asarray(c, dtype=float)  # minimise q.x
    x = u / 2
    v = u - x
    Gx = _times(blocks, x)
    s = [np.maximum(gx - b.g, 1.0) for gx, b in zip(Gx, blocks)]
    z = [np.ones_like(si) for si in s]
    lam, mu = np.ones(n), np.ones(n)
    count = sum(len(si) for si in s) + 2 * n
    norm_g = 1 + max(float(np.max(np.abs(b.g))) if len(b.g) else 0.0 for b in blocks)
    norm_q = 1 + float(np.max(np.abs(q)))
    status, gap, it = "iterations", np.inf, 0
    for it in range(1, MAX_ITERATIONS + 1):
        if deadline is not None and time.monotonic() >= deadline:
            status = "time"
            break
        Gx = _times(blocks, x)
        rp = [gx - si - b.g for gx, si, b in zip(Gx, s, blocks)]  # want G x - s - g = 0
        rd = q - _times_t(blocks, z, n) - lam + mu  # want q = G'z + lam - mu
        comp = sum(float(si @ zi) for si, zi in zip(s, z)) + float(x @ lam) + float(v @ mu)
        gap = comp / (1 + abs(float(q @ x)))
        pinf = max(float(np.max(np.abs(r))) if len(r) else 0.0 for r in rp) / norm_g
        dinf = float(np.max(np.abs(rd))) / norm_q
        if gap < tol and pinf < tol and dinf < DUAL_TOL:
            status = "optimal"
            break
        if not (np.isfinite(gap) and np.isfinite(pinf) and np.isfinite(dinf)) or gap > 1e30:
            status = "failed"  # diverging: an infeasible LP (no interior point to follow)
            break
        d = [zi / si for zi, si in zip(z, s)]
        H = _normal(blocks, d, n)
        H[np.diag_indices(n)] += lam / x + mu / v
        try:
            solve_h = _cholesky_solve(H)
        except np.linalg.LinAlgError:
            status = "failed"
            break
        m_now = comp / count

        def direction(r_sz, r_xl, r_vm):
            rhs = _times_t(blocks, [(a - zi * r) / si for a, zi, r, si in zip(r_sz, z, rp, s)], n) + r_xl / x - r_vm / v - rd
            dx = solve_h(rhs)
            gdx = _times(blocks, dx)
            ds = [g + r for g, r in zip(gdx, rp)]
            dz = [(a - zi * dsi) / si for a, zi, dsi, si in zip(r_sz, z, ds, s)]
            dl = (r_xl - lam * dx) / x
            dm = (r_vm + mu * dx) / v
            return dx, ds, dz, dl, dm

        aff = direction([-si * zi for si, zi in zip(s, z)], -x * lam, -v * mu)
        dx, ds, dz, dl, dm = aff
        ap = min([_max_step(x, dx), _max_step(v, -dx)] + [_max_step(si, d_) for si, d_ in zip(s, ds)])
        ad = min([_max_step(lam, dl), _max_step(mu, dm)] + [_max_step(zi, d_) for zi, d_ in zip(z, dz)])
        comp_aff = (sum(float((si + ap * a) @ (zi + ad * b_)) for si, a, zi, b_ in zip(s, ds, z, dz))
                    + float((x + ap * dx) @ (lam + ad * dl)) + float((v - ap * dx) @ (mu + ad * dm)))
        sigma = (comp_aff / comp) ** 3
        target = sigma * m_now
        dx, ds, dz, dl, dm = direction(
            [-si * zi - a * b_ + target for si, zi, a, b_ in zip(s, z, aff[1], aff[2])],
            -x * lam - aff[0] * aff[3] + target, -v * mu + aff[0] * aff[4] + target)
        if not all(np.isfinite(v_).all() for v_ in (dx, dl, dm, *ds, *dz)):
            status = "failed"  # infeasible or numerically lost: the caller keeps its last solved round
            break
        ap = STEP * min([_max_step(x, dx), _max_step(v, -dx)] + [_max_step(si, d_) for si, d_ in zip(s, ds)])
        ad = STEP * min([_max_step(lam, dl), _max_step(mu, dm)] + [_max_step(zi, d_) for zi, d_ in zip(z, dz)])
        x = x + ap * dx
        v = u - x
        s = [si + ap * d_ for si, d_ in zip(s, ds)]
        z = [zi + ad * d_ for zi, d_ in zip(z, dz)]
        lam, mu = lam + ad * dl, mu + ad * dm
    return IpmResult(x, tuple(z), status, it, gap)
