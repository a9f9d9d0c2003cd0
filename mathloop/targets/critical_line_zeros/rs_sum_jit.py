"""The main-sum block of rs_sum compiled by numba (extra `fast`): the same operations in the same order, so the same bits.

`run(theta, h0, n_pt, n_lo, a_n, ell, w, b, y)` fills y (nb x pb, terms x points) exactly as rs_sum's
numpy block does: per element fl(fl(fl(l h0) + A) - Theta), the reduction x - rint(x) (as
(x + 1.5 2^52) - 1.5 2^52, which is rint for |x| < 2^51: one rounding to an integer, ties to even,
then an exact subtraction), y = x^2, Horner of degree 7 (leading zeros for lower degrees give
the same roundings: fl(0 y + b) = b), times w, times 0 or 1 past N_i, then the same row fold.
numba compiles without fast-math: no reassociation and no fused multiply-add (LLVM keeps each
IEEE operation), so the values are identical to numpy's; a test checks it bit for bit.
`available()` says whether numba is installed; MATHLOOP_FAST_Z_JIT=0 turns this path off.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np

# numba is imported at the first kernel only (its import costs ~0.3 s; most processes never need it).
_INSTALLED = importlib.util.find_spec("numba") is not None
_COMPILED: dict[str, object] = {}
_BROKEN: list[str] = []
_MAGIC = 6755399441055744.0  # 1.5 * 2^52


def available() -> bool:
    """Return whether the compiled kernels can be used (installed, not turned off, compiled without error)."""
    return _INSTALLED and not _BROKEN and os.environ.get("MATHLOOP_FAST_Z_JIT", "1") != "0"


def call(kernel, *args) -> bool:
    """Run `kernel` compiled; on any compile or cache error remember it and return False (numpy takes over).

    A kernel's module lists the functions the kernel calls in JIT_HELPERS. Every kernel here, in
    rs_gram_jit and in rs_point_jit performs its numpy reference's IEEE operations in the same
    order (numba without fast-math: no reassociation, no fused multiply-add), so both give the same bits.
    """
    try:
        key = f"{kernel.__module__}.{kernel.__qualname__}"
        fn = _COMPILED.get(key)
        if fn is None:
            import numba as nb

            module = sys.modules[kernel.__module__]
            for name in getattr(module, "JIT_HELPERS", ()):  # functions the kernel calls: compiled first
                if not hasattr(getattr(module, name), "py_func"):
                    setattr(module, name, nb.njit(fastmath=False, error_model="numpy")(getattr(module, name)))
            fn = _COMPILED[key] = nb.njit(
                cache=True, fastmath=False, boundscheck=False, error_model="numpy")(kernel)
        fn(*args)
        return True
    except Exception as exc:  # e.g. no writable cache location: the numpy reference gives the same bits
        _BROKEN.append(f"{type(exc).__name__}: {exc}")
        return False


def run(*args) -> bool:
    """Run the compiled main-sum block (see `call`)."""
    return call(_block, *args)


def _block(theta, h0, n_pt, n_lo, a_n, ell, w, b, y):  # pragma: no cover - compiled
    nb, pb = y.shape
    b0, b1, b2, b3, b4, b5, b6, b7 = b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
    for n in range(nb):
        ln, an, wn = ell[n], a_n[n], w[n]
        for i in range(pb):
            x = ln * h0[i]
            x = x + an
            x = x - theta[i]
            x = x - ((x + _MAGIC) - _MAGIC)
            yy = x * x
            p = yy * b7
            p = p + b6
            p = p * yy
            p = p + b5
            p = p * yy
            p = p + b4
            p = p * yy
            p = p + b3
            p = p * yy
            p = p + b2
            p = p * yy
            p = p + b1
            p = p * yy
            p = p + b0
            p = p * wn
            if n >= n_lo:
                p = p * (1.0 if n + 1 <= n_pt[i] else 0.0)
            y[n, i] = p
    r = nb
    while r > 1:
        h = r // 2
        for k in range(h):
            for i in range(pb):
                y[k, i] = y[2 * k, i] + y[2 * k + 1, i]
        if r % 2:
            for i in range(pb):
                y[h, i] = y[r - 1, i]
        r -= h


def padded(b: tuple[float, ...]) -> np.ndarray:
    """Return the coefficients b_0..b_7 with zeros for the missing leading ones."""
    return np.array(tuple(b) + (0.0,) * (8 - len(b)))
