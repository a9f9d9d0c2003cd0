"""The candidate JSON schema a model is asked to follow, derived from the contract.

The schema only guides the model (structured output, the prompt); the target's strict parser
stays the only judge of a payload. It is strict (additionalProperties false) so that a
grammar-constrained server cannot add keys, and it mirrors the contract's limits.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from mathloop.contract.model import Contract

# Decimal places offered to the model: enough to steer, few enough that "1.234567" stays within
# any sensible numerator/denominator limit.
_DECIMAL_PLACES = 6
_RATIONAL_MAX_CHARS = 64


def _limit(limits: Mapping[str, Any], names: tuple[str, ...], default: int) -> int:
    """Return the first integer limit present under one of `names`, else `default`."""
    for n in names:
        v = limits.get(n)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return default


def rational_pattern(max_numerator: int = 10**15, max_denominator: int = 10**15) -> str:
    """Return a regex for exact rationals ("13/10", "-2", "1.3") whose digits fit the limits.

    Written without backslash escapes: llama-cpp-python's grammar converter cannot parse `\\.`
    and its server process dies on a grammar it cannot parse (measured).

    >>> rational_pattern(10**15, 10**15)
    '^-?([0-9]{1,15}(/[0-9]{1,15})?|[0-9]{1,9}[.][0-9]{1,6})$'
    """
    num = max(1, len(str(max_numerator)) - 1)  # every numeral with this many digits is < the limit
    den = max(1, len(str(max_denominator)) - 1)
    places = min(_DECIMAL_PLACES, den, num - 1) if num > 1 else 0
    decimal = f"|[0-9]{{1,{num - places}}}[.][0-9]{{1,{places}}}" if places else ""
    return f"^-?([0-9]{{1,{num}}}(/[0-9]{{1,{den}}})?{decimal})$"


def rational_schema(limits: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return the schema of one exact rational written as a string, within the contract's limits."""
    limits = limits or {}
    pattern = rational_pattern(_limit(limits, ("max_numerator",), 10**15), _limit(limits, ("max_denominator",), 10**15))
    return {"type": "string", "pattern": pattern,
            "maxLength": _limit(limits, ("max_string_chars",), _RATIONAL_MAX_CHARS)}


def _coefficients(max_items: int) -> dict[str, Any]:
    return {"type": "array", "items": {"$ref": "#/$defs/rational"}, "minItems": 1, "maxItems": max_items}


def levinson_conrey_schema(contract: Contract) -> dict[str, Any]:
    """Return the schema of `{"P": [...], "Q": [...], "R": "..."}` (coefficients lowest degree first).

    The rational is defined once under $defs (fewer prompt tokens; OpenAI strict mode, vLLM and
    both llama.cpp servers resolve local $refs).
    """
    degree = _limit(contract.limits, ("max_degree", "degree_max", "degree"), 12)
    return {
        "$defs": {"rational": rational_schema(contract.limits)},
        "type": "object",
        "properties": {
            "P": _coefficients(degree + 1),
            "Q": _coefficients(degree + 1),
            "R": {"$ref": "#/$defs/rational"},
        },
        "required": ["P", "Q", "R"],
        "additionalProperties": False,
    }


def _rational_digits(digits: int) -> dict[str, Any]:
    """Return the schema of an exact rational string with at most `digits` digits per part."""
    d = max(1, min(digits, 60))
    return {"type": "string", "pattern": f"^-?([0-9]{{1,{d}}}(/[0-9]{{1,{d}}})?|[0-9]{{1,{d}}}[.][0-9]{{1,{d}}})$",
            "maxLength": 2 * d + 2}


def pair_correlation_schema(contract: Contract) -> dict[str, Any]:
    """Return the schema of `{"g": [...]}`: coefficients of x^0, x^2, x^4, ... as exact rationals."""
    terms = _limit(contract.limits, ("max_terms",), 16)
    return {
        "$defs": {"rational": _rational_digits(_limit(contract.limits, ("max_digits",), 40))},
        "type": "object",
        "properties": {"g": _coefficients(terms)},
        "required": ["g"],
        "additionalProperties": False,
    }


def pair_correlation_rh_schema(contract: Contract) -> dict[str, Any]:
    """Return the schema of `{"h": ..., "A": ..., "nodes": [...]}` (node values r-hat(j h), j < A/h)."""
    rational = {"$ref": "#/$defs/rational"}
    return {
        "$defs": {"rational": _rational_digits(_limit(contract.limits, ("max_digits",), 40))},
        "type": "object",
        "properties": {"h": rational, "A": rational, "nodes": {"type": "array", "items": rational, "minItems": 1,
                                                               "maxItems": _limit(contract.limits, ("max_nodes",), 600)}},
        "required": ["h", "A", "nodes"],
        "additionalProperties": False,
    }


def generic_schema(contract: Contract) -> dict[str, Any]:
    """Return the fallback schema for a target whose payload format is not mapped here: any object."""
    return {"type": "object"}


_SCHEMAS: dict[str, Callable[[Contract], dict[str, Any]]] = {
    "levinson-conrey": levinson_conrey_schema,
    "pair-correlation": pair_correlation_schema,
    "pair-correlation-rh": pair_correlation_rh_schema,
}


def candidate_schema(contract: Contract, target: Any = None) -> dict[str, Any]:
    """Return the candidate JSON schema for the contract's target.

    A target object that defines `candidate_schema()` is the source of truth; otherwise the
    mapping above by `contract.target`; otherwise a generic object schema.
    """
    own = getattr(target, "candidate_schema", None)
    if callable(own):
        return dict(own())
    return _SCHEMAS.get(contract.target, generic_schema)(contract)


def schema_keys(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """Return the keys a schema allows at top level, or None when it allows any key."""
    if schema.get("additionalProperties", True) is not False:
        return None
    return frozenset(schema.get("properties", {}))
