"""The gate, where the search layer and older callers import it from; it lives in mathloop/check/gate.py."""

from mathloop.check.gate import Decision, bound_specs, decide, decimal, open_obligations

__all__ = ["Decision", "bound_specs", "decide", "decimal", "open_obligations"]
