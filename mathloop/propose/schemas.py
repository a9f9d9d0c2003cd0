"""The candidate JSON schema a model is asked to follow: the target's own, from its payload spec.

The schema only guides the model (structured output, the prompt); the target's strict parser
stays the only judge of a payload. Every target derives it from the same spec as its parser
(`Target.candidate_schema()`), so there is no second, hand-written schema here.
"""

from __future__ import annotations

from typing import Any, Mapping


def candidate_schema(contract: Any, target: Any) -> dict[str, Any]:
    """Return the candidate JSON schema the target offers models for this contract."""
    return dict(target.candidate_schema())


def schema_keys(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """Return the keys a schema allows at top level, or None when it allows any key."""
    if schema.get("additionalProperties", True) is not False:
        return None
    return frozenset(schema.get("properties", {}))
