"""Validate a feng-przz contract's [parameters] and [limits] into typed settings."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated

from pydantic import field_validator

from mathloop.contract.fields import int_in, refuse, validated
from mathloop.contract.model import Contract, ContractError
from mathloop.targets.feng_przz.schema import Limits
from mathloop.targets.levinson_conrey import config as levinson_config

# PRZZ's mean-value theorem (and Conrey's for the μ piece) holds for θ < 4/7 only.
THETA_SUP_MAX = Fraction(4, 7)
# The pieces whose mean value is sourced: the μ piece (Conrey 1989) and Feng's pieces with 2 and 3
# prime logarithms (PRZZ, K = 3). A 1-logarithm piece is a Conrey piece (docs/przz.md, step 6) and
# a 4-logarithm piece is unsourced here, so neither may appear in a contract.
SOURCED_PIECES = (0, 2, 3)
BOUND_NAME = levinson_config.BOUND_NAME  # "kappa": the name levinson-conrey's validate_bound checks


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


class _Parameters(levinson_config._Parameters):
    """levinson-conrey's [parameters] (θ, theta_sup, both > 0) and the pieces."""

    pieces: list[int] = None

    @field_validator("pieces")
    @classmethod
    def _pieces(cls, v: list[int]) -> list[int]:
        if not v or v[0] != 0 or len(set(v)) != len(v) or any(k not in SOURCED_PIECES for k in v):
            raise refuse(f"must start with 0 and list distinct log counts from {list(SOURCED_PIECES)} "
                         "(a 1-log piece is Conrey's; a 4-log piece is unsourced)")
        return v


class _Limits(levinson_config._Limits):
    """levinson-conrey's [limits] table (the same Limits), with a lower degree cap and R <= 10."""

    max_degree: Annotated[int, int_in(1, 20, digit_strings=True)] = None

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
    limits = Limits(**dict(lim))  # the table's keys are Limits' fields; dict() keeps the validated values
    return Settings(theta=p.theta, theta_sup=p.theta_sup, pieces=tuple(p.pieces), limits=limits)
