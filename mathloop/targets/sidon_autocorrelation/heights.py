"""Step-function candidates shared by the step-function constants (1a, 1b): heights, limits, scaling.

A candidate is {"heights": ["h_0", ..., "h_{n-1}"]}: the heights of n equal steps, each an exact
rational string in the one payload grammar (integer, "p/q", decimal with a bounded exponent; see
targets/payload.py). JSON numbers are refused in payloads; the file reader (candidate_file.py)
turns published float files into strings first, and says how.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.contract.model import Contract
from mathloop.domain import fraction_str
from mathloop.targets.base import Malformed
from mathloop.targets.evidence import int_limit
from mathloop.targets.payload import PayloadSpec, Rational, RationalList


@dataclass(frozen=True)
class StepLimits:
    """The contract's limits on a step-function candidate.

    Attributes:
        max_steps: most steps n.
        max_chars: longest height string (a double written as p/q needs ~ 50, a subnormal ~ 650).
        max_exponent: largest |e| in a decimal height ("1e-17").
        max_denominator_bits: bit length allowed for the common denominator of all heights (keeps
            the integer products bounded: n heights of this many bits).
    """

    max_steps: int
    max_chars: int
    max_exponent: int
    max_denominator_bits: int

    @classmethod
    def of(cls, contract: Contract) -> "StepLimits":
        """Return the limits of a contract (validated by `validate`)."""
        lim = contract.limits
        return cls(int(lim["max_steps"]), int(lim["max_chars"]), int(lim["max_exponent"]),
                   int(lim["max_denominator_bits"]))

    @staticmethod
    def validate(contract: Contract) -> None:
        """Raise ContractError unless every limit is an integer in its range."""
        int_limit(contract, "max_steps", 1, 1 << 17)
        int_limit(contract, "max_chars", 1, 1000)
        int_limit(contract, "max_exponent", 0, 400)
        int_limit(contract, "max_denominator_bits", 1, 8192)

    @property
    def spec(self) -> PayloadSpec:
        """Return the payload spec {"heights": [...]}."""
        item = Rational(max_chars=self.max_chars, max_exponent=self.max_exponent)
        return PayloadSpec((("heights", RationalList(item, self.max_steps, "heights")),))


@dataclass(frozen=True)
class Steps:
    """A parsed candidate: the exact heights, and the same heights as integers over one denominator.

    Attributes:
        heights: h_i as given (exact).
        ints: a_i = h_i * denominator (integers; the value of both constants is scale-invariant or
            is normalised from these).
        denominator: the least common denominator of the heights.
    """

    heights: tuple[Fraction, ...]
    ints: tuple[int, ...]
    denominator: int

    @property
    def n(self) -> int:
        return len(self.heights)

    def payload(self) -> dict[str, Any]:
        """Return the canonical payload (heights in lowest terms)."""
        return {"heights": [fraction_str(h) for h in self.heights]}


def parse_steps(payload: Any, limits: StepLimits) -> Steps:
    """Return the exact step heights (signs are the checker's business). Raises Malformed("<field>: reason")."""
    hs = limits.spec.parse(payload)["heights"]
    den = math.lcm(*{h.denominator for h in hs})
    if den.bit_length() > limits.max_denominator_bits:
        raise Malformed(f"heights: the common denominator has {den.bit_length()} bits, more than the limit "
                        f"{limits.max_denominator_bits} (write the heights over a smaller common denominator)")
    ints = tuple(h.numerator * (den // h.denominator) for h in hs)
    return Steps(tuple(hs), ints, den)


def sign_failure(steps: Steps) -> str | None:
    """Return why the heights are not a non-negative function with positive integral, or None."""
    for i, a in enumerate(steps.ints):
        if a < 0:
            return f"heights[{i}] = {fraction_str(steps.heights[i])} is negative (f must be non-negative)"
    if not any(steps.ints):
        return "every height is 0 (the integral must be positive)"
    return None
