"""Writing "%.{p}g" texts from exact decimal digits, compiled by numba: the same characters Python prints.

`write(values, D, X, ok, p)` returns the texts of all values, with "" where ok is False (the caller
formats those with Python), or None when numba is not available (the caller formats everything).
Where ok, "%.{p}g" % v denotes D 10^(X-p+1) (ball_text.digits), and Python prints it as C's %g does:
with P = p and X' the exponent after rounding (X + 1 when D = 10^p), fixed notation when
-4 <= X' < P, else d.ddde+XX (at least two exponent digits), trailing zeros and a bare point removed,
a minus sign for negative values. Tested character for character against Python.
"""

from __future__ import annotations

import numpy as np

from mathloop.targets.critical_line_zeros import rs_sum_jit

_WIDTH = 18  # bytes per entry: the longest text for p <= 8, "-d.ddddddde-308", is 15 characters and "\n"


def write(values: np.ndarray, d: np.ndarray, x: np.ndarray, ok: np.ndarray, p: int) -> list[str] | None:
    """Return the "%.{p}g" texts where ok ("" elsewhere), or None when the compiled kernel cannot run."""
    if not rs_sum_jit.available() or not 1 <= p <= 8:
        return None
    n = len(values)
    buf = np.empty(n * _WIDTH, dtype=np.uint8)
    used = np.zeros(1, dtype=np.int64)
    if not rs_sum_jit.call(_write, values, d.astype(np.int64), x, ok, p, buf, used):
        return None
    return buf[: int(used[0])].tobytes().decode("ascii").split("\n")[:n]


def _write(values, d, x, ok, p, buf, used):  # pragma: no cover - compiled
    pos = 0
    top = 1
    for _ in range(p):
        top *= 10
    for i in range(len(values)):
        if ok[i]:
            dd = d[i]
            e = x[i]
            if dd == top:  # rounding carried into a new digit: 10^p at X is 10^(p-1) at X + 1
                dd = top // 10
                e += 1
            nd = p
            while nd > 1 and dd % 10 == 0:
                dd //= 10
                nd -= 1
            if values[i] < 0:
                buf[pos] = 45  # "-"
                pos += 1
            scale = 1
            for _ in range(nd - 1):
                scale *= 10
            if -4 <= e < p:
                if e >= 0:
                    s = scale
                    for j in range(e + 1):  # the integer part: digits of dd, then zeros
                        if j < nd:
                            buf[pos] = 48 + (dd // s) % 10
                            s //= 10
                        else:
                            buf[pos] = 48
                        pos += 1
                    if nd > e + 1:
                        buf[pos] = 46  # "."
                        pos += 1
                        for j in range(e + 1, nd):
                            buf[pos] = 48 + (dd // s) % 10
                            s //= 10
                            pos += 1
                else:
                    buf[pos] = 48
                    buf[pos + 1] = 46
                    pos += 2
                    for _ in range(-e - 1):
                        buf[pos] = 48
                        pos += 1
                    s = scale
                    for j in range(nd):
                        buf[pos] = 48 + (dd // s) % 10
                        s //= 10
                        pos += 1
            else:
                s = scale
                buf[pos] = 48 + (dd // s) % 10
                s //= 10
                pos += 1
                if nd > 1:
                    buf[pos] = 46
                    pos += 1
                    for j in range(1, nd):
                        buf[pos] = 48 + (dd // s) % 10
                        s //= 10
                        pos += 1
                buf[pos] = 101  # "e"
                buf[pos + 1] = 45 if e < 0 else 43  # "-" / "+"
                pos += 2
                a = -e if e < 0 else e
                if a >= 100:
                    buf[pos] = 48 + a // 100
                    pos += 1
                buf[pos] = 48 + (a // 10) % 10
                buf[pos + 1] = 48 + a % 10
                pos += 2
        buf[pos] = 10  # "\n"
        pos += 1
    used[0] = pos
