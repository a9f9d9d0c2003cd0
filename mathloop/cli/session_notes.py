"""The lines under `run`'s summary: what its counts mean, and why a session that ran out of proposals ended.

A session that ends with "proposer exhausted" is no dead end: the note says whether the head sits at its class
maximum (then a larger class or a model is what is left) or only that the local proposer has no more moves.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from mathloop.contract import Contract
from mathloop.domain import Direction, exact_decimal
from mathloop.order import oriented
from mathloop.view.counts import LABEL_MEANING, explain_labels

# A head this close to its class maximum (relative to the maximum) counts as having reached it.
NEAR_MAXIMUM = Fraction(1, 10**4)
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def counts_note(labels: Mapping[str, int]) -> str:
    """Return the line that explains the summary's counts.

    >>> counts_note({"progress": 1})[:60]
    "commits: this session's commits; the lineage's count include"
    """
    return ("commits: this session's commits; the lineage's count includes its root (the contract's seed, committed "
            f"first). {explain_labels(dict(labels)) or 'labels: ' + ', '.join(LABEL_MEANING)}.")


def gap_text(gap: Fraction) -> str:
    """Return a positive gap with two significant digits, e.g. "6.8·10⁻⁷".

    >>> gap_text(Fraction(676447, 10**12))
    '6.8·10⁻⁷'
    """
    e = 0
    while gap >= 10:
        gap, e = gap / 10, e + 1
    while gap < 1:
        gap, e = gap * 10, e - 1
    return f"{float(gap):.1f}·10{str(e).translate(_SUPERSCRIPT)}"


def _larger_classes(contract: Contract, bound: str) -> list[str]:
    """Return the shipped contracts certifying a bound of the same name and direction with a larger class maximum."""
    from mathloop.targets import load_contract, shipped_contracts

    spec = contract.bound_spec(bound)
    out = []
    for shipped in shipped_contracts():
        if shipped.name == contract.name:
            continue
        try:
            other = load_contract(shipped.name).bound_spec(bound)
        except (KeyError, ValueError):  # no such bound, or a contract that does not load here
            continue
        if other.direction is spec.direction and (other.class_maximum is None or spec.class_maximum is None
                                                  or oriented(other.class_maximum, other)
                                                  > oriented(spec.class_maximum, spec)):
            out.append(shipped.name)
    return out


def exhausted_hint(contract: Contract, bounds: Mapping[str, Fraction], proposer: str = "local") -> str:
    """Return why a session's proposer ran out, and what to try next."""
    if proposer.startswith("replay:"):
        return "the replay file has no more lines."
    for spec in contract.bounds:
        value = bounds.get(spec.name)
        if value is None or spec.class_maximum is None:
            continue
        gap = oriented(spec.class_maximum, spec) - oriented(value, spec)
        if 0 <= gap <= NEAR_MAXIMUM * abs(spec.class_maximum):
            where = ("below" if spec.direction is Direction.MAXIMIZE else "above") if gap else "at"
            larger = _larger_classes(contract, spec.name)
            kind = "a theorem" if spec.class_maximum_is_theorem else "a numerical optimum"
            return (f"the head's {spec.name} {exact_decimal(value)} is {gap_text(gap) + ' ' if gap else ''}{where} its "
                    f"{spec.class_limit_name} {exact_decimal(spec.class_maximum)} ({kind}): this class has nothing "
                    "better to offer. Next: a larger class"
                    + (f" (`mathloop run {larger[0]}`" + (f", or {', '.join(larger[1:])}" if larger[1:] else "") + ")"
                       if larger else "")
                    + ", or a model's proposals (`--proposer openai --model M`).")
    return ("the local proposer has nothing more to try from this head (it is deterministic: `--seed N` starts "
            "other restarts); a model may (`--proposer openai --model M`), and `mathloop status` shows the head.")
