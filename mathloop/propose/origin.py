"""Which part of a stored candidate came from a model and which from the local optimiser (honest credit)."""

from __future__ import annotations

from typing import Any, Mapping

from mathloop.domain import payload_sha

# The credit classes `export --dataset` and `bench` count separately.
MODEL = "model"                 # the stored payload is the model's own reply (after its target's parametrisation)
MODEL_POLISHED = "model+local"  # the model chose the structure, the local optimiser changed its numbers
LOCAL = "local"                 # no model took part (local proposer, replay, seed)


def origin_meta(model_payload: Any, stored_payload: Any, polished_by: str | None) -> dict[str, Any]:
    """Return the `meta.origin` record: sha256 of the model's payload and what polished it (None: nothing did).

    >>> origin_meta({"x": "1"}, {"x": "1"}, "local")["polished_by"] is None
    True
    """
    model_sha, stored_sha = payload_sha(model_payload), payload_sha(stored_payload)
    changed = polished_by is not None and model_sha != stored_sha
    return {"model": model_sha, "polished_by": polished_by if changed else None, "stored": stored_sha}


def credit(meta: Mapping[str, Any]) -> str:
    """Return the credit class of a stored candidate from its meta (MODEL, MODEL_POLISHED or LOCAL)."""
    origin = meta.get("origin")
    if not isinstance(origin, Mapping):
        return MODEL if isinstance(meta.get("model"), str) else LOCAL  # stores written before meta.origin
    return MODEL_POLISHED if origin.get("polished_by") else MODEL
