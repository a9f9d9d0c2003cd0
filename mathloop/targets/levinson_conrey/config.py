"""Validate a contract's [parameters] and [limits] into this target's typed settings."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathloop.contract.model import Contract, ContractError
from mathloop.domain import Direction
from mathloop.targets.levinson_conrey.schema import Limits

# Conrey (1989): mollifiers of length T^θ are admissible for θ < 4/7. No contract may claim more.
THETA_SUP_MAX = Fraction(4, 7)
BOUND_NAME = "kappa"
_PARAMETERS = {"theta", "theta_sup"}
_LIMITS = {
    "max_degree", "max_numerator", "max_denominator", "r_max", "max_string_chars", "max_exponent",
    "max_payload_bytes", "check_timeout_s",
}
_OPTIONAL_LIMITS = {"default_budget"}  # read by the CLI; validated by Target.validate_contract


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


def _rational(contract: Contract, key: str, value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ContractError(contract.path, key, "must be an exact rational string such as \"4/7\"")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ContractError(contract.path, key, f"not a rational: {value!r}") from None


def _int(contract: Contract, key: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ContractError(contract.path, key, f"must be an integer in [{lo}, {hi}]")
    return value


def settings(contract: Contract) -> Settings:
    """Return the validated settings.

    Raises:
        ContractError: unknown/missing parameters or limits, or values out of range.
    """
    p, lim = contract.parameters, contract.limits
    for table, allowed, name in ((p, _PARAMETERS, "parameters"), (lim, _LIMITS, "limits")):
        for k in table:
            if k not in allowed and not (name == "limits" and k in _OPTIONAL_LIMITS):
                raise ContractError(contract.path, f"{name}.{k}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        for k in allowed:
            if k not in table:
                raise ContractError(contract.path, f"{name}.{k}", "missing")
    theta = _rational(contract, "parameters.theta", p["theta"])
    theta_sup = _rational(contract, "parameters.theta_sup", p["theta_sup"])
    if not 0 < theta_sup <= THETA_SUP_MAX:
        raise ContractError(contract.path, "parameters.theta_sup", "must be in (0, 4/7]: Conrey's range is the largest known")
    if theta <= 0:
        raise ContractError(contract.path, "parameters.theta", "must be > 0")
    r_max = _rational(contract, "limits.r_max", lim["r_max"])
    if not 0 < r_max <= 100:
        raise ContractError(contract.path, "limits.r_max", "must be in (0, 100]")
    limits = Limits(
        max_degree=_int(contract, "limits.max_degree", lim["max_degree"], 1, 40),
        max_numerator=_int(contract, "limits.max_numerator", lim["max_numerator"], 1, 10**30),
        max_denominator=_int(contract, "limits.max_denominator", lim["max_denominator"], 1, 10**30),
        r_max=r_max,
        max_string_chars=_int(contract, "limits.max_string_chars", lim["max_string_chars"], 8, 1000),
        max_exponent=_int(contract, "limits.max_exponent", lim["max_exponent"], 0, 100),
        max_payload_bytes=_int(contract, "limits.max_payload_bytes", lim["max_payload_bytes"], 64, 1_000_000),
    )
    _int(contract, "limits.check_timeout_s", lim["check_timeout_s"], 1, 3600)
    return Settings(theta=theta, theta_sup=theta_sup, limits=limits)


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
