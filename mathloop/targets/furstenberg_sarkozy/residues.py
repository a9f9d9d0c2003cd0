"""Residue sets mod m with no square differences, the exponent ½(1 + log|R|/log m), and its exact certificate.

Ruzsa's construction (1984): if m is squarefree and no two distinct r, r' of R ⊂ Z/m differ by a square mod m, the
numbers whose base-m digits at even positions lie in R have no square difference, and there are
≈ N^{½(1 + log|R|/log m)} of them up to N. The checks here are the finite facts that construction needs, in
integers: m squarefree (trial division), and (r − r') mod m outside the squares {x² mod m} for all ordered pairs of
distinct residues. The exponent γ is irrational; the certified value is k/10^d with 2k/10^d − 1 ≤ log|R|/log m,
proved by the integer inequality m^(2k − 10^d) ≤ |R|^(10^d) (integers of about 10^d·log10 m digits).
"""

from __future__ import annotations

from fractions import Fraction

MAX_Q = 10_000_000  # the exponents of m^p ≤ |R|^q stay below this (integers of at most ~10^8 digits)


def squarefree(m: int) -> int | None:
    """Return a prime p with p² | m, or None when m is squarefree (trial division up to √m).

    >>> squarefree(205), squarefree(72), squarefree(1)
    (None, 2, None)
    """
    p = 2
    while p * p <= m:
        if m % (p * p) == 0:
            return p
        while m % p == 0:
            m //= p
        p += 1
    return None


def squares(m: int) -> set[int]:
    """Return {x² mod m : x in Z/m} (0 included)."""
    return {x * x % m for x in range(m)}


def square_differences(m: int, residues: list[int], limit: int = 10) -> tuple[int, list[tuple[int, int]]]:
    """Return (number of ordered pairs of distinct residues whose difference is a square mod m, up to `limit` of them)."""
    q = squares(m)
    bad, pairs = 0, []
    for r in residues:
        for s in residues:
            if r != s and (r - s) % m in q:
                bad += 1
                if len(pairs) < limit:
                    pairs.append((r, s))
    return bad, pairs


def lower_convergent(size: int, m: int, max_q: int) -> Fraction:
    """Return the best rational p/q ≤ log(size)/log(m) with q ≤ max_q (continued fractions, steered by mpmath),
    proved by the integer inequality m^p ≤ size^q.

    >>> lower_convergent(4, 2, 10), lower_convergent(12, 205, 100)
    (Fraction(2, 1), Fraction(7, 15))
    """
    import mpmath

    if size == 1:
        return Fraction(0)
    with mpmath.workdps(60):
        x = mpmath.log(size) / mpmath.log(m)
    best = Fraction(int(mpmath.floor(x)))
    h0, h1, k0, k1 = 0, 1, 1, 0  # convergents h/k of the continued fraction of x
    y = x
    for _ in range(60):
        a = int(mpmath.floor(y))
        for t in range(a, 0, -1):  # semiconvergents below x approach it from the left at even steps
            h, k = t * h1 + h0, t * k1 + k0
            if k <= max_q and Fraction(h, k) > best and m**h <= size**k:
                best = Fraction(h, k)
                break
        h0, h1, k0, k1 = h1, a * h1 + h0, k1, a * k1 + k0
        if k1 > max_q or y == a:
            break
        with mpmath.workdps(60):
            y = 1 / (y - a)
    return best


def certified_exponent(m: int, size: int, max_q: int) -> Fraction:
    """Return r = ½(1 + p/q) for the best p/q ≤ log(size)/log(m) with q ≤ max_q: a certified r ≤ ½(1 + log|R|/log m).

    >>> float(certified_exponent(205, 12, 200000)) < 0.73341179704028 < float(certified_exponent(205, 12, 200000)) + 1e-9
    True
    """
    return (1 + lower_convergent(size, m, max_q)) / 2


def exponent_certificate(m: int, size: int, r: Fraction) -> dict[str, str]:
    """Return the exponents of the integer inequality m^p ≤ size^q proving r = ½(1 + p/q) ≤ ½(1 + log size/log m)."""
    x = 2 * r - 1
    p, q = x.numerator, x.denominator
    if q > MAX_Q:
        raise ValueError(f"{r}: the denominator of 2r − 1 exceeds {MAX_Q}")
    if p < 0 or m**p > size**q:
        raise ValueError(f"{r} is not below ½(1 + log {size}/log {m})")
    return {"m": str(m), "size": str(size), "p": str(p), "q": str(q)}
