"""Targets: the Target protocol (base), the registry (entry points `mathloop.targets`), the shipped-contract
catalogue and contract loading, the shared exact toolkit, and one package per shipped target."""

from __future__ import annotations

from mathloop.targets.catalogue import load_contract, load_file, load_stored, shipped_contract, shipped_contracts
from mathloop.targets.registry import REGISTRY, build_target, registered, target_class

__all__ = ["REGISTRY", "build_target", "load_contract", "load_file", "load_stored", "registered", "shipped_contract",
           "shipped_contracts", "target_class"]
