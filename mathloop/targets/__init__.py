"""Target implementations, looked up by the `[target] implementation` key of a contract."""

from __future__ import annotations

import importlib
from pathlib import Path

from mathloop.contract.model import Contract, ContractError

# Implementation key -> "module:Class". Imported lazily so that `mathloop --help` stays fast.
REGISTRY: dict[str, str] = {
    "levinson-conrey": "mathloop.targets.levinson_conrey.target:LevinsonConrey",
    "critical-line-zeros": "mathloop.targets.critical_line_zeros.target:CriticalLineZeros",
    "pair-correlation": "mathloop.targets.pair_correlation.target:PairCorrelation",
    "pair-correlation-rh": "mathloop.targets.pair_correlation.rh_target:PairCorrelationRH",
    "pair-correlation-rh-ceiling": "mathloop.targets.pair_correlation_rh_ceiling.target:PairCorrelationRHCeiling",
}


def target_class(key: str, path: Path | str = "<contract>"):
    """Return the Target subclass for an implementation key. Raises ContractError if unknown."""
    spec = REGISTRY.get(key)
    if spec is None:
        raise ContractError(path, "target.implementation", f"unknown implementation {key!r} (known: {', '.join(sorted(REGISTRY))})")
    module, cls = spec.split(":")
    return getattr(importlib.import_module(module), cls)


def build_target(contract: Contract):
    """Return the Target instance that checks `contract`."""
    return target_class(contract.target, contract.path)(contract)
