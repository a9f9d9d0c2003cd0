"""Read the contract's [parameters] and [limits] into typed settings; errors name the key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from mathloop.contract.model import Contract, ContractError
from mathloop.targets.critical_line_zeros.certificate import Limits
from mathloop.targets.critical_line_zeros.verify import CheckParams

# Rosser's rule first fails near g_13999525 (Brent 1979); such blocks are checked as `merged` unions
# of Gram blocks (the Turing window restarts after one). The cap keeps t below ~3.7e8, where the
# fast path's buffers stay small; heights beyond need a user contract and a review of the limits.
MAX_CAP = 1_000_000_000


@dataclass(frozen=True)
class Settings:
    """Everything the target reads from its contract.

    Attributes:
        check: checker parameters (recorded in each evidence's precision).
        limits: candidate size limits and the cap.
        chunk_gram_intervals: Gram intervals per proposed chunk (the local proposer).
    """

    check: CheckParams
    limits: Limits
    chunk_gram_intervals: int


def _int(contract: Contract, table: str, d: Mapping[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    if key not in d:
        if default is None:
            raise ContractError(contract.path, f"{table}.{key}", "missing")
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ContractError(contract.path, f"{table}.{key}", f"must be an integer in [{lo}, {hi}]")
    return v


def _bool(contract: Contract, table: str, d: Mapping[str, Any], key: str, default: bool) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise ContractError(contract.path, f"{table}.{key}", "must be true or false")
    return v


def read_settings(contract: Contract) -> Settings:
    """Return the typed settings. Raises ContractError naming the table and key."""
    p, lim = contract.parameters, contract.target_limits  # the generic limits are validated in contract/
    known_p = {"precision_ladder", "height_digits", "crosscheck_stride", "crosscheck_dps", "check_workers", "chunk_gram_intervals", "fast_z"}
    known_l = {"max_gram_index", "max_blocks_per_chunk", "max_block_length", "max_points_per_block", "max_point_chars"}
    for table, d, known in (("parameters", p, known_p), ("limits", lim, known_l)):
        unknown = sorted(set(d) - known)
        if unknown:
            raise ContractError(contract.path, f"{table}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(known))})")
    ladder = p.get("precision_ladder")
    if (
        not isinstance(ladder, list)
        or not 1 <= len(ladder) <= 6
        or not all(isinstance(x, int) and not isinstance(x, bool) and 53 <= x <= 4096 for x in ladder)
        or any(a >= b for a, b in zip(ladder, ladder[1:]))
    ):
        raise ContractError(contract.path, "parameters.precision_ladder", "must be 1..6 increasing integers in [53, 4096] (bits)")
    check = CheckParams(
        ladder=tuple(ladder),
        height_digits=_int(contract, "parameters", p, "height_digits", 12, 60),
        crosscheck_stride=_int(contract, "parameters", p, "crosscheck_stride", 1, 10**9),
        crosscheck_dps=_int(contract, "parameters", p, "crosscheck_dps", 15, 60),
        workers=_int(contract, "parameters", p, "check_workers", 0, 256, 0),
        fast_z=_bool(contract, "parameters", p, "fast_z", False),
    )
    limits = Limits(
        max_gram_index=_int(contract, "limits", lim, "max_gram_index", 1, MAX_CAP),
        max_blocks_per_chunk=_int(contract, "limits", lim, "max_blocks_per_chunk", 1, 100_000),
        max_block_length=_int(contract, "limits", lim, "max_block_length", 1, 1000),
        max_points_per_block=_int(contract, "limits", lim, "max_points_per_block", 1, 10_000),
        max_point_chars=_int(contract, "limits", lim, "max_point_chars", 8, 200),
    )
    chunk = _int(contract, "parameters", p, "chunk_gram_intervals", 1, 1_000_000)
    return Settings(check, limits, chunk)
