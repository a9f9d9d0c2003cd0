"""The canonical spelling of a payload: every exact rational as `fraction_str`, a copy of the seed as the seed.

A model's reply reaches the store through the target's form, which writes every number canonically; a payload
that arrives as a whole (a replay line) is respelled here, so that "1/1" after "1" is the repeat it is and not
checked again. The target's parser decides: the respelled payload is used only when it parses to the very
candidate the original does (a string that is a word, not a number, keeps its spelling).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mathloop.domain import fraction_str
from mathloop.targets.base import Target
from mathloop.targets.payload import Rational

# The grammar of every payload rational (payload.Rational); an exponent beyond ±30 is left as written.
_GRAMMAR = Rational(max_chars=64, max_exponent=30)


def respelled(value: Any) -> Any:
    """Return `value` with every string that spells an exact rational rewritten as `fraction_str` (keys untouched).

    >>> respelled({"P": ["0", "1/1", "+2/4"], "R": "1.30", "w": "C7"})
    {'P': ['0', '1', '1/2'], 'R': '13/10', 'w': 'C7'}
    """
    if isinstance(value, str):
        try:
            q: Fraction = _GRAMMAR.parse("x", value)
        except ValueError:  # Malformed: not a rational, or beyond the grammar's limits
            return value
        return fraction_str(q)
    if isinstance(value, list):
        return [respelled(v) for v in value]
    if isinstance(value, dict):
        return {k: respelled(v) for k, v in value.items()}
    return value


def _same(target: Target, a: Any, b: Any) -> bool:
    """Return whether the target parses `a` and `b` to equal candidates (False when either is malformed)."""
    try:
        return bool(target.parse(a) == target.parse(b))
    except (ValueError, ArithmeticError, TypeError):  # Malformed, or candidates that do not compare
        return False


def canonical_payload(target: Target, payload: Any, seed: Mapping[str, Any] | None = None) -> Any:
    """Return the payload in canonical spelling: `seed` itself when it is the seed, else respelled when the
    respelling parses to the same candidate, else `payload` unchanged (e.g. a malformed one, judged as written)."""
    if seed is not None and _same(target, payload, dict(seed)):
        return dict(seed)
    again = respelled(payload)
    return again if again != payload and _same(target, payload, again) else payload
