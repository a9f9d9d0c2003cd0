"""Validate a feng-przz contract's [parameters] and [limits] into typed settings."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated

from pydantic import field_validator

from mathloop.contract.fields import Table, exact_rational, int_in, refuse, validated
from mathloop.contract.model import Contract, ContractError
from mathloop.targets.feng_przz.schema import Limits

# PRZZ's mean-value theorem (and Conrey's for the μ piece) holds for θ < 4/7 only.
THETA_SUP_MAX = Fraction(4, 7)
# The pieces whose mean value is sourced: the μ piece (Conrey 1989) and Feng's pieces with 2 and 3
# prime logarithms (PRZZ, K = 3). A 1-logarithm piece is a Conrey piece (docs/przz.md, step 6) and
# a 4-logarithm piece is unsourced here, so neither may appear in a contract.
SOURCED_PIECES = (0, 2, 3)
BOUND_NAME = "kappa"
_RATIONAL = "must be an exact rational string such as \"4/7\""


@dataclass(frozen=True)
class Settings:
    """The contract's numbers.

    Attributes:
        theta: the mollifier length exponent (from the contract, never the candidate), 0 < θ < theta_sup.
        theta_sup: the mean-value theorem's range (<= 4/7).
        pieces: prime-logarithm count of each piece, first 0 (the μ piece), e.g. (0, 2, 3).
        limits: payload limits.
    """

    theta: Fraction
    theta_sup: Fraction
    pieces: tuple[int, ...]
    limits: Limits


class _Parameters(Table):
    theta: Annotated[Fraction, exact_rational(_RATIONAL)] = None
    theta_sup: Annotated[Fraction, exact_rational(_RATIONAL)] = None
    pieces: list[int] = None

    @field_validator("theta", "theta_sup")
    @classmethod
    def _positive(cls, v: Fraction) -> Fraction:
        if v <= 0:
            raise refuse("must be > 0")
        return v

    @field_validator("pieces")
    @classmethod
    def _pieces(cls, v: list[int]) -> list[int]:
        if not v or v[0] != 0 or len(set(v)) != len(v) or any(k not in SOURCED_PIECES for k in v):
            raise refuse(f"must start with 0 and list distinct log counts from {list(SOURCED_PIECES)} "
                         "(a 1-log piece is Conrey's; a 4-log piece is unsourced)")
        return v


class _Limits(Table):
    max_degree: Annotated[int, int_in(1, 20, digit_strings=True)] = None
    max_numerator: Annotated[int, int_in(1, 10**30, digit_strings=True)] = None
    max_denominator: Annotated[int, int_in(1, 10**30, digit_strings=True)] = None
    r_max: Annotated[Fraction, exact_rational(_RATIONAL)] = None
    max_string_chars: Annotated[int, int_in(8, 1000, digit_strings=True)] = None
    max_exponent: Annotated[int, int_in(0, 100, digit_strings=True)] = None
    max_payload_bytes: Annotated[int, int_in(64, 1_000_000, digit_strings=True)] = None

    @field_validator("r_max")
    @classmethod
    def _r_max(cls, v: Fraction) -> Fraction:
        if not 0 < v <= 10:  # Taylor orders stay small: exponents are at most 2R
            raise refuse("must be in (0, 10]")
        return v


def settings(contract: Contract) -> Settings:
    """Return the validated settings.

    Raises:
        ContractError: unknown/missing parameters or limits, values out of range, θ outside (0, theta_sup).
    """
    p = validated(_Parameters, dict(contract.parameters), contract.path, "parameters")
    if not p.theta < p.theta_sup:
        raise ContractError(contract.path, "parameters.theta", "must be < theta_sup (θ = 4/7 is a supremum, "
                                                               "not admissible)")
    lim = validated(_Limits, dict(contract.target_limits), contract.path, "limits")
    limits = Limits(max_degree=lim.max_degree, max_numerator=lim.max_numerator, max_denominator=lim.max_denominator,
                    r_max=lim.r_max, max_string_chars=lim.max_string_chars, max_exponent=lim.max_exponent,
                    max_payload_bytes=lim.max_payload_bytes)
    return Settings(theta=p.theta, theta_sup=p.theta_sup, pieces=tuple(p.pieces), limits=limits)
