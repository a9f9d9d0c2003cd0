"""Validate a contract's [parameters] and [limits] into this target's typed settings."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated

from pydantic import field_validator

from mathloop.contract.model import Contract, ContractError
from mathloop.contract.fields import Table, exact_rational, int_in, refuse, validated
from mathloop.domain import Direction
from mathloop.targets.levinson_conrey.schema import Limits

# Conrey (1989): mollifiers of length T^θ are admissible for θ < 4/7. No contract may claim more.
THETA_SUP_MAX = Fraction(4, 7)
# Levinson (1974) (and Young's short proof, arXiv:1002.4403) cover θ < 1/2 only.
THETA_SUP_LEVINSON = Fraction(1, 2)
MEAN_VALUE = {"levinson-mean-value": THETA_SUP_LEVINSON, "conrey-mean-value": THETA_SUP_MAX}
BOUND_NAME = "kappa"


@dataclass(frozen=True)
class Settings:
    """The contract's numbers this target uses.

    Attributes:
        theta: the mollifier length exponent θ (an exact rational from the contract, never the candidate).
        theta_sup: the admissible range is 0 < θ < theta_sup (4/7 Conrey, 1/2 Levinson).
        limits: payload limits.
    """

    theta: Fraction
    theta_sup: Fraction
    limits: Limits


_RATIONAL = "must be an exact rational string such as \"4/7\""


class _Parameters(Table):
    theta: Annotated[Fraction, exact_rational(_RATIONAL)] = None
    theta_sup: Annotated[Fraction, exact_rational(_RATIONAL)] = None

    @field_validator("theta", "theta_sup")
    @classmethod
    def _positive(cls, v: Fraction) -> Fraction:
        if v <= 0:  # theta_sup <= 4/7 is a floor (target.py)
            raise refuse("must be > 0")
        return v


class _Limits(Table):
    max_degree: Annotated[int, int_in(1, 40, digit_strings=True)] = None
    max_numerator: Annotated[int, int_in(1, 10**30, digit_strings=True)] = None
    max_denominator: Annotated[int, int_in(1, 10**30, digit_strings=True)] = None
    r_max: Annotated[Fraction, exact_rational(_RATIONAL)] = None
    max_string_chars: Annotated[int, int_in(8, 1000, digit_strings=True)] = None
    max_exponent: Annotated[int, int_in(0, 100, digit_strings=True)] = None
    max_payload_bytes: Annotated[int, int_in(64, 1_000_000, digit_strings=True)] = None

    @field_validator("r_max")
    @classmethod
    def _r_max(cls, v: Fraction) -> Fraction:
        if not 0 < v <= 100:
            raise refuse("must be in (0, 100]")
        return v


def settings(contract: Contract) -> Settings:
    """Return the validated settings.

    Raises:
        ContractError: unknown/missing parameters or limits, or values out of range.
    """
    p = validated(_Parameters, dict(contract.parameters), contract.path, "parameters")
    # the generic limits are validated in contract/
    lim = validated(_Limits, dict(contract.target_limits), contract.path, "limits")
    limits = Limits(max_degree=lim.max_degree, max_numerator=lim.max_numerator, max_denominator=lim.max_denominator,
                    r_max=lim.r_max, max_string_chars=lim.max_string_chars, max_exponent=lim.max_exponent,
                    max_payload_bytes=lim.max_payload_bytes)
    return Settings(theta=p.theta, theta_sup=p.theta_sup, limits=limits)


def validate_bound(contract: Contract, checker: str) -> None:
    """Raise ContractError unless the obligation checked by `checker` is a maximised bound named kappa."""
    obligation = next(o for o in contract.checked if o.checker == checker)
    b = obligation.bound
    where = f"obligations.{obligation.id}.bound"
    if b is None:
        raise ContractError(contract.path, where, f"the {checker} obligation must be of kind bound")
    if b.name != BOUND_NAME or b.direction is not Direction.MAXIMIZE:
        raise ContractError(contract.path, where, f"must be named {BOUND_NAME!r} with direction 'maximize'")
    if b.class_maximum is not None and not b.class_maximum <= 1:
        raise ContractError(contract.path, f"{where}.class_maximum", "κ <= 1 always (c >= 1)")


def validate_mean_value(contract: Contract) -> None:
    """Raise ContractError unless a mean-value hypothesis covering θ < theta_sup is in the contract.

    θ < 1/2 rests on Levinson's theorem or Conrey's; 1/2 <= θ < 4/7 on Conrey's (1989) only.
    """
    sup = validated(_Parameters, dict(contract.parameters), contract.path, "parameters").theta_sup
    have = {h.id for h in contract.hypotheses}
    covering = sorted(h for h, top in MEAN_VALUE.items() if h in have and sup <= top)
    if not covering:
        need = " or ".join(repr(h) for h, top in MEAN_VALUE.items() if sup <= top) or "none (theta_sup > 4/7)"
        raise ContractError(contract.path, "obligations", f"a mean-value hypothesis covering θ < {sup} is required "
                                                          f"({need}): the bound rests on it")
