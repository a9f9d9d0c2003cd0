"""Where the shipped contracts are: package data of the registered targets (never ./obligations)."""

from __future__ import annotations

from pathlib import Path

from mathloop.targets.catalogue import shipped_contract


def shipped(name: str) -> Path:
    """Return the file of the shipped contract `name` (package data of an installed target)."""
    return Path(str(shipped_contract(name).resource))
