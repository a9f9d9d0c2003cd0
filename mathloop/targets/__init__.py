"""Targets: the Target protocol (base), the registry (entry points `mathloop.targets`), the shared exact
toolkit, and one package per shipped target."""

from __future__ import annotations

from mathloop.targets.registry import REGISTRY, build_target, registered, shipped_contracts, target_class

__all__ = ["REGISTRY", "build_target", "registered", "shipped_contracts", "target_class"]
