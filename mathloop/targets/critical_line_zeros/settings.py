"""Read the contract's [parameters] and [limits] into typed settings; errors name the key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BeforeValidator

from mathloop.contract.model import Contract
from mathloop.contract.fields import Table, flag, int_in, refuse, validated
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


def _ladder(value: Any) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= 6
        or not all(isinstance(x, int) and not isinstance(x, bool) and 53 <= x <= 4096 for x in value)
        or any(a >= b for a, b in zip(value, value[1:]))
    ):
        raise refuse("must be 1..6 increasing integers in [53, 4096] (bits)")
    return tuple(value)


class _Parameters(Table):
    precision_ladder: Annotated[tuple[int, ...], BeforeValidator(_ladder)] = None
    height_digits: Annotated[int, int_in(12, 60)] = None
    crosscheck_stride: Annotated[int, int_in(1, 10**9)] = None
    crosscheck_dps: Annotated[int, int_in(15, 60)] = None
    check_workers: Annotated[int | None, int_in(0, 256, required=False)] = None
    fast_z: Annotated[bool, flag(False)] = None
    chunk_gram_intervals: Annotated[int, int_in(1, 1_000_000)] = None
    evidence_digest_blocks: Annotated[int | None, int_in(1, 1_000_000, required=False)] = None


class _Limits(Table):
    max_gram_index: Annotated[int, int_in(1, MAX_CAP)] = None
    max_blocks_per_chunk: Annotated[int, int_in(1, 100_000)] = None
    max_block_length: Annotated[int, int_in(1, 1000)] = None
    max_points_per_block: Annotated[int, int_in(1, 10_000)] = None
    max_point_chars: Annotated[int, int_in(8, 200)] = None
    max_range_gram_intervals: Annotated[int | None, int_in(1, 1_000_000, required=False)] = None


def read_settings(contract: Contract) -> Settings:
    """Return the typed settings. Raises ContractError naming the table and key."""
    p = validated(_Parameters, dict(contract.parameters), contract.path, "parameters")
    # the generic limits are validated in contract/
    lim = validated(_Limits, dict(contract.target_limits), contract.path, "limits")
    check = CheckParams(ladder=p.precision_ladder, height_digits=p.height_digits, crosscheck_stride=p.crosscheck_stride,
                        crosscheck_dps=p.crosscheck_dps, workers=p.check_workers or 0, fast_z=p.fast_z,
                        digest_blocks=p.evidence_digest_blocks or 0)
    limits = Limits(max_gram_index=lim.max_gram_index, max_blocks_per_chunk=lim.max_blocks_per_chunk,
                    max_block_length=lim.max_block_length, max_points_per_block=lim.max_points_per_block,
                    max_point_chars=lim.max_point_chars, max_range_gram_intervals=lim.max_range_gram_intervals or 0)
    return Settings(check, limits, p.chunk_gram_intervals)
