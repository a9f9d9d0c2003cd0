"""Read a step-function candidate file in the formats optimisation papers publish.

Accepted (the first that applies):
- the target's own JSON: an object {"heights": [...]} (or an exported certificate, which the CLI
  unwraps) — returned unchanged;
- a JSON list of numbers `[0.1, 2, "3/7"]`;
- a NumPy `.npy` array of floats or integers (read with `allow_pickle=False`: no object arrays);
- a text file of numbers separated by whitespace or commas (optionally in brackets).

Exactness: a number written as text (JSON or plain text) is taken as the exact decimal it spells
("0.1" is 1/10), never through a binary double; a float64 in a `.npy` file is taken as the exact
binary value it stores (0.1 stored as a double is 3602879701896397/36028797018963968). So the
same construction written as text and as `.npy` can certify slightly different values: each is
the exact value of the step function the file describes. NaN, infinities and booleans are refused.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from mathloop.domain import fraction_str

MAX_FILE_BYTES = 32 * 1024 * 1024  # 2^16 heights of 60 characters take ~4 MB
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?[0-9]+/[0-9]+", re.ASCII)
_SEPARATORS = re.compile(r"[\s,]+")


class CandidateFileError(ValueError):
    """The file cannot be read as a candidate; str() names the file and the reason."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number this target accepts")


def _json_number(text: str) -> str:
    return text  # keep the decimal exactly as written; the payload parser reads it exactly


def _from_json(path: Path, text: str) -> Any:
    try:
        data = json.loads(text, parse_float=_json_number, parse_int=_json_number, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise CandidateFileError(f"{path}: not strict JSON ({str(e)[:120]})") from None
    if isinstance(data, dict):
        return data
    if not isinstance(data, list):
        raise CandidateFileError(f"{path}: expected a JSON list of numbers or an object, got {type(data).__name__}")
    for i, v in enumerate(data):
        if not isinstance(v, str) or not _NUMBER.fullmatch(v):
            raise CandidateFileError(f"{path}: entry {i} is not a number: {str(v)[:40]!r}")
    return {"heights": [v.lstrip("+") for v in data]}


def _from_text(path: Path, text: str) -> dict[str, Any]:
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    tokens = [t for t in _SEPARATORS.split(body) if t]
    if not tokens:
        raise CandidateFileError(f"{path}: no numbers found")
    for i, t in enumerate(tokens):
        if not _NUMBER.fullmatch(t):
            raise CandidateFileError(f"{path}: token {i} is not a number: {t[:40]!r}")
    return {"heights": [t.lstrip("+") for t in tokens]}


def _from_npy(path: Path, raw: bytes) -> dict[str, Any]:
    import io

    import numpy as np

    try:
        arr = np.load(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise CandidateFileError(f"{path}: not a NumPy .npy array without pickles ({str(e)[:120]})") from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 1:
        raise CandidateFileError(f"{path}: expected a one-dimensional array, got shape {getattr(arr, 'shape', None)}")
    if arr.dtype.kind == "f":
        vals = arr.astype(np.float64).tolist()
        for i, v in enumerate(vals):
            if v != v or v in (float("inf"), float("-inf")):
                raise CandidateFileError(f"{path}: entry {i} is {v} (not a finite number)")
        return {"heights": [fraction_str(Fraction(v)) for v in vals]}  # the stored double, exactly
    if arr.dtype.kind in "iu":
        return {"heights": [str(int(v)) for v in arr.tolist()]}
    raise CandidateFileError(f"{path}: dtype {arr.dtype} is not a float or integer array")


def read_candidate_file(path: Path, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Return the candidate payload a file describes (see the module docstring for formats and exactness).

    Raises:
        CandidateFileError: unreadable, too large, not one of the formats, or a non-number inside.
    """
    try:
        if not path.is_file():
            raise CandidateFileError(f"{path}: not a regular file")
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as e:
        raise CandidateFileError(f"{path}: cannot be read ({e.strerror})") from None
    if len(raw) > max_bytes:
        raise CandidateFileError(f"{path}: larger than {max_bytes} bytes")
    if raw.startswith(b"\x93NUMPY"):
        return _from_npy(path, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CandidateFileError(f"{path}: neither a .npy array nor UTF-8 text") from None
    stripped = text.lstrip()
    if stripped.startswith("{") or (stripped.startswith("[") and path.suffix.lower() == ".json"):
        return _from_json(path, text)
    if stripped.startswith("["):
        try:
            return _from_json(path, text)
        except CandidateFileError:
            return _from_text(path, text)
    return _from_text(path, text)
