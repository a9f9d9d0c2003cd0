"""The decimal text of the fast path's balls: (mid, rad) strings that enclose a float value +- a proved bound.

`float_ball_strings` is the definition (Python's own formatting and parsing); `float_ball_strings_many`
gives the same strings for whole arrays, faster: where the exact decimal digits of "%.6g" / "%.3g"
are certain from float arithmetic (`digits`), the number a string denotes is computed, not parsed,
and with the `fast` extra the strings are written by a compiled kernel (ball_text_jit); everything
else goes through Python's formatting. Equal to the definition string for string (tested).
"""

from __future__ import annotations

import math

import numpy as np

from mathloop.targets.critical_line_zeros import ball_text_jit

_POW10 = 10.0 ** np.arange(23)  # exact floats


def float_ball_strings(value: float, bound: float) -> tuple[str, str] | None:
    """Return (mid, rad) decimal strings enclosing [value - bound, value + bound], or None if they would show 0.

    The midpoint keeps 6 significant digits (so the text does not depend on the last bits of a
    float sum). With m = float(mid) (|m - mid| <= u |m|), the slack (bound + |value - m| + u|m|)
    is computed with a 4u relative margin and printed with 3 digits after scaling by 1.006 (a
    3-digit rounding moves it by at most 0.5 %), so rad >= |Z - mid| whenever |Z - value| <= bound.

    >>> float_ball_strings(0.123456789, 1e-5)
    ('0.123457', '1.03e-05')
    >>> float_ball_strings(float("nan"), 1e-5) is None
    True
    """
    if not (math.isfinite(value) and math.isfinite(bound)):  # "nan"/"inf" texts would not be a ball
        return None
    mid = f"{value:.6g}"
    m = float(mid)
    slack = (bound + abs(value - m) + 2**-52 * abs(m)) * (1 + 2**-50)
    rad = f"{slack * 1.006:.3g}"
    if abs(m) * (1 - 2**-50) <= float(rad) * (1 + 2**-50):
        return None
    return mid, rad


def float_ball_strings_many(values: np.ndarray, bounds: np.ndarray) -> tuple[list[str], list[str], np.ndarray]:
    """Return float_ball_strings for whole arrays: (mids, rads, shown), shown False where it would return None.

    The same operations in the same order as the scalar form (elementwise IEEE; m is float(mid)
    exactly, see `digits`), so the strings and the decision are identical to it for finite values
    and bounds (tested); a non-finite one is never shown, as in the scalar form.
    """
    d6, x6, ok6 = digits(values, 6)
    m = decimal_floats(values, d6, x6, 6)  # float(mid) where ok6
    mids = _texts(values, d6, x6, ok6, 6)
    for i in np.nonzero(~ok6)[0].tolist():
        m[i] = float(mids[i])
    with np.errstate(invalid="ignore", over="ignore"):  # non-finite entries give nan here and are not shown
        slack = (bounds + np.abs(values - m) + 2**-52 * np.abs(m)) * (1 + 2**-50)
    x = slack * 1.006
    rads = _texts(x, *digits(x, 3), 3)
    # float(rad) is within 0.5 % (3 digits) + u of x, so the test needs the parsed rad only in that band.
    lhs = np.abs(m) * (1 - 2**-50)
    shown = lhs > x * 1.0051 * (1 + 2**-50)
    for i in np.nonzero(~shown & (lhs > x * 0.9949 * (1 + 2**-50)))[0].tolist():
        shown[i] = lhs[i] > float(rads[i]) * (1 + 2**-50)
    return mids, rads, shown


def digits(values: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (D, X, ok): where ok, "%.{p}g" % v is the decimal D 10^(X-p+1) (D an integer in [10^(p-1), 10^p]).

    X = floor(log10 |v|) exactly, i.e. s = |v| 10^(p-1-X) in [10^(p-1), 10^p), and D is the
    half-even rounding of s (D = 10^p prints as 1e(X+1): the same number). s~ = fl(|v| 10^(p-1-X))
    (one IEEE product or quotient by an exact power of ten, |p-1-X| <= 22) is within 10^p u/2 of s,
    so where s~ lies inside (10^(p-1), 10^p) by more than 3 10^p u and as far from a half-integer,
    X is right and D = rint(s~) exactly. Then D 10^(X-p+1), one correctly rounded IEEE operation on
    exact operands, is the float nearest the decimal, which is what float() of the text returns
    (Clinger's fast path). Elsewhere (0, non-finite, subnormal, huge, near a tie) ok is False.
    Soundness needs this equality: the radius encloses around float(mid); it is tested bit for bit.
    """
    av = np.abs(values)
    lo, hi, margin = 10.0 ** (p - 1), 10.0**p, 3 * 10.0**p * 2.0**-53
    d, xs = np.zeros(len(av)), np.zeros(len(av), dtype=np.int64)
    ok = np.zeros(len(av), dtype=bool)
    todo = np.arange(len(av))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        guess = np.floor(np.log10(av))  # a guess (libm): the band test below decides
        guess = np.where(np.isfinite(guess), guess, 0.0).astype(np.int64)
        for shift in (0, -1, 1):  # log10 may be off by one next to a power of ten
            x = guess[todo] + shift
            k = p - 1 - x
            pk = _POW10[np.minimum(np.abs(k), 22)]
            s = np.where(k >= 0, av[todo] * pk, av[todo] / pk)
            here = (np.abs(k) <= 22) & (s > lo + margin) & (s < hi - margin) & (np.abs(s - np.floor(s) - 0.5) > margin)
            at = todo[here]
            d[at], xs[at], ok[at] = np.rint(s[here]), x[here], True
            todo = todo[~here]
            if not len(todo):
                break
    return d, xs, ok


def decimal_floats(values: np.ndarray, d: np.ndarray, x: np.ndarray, p: int) -> np.ndarray:
    """Return the float nearest D 10^(X-p+1), signed as values: float() of "%.{p}g" % v wherever digits() says ok.

    One IEEE product or quotient of exact operands (|X-p+1| <= 22 where ok): Clinger's fast path.
    """
    k = x - (p - 1)
    pk = _POW10[np.minimum(np.abs(k), 22)]
    return np.copysign(np.where(k >= 0, d * pk, d / pk), values)


def _texts(values: np.ndarray, d: np.ndarray, x: np.ndarray, ok: np.ndarray, p: int) -> list[str]:
    """Return "%.{p}g" % v for every value: written from (D, X) by the compiled kernel where ok, else by Python."""
    n = len(values)
    texts = ball_text_jit.write(values, d, x, ok, p)
    if texts is None:
        return ((f"%.{p}g\n" * n) % tuple(values.tolist())).split("\n")[:n]  # one format call: cheaper than n
    for i in np.nonzero(~ok)[0].tolist():
        texts[i] = f"%.{p}g" % values[i]
    return texts
