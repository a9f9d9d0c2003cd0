"""Checker citations: a contract must cite each of a target's checkers in exactly one obligation."""

from __future__ import annotations

from typing import Iterable

from mathloop.contract.model import Contract, ContractError


def require_cited_once(contract: Contract, checkers: Iterable[str]) -> None:
    """Raise ContractError (at "obligations") unless every checker in `checkers` is cited by exactly one obligation."""
    used = [o.checker for o in contract.checked]
    for name in checkers:
        if used.count(name) != 1:
            raise ContractError(contract.path, "obligations",
                                f"checker {name!r} must be cited by exactly one obligation (found {used.count(name)})")
