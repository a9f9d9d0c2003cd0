"""Open a store so that nothing can be written through it (kept for imports: see store/engine.readonly_engine)."""

from __future__ import annotations

from mathloop.store.engine import readonly_engine

__all__ = ["readonly_engine"]
