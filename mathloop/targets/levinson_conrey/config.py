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
# Levinson (1974) (and Young's short proof, arXiv:1002.4403) cover θ < 1/2 only.
THETA_SUP_LEVINSON = Fraction(1, 2)
MEAN_VALUE = {"levinson-mean-value": THETA_SUP_LEVINSON, "conrey-mean-value": THETA_SUP_MAX}
BOUND_NAME = "kappa"
_PARAMETERS = {"theta", "theta_sup"}
_LIMITS = {
    "max_degree", "max_numerator", "max_denominator", "r_max", "max_string_chars", "max_exponent",
    "max_payload_bytes",
}


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
        try:
            value = int(value)
        except ValueError:  # beyond Python's int-string digit limit: out of range below
            pass
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ContractError(contract.path, key, f"must be an integer in [{lo}, {hi}]")
    return value


def settings(contract: Contract) -> Settings:
    """Return the validated settings.

    Raises:
        ContractError: unknown/missing parameters or limits, or values out of range.
    """
    p, lim = contract.parameters, contract.target_limits  # the generic limits are validated in contract/
    for table, allowed, name in ((p, _PARAMETERS, "parameters"), (lim, _LIMITS, "limits")):
        for k in table:
            if k not in allowed:
                raise ContractError(contract.path, f"{name}.{k}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        for k in allowed:
            if k not in table:
                raise ContractError(contract.path, f"{name}.{k}", "missing")
    theta = _rational(contract, "parameters.theta", p["theta"])
    theta_sup = _rational(contract, "parameters.theta_sup", p["theta_sup"])
    if not theta_sup > 0:
        raise ContractError(contract.path, "parameters.theta_sup", "must be > 0")  # <= 4/7: a floor (target.py)
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


def validate_mean_value(contract: Contract) -> None:
    """Raise ContractError unless a mean-value hypothesis covering θ < theta_sup is in the contract.

    θ < 1/2 rests on Levinson's theorem or Conrey's; 1/2 <= θ < 4/7 on Conrey's (1989) only.
    """
    sup = _rational(contract, "parameters.theta_sup", contract.parameters.get("theta_sup"))
    have = {h.id for h in contract.hypotheses}
    covering = sorted(h for h, top in MEAN_VALUE.items() if h in have and sup <= top)
    if not covering:
        need = " or ".join(repr(h) for h, top in MEAN_VALUE.items() if sup <= top) or "none (theta_sup > 4/7)"
        raise ContractError(contract.path, "obligations", f"a mean-value hypothesis covering θ < {sup} is required "
                                                          f"({need}): the bound rests on it")
