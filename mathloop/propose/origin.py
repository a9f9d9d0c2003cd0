"""Which part of a stored candidate came from a model and which from the local optimiser (honest credit)."""

from __future__ import annotations

from typing import Any, Mapping

from mathloop.domain import payload_sha

# The credit classes `export --dataset` and `bench` count separately.
MODEL = "model"                 # the stored payload is the model's own reply (after its target's parametrisation)
MODEL_POLISHED = "model+local"  # the model chose the structure, the local optimiser changed its numbers
LOCAL = "local"                 # no model took part (local proposer, seed)
REPLAY = "replay"               # replayed from a file (`meta.replay` names it by name and sha256), whatever it claims
REPLAY_PREFIX = "replay:"       # the replay proposer's name: `replay:FILE`


def origin_meta(model_payload: Any, stored_payload: Any, polished_by: str | None) -> dict[str, Any]:
    """Return the `meta.origin` record: sha256 of the model's payload and what polished it (None: nothing did).

    >>> origin_meta({"x": "1"}, {"x": "1"}, "local")["polished_by"] is None
    True
    """
    model_sha, stored_sha = payload_sha(model_payload), payload_sha(stored_payload)
    changed = polished_by is not None and model_sha != stored_sha
    return {"model": model_sha, "polished_by": polished_by if changed else None, "stored": stored_sha}


def credit(meta: Mapping[str, Any], proposer: str | None = None) -> str:
    """Return the credit class of a stored candidate (MODEL, MODEL_POLISHED, LOCAL or REPLAY).

    A replayed candidate is the replay's, whatever its meta says: stores written before replay lines' own meta
    was set apart may hold a line's claimed `model`/`origin` verbatim, so the proposer decides first.

    >>> credit({"model": "gpt", "origin": {"polished_by": None}}, "replay:f.jsonl")
    'replay'
    """
    if (proposer or "").startswith(REPLAY_PREFIX) or "replay" in meta:
        return REPLAY
    origin = meta.get("origin")
    if not isinstance(origin, Mapping):
        return MODEL if isinstance(meta.get("model"), str) else LOCAL  # stores written before meta.origin
    return MODEL_POLISHED if origin.get("polished_by") else MODEL


def credited_to(meta: Mapping[str, Any], proposer: str | None) -> tuple[str, str | None]:
    """Return (who is credited, the sha256 that names a replay file or None), for display.

    >>> credited_to({"replay": {"file": "r.jsonl", "sha256": "ab"}}, "replay:r.jsonl")
    ('replay r.jsonl', 'ab')
    >>> credited_to({"model": "qwen", "origin": {"polished_by": "local"}}, "openai+local:qwen")
    ('model qwen, polished by the local optimiser', None)
    """
    who = credit(meta, proposer)
    if who == REPLAY:
        replay = meta.get("replay") if isinstance(meta.get("replay"), Mapping) else {}
        name = replay.get("file") or (proposer or "").removeprefix(REPLAY_PREFIX)
        sha = replay.get("sha256")
        return f"replay {name}", sha if isinstance(sha, str) else None
    model = meta.get("model") if isinstance(meta.get("model"), str) else "?"
    if who == MODEL:
        return f"model {model}", None
    if who == MODEL_POLISHED:
        return f"model {model}, polished by the local optimiser", None
    return f"local ({proposer or 'unknown'})", None
